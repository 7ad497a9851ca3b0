// SPDX-License-Identifier: GPL-2.0

//! `--irq-predictor`: a predictor of interrupt wake-ups per source, tried
//! as a step of rteo (issue 39, point 3), and its stop rule.
//!
//! The idea is the kernel's IRQ-timings code (removed before 7.3, unused):
//! a device interrupt that recurs at a regular interval can be predicted
//! from its own history, which teo's bins, indexed by the sleep length and
//! blind to what woke the CPU, cannot.  [`IrqPredicting`] keeps, per
//! device interrupt (`irqN` of the recorded traces), the times it woke the
//! CPU and the last [`HISTORY`] intervals between them.  At each
//! `select()` it predicts every regular source's next interrupt (the last
//! one plus the median interval, stepped past now) and, where the earliest
//! comes before the sleep length, caps the choice of the governor it wraps
//! at the deepest state whose target residency fits before it (and keeps
//! the tick where it cut the choice: a wrong prediction is then ended by
//! the tick).  The governor's own accounting is left alone.  A history
//! is regular when [`MIN_INTERVALS`] intervals or more were seen and three
//! quarters of them lie within an eighth of their median; a source that
//! missed more than [`MAX_MISSED`] periods is not predicted.  Only the
//! interrupts that woke this CPU from idle are seen (the recorder notes no
//! other), a narrower history than IRQ timings had.
//!
//! The stop rule: on the held-out traces, replayed on their own tables in
//! core.c's world, the predictor must cut the interrupt-ended part of
//! teo's excess energy over the oracle by 30 % or more, per table and
//! recording governor; otherwise it is not merged.  [`report`] prints the
//! measurement, for the predictor in front of teo (`teo-irq`: its cut of
//! teo's, the stop rule) and of rteo (`rteo-irq`: its cut of rteo's, the
//! step it would be), beside rteo's own cut of teo's.

use crate::{
    corpus::{traces_in, Episode, Src},
    governors::{Governor, Query},
    simcore::Core,
    table::{table_named, Table},
    world::Replay,
};
use rteo_core::host::SplitMix64;
use std::fmt::Write as _;

/// Intervals kept per source.
pub(crate) const HISTORY: usize = 8;
/// Intervals needed before a source is predicted.
pub(crate) const MIN_INTERVALS: usize = 4;
/// Periods a source may miss and still be predicted.
pub(crate) const MAX_MISSED: i64 = 4;
/// The stop rule: the cut of teo's interrupt-ended excess.
const STOP_RULE: f64 = 0.30;
const RESAMPLES: usize = 2000;
const SEED: u64 = 0x1e9_0001;

#[derive(Clone, Copy, Default)]
struct Source {
    irq: u32,
    last_ns: i64,
    intervals: [i64; HISTORY],
    n: usize,
}

impl Source {
    /// The median interval, if the history is regular.
    fn period(&self) -> Option<i64> {
        if self.n < MIN_INTERVALS {
            return None;
        }
        let k = self.n.min(HISTORY);
        let mut v = self.intervals;
        let v = &mut v[..k];
        v.sort_unstable();
        let m = v[k / 2];
        let near = v.iter().filter(|&&x| (x - m).abs() * 8 <= m).count();
        (m > 0 && near * 4 >= k * 3).then_some(m)
    }
}

/// A governor with the predictor in front of it.
pub(crate) struct IrqPredicting {
    name: &'static str,
    inner: Box<dyn Governor>,
    cpu: Option<u32>,
    now_ns: Option<i64>,
    sources: Vec<Source>,
    states: Vec<rteo_core::rteo_core::State>,
}

impl IrqPredicting {
    pub(crate) fn new(name: &'static str, inner: Box<dyn Governor>) -> Self {
        Self {
            name,
            inner,
            cpu: None,
            now_ns: None,
            sources: Vec::new(),
            states: Vec::new(),
        }
    }

    /// The time from now to the earliest predicted interrupt.
    pub(crate) fn predict(&self) -> Option<i64> {
        let now = self.now_ns?;
        self.sources
            .iter()
            .filter_map(|s| {
                let m = s.period()?;
                let missed = (now - s.last_ns).max(0) / m;
                (missed <= MAX_MISSED).then(|| s.last_ns + (missed + 1) * m - now)
            })
            .filter(|&d| d > 0)
            .min()
    }

    fn occurred(&mut self, irq: u32, at_ns: i64) {
        let s = match self.sources.iter_mut().position(|s| s.irq == irq) {
            Some(i) => &mut self.sources[i],
            None => {
                self.sources.push(Source {
                    irq,
                    last_ns: at_ns,
                    ..Source::default()
                });
                return;
            }
        };
        let d = at_ns - s.last_ns;
        if d > 0 {
            s.intervals[s.n % HISTORY] = d;
            s.n += 1;
        }
        s.last_ns = at_ns;
    }
}

impl Governor for IrqPredicting {
    fn name(&self) -> &'static str {
        self.name
    }
    fn reset(&mut self, t: &Table) {
        self.inner.reset(t);
        (self.cpu, self.now_ns) = (None, None);
        self.sources.clear();
        self.states.clone_from(&t.states);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        let (idx, stop) = self.inner.select(q);
        match self.predict() {
            Some(d) if d < q.sleep_ns => {
                let cap = crate::simulate::deepest_fit(&self.states, d, q.latency_req_ns);
                if cap < idx {
                    (cap, false)
                } else {
                    (idx, stop)
                }
            }
            _ => (idx, stop),
        }
    }
    fn poll_time_limit(&self) -> bool {
        self.inner.poll_time_limit()
    }
    fn wakeup(&mut self, idx: usize, r: u64, ptl: bool, tick: bool) {
        self.inner.wakeup(idx, r, ptl, tick)
    }
    fn period_start(&mut self, ep: &Episode) {
        let Some(o) = ep.origin else {
            self.now_ns = None;
            return;
        };
        if self.cpu != Some(o.cpu) {
            // another CPU's history, or none
            self.sources.clear();
            self.cpu = Some(o.cpu);
        }
        self.now_ns = Some(o.at_ns);
    }
    fn period_end(&mut self, ep: &Episode) {
        if let (Some(o), Src::Irq) = (ep.origin, ep.src) {
            if let Some(irq) = o.irq {
                self.occurred(irq, o.at_ns + ep.wake_ns);
            }
        }
        self.now_ns = None;
    }
}

const GOVS: [&str; 4] = ["teo", "rteo", "rteo-irq", "teo-irq"];
/// A table and the governor that recorded its traces.
type Group = (String, String);

/// The 2.5 % and 97.5 % points of `stat` over traces resampled.
fn interval(per_trace: &[[f64; 4]], stat: impl Fn(&[f64; 4]) -> f64) -> (f64, f64) {
    let mut r = SplitMix64(SEED);
    let mut v: Vec<f64> = (0..RESAMPLES)
        .map(|_| {
            let mut s = [0.0; 4];
            for _ in 0..per_trace.len() {
                let x = per_trace[r.below(per_trace.len() as u64) as usize];
                for k in 0..4 {
                    s[k] += x[k];
                }
            }
            stat(&s)
        })
        .filter(|x| x.is_finite())
        .collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (
        v[(0.025 * v.len() as f64) as usize],
        v[((0.975 * v.len() as f64) as usize).min(v.len() - 1)],
    )
}

/// The stop rule's measurement on `dir/heldout`.
pub(crate) fn report(dir: &std::path::Path, relax_ns: u64) -> Result<String, String> {
    // (table, recorder) -> per trace: the interrupt-ended excess of each
    // of GOVS, pJ
    let mut groups: Vec<(Group, Vec<[f64; 4]>)> = Vec::new();
    let mut core = Core::lock();
    for p in traces_in(&dir.join("heldout")) {
        let stem = p
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let (Some((table, _)), Some((_, rec))) = (stem.split_once('.'), stem.rsplit_once('.'))
        else {
            return Err(format!("{stem}: not TABLE.WORKLOAD.GOVERNOR"));
        };
        let mut row = [0.0; 4];
        for (k, gov) in GOVS.into_iter().enumerate() {
            let t = table_named(table)?;
            let r = Replay::run(
                &mut core,
                &p.to_string_lossy(),
                t,
                gov,
                None,
                0,
                [0; 3],
                relax_ns,
            )?;
            row[k] = r.score().irq_excess;
        }
        let key = (table.to_string(), rec.to_string());
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    if groups.is_empty() {
        return Err(format!("{}: no held-out traces", dir.display()));
    }
    groups.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = format!(
        "The interrupt-ended part of the excess energy over the oracle (uJ), held-out traces on their own tables, core.c's world; the predictor's cut of teo's (teo-irq against teo: the stop rule) and of rteo's (rteo-irq against rteo), beside rteo's own cut of teo's; 95 % intervals over the traces ({RESAMPLES} resamples)\n\n| table | recorded under | traces | teo | teo-irq | rteo | rteo-irq | the predictor's cut of teo's | the predictor's cut of rteo's | rteo's cut of teo's |\n|---|---|---|---|---|---|---|---|---|---|\n"
    );
    let cut = |a: usize, b: usize| move |s: &[f64; 4]| 1.0 - s[b] / s[a];
    let mut verdict: Vec<(String, bool)> = Vec::new();
    for ((table, rec), rows) in &groups {
        let sum = rows.iter().fold([0.0; 4], |mut s, r| {
            for k in 0..4 {
                s[k] += r[k];
            }
            s
        });
        let fmt = |a: usize, b: usize| {
            let (lo, hi) = interval(rows, cut(a, b));
            format!("{:.3} [{lo:.3}, {hi:.3}]", cut(a, b)(&sum))
        };
        let _ = writeln!(
            out,
            "| {table} | {rec} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {} | {} | {} |",
            rows.len(),
            sum[0] / 1e6,
            sum[3] / 1e6,
            sum[1] / 1e6,
            sum[2] / 1e6,
            fmt(0, 3),
            fmt(1, 2),
            fmt(0, 1)
        );
        let met = cut(0, 3)(&sum) >= STOP_RULE;
        match verdict.iter_mut().find(|v| &v.0 == table) {
            Some(v) => v.1 &= met,
            None => verdict.push((table.clone(), met)),
        }
    }
    let _ = writeln!(
        out,
        "\nThe stop rule (the predictor cuts teo's interrupt-ended excess by {:.0} % or more under every recording governor): {}",
        100.0 * STOP_RULE,
        verdict
            .iter()
            .map(|(t, m)| format!("{t} {}", if *m { "met" } else { "not met" }))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Origin;

    fn ep(at_us: i64, wake_us: i64, irq: Option<u32>) -> Episode {
        Episode {
            sleep_ns: 1_000_000_000,
            wake_ns: wake_us * 1000,
            src: if irq.is_some() { Src::Irq } else { Src::Timer },
            tick_phase_ns: 4_000_000,
            qos_us: i32::MAX,
            guest_state: None,
            halt_delay_ns: 0,
            origin: Some(Origin {
                cpu: 0,
                at_ns: at_us * 1000,
                irq,
            }),
        }
    }

    /// A device interrupt every 2 ms is predicted once four intervals were
    /// seen, 2 ms after the last one (stepped past now), and not from an
    /// irregular history, another CPU's, or after a long silence.
    #[test]
    fn predicts_a_regular_source() {
        let mut p = IrqPredicting::new("teo-irq", crate::governors::governor("teo"));
        for k in 0..5 {
            // busy 300 us, then idle until the interrupt
            p.period_start(&ep(k * 2000 + 300, 1700, Some(11)));
            if k < 4 {
                assert_eq!(p.predict(), None, "after {k} interrupts");
            }
            p.period_end(&ep(k * 2000 + 300, 1700, Some(11)));
        }
        // the last at 10000 us; now 10300: the next at 12000
        p.period_start(&ep(10_300, 0, None));
        assert_eq!(p.predict(), Some(1_700_000));
        // now 13000: one period missed, the next at 14000
        p.period_start(&ep(13_000, 0, None));
        assert_eq!(p.predict(), Some(1_000_000));
        // five periods missed: no prediction
        p.period_start(&ep(10_000 + 5 * 2000 + 1, 0, None));
        assert_eq!(p.predict(), None);
        // another CPU: its own history
        let mut other = ep(10_300, 0, None);
        other.origin = Some(Origin {
            cpu: 1,
            ..other.origin.unwrap()
        });
        p.period_start(&other);
        assert_eq!(p.predict(), None);
        // an irregular source is not predicted
        let mut q = IrqPredicting::new("teo-irq", crate::governors::governor("teo"));
        let mut at = 0;
        for gap in [500, 3000, 700, 2500, 900, 4000] {
            q.period_start(&ep(at, gap, Some(5)));
            q.period_end(&ep(at, gap, Some(5)));
            at += gap + 100;
        }
        q.period_start(&ep(at, 0, None));
        assert_eq!(q.predict(), None);
    }

    /// The prediction caps the governor's choice: with an interrupt every
    /// 500 us predicted 400 us ahead, a 10 ms sleep length and no other
    /// history, rteo's C6 becomes the state for 400 us on x86-like (C1E:
    /// C6's target residency is 600 us), the tick kept.
    #[test]
    fn prediction_caps_the_choice() {
        let t = table_named("x86-like").unwrap();
        let mut p = IrqPredicting::new("rteo-irq", crate::governors::governor("rteo"));
        p.reset(&t);
        for k in 0..5 {
            p.period_start(&ep(k * 500 + 100, 400, Some(11)));
            p.period_end(&ep(k * 500 + 100, 400, Some(11)));
        }
        p.period_start(&ep(2_600, 0, None));
        assert_eq!(p.predict(), Some(400_000));
        let q = Query {
            latency_req_ns: i64::MAX,
            tick_stopped: false,
            sleep_ns: 10_000_000,
            delta_tick_ns: 4_000_000,
        };
        let mut plain = crate::governors::governor("rteo");
        plain.reset(&t);
        assert_eq!(plain.select(&q).0, 3);
        assert_eq!(p.select(&q), (2, false));
    }
}
