// SPDX-License-Identifier: GPL-2.0

//! The tables the simulator runs: the idle states of
//! `drivers/cpuidle/cpuidle_tables.rs` with their energy model, time-scaled
//! (`BASE-xN`) as the emulated-state driver registers them, and the
//! polling limit the tree's `cpuidle_poll_time()` gives each.

use crate::{simcore::Core, units::US};
use rteo_core::rteo_core::State;

#[path = "../../../drivers/cpuidle/cpuidle_tables.rs"]
#[allow(dead_code)]
mod cpuidle_tables;

/// A table with its energy model.
pub(crate) struct Table {
    pub(crate) name: &'static str,
    pub(crate) states: Vec<State>,
    /// The `CPUIDLE_FLAG_*` bits the C sees (polling only: the
    /// emulated-state driver registers no other flag that matters here).
    pub(crate) flags: Vec<u32>,
    pub(crate) model_mw: Vec<f64>,
    /// Each state's own energy per entry, nJ (`cpuidle_tables::entry_nj`,
    /// time-scaled with the table).
    pub(crate) entry_nj: Vec<f64>,
}

impl Table {
    /// The energy model's cost of one entry of state `s` that the kernel
    /// counts `residency_ns` in (the exit latency included), pJ (mW x ns),
    /// as the emulated-state driver's energy file charges it.
    pub(crate) fn entry_energy(&self, s: usize, residency_ns: i64) -> f64 {
        self.model_mw[s] * residency_ns as f64 + 1000.0 * self.entry_nj[s]
    }

    pub(crate) fn residencies(&self) -> Vec<i64> {
        self.states.iter().map(|s| s.target_residency_ns).collect()
    }
    pub(crate) fn latencies(&self) -> Vec<i64> {
        self.states.iter().map(|s| s.exit_latency_ns).collect()
    }
}

/// `t` with every exit latency and target residency multiplied by
/// `scale`, as the emulated-state driver's `scale` parameter registers it
/// (drivers/cpuidle/vstates.rs: `exit_latency_us * scale`,
/// `target_residency_us * scale`), named `name`.  The energy model follows:
/// each entry's own energy scales with the times it is derived from, as the
/// driver's energy file charges `entry_nj() * scale`.
fn table_of(t: &cpuidle_tables::Table, scale: u32, name: &'static str) -> Table {
    let us = |v: u32| i64::from(v) * i64::from(scale) * US;
    Table {
        name,
        states: t
            .states
            .iter()
            .map(|s| State {
                target_residency_ns: us(s.target_residency_us),
                exit_latency_ns: us(s.exit_latency_us),
                polling: s.flags & cpuidle_tables::FLAG_POLLING != 0,
            })
            .collect(),
        flags: t
            .states
            .iter()
            .map(|s| s.flags & cpuidle_tables::FLAG_POLLING)
            .collect(),
        model_mw: t.states.iter().map(|s| f64::from(s.model_mw)).collect(),
        entry_nj: (0..t.states.len())
            .map(|i| {
                // every table has one: a table without does not build
                cpuidle_tables::entry_nj(t.states, i).unwrap_or(0) as f64 * f64::from(scale)
            })
            .collect(),
    }
}

pub(crate) fn tables() -> Vec<Table> {
    cpuidle_tables::TABLES
        .iter()
        .map(|t| table_of(t, 1, t.name))
        .collect()
}

/// The largest time scale, the emulated-state driver's `SCALE_MAX`.
const SCALE_MAX: u32 = 1000;

/// The table called `name`: a table of `cpuidle_tables.rs` (`TABLES` or
/// `SEED_TABLES`, as the emulated-state driver's `table=` takes it), or
/// `BASE-xN`, BASE's table time-scaled by N (1..=1000), as the driver
/// registers it with `table=BASE scale=N` (and as the guest's recordings
/// name it).
pub(crate) fn table_named(name: &str) -> Result<Table, String> {
    let (base, scale) = match name.rsplit_once("-x") {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            match n.parse::<u32>() {
                Ok(k) if (1..=SCALE_MAX).contains(&k) => (b, k),
                _ => return Err(format!("{name}: the scale must be 1..={SCALE_MAX}")),
            }
        }
        _ => (name, 1),
    };
    let t = cpuidle_tables::by_name(base.as_bytes()).ok_or_else(|| {
        let known: Vec<&str> = cpuidle_tables::TABLES
            .iter()
            .chain(cpuidle_tables::SEED_TABLES)
            .map(|t| t.name)
            .collect();
        format!(
            "{name}: unknown table (known: {}; BASE-xN scales BASE by N)",
            known.join(", ")
        )
    })?;
    Ok(table_of(
        t,
        scale,
        Box::leak(name.to_string().into_boxed_str()),
    ))
}

/// `cpuidle_poll_time()` of the tree for each table, all states enabled:
/// the polling limit `poll_idle()` applies in the simulator, ns.
pub(crate) fn poll_limits(core: &mut Core, tabs: &[Table]) -> Vec<(&'static str, u64)> {
    tabs.iter()
        .map(|t| {
            core.init(&t.residencies(), &t.latencies(), &t.flags);
            (t.name, core.poll_time())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_table_multiplies_latency_and_residency() {
        let base = table_named("x86-like").unwrap();
        let x10 = table_named("x86-like-x10").unwrap();
        assert_eq!(x10.name, "x86-like-x10");
        assert_eq!(base.states.len(), 4);
        assert_eq!(x10.states.len(), base.states.len());
        for (b, s) in base.states.iter().zip(&x10.states) {
            assert_eq!(s.exit_latency_ns, 10 * b.exit_latency_ns);
            assert_eq!(s.target_residency_ns, 10 * b.target_residency_ns);
            assert_eq!(s.polling, b.polling);
        }
        assert_eq!(
            (x10.flags.clone(), x10.model_mw.clone()),
            (base.flags, base.model_mw)
        );
        for (b, x) in base.entry_nj.iter().zip(&x10.entry_nj) {
            assert_eq!(*x, 10.0 * b);
        }
        // the numbers of the guest's x86-like-x10 (its BENCH-META lines)
        assert_eq!(x10.latencies(), [0, 20_000, 100_000, 1_330_000]);
        assert_eq!(x10.residencies(), [0, 20_000, 200_000, 6_000_000]);
        // every table, as the emulated-state driver's scale=N registers it
        for t in cpuidle_tables::TABLES
            .iter()
            .chain(cpuidle_tables::SEED_TABLES)
        {
            let s = table_named(&format!("{}-x1000", t.name)).unwrap();
            for (spec, st) in t.states.iter().zip(&s.states) {
                assert_eq!(
                    st.exit_latency_ns,
                    i64::from(spec.exit_latency_us * 1000) * US
                );
                assert_eq!(
                    st.target_residency_ns,
                    i64::from(spec.target_residency_us * 1000) * US
                );
            }
        }
        for bad in ["x86-like-x0", "x86-like-x1001", "nosuch-x10", "x86-like-x"] {
            assert!(table_named(bad).is_err(), "{bad}");
        }
    }
}
