// SPDX-License-Identifier: GPL-2.0

//! cpuidle_vstates: emulated idle states, so that governors can be tested
//! on the idle-state tables of real platforms in any x86 or 32-bit ARM
//! guest.
//!
//! Registers the table named by the `table` parameter (see
//! `cpuidle_tables.rs`, shared with the real drivers).  A polling state 0
//! is the core's polling loop (where the architecture has none, as on ARM,
//! the same loop in C); every other state waits for an interrupt in the
//! architecture's idle instruction (HLT on x86, WFI on ARM) and, after the
//! wakeup, spins for the state's exit latency with IRQs off.
//! `TIMER_STOP` and `RCU_IDLE` are not passed on: the local timer keeps
//! running in HLT and WFI, and the entry routine leaves RCU to the core.
//! Loads and unloads at any time; load it again with another table.
//!
//! `scale=N` multiplies every exit latency and target residency of the
//! table by N: a time-scaled copy of it, for measurements on an emulator
//! whose own wake-up cost would swamp the real table's latencies.
//!
//! `/sys/kernel/debug/cpuidle_vstates/energy` gives the emulated energy per
//! CPU in the table's model (`cpuidle_tables::entry_nj`): for every state,
//! time in it at the state's model power, plus each entry's own energy,
//! derived from the target residencies, so that governors can be compared
//! by the energy they spend on one table.

use kernel::{
    cpu::{
        nr_cpu_ids,
        CpuId, //
    },
    cpuidle::{
        Enter,
        EnterFn,
        Flag,
        Flags,
        Hotplug,
        HotplugRegistration,
        Options,
        PauseGuard,
        Registration,
        State, //
    },
    debugfs::{
        Dir,
        File, //
    },
    ffi::c_char,
    fmt,
    prelude::*, //
};

#[path = "cpuidle_tables.rs"]
pub mod cpuidle_tables;

use cpuidle_tables::{
    Table,
    FLAG_POLLING,
    FLAG_RCU_IDLE,
    FLAG_TIMER_STOP,
    SEED_TABLES,
    TABLES, //
};

// The tables restate the kernel's flag bits (they are also built on the
// host, without bindings): tie them to the bindings here.
const _: () = {
    assert!(FLAG_POLLING == Flag::Polling as u32);
    assert!(FLAG_TIMER_STOP == Flag::TimerStop as u32);
    assert!(FLAG_RCU_IDLE == Flag::RcuIdle as u32);
};

module! {
    type: VStates,
    name: "cpuidle_vstates",
    authors: ["linux-pm@vger.kernel.org"],
    description: "Emulated cpuidle states for testing governors",
    license: "GPL",
    params: {
        scale: u32 {
            default: 1,
            description: "Multiplies the exit latencies and target residencies (1..1000)",
        },
    },
}

/// The largest `scale`: the deepest state of any table then has an exit
/// latency of at most a second and a target residency of ten, far from
/// the `u32` microseconds they are given in.
const SCALE_MAX: u32 = 1000;

// The C half of this module (vstates_enter.c, prototypes in vstates.h);
// the entry routines are checked against the core's type on both sides
// (`cpuidle_enter_fns!` here, a static_assert in the C file).
unsafe extern "C" {
    safe fn vstates_table_name() -> *const c_char;
}

kernel::cpuidle_enter_fns! {
    fn vstates_enter;
    #[cfg(not(CONFIG_ARCH_HAS_CPU_RELAX))]
    fn vstates_poll;
}

/// CPU hotplug as the pseries driver does it: a CPU's device is disabled
/// when the CPU dies and enabled again when it comes back.
struct VStatesHotplug;

impl Hotplug for VStatesHotplug {
    fn online(cpu: CpuId) -> Result {
        PauseGuard::new().enable_cpu(cpu)
    }

    fn dead(cpu: CpuId) -> Result {
        PauseGuard::new().disable_cpu(cpu)
    }
}

/// `n / d`, also on 32-bit kernels: a Rust `u64` division there calls
/// the compiler's 64-bit division helper, which 32-bit ARM kernels only
/// have as a panicking stub (`__aeabi_uldivmod`).
fn div_u64(n: u64, d: u32) -> u64 {
    #[cfg(CONFIG_64BIT)]
    {
        n / u64::from(d)
    }
    #[cfg(not(CONFIG_64BIT))]
    // SAFETY: `div64_u64()` only computes; `d` is a non-zero constant at
    // every call.
    unsafe {
        kernel::bindings::div64_u64(n, u64::from(d))
    }
}

/// A `u64` shown in decimal through 32-bit divisions only: 32-bit ARM has
/// no 64-bit division helper, and `core`'s own `u64` formatting needs one.
struct Dec(u64);

impl core::fmt::Display for Dec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const G: u32 = 1_000_000_000;
        let q = div_u64(self.0, G);
        let low = (self.0 - q * u64::from(G)) as u32;
        let top = div_u64(q, G);
        let mid = (q - top * u64::from(G)) as u32;
        match (top, mid) {
            (0, 0) => write!(f, "{low}"),
            (0, _) => write!(f, "{mid}{low:09}"),
            // `top` <= u64::MAX / 10^18 < 19
            _ => write!(f, "{}{mid:09}{low:09}", top as u32),
        }
    }
}

/// The registered driver and its table, shown through debugfs.
struct Emulated {
    reg: Registration,
    table: &'static Table,
    scale: u32,
}

impl Emulated {
    /// Writes one line per CPU: total energy in uJ, then per state the
    /// entries and the time in us.
    fn energy(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.table;
        for cpu in (0..nr_cpu_ids()).filter_map(CpuId::from_u32) {
            let mut nj: u64 = 0;
            let mut line = [(0u64, 0u64); kernel::cpuidle::STATE_MAX];
            let mut any = false;
            for (i, spec) in t.states.iter().enumerate() {
                let Some(st) = self.reg.state_stats(cpu, i) else {
                    continue;
                };
                any = true;
                let us = div_u64(st.time_ns, 1000);
                // mW x us = nJ, plus each entry's own energy, which scales
                // with the table's times.  Every table has one: a table
                // without does not build.
                let entry = cpuidle_tables::entry_nj(t.states, i).unwrap_or(0);
                nj = nj
                    .saturating_add(us.saturating_mul(u64::from(spec.model_mw)))
                    .saturating_add(
                        st.usage
                            .saturating_mul(entry.saturating_mul(u64::from(self.scale))),
                    );
                line[i] = (st.usage, us);
            }
            if !any {
                continue;
            }
            write!(
                f,
                "cpu{} energy_uj={}",
                cpu.as_u32(),
                Dec(div_u64(nj, 1000))
            )?;
            for (i, spec) in t.states.iter().enumerate() {
                write!(
                    f,
                    " {}:{}/{}us",
                    spec.name.to_str().unwrap_or("?"),
                    Dec(line[i].0),
                    Dec(line[i].1)
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

// Fields drop in order: the hotplug states go first, then the debugfs file
// (which owns the driver registration), then its directory.
struct VStates {
    _hotplug: HotplugRegistration<VStatesHotplug>,
    _energy: Pin<KBox<File<Emulated>>>,
    _dir: Dir,
}

impl kernel::Module for VStates {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: `vstates_table_name()` returns the `table` parameter, a
        // NUL-terminated string that is not freed or changed while the
        // module is loaded (read-only in sysfs).
        let name = unsafe { CStr::from_char_ptr(vstates_table_name()) };
        let Some(table) = cpuidle_tables::by_name(name.to_bytes()) else {
            pr_err!("table={name}: unknown table\n");
            for t in [TABLES, SEED_TABLES].iter().flat_map(|l| l.iter()) {
                pr_err!("  known table: {}\n", t.name);
            }
            return Err(EINVAL);
        };
        let scale = module_parameters::scale.value();
        if !(1..=SCALE_MAX).contains(&scale) {
            pr_err!("scale={scale}: must be 1..{SCALE_MAX}\n");
            return Err(EINVAL);
        }
        // SAFETY: `vstates_enter()` is a `__cpuidle` C routine, called and
        // returning with IRQs off, that returns the index it was given; it
        // does not touch RCU (the tables' `RCU_IDLE` is dropped below).
        let enter = unsafe { EnterFn::new(vstates_enter) };
        // A polling state is the core's loop where the architecture has
        // one (`ARCH_HAS_CPU_RELAX`), else the same loop in C.
        #[cfg(CONFIG_ARCH_HAS_CPU_RELAX)]
        let poll = Enter::Poll;
        #[cfg(not(CONFIG_ARCH_HAS_CPU_RELAX))]
        // SAFETY: `vstates_poll()` is a `__cpuidle` C routine, called and
        // returning with IRQs off, that returns the index it was given; it
        // does not touch RCU.
        let poll = Enter::C(unsafe { EnterFn::new(vstates_poll) });
        let mut states = KVec::new();
        for spec in table.states {
            let how = if spec.flags & FLAG_POLLING != 0 {
                poll
            } else {
                Enter::C(enter)
            };
            let (flags, driver_flags) = Flags::split_raw(spec.flags).inspect_err(|_| {
                pr_err!(
                    "table={name}: {}: unknown flags in {:#x}\n",
                    spec.name,
                    spec.flags
                )
            })?;
            let flags = flags & !(Flag::TimerStop | Flag::RcuIdle);
            let state = State::new(
                spec.name,
                spec.desc,
                spec.exit_latency_us * scale,
                spec.target_residency_us * scale,
                how,
            )
            .power(spec.power_mw)
            .flags(flags)
            .driver_flags(driver_flags);
            states.push(state, GFP_KERNEL)?;
        }
        let reg = Registration::new(c"vstates", &states, Options::default())
            .inspect_err(|e| pr_err!("table={name}: registration failed: {e:?}\n"))?;
        let dir = Dir::new(c"cpuidle_vstates");
        let energy = KBox::pin_init(
            dir.read_callback_file(
                c"energy",
                Emulated { reg, table, scale },
                &|e: &Emulated, f: &mut fmt::Formatter<'_>| e.energy(f),
            ),
            GFP_KERNEL,
        )?;
        let hotplug = HotplugRegistration::new(c"cpuidle/vstates:online", c"cpuidle/vstates:dead")?;
        pr_info!(
            "registered table {name}: {} states, scale {scale}\n",
            states.len()
        );
        Ok(Self {
            _hotplug: hotplug,
            _energy: energy,
            _dir: dir,
        })
    }
}
