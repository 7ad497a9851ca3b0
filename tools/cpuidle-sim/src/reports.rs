// SPDX-License-Identifier: GPL-2.0

//! What a corpus run reports: the markdown tables (stdout and `--md`),
//! the JSON summary (`--json`), the regret's breakdown (`SIM_BREAKDOWN`),
//! and the information bound's reports, `--bound` and `--policy-sweep`.

use crate::{
    bar, bound,
    corpus::{score_of, set_traces, Corpus, Episode, Row, Set, CLASSES},
    governors::{TimerOnly, GOVS},
    simcore::Core,
    simulate::{simulate, Score},
    table::Table,
};
use std::fmt::Write as _;

pub(crate) fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

pub(crate) fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        n as f64 / d as f64
    }
}

/// Every field of a score.  Rates: `*_pct` in % of the entries or per 100
/// periods (as the tables), `*_per_entry` and `*_per_period` as plain
/// ratios.
fn score_json(s: &Score) -> String {
    format!(
        "\"energy_regret\": {}, \"too_deep_pct\": {}, \"too_shallow_pct\": {}, \"above_per_entry_pct\": {}, \"below_per_entry_pct\": {}, \"too_deep_per_entry\": {}, \"too_shallow_per_entry\": {}, \"too_deep_per_period\": {}, \"too_shallow_per_period\": {}, \"exact_pct\": {}, \"irq_exit_latency_us\": {}, \"irq_wakes\": {}, \"irq_wake_latency_us\": {}, \"irq_ends\": {}, \"periods\": {}, \"entries\": {}, \"energy_mj\": {}, \"oracle_energy_mj\": {}",
        json_num(s.regret()),
        json_num(s.too_deep()),
        json_num(s.too_shallow()),
        json_num(s.per_entry().0),
        json_num(s.per_entry().1),
        json_num(ratio(s.above, s.entries)),
        json_num(ratio(s.below, s.entries)),
        json_num(ratio(s.above, s.periods)),
        json_num(ratio(s.below, s.periods)),
        json_num(s.accuracy()),
        json_num(s.latency_us()),
        s.irq_wakes,
        json_num(s.wake_latency_us()),
        s.irq_ends,
        s.periods,
        s.entries,
        json_num(s.energy / 1e12),
        json_num(s.oracle_energy / 1e12)
    )
}

/// The held-out block's fields.
fn heldout_json(s: &Score) -> String {
    format!(
        "\"energy_regret\": {}, \"too_deep_per_entry\": {}, \"too_shallow_per_entry\": {}, \"irq_exit_latency_us\": {}, \"too_deep_per_period\": {}, \"too_shallow_per_period\": {}, \"periods\": {}, \"entries\": {}",
        json_num(s.regret()),
        json_num(ratio(s.above, s.entries)),
        json_num(ratio(s.below, s.entries)),
        json_num(s.latency_us()),
        json_num(ratio(s.above, s.periods)),
        json_num(ratio(s.below, s.periods)),
        s.periods,
        s.entries
    )
}

/// The governors and the oracle, for the blocks and tables.
const ALL: &[&str] = &["rteo", "rteo-parity", "teo", "menu", "oracle"];

/// A markdown table of one set.
pub(crate) fn set_table(rows: &[Row], set: Set) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| governor | energy regret vs oracle | too deep (per 100 periods) | too shallow (per 100 periods) | above / below per entry % | exact state % | exit latency on IRQ wake-ups (us) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for &g in ALL {
        let s = score_of(rows, g, Some(set), None);
        let (a, b) = s.per_entry();
        let _ = writeln!(
            out,
            "| {g} | {:.4} | {:.2} | {:.2} | {a:.2} / {b:.2} | {:.1} | {:.2} |",
            if g == "oracle" { 0.0 } else { s.regret() },
            s.too_deep(),
            s.too_shallow(),
            s.accuracy(),
            s.latency_us()
        );
    }
    out
}

/// (held out, QoS-limited on some table) of class `c`.
fn class_flags(rows: &[Row], c: &str) -> (bool, bool) {
    (
        rows.iter().any(|r| r.class == c && r.heldout),
        rows.iter().any(|r| r.class == c && r.qos),
    )
}

/// `SIM_BREAKDOWN=1`, on stderr: per run, where the too-shallow entries
/// come from and the energy regret by kind of period; then the regret by
/// kind per set.
pub(crate) fn breakdown(rows: &[Row]) {
    let kinds = |s: &Score| {
        let k = s.excess_by_kind.map(|x| x / s.oracle_energy);
        format!(
            "regret {:.4} = too deep {:.4} + too shallow {:.4} + split {:.4} + one entry {:.4}",
            s.regret(),
            k[0],
            k[1],
            k[2],
            k[3]
        )
    };
    for r in rows {
        let s = &r.score;
        eprintln!(
            "{:18} {:15} {:12} above {:7} below {:8} (tick {:8}, poll limit {:8}, wake-up {:7}) {}",
            r.table,
            r.class,
            r.gov,
            s.above,
            s.below,
            s.below_tick,
            s.below_poll,
            s.below - s.below_tick - s.below_poll,
            kinds(s)
        );
    }
    for (name, set) in [
        ("tuning (no QoS limit)", Set::NoQos),
        ("held out", Set::Heldout),
    ] {
        for g in GOVS {
            eprintln!(
                "{name:22} {g:12} {}",
                kinds(&score_of(rows, g, Some(set), None))
            );
        }
    }
}

/// The `--md` report of the corpus run: the setup (`cmd`, the command
/// line), the tables of each set (`headline`: the tuning set's), per trace
/// class and per table and class.
pub(crate) fn markdown(
    corpus: &Corpus,
    cmd: &str,
    relax_ns: u64,
    exact_poll: bool,
    headline: &str,
) -> String {
    let Corpus {
        rows,
        tabs,
        recorded,
        classes: class_names,
        limits,
        episodes,
    } = *corpus;
    let mut per_class = String::new();
    let _ = writeln!(
        per_class,
        "| class | set | governor | energy regret | too deep /100 periods | too shallow /100 periods | above / below per entry % | exact % | IRQ exit latency (us) |"
    );
    let _ = writeln!(per_class, "|---|---|---|---|---|---|---|---|---|");
    for &c in class_names {
        let (h, q) = class_flags(rows, c);
        let set = match (h, q) {
            (true, _) => "held out",
            (false, true) => "tuning, QoS-limited",
            _ => "tuning",
        };
        for &g in ALL {
            let s = score_of(rows, g, None, Some(c));
            let (a, b) = s.per_entry();
            let _ = writeln!(
                per_class,
                "| {c} | {set} | {g} | {:.4} | {:.2} | {:.2} | {a:.2} / {b:.2} | {:.1} | {:.2} |",
                if g == "oracle" { 0.0 } else { s.regret() },
                s.too_deep(),
                s.too_shallow(),
                s.accuracy(),
                s.latency_us()
            );
        }
    }
    let mut per_table = String::new();
    let _ = writeln!(
        per_table,
        "| table | class | governor | energy regret | too deep /100 periods | too shallow /100 periods | exact % |"
    );
    let _ = writeln!(per_table, "|---|---|---|---|---|---|---|");
    for r in rows {
        let s = r.score;
        let _ = writeln!(
            per_table,
            "| {} | {} | {} | {:.4} | {:.2} | {:.2} | {:.1} |",
            r.table,
            r.class,
            r.gov,
            s.regret(),
            s.too_deep(),
            s.too_shallow(),
            s.accuracy()
        );
    }
    let limits_text = limits
        .iter()
        .map(|(t, l)| format!("{t} {} us", *l as f64 / 1000.0))
        .collect::<Vec<_>>()
        .join(", ");
    let names_of = |h: bool| {
        recorded
            .iter()
            .filter(|r| r.heldout == h)
            .map(|r| format!("{}: {} episodes", r.name, r.episodes.len()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut m = String::new();
    let _ = writeln!(m, "## Simulator (host, `{cmd}`)\n");
    let _ = writeln!(
        m,
        "{episodes} episodes per synthetic trace ({} classes, seeds fixed in tools/cpuidle-sim), recorded traces for tuning ({}) and held out ({}), x {} tables. Polling limit (`cpuidle_poll_time()` of the tree): {limits_text}; one `cpu_relax()` = {relax_ns} ns{}.\n",
        CLASSES.len(),
        names_of(false),
        names_of(true),
        tabs.len(),
        if exact_poll {
            ", the tree's poll_idle() loop"
        } else {
            ""
        }
    );
    let _ = writeln!(
        m,
        "### Tuning set (synthetic classes and corpus/tuning; the `--check` population)\n\n{headline}"
    );
    let _ = writeln!(
        m,
        "### Tuning set without latency limits\n\n{}",
        set_table(rows, Set::NoQos)
    );
    let _ = writeln!(
        m,
        "### QoS-limited workloads (a latency limit forbids some state)\n\n{}",
        set_table(rows, Set::Qos)
    );
    let _ = writeln!(
        m,
        "### Held out (corpus/heldout)\n\n{}",
        set_table(rows, Set::Heldout)
    );
    let _ = writeln!(m, "### Per trace class\n\n{per_class}");
    let _ = writeln!(m, "### Per table and class\n\n{per_table}");
    m
}

/// The `--json` summary of the corpus run: the setup, every governor's
/// score per set, rteo's `targets` (the bar's), per trace class and per
/// table and class.
pub(crate) fn json(
    corpus: &Corpus,
    relax_ns: u64,
    exact_poll: bool,
    targets: &[bar::Target],
) -> String {
    let Corpus {
        rows,
        recorded,
        classes: class_names,
        limits,
        episodes,
        ..
    } = *corpus;
    let mut j = String::new();
    let _ = writeln!(
        j,
        "{{\n  \"episodes_per_trace\": {episodes},\n  \"relax_ns\": {relax_ns},\n  \"exact_poll\": {exact_poll},"
    );
    let _ = writeln!(
        j,
        "  \"poll_limit_ns\": {{ {} }},",
        limits
            .iter()
            .map(|(t, l)| format!("\"{t}\": {l}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let list = |h: bool| {
        recorded
            .iter()
            .filter(|r| r.heldout == h)
            .map(|r| format!("\"{}\"", r.name))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(
        j,
        "  \"corpus\": {{ \"tuning\": [{}], \"heldout\": [{}] }},",
        list(false),
        list(true)
    );
    for (key, set) in [
        ("overall", Set::NoQos),
        ("qos_limited", Set::Qos),
        ("tuning", Set::Tuning),
    ] {
        let _ = writeln!(j, "  \"{key}\": {{");
        for (k, &g) in ALL.iter().enumerate() {
            let sep = if k + 1 < ALL.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "    \"{g}\": {{ {} }}{sep}",
                score_json(&score_of(rows, g, Some(set), None))
            );
        }
        let _ = writeln!(j, "  }},");
    }
    let _ = writeln!(j, "  \"heldout\": {{");
    let hg = ["rteo", "teo", "menu", "oracle"];
    for (k, &g) in hg.iter().enumerate() {
        let sep = if k + 1 < hg.len() { "," } else { "" };
        let _ = writeln!(
            j,
            "    \"{g}\": {{ {} }}{sep}",
            heldout_json(&score_of(rows, g, Some(Set::Heldout), None))
        );
    }
    let _ = writeln!(j, "  }},\n  \"targets\": {{");
    for (k, (set, _)) in bar::SETS.iter().enumerate() {
        let sep = if k + 1 < bar::SETS.len() { "," } else { "" };
        let _ = writeln!(
            j,
            "    \"{set}\": {}{sep}",
            bar::set_json(targets, set, "    ")
        );
    }
    let _ = writeln!(j, "  }},\n  \"per_class\": [");
    let mut first = true;
    for &c in class_names {
        let (h, q) = class_flags(rows, c);
        for &g in ALL {
            let _ = write!(j, "{}", if first { "" } else { ",\n" });
            first = false;
            let _ = write!(
                j,
                "    {{ \"class\": \"{c}\", \"governor\": \"{g}\", \"heldout\": {h}, \"qos_limited\": {q}, {} }}",
                score_json(&score_of(rows, g, None, Some(c)))
            );
        }
    }
    let _ = writeln!(j, "\n  ],\n  \"per_table_class\": [");
    let mut first = true;
    for r in rows {
        let mut emit = |g: &str, s: &Score| {
            let _ = write!(j, "{}", if first { "" } else { ",\n" });
            first = false;
            let _ = write!(
                j,
                "    {{ \"table\": \"{}\", \"class\": \"{}\", \"governor\": \"{g}\", \"heldout\": {}, \"qos_limited\": {}, {} }}",
                r.table,
                r.class,
                r.heldout,
                r.qos,
                score_json(s)
            );
        };
        emit(r.gov, &r.score);
        if r.gov == "teo" {
            emit("oracle", &r.score.of_oracle());
        }
    }
    let _ = writeln!(j, "\n  ]\n}}");
    j
}

/// `policy`'s score in the simulator's closed loop ([`bound::PolicyGov`])
/// on `traces`.
fn closed_loop(
    core: &mut Core,
    policy: &bound::Policy,
    k: usize,
    traces: &[(&Table, &'static str, Vec<Episode>, i64)],
) -> Score {
    let mut sc = Score::default();
    for (t, class, trace, _) in traces {
        let mut g = bound::PolicyGov::new(policy.clone(), k);
        sc.add(&simulate(core, &mut g, t, class, trace));
    }
    sc
}

/// `--policy-sweep`: the tuning set's policy per table ([`bound_table`]'s
/// last columns) made at every weight of a grid on too-deep entries,
/// too-shallow first entries and IRQ exit latency, each in the closed loop
/// on the tuning and the held-out sets, with k = 1 and 2 periods of
/// history; then the readings: the weights chosen on the tuning set
/// (the lowest tuning regret within teo's too-deep rate and IRQ exit
/// latency and menu's too-shallow rate, per entry), the best held-out
/// regret within the held-out targets (with hindsight), the lowest
/// held-out regret within teo's too-deep rate and latency, within each
/// alone, and of any setting (with hindsight).
pub(crate) fn policy_sweep(core: &mut Core, corpus: &Corpus) -> String {
    const WEIGHTS: [f64; 4] = [0.0, 0.03, 0.3, 3.0];
    // (regret, too deep per entry, too shallow per entry, latency)
    type Figures = (f64, f64, f64, f64);
    let rows = corpus.rows;
    let traces = |set| set_traces(corpus, set);
    let (tuning, heldout) = (traces(Set::NoQos), traces(Set::Heldout));
    let fig = |s: &Score| -> Figures {
        let (d, sh) = s.per_entry();
        (s.regret(), d / 100.0, sh / 100.0, s.latency_us())
    };
    let fmt = |f: Figures| format!("{:.4} | {:.5} | {:.5} | {:.2}", f.0, f.1, f.2, f.3);
    let (teo_t, menu_t) = (
        fig(&score_of(rows, "teo", Some(Set::NoQos), None)),
        fig(&score_of(rows, "menu", Some(Set::NoQos), None)),
    );
    let (teo_h, menu_h) = (
        fig(&score_of(rows, "teo", Some(Set::Heldout), None)),
        fig(&score_of(rows, "menu", Some(Set::Heldout), None)),
    );
    let mut out = format!(
        "cpuidle-sim --policy-sweep: the tuning set's policy per table in the closed loop; per entry: too deep, too shallow\n\nteo: tuning {}; held out {}\nmenu: tuning {}; held out {}\n\n| k | w deep | w shallow | w latency | tuning regret | too deep | too shallow | IRQ exit latency (us) | held-out regret | too deep | too shallow | IRQ exit latency (us) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        fmt(teo_t),
        fmt(teo_h),
        fmt(menu_t),
        fmt(menu_h)
    );
    let mut runs = Vec::new();
    for k in [1, 2] {
        let mut ctx = bound::Contexts::default();
        for (t, _, trace, limit) in &tuning {
            ctx.add(t, "", trace, *limit, k);
        }
        for wd in WEIGHTS {
            for ws in WEIGHTS {
                for wl in WEIGHTS {
                    let p = ctx.policy(wd, ws, wl);
                    let (a, b) = (
                        fig(&closed_loop(core, &p, k, &tuning)),
                        fig(&closed_loop(core, &p, k, &heldout)),
                    );
                    let _ = writeln!(
                        out,
                        "| {k} | {wd} | {ws} | {wl} | {} | {} |",
                        fmt(a),
                        fmt(b)
                    );
                    runs.push(((k, wd, ws, wl), a, b));
                }
            }
        }
    }
    let reading = |what: &str, pick: Option<&(_, Figures, Figures)>| match pick {
        Some(&((k, wd, ws, wl), a, b)) => format!(
            "{what}: k {k}, weights {wd}, {ws}, {wl}: tuning {}; held out {} ({:.2} x teo)\n",
            fmt(a),
            fmt(b),
            b.0 / teo_h.0
        ),
        None => format!("{what}: none\n"),
    };
    // every target's side: too deep and latency at most teo's, too
    // shallow at most menu's
    let within =
        |f: &Figures, teo: &Figures, menu: &Figures| f.1 <= teo.1 && f.2 <= menu.2 && f.3 <= teo.3;
    // the lowest regret on the tuning set (`false`) or the held-out set
    // among the runs whose figures there `keep`
    let lowest_with = |heldout: bool, keep: &dyn Fn(&Figures) -> bool| {
        let on = |r: &(_, Figures, Figures)| if heldout { r.2 } else { r.1 };
        runs.iter()
            .filter(|r| keep(&on(r)))
            .min_by(|x, y| on(x).0.total_cmp(&on(y).0))
    };
    let chosen = lowest_with(false, &|f| within(f, &teo_t, &menu_t));
    let best = lowest_with(true, &|f| within(f, &teo_h, &menu_h));
    let deep_lat = lowest_with(true, &|f| f.1 <= teo_h.1 && f.3 <= teo_h.3);
    let deep = lowest_with(true, &|f| f.1 <= teo_h.1);
    let lat = lowest_with(true, &|f| f.3 <= teo_h.3);
    let lowest = lowest_with(true, &|_| true);
    out += &reading(
        "chosen on the tuning set (within teo's too deep and latency, menu's too shallow)",
        chosen,
    );
    out += &reading(
        "best held out within its three targets, with hindsight",
        best,
    );
    out += &reading(
        "lowest held out within teo's too deep and latency, with hindsight",
        deep_lat,
    );
    out += &reading(
        "lowest held out within teo's too deep alone, with hindsight",
        deep,
    );
    out += &reading(
        "lowest held out within teo's latency alone, with hindsight",
        lat,
    );
    out += &reading("lowest held out of any", lowest);
    out
}

/// Most periods of history [`bound_table`] takes as context.
const BOUND_K: usize = 3;

/// `--bound`: what a policy that decides from the sleep length and the
/// last k periods could reach with hindsight (src/bound.rs), per set and
/// k, beside teo, rteo and the timer alone in the simulator: a policy per
/// trace with energy alone, then the lowest regret that keeps too deep
/// and the IRQ exit latency at teo's (energy weighed against both, the
/// weights swept), a policy per trace and one per table for every trace
/// of the set; last, the tuning set's policy per table, on each set, and
/// the same in the simulator's closed loop, where it pays for the tick and
/// decides again after it as a governor would ([`bound::PolicyGov`]).
pub(crate) fn bound_table(core: &mut Core, corpus: &Corpus) -> String {
    let rows = corpus.rows;
    let mut out = String::from(
        "regret / too deep per 100 periods / IRQ exit latency (us); the energy model's optimum: the regret of the cheapest state for every period, clairvoyant\n\n| set | k | teo | rteo | the timer alone | the model's optimum | bound per trace, energy alone | bound per trace, too deep and latency at most teo's | bound per table, the same | per table, made on the tuning set | the same, closed loop |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let fmt = |(r, d, l): (f64, f64, f64)| format!("{r:.4} / {d:.2} / {l:.2}");
    let of = |s: &Score| fmt((s.regret(), s.too_deep(), s.latency_us()));
    let within = |c: &bound::Contexts, teo: &Score| {
        c.best_within(teo.too_deep(), teo.latency_us())
            .map_or("none".to_string(), fmt)
    };
    let mut made: Vec<Option<bound::Policy>> = vec![None; BOUND_K + 1];
    for (name, set) in [
        ("tuning (no QoS limit)", Set::NoQos),
        ("held out", Set::Heldout),
    ] {
        let teo = score_of(rows, "teo", Some(set), None);
        let rteo = score_of(rows, "rteo", Some(set), None);
        let mut timer = Score::default();
        let traces = set_traces(corpus, set);
        for (k, made) in made.iter_mut().enumerate() {
            let (mut per_trace, mut per_table) =
                (bound::Contexts::default(), bound::Contexts::default());
            for (t, class, trace, limit) in &traces {
                per_trace.add(t, class, trace, *limit, k);
                per_table.add(t, "", trace, *limit, k);
                if k == 0 {
                    let mut g = TimerOnly(Vec::new());
                    timer.add(&simulate(core, &mut g, t, class, trace));
                }
            }
            // the tuning set's per-table policy at the weights that keep it
            // within teo's there, then applied to the held-out set
            let made_here = match made {
                None => {
                    *made = per_table
                        .weights_within(teo.too_deep(), teo.latency_us())
                        .map(|(_, wd, wl)| per_table.policy(wd, 0.0, wl));
                    "(made here)".to_string()
                }
                Some(p) => fmt(per_table.apply(p)),
            };
            let closed = made.as_ref().map_or("none".to_string(), |p| {
                of(&closed_loop(core, p, k, &traces))
            });
            let _ = writeln!(
                out,
                "| {name} | {k} | {} | {} | {} | {:.4} | {} | {} | {} | {made_here} | {closed} |",
                of(&teo),
                of(&rteo),
                of(&timer),
                per_trace.cheapest(),
                fmt(per_trace.best(0.0, 0.0)),
                within(&per_trace, &teo),
                within(&per_table, &teo),
            );
        }
    }
    out
}
