// SPDX-License-Identifier: GPL-2.0

//! cpuidle driver for pseries (POWER LPARs under PowerVM or KVM), with the
//! extended CEDE states.
//!
//! A Rust counterpart of `cpuidle-pseries.c`.  As there: `powersave=off`
//! or firmware without SPLPAR means no driver (`ENODEV`); a shared-processor
//! LPAR gets snooze and "Shared Cede"; a dedicated one snooze and CEDE, and
//! on POWER10 and later CEDE takes its exit latency from the firmware's
//! cede latency settings (the lowest non-zero one, residency 10x).  Beyond
//! upstream, every extended CEDE (XCEDE) setting that an external interrupt
//! wakes from becomes a state `XCEDE<hint>` (timer stops, exit latency the
//! setting's plus 10 us, residency 10x), so that governors can use them.
//! The settings are parsed in `pseries_xcede.rs`; malformed firmware data
//! is reported and leaves snooze + CEDE, CEDE fixed up from it as upstream
//! does.
//!
//! The idle-entry routines and platform queries are built-in C
//! (`pseries_idle.c`); this module can be unloaded and loaded again.
//!
//! Testing: QEMU's pseries machine does not implement the cede latency
//! settings parameter, so a kernel built with
//! `CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD` takes the firmware's answer
//! from the `xcede_payload=` parameter (hex bytes) instead, and `lpar=`
//! (`auto`, `dedicated`, `shared`) overrides the LPAR type (QEMU always
//! reports a shared-processor LPAR).  Without that option both parameters
//! are refused.
//!
//! `/sys/kernel/debug/cpuidle_pseries/states` lists the registered states
//! with their flags and cede latency hints.

use kernel::{
    bindings,
    cpu::CpuId,
    cpuidle::{
        self,
        Enter,
        EnterFn,
        Flag,
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
    ffi::{
        c_char,
        c_int, //
    },
    fmt,
    prelude::*,
};

#[path = "pseries_xcede.rs"]
pub mod pseries_xcede;

use pseries_xcede::{
    Plan,
    Skip, //
};

module! {
    type: PseriesIdle,
    name: "cpuidle_pseries_rs",
    authors: ["linux-pm@vger.kernel.org"],
    description: "pseries cpuidle driver with extended CEDE states",
    license: "GPL",
}

// pseries_idle.c (built in) and pseries_param.c (this module); prototypes
// in pseries_idle.h.  The entry routines are checked against
// `cpuidle_state::enter` on both sides: below through `RawEnterFn` (the
// kernel crate checks it against the field's bindgen type), in
// pseries_idle.c by a static_assert against the field's C type.  The
// other prototypes pass only scalars and byte or C-string pointers.
unsafe extern "C" {
    // These three take nothing and only read firmware and CPU feature bits
    // set at boot, or this CPU's lppaca (every CPU has a valid one, so a
    // migration in between is harmless): any call from any context is
    // sound.
    safe fn pseries_rs_splpar() -> bool;
    safe fn pseries_rs_shared_processor() -> bool;
    safe fn pseries_rs_firmware_latencies() -> bool;
    fn pseries_rs_get_cede_latency(buf: *mut u8, size: usize) -> c_int;
    fn pseries_rs_xcede_payload() -> *const c_char;
    fn pseries_rs_lpar() -> *const c_char;
}

kernel::cpuidle_enter_fns! {
    fn pseries_rs_snooze;
    fn pseries_rs_dedicated_cede;
    fn pseries_rs_shared_cede;
}

// A dedicated_cede state's cede latency hint is the low byte of its driver
// flags, which sit in the high half of `cpuidle_state::flags`.
// pseries_idle.c reads it there, at half the field's C width (asserting
// that the core's flags stay below); here the same: the field is a `u32`
// and the kernel crate's shift is half of that.
const _: fn(&bindings::cpuidle_state) -> &u32 = |s| &s.flags;
const _: () = assert!(cpuidle::DRIVER_FLAGS_SHIFT == u32::BITS / 2);

// The XCEDE states fill what the core holds after snooze and CEDE.
const _: () = assert!(2 + pseries_xcede::MAX_XCEDE_STATES == cpuidle::STATE_MAX);

/// The option that lets `xcede_payload=` stand in for the firmware.
const TEST_PAYLOAD_OPTION: &str = "CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD";

/// Room for the firmware answer: 2 + 1 + 16 records + NUL, and some slack
/// so that a payload claiming more than 16 records is seen as such.
const PAYLOAD_BUF: usize = 256;

/// Where the cede latency settings came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Not read: shared LPAR, or firmware latencies not trusted (pre-POWER10).
    None,
    /// `ibm,get-system-parameter`.
    Firmware,
    /// The test-only `xcede_payload=` parameter.
    Injected,
}

/// Whether to build the shared-processor table: the LPAR's type, unless
/// the test-only `lpar=` parameter says otherwise.
fn shared_lpar() -> Result<bool> {
    // SAFETY: returns the parameter, a NUL-terminated string that stays
    // valid while the module is loaded (default "auto").
    let lpar = unsafe { CStr::from_char_ptr(pseries_rs_lpar()) };
    let forced = match lpar.to_bytes() {
        b"auto" => None,
        b"dedicated" => Some(false),
        b"shared" => Some(true),
        _ => {
            pr_err!("lpar={lpar}: must be auto, dedicated or shared\n");
            return Err(EINVAL);
        }
    };
    if let Some(shared) = forced {
        if !cfg!(CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD) {
            pr_err!(
                "lpar= is for testing only (CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD is not set)\n"
            );
            return Err(EINVAL);
        }
        pr_warn!("lpar={lpar}: using the {lpar} table whatever the LPAR type\n");
        return Ok(shared);
    }
    Ok(pseries_rs_shared_processor())
}

/// The test-only `xcede_payload=` parameter, decoded into `buf`: its
/// length, or `None` if it is not set.  Refused without the test option.
fn injected_settings(buf: &mut [u8; PAYLOAD_BUF]) -> Result<Option<usize>> {
    // SAFETY: returns the parameter (NULL if unset), a NUL-terminated
    // string that stays valid while the module is loaded.
    let param = unsafe { pseries_rs_xcede_payload() };
    if param.is_null() {
        return Ok(None);
    }
    if !cfg!(CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD) {
        pr_err!("xcede_payload= is for testing only: kernel without {TEST_PAYLOAD_OPTION}\n");
        return Err(EINVAL);
    }
    // SAFETY: see above.
    let hex = unsafe { CStr::from_char_ptr(param) };
    let n = pseries_xcede::decode_hex(hex.to_bytes(), buf).map_err(|e| {
        pr_err!("xcede_payload=: not a hex byte string ({e:?})\n");
        EINVAL
    })?;
    Ok(Some(n))
}

/// The cede latency settings: the injected ones if any, else the
/// firmware's.
fn read_settings(buf: &mut [u8; PAYLOAD_BUF], injected: Option<usize>) -> (Source, usize) {
    if let Some(n) = injected {
        pr_warn!("using the injected cede latency settings ({n} bytes), not the firmware's\n");
        return (Source::Injected, n);
    }
    // SAFETY: `buf` is writable for its length.
    let ret = unsafe { pseries_rs_get_cede_latency(buf.as_mut_ptr(), buf.len()) };
    if ret < 0 {
        pr_info!("no cede latency settings from firmware ({ret}): CEDE only\n");
        return (Source::None, 0);
    }
    // The C helper copies at most `buf.len()` bytes.
    (Source::Firmware, (ret as usize).min(buf.len()))
}

/// Logs every record that gave no state.
fn report_skips(plan: &Plan) {
    for (i, hint, why) in plan.skipped() {
        let what = match why {
            Skip::ZeroLatency => "wake-up latency is 0 us",
            Skip::LatencyOutOfRange => "wake-up latency out of range",
            Skip::NotIrqResponsive => "not responsive to external interrupts",
            Skip::HintZero => "hint 0 is CEDE",
            Skip::DuplicateHint => "duplicate hint",
            Skip::TooManyStates => "more states than cpuidle holds",
        };
        if why.is_warning() {
            pr_warn!("xcede: skipping record {i} (hint {hint}): {what}\n");
        } else {
            pr_info!("xcede: skipping record {i} (hint {hint}): {what}\n");
        }
    }
}

/// A state with its cede latency hint (`None`: not a CEDE state).
struct Planned {
    state: State,
    hint: Option<u8>,
}

/// Builds the table for this LPAR.
fn build_states() -> Result<(KVec<Planned>, Source)> {
    // SAFETY: the routines named by the three `EnterFn::new` here are
    // `__cpuidle` C functions (pseries_idle.c) that are called with IRQs
    // off and return with IRQs off and the index they were given; none
    // calls `ct_cpuidle_enter()`/`ct_cpuidle_exit()` (the core does it
    // around them, as for cpuidle-pseries.c's states, none of which is
    // RCU_IDLE).
    let snooze = unsafe { EnterFn::new(pseries_rs_snooze) };
    // Parameters first, so that a bad one is refused whatever the LPAR.
    let mut buf = KBox::new([0u8; PAYLOAD_BUF], GFP_KERNEL)?;
    let injected = injected_settings(&mut buf)?;
    let shared = shared_lpar()?;
    let mut out = KVec::new();
    out.push(
        Planned {
            state: State::new(c"snooze", c"snooze", 0, 0, Enter::C(snooze)).flags(Flag::Polling),
            hint: None,
        },
        GFP_KERNEL,
    )?;
    if shared {
        if injected.is_some() {
            pr_warn!(
                "xcede_payload= ignored: a shared-processor LPAR has no extended CEDE states\n"
            );
        }
        // SAFETY: see above.
        let cede = unsafe { EnterFn::new(pseries_rs_shared_cede) };
        out.push(
            Planned {
                state: State::new(c"Shared Cede", c"Shared Cede", 10, 100, Enter::C(cede)),
                hint: None,
            },
            GFP_KERNEL,
        )?;
        return Ok((out, Source::None));
    }
    // SAFETY: see above.
    let cede = unsafe { EnterFn::new(pseries_rs_dedicated_cede) };
    let mut cede0 = State::new(c"CEDE", c"CEDE", 10, 100, Enter::C(cede));
    let mut xstates = KVec::new();
    let mut source = Source::None;
    let firmware_latencies = pseries_rs_firmware_latencies();
    if injected.is_some() && !firmware_latencies {
        pr_warn!("xcede_payload= ignored: firmware latencies are only used from POWER10 on\n");
    }
    if firmware_latencies {
        let (src, n) = read_settings(&mut buf, injected);
        source = src;
        if src != Source::None {
            // SAFETY: `tb_ticks_per_sec` is set once at boot, before any
            // module is loaded.
            let tb = unsafe { bindings::tb_ticks_per_sec } as u64;
            let plan = pseries_xcede::plan_buffer(&buf[..n], tb);
            if let Some(e) = plan.malformed {
                // As cpuidle-pseries.c: CEDE is still fixed up from the
                // whole records the answer has (below).
                pr_err!(
                    "xcede: malformed cede latency settings ({e:?}): no extended CEDE states\n"
                );
            }
            report_skips(&plan);
            if let Some((lat, res)) = plan.cede0 {
                cede0.exit_latency_us = lat;
                cede0.target_residency_us = res;
                pr_info!("CEDE exit latency fixed up to {lat} us\n");
            }
            for x in plan.states() {
                xstates.push(*x, GFP_KERNEL)?;
            }
        }
    }
    out.push(
        Planned {
            state: cede0,
            hint: Some(0),
        },
        GFP_KERNEL,
    )?;
    for x in xstates {
        // `State` keeps its own copy of the name.
        let name = CStr::from_bytes_with_nul(x.name_with_nul()).map_err(|_| EINVAL)?;
        let mut state = State::new(
            name,
            name,
            x.exit_latency_us,
            x.target_residency_us,
            Enter::C(cede),
        )
        .driver_flags(u16::from(x.hint));
        if x.timer_stop {
            state = state.flags(Flag::TimerStop);
        }
        out.push(
            Planned {
                state,
                hint: Some(x.hint),
            },
            GFP_KERNEL,
        )?;
    }
    Ok((out, source))
}

/// CPU hotplug as upstream: a CPU's device is disabled when it dies and
/// enabled again when it comes back.
struct PseriesHotplug;

impl Hotplug for PseriesHotplug {
    fn online(cpu: CpuId) -> Result {
        PauseGuard::new().enable_cpu(cpu)
    }

    fn dead(cpu: CpuId) -> Result {
        PauseGuard::new().disable_cpu(cpu)
    }
}

/// The registered driver and what debugfs shows of it.
struct Registered {
    _reg: Registration,
    states: KVec<Planned>,
    source: Source,
}

impl Registered {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let src = match self.source {
            Source::None => "none",
            Source::Firmware => "firmware",
            Source::Injected => "injected",
        };
        writeln!(f, "settings: {src}")?;
        for (i, p) in self.states.iter().enumerate() {
            let s = &p.state;
            write!(
                f,
                "state{i} {} exit_latency_us={} target_residency_us={} \
                 flags={:#x} driver_flags={:#x}",
                s.name().to_str().unwrap_or("?"),
                s.exit_latency_us,
                s.target_residency_us,
                u32::from(s.flags),
                s.driver_flags
            )?;
            if s.flags.contains(Flag::Polling) {
                write!(f, " polling")?;
            }
            if s.flags.contains(Flag::TimerStop) {
                write!(f, " timer_stop")?;
            }
            match p.hint {
                Some(h) => writeln!(f, " hint={h}")?,
                None => writeln!(f)?,
            }
        }
        Ok(())
    }
}

// Fields drop in order: hotplug states first, then the debugfs file (which
// owns the registration), then its directory.
struct PseriesIdle {
    _hotplug: HotplugRegistration<PseriesHotplug>,
    _states: Pin<KBox<File<Registered>>>,
    _dir: Dir,
}

impl kernel::Module for PseriesIdle {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: `cpuidle_disable` is set once at boot ("powersave=off").
        let override_ = unsafe { bindings::cpuidle_disable };
        if override_ != bindings::idle_boot_override_IDLE_NO_OVERRIDE as usize {
            pr_info!("powersave=off: not registering\n");
            return Err(ENODEV);
        }
        if !pseries_rs_splpar() {
            pr_info!("firmware without SPLPAR: not registering\n");
            return Err(ENODEV);
        }
        // The entry routines take the snooze budget (state 1's target
        // residency) and each CEDE state's hint from the table itself.
        let (planned, source) = build_states()?;
        let mut states = KVec::with_capacity(planned.len(), GFP_KERNEL)?;
        for p in planned.iter() {
            states.push(p.state, GFP_KERNEL)?;
        }
        let reg = Registration::new(c"pseries_idle", &states, Options::default())
            .inspect_err(|e| pr_err!("registration failed: {e:?}\n"))?;
        for (i, s) in states.iter().enumerate() {
            pr_debug!(
                "state{i} {}: exit {} us, residency {} us, flags {:#x}, driver flags {:#x}\n",
                s.name(),
                s.exit_latency_us,
                s.target_residency_us,
                u32::from(s.flags),
                s.driver_flags
            );
        }
        let dir = Dir::new(c"cpuidle_pseries");
        let file = KBox::pin_init(
            dir.read_callback_file(
                c"states",
                Registered {
                    _reg: reg,
                    states: planned,
                    source,
                },
                &|r: &Registered, f: &mut fmt::Formatter<'_>| r.show(f),
            ),
            GFP_KERNEL,
        )?;
        let hotplug =
            HotplugRegistration::new(c"cpuidle/pseries_rs:online", c"cpuidle/pseries_rs:dead")?;
        Ok(Self {
            _hotplug: hotplug,
            _states: file,
            _dir: dir,
        })
    }
}
