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
    cpumask::{
        Cpumask,
        CpumaskVar, //
    },
    error::{
        code::*,
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
            Acquire,
            Atomic,
            Relaxed,
            Release, //
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
        validate(name, states)?;
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
/// the governor callbacks that receive a `&Device` (`select()`,
/// `reflect()`, `reset()`), which run in the idle loop of the device's CPU
/// alone (see [`Governor`]).
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
        // SAFETY: `atomic_load()` needs a valid, aligned pointer whose
        // concurrent writers are all atomic: the device is valid (type
        // invariant) and `i < STATE_MAX`, so this is a valid, aligned `u64`
        // of `states_usage`.  It is written while the device is registered
        // only by sysfs (`store_state_disable()`) and by
        // `cpuidle_driver_state_disabled()`, both with `WRITE_ONCE()`
        // (the series' "cpuidle: mark the lockless updates of the
        // per-state usage counters"); no Rust code writes it.
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
    /// time limit.  Only `select()` (and `reset()`, which runs just before
    /// it) may take the flag: called with the context of `reflect()`, this
    /// leaves it alone and returns `false`.
    #[inline]
    pub fn take_poll_time_limit(&self, ctx: &IdleContext) -> bool {
        if !ctx.select {
            return false;
        }
        let d = self.as_raw();
        // SAFETY: valid device (type invariant).  The bit shares a word
        // with `registered` and `enabled`, and the accessors read and write
        // the whole word, plainly.  That cannot race with a store: besides
        // this method, the word is written only (a) by the polling state
        // (`poll_idle()`), in the idle loop of the device's CPU, which is
        // not in a state while a governor callback runs for the device, and
        // (b) by the core's device registration, enable, disable and
        // unregistration, on any CPU, under `cpuidle_lock`.  This runs in
        // `select_callback()` (`ctx.select`, `IdleContext` invariant),
        // which the idle loop calls only with `initialized` set and the
        // device enabled (`cpuidle_not_available()`), from an RCU read-side
        // critical section (IRQs off, RCU watching) that lasts until the
        // CPU enters the state.  A store of (b) comes either before the
        // device is enabled, with the idle handler installed after it, or
        // after `cpuidle_pause_and_lock()` (or a governor switch) cleared
        // `initialized` and waited for an RCU grace period, which waits for
        // that critical section.  (`reflect()` runs after the CPU left the
        // state, outside any section such a grace period waits for: hence
        // no access from there.)  `teo.c` clears the bit the same way
        // (`dev->poll_time_limit = false`).
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
/// Only created by the governor trampolines, which the idle loop calls;
/// `select` is true only in `select_callback()`.
pub struct IdleContext {
    cpu: CpuId,
    select: bool,
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
/// possible CPU, each initialised with `Default`).  Only the idle loop of
/// that CPU touches it: `select()`, `reflect()` and `reset()` run there,
/// with IRQs off, one at a time, and get it as a `&mut`.
///
/// The core also enables the governor for a device from other CPUs (at
/// registration, on a governor switch, when a CPU's driver changes), and a
/// switch does not wait for the CPUs to leave the idle loop:
/// `cpuidle_uninstall_idle_handler()` wakes them and waits for an RCU
/// grace period, which a CPU sleeping in an idle state does not hold up, so
/// the CPU may still run `reflect()` for the state it slept in while
/// another CPU enables the governor again.  An enable therefore never
/// touches the data: it marks the CPU's data for a reset, and the CPU
/// itself calls `reset()` at its next `select()`, before `select()`.
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

    /// Starts the CPU's data afresh for `drv`: called on `dev`'s CPU, in
    /// its idle loop, before the first `select()` after the core enabled
    /// the governor for `dev` (where a C governor's `enable()` callback
    /// would reset its per-CPU data).  By default the data becomes
    /// `Default::default()`.
    fn reset(_ctx: &IdleContext, _drv: &Driver, _dev: &Device, data: &mut Self::CpuData) {
        *data = Self::CpuData::default();
    }
}

/// One CPU's [`Governor::CpuData`], and whether the CPU is to reset it.
///
/// # Invariants
///
/// `data` is only accessed by the governor trampolines that the idle loop
/// of the CPU it belongs to calls (`select_callback()`,
/// `reflect_callback()`): on that CPU, with IRQs off, never nested.
/// Other CPUs only set `reset`.
struct CpuCell<D> {
    reset: Atomic<bool>,
    data: UnsafeCell<D>,
}

impl<D: Default> Default for CpuCell<D> {
    fn default() -> Self {
        Self {
            // (a first enable sets it again)
            reset: Atomic::new(true),
            data: UnsafeCell::new(D::default()),
        }
    }
}

// SAFETY: `reset` is atomic.  `data` is accessed by one CPU's idle loop
// alone (type invariant), which need not be the CPU that allocated it or
// that drops it: `D: Send`.
unsafe impl<D: Send> Sync for CpuCell<D> {}

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
    data: UnsafeCell<Option<PerCpu<CpuCell<T::CpuData>>>>,
}

// SAFETY: after registration the core owns the struct and serialises access
// to it; the slot offers no method that reads or writes it besides
// `register()`, which hands it to the core.  `data` is written once, by
// the one `register()` that claimed the slot, before any callback can run
// (type invariant), and only read after; each CPU's cell is `Sync`.
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
            core::mem::size_of::<CpuCell<T::CpuData>>() <= percpu::MAX_SIZE,
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
        // (the core calls it for every device it enables the governor for;
        // no `disable`: nothing is to be undone)
        g.enable = Some(Self::enable_callback);
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

    /// Allocates the per-CPU data without handing the governor to the
    /// core, for the KUnit cases that drive the trampolines themselves.
    #[cfg(CONFIG_RUST_CPUIDLE_KUNIT_TEST)]
    fn claim_for_test(&'static self) -> Result {
        let data = PerCpu::new()?;
        if !core::ptr::eq(self, T::slot()) || !self.claimed.populate(()) {
            return Err(EBUSY);
        }
        // SAFETY: this call claimed the slot: the only writer of `data`.
        unsafe { *self.data.get() = Some(data) };
        Ok(())
    }

    /// The per-CPU cell of `dev`'s CPU.
    ///
    /// Neither lookup is checked: these run on every idle entry and exit,
    /// and the core calls `T`'s callbacks only after `register()` set the
    /// data of `T::slot()`, the only slot it accepts, for every possible
    /// CPU, which a device's CPU is.
    ///
    /// # Safety
    ///
    /// Only called by a trampoline of `T` for `dev`, which the core calls
    /// for a registered device.
    #[inline]
    unsafe fn cell_of(dev: &Device) -> &'static CpuCell<T::CpuData> {
        // SAFETY: `register()` wrote `data` before it handed the governor
        // to the core, which calls the callbacks only after that and never
        // writes it again (type invariant): it is `Some`, and read-only
        // from then on.  `cpuidle_register_governor()` takes the core's
        // lock after that write, and every path to a callback (the
        // switch to the governor, the device's registration) takes it
        // before, which orders the write before the read.
        let data = unsafe { (*T::slot().data.get()).as_ref().unwrap_unchecked() };
        // SAFETY: a registered device's CPU is a possible CPU (`Device`
        // invariant), for which `PerCpu` has a cell.
        unsafe { data.get(dev.cpu()).unwrap_unchecked() }
    }

    /// The data of `dev`'s CPU, reset first if an enable asked for it.
    ///
    /// # Safety
    ///
    /// Only called by `select_callback()` or `reflect_callback()` for
    /// `dev`, from the idle loop of `dev`'s CPU, and the result only used
    /// during that call.
    #[allow(clippy::mut_from_ref)]
    #[inline]
    unsafe fn data_of<'a>(cell: &'a CpuCell<T::CpuData>) -> &'a mut T::CpuData {
        // SAFETY: the idle loop of the cell's CPU is the only context that
        // accesses `data` (`CpuCell` invariant), and it does not nest these
        // calls: the reference is exclusive while the callback runs.
        unsafe { &mut *cell.data.get() }
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
        // SAFETY: a trampoline of `T` for `dev`.
        let cell = unsafe { Self::cell_of(dev) };
        // SAFETY: `select_callback()`, in the idle loop of `dev`'s CPU.
        let data = unsafe { Self::data_of(cell) };
        // INVARIANT: called by the idle loop of `dev`'s CPU, in
        // `select_callback()`.
        let ctx = IdleContext {
            cpu: dev.cpu(),
            select: true,
            _not_send: PhantomData,
        };
        // (Acquire: what the core set up before `enable_callback()` asked
        // for the reset is seen by it)
        if cell.reset.xchg(false, Acquire) {
            T::reset(&ctx, drv, dev, data);
        }
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
        // SAFETY: a trampoline of `T` for `dev`.
        let cell = unsafe { Self::cell_of(dev) };
        // SAFETY: `reflect_callback()`, in the idle loop of `dev`'s CPU.
        let data = unsafe { Self::data_of(cell) };
        // INVARIANT: called by the idle loop of `dev`'s CPU, not in
        // `select_callback()`.
        let ctx = IdleContext {
            cpu: dev.cpu(),
            select: false,
            _not_send: PhantomData,
        };
        // `cpuidle_reflect()` calls only with the index of a state entered.
        T::reflect(&ctx, dev, data, index as usize)
    }

    /// Marks the data of `dev`'s CPU for a reset at its next `select()`;
    /// touches nothing else (see [`Governor`], "Per-CPU data").
    ///
    /// # Safety
    ///
    /// Only called by the cpuidle core, with a valid pointer to a device it
    /// is enabling (`cpuidle_enable_device()`, under the cpuidle lock), on
    /// any CPU.
    unsafe extern "C" fn enable_callback(
        _drv: *mut bindings::cpuidle_driver,
        dev: *mut bindings::cpuidle_device,
    ) -> c_int {
        // SAFETY: a valid device, registered or being registered: its `cpu`
        // is set (`cpuidle_register_device()` is given it set).
        let dev = unsafe { Device::from_raw(dev) };
        // SAFETY: a trampoline of `T` for `dev`.
        let cell = unsafe { Self::cell_of(dev) };
        cell.reset.store(true, Release);
        0
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

    /// What the trampolines did to one CPU's data.
    #[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
    struct Seen {
        selects: u32,
        reflects: u32,
        resets: u32,
    }

    struct Probe;

    #[vtable]
    impl Governor for Probe {
        const NAME: &'static CStr = c"kunit-probe";
        const RATING: u32 = 0;
        type CpuData = Seen;

        fn select(_: &IdleContext, _: &Driver, _: &Device, d: &mut Seen, _: &mut bool) -> usize {
            d.selects += 1;
            0
        }

        fn reflect(_: &IdleContext, _: &Device, d: &mut Seen, _: usize) {
            d.reflects += 1;
        }

        fn reset(_: &IdleContext, _: &Driver, _: &Device, d: &mut Seen) {
            *d = Seen {
                resets: d.resets + 1,
                ..Seen::default()
            };
        }
    }

    crate::declare_cpuidle_governor!(static PROBE: Probe);

    /// A governor switch enables the governor for a CPU's device from
    /// another CPU while that CPU may be between `select()` and
    /// `reflect()`.  Played here in one thread, in that order: the enable
    /// must leave the CPU's data alone, and the CPU resets it itself at
    /// its next `select()`.
    #[test]
    fn enable_during_an_idle_period_resets_at_the_next_select() -> Result {
        PROBE.claim_for_test()?;
        let cpu = CpuId::from_u32(0).ok_or(EINVAL)?;
        let mut drv: bindings::cpuidle_driver = pin_init::zeroed();
        drv.state_count = 1;
        let mut dev: bindings::cpuidle_device = pin_init::zeroed();
        dev.cpu = cpu.as_u32();
        let (drv, dev) = (&raw mut drv, &raw mut dev);
        let mut stop = true;
        let seen = || -> Result<Seen> {
            // SAFETY: `claim_for_test()` set the data; nothing writes it
            // again.
            let data = unsafe { (*PROBE.data.get()).as_ref() }.ok_or(EINVAL)?;
            let cell = data.get(cpu).ok_or(EINVAL)?;
            // SAFETY: this test is the only user of the probe's data, and
            // no trampoline runs while the copy is made.
            Ok(unsafe { *cell.data.get() })
        };
        type G = GovernorSlot<Probe>;
        // The trampolines read only `drv`'s `state_count` and `dev`'s `cpu`,
        // set above, and `Probe` nothing of the context; this thread plays
        // both CPUs.
        // SAFETY: as just said.
        let idx = unsafe { G::select_callback(drv, dev, &mut stop) };
        assert_eq!(idx, 0);
        // SAFETY: as above.
        unsafe { G::reflect_callback(dev, 0) };
        // SAFETY: as above.
        unsafe { G::select_callback(drv, dev, &mut stop) };
        let before = seen()?;
        assert_eq!(before, Seen { selects: 2, reflects: 1, resets: 1 });
        // Another CPU enables the governor for `dev` (a switch) while `dev`'s
        // CPU sleeps in the state it selected.
        // SAFETY: as above.
        let ret = unsafe { G::enable_callback(drv, dev) };
        assert_eq!(ret, 0);
        assert_eq!(seen()?, before);
        // The CPU wakes up and reflects, into the data it had.
        // SAFETY: as above.
        unsafe { G::reflect_callback(dev, 0) };
        assert_eq!(seen()?, Seen { reflects: 2, ..before });
        // Its next select() starts afresh, on the CPU itself.
        // SAFETY: as above.
        unsafe { G::select_callback(drv, dev, &mut stop) };
        assert_eq!(seen()?, Seen { selects: 1, reflects: 0, resets: 2 });
        Ok(())
    }

    fn one_cpu_mask(cpu: CpuId) -> Result<CpumaskVar> {
        let mut m = CpumaskVar::new_zero(GFP_KERNEL)?;
        m.set(cpu);
        Ok(m)
    }

    fn polling_driver(name: &'static CStr, cpu: CpuId) -> Result<Registration> {
        let opts = Options {
            cpumask: Some(one_cpu_mask(cpu)?),
            ..Options::default()
        };
        Registration::new(name, &[poll()], opts)
    }

    /// `state_stats()` reads the devices of its own driver only: with
    /// several drivers (one per CPU), another CPU's device is another
    /// driver's.
    #[test]
    fn state_stats_reads_only_its_own_drivers_devices() -> Result {
        let Some(cpu0) = CpuId::from_u32(0) else {
            return Err(EINVAL);
        };
        // (a driver registered at boot holds the CPUs: nothing to try)
        let Ok(a) = polling_driver(c"kunit-a", cpu0) else {
            return Ok(());
        };
        assert!(a.state_stats(cpu0, 0).is_some());
        assert_eq!(a.state_stats(cpu0, 1), None);
        let cpu1 = CpuId::from_u32(1).filter(|_| crate::cpu::nr_cpu_ids() > 1);
        if let Some(cpu1) = cpu1 {
            assert_eq!(a.state_stats(cpu1, 0), None);
            if cfg!(CONFIG_CPU_IDLE_MULTIPLE_DRIVERS) {
                let b = polling_driver(c"kunit-b", cpu1)?;
                assert!(b.state_stats(cpu1, 0).is_some());
                assert_eq!(a.state_stats(cpu1, 0), None);
                assert_eq!(b.state_stats(cpu0, 0), None);
            }
        }
        Ok(())
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
