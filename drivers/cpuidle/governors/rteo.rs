// SPDX-License-Identifier: GPL-2.0

//! rteo: a timer events oriented cpuidle governor in Rust.
//!
//! The decisions are made by the pure core in `rteo_core.rs` (shared with
//! the host tests and the parity harness); this file only connects it to
//! the cpuidle core through `kernel::cpuidle`:
//!
//! - per-CPU state is the governor's [`Governor::CpuData`], which the
//!   abstraction allocates per CPU and hands to each callback for the
//!   device's CPU alone, so it needs no lock;
//! - nothing here allocates, sleeps or prints in `select`/`reflect`;
//! - the governor registers from the module's init, which for built-in
//!   code (rteo is) runs as a device initcall: the core switches to rteo
//!   then if `cpuidle.governor=rteo` was given, as it does for a governor
//!   registered earlier;
//! - rteo makes teo.c's decisions ([`rteo_core::Mode::Parity`]) unless
//!   rules of [`rteo_core::Mode::Default`] are put in force: at boot with
//!   `rteo.rules=MASK`, at run time through debugfs (`rteo/rules`, an
//!   experiment switch); a CPU takes the value when the governor is enabled
//!   for it again.  Idle periods are recorded for the simulator with the
//!   kernel's own tracepoints (`power:cpu_idle_sleep_length`,
//!   `power:cpu_idle`), for any governor.

use core::fmt;
use kernel::{
    cpuidle::{
        self,
        Device,
        Driver,
        Governor,
        IdleContext, //
    },
    debugfs,
    prelude::*,
    sync::atomic::{
        Atomic,
        Relaxed, //
    },
    uaccess::UserSliceReader,
};

#[path = "rteo_core.rs"]
pub mod rteo_core;

use rteo_core::{
    rule,
    Env,
    Mode,
    SleepLength,
    State,
    Teo,
    STATE_MAX, //
};

// The core restates CPUIDLE_STATE_MAX for its host build: tie it to the
// bindings here.
const _: () = assert!(STATE_MAX == kernel::cpuidle::STATE_MAX);

module! {
    type: RteoModule,
    name: "rteo",
    authors: ["linux-pm@vger.kernel.org"],
    description: "Timer events oriented cpuidle governor in Rust",
    license: "GPL",
    params: {
        rules: u32 {
            default: 0,
            description: "Rules of rteo's own in force (bit n-1: rule n); 0: teo's decisions",
        },
    },
}

/// The rules in force, taken by each CPU when the governor is enabled for
/// it (`rteo.rules` at boot, then debugfs `rteo/rules`).
static RULES: Atomic<u32> = Atomic::new(0);

/// Refuses a mask of rules that is not one, or that puts rule 2 in force
/// without rule 1 ([`rule::off_valid`]), saying which.
fn rules_check(on: u32) -> Result {
    if on & !rule::ALL != 0 {
        pr_warn!("rules={on:#x}: the rules are bits {:#x}\n", rule::ALL);
        return Err(EINVAL);
    }
    if !rule::off_valid(rule::ALL & !on) {
        pr_warn!("rules={on:#x}: rule 2 needs rule 1, put both in force\n");
        return Err(EINVAL);
    }
    Ok(())
}

fn show_rules(rules: &&'static Atomic<u32>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    writeln!(f, "{:#x}", rules.load(Relaxed))
}

/// A write of debugfs `rteo/rules`: a number (decimal, or hexadecimal
/// after `0x`), checked by [`rules_check`].
fn store_rules(rules: &&'static Atomic<u32>, reader: &mut UserSliceReader) -> Result {
    let mut buf = [0u8; 16];
    let n = reader.len();
    if n == 0 || n > buf.len() {
        return Err(EINVAL);
    }
    reader.read_slice(&mut buf[..n])?;
    let s = core::str::from_utf8(&buf[..n]).map_err(|_| EINVAL)?.trim();
    let v = match s.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse::<u32>(),
    }
    .map_err(|_| EINVAL)?;
    rules_check(v)?;
    rules.store(v, Relaxed);
    Ok(())
}

/// One CPU's governor data: the core's metrics and the driver's states as
/// the core sees them, taken when the governor is enabled on the CPU (the
/// core enables it again whenever the CPU's driver changes), so that
/// `select()` does not rebuild the table on every idle entry.
///
/// # Invariants
///
/// `states[..count]` are the states of the driver the governor was last
/// enabled with on this CPU; `count <= STATE_MAX`.
struct Slot {
    teo: Teo,
    states: [State; STATE_MAX],
    count: usize,
}

impl Slot {
    const ZERO: Slot = Slot {
        teo: Teo::ZERO,
        states: [State {
            target_residency_ns: 0,
            exit_latency_ns: 0,
            polling: false,
        }; STATE_MAX],
        count: 0,
    };
}

impl Default for Slot {
    fn default() -> Self {
        Slot::ZERO
    }
}

/// [`Env`] over the cpuidle abstractions, for one `select()` call.
struct KernelEnv<'a> {
    ctx: &'a IdleContext,
    dev: &'a Device,
    /// The CPU's driver states ([`Slot::states`]).
    states: &'a [State],
    latency_req_ns: i64,
}

impl<'a> KernelEnv<'a> {
    fn new(ctx: &'a IdleContext, states: &'a [State], dev: &'a Device) -> Self {
        Self {
            latency_req_ns: ctx.latency_req_ns(),
            ctx,
            dev,
            states,
        }
    }
}

impl Env for KernelEnv<'_> {
    fn states(&self) -> &[State] {
        self.states
    }
    fn disabled(&self, i: usize) -> bool {
        self.dev.state_disabled(i)
    }
    fn latency_req_ns(&self) -> i64 {
        self.latency_req_ns
    }
    fn tick_stopped(&self) -> bool {
        self.ctx.tick_stopped()
    }
    fn tick_nsec(&self) -> i64 {
        self.ctx.tick_nsec()
    }
    fn sleep_length(&mut self) -> SleepLength {
        let s = self.ctx.sleep_length();
        SleepLength {
            duration_ns: s.duration_ns,
            delta_tick_ns: s.delta_tick_ns,
        }
    }
    fn last_state_idx(&self) -> i32 {
        self.dev.last_state_idx()
    }
    fn set_last_state_idx(&mut self, idx: i32) {
        self.dev.set_last_state_idx(idx)
    }
    fn take_poll_time_limit(&mut self) -> bool {
        self.dev.take_poll_time_limit(self.ctx)
    }
    fn last_residency_ns(&self) -> u64 {
        self.dev.last_residency_ns()
    }
}

struct Rteo;

#[vtable]
impl Governor for Rteo {
    const NAME: &'static CStr = c"rteo";
    // Below teo (19) and menu (20): rteo is chosen explicitly.
    const RATING: u32 = 18;

    type CpuData = Slot;

    #[inline]
    fn select(
        ctx: &IdleContext,
        _drv: &Driver,
        dev: &Device,
        slot: &mut Slot,
        stop_tick: &mut bool,
    ) -> usize {
        let Slot {
            teo: data,
            states,
            count,
        } = slot;
        let mut env = KernelEnv::new(ctx, &states[..*count], dev);
        let d = data.select(&mut env);
        if !d.stop_tick {
            *stop_tick = false;
        }
        d.idx
    }

    #[inline]
    fn reflect(ctx: &IdleContext, dev: &Device, slot: &mut Slot, index: usize) {
        slot.teo.reflect(ctx.got_tick());
        dev.set_last_state_idx(index as i32);
    }

    fn reset(_ctx: &IdleContext, drv: &Driver, _dev: &Device, slot: &mut Slot) {
        slot.count = drv.state_count().min(STATE_MAX);
        for (i, s) in slot.states.iter_mut().enumerate().take(slot.count) {
            let d = drv.state(i);
            *s = State {
                target_residency_ns: d.target_residency_ns,
                exit_latency_ns: d.exit_latency_ns,
                polling: d.flags.contains(cpuidle::Flag::Polling),
            };
        }
        let data = &mut slot.teo;
        *data = Teo::ZERO;
        // (checked when it was set)
        let rules = RULES.load(Relaxed);
        if rules == 0 {
            data.set_mode(Mode::Parity);
        } else {
            data.set_mode(Mode::Default);
            data.rules = rules;
        }
    }
}

kernel::declare_cpuidle_governor!(static GOVERNOR: Rteo);

struct RteoModule {
    _rules_file: Pin<KBox<debugfs::File<&'static Atomic<u32>>>>,
}

impl kernel::Module for RteoModule {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let boot = module_parameters::rules.value();
        match rules_check(boot) {
            Ok(()) => RULES.store(boot, Relaxed),
            Err(_) => pr_warn!("rteo.rules={boot:#x} ignored: teo's decisions\n"),
        }
        let dir = debugfs::Dir::new(c"rteo");
        let file = KBox::pin_init(
            dir.read_write_callback_file(c"rules", &RULES, &show_rules, &store_rules),
            GFP_KERNEL,
        )?;
        GOVERNOR
            .register()
            .inspect_err(|e| pr_err!("registration failed: {e:?}\n"))?;
        Ok(RteoModule { _rules_file: file })
    }
}
