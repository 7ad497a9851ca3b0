// SPDX-License-Identifier: GPL-2.0

//! The bar of `cpuidle-sim check` (README.md, "The bar"): rteo's
//! targets, the baseline file that ratchets them
//! (`bar-baseline.json`, written by `check --write-baseline`) and the
//! comparison of a run with it.
//!
//! A target compares one of rteo's values (default mode) with a bound
//! taken from the kernel's governors on the same set; lower is better for
//! every one.  The ratchet fails when a target the baseline records as met
//! is missed, or when one of rteo's values is worse than the baseline's by
//! more than [`REL_TOL`].

use crate::json::{exact as num, field, number, obj, parse_json, string};
use std::fmt::Write as _;

/// The ratchet's relative tolerance: 0.1 %.  The simulator is
/// deterministic (fixed seeds, the recorded traces, the kernel's integer
/// C, Rust floats without fast-math summed in a fixed order): a run
/// repeats to the last bit, and a value changes only when code or corpus
/// change.  The tolerance absorbs what may differ between toolchains (the
/// last bit of libm's `ln()` in the synthetic generators, which moves an
/// episode by a nanosecond at most once in billions of draws), far below
/// it; and it is below the weight of one entry of the held-out set (one
/// too-deep entry of its 2628 is 0.9 % of rteo's rate), so one decision
/// turned worse there is not absorbed.
pub const REL_TOL: f64 = 1e-3;

/// Absolute slack besides [`REL_TOL`], for a value of zero.
const ABS_TOL: f64 = 1e-12;

/// One target: the key of the metric (as in `--json`), what is printed,
/// the bound's reference, digits printed.
pub struct Metric {
    pub key: &'static str,
    pub label: &'static str,
    pub reference: &'static str,
    pub digits: usize,
}

/// The documented targets, in the order they are printed and written.
pub const METRICS: [Metric; 4] = [
    Metric {
        key: "energy_regret",
        label: "energy regret",
        reference: "0.5 x teo",
        digits: 4,
    },
    Metric {
        key: "too_deep_per_entry",
        label: "too deep per entry",
        reference: "teo",
        digits: 5,
    },
    Metric {
        key: "too_shallow_per_entry",
        label: "too shallow per entry",
        reference: "menu",
        digits: 5,
    },
    Metric {
        key: "irq_exit_latency_us",
        label: "IRQ exit latency (us)",
        reference: "teo",
        digits: 2,
    },
];

/// The sets a bar holds, in order: (key in the file, as printed).
pub const SETS: [(&str, &str); 2] = [("heldout", "held-out"), ("tuning", "tuning")];

fn metric(key: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.key == key)
}

/// rteo's value of one metric on one set against its bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    /// A key of [`SETS`].
    pub set: String,
    /// A key of [`METRICS`].
    pub key: String,
    pub rteo: f64,
    pub bound: f64,
}

impl Target {
    /// rteo within the bound (a value that is not a number misses).
    pub fn met(&self) -> bool {
        self.rteo <= self.bound
    }

    fn outcome(&self) -> &'static str {
        if self.met() {
            "met"
        } else {
            "missed"
        }
    }

    fn metric(&self) -> &'static Metric {
        metric(&self.key).unwrap_or(&METRICS[0])
    }

    /// "held-out too deep per entry".
    fn name(&self) -> String {
        let set = SETS
            .iter()
            .find(|s| s.0 == self.set)
            .map_or(self.set.as_str(), |s| s.1);
        format!("{set} {}", self.metric().label)
    }

    fn fmt(&self, x: f64) -> String {
        format!("{x:.*}", self.metric().digits)
    }

    /// "energy regret: rteo 0.0707 vs 0.5 x teo 0.0876: met", the line
    /// `check` prints.
    pub fn line(&self) -> String {
        let m = self.metric();
        format!(
            "{}: rteo {} vs {} {}: {}",
            m.label,
            self.fmt(self.rteo),
            m.reference,
            self.fmt(self.bound),
            self.outcome()
        )
    }
}

/// What a baseline holds: the run's parameters, the corpus, the targets.
#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub episodes: u64,
    pub relax_ns: u64,
    pub rules: u64,
    /// (set, class, episodes) of each recorded trace.
    pub corpus: Vec<(String, String, u64)>,
    pub targets: Vec<Target>,
}

/// `{ "rteo": .., "reference": .., "reference_value": .., "outcome": .. }`
/// of every target of `set`, one a line.
pub fn set_json(targets: &[Target], set: &str, indent: &str) -> String {
    let mine: Vec<_> = targets.iter().filter(|t| t.set == set).collect();
    let mut out = String::from("{\n");
    for (k, t) in mine.iter().enumerate() {
        let _ = writeln!(
            out,
            "{indent}  \"{}\": {{ \"rteo\": {}, \"reference\": \"{}\", \"reference_value\": {}, \"outcome\": \"{}\" }}{}",
            t.key,
            num(t.rteo),
            t.metric().reference,
            num(t.bound),
            t.outcome(),
            if k + 1 < mine.len() { "," } else { "" }
        );
    }
    let _ = write!(out, "{indent}}}");
    out
}

impl Bar {
    /// The baseline file.  Refuses a value that is not a number (an empty
    /// set): nothing to ratchet against.
    pub fn to_json(&self) -> Result<String, String> {
        if let Some(t) = self
            .targets
            .iter()
            .find(|t| !t.rteo.is_finite() || !t.bound.is_finite())
        {
            return Err(format!(
                "{}: rteo {} vs {}: not a number (an empty set?)",
                t.name(),
                t.rteo,
                t.bound
            ));
        }
        let mut j = String::from("{\n");
        let _ = writeln!(
            j,
            "  \"about\": \"the ratchet of cpuidle-sim --check (tools/cpuidle-sim/README.md, The bar); written by cpuidle-sim --write-baseline\","
        );
        let _ = writeln!(
            j,
            "  \"episodes_per_trace\": {},\n  \"relax_ns\": {},\n  \"rules\": {},",
            self.episodes, self.relax_ns, self.rules
        );
        let _ = writeln!(j, "  \"corpus\": {{");
        for (k, (set, _)) in SETS.iter().enumerate() {
            let classes = self
                .corpus
                .iter()
                .filter(|c| c.0 == *set)
                .map(|c| format!("\"{}\": {}", c.1, c.2))
                .collect::<Vec<_>>()
                .join(", ");
            let sep = if k + 1 < SETS.len() { "," } else { "" };
            let _ = writeln!(j, "    \"{set}\": {{ {classes} }}{sep}");
        }
        let _ = writeln!(j, "  }},");
        for (k, (set, _)) in SETS.iter().enumerate() {
            let sep = if k + 1 < SETS.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "  \"{set}\": {}{sep}",
                set_json(&self.targets, set, "  ")
            );
        }
        j.push_str("}\n");
        Ok(j)
    }

    /// A baseline file, checked: every set and target present once, the
    /// references the code's, each outcome the one its values give.
    pub fn parse(text: &str) -> Result<Bar, String> {
        let j = parse_json(text)?;
        let top = obj(&j, "the file")?;
        let uint = |key: &str| -> Result<u64, String> {
            let x = number(field(top, key, "the file")?, key)?;
            if x >= 0.0 && x.fract() == 0.0 && x < 1e15 {
                Ok(x as u64)
            } else {
                Err(format!("{key}: {x} is not a count"))
            }
        };
        let (episodes, relax_ns, rules) = (
            uint("episodes_per_trace")?,
            uint("relax_ns")?,
            uint("rules")?,
        );
        let corpus_obj = obj(field(top, "corpus", "the file")?, "corpus")?;
        let mut corpus = Vec::new();
        let mut targets = Vec::new();
        for (set, _) in SETS {
            let ctx = format!("corpus.{set}");
            for (class, n) in obj(field(corpus_obj, set, "corpus")?, &ctx)? {
                let n = number(n, &format!("{ctx}.{class}"))?;
                if n < 0.0 || n.fract() != 0.0 {
                    return Err(format!("{ctx}.{class}: {n} is not a count"));
                }
                corpus.push((set.to_string(), class.clone(), n as u64));
            }
            let set_obj = obj(field(top, set, "the file")?, set)?;
            if let Some((k, _)) = set_obj.iter().find(|(k, _)| metric(k).is_none()) {
                return Err(format!("{set}.{k}: not a target of this bar"));
            }
            for m in &METRICS {
                let ctx = format!("{set}.{}", m.key);
                let t = obj(field(set_obj, m.key, set)?, &ctx)?;
                let reference = string(field(t, "reference", &ctx)?, &ctx)?;
                if reference != m.reference {
                    return Err(format!(
                        "{ctx}: against {reference:?}, the bar's target is against {:?}",
                        m.reference
                    ));
                }
                let target = Target {
                    set: set.to_string(),
                    key: m.key.to_string(),
                    rteo: number(field(t, "rteo", &ctx)?, &format!("{ctx}.rteo"))?,
                    bound: number(
                        field(t, "reference_value", &ctx)?,
                        &format!("{ctx}.reference_value"),
                    )?,
                };
                let outcome = string(field(t, "outcome", &ctx)?, &ctx)?;
                if outcome != "met" && outcome != "missed" {
                    return Err(format!("{ctx}.outcome: {outcome:?}, not met or missed"));
                }
                if outcome != target.outcome() {
                    return Err(format!(
                        "{ctx}: outcome {outcome:?}, but rteo {} vs {} is {}",
                        target.rteo,
                        target.bound,
                        target.outcome()
                    ));
                }
                targets.push(target);
            }
        }
        Ok(Bar {
            episodes,
            relax_ns,
            rules,
            corpus,
            targets,
        })
    }

    /// The baseline at `path`; a missing or malformed file is an error
    /// that says what to do.
    pub fn load(path: &str) -> Result<Bar, String> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the baseline {path}: {e} (cpuidle-sim --write-baseline {path} writes it)"
            )
        })?;
        Bar::parse(&text).map_err(|e| {
            format!(
                "the baseline {path} is malformed: {e} (cpuidle-sim --write-baseline {path} rewrites it)"
            )
        })
    }

    fn target(&self, set: &str, key: &str) -> Option<&Target> {
        self.targets.iter().find(|t| t.set == set && t.key == key)
    }

    /// How this run's parameters and corpus differ from `base`'s.
    fn setup_changes(&self, base: &Bar) -> Vec<String> {
        let mut out = Vec::new();
        for (what, b, n) in [
            ("--episodes", base.episodes, self.episodes),
            ("--relax-ns", base.relax_ns, self.relax_ns),
            ("--rules", base.rules, self.rules),
        ] {
            if b != n {
                out.push(format!("{what} {b} in the baseline, {n} in this run"));
            }
        }
        for c in &self.corpus {
            match base.corpus.iter().find(|b| b.0 == c.0 && b.1 == c.1) {
                None => out.push(format!(
                    "{} trace {} ({} episodes) is not in the baseline",
                    c.0, c.1, c.2
                )),
                Some(b) if b.2 != c.2 => out.push(format!(
                    "{} trace {}: {} episodes in the baseline, {} now",
                    c.0, c.1, b.2, c.2
                )),
                Some(_) => {}
            }
        }
        for b in &base.corpus {
            if !self.corpus.iter().any(|c| c.0 == b.0 && c.1 == b.1) {
                out.push(format!(
                    "{} trace {} of the baseline is not in this corpus",
                    b.0, b.1
                ));
            }
        }
        out
    }

    /// What changed from `old` to this bar (`--write-baseline`), one line
    /// each; every difference, within the tolerance or not.
    pub fn changes(&self, old: &Bar) -> Vec<String> {
        let mut out = self.setup_changes(old);
        for t in &self.targets {
            let Some(o) = old.target(&t.set, &t.key) else {
                out.push(format!("{}: new target ({})", t.name(), t.outcome()));
                continue;
            };
            if o.rteo.to_bits() == t.rteo.to_bits() && o.bound.to_bits() == t.bound.to_bits() {
                continue;
            }
            out.push(format!(
                "{}: rteo {} -> {} ({}), {} {} -> {}, {} -> {}",
                t.name(),
                t.fmt(o.rteo),
                t.fmt(t.rteo),
                pct(t.rteo, o.rteo),
                t.metric().reference,
                t.fmt(o.bound),
                t.fmt(t.bound),
                o.outcome(),
                t.outcome()
            ));
        }
        out
    }
}

/// `now` relative to `base`, "+1.95 %".
fn pct(now: f64, base: f64) -> String {
    if base == 0.0 {
        if now == 0.0 {
            "+0 %".into()
        } else {
            "from 0".into()
        }
    } else {
        format!("{:+.2} %", 100.0 * (now - base) / base.abs())
    }
}

/// The ratchet's verdict: what fails `check`, and what is better than
/// the baseline (to be taken in with `--write-baseline`).
#[derive(Debug, Default)]
pub struct Verdict {
    pub fails: Vec<String>,
    pub better: Vec<String>,
}

/// The run `now` against the baseline `base`.
pub fn ratchet(base: &Bar, now: &Bar) -> Verdict {
    let mut v = Verdict::default();
    let setup = now.setup_changes(base);
    if !setup.is_empty() {
        // the values of another run or corpus say nothing
        v.fails.push(format!(
            "this run is not the baseline's ({}): compare like with like, or review and --write-baseline",
            setup.join("; ")
        ));
        return v;
    }
    for t in &now.targets {
        let Some(b) = base.target(&t.set, &t.key) else {
            v.fails.push(format!("{}: not in the baseline", t.name()));
            continue;
        };
        let slack = REL_TOL * b.rteo.abs() + ABS_TOL;
        let m = t.metric();
        if b.met() && !t.met() {
            v.fails.push(format!(
                "{}: met in the baseline, missed now (rteo {} vs {} {}; baseline rteo {} vs {})",
                t.name(),
                t.fmt(t.rteo),
                m.reference,
                t.fmt(t.bound),
                t.fmt(b.rteo),
                t.fmt(b.bound)
            ));
        } else if !b.met() && t.met() {
            v.better.push(format!(
                "{}: now met (rteo {} vs {} {}), missed in the baseline",
                t.name(),
                t.fmt(t.rteo),
                m.reference,
                t.fmt(t.bound)
            ));
        }
        // a value that is not a number fails
        if t.rteo.is_nan() || t.rteo > b.rteo + slack {
            v.fails.push(format!(
                "{}: rteo {}, worse than the baseline's {} ({}, tolerance {} %)",
                t.name(),
                t.fmt(t.rteo),
                t.fmt(b.rteo),
                pct(t.rteo, b.rteo),
                100.0 * REL_TOL
            ));
        } else if t.rteo < b.rteo - slack {
            v.better.push(format!(
                "{}: rteo {} vs the baseline's {} ({})",
                t.name(),
                t.fmt(t.rteo),
                t.fmt(b.rteo),
                pct(t.rteo, b.rteo)
            ));
        }
    }
    for b in &base.targets {
        if now.target(&b.set, &b.key).is_none() {
            v.fails
                .push(format!("{}: in the baseline, not in this run", b.name()));
        }
    }
    v
}
#[cfg(test)]
mod tests {
    use super::*;

    /// A bar of hand-made numbers: held out, regret and too shallow met,
    /// too deep and IRQ latency missed; tuning the same shape.
    fn bar() -> Bar {
        let mut targets = Vec::new();
        for (set, _) in SETS {
            for (key, rteo, bound) in [
                ("energy_regret", 0.07, 0.0875),
                ("too_deep_per_entry", 0.044, 0.0368),
                ("too_shallow_per_entry", 0.0244, 0.0392),
                ("irq_exit_latency_us", 36.6, 34.6),
            ] {
                targets.push(Target {
                    set: set.into(),
                    key: key.into(),
                    rteo,
                    bound,
                });
            }
        }
        Bar {
            episodes: 12000,
            relax_ns: 1,
            rules: 31,
            corpus: vec![
                ("heldout".into(), "rec-gzip".into(), 414),
                ("tuning".into(), "rec-idle".into(), 37),
            ],
            targets,
        }
    }

    fn with(b: &Bar, set: &str, key: &str, f: impl Fn(&mut Target)) -> Bar {
        let mut b = b.clone();
        f(b.targets
            .iter_mut()
            .find(|t| t.set == set && t.key == key)
            .unwrap());
        b
    }

    #[test]
    fn baseline_round_trips() {
        let b = bar();
        let text = b.to_json().unwrap();
        assert_eq!(Bar::parse(&text).unwrap(), b);
        // every bit of a value survives
        let odd = with(&b, "heldout", "energy_regret", |t| t.rteo = 0.1 + 0.2);
        assert_eq!(Bar::parse(&odd.to_json().unwrap()).unwrap(), odd);
    }

    #[test]
    fn same_run_passes_quietly() {
        let v = ratchet(&bar(), &bar());
        assert!(v.fails.is_empty() && v.better.is_empty(), "{v:?}");
    }

    #[test]
    fn worsened_value_fails() {
        let base = bar();
        // 2 % worse on a missed target: the outcome does not change
        let now = with(&base, "heldout", "too_deep_per_entry", |t| t.rteo *= 1.02);
        let v = ratchet(&base, &now);
        assert_eq!(v.fails.len(), 1, "{v:?}");
        assert!(v.fails[0].contains("held-out too deep per entry"), "{v:?}");
        assert!(v.better.is_empty());
        // the tuning set is guarded too
        let now = with(&base, "tuning", "irq_exit_latency_us", |t| t.rteo += 1.0);
        assert_eq!(ratchet(&base, &now).fails.len(), 1);
        // within the tolerance: absorbed
        let now = with(&base, "heldout", "too_deep_per_entry", |t| {
            t.rteo *= 1.0 + REL_TOL / 2.0
        });
        let v = ratchet(&base, &now);
        assert!(v.fails.is_empty() && v.better.is_empty(), "{v:?}");
        // just past it: not
        let now = with(&base, "heldout", "too_deep_per_entry", |t| {
            t.rteo *= 1.0 + 2.0 * REL_TOL
        });
        assert_eq!(ratchet(&base, &now).fails.len(), 1);
        // not a number: fails
        let now = with(&base, "heldout", "energy_regret", |t| t.rteo = f64::NAN);
        assert!(!ratchet(&base, &now).fails.is_empty());
        // a zero baseline: float noise absorbed, a real value not
        let zero = with(&base, "heldout", "too_deep_per_entry", |t| t.rteo = 0.0);
        let now = with(&zero, "heldout", "too_deep_per_entry", |t| t.rteo = 1e-15);
        assert!(ratchet(&zero, &now).fails.is_empty());
        let now = with(&zero, "heldout", "too_deep_per_entry", |t| t.rteo = 1e-4);
        assert_eq!(ratchet(&zero, &now).fails.len(), 1);
    }

    #[test]
    fn met_to_missed_fails() {
        let base = bar();
        // rteo unchanged, the reference better: the target is missed
        let now = with(&base, "heldout", "energy_regret", |t| t.bound = 0.06);
        let v = ratchet(&base, &now);
        assert_eq!(v.fails.len(), 1, "{v:?}");
        assert!(
            v.fails[0].contains("met in the baseline, missed now"),
            "{v:?}"
        );
        // rteo worse past the bound: both the flip and the value
        let now = with(&base, "heldout", "too_shallow_per_entry", |t| t.rteo = 0.04);
        assert_eq!(ratchet(&base, &now).fails.len(), 2);
    }

    #[test]
    fn improvements_are_reported_not_failed() {
        let base = bar();
        let now = with(&base, "heldout", "too_deep_per_entry", |t| t.rteo = 0.03);
        let v = ratchet(&base, &now);
        assert!(v.fails.is_empty(), "{v:?}");
        assert_eq!(v.better.len(), 2, "{v:?}"); // now met, and a better value
        assert!(v.better.iter().any(|b| b.contains("now met")));
        assert_eq!(now.changes(&base).len(), 1);
        assert!(base.changes(&base).is_empty());
    }

    #[test]
    fn another_setup_fails() {
        let base = bar();
        let mut now = base.clone();
        now.episodes = 1000;
        now.targets[0].rteo *= 2.0;
        now.targets[1].rteo /= 2.0;
        // the setup, and nothing of the values that setup gives
        let v = ratchet(&base, &now);
        assert_eq!(v.fails.len(), 1, "{v:?}");
        assert!(v.fails[0].contains("--episodes 12000 in the baseline, 1000"));
        assert!(v.better.is_empty(), "{v:?}");
        let mut now = base.clone();
        now.corpus
            .push(("heldout".into(), "rec-ioping".into(), 500));
        let v = ratchet(&base, &now);
        assert!(v.fails[0].contains("rec-ioping"), "{v:?}");
        let mut now = base.clone();
        now.corpus[0].2 = 400;
        assert_eq!(ratchet(&base, &now).fails.len(), 1);
        let mut now = base.clone();
        now.targets
            .retain(|t| t.key != "energy_regret" || t.set != "tuning");
        assert_eq!(ratchet(&base, &now).fails.len(), 1);
    }

    #[test]
    fn malformed_baseline_is_refused() {
        let good = bar().to_json().unwrap();
        let bad: Vec<(String, &str)> = vec![
            (String::new(), "end of file"),
            (good[..good.len() / 2].to_string(), "line"),
            (good.clone() + "x", "after the end"),
            (good.replace("\"relax_ns\": 1,", ""), "no \"relax_ns\""),
            (
                good.replace("\"relax_ns\": 1,", "\"relax_ns\": \"1\","),
                "not a number",
            ),
            (
                good.replacen("\"outcome\": \"met\"", "\"outcome\": \"yes\"", 1),
                "not met or missed",
            ),
            (
                // an outcome its values contradict
                good.replacen("\"outcome\": \"met\"", "\"outcome\": \"missed\"", 1),
                "but rteo",
            ),
            (
                good.replacen("\"reference\": \"0.5 x teo\"", "\"reference\": \"teo\"", 1),
                "against",
            ),
            (
                good.replacen("\"energy_regret\"", "\"regret\"", 1),
                "not a target",
            ),
            (
                good.replacen("\"relax_ns\": 1,", "\"relax_ns\": 1, \"relax_ns\": 1,", 1),
                "a second time",
            ),
            (
                good.replacen("\"tuning\": {", "\"tuned\": {", 1),
                "no \"tuning\"",
            ),
            ("[1, 2]".into(), "not an object"),
            (good.replacen(": 12000", ": 12000.5", 1), "not a count"),
            (good.replacen(": 12000", ": 1e999", 1), "bad number"),
        ];
        for (text, why) in bad {
            match Bar::parse(&text) {
                Ok(_) => panic!("accepted: {text}"),
                Err(e) => assert!(e.contains(why), "{e:?} does not say {why:?}"),
            }
        }
    }

    #[test]
    fn missing_or_malformed_file_says_what_to_do() {
        let dir = std::env::temp_dir();
        let missing = dir.join(format!("cpuidle-sim-bar-{}-missing", std::process::id()));
        let e = Bar::load(missing.to_str().unwrap()).unwrap_err();
        assert!(
            e.contains("cannot read") && e.contains("--write-baseline"),
            "{e}"
        );
        let bad = dir.join(format!("cpuidle-sim-bar-{}-bad", std::process::id()));
        std::fs::write(&bad, "{ \"episodes_per_trace\": ").unwrap();
        let e = Bar::load(bad.to_str().unwrap()).unwrap_err();
        std::fs::remove_file(&bad).unwrap();
        assert!(
            e.contains("malformed") && e.contains("--write-baseline"),
            "{e}"
        );
    }

    #[test]
    fn empty_set_is_no_baseline() {
        let b = with(&bar(), "heldout", "energy_regret", |t| t.rteo = f64::NAN);
        assert!(b.to_json().is_err());
    }
}
