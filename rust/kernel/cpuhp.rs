// SPDX-License-Identifier: GPL-2.0

//! CPU hotplug states.
//!
//! Callbacks that the CPU hotplug core calls when a CPU comes up or goes
//! down, at a given step ("state") of bringing it up or tearing it down.
//!
//! C header: [`include/linux/cpuhotplug.h`](srctree/include/linux/cpuhotplug.h)

use crate::{
    bindings,
    cpu::CpuId,
    error::from_result,
    ffi::{
        c_int,
        c_uint, //
    },
    prelude::*,
    str::CStr,
};
use core::marker::PhantomData;
use macros::vtable;

/// The step of a CPU's bring-up or tear-down at which callbacks run.
///
/// Only steps whose callbacks may sleep can be named (a callback here may
/// allocate, print, take mutexes): the dynamic states, and those fixed
/// states [`State::fixed`] accepts.  The callbacks of the AP's starting and
/// dying section run on the CPU with IRQs off and cannot be set up here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// A dynamically allocated state among the last steps of bring-up and
    /// the first of tear-down (`CPUHP_AP_ONLINE_DYN`): the callbacks run on
    /// the CPU itself, may sleep, and a failed `startup` fails the CPU's
    /// bring-up.
    OnlineDyn,
    /// A dynamically allocated state of the prepare section
    /// (`CPUHP_BP_PREPARE_DYN`): the callbacks run on the CPU that brings
    /// the CPU up or has torn it down, and may sleep.
    PrepareDyn,
    /// A fixed state of `enum cpuhp_state`, made by [`State::fixed`]; one
    /// user at a time (`EBUSY` otherwise).
    Fixed(FixedState),
}

/// A fixed hotplug state whose callbacks may sleep (see [`State::fixed`]).
///
/// # Invariants
///
/// One of the states [`State::fixed`] accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedState(bindings::cpuhp_state);

impl State {
    /// The fixed state `state`, if its callbacks may sleep: one of the
    /// prepare and dead section, before `CPUHP_BRINGUP_CPU` (run on the
    /// controlling CPU, such as `CPUHP_CPUIDLE_DEAD`), or of the AP's online
    /// section, from `CPUHP_AP_ONLINE_IDLE` (run on the CPU, in its hotplug
    /// thread).  `None` for the others: `CPUHP_OFFLINE` and `CPUHP_ONLINE`,
    /// the dynamic ranges (see [`State::OnlineDyn`], [`State::PrepareDyn`]),
    /// and the AP's starting and dying section, whose callbacks run with
    /// IRQs off.
    pub const fn fixed(state: bindings::cpuhp_state) -> Option<Self> {
        use bindings::*;
        let prepare = state > cpuhp_state_CPUHP_OFFLINE && state < cpuhp_state_CPUHP_BRINGUP_CPU;
        let online = state >= cpuhp_state_CPUHP_AP_ONLINE_IDLE && state < cpuhp_state_CPUHP_ONLINE;
        let dynamic = (state >= cpuhp_state_CPUHP_BP_PREPARE_DYN
            && state <= cpuhp_state_CPUHP_BP_PREPARE_DYN_END)
            || (state >= cpuhp_state_CPUHP_AP_ONLINE_DYN
                && state <= cpuhp_state_CPUHP_AP_ONLINE_DYN_END);
        if (prepare || online) && !dynamic {
            // INVARIANT: checked just above.
            Some(State::Fixed(FixedState(state)))
        } else {
            None
        }
    }

    fn raw(self) -> bindings::cpuhp_state {
        match self {
            State::OnlineDyn => bindings::cpuhp_state_CPUHP_AP_ONLINE_DYN,
            State::PrepareDyn => bindings::cpuhp_state_CPUHP_BP_PREPARE_DYN,
            State::Fixed(FixedState(s)) => s,
        }
    }
}

/// The callbacks of a CPU hotplug state.
///
/// An error from `startup` fails the bring-up of the CPU (the core then
/// calls the `teardown` callbacks of the states it had passed); an error
/// from `teardown` is logged by the core but does not stop the tear-down.
#[vtable]
pub trait Callbacks: 'static {
    /// Brings up the state on `cpu`.
    fn startup(_cpu: CpuId) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Tears down the state on `cpu`.
    fn teardown(_cpu: CpuId) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
}

/// `T`'s callbacks, registered with the CPU hotplug core; removed on drop.
///
/// # Invariants
///
/// `state` is a state set up with `T`'s trampolines, until `drop()`; the
/// callbacks were run for the CPUs already up iff `invoke`.
pub struct Registration<T: Callbacks> {
    state: bindings::cpuhp_state,
    invoke: bool,
    _t: PhantomData<T>,
}

// SAFETY: the registration holds only a state number; removing it may be
// done from any thread.
unsafe impl<T: Callbacks> Send for Registration<T> {}
// SAFETY: no `&self` method touches anything.
unsafe impl<T: Callbacks> Sync for Registration<T> {}

impl<T: Callbacks> Registration<T> {
    /// Sets up `state` with `T`'s callbacks, under `name` (shown in
    /// `/sys/devices/system/cpu/hotplug/states`).
    ///
    /// With `invoke`, `startup` runs now for every CPU already up (and the
    /// setup fails, undone, if it fails on one), and `teardown` for each on
    /// drop; without it, the callbacks only run for CPUs that come and go
    /// afterwards.  May sleep.
    pub fn new(state: State, name: &'static CStr, invoke: bool) -> Result<Self> {
        let startup = if T::HAS_STARTUP {
            Some(Self::startup_callback as unsafe extern "C" fn(c_uint) -> c_int)
        } else {
            None
        };
        let teardown = if T::HAS_TEARDOWN {
            Some(Self::teardown_callback as unsafe extern "C" fn(c_uint) -> c_int)
        } else {
            None
        };
        // SAFETY: the name is `'static`; the trampolines have the C
        // signature and stay valid as long as `T`'s code, which is `'static`
        // and removed from the core before `self` is gone.
        let ret = unsafe {
            bindings::__cpuhp_setup_state(
                state.raw(),
                name.as_char_ptr(),
                invoke,
                startup,
                teardown,
                false,
            )
        };
        if ret < 0 {
            return Err(Error::from_errno(ret));
        }
        // For a dynamic state, the core returns the number it allocated.
        let state = match state {
            State::OnlineDyn | State::PrepareDyn => ret as bindings::cpuhp_state,
            State::Fixed(FixedState(s)) => s,
        };
        // INVARIANT: set up just above.
        Ok(Self {
            state,
            invoke,
            _t: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Only called by the CPU hotplug core, with a CPU number.
    unsafe extern "C" fn startup_callback(cpu: c_uint) -> c_int {
        // SAFETY: the hotplug core passes a valid CPU number.
        let cpu = unsafe { CpuId::from_u32_unchecked(cpu) };
        from_result(|| T::startup(cpu).map(|()| 0))
    }

    /// # Safety
    ///
    /// Only called by the CPU hotplug core, with a CPU number.
    unsafe extern "C" fn teardown_callback(cpu: c_uint) -> c_int {
        // SAFETY: the hotplug core passes a valid CPU number.
        let cpu = unsafe { CpuId::from_u32_unchecked(cpu) };
        from_result(|| T::teardown(cpu).map(|()| 0))
    }
}

impl<T: Callbacks> Drop for Registration<T> {
    fn drop(&mut self) {
        // SAFETY: the state is set up (type invariant); the teardown
        // callbacks run for the CPUs up iff the startup ones ran for them.
        unsafe { bindings::__cpuhp_remove_state(self.state, self.invoke) };
    }
}

#[cfg(CONFIG_RUST_CPUHP_KUNIT_TEST)]
#[macros::kunit_tests(rust_kernel_cpuhp)]
mod tests {
    use super::*;
    use crate::sync::atomic::{
        Atomic,
        Relaxed, //
    };

    static UP: Atomic<u32> = Atomic::new(0);
    static DOWN: Atomic<u32> = Atomic::new(0);

    struct Count;

    #[vtable]
    impl Callbacks for Count {
        fn startup(_cpu: CpuId) -> Result {
            UP.add(1, Relaxed);
            Ok(())
        }

        fn teardown(_cpu: CpuId) -> Result {
            DOWN.add(1, Relaxed);
            Ok(())
        }
    }

    struct Refuse;

    #[vtable]
    impl Callbacks for Refuse {
        fn startup(_cpu: CpuId) -> Result {
            Err(EAGAIN)
        }
    }

    fn online() -> u32 {
        // SAFETY: `__cpu_online_mask` is a valid, static mask.
        let m =
            unsafe { crate::cpumask::Cpumask::from_raw(&raw const bindings::__cpu_online_mask) };
        (0..crate::cpu::nr_cpu_ids())
            .filter_map(CpuId::from_u32)
            .filter(|&c| m.test(c))
            .count() as u32
    }

    #[test]
    fn invoke_runs_the_callbacks_on_every_online_cpu() -> Result {
        let (up, down) = (UP.load(Relaxed), DOWN.load(Relaxed));
        let r = Registration::<Count>::new(State::OnlineDyn, c"rust/cpuhp:test", true)?;
        assert_eq!(UP.load(Relaxed) - up, online());
        assert_eq!(DOWN.load(Relaxed), down);
        drop(r);
        assert_eq!(DOWN.load(Relaxed) - down, online());
        Ok(())
    }

    #[test]
    fn without_invoke_nothing_runs() -> Result {
        let (up, down) = (UP.load(Relaxed), DOWN.load(Relaxed));
        drop(Registration::<Count>::new(
            State::OnlineDyn,
            c"rust/cpuhp:test",
            false,
        )?);
        assert_eq!((UP.load(Relaxed), DOWN.load(Relaxed)), (up, down));
        Ok(())
    }

    #[test]
    fn only_states_whose_callbacks_may_sleep_are_named() {
        use bindings::*;
        let dead = cpuhp_state_CPUHP_CPUIDLE_DEAD;
        assert_eq!(State::fixed(dead), Some(State::Fixed(FixedState(dead))));
        for s in [
            cpuhp_state_CPUHP_OFFLINE,
            cpuhp_state_CPUHP_BP_PREPARE_DYN,
            cpuhp_state_CPUHP_BRINGUP_CPU,
            cpuhp_state_CPUHP_AP_OFFLINE,
            cpuhp_state_CPUHP_AP_ONLINE,
            cpuhp_state_CPUHP_AP_ONLINE_DYN,
            cpuhp_state_CPUHP_AP_ONLINE_DYN + 1,
            cpuhp_state_CPUHP_ONLINE,
        ] {
            assert_eq!(State::fixed(s), None);
        }
        assert!(State::fixed(cpuhp_state_CPUHP_AP_ONLINE_IDLE).is_some());
    }

    #[test]
    fn a_prepare_state_runs_on_the_cpus_already_up() -> Result {
        let (up, down) = (UP.load(Relaxed), DOWN.load(Relaxed));
        let r = Registration::<Count>::new(State::PrepareDyn, c"rust/cpuhp:prep", true)?;
        assert_eq!(UP.load(Relaxed) - up, online());
        drop(r);
        assert_eq!(DOWN.load(Relaxed) - down, online());
        Ok(())
    }

    #[test]
    fn a_failing_startup_fails_the_setup() {
        let r = Registration::<Refuse>::new(State::OnlineDyn, c"rust/cpuhp:refuse", true);
        assert_eq!(r.err(), Some(EAGAIN));
    }
}
