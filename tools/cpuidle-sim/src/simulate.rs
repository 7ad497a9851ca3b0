// SPDX-License-Identifier: GPL-2.0

//! One governor on one trace, closed loop as the idle loop runs it:
//! [`simulate`] drives the governor through the kernel's C
//! ([`Core`]) and scores the entries ([`Score`]) against the oracle
//! ([`oracle`]), the deepest state that fits each idle period, whose
//! entries are classified by the kernel's above/below rule ([`account`]).

use crate::{
    episode::{Episode, Src},
    governors::{parse_rules, Governor, Query, RULES},
    oracle::{account, oracle},
    simcore::Core,
    table::Table,
    units::US,
};

/// How the simulated CPU and rteo run, for every subcommand.
#[derive(clap::Args, Clone, Debug)]
pub(crate) struct Knobs {
    /// What one `cpu_relax()` of `poll_idle()` costs in the simulated clock
    #[arg(long, value_name = "NS", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) relax_ns: u64,
    /// Run the tree's `poll_idle()` loop itself, one iteration per
    /// `cpu_relax()`, instead of its closed form (the same results, tested;
    /// minutes instead of a second)
    #[arg(long)]
    pub(crate) exact_poll: bool,
    /// The rules of rteo's default mode in force, a mask of the core's
    /// `rule` bits, 0x hexadecimal or decimal [default: all]
    #[arg(long, value_name = "MASK", value_parser = parse_rules)]
    pub(crate) rules: Option<u32>,
}

impl Knobs {
    /// Sets the simulated CPU's `cpu_relax()` and `poll_idle()`, and rteo's
    /// rules for the governors made from now on.
    pub(crate) fn apply(&self, core: &mut Core) {
        core.set_relax_ns(self.relax_ns);
        core.set_exact_poll(self.exact_poll);
        if let Some(m) = self.rules {
            RULES.store(m, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// Scores of one governor on one trace.
#[derive(Default, Clone, Copy)]
pub(crate) struct Score {
    /// Idle periods of the workload (episodes): the same for every
    /// governor on one trace.
    pub(crate) periods: u64,
    pub(crate) entries: u64,
    pub(crate) above: u64,
    pub(crate) below: u64,
    pub(crate) exact: u64,
    pub(crate) energy: f64,
    pub(crate) oracle_energy: f64,
    pub(crate) irq_wakes: u64,
    pub(crate) irq_latency_ns: f64,
    /// Periods ended by an interrupt other than the timer and the tick,
    /// and their wake-up latency: from the interrupt to the woken task
    /// (the end of the last entry: an emulated delay to a halted CPU, the
    /// exit latency, a poll's last slice; then the restart of a stopped
    /// tick, [`Core::idle_exit_cost`]).
    pub(crate) irq_ends: u64,
    pub(crate) wake_latency_ns: f64,
    /// Too-shallow entries ended by the tick / the polling limit.
    pub(crate) below_tick: u64,
    pub(crate) below_poll: u64,
    /// Energy above the oracle's, by kind of period: one with a too-deep
    /// entry, one with a too-shallow entry (and none too deep), one split
    /// into several entries (neither), one entry (neither).
    pub(crate) excess_by_kind: [f64; 4],
    /// The oracle's entries (one per period) by the kernel's rule, and the
    /// exit latency it pays on interrupt wake-ups.
    pub(crate) oracle_above: u64,
    pub(crate) oracle_below: u64,
    pub(crate) oracle_irq_wakes: u64,
    pub(crate) oracle_irq_latency_ns: f64,
    /// Per state: entries, and the time in it as `cpuidle_enter_state()`
    /// measures it (`time_end - time_start`: the exit latency's spin
    /// included, as the guest's `power:cpu_idle` durations include it).
    pub(crate) state_entries: [u64; STATE_MAX],
    pub(crate) state_ns: [u64; STATE_MAX],
}

/// `CPUIDLE_STATE_MAX`.
const STATE_MAX: usize = 10;

impl Score {
    pub(crate) fn add(&mut self, o: &Score) {
        self.periods += o.periods;
        self.entries += o.entries;
        self.above += o.above;
        self.below += o.below;
        self.exact += o.exact;
        self.energy += o.energy;
        self.oracle_energy += o.oracle_energy;
        self.irq_wakes += o.irq_wakes;
        self.irq_latency_ns += o.irq_latency_ns;
        self.irq_ends += o.irq_ends;
        self.wake_latency_ns += o.wake_latency_ns;
        self.below_tick += o.below_tick;
        self.below_poll += o.below_poll;
        for (a, b) in self.excess_by_kind.iter_mut().zip(o.excess_by_kind) {
            *a += b;
        }
        self.oracle_above += o.oracle_above;
        self.oracle_below += o.oracle_below;
        self.oracle_irq_wakes += o.oracle_irq_wakes;
        self.oracle_irq_latency_ns += o.oracle_irq_latency_ns;
        for i in 0..STATE_MAX {
            self.state_entries[i] += o.state_entries[i];
            self.state_ns[i] += o.state_ns[i];
        }
    }
    /// The oracle's own score on the same trace.
    pub(crate) fn of_oracle(&self) -> Score {
        Score {
            periods: self.periods,
            entries: self.periods,
            above: self.oracle_above,
            below: self.oracle_below,
            exact: self.periods,
            energy: self.oracle_energy,
            oracle_energy: self.oracle_energy,
            irq_wakes: self.oracle_irq_wakes,
            irq_latency_ns: self.oracle_irq_latency_ns,
            ..Score::default()
        }
    }
    pub(crate) fn regret(&self) -> f64 {
        self.energy / self.oracle_energy - 1.0
    }
    /// Too-deep entries per 100 idle periods of the workload.  Per period
    /// rather than per entry: a governor that splits a period into many
    /// entries (polling slices, tick wake-ups) would otherwise dilute its
    /// rate with its own extra entries.
    pub(crate) fn too_deep(&self) -> f64 {
        100.0 * self.above as f64 / self.periods.max(1) as f64
    }
    /// Too-shallow entries per 100 idle periods.
    pub(crate) fn too_shallow(&self) -> f64 {
        100.0 * self.below as f64 / self.periods.max(1) as f64
    }
    /// The kernel counters' ratios: above and below per entry, %.
    pub(crate) fn per_entry(&self) -> (f64, f64) {
        let n = self.entries.max(1) as f64;
        (100.0 * self.above as f64 / n, 100.0 * self.below as f64 / n)
    }
    pub(crate) fn accuracy(&self) -> f64 {
        100.0 * self.exact as f64 / self.entries.max(1) as f64
    }
    pub(crate) fn latency_us(&self) -> f64 {
        self.irq_latency_ns / self.irq_wakes.max(1) as f64 / 1000.0
    }
    /// The end of a period the governor spent `spent` on, of `kind`
    /// ([`Score::excess_by_kind`]): the oracle's one entry for the whole
    /// period, under the limit the governors were given.
    fn close_period(
        &mut self,
        t: &Table,
        ep: &Episode,
        latency_req_ns: i64,
        spent: f64,
        kind: usize,
    ) {
        let o = oracle(t, ep.wake_ns, latency_req_ns);
        let os = t.states[o];
        let ol = if os.polling { 0 } else { os.exit_latency_ns };
        let diff = ep.wake_ns + ol;
        let (a, b) = account(&t.states, 0, o, diff);
        self.oracle_above += u64::from(a);
        self.oracle_below += u64::from(b);
        let oe = t.entry_energy(o, diff);
        self.oracle_energy += oe;
        self.excess_by_kind[kind] += spent - oe;
        if ep.src == Src::Irq {
            self.oracle_irq_wakes += 1;
            self.oracle_irq_latency_ns += ol as f64;
        }
    }
    /// Mean wake-up latency of the periods an interrupt ended, us (not a
    /// number without one: the oracle's score has none).
    pub(crate) fn wake_latency_us(&self) -> f64 {
        if self.irq_ends == 0 {
            return f64::NAN;
        }
        self.wake_latency_ns / self.irq_ends as f64 / 1000.0
    }
}

pub(crate) fn simulate(
    core: &mut Core,
    g: &mut dyn Governor,
    t: &Table,
    class: &str,
    trace: &[Episode],
) -> Score {
    core.init(&t.residencies(), &t.latencies(), &t.flags);
    g.reset(t);
    let trace_window = trace_window(g.name(), t.name, class);
    let mut sc = Score::default();
    let n = t.states.len();
    for (epn, ep) in trace.iter().enumerate() {
        sc.periods += 1;
        core.set_halt_delay(ep.halt_delay_ns);
        core.episode(ep.wake_ns, ep.sleep_ns, ep.tick_phase_ns, ep.qos_us);
        let mut first = true;
        let (energy_before, entries_before) = (sc.energy, sc.entries);
        let (mut deep, mut shallow) = (false, false);
        loop {
            if !first {
                core.idle_again();
            }
            first = false;
            let inp = core.inputs();
            let q = Query {
                latency_req_ns: inp.latency_req_ns,
                tick_stopped: inp.tick_stopped,
                sleep_ns: inp.sleep_ns,
                delta_tick_ns: inp.delta_next_ns,
            };
            let (idx, stop) = g.select(&q);
            let idx = idx.min(n - 1);
            // dev->poll_time_limit is one field in the kernel: what the
            // governor's select() left of it is what poll_idle() finds
            core.set_poll_time_limit(g.poll_time_limit());
            core.stop_or_retain_tick(stop);
            let e = core.enter(idx);
            let got_tick = core.got_tick();
            let ready = core.need_resched();
            let st = t.states[idx];
            let lat = st.exit_latency_ns;
            // what ended the entry: the wake-up (the episode's interrupt or
            // timer), the tick, or the polling limit
            let by_wake = if st.polling {
                !e.poll_time_limit && ready
            } else {
                e.by_wake
            };
            if trace_window.is_some_and(|(from, to)| (from..to).contains(&sc.entries)) {
                print_entry(epn, ep, &inp, idx, stop, &e, got_tick);
            }
            sc.entries += 1;
            sc.state_entries[idx] += 1;
            sc.state_ns[idx] += e.residency_ns;
            if idx == oracle(t, ep.wake_ns - e.start_ns, inp.latency_req_ns) {
                sc.exact += 1;
            }
            sc.above += u64::from(e.above);
            deep |= e.above;
            shallow |= e.below;
            if e.below {
                sc.below += 1;
                sc.below_tick += u64::from(e.by_tick);
                sc.below_poll += u64::from(e.poll_time_limit);
            }
            sc.energy += t.entry_energy(idx, i64::try_from(e.residency_ns).unwrap_or(i64::MAX));
            if by_wake && ep.src == Src::Irq {
                sc.irq_wakes += 1;
                sc.irq_latency_ns += lat as f64;
            }
            g.wakeup(idx, e.residency_ns, core.poll_time_limit(), got_tick);
            if ready {
                if ep.src == Src::Irq {
                    sc.irq_ends += 1;
                    sc.wake_latency_ns +=
                        (e.end_ns - ep.wake_ns).max(0) as f64 + core.idle_exit_cost() as f64;
                }
                let kind = if deep {
                    0
                } else if shallow {
                    1
                } else if sc.entries - entries_before > 1 {
                    2
                } else {
                    3
                };
                let spent = sc.energy - energy_before;
                sc.close_period(t, ep, inp.latency_req_ns, spent, kind);
                break;
            }
        }
    }
    assert_eq!(core.warnings(), 0, "the kernel's code warned");
    sc
}

/// `SIM_TRACE=governor/table[/class]` (`SIM_FROM=n`, `SIM_TO=m`): the
/// entries n..m of this run to print, if it is the one named.
fn trace_window(gov: &str, table: &str, class: &str) -> Option<(u64, u64)> {
    std::env::var("SIM_TRACE")
        .is_ok_and(|v| v == format!("{gov}/{table}") || v == format!("{gov}/{table}/{class}"))
        .then(|| {
            let n = |k: &str, d: u64| {
                std::env::var(k)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(d)
            };
            (n("SIM_FROM", 0), n("SIM_TO", 200))
        })
}

/// One entry, as `SIM_TRACE` prints it.
fn print_entry(
    epn: usize,
    ep: &Episode,
    inp: &crate::simcore::Inputs,
    idx: usize,
    stop: bool,
    e: &crate::simcore::Entry,
    got_tick: bool,
) {
    eprintln!(
        "ep={epn} qos={}us sleep={}us wake={}us {:?} now={}us sleep_length={}us delta_next={}us tick_stopped={} -> idx={idx} stop={stop} end={}us residency={}us by_tick={} poll_limit={} got_tick={got_tick} above={} below={}",
        ep.qos_us,
        ep.sleep_ns / US,
        ep.wake_ns / US,
        ep.src,
        e.start_ns / US,
        inp.sleep_ns / US,
        inp.delta_next_ns / US,
        inp.tick_stopped,
        e.end_ns / US,
        e.residency_ns / 1000,
        e.by_tick,
        e.poll_time_limit,
        e.above,
        e.below
    );
}
