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
//! (`ct_cpuidle_enter()`) or, with [`Flag::RcuIdle`], the routine does it
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
    cpuhp,
    cpumask::Cpumask,
    error::{
        code::*,
        from_result,
        to_result,
        Result, //
    },
    ffi::{
        c_char,
        c_int,
        c_long,
        c_uint,
        c_void, //
    },
    impl_flags,
    percpu::{
        self,
        PerCpu, //
    },
    prelude::*,
    str::CStr,
    sync::{
        atomic::{
            atomic_load,
            Relaxed, //
        },
        SetOnce,
    },
    types::Opaque,
};
use core::{
    cell::UnsafeCell,
    marker::PhantomData,
    ptr::null_mut, //
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

impl_flags!(
    /// Flags of an idle state: the core's `CPUIDLE_FLAG_*` bits.
    ///
    /// Drivers keep their own bits apart, in [`State::driver_flags`].
    /// [`Flag::RcuIdle`] is not theirs to set: it comes with the entry
    /// routine ([`EnterFn::new_rcu_idle`]), and [`validate`] refuses a
    /// state whose flags say otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// use kernel::cpuidle::{Flag, Flags};
    ///
    /// let f = Flag::TimerStop | Flag::Polling;
    /// assert!(f.contains(Flag::TimerStop) && !f.contains(Flag::Off));
    /// assert_eq!(u32::from(Flags::from(Flag::TimerStop)), 1 << 2);
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
    pub struct Flags(u32);

    /// One flag of an idle state.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Flag {
        /// The state polls instead of halting.
        Polling = bindings::CPUIDLE_FLAG_POLLING,
        /// The local timer stops in this state.
        TimerStop = bindings::CPUIDLE_FLAG_TIMER_STOP,
        /// Avoid using this state.
        Unusable = bindings::CPUIDLE_FLAG_UNUSABLE,
        /// Disabled by default (can be enabled through sysfs).
        Off = bindings::CPUIDLE_FLAG_OFF,
        /// Entering the state flushes the TLB.
        TlbFlushed = bindings::CPUIDLE_FLAG_TLB_FLUSHED,
        /// The enter routine stops and restarts RCU itself.
        RcuIdle = bindings::CPUIDLE_FLAG_RCU_IDLE,
    }
);

/// Where [`State::driver_flags`] sit in `cpuidle_state::flags`: the high
/// half, which the core leaves to drivers.
pub const DRIVER_FLAGS_SHIFT: u32 = 16;

// The driver half must not overlap a flag of the core.
const _: () = assert!(Flags::all_bits() >> DRIVER_FLAGS_SHIFT == 0);

impl Flags {
    /// The core's flags of a raw `cpuidle_state::flags` word, without the
    /// driver's half.
    const fn from_raw(raw: u32) -> Self {
        Self(raw & Self::all_bits())
    }

    /// Splits a raw `CPUIDLE_FLAG_*` word, as the idle-state tables shared
    /// with C or host tools state it, into the core's flags and the
    /// driver's half ([`State::driver_flags`]).  Returns `EINVAL` if it has
    /// a bit that is neither a [`Flag`] nor the driver's.
    pub fn split_raw(raw: u32) -> Result<(Self, u16)> {
        let core = raw & ((1 << DRIVER_FLAGS_SHIFT) - 1);
        if core & !Self::all_bits() != 0 {
            return Err(EINVAL);
        }
        Ok((Self(core), (raw >> DRIVER_FLAGS_SHIFT) as u16))
    }

    const fn or(self, other: Flag) -> Self {
        Self(self.0 | other as u32)
    }
}

/// The C type of an idle state's enter routine.
pub type RawEnterFn = unsafe extern "C" fn(
    *mut bindings::cpuidle_device,
    *mut bindings::cpuidle_driver,
    c_int,
) -> c_int;

// `RawEnterFn` is the type of `cpuidle_state::enter`, so that a C routine
// declared with it (and checked against it, see `EnterFn::new`) is called
// by the core with the signature it was compiled for.
const _: fn(bindings::cpuidle_state) -> Option<RawEnterFn> = |s| s.enter;

/// A C idle-state entry routine, and whether it manages RCU itself.
///
/// # Invariants
///
/// `f` is a `__cpuidle` (or `noinstr`) C function that follows the rules of
/// `cpuidle_state::enter`: called with IRQs disabled, returns with IRQs
/// disabled, returns the index of the state entered or a negative error.
/// It stops and restarts RCU itself (`ct_cpuidle_enter()`/`_exit()`) if and
/// only if `rcu_idle`; [`Registration::new`] sets [`Flag::RcuIdle`] on
/// exactly the states entered through such a routine.
#[derive(Clone, Copy)]
pub struct EnterFn {
    f: RawEnterFn,
    rcu_idle: bool,
}

impl EnterFn {
    /// Wraps a C entry routine that leaves RCU to the core.
    ///
    /// Declare the routine in an `unsafe extern "C"` block and check the
    /// declaration against the core's type where it is declared:
    /// `const _: RawEnterFn = my_enter;`.
    ///
    /// # Safety
    ///
    /// `f` satisfies the invariants of [`EnterFn`] with `rcu_idle` false:
    /// it does not touch RCU's idle state.
    pub const unsafe fn new(f: RawEnterFn) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self { f, rcu_idle: false }
    }

    /// Wraps a C entry routine that stops and restarts RCU itself (the
    /// state gets [`Flag::RcuIdle`]).
    ///
    /// # Safety
    ///
    /// `f` satisfies the invariants of [`EnterFn`] with `rcu_idle` true:
    /// it calls `ct_cpuidle_enter()` before and `ct_cpuidle_exit()` after
    /// the part of its work that RCU must not watch.
    pub const unsafe fn new_rcu_idle(f: RawEnterFn) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self { f, rcu_idle: true }
    }
}

/// How the core enters an idle state.
#[derive(Clone, Copy)]
pub enum Enter {
    /// The core's polling loop (`cpuidle_poll_state_init()`): index 0 only,
    /// implies [`Flag::Polling`].  Only where the architecture has
    /// `ARCH_HAS_CPU_RELAX`; elsewhere [`Registration::new`] fails with
    /// `EINVAL`.
    Poll,
    /// A C `__cpuidle` routine.
    C(EnterFn),
}

impl Enter {
    /// Whether the routine manages RCU itself.
    const fn rcu_idle(&self) -> bool {
        match self {
            Enter::Poll => false,
            Enter::C(f) => f.rcu_idle,
        }
    }
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
    /// The core's flags.  [`Flag::RcuIdle`] must agree with the entry
    /// routine ([`validate`] refuses the state otherwise).
    pub flags: Flags,
    /// The driver's own flags, the high half of `cpuidle_state::flags`
    /// (bit `n` is bit `DRIVER_FLAGS_SHIFT + n` there), for its entry
    /// routine to read.
    pub driver_flags: u16,
    /// Entry routine.
    pub enter: Enter,
}

impl State {
    /// A state with the given name and description (shown in sysfs, at
    /// most [`NAME_MAX`] and [`DESC_MAX`] bytes: [`validate`] refuses
    /// longer ones), latency, residency and entry routine, unknown power,
    /// no driver flags, and the flags the entry routine implies:
    /// [`Flag::Polling`] for [`Enter::Poll`], [`Flag::RcuIdle`] for a
    /// routine made with [`EnterFn::new_rcu_idle`].
    pub const fn new(
        name: &CStr,
        desc: &CStr,
        exit_latency_us: u32,
        target_residency_us: u32,
        enter: Enter,
    ) -> Self {
        let flags = match enter {
            Enter::Poll => Flags::empty().or(Flag::Polling),
            Enter::C(f) if f.rcu_idle => Flags::empty().or(Flag::RcuIdle),
            Enter::C(_) => Flags::empty(),
        };
        Self {
            name: FixedStr::new(name),
            desc: FixedStr::new(desc),
            exit_latency_us,
            target_residency_us,
            power_mw: -1,
            flags,
            driver_flags: 0,
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
    pub fn flags(mut self, flags: impl Into<Flags>) -> Self {
        self.flags |= flags.into();
        self
    }

    /// Sets the driver's own flags ([`State::driver_flags`]).
    pub const fn driver_flags(mut self, bits: u16) -> Self {
        self.driver_flags = bits;
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
        self.flags.contains(Flag::Polling)
    }

    /// The raw `cpuidle_state::flags` word.
    fn raw_flags(&self) -> u32 {
        u32::from(self.flags) | (u32::from(self.driver_flags) << DRIVER_FLAGS_SHIFT)
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
/// a name; a polling state is not at index 0; [`Flag::RcuIdle`] is set on
/// a state whose entry routine leaves RCU to the core or missing from one
/// whose routine manages it; a non-polling state's exit latency exceeds
/// its target residency; target residencies decrease.
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
        if s.flags.contains(Flag::RcuIdle) != s.enter.rcu_idle() {
            pr_err!("cpuidle: {driver}: state {i} ({name}): RCU_IDLE disagrees with its entry\n");
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
        let mut raw: bindings::cpuidle_driver = pin_init::zeroed();
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
                Enter::C(EnterFn { f, .. }) => Some(f),
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
            // `validate()` checked `RcuIdle` against the routine.
            st.flags = s.raw_flags();
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
        // registered while `self` lives, and `i < STATE_MAX`: both fields
        // are valid, aligned `u64`s.  Their CPU updates them in the idle
        // loop without a lock; this reads each with one atomic load
        // (`READ_ONCE()`), where the C sysfs code reads them plainly.  The
        // C writer's plain stores make a data race only as the C readers'
        // do; on the Rust side there is no non-atomic access to race with.
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
        let dead = cpuhp::Registration::new(cpuhp::State::CpuidleDead, dead_name, false)?;
        Ok(Self {
            _dead: dead,
            _online: online,
        })
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
            flags: Flags::from_raw(s.flags),
        }
    }
}

/// A governor's view of one CPU's cpuidle device.
///
/// Only shared references are handed out: while a governor callback runs,
/// other CPUs may write some fields of the device (sysfs writes
/// `states_usage[i].disable` and `poll_limit_ns` without a lock the idle
/// loop takes).  The accessors therefore go through raw pointers and read
/// such fields with `atomic_load()` (`READ_ONCE()`), where the C governors
/// read them with `READ_ONCE()` or plain loads; no reference to the C
/// structure is made.
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
        // SAFETY: the device is valid (type invariant) and `i < STATE_MAX`:
        // a valid, aligned `u64`.  sysfs sets and clears its bits from other
        // CPUs: read it once, atomically (`READ_ONCE()`), as `teo.c` reads
        // it (plainly) once per state; no Rust code writes it.
        unsafe { atomic_load(&raw mut (*self.as_raw()).states_usage[i].disable, Relaxed) }
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
        // SAFETY: valid device (type invariant).  The bit shares a word
        // with `registered` and `enabled`, and the accessors read and write
        // the whole word, plainly.  That cannot race with a store: besides
        // this method, the word is written only (a) by the polling state
        // (`poll_idle()`), in the idle loop of the device's CPU, which is
        // not in a state while a governor callback runs for the device, and
        // (b) by the core's device enable, disable and (un)registration,
        // under `cpuidle_lock` with the device out of the idle loop (idle
        // paused, or the device not installed); those call the `enable` and
        // `disable` callbacks themselves, before or after their own store.
        // This method is only reachable from the callbacks for this device
        // (a `&Device` does not outlive one), which the core calls one at a
        // time (see `Governor`).  Other CPUs only read the word.  `teo.c`
        // clears the bit the same way (`dev->poll_time_limit = false`).
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
pub trait Governor: Sized + 'static {
    /// The governor's name (at most [`NAME_MAX`] bytes, checked at compile
    /// time).
    const NAME: &'static CStr;
    /// Rating: the core picks the highest-rated governor by default.
    const RATING: u32;
    /// What the governor keeps for each CPU (at most 32 KiB, checked at
    /// compile time).  It is never dropped: a governor stays registered.
    type CpuData: Default + Send;

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

/// Ties a governor to its one [`GovernorSlot`].
///
/// Implemented by [`declare_cpuidle_governor!`], which declares the slot as
/// a `static`; not meant to be implemented by hand.
///
/// [`declare_cpuidle_governor!`]: crate::declare_cpuidle_governor
///
/// # Safety
///
/// [`GovernorStatic::slot`] returns a reference to the same `static` on
/// every call: the callbacks of the governor find their per-CPU data
/// through it, trusting that it is the slot that was registered.
pub unsafe trait GovernorStatic: Governor {
    /// The governor's slot.
    fn slot() -> &'static GovernorSlot<Self>;
}

/// Declares the static [`GovernorSlot`] of a governor, to be registered
/// with [`GovernorSlot::register`] (typically from a module's `init`).
///
/// # Examples
///
/// ```ignore
/// kernel::declare_cpuidle_governor!(static GOVERNOR: MyGov);
/// ```
#[macro_export]
macro_rules! declare_cpuidle_governor {
    ($vis:vis static $name:ident: $gov:ty) => {
        $vis static $name: $crate::cpuidle::GovernorSlot<$gov> =
            $crate::cpuidle::GovernorSlot::new();

        // SAFETY: `slot()` returns the static declared just above, the same
        // one on every call.
        unsafe impl $crate::cpuidle::GovernorStatic for $gov {
            fn slot() -> &'static $crate::cpuidle::GovernorSlot<Self> {
                &$name
            }
        }
    };
}

/// Static storage of a governor, to be registered with
/// [`GovernorSlot::register`].
///
/// The core links a registered governor into its list for good: there is
/// no unregistration, so the slot must be a `static` and the code built in.
/// Declare it with [`declare_cpuidle_governor!`](crate::declare_cpuidle_governor).
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
    data: UnsafeCell<Option<PerCpu<T::CpuData>>>,
}

// SAFETY: after registration the core owns the struct and serialises access
// to it; the slot offers no method that reads or writes it besides
// `register()`, which hands it to the core.  `data` is written once, by
// the one `register()` that claimed the slot, before any callback can run
// (type invariant), and only read after.  Each CPU's part of the per-CPU
// data goes, exclusively, to the callbacks for that CPU's device alone
// (see `Governor`), which may run on another CPU than the one that set it
// up: `T::CpuData: Send`.
unsafe impl<T: Governor> Sync for GovernorSlot<T> {}

impl<T: GovernorStatic> GovernorSlot<T> {
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
            core::mem::size_of::<T::CpuData>() <= percpu::MAX_SIZE,
            "cpuidle governor per-CPU data too large"
        );
        let mut g: bindings::cpuidle_governor = pin_init::zeroed();
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
    /// cpuidle core.  To be called once, typically from the governor's
    /// module `init` (a governor registered after the drivers still takes
    /// over if `cpuidle.governor=` names it), on the slot
    /// [`GovernorStatic::slot`] returns (else `EINVAL`).  Returns `EBUSY` if
    /// called again, `ENOMEM` if the per-CPU data cannot be allocated,
    /// `EEXIST` if a governor with this name exists.
    pub fn register(&'static self) -> Result {
        if !core::ptr::eq(self, T::slot()) {
            return Err(EINVAL);
        }
        if self.claimed.as_ref().is_some() {
            return Err(EBUSY);
        }
        let data = PerCpu::new()?;
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
        unsafe { data.get_mut(dev.cpu()) }
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
        let flagged = c"B".into_state(1, 1).flags(Flag::Polling);
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
    fn units_and_flags() -> Result {
        assert_eq!(us_to_ns(0), 0);
        assert_eq!(us_to_ns(1000), 1_000_000);
        assert_eq!(us_to_ns(u32::MAX), i64::from(u32::MAX) * 1000);
        let s = c"X".into_state(100, 1000).power(50);
        assert_eq!(s.exit_latency_ns(), 100_000);
        assert_eq!(s.target_residency_ns(), 1_000_000);
        let (core, driver) = Flags::split_raw((1 << 16) | (1 << 31) | (1 << 2))?;
        assert_eq!((core, driver), (Flags::from(Flag::TimerStop), 0x8001));
        assert_eq!(Flags::split_raw(1 << 15), Err(EINVAL));
        assert_eq!(Flags::split_raw(1 << 1), Err(EINVAL));
        assert_eq!(u32::from(Flags::from(Flag::Polling)), 1);
        assert_eq!(u32::from(Flags::from(Flag::RcuIdle)), 1 << 6);
        assert_eq!(s.driver_flags(0xa5).raw_flags(), 0xa5 << 16);
        assert!(tick_nsec() > 0);
        Ok(())
    }

    #[test]
    fn rcu_idle_follows_the_entry_routine() {
        // SAFETY: the routine is never registered nor called.
        let rcu = unsafe { EnterFn::new_rcu_idle(never_entered) };
        let own = State::new(c"R", c"rcu", 1, 1, Enter::C(rcu));
        assert!(own.flags.contains(Flag::RcuIdle));
        assert!(check(&[own]).is_ok());
        // Safe code may set or clear the flag; the table is then refused.
        let claimed = c"A".into_state(1, 1).flags(Flag::RcuIdle);
        assert_eq!(check(&[claimed]), Err(EINVAL));
        let mut dropped = own;
        dropped.flags = Flags::empty();
        assert_eq!(check(&[dropped]), Err(EINVAL));
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
