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
    error::{
        code::*,
        Result, //
    },
    ffi::{
        c_char,
        c_int, //
    },
    impl_flags,
    prelude::*,
    str::CStr,
};

mod driver;
mod governor;

pub use self::driver::{
    Hotplug,
    HotplugRegistration,
    Options,
    PauseGuard,
    Registration,
    StateStats, //
};
pub use self::governor::{
    tick_nsec,
    Device,
    Driver,
    Governor,
    GovernorSlot,
    GovernorStatic,
    IdleContext,
    SleepLength,
    StateInfo, //
};

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

/// Declares a driver's C idle-state entry routines, each with the core's
/// type ([`RawEnterFn`], checked at build time), for [`EnterFn`].
///
/// The routines are the driver's `__cpuidle` C code (see the module
/// documentation); Rust never calls them, it hands their addresses to the
/// core.  The `improper_ctypes` lint is allowed on these declarations alone:
/// from `*mut cpuidle_driver` it follows pointers through the bindgen
/// structures down to some that have no fields in some configurations
/// (`lockdep_map` without `CONFIG_LOCKDEP`, `sched_statistics` without
/// `CONFIG_SCHEDSTATS`) and calls them not FFI-safe; only the pointers
/// cross.  (The bindings crate allows the lint for the same reason.)
///
/// # Examples
///
/// ```ignore
/// kernel::cpuidle_enter_fns! {
///     fn my_enter_wfi;
///     #[cfg(CONFIG_MY_DEEP_STATE)]
///     fn my_enter_deep;
/// }
/// ```
#[macro_export]
macro_rules! cpuidle_enter_fns {
    ($($(#[$attr:meta])* fn $name:ident;)+) => {
        unsafe extern "C" {
            $(
                $(#[$attr])*
                #[allow(improper_ctypes)]
                fn $name(
                    dev: *mut $crate::bindings::cpuidle_device,
                    drv: *mut $crate::bindings::cpuidle_driver,
                    index: $crate::ffi::c_int,
                ) -> $crate::ffi::c_int;
            )+
        }
        $(
            $(#[$attr])*
            const _: $crate::cpuidle::RawEnterFn = $name;
        )+
    };
}

/// A C idle-state entry routine, and whether it manages RCU itself.
///
/// # Invariants
///
/// `f` is a `__cpuidle` (or `noinstr`) C function that follows the rules of
/// `cpuidle_state::enter`: called with IRQs disabled, returns with IRQs
/// disabled, returns the index of the state entered or a negative error.
/// It stops and restarts RCU itself (`ct_cpuidle_enter()`/`_exit()`) if and
/// only if `rcu_idle`; [`Registration::new`] sets [`Flag::RcuIdle`] on
/// exactly the states entered through such a routine.  If `s2idle`, it
/// also follows the rules of `cpuidle_state::enter_s2idle`: it never
/// enables IRQs, not even for a while, and leaves the clock event devices
/// alone.
#[derive(Clone, Copy)]
pub struct EnterFn {
    f: RawEnterFn,
    rcu_idle: bool,
    s2idle: bool,
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
        Self {
            f,
            rcu_idle: false,
            s2idle: false,
        }
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
        Self {
            f,
            rcu_idle: true,
            s2idle: false,
        }
    }

    /// Makes the routine the state's suspend-to-idle entry too
    /// (`enter_s2idle`), as `dt_idle_states.c` does for every DT state.
    ///
    /// # Safety
    ///
    /// The routine also satisfies the rules of `enter_s2idle` (see
    /// [`EnterFn`]): it never enables IRQs and does not touch the clock
    /// event devices.
    pub const unsafe fn also_s2idle(self) -> Self {
        // INVARIANT: guaranteed by the caller.
        Self {
            s2idle: true,
            ..self
        }
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

/// What [`validate`] accepts but reports: rules the C core does not
/// enforce and that the firmware tables of shipping systems break (their
/// device trees give exit latencies above the target residency, or the same
/// state twice).  Bit `i` of each field stands for state `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Warnings {
    /// A non-polling state's exit latency exceeds its target residency.
    pub exit_latency_above_residency: u16,
    /// The state has the name of an earlier state.
    pub duplicate_name: u16,
    /// The state's target residency is below that of the state before it.
    pub residency_decreases: u16,
}

// One bit per state.
const _: () = assert!(STATE_MAX <= u16::BITS as usize);

impl Warnings {
    /// Whether there is nothing to report.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Logs one warning per finding, naming `driver` and the state.
    pub fn report(&self, driver: &CStr, states: &[State]) {
        for (i, s) in states.iter().enumerate() {
            let name = s.name();
            let bit = 1u16 << i;
            if self.exit_latency_above_residency & bit != 0 {
                pr_warn!(
                    "cpuidle: {driver}: state {i} ({name}): exit latency {} > target residency {} us\n",
                    s.exit_latency_us,
                    s.target_residency_us
                );
            }
            if self.duplicate_name & bit != 0 {
                pr_warn!("cpuidle: {driver}: state {i} ({name}): name of an earlier state\n");
            }
            if self.residency_decreases & bit != 0 {
                pr_warn!(
                    "cpuidle: {driver}: state {i} ({name}): target residency {} us below the previous state's\n",
                    s.target_residency_us
                );
            }
        }
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
/// assert!(validate(c"example", &[poll]).is_ok_and(|w| w.is_empty()));
/// // A polling state anywhere but at index 0 is refused.
/// assert_eq!(validate(c"example", &[poll, poll]), Err(EINVAL));
/// assert_eq!(validate(c"example", &[]), Err(EINVAL));
/// ```
///
/// Returns `EINVAL` and logs which state broke which rule where registering
/// the table would break the core or a governor: there are no states or
/// more than [`STATE_MAX`]; a name is empty or longer than [`NAME_MAX`] or a
/// description longer than [`DESC_MAX`] (they would be cut); a polling state
/// is not at index 0; [`Flag::RcuIdle`] is set on a state whose entry
/// routine leaves RCU to the core or missing from one whose routine manages
/// it.  What the C core registers without a check comes back as
/// [`Warnings`], unlogged: [`Registration::new`] logs them.
pub fn validate(driver: &CStr, states: &[State]) -> Result<Warnings> {
    let n = states.len();
    if n == 0 || n > STATE_MAX {
        pr_err!("cpuidle: {driver}: {n} states, must be 1..={STATE_MAX}\n");
        return Err(EINVAL);
    }
    let mut w = Warnings::default();
    for (i, s) in states.iter().enumerate() {
        let name = s.name();
        let bit = 1u16 << i;
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
        if states[..i].iter().any(|p| p.name() == name) {
            w.duplicate_name |= bit;
        }
        if !s.polling() && s.exit_latency_us > s.target_residency_us {
            w.exit_latency_above_residency |= bit;
        }
        if i > 0 && s.target_residency_us < states[i - 1].target_residency_us {
            w.residency_decreases |= bit;
        }
    }
    Ok(w)
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

#[cfg(CONFIG_RUST_CPUIDLE_KUNIT_TEST)]
#[macros::kunit_tests(rust_cpuidle)]
mod tests {
    use super::*;
    use crate::{
        cpu::CpuId,
        cpumask::CpumaskVar, //
    };

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
        validate(c"test", states).map(|_| ())
    }

    fn warnings(states: &[State]) -> Result<Warnings> {
        validate(c"test", states)
    }

    #[test]
    fn valid_tables_pass_without_warnings() -> Result {
        assert!(warnings(&[c"WFI".into_state(1, 1)])?.is_empty());
        let t = [poll(), c"C1".into_state(2, 2), c"C6".into_state(133, 600)];
        assert!(warnings(&t)?.is_empty());
        // Equal residencies are not decreasing.
        assert!(warnings(&[c"A".into_state(1, 10), c"B".into_state(5, 10)])?.is_empty());
        Ok(())
    }

    #[test]
    fn count_out_of_range_is_einval() {
        assert_eq!(check(&[]), Err(EINVAL));
        let many = [c"S".into_state(1, 1); STATE_MAX + 1];
        assert_eq!(check(&many), Err(EINVAL));
    }

    #[test]
    fn decreasing_residency_is_registered_with_a_warning() -> Result {
        let t = [c"A".into_state(1, 100), c"B".into_state(1, 99)];
        assert_eq!(warnings(&t)?.residency_decreases, 0b10);
        Ok(())
    }

    /// HiKey960 (hi3660.dtsi): the big cluster's `cluster-sleep-1` has an
    /// exit latency (entry + exit) of 800 + 2900 us against a residency of
    /// 3500 us; the C core registers it.
    #[test]
    fn exit_latency_above_residency_is_registered_with_a_warning() -> Result {
        let hikey960 = [
            c"WFI".into_state(1, 1),
            c"cpu-sleep-1".into_state(400 + 550, 1500),
            c"cluster-sleep-1".into_state(800 + 2900, 3500),
        ];
        let w = warnings(&hikey960)?;
        assert_eq!(w.exit_latency_above_residency, 0b100);
        assert_eq!((w.duplicate_name, w.residency_decreases), (0, 0));
        let p = State::new(c"P", c"p", 5, 1, Enter::Poll);
        assert!(warnings(&[p])?.is_empty());
        Ok(())
    }

    /// sdm630.dtsi's `cluster-sleep-1-0`, `-1-1` and `-1-2` share their
    /// first 15 bytes; the C core registers the table.
    #[test]
    fn duplicate_names_are_registered_with_a_warning() -> Result {
        let sdm630 = [
            c"WFI".into_state(1, 1),
            c"cpu-sleep-1-0".into_state(154 + 87, 200),
            c"cluster-sleep-1".into_state(272 + 329, 9987),
            c"cluster-sleep-1".into_state(332 + 368, 9987),
            c"cluster-sleep-1".into_state(545 + 1609, 9987),
        ];
        assert_eq!(warnings(&sdm630)?.duplicate_name, 0b11000);
        Ok(())
    }

    /// mt8516.dtsi lists `cluster-sleep-0` twice and then `cpu-sleep-0-0`
    /// three times (residency 2000, then 1200 us); the C core registers
    /// the table.
    #[test]
    fn a_state_listed_twice_is_registered_with_a_warning() -> Result {
        let cluster = c"cluster-sleep-0".into_state(800 + 1000, 2000);
        let cpu = c"cpu-sleep-0-0".into_state(600 + 600, 1200);
        let mt8516 = [c"WFI".into_state(1, 1), cluster, cluster, cpu, cpu, cpu];
        let w = warnings(&mt8516)?;
        assert_eq!(w.duplicate_name, 0b110100);
        assert_eq!(w.residency_decreases, 0b1000);
        assert_eq!(w.exit_latency_above_residency, 0);
        Ok(())
    }

    #[test]
    fn polling_only_at_index_0() {
        assert_eq!(check(&[c"A".into_state(1, 1), poll()]), Err(EINVAL));
        let flagged = c"B".into_state(1, 1).flags(Flag::Polling);
        assert_eq!(check(&[c"A".into_state(1, 1), flagged]), Err(EINVAL));
    }

    #[test]
    fn names_sized() {
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
