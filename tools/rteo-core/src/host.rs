// SPDX-License-Identifier: GPL-2.0

//! A CPU as plain data for the host tools (the parity harness, the
//! simulator): the [`Env`] the decision core runs against outside the
//! kernel.

use crate::rteo_core::{Env, SleepLength, State, STATE_MAX};

/// One CPU's idle-state table, timers and cpuidle device fields.
#[derive(Clone, Copy, Debug)]
pub struct HostEnv {
    states: [State; STATE_MAX],
    count: usize,
    /// Bit `i` set: state `i` disabled.
    pub disabled: u32,
    /// PM QoS limit, ns.
    pub latency_req_ns: i64,
    /// The tick is stopped already.
    pub tick_stopped: bool,
    /// `TICK_NSEC`.
    pub tick_nsec: i64,
    /// What `sleep_length()` returns.
    pub sleep: SleepLength,
    /// How many times `sleep_length()` was asked.
    pub sleep_queries: u32,
    /// Device: state entered last.
    pub last_state_idx: i32,
    /// Device: polling time limit hit.
    pub poll_time_limit: bool,
    /// Device: measured residency, ns.
    pub last_residency_ns: u64,
}

impl HostEnv {
    /// A CPU with `states` (at most [`STATE_MAX`] are kept), all enabled, no
    /// QoS limit, tick running, no state entered yet.
    pub fn new(states: &[State], tick_nsec: i64) -> Self {
        let mut s = [State::default(); STATE_MAX];
        let count = states.len().min(STATE_MAX);
        s[..count].copy_from_slice(&states[..count]);
        Self {
            states: s,
            count,
            disabled: 0,
            latency_req_ns: i64::from(i32::MAX) * 1000,
            tick_stopped: false,
            tick_nsec,
            sleep: SleepLength {
                duration_ns: 0,
                delta_tick_ns: 0,
            },
            sleep_queries: 0,
            last_state_idx: -1,
            poll_time_limit: false,
            last_residency_ns: 0,
        }
    }
}

impl Env for HostEnv {
    #[inline]
    fn states(&self) -> &[State] {
        &self.states[..self.count]
    }
    #[inline]
    fn disabled(&self, i: usize) -> bool {
        self.disabled & (1 << i) != 0
    }
    #[inline]
    fn latency_req_ns(&self) -> i64 {
        self.latency_req_ns
    }
    #[inline]
    fn tick_stopped(&self) -> bool {
        self.tick_stopped
    }
    #[inline]
    fn tick_nsec(&self) -> i64 {
        self.tick_nsec
    }
    #[inline]
    fn sleep_length(&mut self) -> SleepLength {
        self.sleep_queries += 1;
        self.sleep
    }
    #[inline]
    fn last_state_idx(&self) -> i32 {
        self.last_state_idx
    }
    #[inline]
    fn set_last_state_idx(&mut self, idx: i32) {
        self.last_state_idx = idx;
    }
    #[inline]
    fn take_poll_time_limit(&mut self) -> bool {
        core::mem::take(&mut self.poll_time_limit)
    }
    #[inline]
    fn last_residency_ns(&self) -> u64 {
        self.last_residency_ns
    }
}

/// splitmix64: small, seedable, deterministic; the host tools' input
/// generators.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` for `n == 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
