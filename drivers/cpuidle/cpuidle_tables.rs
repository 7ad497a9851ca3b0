// SPDX-License-Identifier: GPL-2.0

//! Idle-state tables of the platforms rcpuidle supports, as plain data.
//!
//! One source of truth for the real drivers, the emulated-state test driver
//! (`cpuidle_vstates`) and the host tools (the teo.c parity harness): each
//! includes this file with `#[path]`.  No kernel types: latencies and
//! residencies in microseconds, flags as the `CPUIDLE_FLAG_*` bits.

use core::ffi::CStr;

/// `CPUIDLE_FLAG_POLLING`.
pub const FLAG_POLLING: u32 = 1 << 0;
/// `CPUIDLE_FLAG_TIMER_STOP`.
pub const FLAG_TIMER_STOP: u32 = 1 << 2;
/// `CPUIDLE_FLAG_RCU_IDLE`.
pub const FLAG_RCU_IDLE: u32 = 1 << 6;
/// mvebu-v7 driver-private flag: power down the L2 fabric too
/// (`MVEBU_V7_FLAG_DEEP_IDLE`).
pub const FLAG_MVEBU_DEEP_IDLE: u32 = 1 << 16;

/// One idle state.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// sysfs name.
    pub name: &'static CStr,
    /// sysfs description.
    pub desc: &'static CStr,
    /// Exit latency, us.
    pub exit_latency_us: u32,
    /// Target residency, us.
    pub target_residency_us: u32,
    /// Power in the state, mW (-1: unknown).
    pub power_mw: i32,
    /// `CPUIDLE_FLAG_*` bits.
    pub flags: u32,
}

const fn s(
    name: &'static CStr,
    desc: &'static CStr,
    exit_latency_us: u32,
    target_residency_us: u32,
    power_mw: i32,
    flags: u32,
) -> Spec {
    Spec {
        name,
        desc,
        exit_latency_us,
        target_residency_us,
        power_mw,
        flags,
    }
}

/// `ARM_CPUIDLE_WFI_STATE`.
const WFI: Spec = s(c"WFI", c"ARM WFI", 1, 1, -1, 0);

/// Armada XP with the 2015 threshold update ("cpuidle: mvebu: Update
/// cpuidle thresholds for Armada XP SOCs").
///
/// Upstream names the deep state "MV CPU DEEP IDLE", 16 characters: in C it
/// fills `name[CPUIDLE_NAME_LEN]` without a terminating NUL, so sysfs shows
/// it run together with the description.  The name here keeps the first 15
/// characters, the most that fits with the NUL.
pub const MVEBU_XP: &[Spec] = &[
    WFI,
    s(
        c"MV CPU IDLE",
        c"CPU power down",
        100,
        1000,
        50,
        FLAG_RCU_IDLE,
    ),
    s(
        c"MV CPU DEEP IDL",
        c"CPU and L2 Fabric power down",
        1000,
        10000,
        5,
        FLAG_MVEBU_DEEP_IDLE | FLAG_RCU_IDLE,
    ),
];

/// Armada 370.
pub const MVEBU_370: &[Spec] = &[
    WFI,
    s(
        c"Deep Idle",
        c"CPU and L2 Fabric power down",
        100,
        1000,
        5,
        FLAG_MVEBU_DEEP_IDLE | FLAG_RCU_IDLE,
    ),
];

/// Armada 38x (the arch code keeps it disabled upstream as broken).
pub const MVEBU_38X: &[Spec] = &[
    WFI,
    s(
        c"Idle",
        c"CPU and SCU power down",
        10,
        100,
        5,
        FLAG_RCU_IDLE,
    ),
];

/// pseries on a dedicated-processor LPAR: snooze and CEDE.
pub const PSERIES_DEDICATED: &[Spec] = &[
    s(c"snooze", c"snooze", 0, 0, -1, FLAG_POLLING),
    s(c"CEDE", c"CEDE", 10, 100, -1, 0),
];

/// pseries on POWER10 with three extended CEDE records (hints 1..3, wakeup
/// latencies 2, 20 and 100 us): XCEDE latency + 10 us, residency 10x,
/// timer stops; CEDE(0) fixed up to the lowest XCEDE latency (2 us),
/// residency 10x.
pub const PSERIES_XCEDE: &[Spec] = &[
    s(c"snooze", c"snooze", 0, 0, -1, FLAG_POLLING),
    s(c"CEDE", c"CEDE", 2, 20, -1, 0),
    s(c"XCEDE1", c"XCEDE1", 12, 120, -1, FLAG_TIMER_STOP),
    s(c"XCEDE2", c"XCEDE2", 30, 300, -1, FLAG_TIMER_STOP),
    s(c"XCEDE3", c"XCEDE3", 110, 1100, -1, FLAG_TIMER_STOP),
];

/// A typical x86 server: POLL, C1, C1E, C6 (intel_idle numbers).
pub const X86_LIKE: &[Spec] = &[
    s(c"POLL", c"CPUIDLE CORE POLL IDLE", 0, 0, -1, FLAG_POLLING),
    s(c"C1", c"MWAIT 0x00", 2, 2, 1000, 0),
    s(c"C1E", c"MWAIT 0x01", 10, 20, 500, 0),
    s(c"C6", c"MWAIT 0x20", 133, 600, 100, FLAG_TIMER_STOP),
];

/// Every table by the name the test driver and the tools use.
pub const TABLES: &[(&str, &[Spec])] = &[
    ("mvebu-xp", MVEBU_XP),
    ("mvebu-370", MVEBU_370),
    ("mvebu-38x", MVEBU_38X),
    ("pseries-dedicated", PSERIES_DEDICATED),
    ("pseries-xcede", PSERIES_XCEDE),
    ("x86-like", X86_LIKE),
];

/// The table called `name`.
pub fn by_name(name: &[u8]) -> Option<&'static [Spec]> {
    TABLES
        .iter()
        .find(|(n, _)| n.as_bytes() == name)
        .map(|(_, t)| *t)
}
