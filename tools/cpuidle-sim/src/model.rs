// SPDX-License-Identifier: GPL-2.0

//! `cpuidle-sim model` (and `run --model`): the energy model against what
//! governors go by.
//!
//! A governor (and the oracle, [`crate::oracle::oracle`]) takes a state
//! once the idle time reaches its target residency.  The energy model
//! ([`entry`]: the residency at the state's power plus the entry's
//! own energy) has its own break-even point for each state against the
//! next shallower one: the idle time from which one entry of the deeper
//! state costs no more.  The entry energies are derived from the target
//! residencies (`cpuidle_tables::entry_nj`) so that the two agree: the
//! oracle is the model's optimum (the cheapest state for every period
//! scores a regret of 0) and a lower regret cannot reward entries the
//! kernel counts too deep.  The first table shows it holds.  The first table prints both per state; the second, per set and
//! per table, how much of the oracle's energy and of teo's excess over it
//! each table holds, and each governor's regret on that table alone, next
//! to the cheapest state's; the third, the same regrets per governor that
//! recorded the traces.

use crate::{
    corpus::{score_of, set_traces, Corpus, CorpusOpts, Set},
    oracle::{cheapest_entry, entry, oracle_energy},
    simulate::Score,
    table::Table,
};
use std::{fmt::Write as _, process::ExitCode};

/// `cpuidle-sim model`'s arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct ModelArgs {
    #[command(flatten)]
    corpus: CorpusOpts,
}

/// Runs the corpus and prints [`report`].
pub(crate) fn main(args: &ModelArgs) -> ExitCode {
    let mut core = crate::simcore::Core::lock();
    match Corpus::run(&mut core, &args.corpus) {
        Ok(c) => {
            print!("{}", report(&c));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cpuidle-sim: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The longest idle time searched for a break-even point, ns (100 s).
const SEARCH_NS: i64 = 100_000_000_000;

/// The shortest idle time, ns, from which one entry of state `deep` costs
/// no more energy than one of state `shallow` in `t`'s model, or `None`
/// if it never does within [`SEARCH_NS`].  (Both entries' costs grow
/// linearly with the idle time: the search is a bisection.)
pub(crate) fn break_even_ns(t: &Table, shallow: usize, deep: usize) -> Option<i64> {
    let pays = |len: i64| entry(t, deep, len) <= entry(t, shallow, len);
    if pays(0) {
        return Some(0);
    }
    if !pays(SEARCH_NS) {
        return None;
    }
    let (mut lo, mut hi) = (0, SEARCH_NS);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if pays(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

fn us(ns: i64) -> String {
    if ns % 1000 == 0 {
        format!("{}", ns / 1000)
    } else {
        format!("{:.3}", ns as f64 / 1000.0)
    }
}

/// Each state's target residency and the model's break-even point against
/// the state before it.
fn break_evens(tabs: &[Table]) -> String {
    let mut out = String::from(
        "Each state's target residency (the oracle's and the governors' rule) and the energy model's break-even point against the next shallower state (us)\n\n| table | state | exit latency | target residency | break-even | the model's verdict |\n|---|---|---|---|---|---|\n",
    );
    for t in tabs {
        for s in 1..t.states.len() {
            let st = &t.states[s];
            let target = st.target_residency_ns;
            let (be, verdict) = match break_even_ns(t, s - 1, s) {
                None => ("never".to_string(), "never pays".to_string()),
                Some(b) if b == target => (us(b), "pays from its target".to_string()),
                Some(b) if b < target => (
                    us(b),
                    format!(
                        "pays {:.2} x before its target",
                        target as f64 / b.max(1) as f64
                    ),
                ),
                Some(b) => (
                    us(b),
                    format!(
                        "pays only {:.2} x after its target",
                        b as f64 / target.max(1) as f64
                    ),
                ),
            };
            let _ = writeln!(
                out,
                "| {} | {s} | {} | {} | {be} | {verdict} |",
                t.name,
                us(st.exit_latency_ns),
                us(target)
            );
        }
    }
    out
}

/// Per set and table: the table's share of the oracle's energy and of
/// teo's excess over it, the governors' regret on the table alone and the
/// cheapest state's for every period (the model's optimum, clairvoyant).
fn per_table(corpus: &Corpus) -> String {
    let mut out = String::from(
        "\nPer table: its share of the set's oracle energy and of teo's excess over the oracle (pooled over tables, as the set's regret is), and the energy regret on the table alone\n\n| set | table | share of the oracle's energy % | share of teo's excess % | teo | rteo | menu | the model's optimum |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (name, set) in [("tuning", Set::Tuning), ("held out", Set::Heldout)] {
        let traces = set_traces(corpus, set);
        let all = score_of(&corpus.rows, "teo", Some(set), None);
        let all_excess = all.energy - all.oracle_energy;
        for t in &corpus.tabs {
            let mine: Vec<_> = corpus
                .rows
                .iter()
                .filter(|r| r.table == t.name && set.has(r))
                .collect();
            let score = |g: &str| {
                let mut s = Score::default();
                for r in mine.iter().filter(|r| r.gov == g) {
                    s.add(&r.score);
                }
                s
            };
            let teo = score("teo");
            if teo.periods == 0 {
                continue;
            }
            let (mut cheapest, mut oracle) = (0.0, 0.0);
            for (tt, _, trace, _) in traces.iter().filter(|x| x.0.name == t.name) {
                for e in trace {
                    let qos_ns = i64::from(e.qos_us).saturating_mul(1000);
                    cheapest += cheapest_entry(tt, e);
                    oracle += oracle_energy(tt, e, qos_ns);
                }
            }
            let _ = writeln!(
                out,
                "| {name} | {} | {:.1} | {:.1} | {:.4} | {:.4} | {:.4} | {:.4} |",
                t.name,
                100.0 * teo.oracle_energy / all.oracle_energy,
                100.0 * (teo.energy - teo.oracle_energy) / all_excess,
                teo.regret(),
                score("rteo").regret(),
                score("menu").regret(),
                cheapest / oracle - 1.0,
            );
        }
    }
    out
}

/// The governor a recorded trace was recorded under: the last part of
/// its name (`rec-TABLE.WORKLOAD.GOVERNOR`), `None` for a synthetic class.
fn recorded_under(class: &str) -> Option<&str> {
    class.strip_prefix("rec-")?.rsplit_once('.').map(|(_, g)| g)
}

/// Per set, table and the governor that recorded the traces: the
/// governors' regrets on those traces alone, and rteo's and menu's over
/// teo's.
fn per_recorder(corpus: &Corpus) -> String {
    let mut out = String::from(
        "\nPer table and recording governor (the recorded traces only): the energy regret of each governor, and its ratio to teo's\n\n| set | table | recorded under | periods | teo | rteo | menu | rteo / teo | menu / teo |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for (name, set) in [("tuning", Set::Tuning), ("held out", Set::Heldout)] {
        for t in &corpus.tabs {
            for rec in ["teo", "menu", "rteo"] {
                let score = |g: &str| {
                    let mut s = Score::default();
                    for r in corpus.rows.iter().filter(|r| {
                        r.gov == g
                            && r.table == t.name
                            && set.has(r)
                            && recorded_under(r.class) == Some(rec)
                    }) {
                        s.add(&r.score);
                    }
                    s
                };
                let (teo, rteo, menu) = (score("teo"), score("rteo"), score("menu"));
                if teo.periods == 0 {
                    continue;
                }
                let _ = writeln!(
                    out,
                    "| {name} | {} | {rec} | {} | {:.4} | {:.4} | {:.4} | {:.3} | {:.3} |",
                    t.name,
                    teo.periods,
                    teo.regret(),
                    rteo.regret(),
                    menu.regret(),
                    rteo.regret() / teo.regret(),
                    menu.regret() / teo.regret(),
                );
            }
        }
    }
    out
}

/// The model's report: the break-even points, then per table and per
/// recording governor.
pub(crate) fn report(corpus: &Corpus) -> String {
    break_evens(&corpus.tabs) + &per_table(corpus) + &per_recorder(corpus)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rteo_core::rteo_core::State;

    /// A table of (exit latency us, target residency us, power mW, entry
    /// energy nJ, polling) states.
    fn table(states: &[(i64, i64, f64, f64, bool)]) -> Table {
        Table {
            name: "test",
            states: states
                .iter()
                .map(|&(lat_us, res_us, _, _, polling)| State {
                    target_residency_ns: res_us * 1000,
                    exit_latency_ns: lat_us * 1000,
                    polling,
                })
                .collect(),
            flags: vec![0; states.len()],
            model_mw: states.iter().map(|s| s.2).collect(),
            entry_nj: states.iter().map(|s| s.3).collect(),
        }
    }

    /// The closed form of the model's break-even point: P_r (L + X_r) +
    /// E_r = P_s (L + X_s) + E_s.
    #[test]
    fn break_even_is_the_models() {
        // WFI (1 us, 400 mW) against a power-down state (100 us, 50 mW)
        // with no entry energy: (50 * 100 - 400 * 1) / 350 = 13.143 us
        let t = table(&[(1, 1, 400.0, 0.0, false), (100, 1000, 50.0, 0.0, false)]);
        assert_eq!(break_even_ns(&t, 0, 1), Some(13_143));
        // with 345400 nJ of its own: (5000 + 345400 - 400) / 350 = 1000 us
        let t = table(&[
            (1, 1, 400.0, 0.0, false),
            (100, 1000, 50.0, 345_400.0, false),
        ]);
        assert_eq!(break_even_ns(&t, 0, 1), Some(1_000_000));
        // a deeper state that draws as much never pays; one that costs
        // nothing pays at once
        let t = table(&[(1, 1, 400.0, 0.0, false), (100, 1000, 400.0, 1.0, false)]);
        assert_eq!(break_even_ns(&t, 0, 1), None);
        let t = table(&[(1, 1, 400.0, 0.0, false), (1, 2, 100.0, 0.0, false)]);
        assert_eq!(break_even_ns(&t, 0, 1), Some(0));
    }

    /// Every table's model breaks even at its target residencies, as the
    /// tables define them (cpuidle_tables::entry_nj), time-scaled too; and
    /// for any idle time the cheapest state is the deepest whose target
    /// residency fits it, the oracle's choice, so that regret's zero is the
    /// model's optimum.
    #[test]
    fn every_table_breaks_even_at_its_targets() {
        let mut names: Vec<String> = Vec::new();
        for t in crate::table::tables() {
            names.push(t.name.to_string());
            names.push(format!("{}-x10", t.name));
        }
        names.extend(["mvebu-xp-2014", "msm8916", "msm8916-x1000"].map(String::from));
        for name in &names {
            let t = crate::table::table_named(name).unwrap();
            for s in 1..t.states.len() {
                assert_eq!(
                    break_even_ns(&t, s - 1, s),
                    Some(t.states[s].target_residency_ns),
                    "{name} state {s}"
                );
            }
            let last = t.states.last().unwrap().target_residency_ns;
            for k in 0..=4000 {
                let len = k * (2 * last / 4000).max(1);
                let cheapest = (0..t.states.len())
                    .min_by(|&a, &b| {
                        let (ea, eb) = (entry(&t, a, len), entry(&t, b, len));
                        // a tie goes to the deeper state, as the oracle's
                        ea.partial_cmp(&eb).unwrap().then(b.cmp(&a))
                    })
                    .unwrap();
                let oracle = crate::oracle::oracle(&t, len, i64::MAX);
                let (ec, eo) = (entry(&t, cheapest, len), entry(&t, oracle, len));
                assert!(
                    cheapest == oracle || (ec - eo).abs() < 1e-6 * eo,
                    "{name} {len} ns: cheapest {cheapest}, oracle {oracle}"
                );
            }
        }
    }

    #[test]
    fn recorder_of_a_trace() {
        assert_eq!(
            recorded_under("rec-mvebu-xp-x10.cyclic8.menu"),
            Some("menu")
        );
        assert_eq!(recorded_under("rec-x86-like-x10.idle.rteo"), Some("rteo"));
        assert_eq!(recorded_under("periodic-timer"), None);
        assert_eq!(recorded_under("rec-nodot"), None);
    }

    /// The report's verdict follows the break-even point: a state whose
    /// entry energy makes it pay exactly from its target residency says so.
    #[test]
    fn verdicts() {
        let exact = table(&[
            (1, 1, 400.0, 0.0, false),
            (100, 1000, 50.0, 345_400.0, false),
        ]);
        let early = table(&[(1, 1, 400.0, 0.0, false), (100, 1000, 50.0, 0.0, false)]);
        let late = table(&[
            (1, 1, 400.0, 0.0, false),
            (100, 1000, 50.0, 700_000.0, false),
        ]);
        let r = break_evens(&[exact, early, late]);
        let lines: Vec<&str> = r.lines().filter(|l| l.starts_with("| test")).collect();
        assert_eq!(lines.len(), 3, "{r}");
        assert!(lines[0].ends_with("| 1000 | pays from its target |"), "{r}");
        assert!(
            lines[1].ends_with("| 13.143 | pays 76.09 x before its target |"),
            "{r}"
        );
        assert!(lines[2].contains("pays only"), "{r}");
    }
}
