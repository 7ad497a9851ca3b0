// SPDX-License-Identifier: GPL-2.0

//! Idle-trace simulator: replays idle episodes through rteo's decision core
//! (both modes), the kernel's teo.c and menu.c (compiled from the kernel
//! tree with the parity shim, see build.rs) and an oracle, on every table of
//! `drivers/cpuidle/cpuidle_tables.rs`, and scores them.  README.md has the
//! model, the corpus, the bar and the replay; `cpuidle-sim help` the
//! commands.
//!
//! The modules, from the leaves up (each uses only modules listed before
//! it):
//!
//! * `units`, `json`: ns per us and ratios; the reports' numbers and the
//!   baseline's JSON reader;
//! * `simcore`: the kernel's C the governors run in (build.rs);
//! * `table`: the tables and their energy model;
//! * `episode`: idle episodes, synthetic and recorded;
//! * `oracle`: the oracle, the kernel's above/below rule, an entry's price;
//! * `governors`: teo.c, menu.c and rteo behind one trait;
//! * `simulate`: one governor on one trace, closed loop, and its score;
//! * `corpus`: every governor on every trace and table, and the sets;
//! * `bar`: the bar's targets, its baseline file and the ratchet;
//! * `targets`: what the bar reads of a corpus run (parity, targets);
//! * `reports`, `model`: the corpus run's markdown and JSON; the energy
//!   model's report;
//! * one module per command: `run`, `check`, `model`, `replay`;
//! * this file: the command line.
//!
//! Debugging: `SIM_TRACE=governor/table[/class]` (with `SIM_FROM`,
//! `SIM_TO`) prints that run's entries; `SIM_BREAKDOWN=1` prints, per run
//! and per set, the energy regret by kind of period (one with a too-deep
//! entry, a too-shallow one, split into several entries, one entry) and,
//! per run, the too-shallow entries by what ended them (tick, polling
//! limit, wake-up).

use clap::{Parser, Subcommand};
use std::process::ExitCode;

mod bar;
mod check;
mod corpus;
mod episode;
mod governors;
mod json;
mod model;
mod oracle;
mod replay;
mod reports;
mod run;
mod simcore;
mod simulate;
mod table;
mod targets;
mod units;

/// Replays idle traces through rteo, the kernel's teo.c and menu.c, and an
/// oracle, on the tables of cpuidle_tables.rs, and scores them.
#[derive(Parser, Debug)]
#[command(name = "cpuidle-sim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the corpus: print the tuning set's table, write the reports
    /// asked for (evaluation/sim.sh, make sim)
    Run(run::RunArgs),
    /// The bar: parity mode against teo.c, rteo's targets, the ratchet
    /// against the committed baseline (make check)
    Check(check::CheckArgs),
    /// The energy model against the tables' target residencies, and each
    /// table's share of the energy and its regrets
    Model(model::ModelArgs),
    /// Replay one recorded trace with one governor on one table, and report
    /// what the guest's tracepoints measure of it (evaluation/fidelity.py)
    Replay(replay::ReplayArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run(a) => run::main(&a),
        Command::Check(a) => check::main(&a),
        Command::Model(a) => model::main(&a),
        Command::Replay(a) => replay::main(&a),
    }
}
