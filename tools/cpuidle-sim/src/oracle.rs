// SPDX-License-Identifier: GPL-2.0

//! The oracle and the energy model's prices, below the closed loop: the
//! state the oracle enters for an idle period, the kernel's above/below
//! rule for its entries, and what one entry costs in a table's model.

use crate::{episode::Episode, table::Table, units::US};
use rteo_core::rteo_core::State;

/// The oracle's state for `idle_ns` of idle time under `qos_ns`: the
/// deepest whose target residency fits it, among the states before the
/// first whose exit latency exceeds the limit.
pub(crate) fn oracle(t: &Table, idle_ns: i64, qos_ns: i64) -> usize {
    let mut best = 0;
    for (i, s) in t.states.iter().enumerate() {
        if s.exit_latency_ns > qos_ns {
            break;
        }
        if s.target_residency_ns <= idle_ns {
            best = i;
        }
    }
    best
}

/// `cpuidle_enter_state()`'s above/below rule, for the oracle's entries
/// (the governors' entries go through the C itself): measured residency
/// `diff` below the entered state's target residency is "above" if a
/// shallower state is enabled; else, if `diff` exceeds the exit latency,
/// "below" when `diff` less the exit latency reaches the target residency
/// of the first enabled deeper state.  `disabled`: bit i, state i.
/// Differential test: `simcore::tests::above_below_are_the_kernels`.
pub(crate) fn account(states: &[State], disabled: u32, idx: usize, diff: i64) -> (bool, bool) {
    let on = |i: usize| disabled & (1 << i) == 0;
    let (tr, lat) = (states[idx].target_residency_ns, states[idx].exit_latency_ns);
    if diff < tr {
        ((0..idx).any(on), false)
    } else if diff > lat {
        let next = (idx + 1..states.len()).find(|&i| on(i));
        (
            false,
            next.is_some_and(|j| diff - lat >= states[j].target_residency_ns),
        )
    } else {
        (false, false)
    }
}

/// The energy of one entry of state `s` that the wake-up ends after
/// `len_ns` of idle time, as `simulate()` charges it: the kernel counts the
/// exit latency of a state that does not poll in the residency.
pub(crate) fn entry(t: &Table, s: usize, len_ns: i64) -> f64 {
    let st = &t.states[s];
    let lat = if st.polling { 0 } else { st.exit_latency_ns };
    t.entry_energy(s, len_ns + lat)
}

/// The cheapest single entry for the episode among the states its latency
/// limit allows (the energy model's optimum for the period, clairvoyant):
/// no governor spends less on it, in one entry or several.
pub(crate) fn cheapest_entry(t: &Table, e: &Episode) -> f64 {
    let qos_ns = i64::from(e.qos_us).saturating_mul(US);
    (0..t.states.len())
        .filter(|&s| t.states[s].polling || t.states[s].exit_latency_ns <= qos_ns)
        .map(|s| entry(t, s, e.wake_ns))
        .fold(f64::INFINITY, f64::min)
}

/// The oracle's energy for the episode, as `simulate()` charges it.
pub(crate) fn oracle_energy(t: &Table, e: &Episode, qos_ns: i64) -> f64 {
    entry(t, oracle(t, e.wake_ns, qos_ns), e.wake_ns)
}
