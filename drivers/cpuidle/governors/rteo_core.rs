// SPDX-License-Identifier: GPL-2.0

//! Decision core of the `rteo` cpuidle governor.
//!
//! This file is pure: it makes no kernel calls, allocates nothing and takes
//! no locks.  Everything it needs about the CPU, the driver's states and the
//! timers comes through the [`Env`] trait, which the kernel glue
//! (`rteo.rs`) implements over the cpuidle abstractions and the host crate
//! (`tools/rteo-core`) implements over plain data.  The same file is compiled
//! into the kernel (with KUnit tests) and into the host crate (with
//! `cargo test`), so both test the code the kernel runs.
//!
//! The algorithm is the timer events oriented (TEO) one of
//! `drivers/cpuidle/governors/teo.c`: for every idle state a bin counts
//! "hits" (the CPU woke up when the next timer said it would) and
//! "intercepts" (something else woke it up first), both decaying on every
//! wakeup (see [`DECAY_SHIFT`]).  In [`Mode::Parity`], the default,
//! decisions are identical to teo.c's for the same inputs; the parity
//! harness (`make parity`) checks that against the real teo.c.
//!
//! # How `select()` decides
//!
//! [`Teo::select`] first accounts the idle period that just ended
//! (`teo_update()`), then takes teo.c's steps, numbered as in its header:
//!
//! 1. The candidate is the deepest enabled state; the hits and intercepts
//!    of the bins below it are summed, and the bin with the most
//!    intercepts is found (`Teo::scan`).  With no state enabled, state 0
//!    is used with the tick kept; with one, that one, the tick kept if it
//!    is shallow.
//! 2. If the intercepts below the candidate outweigh the rest, a
//!    shallower candidate is looked for (`Teo::shallower_candidate`);
//!    then the PM QoS limit caps the candidate.
//! 3. A shallow candidate (state 0, or a residency below
//!    [`RESIDENCY_THRESHOLD_NS`]) is taken with the tick kept, without
//!    asking for the sleep length, if short idles dominate or the PM QoS
//!    limit is tight (`Teo::skips_sleep_length`).
//! 4. Otherwise the sleep length is read.  With the tick stopped and the
//!    timer far away, the deepest state that fits is taken; state 0 keeps
//!    the tick; a candidate whose residency exceeds the sleep length gives
//!    way to a shallower one; and teo.c's tail decides on the tick: kept
//!    for a polling state or an idle expected shorter than a tick (half a
//!    tick when intercepts within a tick dominate), and then the state
//!    must fit before the next tick (`Teo::stop_tick_or_fit_next_tick`).
//!
//! [`Mode::Default`] is `rteo.rules` set: each of its rules ([`rule`]) is a
//! hook of its own, called where it acts and only when its bit is on:
//! rule 2 (`Teo::rule_poll_carry`) in the accounting, rule 3
//! (`Teo::rule_qos_sleep_length`) in step 3, rule 1
//! (`Teo::rule_poll_cascade`) on the decision of step 4.
//!
//! Arithmetic follows the C types exactly (`unsigned int` metrics wrap, `s64`
//! time differences wrap as under `-fno-strict-overflow`) so no input can
//! make it panic, and there is no 64-bit division (32-bit ARM has no
//! `__aeabi_uldivmod` in the kernel): only halving by shift-free `/ 2` on
//! signed values, which compiles to shifts and adds.

/// Maximum number of idle states of a cpuidle driver (`CPUIDLE_STATE_MAX`).
pub const STATE_MAX: usize = 10;
/// Nanoseconds per microsecond.
pub const NSEC_PER_USEC: i64 = 1000;
/// Target residency below which the sleep length need not be checked
/// (`RESIDENCY_THRESHOLD_NS` of `governors/gov.h`).
pub const RESIDENCY_THRESHOLD_NS: i64 = 15 * NSEC_PER_USEC;
/// PM QoS limit below which the sleep length need not be checked.
pub const LATENCY_THRESHOLD_NS: i64 = RESIDENCY_THRESHOLD_NS / 2;
/// Weight a single event adds to a metric.
pub const PULSE: u32 = 1024;
/// Metrics lose an eighth of their value (`m >> DECAY_SHIFT`) on every
/// update; one below `1 << DECAY_SHIFT`, whose eighth rounds down to 0, is
/// set to 0 (`teo_decay()`).
pub const DECAY_SHIFT: u32 = 3;
/// "No timer": the sleep length when it is not known (`KTIME_MAX`).
pub const KTIME_MAX: i64 = i64::MAX;

/// What the governor needs to know about one idle state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Target residency in nanoseconds.
    pub target_residency_ns: i64,
    /// Exit latency in nanoseconds.
    pub exit_latency_ns: i64,
    /// The state polls (`CPUIDLE_FLAG_POLLING`).
    pub polling: bool,
}

/// The time until the next timer event, as the tick code reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SleepLength {
    /// Time until the closest timer event, the tick excluded, in ns.
    /// May be negative when a timer is already due.
    pub duration_ns: i64,
    /// Time until the next tick, in ns.
    pub delta_tick_ns: i64,
}

/// The world as one `select()`/`reflect()` call sees it.
///
/// The kernel glue implements this over the cpuidle device and driver and
/// the idle-loop context; tests implement it over plain data.
pub trait Env {
    /// The driver's states; the slice is never empty and has at most
    /// [`STATE_MAX`] entries.
    fn states(&self) -> &[State];
    /// Whether state `i` is disabled (by the user or the driver).
    fn disabled(&self, i: usize) -> bool;
    /// The PM QoS latency limit of this CPU in ns.
    fn latency_req_ns(&self) -> i64;
    /// Whether the tick is stopped already.
    fn tick_stopped(&self) -> bool;
    /// The length of one tick in ns (`TICK_NSEC`).
    fn tick_nsec(&self) -> i64;
    /// Asks the tick code for the sleep length (may be costly: called only
    /// when the decision depends on it).
    fn sleep_length(&mut self) -> SleepLength;
    /// Index of the state entered last, or a negative value if none.
    fn last_state_idx(&self) -> i32;
    /// Sets the index of the state entered last.
    fn set_last_state_idx(&mut self, idx: i32);
    /// Reads and clears the device's "polling time limit hit" flag.
    fn take_poll_time_limit(&mut self) -> bool;
    /// Idle time measured for the last state entered, in ns.
    fn last_residency_ns(&self) -> u64;
}

/// One idle state's metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bin {
    /// Weighted count of wakeups before the sleep length in this bin.
    pub intercepts: u32,
    /// Weighted count of wakeups by the timer predicted for this bin.
    pub hits: u32,
}

/// A state index chosen by [`Teo::select`], and whether the tick may stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    /// Index of the idle state to enter.
    pub idx: usize,
    /// Whether the scheduler tick may be stopped.
    pub stop_tick: bool,
}

/// The rules of [`Mode::Default`], one bit each
/// (`Documentation/admin-guide/pm/rteo.rst`, "Default mode", numbers them in
/// this order).
pub mod rule {
    /// 1: no polling after two polling slices in a row ran out of time.
    pub const POLL_CASCADE: u32 = 1 << 0;
    /// 2: timed-out polling slices count with the rest of the idle.
    pub const POLL_CARRY: u32 = 1 << 1;
    /// 3: a tight QoS limit alone does not skip the sleep length.
    pub const QOS_SLEEP_LENGTH: u32 = 1 << 2;
    /// Every rule.
    pub const ALL: u32 = (1 << 3) - 1;

    /// Whether switching the rules of `off` off leaves a working set: only
    /// rules, and rule 2 not without rule 1.  Rule 2 keeps a timed-out
    /// polling slice out of the bins, so that without rule 1 nothing stops
    /// the next select() from polling again: the CPU polls slice after
    /// slice until its timer (on pseries-xcede, 15 times teo's idle
    /// energy; `Documentation/admin-guide/pm/rteo.rst`).
    pub const fn off_valid(off: u32) -> bool {
        off & !ALL == 0 && (off & POLL_CASCADE == 0 || off & POLL_CARRY != 0)
    }
}

/// How `select()` decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exactly teo.c's decisions (what the parity harness checks).
    Parity,
    /// rteo's own refinements on top of teo (see
    /// `Documentation/admin-guide/pm/rteo.rst`).
    Default,
}

/// Per-CPU governor state.  Zeroed (`Teo::default()`) when the governor is
/// enabled on a CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Teo {
    /// Sleep length seen by the last `select()`, or [`KTIME_MAX`].
    pub sleep_length_ns: i64,
    /// Metrics per idle state.
    pub state_bins: [Bin; STATE_MAX],
    /// Sum of all metrics plus one [`PULSE`].
    pub total: u32,
    /// Weighted count of wakeups by the tick.
    pub total_tick: u32,
    /// Weighted count of intercepts within one tick period.
    pub tick_intercepts: u32,
    /// Weighted count of idle periods shorter than
    /// [`RESIDENCY_THRESHOLD_NS`].
    pub short_idles: u32,
    /// The last wakeup was by the tick.
    pub tick_wakeup: bool,
    /// Decision mode; kept when the metrics are reset.
    pub mode: Mode,
    /// Idle periods in a row that ended by the polling time limit (0: the
    /// last one did not).
    pub poll_timeouts: u32,
    /// Default mode: idle time spent in polling slices that ran out of
    /// time since the last period that did not, ns.
    pub poll_carry_ns: i64,
    /// The rules of [`Mode::Default`] in force ([`rule`] bits): none in
    /// parity mode, all of them in default mode ([`Teo::set_mode`]) unless
    /// the `rteo.rules_off` parameter switches some off.
    pub rules: u32,
}

impl Teo {
    /// The state of a CPU the governor has just been enabled on.
    pub const ZERO: Teo = Teo {
        sleep_length_ns: 0,
        state_bins: [Bin {
            intercepts: 0,
            hits: 0,
        }; STATE_MAX],
        total: 0,
        total_tick: 0,
        tick_intercepts: 0,
        short_idles: 0,
        tick_wakeup: false,
        mode: Mode::Parity,
        poll_timeouts: 0,
        poll_carry_ns: 0,
        rules: 0,
    };

    /// Switches to `mode`, with every rule of the default mode in force
    /// there.
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        self.rules = match mode {
            Mode::Parity => 0,
            Mode::Default => rule::ALL,
        };
    }
}

impl Default for Teo {
    fn default() -> Self {
        Self::ZERO
    }
}

/// What `select()` learns from teo's scan of the states, carried between
/// its steps.
#[derive(Clone, Copy, Debug)]
struct Scan {
    /// The first enabled state.
    idx0: usize,
    /// The candidate: the deepest enabled state, until a step picks a
    /// shallower one.
    idx: usize,
    /// The deepest enabled state within the PM QoS limit (0 if none above
    /// state 0 is).
    constraint_idx: usize,
    /// Intercepts in the bins below the candidate.
    idx_intercept_sum: u32,
    /// Hits in the bins below the candidate.
    idx_hit_sum: u32,
    /// The bin with the most intercepts (the deepest of equals) of all but
    /// the last state; -1 if none.
    intercept_max_idx: isize,
}

fn decay(metric: &mut u32) {
    let delta = *metric >> DECAY_SHIFT;
    if delta != 0 {
        *metric -= delta;
    } else {
        *metric = 0;
    }
}

impl Teo {
    /// Whether rule `r` of [`Mode::Default`] applies (never in parity
    /// mode, where [`Teo::rules`] is 0).
    #[inline]
    fn on(&self, r: u32) -> bool {
        self.rules & r != 0
    }

    /// Accounts the idle period that just ended (`teo_update()`).
    #[inline]
    fn update<E: Env>(&mut self, env: &mut E) {
        let states = env.states();
        let count = states.len();
        let last = env.last_state_idx() as usize;
        let lat_ns = states.get(last).map_or(0, |s| s.exit_latency_ns);
        let mut idx_timer = 0usize;
        let mut idx_duration = 0usize;
        let mut total: u32 = 0;

        decay(&mut self.short_idles);

        let poll_timed_out = env.take_poll_time_limit();
        self.poll_timeouts = if poll_timed_out {
            self.poll_timeouts.saturating_add(1)
        } else {
            0
        };
        if self.on(rule::POLL_CARRY) && poll_timed_out {
            self.rule_poll_carry(env);
            return;
        }
        let mut residency_ns = env.last_residency_ns() as i64;
        let carry = core::mem::take(&mut self.poll_carry_ns);
        if carry != 0 {
            residency_ns = residency_ns.saturating_add(carry);
            if self.sleep_length_ns != KTIME_MAX {
                self.sleep_length_ns = self.sleep_length_ns.saturating_add(carry);
            }
        }
        let measured_ns: i64 = if poll_timed_out {
            // The polling state timed out: this may have been a long sleep.
            i64::MAX
        } else {
            let mut m = residency_ns;
            // Take half of the exit latency as the average wakeup delay.
            if m >= lat_ns {
                m -= lat_ns / 2;
                if m < RESIDENCY_THRESHOLD_NS {
                    self.short_idles = self.short_idles.wrapping_add(PULSE);
                }
            } else {
                m /= 2;
                self.short_idles = self.short_idles.wrapping_add(PULSE);
            }
            m
        };

        let states = env.states();
        // One index into both arrays, bounded by both lengths: the compiler
        // then checks neither per state (it keeps a check for an iterator
        // over one array indexing the other, and zipped iterators cost more).
        #[expect(clippy::needless_range_loop)]
        for i in 0..states.len().min(STATE_MAX) {
            let s = &states[i];
            let bin = &mut self.state_bins[i];
            decay(&mut bin.hits);
            total = total.wrapping_add(bin.hits);
            decay(&mut bin.intercepts);
            total = total.wrapping_add(bin.intercepts);

            if s.target_residency_ns <= self.sleep_length_ns {
                idx_timer = i;
                if s.target_residency_ns <= measured_ns {
                    idx_duration = i;
                }
            }
        }
        self.total = total.wrapping_add(PULSE);

        decay(&mut self.tick_intercepts);
        decay(&mut self.total_tick);
        if self.tick_wakeup {
            self.total_tick = self.total_tick.wrapping_add(PULSE);
            // Tick wakeups dominate: count a hit on the deepest state to
            // make stopping the tick more likely.
            if 3u32.wrapping_mul(self.total_tick) > 2u32.wrapping_mul(self.total) {
                let b = &mut self.state_bins[count - 1];
                b.hits = b.hits.wrapping_add(PULSE);
                return;
            }
            // Few intercepts within the tick period: the tick probably
            // woke the CPU instead of an expected timer; count a hit.
            if 3u32.wrapping_mul(self.tick_intercepts) < 2u32.wrapping_mul(total) {
                let b = &mut self.state_bins[idx_timer];
                b.hits = b.hits.wrapping_add(PULSE);
                return;
            }
        }

        if idx_timer == idx_duration && self.sleep_length_ns.wrapping_sub(measured_ns) < lat_ns / 2
        {
            let b = &mut self.state_bins[idx_timer];
            b.hits = b.hits.wrapping_add(PULSE);
        } else {
            let b = &mut self.state_bins[idx_duration];
            b.intercepts = b.intercepts.wrapping_add(PULSE);
            if measured_ns <= env.tick_nsec() {
                self.tick_intercepts = self.tick_intercepts.wrapping_add(PULSE);
            }
        }
    }

    /// Rule 2 ([`rule::POLL_CARRY`]), when the polling slice ran out of
    /// time: it is the start of an idle period that goes on, not an idle
    /// period of its own (teo counts it as a hit on the timer, and the rest
    /// of the idle as a short intercept in the shallowest bin, so a 30 us
    /// wait with a 20 us slice never shows up as the 30 us it was).  Keep
    /// its time and account the whole period when it ends.
    #[inline]
    fn rule_poll_carry<E: Env>(&mut self, env: &E) {
        self.poll_carry_ns = self
            .poll_carry_ns
            .saturating_add(env.last_residency_ns() as i64);
    }

    /// The deepest enabled state shallower than `idx` whose target residency
    /// fits `duration_ns`, or the shallowest enabled one below `idx`
    /// (`teo_find_shallower_state()`).
    #[inline]
    fn find_shallower_state<E: Env>(env: &E, mut idx: usize, duration_ns: i64) -> usize {
        let states = env.states();
        for i in (0..idx).rev() {
            if env.disabled(i) {
                continue;
            }
            idx = i;
            if states[i].target_residency_ns <= duration_ns {
                break;
            }
        }
        idx
    }

    /// Selects the idle state to enter: `teo_select()`, with rteo's
    /// refinements in [`Mode::Default`].
    pub fn select<E: Env>(&mut self, env: &mut E) -> Decision {
        let d = self.select_inner(env);
        if self.poll_timeouts >= 2 && self.on(rule::POLL_CASCADE) {
            return Self::rule_poll_cascade(env, d);
        }
        d
    }

    /// `teo_select()` step by step, with the rules of [`Mode::Default`]
    /// that act inside it.
    #[inline]
    fn select_inner<E: Env>(&mut self, env: &mut E) -> Decision {
        let latency_req = env.latency_req_ns();
        let tick_nsec = env.tick_nsec();
        let tick_stopped = env.tick_stopped();

        // Account the idle period that ended (rule 2 hooks in there).
        if env.last_state_idx() >= 0 {
            self.update(env);
            env.set_last_state_idx(-1);
        }
        // Unknown until asked; a wakeup then counts as an intercept.
        self.sleep_length_ns = KTIME_MAX;

        // Step 1: the candidate, the PM QoS cap, the sums below the
        // candidate and the bin with the most intercepts.
        let Some(mut scan) = self.scan(env, latency_req) else {
            // No states enabled: state 0 it is, with the tick running.
            return Decision {
                idx: 0,
                stop_tick: false,
            };
        };

        // Step 1: only one state enabled: use it, but keep the tick if it
        // is shallow.
        if scan.idx == scan.idx0 {
            let duration_ns = env.states()[scan.idx].target_residency_ns;
            return Self::stop_tick_or_fit_next_tick(
                env,
                scan.idx0,
                scan.idx,
                duration_ns,
                tick_nsec / 2,
                tick_nsec,
                tick_stopped,
            );
        }

        // Step 2: intercepts outweigh hits: a shallower candidate; then
        // the PM QoS cap.
        if self.intercepts_outweigh_hits(&scan) {
            scan.idx = self.shallower_candidate(env, &scan);
        }
        let mut idx = scan.idx.min(scan.constraint_idx);

        // Step 3: a shallow candidate with the tick kept, without the sleep
        // length (rule 3 hooks in there).
        if !tick_stopped && self.skips_sleep_length(env, idx, latency_req) {
            return Decision {
                idx,
                stop_tick: false,
            };
        }
        // Step 4: the sleep length.
        let sl = env.sleep_length();
        let d = sl.duration_ns;
        self.sleep_length_ns = d;

        // The tick stopped and the timer far away: do not get stuck in a
        // shallow state.
        if tick_stopped && d > 2 * tick_nsec && env.states()[idx].target_residency_ns < tick_nsec {
            return Decision {
                idx: Self::deepest_fitting(env, idx, scan.constraint_idx, d),
                stop_tick: true,
            };
        }

        // State 0: keep the tick.
        if idx == 0 {
            return Decision {
                idx,
                stop_tick: false,
            };
        }

        // A candidate deeper than the sleep length: a shallower one.
        if env.states()[idx].target_residency_ns > d {
            idx = Self::find_shallower_state(env, idx, d);
        }

        // Intercepts within a tick dominate: expect half a tick of idle.
        let mut duration_ns = d;
        if env.states()[idx].target_residency_ns < tick_nsec
            && 3u32.wrapping_mul(self.tick_intercepts) >= 2u32.wrapping_mul(self.total)
        {
            duration_ns = tick_nsec / 2;
        }

        // Stop the tick, or fit the state before the next tick.
        Self::stop_tick_or_fit_next_tick(
            env,
            scan.idx0,
            idx,
            duration_ns,
            sl.delta_tick_ns,
            tick_nsec,
            tick_stopped,
        )
    }

    /// teo's scan of the states: the candidate is the deepest enabled
    /// state, `constraint_idx` the deepest one within the PM QoS limit
    /// `latency_req`, and the sums are over the bins below the candidate.
    /// `None` if no state is enabled.
    ///
    /// teo.c finds all of it in one pass over the states; this looks for
    /// each from the end it is nearest to, which takes one test each when
    /// no state is disabled and no PM QoS limit applies, and leaves the
    /// pass over the bins with the sums alone.  The results are the same.
    #[inline]
    fn scan<E: Env>(&self, env: &E, latency_req: i64) -> Option<Scan> {
        let states = env.states();
        let count = states.len();
        // the first enabled state
        let mut idx0: usize = 0;
        while env.disabled(idx0) {
            idx0 += 1;
            if idx0 == count {
                return None;
            }
        }
        // the deepest enabled state (idx0 at the shallowest)
        let mut idx = count - 1;
        while env.disabled(idx) {
            idx -= 1;
        }
        // the deepest enabled state above state 0 within the limit, or 0
        let mut constraint_idx = idx;
        while constraint_idx > 0
            && (env.disabled(constraint_idx)
                || states[constraint_idx].exit_latency_ns > latency_req)
        {
            constraint_idx -= 1;
        }
        // the sums below the candidate, and the bin with the most
        // intercepts (the deepest of equals) of all but the last state
        let mut idx_intercept_sum: u32 = 0;
        let mut idx_hit_sum: u32 = 0;
        let mut intercept_max: u32 = 0;
        let mut intercept_max_idx: isize = -1;
        for (i, b) in self.state_bins[..count - 1].iter().enumerate() {
            if b.intercepts >= intercept_max {
                intercept_max = b.intercepts;
                intercept_max_idx = i as isize;
            }
            if i < idx {
                idx_intercept_sum = idx_intercept_sum.wrapping_add(b.intercepts);
                idx_hit_sum = idx_hit_sum.wrapping_add(b.hits);
            }
        }
        Some(Scan {
            idx0,
            idx,
            constraint_idx,
            idx_intercept_sum,
            idx_hit_sum,
            intercept_max_idx,
        })
    }

    /// Intercepts below the candidate outweigh hits and intercepts at or
    /// above it.
    fn intercepts_outweigh_hits(&self, scan: &Scan) -> bool {
        2u32.wrapping_mul(scan.idx_intercept_sum) > self.total.wrapping_sub(scan.idx_hit_sum)
    }

    /// teo's shallower candidate when intercepts outweigh hits: the
    /// deepest enabled state below the candidate with more than half of
    /// the intercepts below the candidate at or above it (a median), and
    /// not deeper than the bin with the most intercepts; or the shallowest
    /// enabled state.
    #[inline]
    fn shallower_candidate<E: Env>(&self, env: &E, scan: &Scan) -> usize {
        let Scan {
            idx0,
            mut idx,
            idx_intercept_sum,
            intercept_max_idx,
            ..
        } = *scan;
        let mut sum: u32 = 0;
        let mut i = idx as isize - 1;
        while i >= idx0 as isize {
            let iu = i as usize;
            sum = sum.wrapping_add(self.state_bins[iu].intercepts);
            if !env.disabled(iu) {
                idx = iu;
                if 2u32.wrapping_mul(sum) > idx_intercept_sum && i <= intercept_max_idx {
                    break;
                }
            }
            i -= 1;
        }
        idx
    }

    /// Step 3: whether the shallow candidate `idx` (state 0 or one below
    /// [`RESIDENCY_THRESHOLD_NS`]) may be taken with the tick running
    /// without asking for the sleep length: teo does so when short idles
    /// dominate or the PM QoS limit `latency_req` is tight.
    #[inline]
    fn skips_sleep_length<E: Env>(&self, env: &E, idx: usize, latency_req: i64) -> bool {
        let short = 2u32.wrapping_mul(self.short_idles) >= self.total;
        let tight_qos = latency_req < LATENCY_THRESHOLD_NS;
        (idx == 0 || env.states()[idx].target_residency_ns < RESIDENCY_THRESHOLD_NS)
            && (short || (tight_qos && !self.rule_qos_sleep_length()))
    }

    /// Rule 3 ([`rule::QOS_SLEEP_LENGTH`]), in step 3: whether a tight PM
    /// QoS limit alone must not skip the sleep length.  It does not make
    /// the idle short; keeping the tick through a long idle wakes the CPU
    /// at every tick, so look at the sleep length for the tick.
    #[inline]
    fn rule_qos_sleep_length(&self) -> bool {
        self.on(rule::QOS_SLEEP_LENGTH)
    }

    /// teo's last step, for state `idx` and an expected idle of
    /// `duration_ns`: stop the tick unless the state polls or the expected
    /// idle is shorter than a tick; if the tick stays, the state must fit
    /// before the next tick, `delta_tick` away (`idx0` is the first
    /// enabled state).
    #[inline]
    fn stop_tick_or_fit_next_tick<E: Env>(
        env: &E,
        idx0: usize,
        mut idx: usize,
        duration_ns: i64,
        delta_tick: i64,
        tick_nsec: i64,
        tick_stopped: bool,
    ) -> Decision {
        if (!env.states()[idx].polling && duration_ns >= tick_nsec) || tick_stopped {
            return Decision {
                idx,
                stop_tick: true,
            };
        }
        if idx > idx0 && env.states()[idx].target_residency_ns > delta_tick {
            idx = Self::find_shallower_state(env, idx, delta_tick);
        }
        Decision {
            idx,
            stop_tick: false,
        }
    }

    /// The deepest enabled state above `floor` and at most `top` whose
    /// target residency fits `duration_ns`, or `floor` if none does.
    #[inline]
    fn deepest_fitting<E: Env>(env: &E, floor: usize, top: usize, duration_ns: i64) -> usize {
        let states = env.states();
        let mut i = top;
        while i > floor {
            if !env.disabled(i) && states[i].target_residency_ns <= duration_ns {
                return i;
            }
            i -= 1;
        }
        floor
    }

    /// Rule 1 ([`rule::POLL_CASCADE`]), on teo's decision `d` after the
    /// polling state ran out of time twice in a row: do not poll again
    /// (teo may poll slice after slice until the timer comes when the
    /// poll limit is short); take the shallowest enabled state that does
    /// not poll, unless teo chose a deeper one.  One timeout is left
    /// alone: a short wait often ends in the next slice (ping-pong), and a
    /// state that does not poll would be too deep.
    #[inline]
    fn rule_poll_cascade<E: Env>(env: &E, d: Decision) -> Decision {
        let states = env.states();
        if !states[d.idx].polling {
            return d;
        }
        let lat = env.latency_req_ns();
        for (i, s) in states.iter().enumerate().skip(d.idx + 1) {
            if env.disabled(i) {
                continue;
            }
            if s.polling || s.exit_latency_ns > lat {
                break;
            }
            return Decision {
                idx: i,
                stop_tick: d.stop_tick,
            };
        }
        d
    }

    /// Records how the CPU woke up (`teo_reflect()`): `got_tick` is whether
    /// the tick woke it.  The caller also sets the device's last state index
    /// to the state entered, which makes the next `select()` account it.
    pub fn reflect(&mut self, got_tick: bool) {
        self.tick_wakeup = got_tick;
    }
}

/// Tables and a plain-data [`Env`] for tests.
#[cfg(any(test, CONFIG_CPU_IDLE_GOV_RTEO_KUNIT_TEST))]
pub mod testing {
    use super::*;

    /// `TICK_NSEC` at HZ=250.
    pub const TICK_NSEC: i64 = 4_000_000;

    const fn st(exit_us: i64, residency_us: i64, polling: bool) -> State {
        State {
            target_residency_ns: residency_us * NSEC_PER_USEC,
            exit_latency_ns: exit_us * NSEC_PER_USEC,
            polling,
        }
    }

    /// POLL, C1, C1E, C6 with typical intel_idle numbers.
    pub const X86_LIKE: [State; 4] = [
        st(0, 0, true),
        st(2, 2, false),
        st(10, 20, false),
        st(133, 600, false),
    ];

    /// Armada XP: WFI, "MV CPU IDLE", "MV CPU DEEP IDLE".
    pub const MVEBU_XP: [State; 3] = [
        st(1, 1, false),
        st(100, 1000, false),
        st(1000, 10000, false),
    ];

    /// One CPU and its timers, as plain data.
    pub struct TestEnv {
        /// The driver's states.
        pub states: &'static [State],
        /// Bit `i` set: state `i` disabled.
        pub disabled: u32,
        /// PM QoS limit, ns.
        pub latency_req_ns: i64,
        /// Tick already stopped.
        pub tick_stopped: bool,
        /// What `sleep_length()` returns.
        pub sleep: SleepLength,
        /// How many times `sleep_length()` was asked.
        pub sleep_queries: u32,
        /// Device: last state entered.
        pub last_state_idx: i32,
        /// Device: polling time limit hit.
        pub poll_time_limit: bool,
        /// Device: measured residency, ns.
        pub last_residency_ns: u64,
    }

    impl TestEnv {
        /// A CPU with `states`, all enabled, no QoS limit, tick running and
        /// the next timer 50 ms away.
        pub fn new(states: &'static [State]) -> Self {
            Self {
                states,
                disabled: 0,
                latency_req_ns: i64::from(i32::MAX) * NSEC_PER_USEC,
                tick_stopped: false,
                sleep: SleepLength {
                    duration_ns: 50_000_000,
                    delta_tick_ns: TICK_NSEC,
                },
                sleep_queries: 0,
                last_state_idx: -1,
                poll_time_limit: false,
                last_residency_ns: 0,
            }
        }

        /// Runs one idle period: select, "enter" for `residency_ns`, reflect.
        pub fn period(&mut self, teo: &mut Teo, residency_ns: u64, got_tick: bool) -> Decision {
            let d = teo.select(self);
            teo.reflect(got_tick);
            self.last_state_idx = d.idx as i32;
            self.last_residency_ns = residency_ns;
            d
        }
    }

    impl Env for TestEnv {
        fn states(&self) -> &[State] {
            self.states
        }
        fn disabled(&self, i: usize) -> bool {
            self.disabled & (1 << i) != 0
        }
        fn latency_req_ns(&self) -> i64 {
            self.latency_req_ns
        }
        fn tick_stopped(&self) -> bool {
            self.tick_stopped
        }
        fn tick_nsec(&self) -> i64 {
            TICK_NSEC
        }
        fn sleep_length(&mut self) -> SleepLength {
            self.sleep_queries += 1;
            self.sleep
        }
        fn last_state_idx(&self) -> i32 {
            self.last_state_idx
        }
        fn set_last_state_idx(&mut self, idx: i32) {
            self.last_state_idx = idx;
        }
        fn take_poll_time_limit(&mut self) -> bool {
            core::mem::take(&mut self.poll_time_limit)
        }
        fn last_residency_ns(&self) -> u64 {
            self.last_residency_ns
        }
    }
}

#[cfg(any(test, CONFIG_CPU_IDLE_GOV_RTEO_KUNIT_TEST))]
#[cfg_attr(not(test), ::kernel::macros::kunit_tests(rteo_core))]
mod tests {
    use super::testing::*;
    use super::*;

    fn fresh() -> Teo {
        Teo::ZERO
    }

    #[test]
    fn decay_loses_an_eighth_and_floors_to_zero() {
        let mut m = PULSE;
        decay(&mut m);
        assert_eq!(m, PULSE - PULSE / 8);
        let mut small = 7;
        decay(&mut small);
        assert_eq!(small, 0);
    }

    #[test]
    fn all_states_disabled_uses_state0_and_keeps_tick() {
        let mut env = TestEnv::new(&X86_LIKE);
        env.disabled = 0b1111;
        let d = fresh().select(&mut env);
        assert_eq!(
            d,
            Decision {
                idx: 0,
                stop_tick: false
            }
        );
        assert_eq!(env.sleep_queries, 0);
    }

    #[test]
    fn single_enabled_state_is_used() {
        let mut env = TestEnv::new(&X86_LIKE);
        env.disabled = 0b1011; // only C1E
        let d = fresh().select(&mut env);
        // 20 us residency is shorter than a tick: the tick stays.
        assert_eq!(
            d,
            Decision {
                idx: 2,
                stop_tick: false
            }
        );
        env.disabled = 0b0111; // only C6, still shorter than a tick
        assert_eq!(fresh().select(&mut env).idx, 3);
    }

    #[test]
    fn far_timer_goes_deepest_and_stops_tick() {
        let mut env = TestEnv::new(&X86_LIKE);
        let mut teo = Teo::ZERO;
        // No history yet: C6 (600 us) is shorter than a tick, and with no
        // evidence against intercepts within a tick the tick is kept.
        assert_eq!(
            env.period(&mut teo, 50_000_000, false),
            Decision {
                idx: 3,
                stop_tick: false
            }
        );
        assert_eq!(teo.sleep_length_ns, 50_000_000);
        // Once the timer has been seen to be right, the tick may stop.
        for _ in 0..3 {
            env.period(&mut teo, 50_000_000, false);
        }
        assert_eq!(
            teo.select(&mut env),
            Decision {
                idx: 3,
                stop_tick: true
            }
        );
        // A state deeper than a tick stops it at once.
        let mut env = TestEnv::new(&MVEBU_XP);
        assert_eq!(
            fresh().select(&mut env),
            Decision {
                idx: 2,
                stop_tick: true
            }
        );
    }

    #[test]
    fn pm_qos_limit_caps_exit_latency() {
        for (limit_us, want) in [(0, 0), (5, 1), (50, 2), (133, 3)] {
            let mut env = TestEnv::new(&X86_LIKE);
            env.latency_req_ns = limit_us * NSEC_PER_USEC;
            let d = fresh().select(&mut env);
            assert_eq!(d.idx, want);
            assert!(X86_LIKE[d.idx].exit_latency_ns <= env.latency_req_ns);
        }
        let mut env = TestEnv::new(&MVEBU_XP);
        env.latency_req_ns = 999 * NSEC_PER_USEC;
        assert_eq!(fresh().select(&mut env).idx, 1);
    }

    #[test]
    fn near_timer_picks_a_state_that_fits() {
        let mut env = TestEnv::new(&X86_LIKE);
        env.sleep.duration_ns = 5_000;
        let d = fresh().select(&mut env);
        assert_eq!(
            d,
            Decision {
                idx: 1,
                stop_tick: false
            }
        );
    }

    #[test]
    fn due_timer_polls_with_the_tick_running() {
        let mut env = TestEnv::new(&X86_LIKE);
        env.sleep.duration_ns = -1_000;
        let d = fresh().select(&mut env);
        assert_eq!(
            d,
            Decision {
                idx: 0,
                stop_tick: false
            }
        );
    }

    #[test]
    fn early_wakeups_steer_to_a_shallower_state() {
        let mut env = TestEnv::new(&X86_LIKE);
        let mut teo = Teo::ZERO;
        // The timer says 50 ms, but something wakes the CPU after 30 us.
        let mut last = env.period(&mut teo, 30_000, false);
        assert_eq!(last.idx, 3);
        for _ in 0..20 {
            last = env.period(&mut teo, 30_000, false);
        }
        assert_eq!(last.idx, 2);
        assert!(teo.state_bins[2].intercepts > teo.state_bins[3].hits);
    }

    #[test]
    fn stopped_tick_and_far_timer_do_not_stick_shallow() {
        let mut env = TestEnv::new(&X86_LIKE);
        let mut teo = Teo::ZERO;
        for _ in 0..20 {
            env.period(&mut teo, 30_000, false);
        }
        env.tick_stopped = true;
        let d = teo.select(&mut env);
        assert_eq!(
            d,
            Decision {
                idx: 3,
                stop_tick: true
            }
        );
    }

    #[test]
    fn poll_time_limit_counts_as_long_idle() {
        let mut env = TestEnv::new(&X86_LIKE);
        let mut teo = Teo::ZERO;
        env.period(&mut teo, 0, false);
        env.last_state_idx = 0;
        env.poll_time_limit = true;
        teo.select(&mut env);
        assert!(!env.poll_time_limit);
        // Sleep length 50 ms and "infinite" idle: a hit in the deepest bin.
        assert_eq!(teo.state_bins[3].hits, PULSE);
        assert_eq!(teo.state_bins[3].intercepts, 0);
    }

    #[test]
    fn tick_wakeups_dominating_count_as_deep_hits() {
        let mut env = TestEnv::new(&MVEBU_XP);
        let mut teo = Teo::ZERO;
        for _ in 0..10 {
            env.period(&mut teo, TICK_NSEC as u64, true);
        }
        assert!(teo.state_bins[2].hits > 0);
        assert_eq!(
            teo.state_bins[0].intercepts + teo.state_bins[1].intercepts,
            0
        );
    }

    /// Runs `f` on a fresh CPU in parity and in default mode.
    fn both_modes(f: impl Fn(Mode) -> Decision) -> (Decision, Decision) {
        (f(Mode::Parity), f(Mode::Default))
    }

    #[test]
    fn default_mode_stops_polling_after_two_poll_timeouts() {
        let (parity, default) = both_modes(|mode| {
            let mut env = TestEnv::new(&X86_LIKE);
            let mut teo = Teo::ZERO;
            teo.set_mode(mode);
            // a history of very short idles: teo polls without asking for
            // the sleep length
            for _ in 0..40 {
                env.period(&mut teo, 1_000, false);
            }
            env.sleep.duration_ns = 300_000;
            // two polling slices in a row run out of time
            for _ in 0..2 {
                let d = teo.select(&mut env);
                teo.reflect(false);
                env.last_state_idx = d.idx as i32;
                env.last_residency_ns = 2_000;
                env.poll_time_limit = true;
            }
            teo.select(&mut env)
        });
        assert_eq!(parity.idx, 0);
        assert!(X86_LIKE[parity.idx].polling);
        assert!(default.idx > 0);
        assert!(!X86_LIKE[default.idx].polling);
    }

    #[test]
    fn default_mode_stops_the_tick_under_a_tight_qos_limit_when_idle_is_long() {
        let run = |mode| {
            let mut env = TestEnv::new(&X86_LIKE);
            let mut teo = Teo::ZERO;
            teo.set_mode(mode);
            // idles longer than a tick, the next timer 50 ms away; then a
            // 5 us QoS limit leaves POLL and C1
            for _ in 0..40 {
                env.period(&mut teo, 6_000_000, false);
            }
            env.latency_req_ns = 5_000;
            env.sleep_queries = 0;
            (teo.select(&mut env), env.sleep_queries)
        };
        // teo takes C1 and keeps the tick without asking for the sleep
        // length: the tick then wakes the CPU every 4 ms of the idle
        assert_eq!(
            run(Mode::Parity),
            (
                Decision {
                    idx: 1,
                    stop_tick: false
                },
                0
            )
        );
        // rteo asks, and stops the tick for the 50 ms sleep
        assert_eq!(
            run(Mode::Default),
            (
                Decision {
                    idx: 1,
                    stop_tick: true
                },
                1
            )
        );
    }

    #[test]
    fn default_mode_accounts_a_timed_out_poll_with_the_rest_of_the_idle() {
        let bins = |mode| {
            let mut env = TestEnv::new(&X86_LIKE);
            let mut teo = Teo::ZERO;
            teo.set_mode(mode);
            teo.select(&mut env);
            // a 20 us polling slice runs out of time ...
            env.last_state_idx = 0;
            env.last_residency_ns = 20_000;
            env.poll_time_limit = true;
            teo.select(&mut env);
            // ... and the CPU wakes up 10 us into the next state
            env.last_state_idx = 1;
            env.last_residency_ns = 10_000;
            teo.select(&mut env);
            (teo.state_bins[1].intercepts, teo.state_bins[2].intercepts)
        };
        // teo sees a 10 us intercept (C1's bin); rteo the 30 us idle it
        // was (C1E's bin, residency 20 us)
        let (c1, c1e) = bins(Mode::Parity);
        assert!(c1 > 0 && c1e == 0);
        let (c1, c1e) = bins(Mode::Default);
        assert!(c1 == 0 && c1e > 0);
    }

    #[test]
    fn default_mode_remembers_as_long_as_teo() {
        // Armada XP (no polling state, no QoS limit: no rule acts), 40
        // idles of 50 us, then idles of 20 ms; how many of those until the
        // deep state is taken again.  A shorter memory (rteo's rule 4 until
        // the guest's cyclictest showed it in the wake-up latency) took it
        // at the 4th.
        let periods = |mode| {
            let mut env = TestEnv::new(&MVEBU_XP);
            let mut teo = Teo::ZERO;
            teo.set_mode(mode);
            for _ in 0..40 {
                env.period(&mut teo, 50_000, false);
            }
            (1..=40)
                .find(|_| env.period(&mut teo, 20_000_000, false).idx == 2)
                .unwrap_or(0)
        };
        assert_eq!(periods(Mode::Parity), 7);
        assert_eq!(periods(Mode::Default), 7);
    }

    #[test]
    fn rule_2_is_not_left_on_without_rule_1() {
        // how many of ten polling slices in a row, each run out of time
        // with the timer 300 us away, start with a polling state
        let polls = |rules| {
            let mut env = TestEnv::new(&X86_LIKE);
            let mut teo = Teo::ZERO;
            teo.set_mode(Mode::Default);
            teo.rules = rules;
            for _ in 0..40 {
                env.period(&mut teo, 1_000, false);
            }
            env.sleep.duration_ns = 300_000;
            let mut n = 0;
            for _ in 0..10 {
                let d = teo.select(&mut env);
                n += usize::from(X86_LIKE[d.idx].polling);
                teo.reflect(false);
                env.last_state_idx = d.idx as i32;
                env.last_residency_ns = 20_000;
                env.poll_time_limit = true;
            }
            n
        };
        // rule 2 alone keeps every slice out of the bins: polling forever
        assert_eq!(polls(rule::ALL & !rule::POLL_CASCADE), 10);
        assert!(polls(rule::ALL) <= 2);
        assert!(!rule::off_valid(rule::POLL_CASCADE));
        assert!(!rule::off_valid(
            rule::POLL_CASCADE | rule::QOS_SLEEP_LENGTH
        ));
        assert!(!rule::off_valid(rule::ALL + 1));
        for off in [0, rule::POLL_CARRY, rule::QOS_SLEEP_LENGTH, rule::ALL] {
            assert!(rule::off_valid(off));
        }
        assert!(rule::off_valid(rule::POLL_CASCADE | rule::POLL_CARRY));
    }

    #[test]
    fn default_mode_with_every_rule_off_decides_as_teo() {
        // a pseudo-random stream of periods (sleep lengths, tick phases,
        // QoS limits, residencies, tick and polling-limit wake-ups) through
        // parity mode and through default mode with rules = 0
        for states in [&X86_LIKE[..], &MVEBU_XP[..]] {
            let mut p = (TestEnv::new(states), Teo::ZERO);
            let mut d = (TestEnv::new(states), Teo::ZERO);
            d.1.set_mode(Mode::Default);
            d.1.rules = 0;
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // 32-bit divisions only: 32-bit ARM has no 64-bit one
                let sleep = SleepLength {
                    duration_ns: i64::from(x as u32 % 30_000_000) - 50_000,
                    delta_tick_ns: i64::from((x >> 25) as u32 % TICK_NSEC as u32) + 1,
                };
                let qos = if x & (1 << 50) != 0 { 50_000 } else { i64::MAX };
                let tick_stopped = x & (1 << 51) != 0;
                let got_tick = x & (1 << 52) != 0;
                let ptl = x & (7 << 53) == 0;
                let residency = u64::from((x >> 32) as u32 % 12_000_000);
                for (env, _) in [&mut p, &mut d] {
                    env.sleep = sleep;
                    env.latency_req_ns = qos;
                    env.tick_stopped = tick_stopped;
                    env.poll_time_limit = ptl;
                }
                assert_eq!(
                    p.0.period(&mut p.1, residency, got_tick),
                    d.0.period(&mut d.1, residency, got_tick)
                );
            }
            assert_eq!(p.1.state_bins, d.1.state_bins);
        }
    }
}
