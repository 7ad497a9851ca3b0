// SPDX-License-Identifier: GPL-2.0

//! PM quality of service: CPU latency limits.
//!
//! Two kinds of latency request, both removed when dropped:
//! - [`CpuLatencyRequest`]: the global CPU latency QoS (what
//!   `/dev/cpu_dma_latency` sets), which caps the exit latency of the idle
//!   states every CPU may enter;
//! - [`ResumeLatencyRequest`]: the resume latency of one CPU's device (what
//!   `/sys/devices/system/cpu/cpuN/power/pm_qos_resume_latency_us` sets),
//!   which caps only that CPU.
//!
//! C headers: [`include/linux/pm_qos.h`](srctree/include/linux/pm_qos.h)

use crate::{
    bindings,
    cpu::CpuId,
    error::{
        code::*,
        to_result,
        Result, //
    },
    prelude::*,
    types::Opaque, //
};

/// "No constraint" for a resume latency (`PM_QOS_RESUME_LATENCY_NO_CONSTRAINT`).
pub const NO_CONSTRAINT: i32 = bindings::PM_QOS_RESUME_LATENCY_NO_CONSTRAINT;

/// The effective global CPU latency limit in microseconds
/// (`cpu_latency_qos_limit()`).
pub fn cpu_latency_limit_us() -> i32 {
    // SAFETY: reads a PM QoS aggregate; callable from any context.
    unsafe { bindings::cpu_latency_qos_limit() }
}

/// A request on the global CPU latency QoS.
///
/// # Examples
///
/// ```
/// use kernel::pm_qos::{cpu_latency_limit_us, CpuLatencyRequest};
///
/// let before = cpu_latency_limit_us();
/// let req = CpuLatencyRequest::new(10)?;
/// assert!(cpu_latency_limit_us() <= 10);
/// drop(req);
/// assert_eq!(cpu_latency_limit_us(), before);
/// # Ok::<(), Error>(())
/// ```
///
/// # Invariants
///
/// `req` has been added with `cpu_latency_qos_add_request()` and is active
/// until `drop()` removes it; it never moves (boxed).
pub struct CpuLatencyRequest {
    req: Pin<KBox<Opaque<bindings::pm_qos_request>>>,
}

// SAFETY: the request may be updated and removed from any thread; the PM QoS
// core serialises them.
unsafe impl Send for CpuLatencyRequest {}
// SAFETY: `&self` methods do not touch the request.
unsafe impl Sync for CpuLatencyRequest {}

impl CpuLatencyRequest {
    /// Adds a request that the CPU latency stays at or below `latency_us`.
    /// `EINVAL` for a negative value.
    pub fn new(latency_us: i32) -> Result<Self> {
        if latency_us < 0 {
            return Err(EINVAL);
        }
        // All-zeroes is the initial (inactive) state of a `pm_qos_request`.
        let req = KBox::pin(Opaque::zeroed(), GFP_KERNEL)?;
        // SAFETY: `req` is zeroed, pinned and outlives the request.
        unsafe { bindings::cpu_latency_qos_add_request(req.get(), latency_us) };
        // SAFETY: `req` was just added.
        if !unsafe { bindings::cpu_latency_qos_request_active(req.get()) } {
            return Err(EINVAL);
        }
        // INVARIANT: added and active.
        Ok(Self { req })
    }

    /// Changes the requested latency.
    pub fn update(&mut self, latency_us: i32) -> Result {
        if latency_us < 0 {
            return Err(EINVAL);
        }
        // SAFETY: active by the type invariant.
        unsafe { bindings::cpu_latency_qos_update_request(self.req.get(), latency_us) };
        Ok(())
    }
}

impl Drop for CpuLatencyRequest {
    fn drop(&mut self) {
        // SAFETY: active by the type invariant.
        unsafe { bindings::cpu_latency_qos_remove_request(self.req.get()) };
    }
}

fn cpu_device(cpu: CpuId) -> Result<*mut bindings::device> {
    // SAFETY: `get_cpu_device()` checks `cpu` and returns NULL for CPUs
    // without a device.
    let dev = unsafe { bindings::get_cpu_device(cpu.as_u32()) };
    if dev.is_null() {
        Err(ENODEV)
    } else {
        Ok(dev)
    }
}

/// The effective resume latency limit of `cpu`'s device in microseconds,
/// [`NO_CONSTRAINT`] if there is none (`dev_pm_qos_raw_resume_latency()`).
/// `ENODEV` for a CPU without a device.  May sleep: it holds the device
/// hotplug lock, so that the CPU's device is not removed meanwhile.
pub fn resume_latency_us(cpu: CpuId) -> Result<i32> {
    // A CPU's device is removed on hot-remove (`unregister_cpu()`), which
    // frees its PM QoS data (`dev_pm_qos_constraints_destroy()`); every
    // path to it holds the device hotplug lock (the ACPI and Xen eject
    // paths).
    // SAFETY: callable from any sleepable context; released below.
    unsafe { bindings::lock_device_hotplug() };
    let r = cpu_device(cpu).map(|dev| {
        // SAFETY: `dev_pm_qos_raw_resume_latency()` needs a registered
        // device: `dev` is `cpu`'s device, looked up and read under the
        // device hotplug lock, which its removal takes.
        unsafe { bindings::dev_pm_qos_raw_resume_latency(dev) }
    });
    // SAFETY: taken above.
    unsafe { bindings::unlock_device_hotplug() };
    r
}

/// A resume-latency request on one CPU's device.
///
/// # Invariants
///
/// `req` has been added with `dev_pm_qos_add_request()` on the device of
/// `cpu` and stays there until `drop()` removes it; it never moves.
pub struct ResumeLatencyRequest {
    req: Pin<KBox<Opaque<bindings::dev_pm_qos_request>>>,
    cpu: CpuId,
}

// SAFETY: requests may be updated and removed from any (sleepable) thread.
unsafe impl Send for ResumeLatencyRequest {}
// SAFETY: `&self` methods only read `cpu`.
unsafe impl Sync for ResumeLatencyRequest {}

impl ResumeLatencyRequest {
    /// Requests that `cpu` resume within `latency_us` microseconds (0: as
    /// fast as possible).  May sleep.  `ENODEV` for a CPU without a
    /// device, `EINVAL` for a negative latency.
    pub fn new(cpu: CpuId, latency_us: i32) -> Result<Self> {
        if latency_us < 0 {
            return Err(EINVAL);
        }
        let dev = cpu_device(cpu)?;
        // All-zeroes is the initial (inactive) state of a `dev_pm_qos_request`.
        let req = KBox::pin(Opaque::zeroed(), GFP_KERNEL)?;
        // SAFETY: `dev` is a CPU device; `req` is zeroed, pinned and outlives
        // the request.
        let ret = unsafe {
            bindings::dev_pm_qos_add_request(
                dev,
                req.get(),
                bindings::dev_pm_qos_req_type_DEV_PM_QOS_RESUME_LATENCY,
                latency_us,
            )
        };
        to_result(ret)?;
        // INVARIANT: added above.
        Ok(Self { req, cpu })
    }

    /// The CPU this request applies to.
    pub fn cpu(&self) -> CpuId {
        self.cpu
    }

    /// Changes the requested latency.  May sleep.
    pub fn update(&mut self, latency_us: i32) -> Result {
        if latency_us < 0 {
            return Err(EINVAL);
        }
        // SAFETY: added by the type invariant.
        let ret = unsafe { bindings::dev_pm_qos_update_request(self.req.get(), latency_us) };
        to_result(ret)
    }
}

impl Drop for ResumeLatencyRequest {
    fn drop(&mut self) {
        // SAFETY: added by the type invariant.
        unsafe { bindings::dev_pm_qos_remove_request(self.req.get()) };
    }
}

#[cfg(CONFIG_RUST_CPUIDLE_KUNIT_TEST)]
#[macros::kunit_tests(rust_pm_qos)]
mod tests {
    use super::*;

    #[test]
    fn cpu_latency_request_lifecycle() {
        let before = cpu_latency_limit_us();
        let req = CpuLatencyRequest::new(7);
        assert!(req.is_ok());
        let mut req = req.unwrap_or_else(|_| unreachable!());
        assert_eq!(cpu_latency_limit_us(), before.min(7));
        assert_eq!(req.update(3), Ok(()));
        assert_eq!(cpu_latency_limit_us(), before.min(3));
        assert_eq!(req.update(-1), Err(EINVAL));
        drop(req);
        assert_eq!(cpu_latency_limit_us(), before);
        assert!(CpuLatencyRequest::new(-5).is_err());
    }

    #[test]
    fn resume_latency_request_is_per_cpu() {
        let (Some(cpu0), cpu1) = (CpuId::from_u32(0), CpuId::from_u32(1)) else {
            unreachable!()
        };
        let cpu0_before = resume_latency_us(cpu0);
        assert!(cpu0_before.is_ok());
        let cpu0_before = cpu0_before.unwrap_or(0);
        let req = ResumeLatencyRequest::new(cpu0, 11);
        assert!(req.is_ok());
        let mut req = req.unwrap_or_else(|_| unreachable!());
        assert_eq!(req.cpu(), cpu0);
        assert_eq!(resume_latency_us(cpu0), Ok(cpu0_before.min(11)));
        // SAFETY: reading an aggregate for an online CPU.
        let gov = unsafe { bindings::cpuidle_governor_latency_req(0) };
        assert!(gov <= 11_000);
        assert_eq!(req.update(5), Ok(()));
        assert_eq!(resume_latency_us(cpu0), Ok(cpu0_before.min(5)));
        if let Some(cpu1) = cpu1 {
            assert_eq!(resume_latency_us(cpu1), Ok(NO_CONSTRAINT));
        }
        drop(req);
        assert_eq!(resume_latency_us(cpu0), Ok(cpu0_before));
        assert_eq!(ResumeLatencyRequest::new(cpu0, -1).err(), Some(EINVAL));
    }
}
