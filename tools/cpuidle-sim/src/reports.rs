// SPDX-License-Identifier: GPL-2.0

//! What a corpus run reports: the markdown tables (stdout and `--md`),
//! the JSON summary (`--json`) and the regret's breakdown
//! (`SIM_BREAKDOWN`).

use crate::{
    bar,
    corpus::{score_of, Corpus, Row, Set},
    episode::CLASSES,
    governors::GOVS,
    json::fixed as json_num,
    simulate::Score,
    units::ratio,
};
use std::fmt::Write as _;

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

/// With `SIM_BREAKDOWN` set, [`breakdown`].
pub(crate) fn breakdown_if_asked(rows: &[Row]) {
    if std::env::var_os("SIM_BREAKDOWN").is_some() {
        breakdown(rows);
    }
}

/// `SIM_BREAKDOWN=1`, on stderr: per run, where the too-shallow entries
/// come from and the energy regret by kind of period; then the regret by
/// kind per set.
fn breakdown(rows: &[Row]) {
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

/// The table of each set, under its heading (`headline`: the tuning
/// set's).
fn set_sections(rows: &[Row], headline: &str) -> String {
    format!(
        "### Tuning set (synthetic classes and corpus/tuning; the `--check` population)\n\n{headline}\n### Tuning set without latency limits\n\n{}\n### QoS-limited workloads (a latency limit forbids some state)\n\n{}\n### Held out (corpus/heldout)\n\n{}\n",
        set_table(rows, Set::NoQos),
        set_table(rows, Set::Qos),
        set_table(rows, Set::Heldout)
    )
}

/// The summary of the corpus run (`run --summary`): its size and the table
/// of each set (`headline`: the tuning set's), as the report has them.
pub(crate) fn summary(corpus: &Corpus, headline: &str) -> String {
    let sets = |h: bool| corpus.recorded.iter().filter(|r| r.heldout == h).count();
    format!(
        "## Simulator, the stored corpus (`cpuidle-sim run`; the whole report: `make sim`, out/sim/sim.md)\n\n{} episodes per synthetic trace ({} classes), {} recorded traces for tuning and {} held out, x {} tables; one `cpu_relax()` = {} ns.\n\n{}",
        corpus.episodes,
        CLASSES.len(),
        sets(false),
        sets(true),
        corpus.tabs.len(),
        corpus.knobs.relax_ns,
        set_sections(&corpus.rows, headline)
    )
}

/// The `--md` report of the corpus run: the setup (`cmd`, the command
/// line), the tables of each set (`headline`: the tuning set's), per trace
/// class and per table and class.
pub(crate) fn markdown(corpus: &Corpus, cmd: &str, headline: &str) -> String {
    let Corpus {
        rows,
        tabs,
        recorded,
        classes: class_names,
        limits,
        episodes,
        knobs,
    } = corpus;
    let (relax_ns, exact_poll) = (knobs.relax_ns, knobs.exact_poll);
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
    m += &set_sections(rows, headline);
    let _ = writeln!(m, "### Per trace class\n\n{per_class}");
    let _ = writeln!(m, "### Per table and class\n\n{per_table}");
    m
}

/// The `--json` summary of the corpus run: the setup, every governor's
/// score per set, rteo's `targets` (the bar's), per trace class and per
/// table and class.
pub(crate) fn json(corpus: &Corpus, targets: &[bar::Target]) -> String {
    let Corpus {
        rows,
        recorded,
        classes: class_names,
        limits,
        episodes,
        knobs,
        ..
    } = corpus;
    let (relax_ns, exact_poll) = (knobs.relax_ns, knobs.exact_poll);
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
    j += &per_class_json(rows, class_names);
    let _ = writeln!(j, "\n  ],\n  \"per_table_class\": [");
    j += &per_table_json(rows);
    let _ = writeln!(j, "\n  ]\n}}");
    j
}

/// `per_class`'s entries: every score per trace class and governor.
fn per_class_json(rows: &[Row], class_names: &[&str]) -> String {
    let mut j = String::new();
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
    j
}

/// `per_table_class`'s entries: every run's score, and the oracle's with
/// teo's run.
fn per_table_json(rows: &[Row]) -> String {
    let mut j = String::new();
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
    j
}
