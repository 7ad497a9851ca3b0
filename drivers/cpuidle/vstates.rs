// SPDX-License-Identifier: GPL-2.0

//! cpuidle_vstates: emulated idle states, so that governors can be tested
//! on the idle-state tables of real platforms in any x86 guest.
//!
//! Registers the table named by the `table` parameter (see
//! `cpuidle_tables.rs`, shared with the real drivers).  A polling state 0
//! is the core's polling loop; every other state halts and, after the
//! wakeup, spins for the state's exit latency before the interrupt is
//! served.  `TIMER_STOP` and `RCU_IDLE` are not passed on: the local timer
//! keeps running in a halt, and the entry routine leaves RCU to the core.
//! Loads and unloads at any time; load it again with another table.

use kernel::{
    c_str,
    cpuidle::{
        Enter, EnterFn, Flags, Hotplug, HotplugRegistration, Options, PauseGuard, Registration,
        State,
    },
    ffi::{c_char, c_int},
    prelude::*,
};

#[path = "cpuidle_tables.rs"]
pub mod cpuidle_tables;

use cpuidle_tables::{FLAG_POLLING, FLAG_RCU_IDLE, FLAG_TIMER_STOP, TABLES};

module! {
    type: VStates,
    name: "cpuidle_vstates",
    authors: ["rcpuidle developers"],
    description: "Emulated cpuidle states for testing governors",
    license: "GPL",
}

// The C half of this module (vstates_enter.c, prototypes in vstates.h).
// The cpuidle structures are only passed through by pointer, never read
// here; `improper_ctypes` objects to a zero-sized member deep inside them.
#[allow(improper_ctypes)]
extern "C" {
    fn vstates_table_name() -> *const c_char;
    fn vstates_enter(
        dev: *mut kernel::bindings::cpuidle_device,
        drv: *mut kernel::bindings::cpuidle_driver,
        index: c_int,
    ) -> c_int;
}

/// CPU hotplug as the pseries driver does it: a CPU's device is disabled
/// when the CPU dies and enabled again when it comes back.
struct VStatesHotplug;

impl Hotplug for VStatesHotplug {
    fn online(cpu: u32) -> Result {
        PauseGuard::new().enable_cpu(cpu)
    }

    fn dead(cpu: u32) -> Result {
        PauseGuard::new().disable_cpu(cpu)
    }
}

// Fields drop in order: the hotplug states go before the driver.
struct VStates {
    _hotplug: HotplugRegistration<VStatesHotplug>,
    _reg: Registration,
}

impl kernel::Module for VStates {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // SAFETY: returns the `table` parameter, a NUL-terminated string
        // that stays valid while the module is loaded.
        let name = unsafe { CStr::from_char_ptr(vstates_table_name()) };
        let Some(table) = cpuidle_tables::by_name(name.to_bytes()) else {
            pr_err!("table={name}: unknown table\n");
            for (n, _) in TABLES {
                pr_err!("  known table: {n}\n");
            }
            return Err(EINVAL);
        };
        // SAFETY: `vstates_enter()` is a `__cpuidle` C routine that returns
        // with IRQs off and the index it was given, and leaves RCU to the
        // core: none of the states registered with it has `RCU_IDLE`.
        let enter = unsafe { EnterFn::new(vstates_enter) };
        let mut states = KVec::new();
        for spec in table {
            let how = if spec.flags & FLAG_POLLING != 0 {
                Enter::Poll
            } else {
                Enter::C(enter)
            };
            let flags = spec.flags & !(FLAG_POLLING | FLAG_TIMER_STOP | FLAG_RCU_IDLE);
            let state = State::new(
                spec.name,
                spec.desc,
                spec.exit_latency_us,
                spec.target_residency_us,
                how,
            )
            .power(spec.power_mw)
            .flags(Flags::from_bits(flags));
            states.push(state, GFP_KERNEL)?;
        }
        let reg = Registration::new(c_str!("vstates"), &states, Options::default())
            .inspect_err(|e| pr_err!("table={name}: registration failed: {e:?}\n"))?;
        let hotplug = HotplugRegistration::new(
            c_str!("cpuidle/vstates:online"),
            c_str!("cpuidle/vstates:dead"),
        )?;
        pr_info!("registered table {name}: {} states\n", states.len());
        Ok(Self {
            _hotplug: hotplug,
            _reg: reg,
        })
    }
}
