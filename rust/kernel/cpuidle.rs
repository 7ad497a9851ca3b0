// SPDX-License-Identifier: GPL-2.0

//! CPU idle time management.
//!
//! Abstractions for cpuidle drivers (tables of idle states, registration)
//! and cpuidle governors (state selection in the idle loop).
//!
//! C header: [`include/linux/cpuidle.h`](srctree/include/linux/cpuidle.h)
//!
//! Reference: <https://docs.kernel.org/admin-guide/pm/cpuidle.html>
//!
//! # Idle-state entry routines
//!
//! The core calls a state's `enter` routine with IRQs off and, for every
//! state, with RCU not watching: either the core stopped it
//! (`ct_cpuidle_enter()`) or, with [`Flags::RCU_IDLE`], the routine does it
//! itself.  Such code must be `noinstr`/`__cpuidle`: no tracing, no
//! instrumentation, nothing that may use RCU.  Rust code cannot be placed in
//! `.cpuidle.text` nor be guaranteed free of instrumentation today, so an
//! [`Enter`] is either the core's polling routine ([`Enter::Poll`]) or a
//! small C `__cpuidle` routine ([`EnterFn`], created through `unsafe`).
//! Everything else — tables, probing, registration, hotplug and governors —
//! is Rust.

use crate::{
    bindings,
    cpu::CpuId,
    cpumask::Cpumask,
    error::{code::*, from_result, to_result, Result},
    ffi::{c_char, c_int, c_long, c_uint, c_void},
    prelude::*,
    str::CStr,
    sync::SetOnce,
    types::Opaque,
};
use core::{
    cell::UnsafeCell,
    marker::PhantomData,
    ptr::{null_mut, NonNull},
};
use macros::vtable;

/// Maximum number of idle states of a driver (`CPUIDLE_STATE_MAX`).
pub const STATE_MAX: usize = bindings::CPUIDLE_STATE_MAX as usize;
/// Maximum length of a state's name in bytes, without the NUL.
pub const NAME_MAX: usize = bindings::CPUIDLE_NAME_LEN as usize - 1;
/// Maximum length of a state's description in bytes, without the NUL.
pub const DESC_MAX: usize = bindings::CPUIDLE_DESC_LEN as usize - 1;
/// Size of a name buffer of `struct cpuidle_state`, with the NUL.
const NAME_LEN: usize = bindings::CPUIDLE_NAME_LEN as usize;
/// Size of a description buffer of `struct cpuidle_state`, with the NUL.
const DESC_LEN: usize = bindings::CPUIDLE_DESC_LEN as usize;
/// Nanoseconds per microsecond.
const NSEC_PER_USEC: i64 = 1000;

/// Converts microseconds, as drivers state them, to the nanoseconds the
/// core and governors use.
pub const fn us_to_ns(us: u32) -> i64 {
    us as i64 * NSEC_PER_USEC
}

/// Flags of an idle state (`CPUIDLE_FLAG_*`).
///
/// The low 16 bits are the core's; the high 16 bits belong to the driver
/// ([`Flags::driver`]).
///
/// # Examples
///
/// ```
/// use kernel::cpuidle::Flags;
///
/// const DEEP: Flags = Flags::driver(0);
/// let f = Flags::TIMER_STOP | DEEP;
/// assert!(f.contains(Flags::TIMER_STOP) && f.contains(DEEP));
/// assert_eq!(DEEP.bits(), 0x10000);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Flags(u32);

impl Flags {
    /// No flags.
    pub const NONE: Flags = Flags(0);
    /// The state polls instead of halting.
    pub const POLLING: Flags = Flags(bindings::CPUIDLE_FLAG_POLLING);
    /// The local timer stops in this state.
    pub const TIMER_STOP: Flags = Flags(bindings::CPUIDLE_FLAG_TIMER_STOP);
    /// Avoid using this state.
    pub const UNUSABLE: Flags = Flags(bindings::CPUIDLE_FLAG_UNUSABLE);
    /// Disabled by default (can be enabled through sysfs).
    pub const OFF: Flags = Flags(bindings::CPUIDLE_FLAG_OFF);
    /// Entering the state flushes the TLB.
    pub const TLB_FLUSHED: Flags = Flags(bindings::CPUIDLE_FLAG_TLB_FLUSHED);
    /// The enter routine stops and restarts RCU itself.
    pub const RCU_IDLE: Flags = Flags(bindings::CPUIDLE_FLAG_RCU_IDLE);

    /// Driver-private flag number `bit` (0..=15, taken modulo 16), stored in
    /// the high half that the core leaves to drivers.
    pub const fn driver(bit: u32) -> Flags {
        Flags(1 << (16 + (bit & 15)))
    }

    /// The union of two sets of flags.
    pub const fn with(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }

    /// Whether all flags of `other` are set.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The raw value.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Flags from a raw value.
    pub const fn from_bits(bits: u32) -> Flags {
        Flags(bits)
    }
}

impl core::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.with(rhs)
    }
}

/// The C type of an idle state's enter routine.
pub type RawEnterFn = unsafe extern "C" fn(
    *mut bindings::cpuidle_device,
    *mut bindings::cpuidle_driver,
    c_int,
) -> c_int;

/// A C idle-state entry routine.
///
/// # Invariants
///
/// The routine is a `__cpuidle` (or `noinstr`) C function that follows the
/// rules of `cpuidle_state::enter`: called with IRQs disabled, returns with
/// IRQs disabled, returns the index of the state entered or a negative
/// error, and manages RCU itself if and only if the state has
/// [`Flags::RCU_IDLE`].
#[derive(Clone, Copy)]
pub struct EnterFn(RawEnterFn);

impl EnterFn {
    /// Wraps a C entry routine.
    ///
    /// # Safety
    ///
    /// `f` must satisfy the invariants of [`EnterFn`] for every state it is
    /// used in.
    pub const unsafe fn new(f: RawEnterFn) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self(f)
    }
}

/// How the core enters an idle state.
#[derive(Clone, Copy)]
pub enum Enter {
    /// The core's polling loop (`cpuidle_poll_state_init()`): index 0 only,
    /// implies [`Flags::POLLING`].  Only where the architecture has
    /// `ARCH_HAS_CPU_RELAX`; elsewhere [`Registration::new`] fails with
    /// `EINVAL`.
    Poll,
    /// A C `__cpuidle` routine.
    C(EnterFn),
}

/// A string held in a fixed-size buffer, NUL-terminated, as the C
/// structures hold state names.  It remembers the length of the string it
/// was made from, so that [`validate`] can refuse one that did not fit.
#[derive(Clone, Copy)]
struct FixedStr<const N: usize> {
    buf: [u8; N],
    /// Length of the source string, without the NUL (may exceed `N - 1`).
    len: usize,
}

impl<const N: usize> FixedStr<N> {
    const fn new(s: &CStr) -> Self {
        let src = s.to_bytes();
        let mut buf = [0u8; N];
        let mut i = 0;
        while i < src.len() && i < N - 1 {
            buf[i] = src[i];
            i += 1;
        }
        Self {
            buf,
            len: src.len(),
        }
    }

    fn as_cstr(&self) -> &CStr {
        // The last byte is always NUL (`new()` copies at most `N - 1`).
        CStr::from_bytes_until_nul(&self.buf).unwrap_or_default()
    }

    fn to_c<const M: usize>(self) -> [c_char; M] {
        let mut dst = [0 as c_char; M];
        for (d, s) in dst.iter_mut().zip(&self.buf[..N.min(M) - 1]) {
            *d = *s as c_char;
        }
        dst
    }
}

/// The description of one idle state.
///
/// The state owns copies of its name and description, like
/// `struct cpuidle_state`, so a table may be built from strings that do
/// not outlive it (e.g. names made from firmware data).
#[derive(Clone, Copy)]
pub struct State {
    name: FixedStr<NAME_LEN>,
    desc: FixedStr<DESC_LEN>,
    /// Worst-case exit latency in microseconds.
    pub exit_latency_us: u32,
    /// Minimum residency for the state to pay off, in microseconds.
    pub target_residency_us: u32,
    /// Power drawn in the state in milliwatts (-1: unknown).
    pub power_mw: i32,
    /// Flags.
    pub flags: Flags,
    /// Entry routine.
    pub enter: Enter,
}

impl State {
    /// A state with the given name and description (shown in sysfs, at
    /// most [`NAME_MAX`] and [`DESC_MAX`] bytes: [`validate`] refuses
    /// longer ones), latency, residency and entry routine, no flags and
    /// unknown power.
    pub const fn new(
        name: &CStr,
        desc: &CStr,
        exit_latency_us: u32,
        target_residency_us: u32,
        enter: Enter,
    ) -> Self {
        let flags = match enter {
            Enter::Poll => Flags::POLLING,
            Enter::C(_) => Flags::NONE,
        };
        Self {
            name: FixedStr::new(name),
            desc: FixedStr::new(desc),
            exit_latency_us,
            target_residency_us,
            power_mw: -1,
            flags,
            enter,
        }
    }

    /// The state's name.
    pub fn name(&self) -> &CStr {
        self.name.as_cstr()
    }

    /// Sets the power drawn in the state, in milliwatts.
    pub const fn power(mut self, mw: i32) -> Self {
        self.power_mw = mw;
        self
    }

    /// Adds `flags` to the state's flags.
    pub const fn flags(mut self, flags: Flags) -> Self {
        self.flags = self.flags.with(flags);
        self
    }

    /// The exit latency in nanoseconds.
    pub const fn exit_latency_ns(&self) -> i64 {
        us_to_ns(self.exit_latency_us)
    }

    /// The target residency in nanoseconds.
    pub const fn target_residency_ns(&self) -> i64 {
        us_to_ns(self.target_residency_us)
    }

    fn polling(&self) -> bool {
        self.flags.contains(Flags::POLLING)
    }
}

/// Checks a table of states against the rules of the cpuidle core.
///
/// # Examples
///
/// ```
/// use kernel::cpuidle::{validate, Enter, State};
/// use kernel::error::code::EINVAL;
///
/// let poll = State::new(c"POLL", c"polling", 0, 0, Enter::Poll);
/// assert!(validate(c"example", &[poll]).is_ok());
/// // A polling state anywhere but at index 0 is refused.
/// assert_eq!(validate(c"example", &[poll, poll]), Err(EINVAL));
/// assert_eq!(validate(c"example", &[]), Err(EINVAL));
/// ```
///
/// Returns `EINVAL` and logs which state broke which rule when: there are
/// no states or more than [`STATE_MAX`]; a name is empty or longer than
/// [`NAME_MAX`] or a description longer than [`DESC_MAX`]; two states share
/// a name; a polling state is not at index 0; a non-polling state's exit
/// latency exceeds its target residency; target residencies decrease.
pub fn validate(driver: &CStr, states: &[State]) -> Result {
    let n = states.len();
    if n == 0 || n > STATE_MAX {
        pr_err!("cpuidle: {driver}: {n} states, must be 1..={STATE_MAX}\n");
        return Err(EINVAL);
    }
    for (i, s) in states.iter().enumerate() {
        let name = s.name();
        let len = s.name.len;
        if len == 0 || len > NAME_MAX {
            pr_err!("cpuidle: {driver}: state {i}: name is {len} bytes, must be 1..={NAME_MAX}\n");
            return Err(EINVAL);
        }
        let dlen = s.desc.len;
        if dlen > DESC_MAX {
            pr_err!(
                "cpuidle: {driver}: state {i} ({name}): desc is {dlen} bytes, max {DESC_MAX}\n"
            );
            return Err(EINVAL);
        }
        if states[..i].iter().any(|p| p.name() == name) {
            pr_err!("cpuidle: {driver}: state {i} ({name}): duplicate name\n");
            return Err(EINVAL);
        }
        if s.polling() && i != 0 {
            pr_err!("cpuidle: {driver}: state {i} ({name}): polling state not at index 0\n");
            return Err(EINVAL);
        }
        if matches!(s.enter, Enter::Poll) && !s.polling() {
            pr_err!("cpuidle: {driver}: state {i} ({name}): poll entry without POLLING flag\n");
            return Err(EINVAL);
        }
        if !s.polling() && s.exit_latency_us > s.target_residency_us {
            pr_err!(
                "cpuidle: {driver}: state {i} ({name}): exit latency {} > target residency {} us\n",
                s.exit_latency_us,
                s.target_residency_us
            );
            return Err(EINVAL);
        }
        if i > 0 && s.target_residency_us < states[i - 1].target_residency_us {
            pr_err!(
                "cpuidle: {driver}: state {i} ({name}): target residency {} < state {}'s {} us\n",
                s.target_residency_us,
                i - 1,
                states[i - 1].target_residency_us
            );
            return Err(EINVAL);
        }
    }
    Ok(())
}

const fn copy_cstr<const N: usize>(s: &CStr) -> [c_char; N] {
    let src = s.to_bytes();
    let mut dst = [0 as c_char; N];
    let mut i = 0;
    while i < src.len() && i < N - 1 {
        dst[i] = src[i] as c_char;
        i += 1;
    }
    dst
}

/// Options of a driver [`Registration`].
#[derive(Default)]
pub struct Options {
    /// Governor to switch to when the driver registers (by name).
    pub governor: Option<&'static CStr>,
    /// The CPUs the driver handles (all possible CPUs if `None`).
    pub cpumask: Option<&'static Cpumask>,
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
/// `drv` is a `struct cpuidle_driver` registered with the cpuidle core
/// (`cpuidle_register()` succeeded) for the whole life of `self`; it does
/// not move (it is boxed) and only the core writes to it meanwhile.
pub struct Registration {
    drv: KBox<UnsafeCell<bindings::cpuidle_driver>>,
}

// SAFETY: `Registration` offers no access to the driver; registering and
// unregistering may happen on any thread.
unsafe impl Send for Registration {}
// SAFETY: the only `&self` method, `state_stats()`, reads `state_count`,
// which the core does not change after registration, and the per-CPU
// counters, which it reads without a lock as sysfs does.
unsafe impl Sync for Registration {}

impl Registration {
    /// Validates `states` and registers a driver called `name` for the CPUs
    /// of `opts.cpumask` (all possible CPUs by default).
    pub fn new(name: &'static CStr, states: &[State], opts: Options) -> Result<Self> {
        validate(name, states)?;
        // SAFETY: `cpuidle_driver` is plain C data for which all-zeroes is
        // a valid (empty) value.
        let mut raw: bindings::cpuidle_driver = unsafe { core::mem::zeroed() };
        raw.name = name.as_char_ptr();
        raw.governor = opts.governor.map_or(core::ptr::null(), |g| g.as_char_ptr());
        // The core only reads the mask; it lives as long as the driver
        // (`'static`).
        raw.cpumask = opts.cpumask.map_or(core::ptr::null_mut(), |m| m.as_raw());
        raw.state_count = states.len() as c_int;
        let drv = KBox::new(UnsafeCell::new(raw), GFP_KERNEL)?;
        for (i, s) in states.iter().enumerate() {
            let p = drv.get();
            let enter = match s.enter {
                Enter::C(EnterFn(f)) => Some(f),
                // SAFETY: `p` points to the valid driver we own; `validate()`
                // put polling states at index 0, the one this initialises.
                // Its name, numbers and flags are overwritten below, so the
                // state keeps the driver's name ("snooze", ...).
                #[cfg(CONFIG_ARCH_HAS_CPU_RELAX)]
                Enter::Poll => unsafe {
                    bindings::cpuidle_poll_state_init(p);
                    (*p).states[0].enter
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
            st.flags = s.flags.bits();
            st.enter = enter;
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
        // INVARIANT: registered above, boxed.
        Ok(Self { drv })
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
        let count = unsafe { (*self.drv.get()).state_count } as usize;
        if i >= count.min(STATE_MAX) {
            return None;
        }
        // SAFETY: the helper checks `cpu` against `nr_cpu_ids`.
        let dev = unsafe { bindings::cpuidle_device_of(cpu.as_u32()) };
        if dev.is_null() {
            return None;
        }
        // SAFETY: `dev` is a device registered by this driver, which stays
        // registered while `self` lives; `i < STATE_MAX`.  The fields are
        // plain counters written by their CPU: read them with volatile
        // loads, as the C sysfs code reads them without a lock.
        unsafe {
            let u = core::ptr::addr_of!((*dev).states_usage[i]);
            Some(StateStats {
                usage: core::ptr::read_volatile(core::ptr::addr_of!((*u).usage)),
                time_ns: core::ptr::read_volatile(core::ptr::addr_of!((*u).time_ns)),
            })
        }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // SAFETY: by the type invariant the driver is registered.
        unsafe { bindings::cpuidle_unregister(self.drv.get()) };
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
///
/// # Invariants
///
/// `online` is the dynamic state number and `CPUHP_CPUIDLE_DEAD` is set up,
/// both with `T`'s trampolines, until `drop()`.
pub struct HotplugRegistration<T: Hotplug> {
    online: c_int,
    _t: PhantomData<T>,
}

// SAFETY: the registration holds only a state number; removing it may be
// done from any thread.
unsafe impl<T: Hotplug> Send for HotplugRegistration<T> {}
// SAFETY: no `&self` method touches anything.
unsafe impl<T: Hotplug> Sync for HotplugRegistration<T> {}

impl<T: Hotplug> HotplugRegistration<T> {
    /// Registers `T`'s callbacks under the names `online_name` and
    /// `dead_name` (shown in `/sys/devices/system/cpu/hotplug/states`).
    pub fn new(online_name: &'static CStr, dead_name: &'static CStr) -> Result<Self> {
        // SAFETY: the names are `'static`; the trampolines have the C
        // signature; `false`: do not run them for the CPUs already up.
        let online = unsafe {
            bindings::__cpuhp_setup_state(
                bindings::cpuhp_state_CPUHP_AP_ONLINE_DYN,
                online_name.as_char_ptr(),
                false,
                Some(Self::online_callback),
                None,
                false,
            )
        };
        if online < 0 {
            return Err(Error::from_errno(online));
        }
        // SAFETY: as above, for the fixed cpuidle "dead" state.
        let ret = unsafe {
            bindings::__cpuhp_setup_state(
                bindings::cpuhp_state_CPUHP_CPUIDLE_DEAD,
                dead_name.as_char_ptr(),
                false,
                None,
                Some(Self::dead_callback),
                false,
            )
        };
        if ret < 0 {
            // SAFETY: `online` was set up just above.
            unsafe { bindings::__cpuhp_remove_state(online as bindings::cpuhp_state, false) };
            return Err(Error::from_errno(ret));
        }
        // INVARIANT: both states are set up.
        Ok(Self {
            online,
            _t: PhantomData,
        })
    }

    /// # Safety
    ///
    /// Only called by the CPU hotplug core, with a CPU number.
    unsafe extern "C" fn online_callback(cpu: c_uint) -> c_int {
        // SAFETY: the hotplug core passes a valid CPU number.
        let id = unsafe { CpuId::from_u32_unchecked(cpu) };
        if let Err(e) = T::online(id) {
            pr_err!("cpuidle: CPU{cpu}: cannot enable its device: {e:?}\n");
        }
        0
    }

    /// # Safety
    ///
    /// Only called by the CPU hotplug core, with a CPU number.
    unsafe extern "C" fn dead_callback(cpu: c_uint) -> c_int {
        // SAFETY: the hotplug core passes a valid CPU number.
        let id = unsafe { CpuId::from_u32_unchecked(cpu) };
        if let Err(e) = T::dead(id) {
            pr_err!("cpuidle: CPU{cpu}: cannot disable its device: {e:?}\n");
        }
        0
    }
}

impl<T: Hotplug> Drop for HotplugRegistration<T> {
    fn drop(&mut self) {
        // SAFETY: both states are set up (type invariant); `false`: do not
        // run the teardown callbacks now.
        unsafe {
            bindings::__cpuhp_remove_state(bindings::cpuhp_state_CPUHP_CPUIDLE_DEAD, false);
            bindings::__cpuhp_remove_state(self.online as bindings::cpuhp_state, false);
        }
    }
}

// ---------------------------------------------------------------------------
// Governor side
// ---------------------------------------------------------------------------

/// A governor's read-only view of the driver's state table.
///
/// # Invariants
///
/// Wraps a registered `struct cpuidle_driver` whose `state_count` is in
/// `1..=STATE_MAX`.
#[repr(transparent)]
pub struct Driver(Opaque<bindings::cpuidle_driver>);

/// What a governor sees of one idle state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateInfo {
    /// Exit latency in ns.
    pub exit_latency_ns: i64,
    /// Target residency in ns.
    pub target_residency_ns: i64,
    /// Flags.
    pub flags: Flags,
}

impl Driver {
    /// # Safety
    ///
    /// `ptr` must point to a registered driver that outlives `'a`.
    #[inline]
    unsafe fn from_raw<'a>(ptr: *mut bindings::cpuidle_driver) -> &'a Self {
        // SAFETY: `Driver` is a transparent wrapper; validity by the caller.
        unsafe { &*ptr.cast() }
    }

    /// Number of states.
    #[inline]
    pub fn state_count(&self) -> usize {
        // SAFETY: the driver is valid (type invariant).
        let n = unsafe { (*self.0.get()).state_count };
        (n.max(1) as usize).min(STATE_MAX)
    }

    /// State `i` (clamped to the last state).
    pub fn state(&self, i: usize) -> StateInfo {
        let i = i.min(self.state_count() - 1);
        // SAFETY: the driver is valid and `i < state_count <= STATE_MAX`.
        let s = unsafe { &(*self.0.get()).states[i] };
        StateInfo {
            exit_latency_ns: s.exit_latency_ns,
            target_residency_ns: s.target_residency_ns,
            flags: Flags(s.flags),
        }
    }
}

/// A governor's view of one CPU's cpuidle device.
///
/// Only shared references are handed out: while a governor callback runs,
/// other CPUs may write some fields of the device (sysfs writes
/// `states_usage[i].disable` and `poll_limit_ns` without a lock the idle
/// loop takes).  The accessors therefore go through raw pointers and read
/// such fields with volatile loads, as the C code reads them with
/// `READ_ONCE()` or plain loads; no reference to the C structure is made.
///
/// # Invariants
///
/// Wraps a registered `struct cpuidle_device`, whose `cpu` is a possible
/// CPU.  The fields this type writes (`last_state_idx`, `poll_time_limit`)
/// are only written, besides by the cpuidle core on the device's CPU, by
/// the governor callbacks that receive the device, which the core calls
/// for one device at a time (see [`Governor`]).
#[repr(transparent)]
pub struct Device(Opaque<bindings::cpuidle_device>);

impl Device {
    /// # Safety
    ///
    /// `ptr` must point to a registered device that stays registered during
    /// `'a`, and the caller must be a governor callback of that device.
    #[inline]
    unsafe fn from_raw<'a>(ptr: *mut bindings::cpuidle_device) -> &'a Self {
        // SAFETY: `Device` is a transparent wrapper; validity by the caller.
        unsafe { &*ptr.cast() }
    }

    #[inline]
    fn as_raw(&self) -> *mut bindings::cpuidle_device {
        self.0.get()
    }

    /// The `disable` word of state `i < STATE_MAX`.
    #[inline]
    fn disable_bits(&self, i: usize) -> u64 {
        // SAFETY: the device is valid (type invariant) and `i < STATE_MAX`;
        // sysfs writes the word from other CPUs: read it once, volatile.
        unsafe {
            core::ptr::read_volatile(core::ptr::addr_of!(
                (*self.as_raw()).states_usage[i].disable
            ))
        }
    }

    /// The CPU of the device.
    #[inline]
    pub fn cpu(&self) -> CpuId {
        // SAFETY: the device is valid; `cpu` is set before registration to
        // a possible CPU, a valid CPU number.
        unsafe { CpuId::from_u32_unchecked((*self.as_raw()).cpu) }
    }

    /// Whether state `i` is disabled, by the user or by the driver.
    #[inline]
    pub fn state_disabled(&self, i: usize) -> bool {
        i >= STATE_MAX || self.disable_bits(i) != 0
    }

    /// Index of the state entered last, or a negative value.
    #[inline]
    pub fn last_state_idx(&self) -> i32 {
        // SAFETY: valid device; written only on its CPU or by its governor
        // callbacks (type invariant), which do not run concurrently.
        unsafe { (*self.as_raw()).last_state_idx }
    }

    /// Sets the index of the state entered last.
    #[inline]
    pub fn set_last_state_idx(&self, idx: i32) {
        // SAFETY: as in `last_state_idx()`; `Opaque` permits writes through
        // a shared reference.
        unsafe { (*self.as_raw()).last_state_idx = idx };
    }

    /// Idle time the core measured for the last state entered, in ns.
    #[inline]
    pub fn last_residency_ns(&self) -> u64 {
        // SAFETY: valid device; written by the core on the device's CPU,
        // which is the one running the governor callback.
        unsafe { (*self.as_raw()).last_residency_ns }
    }

    /// Reads and clears the flag the polling state sets when it hit its
    /// time limit.
    #[inline]
    pub fn take_poll_time_limit(&self) -> bool {
        let d = self.as_raw();
        // SAFETY: valid device.  The bit shares its word with `registered`
        // and `enabled`, which the core changes only with the device out of
        // the idle loop, and is set by the polling state on this CPU: the
        // same read-modify-write the C governors do.
        unsafe {
            let v = bindings::cpuidle_device::poll_time_limit_raw(d) != 0;
            bindings::cpuidle_device::set_poll_time_limit_raw(d, 0);
            v
        }
    }
}

/// Proof that the code runs in the idle loop of the current CPU, with IRQs
/// off, inside a governor's `select()` or `reflect()`.  The tick and PM QoS
/// queries that are only valid there are methods of this type.
///
/// # Invariants
///
/// Only created by the governor trampolines, which the idle loop calls.
pub struct IdleContext {
    cpu: CpuId,
    _not_send: PhantomData<*mut ()>,
}

/// The time until the next timer event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SleepLength {
    /// Time until the closest timer event (the tick excluded), in ns.
    pub duration_ns: i64,
    /// Time until the next tick, in ns.
    pub delta_tick_ns: i64,
}

impl IdleContext {
    /// The PM QoS latency limit of this CPU in ns: the smallest of its
    /// resume latency, the global CPU latency QoS and the wakeup latency
    /// QoS (`cpuidle_governor_latency_req()`).
    #[inline]
    pub fn latency_req_ns(&self) -> i64 {
        // SAFETY: `cpu` is the current, online CPU (type invariant).
        unsafe { bindings::cpuidle_governor_latency_req(self.cpu.as_u32()) }
    }

    /// The sleep length (`tick_nohz_get_sleep_length()`).
    #[inline]
    pub fn sleep_length(&self) -> SleepLength {
        let mut delta: bindings::ktime_t = 0;
        // SAFETY: called from the idle loop with IRQs off (type invariant).
        let d = unsafe { bindings::tick_nohz_get_sleep_length(&mut delta) };
        SleepLength {
            duration_ns: d,
            delta_tick_ns: delta,
        }
    }

    /// Whether the tick is stopped on this CPU.
    #[inline]
    pub fn tick_stopped(&self) -> bool {
        // SAFETY: called on the current CPU with IRQs off (type invariant).
        unsafe { bindings::tick_nohz_tick_stopped() }
    }

    /// Whether the last wakeup was by the tick (valid in `reflect()`).
    #[inline]
    pub fn got_tick(&self) -> bool {
        // SAFETY: called on the current CPU in the idle loop (invariant).
        unsafe { bindings::tick_nohz_idle_got_tick() }
    }

    /// The length of a tick in ns (`TICK_NSEC`).
    #[inline]
    pub fn tick_nsec(&self) -> i64 {
        tick_nsec()
    }
}

/// The length of a tick in ns (`TICK_NSEC`).
///
/// (Not derived from `bindings::HZ`: bindgen sees the user-space `HZ` of
/// the uapi headers, not the kernel's `CONFIG_HZ`.)
#[inline]
pub const fn tick_nsec() -> i64 {
    bindings::CPUIDLE_TICK_NSEC
}

/// A cpuidle governor.
///
/// # Per-CPU data
///
/// Each CPU has its own [`Governor::CpuData`], allocated with
/// `alloc_percpu()` when the governor registers (node-local, one per
/// possible CPU, each initialised with `Default`), and handed to every
/// callback as a `&mut` to the data of the device's CPU.  That is sound
/// because the core calls a governor's callbacks for one device at a time:
/// `select()` and `reflect()` from the idle loop of the device's CPU with
/// IRQs off; `enable()` and `disable()` under the cpuidle lock with the
/// device out of the idle loop (registration and unregistration,
/// `cpuidle_pause_and_lock()`, and a governor switch, which uninstalls the
/// idle handler and waits for the CPUs to leave it first).
#[vtable]
pub trait Governor: 'static {
    /// The governor's name (at most [`NAME_MAX`] bytes, checked at compile
    /// time).
    const NAME: &'static CStr;
    /// Rating: the core picks the highest-rated governor by default.
    const RATING: u32;
    /// What the governor keeps for each CPU (at most 32 KiB, checked at
    /// compile time).  It is never dropped: a governor stays registered.
    type CpuData: Default + Send;

    /// The governor's static slot, declared next to it:
    /// `static GOV: GovernorSlot<MyGov> = GovernorSlot::new();` (the
    /// trampolines find the per-CPU data through it).
    fn slot() -> &'static GovernorSlot<Self>
    where
        Self: Sized;

    /// Picks the state to enter on `dev`'s CPU; returns its index (clamped
    /// to the driver's states) and may set `*stop_tick` to false to keep
    /// the tick running.
    fn select(
        ctx: &IdleContext,
        drv: &Driver,
        dev: &Device,
        data: &mut Self::CpuData,
        stop_tick: &mut bool,
    ) -> usize;

    /// Called after the CPU woke up from state `index`.
    fn reflect(_ctx: &IdleContext, _dev: &Device, _data: &mut Self::CpuData, _index: usize) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Called when the governor starts handling `dev`.
    fn enable(_drv: &Driver, _dev: &Device, _data: &mut Self::CpuData) -> Result {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }

    /// Called when the governor stops handling `dev`.
    fn disable(_drv: &Driver, _dev: &Device, _data: &mut Self::CpuData) {
        build_error!(crate::error::VTABLE_DEFAULT_ERROR)
    }
}

/// The smallest unit `alloc_percpu()` serves (`PCPU_MIN_UNIT_SIZE`), the
/// most it may be asked for.
const PCPU_MIN_UNIT_SIZE: usize = 32 << 10;

/// A governor's per-CPU allocation, and where each CPU's part of it lies.
///
/// The addresses are worked out once, when the governor registers, and
/// kept in a plain array: the callbacks run on every idle entry and exit,
/// where `per_cpu_ptr()` (a C helper, a call from Rust) would add a call
/// to each.
///
/// # Invariants
///
/// `_base` is a `__percpu` pointer to a `D`, initialised for every possible
/// CPU and never freed (it is kept here, where kmemleak sees the
/// allocation referenced).  `cpus[c]` is `Some` exactly for the possible
/// CPUs `c` below `nr_cpu_ids`, and then points to CPU `c`'s `D` in it.
struct PerCpuData<D> {
    _base: NonNull<D>,
    cpus: KVVec<Option<NonNull<D>>>,
}

// SAFETY: the pointers are into a per-CPU allocation; which CPU's data is
// accessed, and when, is the business of the callbacks (see `Governor`),
// and `D: Send` lets a CPU's data be set up on another CPU.
unsafe impl<D: Send> Send for PerCpuData<D> {}
// SAFETY: as above; sharing the table gives no access by itself.
unsafe impl<D: Send> Sync for PerCpuData<D> {}

impl<D: Default + Send> PerCpuData<D> {
    /// Allocates and initialises the data of every possible CPU.
    fn new() -> Result<Self> {
        let nr = crate::cpu::nr_cpu_ids() as usize;
        let mut cpus = KVVec::with_capacity(nr, GFP_KERNEL)?;
        let size = core::mem::size_of::<D>().max(1);
        // SAFETY: `size` is in `1..=PCPU_MIN_UNIT_SIZE` (checked at compile
        // time by `GovernorSlot::new()`), the alignment a power of two.
        let p = unsafe { bindings::__alloc_percpu(size, core::mem::align_of::<D>()) };
        let base = NonNull::new(p.cast::<D>()).ok_or(ENOMEM)?;
        // SAFETY: `__cpu_possible_mask` is a valid, static mask.
        let possible = unsafe { Cpumask::from_raw(&raw const bindings::__cpu_possible_mask) };
        for cpu in 0..nr as u32 {
            let mine = CpuId::from_u32(cpu)
                .filter(|&c| possible.test(c))
                .and_then(|_| {
                    // SAFETY: `p` is a per-CPU allocation and `cpu` a
                    // possible CPU.
                    NonNull::new(unsafe { bindings::per_cpu_ptr(p, cpu) }.cast::<D>())
                });
            if let Some(d) = mine {
                // SAFETY: `d` is CPU `cpu`'s part of the allocation, sized
                // and aligned for a `D`; nothing else knows it yet.
                unsafe { d.as_ptr().write(D::default()) };
            }
            // Cannot fail: the capacity is `nr`.
            cpus.push(mine, GFP_KERNEL)?;
        }
        // INVARIANT: `_base` is the allocation, never freed; `cpus` is
        // `Some` for each possible CPU below `nr_cpu_ids`, each initialised.
        Ok(Self { _base: base, cpus })
    }

    /// The data of `cpu`.
    ///
    /// # Safety
    ///
    /// `cpu` is a possible CPU, and the caller is a governor callback of
    /// `cpu`'s device, so it is the only user of that data meanwhile (see
    /// [`Governor`]) for the returned lifetime.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    unsafe fn get(&self, cpu: CpuId) -> &mut D {
        // SAFETY: `cpu < nr_cpu_ids` (`CpuId` invariant), the length of
        // `cpus`, and its entry is `Some` as `cpu` is possible (type
        // invariant and the caller's contract).
        let p = unsafe {
            self.cpus
                .get_unchecked(cpu.as_u32() as usize)
                .unwrap_unchecked()
        };
        // SAFETY: an initialised `D` (type invariant); exclusive by the
        // caller's contract.
        unsafe { &mut *p.as_ptr() }
    }
}

/// Static storage of a governor, to be registered with
/// [`GovernorSlot::register`].
///
/// The core links a registered governor into its list for good: there is
/// no unregistration, so the slot must be a `static` and the code built in.
/// Declare it with `static GOV: GovernorSlot<MyGov> = GovernorSlot::new();`.
///
/// # Invariants
///
/// The wrapped `cpuidle_governor` holds `T`'s name, rating and trampolines;
/// after registration only the core touches it (under its lock).  `data` is
/// written once, by the `register()` call that set `claimed`, before it
/// hands the governor to the core, and never again; so every callback
/// finds it set.
pub struct GovernorSlot<T: Governor> {
    gov: Opaque<bindings::cpuidle_governor>,
    claimed: SetOnce<()>,
    data: UnsafeCell<Option<PerCpuData<T::CpuData>>>,
}

// SAFETY: after registration the core owns the struct and serialises access
// to it; the slot offers no method that reads or writes it besides
// `register()`, which hands it to the core.  `data` is written once, by
// the one `register()` that claimed the slot, before any callback can run
// (type invariant), and only read after; the per-CPU data is `Sync`.
unsafe impl<T: Governor> Sync for GovernorSlot<T> {}

impl<T: Governor> GovernorSlot<T> {
    /// Creates the slot; fails to compile if `T::NAME` is too long or
    /// `T::CpuData` too large for a per-CPU allocation.
    // A slot is only ever a `static` made by this `const fn`: no `Default`.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        assert!(
            T::NAME.to_bytes().len() <= NAME_MAX,
            "cpuidle governor name too long"
        );
        assert!(
            core::mem::size_of::<T::CpuData>() <= PCPU_MIN_UNIT_SIZE,
            "cpuidle governor per-CPU data too large"
        );
        // SAFETY: `cpuidle_governor` is plain C data (a list head, scalars,
        // function pointers) for which all-zeroes is a valid value.
        let mut g: bindings::cpuidle_governor = unsafe { core::mem::zeroed() };
        g.name = copy_cstr(T::NAME);
        g.rating = T::RATING;
        g.select = Some(Self::select_callback);
        g.reflect = if T::HAS_REFLECT {
            Some(Self::reflect_callback)
        } else {
            None
        };
        g.enable = if T::HAS_ENABLE {
            Some(Self::enable_callback)
        } else {
            None
        };
        g.disable = if T::HAS_DISABLE {
            Some(Self::disable_callback)
        } else {
            None
        };
        Self {
            gov: Opaque::new(g),
            claimed: SetOnce::new(),
            data: UnsafeCell::new(None),
        }
    }

    /// Allocates the per-CPU data and registers the governor with the
    /// cpuidle core.  To be called once, from an initcall at postcore level
    /// or earlier (see the module docs of the governor for why), on the
    /// slot [`Governor::slot`] returns (else `EINVAL`).  Returns `EBUSY` if
    /// called again, `ENOMEM` if the per-CPU data cannot be allocated,
    /// `EEXIST` if a governor with this name exists.
    pub fn register(&'static self) -> Result {
        if !core::ptr::eq(self, T::slot()) {
            return Err(EINVAL);
        }
        if self.claimed.as_ref().is_some() {
            return Err(EBUSY);
        }
        let data = PerCpuData::new()?;
        if !self.claimed.populate(()) {
            // A losing concurrent caller's per-CPU allocation is leaked, as
            // a registered governor's is; registering is an initcall's job.
            return Err(EBUSY);
        }
        // SAFETY: this call claimed the slot, so it is the only writer of
        // `data`, ever; no callback reads it before the core has the
        // governor, which it gets below.
        unsafe { *self.data.get() = Some(data) };
        // SAFETY: the slot is `'static` and fully initialised, its per-CPU
        // data set; the core takes it over.
        to_result(unsafe { bindings::cpuidle_register_governor(self.gov.get()) })
    }

    /// The per-CPU data of `dev`'s CPU.
    ///
    /// Neither lookup is checked: these run on every idle entry and exit,
    /// and the core calls `T`'s callbacks only after `register()` set the
    /// data of `T::slot()`, the only slot it accepts, for every possible
    /// CPU, which a device's CPU is.
    ///
    /// # Safety
    ///
    /// Only called by a callback of `T` for `dev`, and the result only used
    /// during it.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    unsafe fn data_of<'a>(dev: &Device) -> &'a mut T::CpuData {
        // SAFETY: `register()` wrote `data` before it handed the governor
        // to the core, which calls the callbacks only after that and never
        // writes it again (type invariant): it is `Some`.  The core's lock,
        // taken by `cpuidle_register_governor()` and by every switch to the
        // governor, orders that write before the callbacks as it orders
        // what `enable()` writes into the per-CPU data (a plain read, then,
        // as the C governors make of their data).
        let data = unsafe { (*T::slot().data.get()).as_ref().unwrap_unchecked() };
        // SAFETY: a registered device's CPU is a possible CPU (`Device`
        // invariant); exclusive by the callback contract (see `Governor`).
        unsafe { data.get(dev.cpu()) }
    }

    /// # Safety
    ///
    /// Only called by the cpuidle core, with valid pointers to a registered
    /// driver and device (and the idle loop's `stop_tick`), from the idle
    /// loop of the device's CPU.
    unsafe extern "C" fn select_callback(
        drv: *mut bindings::cpuidle_driver,
        dev: *mut bindings::cpuidle_device,
        stop_tick: *mut bool,
    ) -> c_int {
        // SAFETY: the idle loop passes the current CPU's registered driver
        // and device.
        let (drv, dev) = unsafe { (Driver::from_raw(drv), Device::from_raw(dev)) };
        // SAFETY: `stop_tick` points to the idle loop's local variable.
        let stop = unsafe { &mut *stop_tick };
        // SAFETY: a callback of `T` for `dev`.
        let data = unsafe { Self::data_of(dev) };
        // INVARIANT: called by the idle loop of `dev`'s CPU.
        let ctx = IdleContext {
            cpu: dev.cpu(),
            _not_send: PhantomData,
        };
        let idx = T::select(&ctx, drv, dev, data, stop);
        idx.min(drv.state_count() - 1) as c_int
    }

    /// # Safety
    ///
    /// Only called by the cpuidle core, with a valid pointer to a registered
    /// device, from the idle loop of the device's CPU.
    unsafe extern "C" fn reflect_callback(dev: *mut bindings::cpuidle_device, index: c_int) {
        // SAFETY: as in `select_callback()`.
        let dev = unsafe { Device::from_raw(dev) };
        // SAFETY: a callback of `T` for `dev`.
        let data = unsafe { Self::data_of(dev) };
        // INVARIANT: called by the idle loop of `dev`'s CPU.
        let ctx = IdleContext {
            cpu: dev.cpu(),
            _not_send: PhantomData,
        };
        // `cpuidle_reflect()` calls only with the index of a state entered.
        T::reflect(&ctx, dev, data, index as usize)
    }

    /// # Safety
    ///
    /// Only called by the cpuidle core, with valid pointers to a registered
    /// driver and a device it is enabling under the cpuidle lock.
    unsafe extern "C" fn enable_callback(
        drv: *mut bindings::cpuidle_driver,
        dev: *mut bindings::cpuidle_device,
    ) -> c_int {
        // SAFETY: guaranteed by the caller.
        let (drv, dev) = unsafe { (Driver::from_raw(drv), Device::from_raw(dev)) };
        from_result(|| {
            // SAFETY: a callback of `T` for `dev`.
            let data = unsafe { Self::data_of(dev) };
            T::enable(drv, dev, data)?;
            Ok(0)
        })
    }

    /// # Safety
    ///
    /// Only called by the cpuidle core, with valid pointers to a registered
    /// driver and a device it is disabling under the cpuidle lock.
    unsafe extern "C" fn disable_callback(
        drv: *mut bindings::cpuidle_driver,
        dev: *mut bindings::cpuidle_device,
    ) {
        // SAFETY: as in `enable_callback()`.
        let (drv, dev) = unsafe { (Driver::from_raw(drv), Device::from_raw(dev)) };
        // SAFETY: a callback of `T` for `dev`.
        T::disable(drv, dev, unsafe { Self::data_of(dev) })
    }
}

#[cfg(CONFIG_RUST_CPUIDLE_KUNIT_TEST)]
#[macros::kunit_tests(rust_cpuidle)]
mod tests {
    use super::*;

    /// # Safety
    ///
    /// Never called: only its address is used.
    unsafe extern "C" fn never_entered(
        _dev: *mut bindings::cpuidle_device,
        _drv: *mut bindings::cpuidle_driver,
        index: c_int,
    ) -> c_int {
        index
    }

    fn c(name: &'static CStr, exit: u32, residency: u32) -> State {
        // SAFETY: the routine is never registered nor called.
        let f = unsafe { EnterFn::new(never_entered) };
        State::new(name, c"test state", exit, residency, Enter::C(f))
    }

    fn poll() -> State {
        State::new(c"POLL", c"poll", 0, 0, Enter::Poll)
    }

    fn check(states: &[State]) -> Result {
        validate(c"test", states)
    }

    #[test]
    fn valid_tables_pass() {
        assert!(check(&[c"WFI".into_state(1, 1)]).is_ok());
        assert!(check(&[poll(), c"C1".into_state(2, 2), c"C6".into_state(133, 600)]).is_ok());
        // Equal residencies are allowed (non-decreasing).
        assert!(check(&[c"A".into_state(1, 10), c"B".into_state(5, 10)]).is_ok());
    }

    #[test]
    fn count_out_of_range_is_einval() {
        assert_eq!(check(&[]), Err(EINVAL));
        let many = [c"S".into_state(1, 1); STATE_MAX + 1];
        assert_eq!(check(&many), Err(EINVAL));
    }

    #[test]
    fn residency_must_not_decrease() {
        let t = [c"A".into_state(1, 100), c"B".into_state(1, 99)];
        assert_eq!(check(&t), Err(EINVAL));
    }

    #[test]
    fn exit_latency_above_residency_is_einval_unless_polling() {
        assert_eq!(check(&[c"A".into_state(11, 10)]), Err(EINVAL));
        let p = State::new(c"P", c"p", 5, 1, Enter::Poll);
        assert!(check(&[p]).is_ok());
    }

    #[test]
    fn polling_only_at_index_0() {
        assert_eq!(check(&[c"A".into_state(1, 1), poll()]), Err(EINVAL));
        let flagged = c"B".into_state(1, 1).flags(Flags::POLLING);
        assert_eq!(check(&[c"A".into_state(1, 1), flagged]), Err(EINVAL));
    }

    #[test]
    fn names_unique_and_sized() {
        assert_eq!(
            check(&[c"A".into_state(1, 1), c"A".into_state(2, 2)]),
            Err(EINVAL)
        );
        assert_eq!(check(&[c"".into_state(1, 1)]), Err(EINVAL));
        assert!(check(&[c"fifteen-bytes-x".into_state(1, 1)]).is_ok());
        assert_eq!(check(&[c"sixteen-bytes-xx".into_state(1, 1)]), Err(EINVAL));
        let long_desc = State::new(c"D", c"a description of exactly 32 byte", 1, 1, Enter::Poll);
        assert_eq!(check(&[long_desc]), Err(EINVAL));
        let max_desc = State::new(c"D", c"a description of just 31 bytes.", 1, 1, Enter::Poll);
        assert!(check(&[max_desc]).is_ok());
    }

    #[test]
    fn units_and_flags() {
        assert_eq!(us_to_ns(0), 0);
        assert_eq!(us_to_ns(1000), 1_000_000);
        assert_eq!(us_to_ns(u32::MAX), i64::from(u32::MAX) * 1000);
        let s = c"X".into_state(100, 1000).power(50);
        assert_eq!(s.exit_latency_ns(), 100_000);
        assert_eq!(s.target_residency_ns(), 1_000_000);
        assert_eq!(Flags::driver(0).bits(), 1 << 16);
        assert_eq!(Flags::driver(15).bits(), 1 << 31);
        assert!((Flags::TIMER_STOP | Flags::driver(1)).contains(Flags::TIMER_STOP));
        assert_eq!(Flags::POLLING.bits(), 1);
        assert_eq!(Flags::RCU_IDLE.bits(), 1 << 6);
        assert!(tick_nsec() > 0);
    }

    trait IntoState {
        fn into_state(self, exit: u32, residency: u32) -> State;
    }

    impl IntoState for &'static CStr {
        fn into_state(self, exit: u32, residency: u32) -> State {
            c(self, exit, residency)
        }
    }
}
