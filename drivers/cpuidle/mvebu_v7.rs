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
//! enters the power-down states through that routine in a small `__cpuidle`
//! C function (`mvebu_v7_enter.c`).
//!
//! Unlike the C driver, it can be unbound and unloaded: the cpuidle driver
//! is unregistered first, then the suspend routine released.  Upstream arch
//! code keeps Armada 38x idle disabled as broken (it never registers the
//! `cpuidle-armada-38x` device); the table is here for when it does.

use kernel::{
    bindings,
    cpuidle::{Enter, EnterFn, Flags, Options, Registration, State},
    device::Core,
    ffi::{c_int, c_ulong, c_void},
    platform,
    prelude::*,
};

#[path = "cpuidle_tables.rs"]
pub mod cpuidle_tables;

use cpuidle_tables::{Spec, FLAG_MVEBU_DEEP_IDLE, FLAG_RCU_IDLE, MVEBU_370, MVEBU_38X, MVEBU_XP};

// The tables restate the flag bits for their host builds: tie them to the
// bindings (the deep-idle bit is driver bit 0, `MVEBU_V7_FLAG_DEEP_IDLE` in
// mvebu_v7.h for the C entry routine).
const _: () = {
    assert!(FLAG_RCU_IDLE == Flags::RCU_IDLE.bits());
    assert!(FLAG_MVEBU_DEEP_IDLE == Flags::driver(0).bits());
};

/// The SoC suspend routine passed as platform data: `armada_370_xp_cpu_suspend()`
/// or `armada_38x_cpu_suspend()`, `int (*)(unsigned long deepidle)` in C.  The
/// Rust type matches it exactly, so an indirect call through it passes kCFI.
pub type SuspendFn = unsafe extern "C" fn(deepidle: c_ulong) -> c_int;

// The C half of this module (mvebu_v7_enter.c, prototypes in mvebu_v7.h).
// The cpuidle structures are only passed through by pointer, never read
// here; `improper_ctypes` objects to a zero-sized member deep inside them.
#[allow(improper_ctypes)]
extern "C" {
    fn mvebu_v7_rs_claim_suspend(suspend: SuspendFn) -> c_int;
    fn mvebu_v7_rs_release_suspend();
    fn mvebu_v7_rs_enter_wfi(
        dev: *mut bindings::cpuidle_device,
        drv: *mut bindings::cpuidle_driver,
        index: c_int,
    ) -> c_int;
    fn mvebu_v7_rs_enter_power_down(
        dev: *mut bindings::cpuidle_device,
        drv: *mut bindings::cpuidle_driver,
        index: c_int,
    ) -> c_int;
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
/// CPU down through the suspend routine (`RCU_IDLE`: the C entry routine
/// turns RCU off around it), the deep ones with the L2 fabric.
pub fn states(soc: &Soc) -> Result<KVec<State>> {
    // SAFETY: both routines are `__cpuidle` C functions that return with
    // IRQs off and the index they report as entered (or an error); the
    // power-down one handles RCU itself and is only used for states flagged
    // `RCU_IDLE`, the WFI one leaves RCU to the core and is only used for
    // state 0, which is not.
    let (wfi, power_down) = unsafe {
        (
            EnterFn::new(mvebu_v7_rs_enter_wfi),
            EnterFn::new(mvebu_v7_rs_enter_power_down),
        )
    };
    let mut states = KVec::with_capacity(soc.table.len(), GFP_KERNEL)?;
    for (i, spec) in soc.table.iter().enumerate() {
        let enter = if i == 0 { wfi } else { power_down };
        if (i == 0) == (spec.flags & FLAG_RCU_IDLE != 0) {
            pr_err!(
                "{}: state {i}: RCU_IDLE must be set exactly on the power-down states\n",
                soc.driver_name
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
        .flags(Flags::from_bits(spec.flags));
        states.push(state, GFP_KERNEL)?;
    }
    Ok(states)
}

/// Holds the suspend routine in the C entry code; releases it on drop.
struct SuspendClaim;

impl SuspendClaim {
    fn new(suspend: SuspendFn) -> Result<Self> {
        // SAFETY: plain call; the C side only stores the pointer.
        kernel::error::to_result(unsafe { mvebu_v7_rs_claim_suspend(suspend) })?;
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
        let Some(data) = pdev.platform_data() else {
            dev_err!(dev, "no suspend routine in the platform data\n");
            return Err(EINVAL);
        };
        // SAFETY: the arch code that registers these devices stores a
        // `int (*)(unsigned long)` as platform data, which is `SuspendFn`;
        // data and function pointers have the same size on this
        // architecture.
        let suspend = unsafe { core::mem::transmute::<*mut c_void, SuspendFn>(data.as_ptr()) };
        let claim = SuspendClaim::new(suspend).inspect_err(|_| {
            dev_err!(dev, "another mvebu-v7 idle device is bound\n");
        })?;
        let states = states(soc)?;
        let reg = Registration::new(soc.driver_name, &states, Options::default())
            .inspect_err(|e| dev_err!(dev, "cpuidle registration failed: {e:?}\n"))?;
        for (i, s) in states.iter().enumerate() {
            dev_dbg!(
                dev,
                "{}: state{i} {} exit {} us, residency {} us, power {} mW, flags {:#x}\n",
                soc.driver_name,
                s.name(),
                s.exit_latency_us,
                s.target_residency_us,
                s.power_mw,
                s.flags.bits()
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
    use core::sync::atomic::{AtomicI32, AtomicU64, Ordering::Relaxed};
    use kernel::cpu::{nr_cpu_ids, CpuId};
    use kernel::cpuidle::PauseGuard;
    use kernel::time::{delay::fsleep, Delta};

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
    unsafe extern "C" fn stub_suspend(deepidle: c_ulong) -> c_int {
        CALLS[usize::from(deepidle != 0)].fetch_add(1, Relaxed);
        STUB_RET.load(Relaxed)
    }

    fn calls() -> (u64, u64) {
        (CALLS[0].load(Relaxed), CALLS[1].load(Relaxed))
    }

    /// A platform device registered as the arch code does it.
    struct FakeDevice(*mut bindings::platform_device);

    impl FakeDevice {
        fn new(name: &CStr, suspend: Option<SuspendFn>) -> Result<Self> {
            // SAFETY: `name` is NUL-terminated; the core copies it.
            let pdev = unsafe { bindings::platform_device_alloc(name.as_char_ptr(), -1) };
            if pdev.is_null() {
                return Err(ENOMEM);
            }
            // SAFETY: `pdev` is a valid, not yet added device that we own.
            unsafe {
                (*pdev).dev.platform_data =
                    suspend.map_or(core::ptr::null_mut(), |f| f as *mut c_void);
            }
            // SAFETY: as above; on failure the device is put below.
            let ret = unsafe { bindings::platform_device_add(pdev) };
            let fake = Self(pdev);
            kernel::error::to_result(ret)?;
            Ok(fake)
        }

        fn bound(&self) -> bool {
            // SAFETY: `self.0` is a registered device; `driver` is set and
            // cleared by the driver core while it holds the device lock, and
            // no bind or unbind is in flight here (probing is synchronous).
            !unsafe { (*self.0).dev.driver }.is_null()
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
                bindings::dev_get_drvdata(&raw mut (*self.0).dev)
                    .cast::<MvebuIdle>()
                    .as_ref()
            }
        }
    }

    impl Drop for FakeDevice {
        fn drop(&mut self) {
            // SAFETY: `self.0` was added by `new()`.  Unbind first, then clear
            // the platform data, which the release routine would `kfree()`,
            // before dropping our reference.
            unsafe {
                bindings::platform_device_del(self.0);
                (*self.0).dev.platform_data = core::ptr::null_mut();
                bindings::platform_device_put(self.0);
            }
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
                assert_eq!(s.flags.bits(), r.4);
            }
            kernel::cpuidle::validate(soc.driver_name, &states)?;
        }
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
