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
    /// and the simulator, mW ([`entry_nj`]).
    pub model_mw: u32,
}

/// A platform's table.
#[derive(Clone, Copy, Debug)]
pub struct Table {
    /// Name used by the test driver's `table=` parameter and the tools.
    pub name: &'static str,
    /// The states, shallowest first.
    pub states: &'static [Spec],
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
/// meant only for comparing governors on the same table.  Each entry's own
/// energy follows from the target residencies ([`entry_nj`]).
pub const TABLES: &[Table] = &[
    Table {
        name: "mvebu-xp",
        states: MVEBU_XP,
    },
    Table {
        name: "mvebu-370",
        states: MVEBU_370,
    },
    Table {
        name: "mvebu-38x",
        states: MVEBU_38X,
    },
    Table {
        name: "pseries-dedicated",
        states: PSERIES_DEDICATED,
    },
    Table {
        name: "pseries-xcede",
        states: PSERIES_XCEDE,
    },
    Table {
        name: "x86-like",
        states: X86_LIKE,
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
    },
    Table {
        name: "msm8916",
        states: MSM8916,
    },
];

/// The energy model of the emulated driver and the simulator: one entry of
/// state `i` of `states` that the kernel counts `t` us in (its residency,
/// the exit latency included) costs `model_mw * t + entry_nj(states, i)`
/// nJ.
///
/// The per-entry energy is not a free parameter: it is what makes each
/// state's target residency its break-even point, as
/// Documentation/admin-guide/pm/cpuidle.rst defines the target residency
/// (the shortest time in the state that saves more energy than a shallower
/// one).  For an idle period of length `T_i`, the target residency of
/// state `i`, state `i - 1` and state `i` cost the same:
///
/// `E_i = E_(i-1) + P_(i-1) * (T_i + L_(i-1)) - P_i * (T_i + L_i)`,
/// `E_0 = 0`
///
/// (`P` the model power, `L` the exit latency, which the kernel counts in
/// the residency).  With powers that fall and targets that rise from state
/// to state, each state is then the cheapest exactly from its target
/// residency to the next state's, so the deepest state whose target fits
/// the idle period (the governors' and the oracle's rule) is the model's
/// optimum.  The tables' targets are the drivers' real numbers and their
/// powers partly made up, so the model follows the targets, not the other
/// way round.  `None` for a table that cannot be made consistent (a power
/// that does not fall, or an entry energy below the previous state's).
pub const fn entry_nj(states: &[Spec], i: usize) -> Option<u64> {
    if i >= states.len() {
        return None;
    }
    let mut e: u64 = 0;
    let mut k = 1;
    while k <= i {
        let (a, b) = (&states[k - 1], &states[k]);
        if b.model_mw >= a.model_mw || b.target_residency_us < a.target_residency_us {
            return None;
        }
        let t = b.target_residency_us as u64;
        let gain = a.model_mw as u64 * (t + a.exit_latency_us as u64);
        let cost = b.model_mw as u64 * (t + b.exit_latency_us as u64);
        if gain < cost {
            return None;
        }
        e += gain - cost;
        k += 1;
    }
    Some(e)
}

/// Whether every state of `states` has an [`entry_nj`].
const fn consistent(states: &[Spec]) -> bool {
    let mut i = 0;
    while i < states.len() {
        if entry_nj(states, i).is_none() {
            return false;
        }
        i += 1;
    }
    true
}

// Every table's energy model is consistent with its target residencies:
// a table that is not does not build.
const _: () = {
    let mut i = 0;
    while i < TABLES.len() {
        assert!(consistent(TABLES[i].states));
        i += 1;
    }
    let mut i = 0;
    while i < SEED_TABLES.len() {
        assert!(consistent(SEED_TABLES[i].states));
        i += 1;
    }
};

/// The table called `name`, of `TABLES` or `SEED_TABLES`.
pub fn by_name(name: &[u8]) -> Option<&'static Table> {
    TABLES
        .iter()
        .chain(SEED_TABLES)
        .find(|t| t.name.as_bytes() == name)
}
