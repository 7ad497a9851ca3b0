// SPDX-License-Identifier: GPL-2.0

//! `cpuidle-sim check`: the bar (README.md, "The bar"; the baseline's
//! format and the ratchet are src/bar.rs).  After the corpus run and its
//! headline table: rteo's parity mode against teo.c on every run and
//! rteo's targets on each set shown, then this run ratcheted against the
//! baseline, or written as the new one (`--write-baseline`).

use crate::{
    bar,
    corpus::{Corpus, CorpusOpts, Set},
    reports, targets,
};
use std::process::ExitCode;

/// `cpuidle-sim check`'s arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    #[command(flatten)]
    corpus: CorpusOpts,
    /// The baseline this run is ratcheted against
    #[arg(long, value_name = "FILE", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/bar-baseline.json"))]
    baseline: String,
    /// Write this run's bar to FILE, the new baseline, instead of
    /// ratcheting against one
    #[arg(long, value_name = "FILE", conflicts_with = "baseline")]
    write_baseline: Option<String>,
}

/// Runs the corpus, prints its headline table and the bar, and writes the
/// baseline or ratchets against it.
pub(crate) fn main(args: &CheckArgs) -> ExitCode {
    let Some(corpus) = Corpus::run_or_report(&args.corpus) else {
        return ExitCode::FAILURE;
    };
    reports::breakdown_if_asked(&corpus.rows);
    let parity = targets::parity(&corpus.rows);
    let parity_ok = parity.iter().all(|p| p.3 == 0);
    let bar_now = targets::bar_of(&corpus);
    print!("{}", reports::set_table(&corpus.rows, Set::Tuning));
    show(&parity, parity_ok, &bar_now);
    if let Some(path) = &args.write_baseline {
        return write_baseline(parity_ok, &bar_now, path);
    }
    let ratchet_ok = ratchet(&bar_now, &args.baseline);
    if parity_ok && ratchet_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The parity verdict and rteo's targets, one a line.
fn show(parity: &[(&str, Set, usize, usize)], parity_ok: bool, bar_now: &bar::Bar) {
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
}

/// `--write-baseline`: what changed against the file, then the file
/// written; refused when parity mode differs from teo.c.
fn write_baseline(parity_ok: bool, bar_now: &bar::Bar, path: &str) -> ExitCode {
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
    ExitCode::SUCCESS
}

/// The ratchet: no target the baseline has met missed, none of rteo's
/// values worse than the baseline's; whether it held.
fn ratchet(bar_now: &bar::Bar, baseline: &str) -> bool {
    match bar::Bar::load(baseline) {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{corpus_list, load_corpus};
    use rteo_core::rteo_core::rule;

    /// The committed baseline of `check` reads, and is for the default
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
            "the corpus changed: cpuidle-sim check --write-baseline {path}"
        );
    }
}
