// SPDX-License-Identifier: GPL-2.0

//! How low any governor's energy regret can go on a trace, given what it
//! knows when it decides (`cpuidle-sim --bound`).
//!
//! A governor decides from the sleep length and from the idle periods it
//! has seen.  The bound gives a policy more than any governor has: for
//! every *context* (the state the sleep length allows, and the last `k`
//! idle periods as the oracle's state for each and what ended it, the
//! information teo's bins and hits/intercepts summarise), the one choice
//! that costs least over the whole trace, picked with hindsight; after a
//! first entry that the tick or the polling limit ends, the rest of the
//! period is spent in the best state for what is really left (clairvoyant).
//! The world is the energy model's without the idle loop's own costs: no
//! tick while a state with the tick stopped runs, no decision cost.  So
//! the bound's regret is below what any governor with that information
//! reaches in the simulator; a target below the bound cannot be met by
//! deciding better from the same information.
//!
//! The choices at the first entry: a state that does not poll with the
//! tick stopped (the period in one entry), any state with the tick kept
//! (the entry ends at the next tick, or at the polling limit for a polling
//! state, if the period lasts that long).

use crate::{
    corpus::{Episode, Src},
    simulate::oracle,
    table::Table,
};
use std::collections::BTreeMap;

/// What one first-entry choice costs over some periods: energy, entries
/// the kernel counts too deep, exit latency paid where an interrupt (not
/// the timer) ended the period, first entries the kernel counts too
/// shallow.
#[derive(Clone, Copy, Default, Debug, PartialEq)]
pub(crate) struct Cost {
    pub energy: f64,
    pub too_deep: f64,
    pub irq_latency_ns: f64,
    pub too_shallow: f64,
}

impl Cost {
    fn add(&mut self, o: Cost) {
        self.energy += o.energy;
        self.too_deep += o.too_deep;
        self.irq_latency_ns += o.irq_latency_ns;
        self.too_shallow += o.too_shallow;
    }
}

/// One entry of state `s` that lasts `len_ns` and that the wake-up ends if
/// `woken`: its energy (as `simulate()` charges it), whether the kernel
/// counts it too deep and too shallow (`account()`), its exit latency.
pub(crate) fn entry(t: &Table, s: usize, len_ns: i64) -> (f64, bool, bool, i64) {
    let st = &t.states[s];
    let lat = if st.polling { 0 } else { st.exit_latency_ns };
    let diff = len_ns + lat;
    let (above, below) = crate::simulate::account(&t.states, 0, s, diff);
    (t.entry_energy(s, diff), above, below, lat)
}

/// The cost of first-entry choice `c` for episode `e`: `c < n` is state
/// `c` with the tick stopped (one entry for the period; a polling state
/// still stops at the polling limit), `c >= n` is state `c - n` with the
/// tick kept (the entry ends at the next tick).  An entry that ends
/// before the wake-up is followed by one entry, for what is left of the
/// period, in the oracle's state for it.
fn cost(t: &Table, c: usize, e: &Episode, poll_limit_ns: i64, qos_ns: i64) -> Cost {
    let n = t.states.len();
    let (s, tick_kept) = (c % n, c >= n);
    let mut end = i64::MAX;
    if t.states[s].polling {
        end = poll_limit_ns;
    }
    if tick_kept {
        end = end.min(e.tick_phase_ns);
    }
    let irq = e.src == Src::Irq;
    let idle = e.wake_ns;
    let count = |b: bool| f64::from(u8::from(b));
    if idle <= end {
        let (energy, above, below, lat) = entry(t, s, idle);
        return Cost {
            energy,
            too_deep: count(above),
            irq_latency_ns: if irq { lat as f64 } else { 0.0 },
            too_shallow: count(below),
        };
    }
    let (energy, above, below, lat) = entry(t, s, end);
    let mut out = Cost {
        energy,
        too_deep: count(above),
        irq_latency_ns: 0.0,
        too_shallow: count(below),
    };
    let rest = (idle - end - lat).max(1);
    let (energy, above, _, lat) = entry(t, oracle(t, rest, qos_ns), rest);
    out.add(Cost {
        energy,
        too_deep: count(above),
        irq_latency_ns: if irq { lat as f64 } else { 0.0 },
        too_shallow: 0.0,
    });
    out
}

/// The cheapest single entry for the episode among the states its latency
/// limit allows (the energy model's optimum for the period, clairvoyant):
/// no governor spends less on it, in one entry or several.
pub(crate) fn cheapest_entry(t: &Table, e: &Episode) -> f64 {
    let qos_ns = i64::from(e.qos_us).saturating_mul(1000);
    (0..t.states.len())
        .filter(|&s| t.states[s].polling || t.states[s].exit_latency_ns <= qos_ns)
        .map(|s| entry(t, s, e.wake_ns).0)
        .fold(f64::INFINITY, f64::min)
}

/// The oracle's energy for the episode, as `simulate()` charges it.
pub(crate) fn oracle_energy(t: &Table, e: &Episode, qos_ns: i64) -> f64 {
    entry(t, oracle(t, e.wake_ns, qos_ns), e.wake_ns).0
}

/// A period's context: the state the sleep length allows, then, newest
/// first, the last `k` periods of `past` (each pushed as whether the timer
/// ended it, then the state its length fits).
fn context(sleep_state: usize, past: &[u8], k: usize) -> Vec<u8> {
    let mut ctx = vec![sleep_state as u8];
    ctx.extend(past.iter().rev().take(2 * k));
    ctx
}

/// A governor that follows a [`Policy`] made on other traces
/// ([`Contexts::policy`]), in the simulator's closed loop, where the bound
/// gives the policy what no governor has: the tick's cost and the best
/// state after it.  It knows what a governor knows: the sleep length at
/// each entry, the residencies, whether the tick ended an entry.  An entry
/// that the tick did not end ends the period (as the bound's periods, one
/// wake-up each); the period's length and whether it reached the first
/// entry's sleep length (the timer) make the next periods' context.  The
/// first entry of a period takes the policy's choice for its context (the
/// timer's state with the tick stopped where the policy has none, as
/// [`Contexts::apply`]); an entry after a tick takes the state the sleep
/// length left allows, the tick stopped.  A state beyond the latency limit
/// gives way to the deepest one within it.
pub(crate) struct PolicyGov {
    policy: Policy,
    k: usize,
    table: &'static str,
    states: Vec<rteo_core::rteo_core::State>,
    /// What [`Contexts::add`] keeps of the past periods, oldest first.
    past: Vec<u8>,
    /// Whether an entry of the current period was made (the next one
    /// follows a tick).
    in_period: bool,
    first_sleep_ns: i64,
    elapsed_ns: i64,
    qos_ns: i64,
}

impl PolicyGov {
    pub(crate) fn new(policy: Policy, k: usize) -> Self {
        Self {
            policy,
            k,
            table: "",
            states: Vec::new(),
            past: Vec::new(),
            in_period: false,
            first_sleep_ns: 0,
            elapsed_ns: 0,
            qos_ns: i64::MAX,
        }
    }

    /// The deepest state `ns` of idle time fits (the oracle's rule).
    fn fits(&self, ns: i64) -> usize {
        crate::simulate::deepest_fit(&self.states, ns, self.qos_ns)
    }
}

/// Slack for a period that reached its first entry's sleep length: the
/// timer ended it.
const TIMER_SLACK_NS: i64 = 2_000;

impl crate::governors::Governor for PolicyGov {
    fn name(&self) -> &'static str {
        "policy"
    }
    fn reset(&mut self, t: &Table) {
        self.table = t.name;
        self.states.clone_from(&t.states);
        self.past.clear();
        self.in_period = false;
    }
    fn select(&mut self, q: &crate::governors::Query) -> (usize, bool) {
        let n = self.states.len();
        self.qos_ns = q.latency_req_ns;
        let allowed = self.fits(q.sleep_ns);
        let choice = if self.in_period {
            allowed
        } else {
            self.in_period = true;
            self.first_sleep_ns = q.sleep_ns;
            self.elapsed_ns = 0;
            let key = (self.table, "", context(allowed, &self.past, self.k));
            self.policy.get(&key).copied().unwrap_or(allowed)
        };
        let (mut s, tick_kept) = (choice % n, choice >= n);
        while s > 0 && !self.states[s].polling && self.states[s].exit_latency_ns > q.latency_req_ns
        {
            s -= 1;
        }
        (s, !tick_kept)
    }
    fn poll_time_limit(&self) -> bool {
        false
    }
    fn wakeup(&mut self, _idx: usize, residency_ns: u64, poll_time_limit: bool, got_tick: bool) {
        self.elapsed_ns = self
            .elapsed_ns
            .saturating_add(i64::try_from(residency_ns).unwrap_or(i64::MAX));
        if got_tick || poll_time_limit {
            return;
        }
        let timer = self.elapsed_ns + TIMER_SLACK_NS >= self.first_sleep_ns;
        self.past.push(u8::from(timer));
        let fits = self.fits(self.elapsed_ns);
        self.past.push(fits as u8);
        if self.past.len() > 2 * self.k {
            self.past.drain(..self.past.len() - 2 * self.k);
        }
        self.in_period = false;
    }
}

/// (table, group, context): where a policy makes one choice.
type Key = (&'static str, &'static str, Vec<u8>);

/// A first-entry choice per [`Key`].
pub(crate) type Policy = BTreeMap<Key, usize>;

/// Periods by context, with what each first-entry choice would cost them.
#[derive(Default)]
pub(crate) struct Contexts {
    /// (table, group, context) -> the summed cost of every first-entry
    /// choice (none for a choice the QoS limit forbids).
    rows: BTreeMap<Key, Vec<Option<Cost>>>,
    periods: u64,
    irq_periods: u64,
    oracle_energy: f64,
    /// The cheapest single entry for each period, whatever its too-deep
    /// count and latency: the energy model's own optimum.
    cheapest_energy: f64,
}

impl Contexts {
    /// Adds `trace` on `t`, contexts of the last `k` periods.  The policy
    /// chooses per table, group and context: a group per trace gives each
    /// trace a policy of its own, one group for all a policy per table.
    pub(crate) fn add(
        &mut self,
        t: &Table,
        group: &'static str,
        trace: &[Episode],
        poll_limit_ns: i64,
        k: usize,
    ) {
        let n = t.states.len();
        let mut past: Vec<u8> = Vec::new();
        for e in trace {
            let qos_ns = i64::from(e.qos_us).saturating_mul(1000);
            let ctx = context(oracle(t, e.sleep_ns, qos_ns), &past, k);
            let row = self
                .rows
                .entry((t.name, group, ctx))
                .or_insert_with(|| vec![Some(Cost::default()); 2 * n]);
            for (c, v) in row.iter_mut().enumerate() {
                let s = c % n;
                if t.states[s].polling || t.states[s].exit_latency_ns <= qos_ns {
                    if let Some(v) = v {
                        v.add(cost(t, c, e, poll_limit_ns, qos_ns));
                    }
                } else {
                    *v = None;
                }
            }
            self.periods += 1;
            self.irq_periods += u64::from(e.src == Src::Irq);
            self.oracle_energy += oracle_energy(t, e, qos_ns);
            self.cheapest_energy += cheapest_entry(t, e);
            // what the next periods know of this one: its length, as the
            // oracle's state, and whether the timer ended it
            past.push(u8::from(e.src == Src::Timer));
            past.push(oracle(t, e.wake_ns, qos_ns) as u8);
        }
    }

    /// The regret of the cheapest single entry for every period
    /// (clairvoyant): 0, since each table's model makes a state pay from
    /// its target residency, which the oracle goes by (a model that did
    /// not would score below 0 here).
    pub(crate) fn cheapest(&self) -> f64 {
        self.cheapest_energy / self.oracle_energy - 1.0
    }

    /// The choice per context that minimises regret + `w_deep` x too deep
    /// per period + `w_lat` x IRQ exit latency (us): (regret, too deep
    /// per 100 periods, IRQ exit latency in us).
    pub(crate) fn best(&self, w_deep: f64, w_lat: f64) -> (f64, f64, f64) {
        let eo = self.oracle_energy;
        let p = self.periods.max(1) as f64;
        let ni = self.irq_periods.max(1) as f64;
        let score = |c: &Cost| {
            c.energy / eo + w_deep * c.too_deep / p + w_lat * c.irq_latency_ns / ni / 1000.0
        };
        let mut total = Cost::default();
        for row in self.rows.values() {
            if let Some(best) = row
                .iter()
                .flatten()
                .min_by(|a, b| score(a).total_cmp(&score(b)))
            {
                total.add(*best);
            }
        }
        (
            total.energy / eo - 1.0,
            100.0 * total.too_deep / p,
            total.irq_latency_ns / ni / 1000.0,
        )
    }

    /// The choice per context at weights `w_deep`, `w_lat` ([`Self::best`])
    /// and `w_shallow` on first entries too shallow (per period).
    pub(crate) fn policy(&self, w_deep: f64, w_shallow: f64, w_lat: f64) -> Policy {
        let eo = self.oracle_energy;
        let p = self.periods.max(1) as f64;
        let ni = self.irq_periods.max(1) as f64;
        let score = |c: &Cost| {
            c.energy / eo
                + w_deep * c.too_deep / p
                + w_shallow * c.too_shallow / p
                + w_lat * c.irq_latency_ns / ni / 1000.0
        };
        self.rows
            .iter()
            .filter_map(|(key, row)| {
                row.iter()
                    .enumerate()
                    .filter_map(|(i, c)| c.map(|c| (i, c)))
                    .min_by(|a, b| score(&a.1).total_cmp(&score(&b.1)))
                    .map(|(i, _)| (key.clone(), i))
            })
            .collect()
    }

    /// What `policy` (made on other periods, same groups) does on these:
    /// (regret, too deep per 100 periods, IRQ exit latency in us).  A
    /// context the policy has not seen takes the state the sleep length
    /// allows with the tick stopped (the timer alone).
    pub(crate) fn apply(&self, policy: &Policy) -> (f64, f64, f64) {
        let mut total = Cost::default();
        for (key, row) in &self.rows {
            let c = policy.get(key).copied().unwrap_or(usize::from(key.2[0]));
            // a choice this context forbids: the first allowed one
            let cost = row[c].or_else(|| row.iter().flatten().next().copied());
            total.add(cost.unwrap_or_default());
        }
        (
            total.energy / self.oracle_energy - 1.0,
            100.0 * total.too_deep / self.periods.max(1) as f64,
            total.irq_latency_ns / self.irq_periods.max(1) as f64 / 1000.0,
        )
    }

    /// The lowest regret over a grid of weights whose too deep (per 100
    /// periods) and IRQ exit latency (us) stay within the limits:
    /// (regret, too deep, latency), or `None` if no weight does.
    pub(crate) fn best_within(&self, too_deep: f64, latency_us: f64) -> Option<(f64, f64, f64)> {
        self.weights_within(too_deep, latency_us).map(|w| w.0)
    }

    /// [`Self::best_within`], with the weights that give it.
    pub(crate) fn weights_within(
        &self,
        too_deep: f64,
        latency_us: f64,
    ) -> Option<((f64, f64, f64), f64, f64)> {
        let grid: Vec<f64> = std::iter::once(0.0)
            .chain((0..=32).map(|i| 10f64.powf(-6.0 + 0.25 * f64::from(i))))
            .collect();
        grid.iter()
            .flat_map(|&wd| grid.iter().map(move |&wl| (wd, wl)))
            .map(|(wd, wl)| (self.best(wd, wl), wd, wl))
            .filter(|&((_, d, l), _, _)| d <= too_deep && l <= latency_us)
            .min_by(|a, b| a.0 .0.total_cmp(&b.0 .0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{corpus::Src, table::table_named};

    fn ep(sleep_us: i64, wake_us: i64, src: Src) -> Episode {
        Episode {
            sleep_ns: sleep_us * 1000,
            wake_ns: wake_us * 1000,
            src,
            tick_phase_ns: 4_000_000,
            qos_us: i32::MAX,
            guest_state: None,
            halt_delay_ns: 0,
            origin: None,
        }
    }

    /// `tr`'s periods on `t` with the last `k` as context, one group.
    fn contexts(t: &Table, tr: &[Episode], k: usize) -> Contexts {
        let mut c = Contexts::default();
        c.add(t, "", tr, 250_000, k);
        c
    }

    /// `n` interrupt periods under a 3 ms timer: every `m`-th one 20 us,
    /// the others 2.5 ms.
    fn short_among_long(n: usize, m: usize) -> Vec<Episode> {
        (0..n)
            .map(|i| ep(3000, if i % m == 0 { 20 } else { 2500 }, Src::Irq))
            .collect()
    }

    fn regret(t: &Table, tr: &[Episode], k: usize) -> f64 {
        contexts(t, tr, k).best(0.0, 0.0).0
    }

    /// Periods the sleep length predicts: the policy can take the
    /// oracle's state every time, so the bound is at most the oracle.
    #[test]
    fn timer_periods_cost_at_most_the_oracle() {
        let t = table_named("mvebu-370").unwrap();
        let tr: Vec<Episode> = (0..50)
            .map(|i| ep(100 + 700 * (i % 3), 100 + 700 * (i % 3), Src::Timer))
            .collect();
        assert!(regret(&t, &tr, 0) <= 1e-12);
    }

    /// Interrupts the sleep length does not see, one short after one long
    /// in turn: without history the bound pays for them, with one period of
    /// history it tells them apart.
    #[test]
    fn history_tells_alternating_periods_apart() {
        let t = table_named("mvebu-370").unwrap();
        let tr: Vec<Episode> = (0..200)
            .map(|i| {
                if i % 2 == 0 {
                    ep(3000, 20, Src::Irq)
                } else {
                    ep(3000, 2500, Src::Irq)
                }
            })
            .collect();
        let (r0, r1) = (regret(&t, &tr, 0), regret(&t, &tr, 1));
        assert!(r0 > 0.05, "{r0}");
        assert!(r1 <= 1e-12, "{r1}");
    }

    /// Weighing too-deep entries: with no too-deep entry allowed, the
    /// policy pays energy for it (the short periods' state is WFI).
    #[test]
    fn limits_cost_energy() {
        let t = table_named("mvebu-370").unwrap();
        let tr = short_among_long(200, 4);
        let c = contexts(&t, &tr, 0);
        let free = c.best(0.0, 0.0);
        assert!(free.1 > 20.0, "{free:?}");
        // nothing beats the cheapest state for every period
        assert!(c.cheapest() <= free.0 + 1e-12, "{} {free:?}", c.cheapest());
        // 500 us periods: the oracle takes WFI (state 1's residency is
        // 1 ms), and so does the model's optimum (state 1 pays from its
        // target residency: cpuidle_tables::entry_nj)
        let tr: Vec<Episode> = (0..10).map(|_| ep(3000, 500, Src::Irq)).collect();
        let mid = contexts(&t, &tr, 0);
        assert!(mid.cheapest().abs() < 1e-12, "{}", mid.cheapest());
        let held = c.best_within(0.0, 1e9).unwrap();
        assert_eq!(held.1, 0.0);
        assert!(held.0 > free.0 + 0.1, "{held:?} {free:?}");
    }

    /// A policy made on some periods, applied to the same ones, scores as
    /// it did; a context it has not seen takes the timer's state.
    #[test]
    fn policy_applies_as_made() {
        let t = table_named("mvebu-370").unwrap();
        let tr = short_among_long(100, 3);
        let c = contexts(&t, &tr, 1);
        let p = c.policy(0.0, 0.0, 0.0);
        assert_eq!(c.apply(&p), c.best(0.0, 0.0));
        let timer = c.apply(&Policy::new());
        let alone = contexts(&t, &tr, 0);
        let stopped = alone.rows.values().next().unwrap()[1].unwrap();
        assert!((timer.0 - (stopped.energy / alone.oracle_energy - 1.0)).abs() < 1e-12);
    }

    /// In the closed loop the policy governor finds the context itself:
    /// with one period of history it tells the alternating periods apart,
    /// as the bound does (its regret near 0, well below the sleep length
    /// alone's).
    #[test]
    fn policy_governor_finds_its_context() {
        let t = table_named("mvebu-370").unwrap();
        let tr: Vec<Episode> = (0..200)
            .map(|i| ep(3000, if i % 2 == 0 { 20 } else { 2500 }, Src::Irq))
            .collect();
        let mut core = crate::simcore::Core::lock();
        let mut run = |k: usize| {
            let c = contexts(&t, &tr, k);
            let p = c.policy(0.0, 0.0, 0.0);
            let mut g = PolicyGov::new(p, k);
            let s = crate::simulate::simulate(&mut core, &mut g, &t, "test", &tr);
            (s.regret(), c.best(0.0, 0.0).0)
        };
        let (closed0, bound0) = run(0);
        let (closed1, bound1) = run(1);
        assert!(bound1 <= 1e-12 && bound0 > 0.05, "{bound0} {bound1}");
        assert!(closed1 < 0.01, "k=1: {closed1}");
        assert!(closed0 > closed1 + 0.05, "k=0: {closed0}, k=1: {closed1}");
    }
}
