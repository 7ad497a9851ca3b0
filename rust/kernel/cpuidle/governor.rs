// SPDX-License-Identifier: GPL-2.0

//! cpuidle governors: the callbacks, their per-CPU data, the views they get.

use super::*;
use crate::{
    bindings,
    cpu::CpuId,
    error::{
        to_result,
        Result, //
    },
    ffi::c_int,
    percpu::{
        self,
        PerCpu, //
    },
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
    marker::PhantomData, //
};
use macros::vtable;

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
#[macros::kunit_tests(rust_cpuidle_governor)]
mod tests {
    use super::*;

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
        assert_eq!(
            before,
            Seen {
                selects: 2,
                reflects: 1,
                resets: 1
            }
        );
        // Another CPU enables the governor for `dev` (a switch) while `dev`'s
        // CPU sleeps in the state it selected.
        // SAFETY: as above.
        let ret = unsafe { G::enable_callback(drv, dev) };
        assert_eq!(ret, 0);
        assert_eq!(seen()?, before);
        // The CPU wakes up and reflects, into the data it had.
        // SAFETY: as above.
        unsafe { G::reflect_callback(dev, 0) };
        assert_eq!(
            seen()?,
            Seen {
                reflects: 2,
                ..before
            }
        );
        // Its next select() starts afresh, on the CPU itself.
        // SAFETY: as above.
        unsafe { G::select_callback(drv, dev, &mut stop) };
        assert_eq!(
            seen()?,
            Seen {
                selects: 1,
                reflects: 0,
                resets: 2
            }
        );
        Ok(())
    }
}
