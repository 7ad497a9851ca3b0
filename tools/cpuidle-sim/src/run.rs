// SPDX-License-Identifier: GPL-2.0

//! `cpuidle-sim run`: every governor on the corpus, the tuning set's table
//! printed, and, in one run, every report asked for: the markdown report
//! (`--md`), its JSON (`--json`), the short summary (`--summary`) and the
//! energy model's report (`--model`).  Fails when rteo's parity mode does
//! not score as teo.c (src/targets.rs).

use crate::{
    corpus::{Corpus, CorpusOpts, Set},
    model, reports, targets,
};
use std::process::ExitCode;

/// `cpuidle-sim run`'s arguments.
#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    corpus: CorpusOpts,
    /// Write the whole report, markdown, to FILE
    #[arg(long, value_name = "FILE")]
    md: Option<String>,
    /// Write every score, JSON, to FILE (evaluation/sim_plots.py draws it)
    #[arg(long, value_name = "FILE")]
    json: Option<String>,
    /// Write the summary, the sets' tables, to FILE
    #[arg(long, value_name = "FILE")]
    summary: Option<String>,
    /// Write the energy model's report (`cpuidle-sim model`) to FILE
    #[arg(long, value_name = "FILE")]
    model: Option<String>,
}

/// Runs the corpus, prints the tuning set's table and writes the reports.
pub(crate) fn main(args: &RunArgs) -> ExitCode {
    let Some(corpus) = Corpus::run_or_report(&args.corpus) else {
        return ExitCode::FAILURE;
    };
    reports::breakdown_if_asked(&corpus.rows);
    // rteo in parity mode must score exactly as teo.c: same decisions, on
    // every run of every set
    let parity_ok = targets::parity(&corpus.rows).iter().all(|p| p.3 == 0);
    let bar_now = targets::bar_of(&corpus);
    // the headline: the tuning set, the population of `check`
    let headline = reports::set_table(&corpus.rows, Set::Tuning);
    print!("{headline}");
    let cmd = std::env::args().collect::<Vec<_>>().join(" ");
    let outputs: [(&Option<String>, &dyn Fn() -> String); 4] = [
        (&args.md, &|| reports::markdown(&corpus, &cmd, &headline)),
        (&args.json, &|| reports::json(&corpus, &bar_now.targets)),
        (&args.summary, &|| reports::summary(&corpus, &headline)),
        (&args.model, &|| model::report(&corpus)),
    ];
    for (path, make) in outputs {
        let Some(path) = path else { continue };
        if let Err(e) = std::fs::write(path, make()) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if parity_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
