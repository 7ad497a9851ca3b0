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
    /// Power the driver reports, mW (-1: unknown).
    pub power_mw: i32,
    /// `CPUIDLE_FLAG_*` bits.
    pub flags: u32,
    /// Power drawn in the state in the energy model of the emulated driver
    /// and the simulator, mW.
    pub model_mw: u32,
}

/// A platform's table and the power of its running CPU (the energy model
/// charges each entry with the exit latency spent at active power).
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// Name used by the test driver's `table=` parameter and the tools.
    pub name: &'static str,
    /// The states, shallowest first.
    pub states: &'static [Spec],
    /// Power of a running CPU in the energy model, mW.
    pub active_mw: u32,
}

/// A state: name, description, exit latency (us), target residency (us),
/// reported power (mW), flags, model power (mW).
macro_rules! state {
    ($name:literal, $desc:literal, $exit:expr, $res:expr, $power:expr, $flags:expr, $mw:expr) => {
        Spec {
            name: $name,
            desc: $desc,
            exit_latency_us: $exit,
            target_residency_us: $res,
            power_mw: $power,
            flags: $flags,
            model_mw: $mw,
        }
    };
}

/// `ARM_CPUIDLE_WFI_STATE`.
const WFI: Spec = state!(c"WFI", c"ARM WFI", 1, 1, -1, 0, 400);

/// Armada XP with the 2015 threshold update ("cpuidle: mvebu: Update
/// cpuidle thresholds for Armada XP SOCs").
///
/// Upstream names the deep state "MV CPU DEEP IDLE", 16 characters: in C it
/// fills `name[CPUIDLE_NAME_LEN]` without a terminating NUL, so sysfs shows
/// it run together with the description.  The name here keeps the first 15
/// characters, the most that fits with the NUL.
pub const MVEBU_XP: &[Spec] = &[
    WFI,
    state!(
        c"MV CPU IDLE",
        c"CPU power down",
        100,
        1000,
        50,
        FLAG_RCU_IDLE,
        50
    ),
    state!(
        c"MV CPU DEEP IDL",
        c"CPU and L2 Fabric power down",
        1000,
        10000,
        5,
        FLAG_MVEBU_DEEP_IDLE | FLAG_RCU_IDLE,
        5
    ),
];

/// Armada 370.
pub const MVEBU_370: &[Spec] = &[
    WFI,
    state!(
        c"Deep Idle",
        c"CPU and L2 Fabric power down",
        100,
        1000,
        5,
        FLAG_MVEBU_DEEP_IDLE | FLAG_RCU_IDLE,
        5
    ),
];

/// Armada 38x (the arch code keeps it disabled upstream as broken).
pub const MVEBU_38X: &[Spec] = &[
    WFI,
    state!(
        c"Idle",
        c"CPU and SCU power down",
        10,
        100,
        5,
        FLAG_RCU_IDLE,
        5
    ),
];

/// pseries on a dedicated-processor LPAR: snooze and CEDE.
pub const PSERIES_DEDICATED: &[Spec] = &[
    state!(c"snooze", c"snooze", 0, 0, -1, FLAG_POLLING, 3000),
    state!(c"CEDE", c"CEDE", 10, 100, -1, 0, 500),
];

/// pseries on POWER10 with three extended CEDE records (hints 1..3, wakeup
/// latencies 2, 20 and 100 us): XCEDE latency + 10 us, residency 10x,
/// timer stops; CEDE(0) fixed up to the lowest XCEDE latency (2 us),
/// residency 10x.
pub const PSERIES_XCEDE: &[Spec] = &[
    state!(c"snooze", c"snooze", 0, 0, -1, FLAG_POLLING, 3000),
    state!(c"CEDE", c"CEDE", 2, 20, -1, 0, 500),
    state!(c"XCEDE1", c"XCEDE1", 12, 120, -1, FLAG_TIMER_STOP, 300),
    state!(c"XCEDE2", c"XCEDE2", 30, 300, -1, FLAG_TIMER_STOP, 150),
    state!(c"XCEDE3", c"XCEDE3", 110, 1100, -1, FLAG_TIMER_STOP, 50),
];

/// A typical x86 server: POLL, C1, C1E, C6 (intel_idle numbers).
pub const X86_LIKE: &[Spec] = &[
    state!(
        c"POLL",
        c"CPUIDLE CORE POLL IDLE",
        0,
        0,
        -1,
        FLAG_POLLING,
        2000
    ),
    state!(c"C1", c"MWAIT 0x00", 2, 2, 1000, 0, 1000),
    state!(c"C1E", c"MWAIT 0x01", 10, 20, 500, 0, 500),
    state!(c"C6", c"MWAIT 0x20", 133, 600, 100, FLAG_TIMER_STOP, 100),
];

/// Every table by the name the test driver and the tools use.
///
/// The model powers follow the drivers' `power_usage` where upstream gives
/// one (mvebu, x86-like); elsewhere they are plausible relative values,
/// meant only for comparing governors on the same table.
pub const TABLES: &[Table] = &[
    Table {
        name: "mvebu-xp",
        states: MVEBU_XP,
        active_mw: 1000,
    },
    Table {
        name: "mvebu-370",
        states: MVEBU_370,
        active_mw: 1000,
    },
    Table {
        name: "mvebu-38x",
        states: MVEBU_38X,
        active_mw: 1000,
    },
    Table {
        name: "pseries-dedicated",
        states: PSERIES_DEDICATED,
        active_mw: 4000,
    },
    Table {
        name: "pseries-xcede",
        states: PSERIES_XCEDE,
        active_mw: 4000,
    },
    Table {
        name: "x86-like",
        states: X86_LIKE,
        active_mw: 3000,
    },
];

/// Armada XP before the 2015 update: the thresholds it replaced (10/100 and
/// 100/1000 us), for replaying that change (the seeds' experiment 001).
pub const MVEBU_XP_2014: &[Spec] = &[
    WFI,
    state!(
        c"MV CPU IDLE",
        c"CPU power down",
        10,
        100,
        50,
        FLAG_RCU_IDLE,
        50
    ),
    state!(
        c"MV CPU DEEP IDL",
        c"CPU and L2 Fabric power down",
        100,
        1000,
        5,
        FLAG_MVEBU_DEEP_IDLE | FLAG_RCU_IDLE,
        5
    ),
];

/// Qualcomm MSM8916 (DragonBoard 410c), as arch/arm64/boot/dts/qcom/
/// msm8916.dtsi describes it to cpuidle-arm/psci: WFI and standalone power
/// collapse, whose exit latency is entry + exit (130 + 150 = 280 us, the
/// state 1 latency of the per-CPU resume latency measurements, the seeds'
/// experiment 000), residency 2000 us, local timer stopped.
pub const MSM8916: &[Spec] = &[
    WFI,
    state!(
        c"spc",
        c"standalone-power-collapse",
        280,
        2000,
        -1,
        FLAG_TIMER_STOP | FLAG_RCU_IDLE,
        20
    ),
];

/// Tables kept only to replay a documented measurement: the emulated
/// driver offers them, the simulator and the parity harness (which run
/// over `TABLES`) do not.
pub const SEED_TABLES: &[Table] = &[
    Table {
        name: "mvebu-xp-2014",
        states: MVEBU_XP_2014,
        active_mw: 1000,
    },
    Table {
        name: "msm8916",
        states: MSM8916,
        active_mw: 1000,
    },
];

/// The table called `name`, of `TABLES` or `SEED_TABLES`.
pub fn by_name(name: &[u8]) -> Option<&'static Table> {
    TABLES
        .iter()
        .chain(SEED_TABLES)
        .find(|t| t.name.as_bytes() == name)
}
