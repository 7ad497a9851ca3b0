// SPDX-License-Identifier: GPL-2.0

//! Idle-trace simulator: replays idle episodes through rteo's decision core
//! (both modes), the kernel's teo.c and menu.c (compiled from the kernel
//! tree with the parity shim, see build.rs) and an oracle, on every table of
//! `drivers/cpuidle/cpuidle_tables.rs`, and scores them.
//!
//! Usage: cpuidle-sim [--episodes N] [--json FILE] [--md FILE]
//!                    [--corpus DIR] [--rules MASK] [--relax-ns N]
//!                    [--exact-poll] [--check [--baseline FILE]]
//!                    [--write-baseline FILE]
//!        cpuidle-sim --bound [--episodes N] [--corpus DIR] [--rules MASK]
//!                    [--relax-ns N]
//!        cpuidle-sim --model [--episodes N] [--corpus DIR]
//!        cpuidle-sim --replay TRACE --table NAME --governor G
//!                    [--wake-delay-us N [--irq-delay-us N]
//!                     [--tick-costs-us DECIDE,STOP,RESTART]] [--relax-ns N]
//!                    [--json FILE]
//!
//! `--replay` replays one recorded trace (evaluation/trace2corpus.py's
//! format), closed loop as every trace, with governor G (rteo,
//! rteo-parity, teo, menu) on table NAME, and reports what the guest's
//! tracepoints measure of the same run: entries, above and below per entry
//! (`cpuidle_enter_state()`'s counters) and each state's share of the time
//! in states, the exit latency's spin included (evaluation/fidelity.py).  A
//! table NAME is one of `cpuidle_tables.rs` or `BASE-xN`: BASE with every
//! exit latency and target residency multiplied by N, as the
//! emulated-state driver's `scale=N` registers it (the energy model
//! charges the scaled exit latency).  `--wake-delay-us N` replays in the
//! emulated world of src/world.c (an emulator's late interrupts: the tick
//! reaches a halted CPU N us late, a recorded wake-up past its timer is
//! when a halted CPU resumes, and a polling one takes the timer at its
//! expiry where the guest's CPU was halted; README.md, "Replay", has the
//! model and the
//! calibration of N); without it, core.c's world, as the corpus runs.
//! `--irq-delay-us N` adds to that world an interrupt's delay to a halted
//! CPU (none to a polling one), taken off the recorded wake-ups the guest
//! took halted ([`corpus::raise_times`]).  `--tick-costs-us DECIDE,STOP,RESTART`
//! adds the idle loop's own work (evaluation/tickcost.py measures it): each
//! governor decision and each stop of the tick delays the entry after it,
//! a restart of the stopped tick delays the woken task (the replay's
//! interrupt wake-up latency).
//!
//! `--bound` prints what a policy deciding from the sleep length and the
//! last periods could reach with hindsight (src/bound.rs, README.md "What
//! the information permits").
//!
//! `--model` prints each table's energy model against its target
//! residencies, and each table's share of the energy and its regrets
//! (src/model.rs).
//!
//! `--irq-predictor` prints the stop rule's measurement of a predictor of
//! interrupt wake-ups per source, tried as a step of rteo (src/irqpred.rs).
//!
//! `--rules` sets the rules of rteo's default mode in force (bits of the
//! core's `rule` module, all by default; `evaluation/rteo-ablation.sh`).
//! `--relax-ns` sets what one `cpu_relax()` of `poll_idle()` costs in the
//! simulated clock (1 ns by default, see below); `--exact-poll` runs the
//! tree's `poll_idle()` loop itself, one iteration per `cpu_relax()`,
//! instead of its closed form (the same results, tested; minutes instead
//! of a second).  Plots: evaluation/sim_plots.py
//! draws them from the `--json` output (evaluation/sim.sh runs both).
//! Debugging: `SIM_TRACE=governor/table[/class]` (with `SIM_FROM`,
//! `SIM_TO`) prints that run's entries; `SIM_BREAKDOWN=1` prints, per run
//! and per set, the energy regret by kind of period (one with a too-deep
//! entry, a too-shallow one, split into several entries, one entry) and,
//! per run,
//! the too-shallow entries by what ended them (tick, polling limit,
//! wake-up).
//!
//! See `Documentation/admin-guide/pm/rteo.rst` ("Evaluation") for the model;
//! in short:
//!
//! * An episode is one stretch of idle time between two runs of a task:
//!   the time to the next timer when the CPU goes idle, when and by what
//!   (timer or another interrupt) the CPU is really woken, the phase of the
//!   tick and the PM QoS limit.
//! * What happens around the governors is the kernel's own C, cut out of
//!   the cached tree at build time (src/simcore.rs,
//!   tools/cpuidle-parity/shim/core.c): the governor's inputs are
//!   `tick_nohz_get_sleep_length()`, `tick_nohz_tick_stopped()` and
//!   `cpuidle_governor_latency_req()`; its tick decision goes through
//!   `idle_call_stop_or_retain_tick()` to `tick_nohz_idle_stop_tick()` /
//!   `tick_nohz_idle_retain_tick()`; the entry is `cpuidle_enter_state()`,
//!   which measures the residency and counts "above" (too deep) and
//!   "below" (too shallow), with `poll_idle()` and `cpuidle_poll_time()`
//!   for a polling state (the limit, `dev->poll_time_limit`); the tick is
//!   tick-sched.c's handler and `tick_nohz_irq_exit()`; `reflect()` gets
//!   `tick_nohz_idle_got_tick()`.  The world the C runs in (core.c): the
//!   clock, the tick every `TICK_NSEC` (HZ=250) while it runs, one
//!   hrtimer (the episode's timer), the wake-up; a non-polling state halts
//!   until the next interrupt and then spends its exit latency (as the
//!   emulated-state driver); one `cpu_relax()` costs `--relax-ns`.
//! * Closed loop within an episode: after every entry that did not end it
//!   (the tick woke the CPU, or polling timed out) the governor runs again,
//!   as the idle loop does.  Open loop across episodes: when the next task
//!   runs is given by the trace, not by the decisions.
//! * Energy in the table's model (as the emulated-state driver reports it):
//!   the measured residency at the state's model power plus, per entry,
//!   the state's own entry energy (`cpuidle_tables::entry_nj`: what makes
//!   each target residency the state's break-even point, so that the
//!   oracle below is the model's optimum).  The oracle enters, once per
//!   episode, the deepest state whose residency fits the real idle time and
//!   whose exit latency fits the QoS limit; regret is energy / oracle
//!   energy - 1.  The oracle's entries are classified by the kernel's rule
//!   too ([`simulate::account`], tested against `cpuidle_enter_state()`).
//! * Too deep / too shallow: the kernel's counters, per idle period of the
//!   workload (a governor that splits a period into many entries would
//!   dilute a per-entry rate with its own extra entries) and per entry.
//! * Exact-state accuracy: the entry's state is the oracle's for the idle
//!   time that was really left at that entry.
//! * IRQ exit latency: exit latency paid on wake-ups by interrupts other
//!   than the timer and the tick, mean per such wake-up.
//!
//! Corpus: the synthetic classes of src/corpus.rs (fixed seeds) and the
//! recorded traces in `corpus/` (`--corpus DIR`), episodes taken from
//! rteo's recorder in a QEMU guest by `evaluation/trace2corpus.py`, split once
//! and for all into `corpus/tuning/` and `corpus/heldout/` (corpus/README).
//! Synthetic classes and the tuning traces are the tuning set; the
//! held-out traces are scored apart.  `--check` is the bar (README.md,
//! "The bar"; src/bar.rs): parity mode must score as teo.c on every run;
//! rteo's documented targets are shown on the held-out set, and, with
//! their tuning-set versions, held to the committed `bar-baseline.json`
//! (`--baseline FILE` for another), which `--write-baseline FILE` writes.
//! Workloads with a PM QoS latency limit that forbids some state are
//! reported apart as well.
//!
//! The code, by concern: the tables (src/table.rs), the governors
//! (src/governors.rs), the corpus, its traces and sets (src/corpus.rs),
//! one run's closed loop and score (src/simulate.rs) in the kernel's C
//! (src/simcore.rs), `--replay` (src/world.rs), the reports
//! (src/reports.rs), `--check` (src/check.rs, src/bar.rs) and the
//! information bound (src/bound.rs); this file parses the arguments and
//! dispatches.

use corpus::{Corpus, Set, CLASSES};
use governors::{GOVS, RULES};
use rteo_core::rteo_core::rule;
use simcore::Core;
use std::process::ExitCode;
use table::{poll_limits, table_named, tables};
use world::Replay;

mod bar;
mod bound;
mod check;
mod corpus;
mod governors;
mod irqpred;
mod model;
mod reports;
mod simcore;
mod simulate;
mod table;
mod world;

const US: i64 = 1000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mut episodes = 12_000usize;
    let (mut json, mut md, mut check) = (None, None, false);
    let mut relax_ns = 1u64;
    let mut exact_poll = false;
    let mut bound = false;
    let mut model = false;
    let mut policy_sweep_on = false;
    let mut irq_predictor = false;
    let mut corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus").to_string();
    let (mut replay, mut table, mut gov) = (None, None, None);
    let mut wake_delay_ns = None;
    let mut irq_delay_ns = 0;
    let mut tick_costs_ns = [0i64; 3];
    let mut baseline = concat!(env!("CARGO_MANIFEST_DIR"), "/bar-baseline.json").to_string();
    let (mut baseline_given, mut write_baseline) = (false, None);
    let mut i = 1;
    while i < args.len() {
        let val = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--episodes" => episodes = val.and_then(|v| v.parse().ok()).unwrap_or(episodes),
            "--json" => json = val,
            "--md" => md = val,
            "--corpus" => corpus = val.unwrap_or_default(),
            "--replay" => replay = val,
            "--table" => table = val,
            "--governor" => gov = val,
            "--baseline" | "--write-baseline" => {
                let Some(v) = val.filter(|v| !v.is_empty()) else {
                    eprintln!("cpuidle-sim: {} wants a FILE", args[i]);
                    return ExitCode::from(2);
                };
                if args[i] == "--baseline" {
                    (baseline, baseline_given) = (v, true);
                } else {
                    write_baseline = Some(v);
                }
            }
            "--wake-delay-us" => match val.and_then(|v| v.parse::<i64>().ok()) {
                Some(n) if (0..=1_000_000).contains(&n) => wake_delay_ns = Some(n * US),
                _ => {
                    eprintln!("cpuidle-sim: --wake-delay-us wants 0..1000000 us");
                    return ExitCode::from(2);
                }
            },
            "--irq-delay-us" => match val.and_then(|v| v.parse::<i64>().ok()) {
                Some(n) if (0..=1_000_000).contains(&n) => irq_delay_ns = n * US,
                _ => {
                    eprintln!("cpuidle-sim: --irq-delay-us wants 0..1000000 us");
                    return ExitCode::from(2);
                }
            },
            "--tick-costs-us" => {
                let v: Vec<Option<i64>> = val
                    .unwrap_or_default()
                    .split(',')
                    .map(|x| {
                        x.parse::<i64>()
                            .ok()
                            .filter(|n| (0..=1_000_000).contains(n))
                    })
                    .collect();
                match v[..] {
                    [Some(d), Some(s), Some(r)] => tick_costs_ns = [d * US, s * US, r * US],
                    _ => {
                        eprintln!(
                            "cpuidle-sim: --tick-costs-us wants DECIDE,STOP,RESTART, each 0..1000000 us"
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            "--relax-ns" => match val.and_then(|v| v.parse().ok()) {
                Some(n) if n > 0 => relax_ns = n,
                _ => {
                    eprintln!("cpuidle-sim: --relax-ns wants a positive number of ns");
                    return ExitCode::from(2);
                }
            },
            "--rules" => {
                let v = val.unwrap_or_default();
                let m = match v.strip_prefix("0x") {
                    Some(h) => u32::from_str_radix(h, 16).ok(),
                    None => v.parse().ok(),
                };
                match m {
                    Some(m) if m & !rule::ALL == 0 => {
                        RULES.store(m, std::sync::atomic::Ordering::Relaxed)
                    }
                    _ => {
                        eprintln!(
                            "cpuidle-sim: --rules wants a mask of rteo's rules (at most {:#x}), not {v:?}",
                            rule::ALL
                        );
                        return ExitCode::from(2);
                    }
                }
            }
            "--check" => {
                check = true;
                i += 1;
                continue;
            }
            "--bound" => {
                bound = true;
                i += 1;
                continue;
            }
            "--model" => {
                model = true;
                i += 1;
                continue;
            }
            "--policy-sweep" => {
                policy_sweep_on = true;
                i += 1;
                continue;
            }
            "--irq-predictor" => {
                irq_predictor = true;
                i += 1;
                continue;
            }
            "--exact-poll" => {
                exact_poll = true;
                i += 1;
                continue;
            }
            "--png" | "--plot" => {
                eprintln!(
                    "cpuidle-sim: {} is gone: evaluation/sim_plots.py draws the plots from --json",
                    args[i]
                );
                return ExitCode::from(2);
            }
            a => {
                eprintln!("cpuidle-sim: unknown argument {a}");
                return ExitCode::from(2);
            }
        }
        i += 2;
    }

    if [bound, model, policy_sweep_on, irq_predictor]
        .iter()
        .filter(|&&b| b)
        .count()
        > 1
    {
        eprintln!(
            "cpuidle-sim: --bound, --model, --policy-sweep or --irq-predictor, one at a time"
        );
        return ExitCode::from(2);
    }
    if (bound || model || policy_sweep_on || irq_predictor)
        && (check || json.is_some() || md.is_some() || write_baseline.is_some() || replay.is_some())
    {
        eprintln!(
            "cpuidle-sim: --bound, --model, --policy-sweep and --irq-predictor print their tables alone (no --check, --json, --md, --write-baseline, --replay)"
        );
        return ExitCode::from(2);
    }
    if irq_predictor {
        return match irqpred::report(std::path::Path::new(&corpus), relax_ns) {
            Ok(out) => {
                print!("{out}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("cpuidle-sim: --irq-predictor: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(trace) = replay {
        let Some(gov) = gov.as_deref().and_then(|g| GOVS.iter().find(|&&x| x == g)) else {
            eprintln!(
                "cpuidle-sim: --replay wants --governor, one of {}",
                GOVS.join(", ")
            );
            return ExitCode::from(2);
        };
        let t = match table.as_deref().map(table_named) {
            Some(Ok(t)) => t,
            Some(Err(e)) => {
                eprintln!("cpuidle-sim: --table {e}");
                return ExitCode::from(2);
            }
            None => {
                eprintln!("cpuidle-sim: --replay wants --table NAME (BASE or BASE-xN)");
                return ExitCode::from(2);
            }
        };
        let mut core = Core::lock();
        core.set_relax_ns(relax_ns);
        core.set_exact_poll(exact_poll);
        if (irq_delay_ns != 0 || tick_costs_ns != [0; 3]) && wake_delay_ns.is_none() {
            eprintln!(
                "cpuidle-sim: --irq-delay-us and --tick-costs-us go with --wake-delay-us (the emulated world)"
            );
            return ExitCode::from(2);
        }
        let r = match Replay::run(
            &mut core,
            &trace,
            t,
            gov,
            wake_delay_ns,
            irq_delay_ns,
            tick_costs_ns,
            relax_ns,
        ) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("cpuidle-sim: {e}");
                return ExitCode::FAILURE;
            }
        };
        print!("{}", r.text());
        if let Some(path) = &json {
            if let Err(e) = std::fs::write(path, r.json()) {
                eprintln!("cpuidle-sim: {path}: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    if table.is_some()
        || gov.is_some()
        || wake_delay_ns.is_some()
        || irq_delay_ns != 0
        || tick_costs_ns != [0; 3]
    {
        eprintln!(
            "cpuidle-sim: --table, --governor, --wake-delay-us, --irq-delay-us and --tick-costs-us go with --replay"
        );
        return ExitCode::from(2);
    }
    if check && write_baseline.is_some() {
        eprintln!("cpuidle-sim: --check or --write-baseline, one at a time");
        return ExitCode::from(2);
    }
    if baseline_given && !check {
        eprintln!("cpuidle-sim: --baseline goes with --check");
        return ExitCode::from(2);
    }

    let tabs = tables();
    let recorded = match corpus::load_corpus(&corpus) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cpuidle-sim: corpus: {e}");
            return ExitCode::FAILURE;
        }
    };
    let class_names: Vec<&'static str> = CLASSES
        .iter()
        .map(|c| c.0)
        .chain(recorded.iter().map(|r| r.name))
        .collect();
    let mut core = Core::lock();
    core.set_relax_ns(relax_ns);
    core.set_exact_poll(exact_poll);
    let limits = poll_limits(&mut core, &tabs);
    let rows = corpus::run_corpus(&mut core, &tabs, &recorded, &class_names, episodes);
    let run = Corpus {
        rows: &rows,
        tabs: &tabs,
        recorded: &recorded,
        classes: &class_names,
        limits: &limits,
        episodes,
    };
    // the reports of the information bound's policies, in place of the
    // corpus tables
    let report: Option<fn(&mut Core, &Corpus) -> String> = if policy_sweep_on {
        Some(reports::policy_sweep)
    } else if bound {
        Some(reports::bound_table)
    } else if model {
        Some(|_: &mut Core, c: &Corpus| model::report(c))
    } else {
        None
    };
    if let Some(report) = report {
        print!("{}", report(&mut core, &run));
        return ExitCode::SUCCESS;
    }

    // SIM_BREAKDOWN=1: where the too-shallow entries come from, and the
    // energy regret by kind of period (per run, then per set)
    if std::env::var_os("SIM_BREAKDOWN").is_some() {
        reports::breakdown(&rows);
    }

    // rteo in parity mode must score exactly as teo.c: same decisions, on
    // every run of every set
    let parity = check::parity(&rows);
    let parity_ok = parity.iter().all(|p| p.3 == 0);
    let bar_now = check::bar_of(&rows, &recorded, episodes, relax_ns);

    // the headline: the tuning set, the population of --check
    let headline = reports::set_table(&rows, Set::Tuning);
    print!("{headline}");

    if let Some(path) = &md {
        let m = reports::markdown(&run, &args.join(" "), relax_ns, exact_poll, &headline);
        if let Err(e) = std::fs::write(path, m) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &json {
        let j = reports::json(&run, relax_ns, exact_poll, &bar_now.targets);
        if let Err(e) = std::fs::write(path, j) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }

    if !check && write_baseline.is_none() {
        return if parity_ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    check::run(
        &parity,
        parity_ok,
        &bar_now,
        write_baseline.as_deref(),
        &baseline,
    )
}
