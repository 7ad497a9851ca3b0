// SPDX-License-Identifier: GPL-2.0

//! The corpus: the synthetic trace classes and the recorded traces of
//! `corpus/`, split once and for all into the tuning and the held-out sets
//! (corpus/README); every governor's run on every trace and table
//! ([`Corpus::run`]), and the sets the runs are scored by.

use crate::{
    episode::{generate, load_trace, traces_in, Episode, CLASSES},
    governors::{governor, GOVS},
    simcore::Core,
    simulate::{simulate, Knobs, Score},
    table::{poll_limits, tables, Table},
    units::US,
};

/// What a run of the corpus takes (`run`, `check`, `model`).
#[derive(clap::Args, Debug)]
pub(crate) struct CorpusOpts {
    /// Episodes per synthetic trace
    #[arg(long, value_name = "N", default_value_t = 12_000)]
    pub(crate) episodes: usize,
    /// The recorded traces: DIR/tuning/*.trace and DIR/heldout/*.trace
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus"))]
    pub(crate) corpus: String,
    #[command(flatten)]
    pub(crate) knobs: Knobs,
}

/// A recorded trace of the corpus.
pub(crate) struct Recorded {
    /// `rec-NAME` for `NAME.trace`.
    pub(crate) name: &'static str,
    pub(crate) episodes: Vec<Episode>,
    /// From `corpus/heldout/`: never to be tuned against.
    pub(crate) heldout: bool,
}

/// The recorded corpus: `dir/tuning/*.trace` and `dir/heldout/*.trace`
/// (corpus/README), as classes `rec-NAME`.  A trace directly in `dir`
/// belongs to neither set: an error.
pub(crate) fn load_corpus(dir: &str) -> Result<Vec<Recorded>, String> {
    let dir = std::path::Path::new(dir);
    if let Some(p) = traces_in(dir).first() {
        return Err(format!(
            "{}: a trace must be in tuning/ or heldout/ (corpus/README)",
            p.display()
        ));
    }
    let mut out: Vec<Recorded> = Vec::new();
    for (sub, heldout) in [("tuning", false), ("heldout", true)] {
        for p in traces_in(&dir.join(sub)) {
            let name = format!(
                "rec-{}",
                p.file_stem().unwrap_or_default().to_string_lossy()
            );
            if out.iter().any(|r| r.name == name) {
                return Err(format!("{}: a second trace {name}", p.display()));
            }
            out.push(Recorded {
                name: Box::leak(name.into_boxed_str()),
                episodes: load_trace(&p, false)?,
                heldout,
            });
        }
    }
    Ok(out)
}

/// (set, class, episodes) of each recorded trace, as a baseline holds it.
pub(crate) fn corpus_list(recorded: &[Recorded]) -> Vec<(String, String, u64)> {
    recorded
        .iter()
        .map(|r| {
            let set = if r.heldout { "heldout" } else { "tuning" };
            (set.to_string(), r.name.to_string(), r.episodes.len() as u64)
        })
        .collect()
}

pub(crate) struct Row {
    pub(crate) gov: &'static str,
    pub(crate) table: &'static str,
    pub(crate) class: &'static str,
    /// A held-out trace.
    pub(crate) heldout: bool,
    /// The trace sets a latency limit that forbids some state of the table.
    pub(crate) qos: bool,
    pub(crate) score: Score,
}

/// The rows scored together.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Set {
    /// The tuning set: synthetic classes and `corpus/tuning/` (`check`).
    Tuning,
    /// The tuning set without the latency-limited workloads (`overall`).
    NoQos,
    /// The tuning set's latency-limited workloads.
    Qos,
    /// `corpus/heldout/`.
    Heldout,
}

impl Set {
    pub(crate) fn has(self, r: &Row) -> bool {
        match self {
            Set::Tuning => !r.heldout,
            Set::NoQos => !r.heldout && !r.qos,
            Set::Qos => !r.heldout && r.qos,
            Set::Heldout => r.heldout,
        }
    }
}

pub(crate) fn total(rows: &[Row], gov: &str, set: Option<Set>, class: Option<&str>) -> Score {
    let mut s = Score::default();
    for r in rows.iter().filter(|r| {
        r.gov == gov && set.is_none_or(|x| x.has(r)) && class.is_none_or(|c| c == r.class)
    }) {
        s.add(&r.score);
    }
    s
}

/// A governor's score, or the oracle's ("oracle": taken from teo's rows).
pub(crate) fn score_of(rows: &[Row], gov: &str, set: Option<Set>, class: Option<&str>) -> Score {
    if gov == "oracle" {
        total(rows, "teo", set, class).of_oracle()
    } else {
        total(rows, gov, set, class)
    }
}

/// The corpus as the simulator ran it: its results, tables, recorded
/// traces, class names, each table's poll limit, and the run's setup.
pub(crate) struct Corpus {
    pub(crate) rows: Vec<Row>,
    pub(crate) tabs: Vec<Table>,
    pub(crate) recorded: Vec<Recorded>,
    pub(crate) classes: Vec<&'static str>,
    pub(crate) limits: Vec<(&'static str, u64)>,
    /// Episodes per synthetic trace.
    pub(crate) episodes: usize,
    pub(crate) knobs: Knobs,
}

impl Corpus {
    /// Every governor on every trace of the corpus `opts` names, on every
    /// table.
    /// [`Corpus::run`] under the simulated core's lock, for the commands
    /// that start from it (`run`, `check`): the error printed, `None`, if
    /// it fails.
    pub(crate) fn run_or_report(opts: &CorpusOpts) -> Option<Corpus> {
        let mut core = Core::lock();
        Corpus::run(&mut core, opts)
            .map_err(|e| eprintln!("cpuidle-sim: {e}"))
            .ok()
    }

    pub(crate) fn run(core: &mut Core, opts: &CorpusOpts) -> Result<Corpus, String> {
        let tabs = tables();
        let recorded = load_corpus(&opts.corpus).map_err(|e| format!("corpus: {e}"))?;
        let classes: Vec<&'static str> = CLASSES
            .iter()
            .map(|c| c.0)
            .chain(recorded.iter().map(|r| r.name))
            .collect();
        opts.knobs.apply(core);
        let limits = poll_limits(core, &tabs);
        let rows = run_corpus(core, &tabs, &recorded, &classes, opts.episodes);
        Ok(Corpus {
            rows,
            tabs,
            recorded,
            classes,
            limits,
            episodes: opts.episodes,
            knobs: opts.knobs.clone(),
        })
    }
}

/// The traces of `set`, each with its table, class and the poll limit of
/// the table, as the corpus runs them.
pub(crate) fn set_traces(
    corpus: &Corpus,
    set: Set,
) -> Vec<(&Table, &'static str, Vec<Episode>, i64)> {
    let Corpus {
        rows,
        tabs,
        recorded,
        classes,
        limits,
        episodes,
        ..
    } = corpus;
    let mut out = Vec::new();
    for t in tabs {
        let limit = limits
            .iter()
            .find(|l| l.0 == t.name)
            .map_or(0, |l| l.1 as i64);
        for &class in classes {
            let in_set = rows
                .iter()
                .any(|r| r.gov == "teo" && r.table == t.name && r.class == class && set.has(r));
            if !in_set {
                continue;
            }
            let trace = match CLASSES.iter().find(|c| c.0 == class) {
                Some(&(_, seed)) => generate(class, seed, *episodes, t),
                None => match recorded.iter().find(|r| r.name == class) {
                    Some(r) => r.episodes.clone(),
                    None => continue,
                },
            };
            out.push((t, class, trace, limit));
        }
    }
    out
}

/// Every governor on every trace of the corpus (`class_names`: the
/// synthetic classes, `episodes` episodes each, and the recorded traces),
/// on every table.
fn run_corpus(
    core: &mut Core,
    tabs: &[Table],
    recorded: &[Recorded],
    class_names: &[&'static str],
    episodes: usize,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for t in tabs {
        for &class in class_names {
            let (trace, heldout) = match CLASSES.iter().find(|c| c.0 == class) {
                Some(&(_, seed)) => (generate(class, seed, episodes, t), false),
                None => recorded
                    .iter()
                    .find(|r| r.name == class)
                    .map(|r| (r.episodes.clone(), r.heldout))
                    .unwrap_or_default(),
            };
            let deepest = t.states.last().map_or(0, |s| s.exit_latency_ns);
            let qos = trace.iter().any(|e| i64::from(e.qos_us) * US < deepest);
            for &g in GOVS {
                let mut gov = governor(g);
                let score = simulate(core, gov.as_mut(), t, class, &trace);
                rows.push(Row {
                    gov: g,
                    table: t.name,
                    class,
                    heldout,
                    qos,
                    score,
                });
            }
        }
    }
    rows
}
