// SPDX-License-Identifier: GPL-2.0

//! What the bar reads of a corpus run: whether rteo's parity mode scored
//! exactly as teo.c on every run, and rteo's targets on each set as a
//! [`bar::Bar`] (README.md, "The bar"), for `check` and for `run --json`.

use crate::{
    bar,
    corpus::{corpus_list, total, Corpus, Row, Set},
    governors::RULES,
    simulate::Score,
    units::ratio,
};

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
pub(crate) fn bar_of(corpus: &Corpus) -> bar::Bar {
    let rows = &corpus.rows;
    bar::Bar {
        episodes: corpus.episodes as u64,
        relax_ns: corpus.knobs.relax_ns,
        rules: u64::from(RULES.load(std::sync::atomic::Ordering::Relaxed)),
        corpus: corpus_list(&corpus.recorded),
        targets: [("heldout", Set::Heldout), ("tuning", Set::Tuning)]
            .iter()
            .flat_map(|&(name, set)| targets_of(rows, set, name))
            .collect(),
    }
}
