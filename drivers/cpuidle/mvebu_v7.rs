// SPDX-License-Identifier: GPL-2.0

//! cpuidle driver for the Marvell Armada 370, 38x and XP SoCs (mvebu v7).
//!
//! A Rust counterpart of `cpuidle-mvebu-v7.c`, with the Armada XP thresholds
//! of 2015 ("cpuidle: mvebu: Update cpuidle thresholds for Armada XP SOCs").
//! The arch code (`arch/arm/mach-mvebu/pmsu.c`) registers one platform device
//! named after the SoC, `cpuidle-armada-xp`, `-370` or `-38x`, whose platform
//! data is the SoC suspend routine, `int (*)(unsigned long deepidle)`.  The
//! driver binds to it by name, registers the SoC's states (from
//! `cpuidle_tables.rs`, shared with the emulated-state test driver) and
//! enters the power-down states through that routine in small `__cpuidle`
//! C functions (`mvebu_v7_enter.c`), one for CPU power down and one for
//! the deep states, which power down the L2 fabric too.
//!
//! Unlike the C driver, it can be unbound and unloaded: the cpuidle driver
//! is unregistered first, then the suspend routine released.  Upstream arch
//! code keeps Armada 38x idle disabled as broken (it never registers the
//! `cpuidle-armada-38x` device); the table is here for when it does.

use kernel::{
    bindings,
    cpuidle::{
        self,
        Enter,
        EnterFn,
        Flag,
        Flags,
        Options,
        Registration,
        State, //
    },
    device::Core,
    error::to_result,
    ffi::{
        c_int,
        c_void, //
    },
    platform,
    prelude::*, //
};

#[path = "cpuidle_tables.rs"]
pub mod cpuidle_tables;

use cpuidle_tables::{
    Spec,
    FLAG_MVEBU_DEEP_IDLE,
    FLAG_RCU_IDLE,
    MVEBU_370,
    MVEBU_38X,
    MVEBU_XP, //
};

/// The driver flag ([`State::driver_flags`]) of the states that power down
/// the L2 fabric too, `MVEBU_V7_FLAG_DEEP_IDLE` (0x10000) of the C driver:
/// its bit in the raw flag words of the tables, moved to the driver half.
/// It picks the state's entry routine here; the C side shares no flag value.
pub const DEEP_IDLE: u16 = (FLAG_MVEBU_DEEP_IDLE >> cpuidle::DRIVER_FLAGS_SHIFT) as u16;

// The tables restate the flag bits for their host builds: tie them to the
// bindings.  The deep-idle bit is one bit of the driver half.
const _: () = {
    assert!(FLAG_RCU_IDLE == Flag::RcuIdle as u32);
    assert!(DEEP_IDLE.is_power_of_two());
    assert!(FLAG_MVEBU_DEEP_IDLE == (DEEP_IDLE as u32) << cpuidle::DRIVER_FLAGS_SHIFT);
};

// The C half of this module (mvebu_v7_enter.c, prototypes in mvebu_v7.h);
// the entry routines are checked against the core's type on both sides
// (`cpuidle_enter_fns!` here, a static_assert in the C file).
unsafe extern "C" {
    fn mvebu_v7_rs_claim_suspend(platform_data: *mut c_void) -> c_int;
    fn mvebu_v7_rs_release_suspend();
}

kernel::cpuidle_enter_fns! {
    fn mvebu_v7_rs_enter_wfi;
    fn mvebu_v7_rs_enter_idle;
    fn mvebu_v7_rs_enter_deep_idle;
}

/// One SoC: the cpuidle driver name the C driver uses and its states.
pub struct Soc {
    /// cpuidle driver name (`/sys/devices/system/cpu/cpuidle/current_driver`).
    pub driver_name: &'static CStr,
    /// The states, WFI first.
    pub table: &'static [Spec],
}

/// Armada XP.
pub const ARMADA_XP: Soc = Soc {
    driver_name: c"armada_xp_idle",
    table: MVEBU_XP,
};
/// Armada 370.
pub const ARMADA_370: Soc = Soc {
    driver_name: c"armada_370_idle",
    table: MVEBU_370,
};
/// Armada 38x.
pub const ARMADA_38X: Soc = Soc {
    driver_name: c"armada_38x_idle",
    table: MVEBU_38X,
};

kernel::platform_device_table!(
    MVEBU_V7_IDS,
    <MvebuV7Driver as platform::Driver>::IdInfo,
    [
        (platform::DeviceId::new(c"cpuidle-armada-xp"), ARMADA_XP),
        (platform::DeviceId::new(c"cpuidle-armada-370"), ARMADA_370),
        (platform::DeviceId::new(c"cpuidle-armada-38x"), ARMADA_38X),
    ]
);

/// The cpuidle states of `soc`: state 0 is WFI, every other state powers the
/// CPU down through the suspend routine, the [`DEEP_IDLE`] ones with the L2
/// fabric.  The power-down routines stop RCU around the suspend routine
/// themselves ([`Flag::RcuIdle`]).
///
/// Returns `EINVAL`, and logs why, if the table has a flag bit that is
/// neither the core's nor [`DEEP_IDLE`], a deep WFI state, or says
/// `RCU_IDLE` on a state other than the power-down ones.
pub fn states(soc: &Soc) -> Result<KVec<State>> {
    // SAFETY: `mvebu_v7_rs_enter_wfi()` is a `__cpuidle` C routine, called
    // and returning with IRQs off, that waits for an interrupt in WFI and
    // returns the index it was given; it does not touch RCU.
    let wfi = unsafe { EnterFn::new(mvebu_v7_rs_enter_wfi) };
    // SAFETY: the power-down routines are `__cpuidle` C routines, called and
    // returning with IRQs off, that return the index they were given, the
    // aborted power-down's 1 or a negative error; each calls
    // `ct_cpuidle_enter()` before the suspend routine and
    // `ct_cpuidle_exit()` after it, and returns an error without calling
    // either if no suspend routine is claimed.
    let (idle, deep_idle) = unsafe {
        (
            EnterFn::new_rcu_idle(mvebu_v7_rs_enter_idle),
            EnterFn::new_rcu_idle(mvebu_v7_rs_enter_deep_idle),
        )
    };
    let mut states = KVec::with_capacity(soc.table.len(), GFP_KERNEL)?;
    for (i, spec) in soc.table.iter().enumerate() {
        let drv = soc.driver_name;
        let name = spec.name;
        let Ok((flags, driver_flags)) = Flags::split_raw(spec.flags) else {
            pr_err!(
                "{drv}: state {i} ({name}): unknown flags in {:#x}\n",
                spec.flags
            );
            return Err(EINVAL);
        };
        if driver_flags & !DEEP_IDLE != 0 {
            pr_err!("{drv}: state {i} ({name}): unknown driver flags {driver_flags:#x}\n");
            return Err(EINVAL);
        }
        let deep = driver_flags & DEEP_IDLE != 0;
        let enter = match (i, deep) {
            (0, false) => wfi,
            (0, true) => {
                pr_err!("{drv}: state 0 ({name}): WFI cannot be a deep-idle state\n");
                return Err(EINVAL);
            }
            (_, false) => idle,
            (_, true) => deep_idle,
        };
        // `RCU_IDLE` comes with the entry routine; the table must agree
        // (`validate()` would refuse it too, without naming the table).
        if flags.contains(Flag::RcuIdle) != (i != 0) {
            pr_err!(
                "{drv}: state {i} ({name}): RCU_IDLE must be set exactly on the power-down states\n"
            );
            return Err(EINVAL);
        }
        let state = State::new(
            spec.name,
            spec.desc,
            spec.exit_latency_us,
            spec.target_residency_us,
            Enter::C(enter),
        )
        .power(spec.power_mw)
        .flags(flags)
        .driver_flags(driver_flags);
        states.push(state, GFP_KERNEL)?;
    }
    Ok(states)
}

/// Holds the suspend routine in the C entry code; releases it on drop.
struct SuspendClaim;

impl SuspendClaim {
    /// Hands the suspend routine in `pdev`'s platform data to the C entry
    /// code: `EINVAL` if there is none, `EBUSY` if another device's is held.
    fn new(pdev: &platform::Device<Core<'_>>) -> Result<Self> {
        let dev = pdev.as_ref();
        let Some(data) = pdev.platform_data() else {
            dev_err!(dev, "no suspend routine in the platform data\n");
            return Err(EINVAL);
        };
        // SAFETY: `pdev` matched `MVEBU_V7_IDS` by name, and the arch code
        // that registers devices of these names (arch/arm/mach-mvebu/pmsu.c)
        // gives them the SoC suspend routine, an `int (*)(unsigned long)`,
        // as platform data: the type the C side stores and calls it with.
        to_result(unsafe { mvebu_v7_rs_claim_suspend(data.as_ptr()) })
            .inspect_err(|_| dev_err!(dev, "another mvebu-v7 idle device is bound\n"))?;
        Ok(Self)
    }
}

impl Drop for SuspendClaim {
    fn drop(&mut self) {
        // SAFETY: `MvebuIdle` drops its `Registration` first, so the cpuidle
        // driver is unregistered and no CPU is in a power-down state.
        unsafe { mvebu_v7_rs_release_suspend() };
    }
}

/// A bound device: the registered cpuidle driver, then the suspend routine
/// it calls.  Fields drop in order: unregister, then release.
pub struct MvebuIdle {
    reg: Registration,
    _claim: SuspendClaim,
}

impl MvebuIdle {
    /// The registered driver (for its per-CPU statistics).
    pub fn registration(&self) -> &Registration {
        &self.reg
    }
}

/// The platform driver.
pub struct MvebuV7Driver;

impl platform::Driver for MvebuV7Driver {
    type IdInfo = Soc;
    type Data<'bound> = MvebuIdle;
    const ID_TABLE: Option<platform::IdTable<Self::IdInfo>> = Some(&MVEBU_V7_IDS);

    fn probe<'bound>(
        pdev: &'bound platform::Device<Core<'_>>,
        id_info: Option<&'bound Self::IdInfo>,
    ) -> impl PinInit<Self::Data<'bound>, Error> + 'bound {
        let dev = pdev.as_ref();
        let soc = id_info.ok_or(EINVAL)?;
        let claim = SuspendClaim::new(pdev)?;
        let states = states(soc)?;
        let reg = Registration::new(soc.driver_name, &states, Options::default())
            .inspect_err(|e| dev_err!(dev, "cpuidle registration failed: {e:?}\n"))?;
        for (i, s) in states.iter().enumerate() {
            dev_dbg!(
                dev,
                "{}: state{i} {} exit {} us, residency {} us, power {} mW, flags {:#x}/{:#x}\n",
                soc.driver_name,
                s.name(),
                s.exit_latency_us,
                s.target_residency_us,
                s.power_mw,
                u32::from(s.flags),
                s.driver_flags
            );
        }
        Ok(MvebuIdle { reg, _claim: claim })
    }
}

kernel::module_platform_driver! {
    type: MvebuV7Driver,
    name: "cpuidle_mvebu_v7_rs",
    authors: ["linux-pm@vger.kernel.org"],
    description: "Marvell EBU v7 (Armada 370/38x/XP) cpuidle driver",
    license: "GPL",
}

/// Reference values from the C driver and the 2015 threshold update, kept
/// apart from `cpuidle_tables.rs` so that a change there is caught.
#[cfg(CONFIG_ARM_MVEBU_V7_CPUIDLE_RUST_KUNIT_TEST)]
#[kunit_tests(cpuidle_mvebu_v7)]
mod tests {
    use super::*;
    use core::{
        ptr::null_mut,
        sync::atomic::{
            AtomicI32,
            AtomicU64,
            Ordering::Relaxed, //
        },
    };
    use kernel::{
        cpu::{
            nr_cpu_ids,
            CpuId, //
        },
        cpuidle::PauseGuard,
        ffi::{
            c_uint,
            c_ulong, //
        },
        time::{
            delay::fsleep,
            Delta, //
        },
    };

    /// The SoC suspend routine's type, `int (*)(unsigned long deepidle)`.
    type SuspendFn = unsafe extern "C" fn(deepidle: c_ulong) -> c_int;

    /// (name, exit us, residency us, power mW, flags) per state.
    type Row = (&'static CStr, u32, u32, i32, u32);
    const RCU: u32 = FLAG_RCU_IDLE;
    const DEEP: u32 = FLAG_MVEBU_DEEP_IDLE;
    const WFI_ROW: Row = (c"WFI", 1, 1, -1, 0);
    const XP: &[Row] = &[
        WFI_ROW,
        (c"MV CPU IDLE", 100, 1000, 50, RCU),
        (c"MV CPU DEEP IDL", 1000, 10000, 5, DEEP | RCU),
    ];
    const A370: &[Row] = &[WFI_ROW, (c"Deep Idle", 100, 1000, 5, DEEP | RCU)];
    const A38X: &[Row] = &[WFI_ROW, (c"Idle", 10, 100, 5, RCU)];

    /// Calls of the stub suspend routine, without and with `deepidle`.
    static CALLS: [AtomicU64; 2] = [AtomicU64::new(0), AtomicU64::new(0)];
    /// What the stub returns.
    static STUB_RET: AtomicI32 = AtomicI32::new(0);

    /// Stands in for the SoC suspend routine: counts and returns at once
    /// (the CPU does not power down).  It runs with RCU not watching, so it
    /// only touches atomics.
    extern "C" fn stub_suspend(deepidle: c_ulong) -> c_int {
        CALLS[usize::from(deepidle != 0)].fetch_add(1, Relaxed);
        STUB_RET.load(Relaxed)
    }

    fn calls() -> (u64, u64) {
        (CALLS[0].load(Relaxed), CALLS[1].load(Relaxed))
    }

    /// A platform device of the tests that is not, or no longer, added:
    /// dropping it clears its platform data, which the device's release
    /// would `kfree()`, and puts it.
    ///
    /// # Invariants
    ///
    /// `self.0` is a device from `platform_device_alloc()` whose reference
    /// we hold.
    struct Allocated(*mut bindings::platform_device);

    impl Drop for Allocated {
        fn drop(&mut self) {
            // SAFETY: by the type invariant; the platform data is ours, the
            // device is not added, so nothing else reads it.
            unsafe {
                (*self.0).dev.platform_data = null_mut();
                bindings::platform_device_put(self.0);
            }
        }
    }

    /// A platform device registered as the arch code does it.
    ///
    /// # Invariants
    ///
    /// The device has been added with `platform_device_add()`.
    struct FakeDevice(Allocated);

    impl FakeDevice {
        fn new(name: &CStr, suspend: Option<SuspendFn>) -> Result<Self> {
            Self::with_resources(name, suspend, &[])
        }

        /// A device with the memory resources `res` (copied).  If it cannot
        /// be added, it is put, not deleted.
        fn with_resources(
            name: &CStr,
            suspend: Option<SuspendFn>,
            res: &[bindings::resource],
        ) -> Result<Self> {
            // SAFETY: `name` is NUL-terminated; the core copies it.
            let pdev = unsafe {
                bindings::platform_device_alloc(name.as_char_ptr(), bindings::PLATFORM_DEVID_NONE)
            };
            if pdev.is_null() {
                return Err(ENOMEM);
            }
            // INVARIANT: just allocated; the reference is ours.
            let pdev = Allocated(pdev);
            if !res.is_empty() {
                let n = c_uint::try_from(res.len())?;
                // SAFETY: `pdev.0` is valid and not added; `res` holds `n`
                // resources, which the core copies.
                to_result(unsafe {
                    bindings::platform_device_add_resources(pdev.0, res.as_ptr(), n)
                })?;
            }
            // SAFETY: `pdev.0` is valid, not added, and ours.
            unsafe {
                (*pdev.0).dev.platform_data = suspend.map_or(null_mut(), |f| f as *mut c_void);
            }
            // SAFETY: as above.  On failure `pdev` is only put (dropped).
            to_result(unsafe { bindings::platform_device_add(pdev.0) })?;
            // INVARIANT: added.
            Ok(Self(pdev))
        }

        fn raw(&self) -> *mut bindings::platform_device {
            self.0 .0
        }

        fn bound(&self) -> bool {
            // SAFETY: `self.raw()` is a registered device; `driver` is set
            // and cleared by the driver core while it holds the device lock,
            // and no bind or unbind is in flight here (probing is
            // synchronous).
            !unsafe { (*self.raw()).dev.driver }.is_null()
        }

        /// The bound driver's data.
        fn idle(&self) -> Option<&MvebuIdle> {
            if !self.bound() {
                return None;
            }
            // SAFETY: bound to this module's driver (the only driver for
            // these names), whose probe stored a `Pin<KBox<MvebuIdle>>`; the
            // data lives until the device is unregistered, after the borrow.
            unsafe {
                bindings::dev_get_drvdata(&raw mut (*self.raw()).dev)
                    .cast::<MvebuIdle>()
                    .as_ref()
            }
        }
    }

    impl Drop for FakeDevice {
        fn drop(&mut self) {
            // SAFETY: added (type invariant).  This unbinds the driver; the
            // `Allocated` field then clears the platform data and puts the
            // device.
            unsafe { bindings::platform_device_del(self.raw()) };
        }
    }

    /// The name of the registered cpuidle driver, if any.
    fn current_driver() -> Option<&'static CStr> {
        // SAFETY: returns the registered driver or NULL.
        let drv = unsafe { bindings::cpuidle_get_driver() };
        if drv.is_null() {
            return None;
        }
        // SAFETY: `drv` is registered; its name is a static string.
        Some(unsafe { CStr::from_char_ptr((*drv).name) })
    }

    /// Checks the registered driver's states against `rows`.
    fn check_registered(rows: &[Row]) -> bool {
        // SAFETY: called while a driver of this module is registered.
        let drv = unsafe { bindings::cpuidle_get_driver() };
        if drv.is_null() {
            return false;
        }
        // SAFETY: `drv` is registered and only read.
        let drv = unsafe { &*drv };
        if drv.state_count as usize != rows.len() {
            return false;
        }
        rows.iter().enumerate().all(|(i, r)| {
            let s = &drv.states[i];
            // SAFETY: `name` is a NUL-terminated array.
            let name = unsafe { CStr::from_char_ptr(s.name.as_ptr()) };
            name == r.0
                && s.exit_latency == r.1
                && s.target_residency == r.2
                && s.exit_latency_ns == i64::from(r.1) * 1000
                && s.target_residency_ns == i64::from(r.2) * 1000
                && s.power_usage == r.3
                && s.flags == r.4
        })
    }

    /// Usage of state `i` summed over all CPUs.
    fn usage(idle: &MvebuIdle, i: usize) -> u64 {
        (0..nr_cpu_ids())
            .filter_map(CpuId::from_u32)
            .filter_map(|cpu| idle.registration().state_stats(cpu, i))
            .map(|s| s.usage)
            .sum()
    }

    fn sleep_ms(ms: u32) {
        fsleep(Delta::from_millis(ms.into()));
    }

    #[test]
    fn tables_match_the_c_driver() -> Result {
        for (soc, rows) in [(&ARMADA_XP, XP), (&ARMADA_370, A370), (&ARMADA_38X, A38X)] {
            let states = states(soc)?;
            assert_eq!(states.len(), rows.len());
            for (s, r) in states.iter().zip(rows) {
                assert_eq!(s.name(), r.0);
                assert_eq!((s.exit_latency_us, s.target_residency_us), (r.1, r.2));
                assert_eq!(s.power_mw, r.3);
                let raw =
                    u32::from(s.flags) | (u32::from(s.driver_flags) << cpuidle::DRIVER_FLAGS_SHIFT);
                assert_eq!(raw, r.4);
            }
            kernel::cpuidle::validate(soc.driver_name, &states)?;
        }
        Ok(())
    }

    /// `spec` with the raw flags `flags`.
    const fn with_flags(spec: Spec, flags: u32) -> Spec {
        Spec { flags, ..spec }
    }

    /// Tables the driver refuses: (what is wrong, table).
    const BAD: &[(&CStr, &[Spec])] = &[
        (
            c"RCU_IDLE on WFI",
            &[with_flags(MVEBU_XP[0], RCU), MVEBU_XP[1]],
        ),
        (
            c"power-down state without RCU_IDLE",
            &[MVEBU_XP[0], with_flags(MVEBU_XP[1], 0)],
        ),
        (c"deep WFI", &[with_flags(MVEBU_XP[0], DEEP), MVEBU_XP[1]]),
        (
            c"unknown driver flag",
            &[MVEBU_XP[0], with_flags(MVEBU_XP[1], (DEEP << 1) | RCU)],
        ),
        (
            c"unknown core flag",
            &[MVEBU_XP[0], with_flags(MVEBU_XP[1], (1 << 15) | RCU)],
        ),
    ];

    #[test]
    fn bad_tables_are_refused() {
        for &(what, table) in BAD {
            let soc = Soc {
                driver_name: what,
                table,
            };
            assert_eq!(states(&soc).err(), Some(EINVAL));
        }
        // The same states with their flags as in the driver's tables.
        let good = Soc {
            driver_name: c"good",
            table: &MVEBU_XP[..2],
        };
        assert!(states(&good).is_ok());
    }

    #[test]
    fn failed_add_is_put_not_deleted() -> Result {
        // Two memory resources that overlap: `platform_device_add()` claims
        // the first and fails on the second (or already on the first, if
        // something else holds that range) with `EBUSY`, before the device
        // is added.  `FakeDevice` then only puts it: deleting a device that
        // was never added dereferences its missing driver-core part.
        let mut res = [pin_init::zeroed::<bindings::resource>(); 2];
        for (r, start) in res.iter_mut().zip([0x0c00_0000, 0x0c00_0800]) {
            r.start = start;
            r.end = start + 0xfff;
            r.flags = bindings::IORESOURCE_MEM as c_ulong;
        }
        let err = FakeDevice::with_resources(c"cpuidle-armada-xp", Some(stub_suspend), &res).err();
        assert_eq!(err, Some(EBUSY));
        assert!(current_driver().is_none());
        // Nothing of it is left behind: a device of the same name is added
        // and binds.
        let fake = FakeDevice::new(c"cpuidle-armada-xp", Some(stub_suspend))?;
        assert!(fake.bound());
        Ok(())
    }

    #[test]
    fn binds_by_name_and_idles_through_the_suspend_routine() -> Result {
        assert!(current_driver().is_none());
        for (name, soc, rows) in [
            (c"cpuidle-armada-xp", &ARMADA_XP, XP),
            (c"cpuidle-armada-370", &ARMADA_370, A370),
            (c"cpuidle-armada-38x", &ARMADA_38X, A38X),
        ] {
            STUB_RET.store(0, Relaxed);
            let (s0, d0) = calls();
            let fake = FakeDevice::new(name, Some(stub_suspend))?;
            assert!(fake.bound());
            assert_eq!(current_driver(), Some(soc.driver_name));
            assert!(check_registered(rows));
            sleep_ms(300);
            {
                // No CPU is in a state while the guard is held: the stub's
                // counts and the per-state usage agree exactly.
                let _paused = PauseGuard::new();
                let (s1, d1) = calls();
                let idle = fake.idle().ok_or(ENODEV)?;
                let (mut shallow, mut deep) = (0, 0);
                for (i, r) in rows.iter().enumerate().skip(1) {
                    if r.4 & DEEP != 0 {
                        deep += usage(idle, i);
                    } else {
                        shallow += usage(idle, i);
                    }
                }
                assert_eq!(s1 - s0, shallow);
                assert_eq!(d1 - d0, deep);
                assert!(shallow + deep > 0);
            }
            drop(fake);
            assert!(current_driver().is_none());
            // Unbound: the stub is not called any more.
            let before = calls();
            sleep_ms(50);
            assert_eq!(calls(), before);
        }
        Ok(())
    }

    #[test]
    fn aborted_power_down_is_returned_as_c_does() -> Result {
        // cpu_suspend() returns 1 when the power-down is aborted; the C
        // driver hands that to the core as the entered index, so on the XP
        // table both power-down states are then accounted as state 1.
        STUB_RET.store(1, Relaxed);
        let fake = FakeDevice::new(c"cpuidle-armada-xp", Some(stub_suspend))?;
        let (s0, d0) = calls();
        sleep_ms(300);
        {
            let _paused = PauseGuard::new();
            let (s1, d1) = calls();
            let idle = fake.idle().ok_or(ENODEV)?;
            assert!(s1 - s0 + d1 - d0 > 0);
            assert_eq!(usage(idle, 2), 0);
            assert!(usage(idle, 1) >= s1 - s0 + d1 - d0);
        }
        drop(fake);
        STUB_RET.store(0, Relaxed);
        Ok(())
    }

    #[test]
    fn unknown_name_does_not_bind() -> Result {
        let fake = FakeDevice::new(c"cpuidle-armada-39x", Some(stub_suspend))?;
        assert!(!fake.bound());
        assert!(current_driver().is_none());
        Ok(())
    }

    #[test]
    fn no_platform_data_is_refused() -> Result {
        let fake = FakeDevice::new(c"cpuidle-armada-xp", None)?;
        assert!(!fake.bound());
        assert!(current_driver().is_none());
        drop(fake);
        // The refusal left nothing claimed: a proper device binds.
        let fake = FakeDevice::new(c"cpuidle-armada-xp", Some(stub_suspend))?;
        assert!(fake.bound());
        Ok(())
    }

    #[test]
    fn second_device_is_refused() -> Result {
        let first = FakeDevice::new(c"cpuidle-armada-370", Some(stub_suspend))?;
        let second = FakeDevice::new(c"cpuidle-armada-38x", Some(stub_suspend))?;
        assert!(first.bound());
        assert!(!second.bound());
        assert_eq!(current_driver(), Some(ARMADA_370.driver_name));
        drop(second);
        drop(first);
        assert!(current_driver().is_none());
        Ok(())
    }
}
