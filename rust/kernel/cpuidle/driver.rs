// SPDX-License-Identifier: GPL-2.0

//! Registering a cpuidle driver: its table, its CPUs, CPU hotplug.

use super::*;
use crate::{
    bindings,
    cpu::CpuId,
    cpuhp,
    cpumask::{
        Cpumask,
        CpumaskVar, //
    },
    error::{
        to_result,
        Result, //
    },
    ffi::{
        c_int,
        c_long,
        c_uint,
        c_void, //
    },
    str::CStr,
    sync::atomic::{
        atomic_load,
        Relaxed, //
    },
};
use core::{
    cell::UnsafeCell,
    marker::PhantomData,
    ptr::null_mut, //
};
use macros::vtable;

/// Options of a driver [`Registration`].
#[derive(Default)]
pub struct Options {
    /// Governor to switch to when the driver registers (by name).
    pub governor: Option<&'static CStr>,
    /// The CPUs the driver handles (all possible CPUs if `None`); the
    /// registration keeps the mask as long as the driver.
    pub cpumask: Option<CpumaskVar>,
}

/// Returns once every online CPU has left the idle call it was making, if
/// any, when this was called.
///
/// `cpuidle_unregister()` waits for an RCU grace period, but a CPU in an
/// idle state is quiescent for RCU: one that was in a state of the driver
/// may wake up after that and still read the driver's table in
/// `cpuidle_enter_state()`.  A work item runs on a CPU only once that CPU
/// has scheduled, which its idle task does only after the idle call
/// returns.  `work_on_cpu()` keeps the work on the stack, so this cannot
/// fail for want of memory.  May sleep.
fn wait_for_idle_calls() {
    extern "C" fn nothing(_arg: *mut c_void) -> c_long {
        0
    }
    let key = crate::sync::static_lock_class!();
    // SAFETY: `__cpu_online_mask` is a valid, static mask.
    let online = unsafe { Cpumask::from_raw(&raw const bindings::__cpu_online_mask) };
    // SAFETY: callable from any sleepable context; released below.
    unsafe { bindings::cpus_read_lock() };
    for cpu in (0..crate::cpu::nr_cpu_ids()).filter_map(CpuId::from_u32) {
        if online.test(cpu) {
            // SAFETY: `cpu` is online and stays so while the hotplug lock is
            // held; `nothing` has the signature `work_on_cpu_key()` calls;
            // the key is static.
            unsafe {
                bindings::work_on_cpu_key(i32::from(cpu), Some(nothing), null_mut(), key.as_ptr())
            };
        }
    }
    // SAFETY: taken above.
    unsafe { bindings::cpus_read_unlock() };
}

/// A registered cpuidle driver.
///
/// Creating it validates the table, fills a heap-allocated
/// `struct cpuidle_driver` and calls `cpuidle_register()`, which registers
/// the driver and a device for every CPU of its mask (by default every
/// possible CPU).  Dropping it calls `cpuidle_unregister()`, then waits
/// until every CPU has left the idle call it was making (see
/// `wait_for_idle_calls()`) before the driver's memory is freed.
///
/// The driver's `owner` is left unset: the core takes a reference on the
/// owner module for every registered device, so a module that set it could
/// never be unloaded (the loadable C driver haltpoll leaves it unset too).
/// Dropping the registration in the module's exit path is what keeps the
/// module's entry routines alive while they may run.
///
/// # Invariants
///
/// `inner.drv` is a `struct cpuidle_driver` registered with the cpuidle
/// core (`cpuidle_register()` succeeded) for the whole life of `self`; it
/// does not move (it is boxed) and only the core writes to it meanwhile.
/// Its `cpumask` is NULL (then the core's `cpu_possible_mask`) or
/// `inner.mask`'s, which is boxed with it and never changed.
pub struct Registration {
    inner: KBox<Inner>,
}

struct Inner {
    drv: UnsafeCell<bindings::cpuidle_driver>,
    mask: Option<CpumaskVar>,
}

// SAFETY: `Registration` offers no access to the driver or its mask;
// registering and unregistering, and freeing the mask after that, may
// happen on any thread.
unsafe impl Send for Registration {}
// SAFETY: the only `&self` method, `state_stats()`, reads `state_count`,
// which the core does not change after registration, and the per-CPU
// counters, which it reads without a lock as sysfs does.
unsafe impl Sync for Registration {}

impl Registration {
    /// Validates `states` and registers a driver called `name` for the CPUs
    /// of `opts.cpumask` (all possible CPUs by default).
    pub fn new(name: &'static CStr, states: &[State], opts: Options) -> Result<Self> {
        validate(name, states)?.report(name, states);
        let mut raw: bindings::cpuidle_driver = pin_init::zeroed();
        raw.name = name.as_char_ptr();
        raw.governor = opts.governor.map_or(core::ptr::null(), |g| g.as_char_ptr());
        raw.state_count = states.len() as c_int;
        let inner = KBox::new(
            Inner {
                drv: UnsafeCell::new(raw),
                mask: opts.cpumask,
            },
            GFP_KERNEL,
        )?;
        let drv = &inner.drv;
        if let Some(m) = &inner.mask {
            // The core only reads the mask, which stays in the box with the
            // driver (and does not move with it).
            // SAFETY: we own the driver, not registered yet.
            unsafe { (*drv.get()).cpumask = m.as_raw() };
        }
        for (i, s) in states.iter().enumerate() {
            let p = drv.get();
            let (enter, enter_s2idle) = match s.enter {
                Enter::C(EnterFn { f, s2idle, .. }) => (Some(f), s2idle.then_some(f)),
                // SAFETY: `p` points to the valid driver we own; `validate()`
                // put polling states at index 0, the one this initialises.
                // Its name, numbers and flags are overwritten below, so the
                // state keeps the driver's name ("snooze", ...).
                #[cfg(CONFIG_ARCH_HAS_CPU_RELAX)]
                Enter::Poll => unsafe {
                    bindings::cpuidle_poll_state_init(p);
                    ((*p).states[0].enter, None)
                },
                // The core's polling state needs `cpu_relax()` support.
                #[cfg(not(CONFIG_ARCH_HAS_CPU_RELAX))]
                Enter::Poll => {
                    pr_err!("cpuidle: {name}: no polling state on this architecture\n");
                    return Err(EINVAL);
                }
            };
            // SAFETY: `i < STATE_MAX` by `validate()`; we own `*p`.
            let st = unsafe { &mut (*p).states[i] };
            st.name = s.name.to_c();
            st.desc = s.desc.to_c();
            st.exit_latency = s.exit_latency_us as c_uint;
            st.target_residency = s.target_residency_us as c_uint;
            st.exit_latency_ns = s.exit_latency_ns();
            st.target_residency_ns = s.target_residency_ns();
            st.power_usage = s.power_mw;
            // `validate()` checked `RcuIdle` against the routine.
            st.flags = s.raw_flags();
            st.enter = enter;
            // `EnterFn::also_s2idle()`'s caller vouched for the routine.
            st.enter_s2idle = enter_s2idle;
        }
        // SAFETY: the driver is fully initialised and lives in a box that is
        // kept until `drop()` unregisters it.
        let ret = unsafe { bindings::cpuidle_register(drv.get(), core::ptr::null()) };
        if ret != 0 {
            // The core registered the devices of some CPUs and unregistered
            // them again: those CPUs may still be using the driver.
            wait_for_idle_calls();
        }
        to_result(ret)?;
        // INVARIANT: registered above, boxed with its mask.
        Ok(Self { inner })
    }
}

/// A state's statistics on one CPU, as sysfs shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateStats {
    /// Times the state was entered.
    pub usage: u64,
    /// Time spent in the state, ns.
    pub time_ns: u64,
}

impl Registration {
    /// The statistics of state `i` on `cpu`, or `None` if `cpu` has no
    /// device of this driver or `i` is not one of its states.
    ///
    /// The counters are updated by their CPU without a lock; like sysfs,
    /// this reads them without one, so a value may lag by one idle period.
    pub fn state_stats(&self, cpu: CpuId, i: usize) -> Option<StateStats> {
        // SAFETY: the driver is registered (type invariant); only the core
        // writes `state_count`, at registration.
        let count = unsafe { (*self.inner.drv.get()).state_count } as usize;
        if i >= count.min(STATE_MAX) {
            return None;
        }
        // Only this driver's devices, which stay registered while `self`
        // lives, are read: another driver's (with several drivers, one per
        // CPU) may go away with its driver at any time.  `cpuidle_register()`
        // registered a device of this driver for every CPU of its mask,
        // and nothing unregisters one before `drop()`.
        // SAFETY: `Cpumask::from_raw()` needs a pointer valid for reading
        // while the reference lives (this call): the driver is registered
        // (type invariant), so the core set `cpumask` (to
        // `cpu_possible_mask` if it was NULL) and does not change it, and
        // the mask is `inner.mask`'s, kept while `self` lives, or the
        // core's (type invariant).
        let mask = unsafe { Cpumask::from_raw((*self.inner.drv.get()).cpumask) };
        if !mask.test(cpu) {
            return None;
        }
        // SAFETY: the helper checks `cpu` against `nr_cpu_ids`.
        let dev = unsafe { bindings::cpuidle_device_of(cpu.as_u32()) };
        if dev.is_null() {
            return None;
        }
        // SAFETY: `atomic_load()` needs valid, aligned pointers whose
        // concurrent writers are all atomic.  `dev` is a device of this
        // driver, registered while `self` lives, and `i < STATE_MAX`: both
        // fields are valid, aligned `u64`s.  Their only writer while the
        // device is registered is `cpuidle_enter_state()` on its CPU, with
        // `WRITE_ONCE()` (the series' "cpuidle: mark the lockless updates
        // of the per-state usage counters"); registration zeroed them
        // before `cpuidle_register()` returned.
        unsafe {
            let u = &raw mut (*dev).states_usage[i];
            Some(StateStats {
                usage: atomic_load(&raw mut (*u).usage, Relaxed),
                time_ns: atomic_load(&raw mut (*u).time_ns, Relaxed),
            })
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the driver is registered.
        unsafe { bindings::cpuidle_unregister(self.inner.drv.get()) };
        // Only then may the box be freed.
        wait_for_idle_calls();
    }
}

/// Exclusive access to the cpuidle devices: `cpuidle_pause_and_lock()` on
/// creation, `cpuidle_resume_and_unlock()` on drop.  Used by drivers to
/// enable or disable a CPU's device, e.g. from CPU hotplug callbacks.
///
/// # Invariants
///
/// The cpuidle lock is held and idle paused for the life of the guard.
pub struct PauseGuard(PhantomData<*mut ()>);

impl PauseGuard {
    /// Pauses cpuidle on all CPUs and takes the cpuidle lock (may sleep).
    // Taking a lock is not a default value: no `Default`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        // SAFETY: callable from any sleepable context.
        unsafe { bindings::cpuidle_pause_and_lock() };
        // INVARIANT: just taken.
        Self(PhantomData)
    }

    fn device(cpu: CpuId) -> Result<*mut bindings::cpuidle_device> {
        // SAFETY: the helper returns NULL for CPUs without a registered
        // device.
        let dev = unsafe { bindings::cpuidle_device_of(cpu.as_u32()) };
        if dev.is_null() {
            Err(ENODEV)
        } else {
            Ok(dev)
        }
    }

    /// Enables the cpuidle device of `cpu`.
    pub fn enable_cpu(&self, cpu: CpuId) -> Result {
        let dev = Self::device(cpu)?;
        // SAFETY: `dev` is a registered device; the lock is held (type
        // invariant), as `cpuidle_enable_device()` requires.
        to_result(unsafe { bindings::cpuidle_enable_device(dev) })
    }

    /// Disables the cpuidle device of `cpu`.
    pub fn disable_cpu(&self, cpu: CpuId) -> Result {
        let dev = Self::device(cpu)?;
        // SAFETY: as in `enable_cpu()`.
        unsafe { bindings::cpuidle_disable_device(dev) };
        Ok(())
    }
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the lock is held by us.
        unsafe { bindings::cpuidle_resume_and_unlock() };
    }
}

/// CPU hotplug callbacks of a cpuidle driver (see [`HotplugRegistration`]).
///
/// An error does not fail the CPU's online or offline: it is logged and the
/// hotplug core is told 0, as the C drivers do (`cpuidle-pseries.c`,
/// `cpuidle-psci.c`); an error from a "dead" callback would make the core
/// WARN and leave the CPU half torn down.
pub trait Hotplug: 'static {
    /// `cpu` came online (runs on `cpu`, may sleep).
    fn online(cpu: CpuId) -> Result;
    /// `cpu` is dead (runs on another CPU, may sleep).
    fn dead(cpu: CpuId) -> Result;
}

/// CPU hotplug callbacks registered with the hotplug core: an "online"
/// state in the dynamic AP range and the fixed `CPUHP_CPUIDLE_DEAD` state,
/// both without calling the callbacks for the CPUs already up (the driver
/// registration has set those up).  Dropping it removes both states.
///
/// A typical driver enables the CPU's cpuidle device in `online` and
/// disables it in `dead`, under a [`PauseGuard`].
pub struct HotplugRegistration<T: Hotplug> {
    // Fields drop in order: the "dead" state goes first, as it came last.
    _dead: cpuhp::Registration<Dead<T>>,
    _online: cpuhp::Registration<Online<T>>,
}

/// `T::online` as the startup callback of a hotplug state.
struct Online<T>(PhantomData<T>);

#[vtable]
impl<T: Hotplug> cpuhp::Callbacks for Online<T> {
    fn startup(cpu: CpuId) -> Result {
        if let Err(e) = T::online(cpu) {
            pr_err!(
                "cpuidle: CPU{}: cannot enable its device: {e:?}\n",
                cpu.as_u32()
            );
        }
        Ok(())
    }
}

/// `T::dead` as the teardown callback of a hotplug state.
struct Dead<T>(PhantomData<T>);

#[vtable]
impl<T: Hotplug> cpuhp::Callbacks for Dead<T> {
    fn teardown(cpu: CpuId) -> Result {
        if let Err(e) = T::dead(cpu) {
            pr_err!(
                "cpuidle: CPU{}: cannot disable its device: {e:?}\n",
                cpu.as_u32()
            );
        }
        Ok(())
    }
}

impl<T: Hotplug> HotplugRegistration<T> {
    /// Registers `T`'s callbacks under the names `online_name` and
    /// `dead_name` (shown in `/sys/devices/system/cpu/hotplug/states`).
    pub fn new(online_name: &'static CStr, dead_name: &'static CStr) -> Result<Self> {
        let online = cpuhp::Registration::new(cpuhp::State::OnlineDyn, online_name, false)?;
        // (a fixed state of the dead section: always `Some`)
        let dead_state =
            cpuhp::State::fixed(bindings::cpuhp_state_CPUHP_CPUIDLE_DEAD).ok_or(EINVAL)?;
        let dead = cpuhp::Registration::new(dead_state, dead_name, false)?;
        Ok(Self {
            _dead: dead,
            _online: online,
        })
    }
}
