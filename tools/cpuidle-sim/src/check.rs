// SPDX-License-Identifier: GPL-2.0

//! `--check` and `--write-baseline`: rteo's parity mode against teo.c on
//! every run, rteo's targets on each set as a [`bar::Bar`], and the bar
//! itself (src/bar.rs): the targets shown, the baseline written or the run
//! ratcheted against it.

use crate::{
    bar,
    corpus::{corpus_list, total, Recorded, Row, Set},
    governors::RULES,
    reports::ratio,
    simulate::Score,
};
use std::process::ExitCode;

/// rteo's targets on one set (README.md, "The bar"), in the order of
/// [`bar::METRICS`]: its value and the bound from the kernel's governors.
fn targets_of(rows: &[Row], set: Set, name: &str) -> Vec<bar::Target> {
    let of = |g: &str| total(rows, g, Some(set), None);
    let (r, teo, menu) = (of("rteo"), of("teo"), of("menu"));
    bar::METRICS
        .iter()
        .map(|m| {
            let (rteo, bound) = match m.key {
                "energy_regret" => (r.regret(), 0.5 * teo.regret()),
                "too_deep_per_entry" => (ratio(r.above, r.entries), ratio(teo.above, teo.entries)),
                "too_shallow_per_entry" => {
                    (ratio(r.below, r.entries), ratio(menu.below, menu.entries))
                }
                "irq_exit_latency_us" => (r.latency_us(), teo.latency_us()),
                k => unreachable!("no target {k}"),
            };
            bar::Target {
                set: name.to_string(),
                key: m.key.to_string(),
                rteo,
                bound,
            }
        })
        .collect()
}

/// What parity mode must share with teo.c on a run: every count and sum
/// of the score (the same decisions give the same sums, to the bit).
fn parity_key(s: &Score) -> impl PartialEq + use<> {
    (
        (s.periods, s.entries, s.above, s.below, s.exact),
        (s.energy.to_bits(), s.oracle_energy.to_bits()),
        (s.irq_wakes, s.irq_latency_ns.to_bits()),
        (s.irq_ends, s.wake_latency_ns.to_bits()),
        (s.below_tick, s.below_poll),
        (s.state_entries, s.state_ns),
    )
}

/// rteo-parity's runs against teo.c's on each set: (name, set, runs, runs
/// that differ); each run that differs is named on stderr.
pub(crate) fn parity(rows: &[Row]) -> [(&'static str, Set, usize, usize); 3] {
    let mut parity = [
        ("tuning", Set::NoQos, 0, 0),
        ("QoS-limited", Set::Qos, 0, 0),
        ("held-out", Set::Heldout, 0, 0),
    ];
    for r in rows.iter().filter(|r| r.gov == "rteo-parity") {
        let teo = rows
            .iter()
            .find(|x| x.gov == "teo" && x.table == r.table && x.class == r.class)
            .map(|x| x.score);
        let same = teo.is_some_and(|t| parity_key(&t) == parity_key(&r.score));
        if !same {
            eprintln!(
                "cpuidle-sim: rteo-parity differs from teo on {}/{}",
                r.table, r.class
            );
        }
        for p in parity.iter_mut().filter(|p| p.1.has(r)) {
            p.2 += 1;
            p.3 += usize::from(!same);
        }
    }
    parity
}

/// This run's bar: its setup, the recorded corpus and rteo's targets on
/// the held-out and the tuning sets.
pub(crate) fn bar_of(
    rows: &[Row],
    recorded: &[Recorded],
    episodes: usize,
    relax_ns: u64,
) -> bar::Bar {
    bar::Bar {
        episodes: episodes as u64,
        relax_ns,
        rules: u64::from(RULES.load(std::sync::atomic::Ordering::Relaxed)),
        corpus: corpus_list(recorded),
        targets: [("heldout", Set::Heldout), ("tuning", Set::Tuning)]
            .iter()
            .flat_map(|&(name, set)| targets_of(rows, set, name))
            .collect(),
    }
}

/// `--check` (`write_baseline` `None`) or `--write-baseline`, after the
/// run: the parity verdict and rteo's targets shown, then the baseline
/// written, or this run (`bar_now`) ratcheted against the `baseline` file.
pub(crate) fn run(
    parity: &[(&str, Set, usize, usize)],
    parity_ok: bool,
    bar_now: &bar::Bar,
    write_baseline: Option<&str>,
    baseline: &str,
) -> ExitCode {
    // The bar (README.md, "The bar").  Hard: parity mode scores as teo.c.
    println!(
        "sim check: parity: rteo-parity scores exactly as teo on every run: {}: {}",
        parity
            .iter()
            .map(|p| format!(
                "{} {} runs{}",
                p.0,
                p.2,
                if p.3 > 0 {
                    format!(" ({} differ)", p.3)
                } else {
                    String::new()
                }
            ))
            .collect::<Vec<_>>()
            .join(", "),
        if parity_ok { "ok" } else { "FAILED" }
    );
    // The documented targets on the held-out set, and the same on the
    // tuning set: shown, then held to the baseline.
    for t in &bar_now.targets {
        let what = if t.set == "heldout" {
            "target"
        } else {
            "tuning target"
        };
        println!("sim {what}: {}", t.line());
    }
    if let Some(path) = write_baseline {
        if !parity_ok {
            println!("sim baseline: not written: parity mode differs from teo");
            return ExitCode::FAILURE;
        }
        let text = match bar_now.to_json() {
            Ok(t) => t,
            Err(e) => {
                println!("sim baseline: not written: {e}");
                return ExitCode::FAILURE;
            }
        };
        match std::fs::read_to_string(path).map(|t| bar::Bar::parse(&t)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                println!("sim baseline: {path} is new")
            }
            Err(e) => println!("sim baseline: {path} unreadable ({e}): replaced"),
            Ok(Err(e)) => println!("sim baseline: {path} was malformed ({e}): replaced"),
            Ok(Ok(old)) => {
                let changes = bar_now.changes(&old);
                if changes.is_empty() {
                    println!("sim baseline: no change against {path}");
                }
                for c in changes {
                    println!("sim baseline: changed: {c}");
                }
            }
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!("sim baseline: wrote {path}");
        return ExitCode::SUCCESS;
    }
    // The ratchet: no target the baseline has met missed, none of rteo's
    // values worse than the baseline's.
    let ratchet_ok = match bar::Bar::load(baseline) {
        Err(e) => {
            println!("sim ratchet: FAILED: {e}");
            false
        }
        Ok(base) => {
            let v = bar::ratchet(&base, bar_now);
            for b in &v.better {
                println!("sim ratchet: better than baseline: {b}: update with --write-baseline");
            }
            for f in &v.fails {
                println!("sim ratchet: FAIL: {f}");
            }
            let met = |b: &bar::Bar, set: &str| {
                b.targets.iter().filter(|t| t.set == set && t.met()).count()
            };
            println!(
                "sim ratchet: {} values against {baseline} (tolerance {} %), targets met: held-out {} of {n} (baseline {}), tuning {} of {n} (baseline {}): {}",
                bar_now.targets.len(),
                100.0 * bar::REL_TOL,
                met(bar_now, "heldout"),
                met(&base, "heldout"),
                met(bar_now, "tuning"),
                met(&base, "tuning"),
                if v.fails.is_empty() { "ok" } else { "FAILED" },
                n = bar::METRICS.len()
            );
            v.fails.is_empty()
        }
    };
    if parity_ok && ratchet_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::load_corpus;
    use rteo_core::rteo_core::rule;

    /// The committed baseline of `--check` reads, and is for the default
    /// run (every rule, one `cpu_relax()` = 1 ns) and the corpus as it is.
    #[test]
    fn committed_baseline_is_well_formed() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bar-baseline.json");
        let b = bar::Bar::load(path).unwrap();
        assert_eq!((b.rules, b.relax_ns), (u64::from(rule::ALL), 1));
        let corpus = load_corpus(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus")).unwrap();
        let mut now = corpus_list(&corpus);
        let mut base = b.corpus.clone();
        now.sort();
        base.sort();
        assert_eq!(
            base, now,
            "the corpus changed: cpuidle-sim --write-baseline {path}"
        );
    }
}
