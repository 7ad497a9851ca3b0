// SPDX-License-Identifier: GPL-2.0

//! The cpuidle core's and the tick's own C, from the kernel tree: what
//! happens around a governor's `select()` and `reflect()`.
//!
//! build.rs cuts the definitions out of the cached tree and compiles them
//! with `tools/cpuidle-parity/shim/core.c`, whose stand-ins describe the
//! simulated CPU (a clock, the tick, one timer, the wake-up that ends the
//! idle period, halting and polling states).  The simulator calls, per
//! entry: `tick_nohz_get_sleep_length()`, `tick_nohz_tick_stopped()` and
//! `cpuidle_governor_latency_req()` (the governor's inputs),
//! `idle_call_stop_or_retain_tick()` (its tick decision),
//! `cpuidle_enter_state()` with `poll_idle()` and `cpuidle_poll_time()`
//! for a polling state (the residency, the above/below counters and
//! `dev->poll_time_limit`), and `tick_nohz_idle_got_tick()` for
//! `reflect()`.  `poll_idle()` runs as a closed form of its loop unless
//! [`Core::set_exact_poll`] asks for the tree's loop (one iteration per
//! simulated `cpu_relax()`); the two are tested equal.  The C keeps one CPU's state in globals: [`Core::lock`]
//! hands it out to one user at a time.

use std::sync::{Mutex, MutexGuard};

#[repr(C)]
#[derive(Default, Clone, Copy, Debug)]
struct RawEntry {
    entered: i32,
    start_ns: i64,
    end_ns: i64,
    residency_ns: u64,
    above: u64,
    below: u64,
    poll_time_limit: bool,
    by_tick: bool,
    by_wake: bool,
}

extern "C" {
    fn simcore_init_world(
        count: i32,
        residency_ns: *const i64,
        latency_ns: *const i64,
        flags: *const u32,
    ) -> i32;
    #[cfg(test)]
    fn simcore_set_disabled(mask: u32);
    fn simcore_poll_time() -> u64;
    fn simcore_set_relax_ns(ns: u64);
    fn simcore_set_exact_poll(exact: bool);
    fn simcore_set_emulated(on: bool, wake_delay_ns: i64);
    fn simcore_set_halt_delay(halt_delay_ns: i64);
    fn simcore_set_tick_costs(decide_ns: i64, stop_ns: i64, restart_ns: i64);
    fn simcore_idle_exit_cost() -> i64;
    #[cfg(test)]
    fn simcore_set_fixed_residency(ns: i64);
    fn simcore_qos_default_us() -> i32;
    fn simcore_tick_nsec() -> i64;
    fn simcore_episode(wake_ns: i64, timer_ns: i64, tick_ns: i64, qos_us: i32);
    fn simcore_idle_again();
    fn simcore_latency_req() -> i64;
    fn simcore_sleep_length(delta_next: *mut i64) -> i64;
    fn simcore_tick_stopped() -> bool;
    fn simcore_stop_or_retain_tick(stop_tick: bool);
    fn simcore_enter(idx: i32, e: *mut RawEntry);
    fn simcore_got_tick() -> bool;
    fn simcore_need_resched() -> bool;
    fn simcore_poll_time_limit() -> bool;
    fn simcore_set_poll_time_limit(v: bool);
    #[cfg(test)]
    fn simcore_next_tick() -> i64;
    fn simcore_warnings_count() -> u64;
}

/// What one `cpuidle_enter_state()` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The state entered (the index given: the world rejects no entry).
    pub entered: usize,
    /// When the entry started and the CPU was back, ns from the episode's
    /// start (`time_start`, `time_end`).
    pub start_ns: i64,
    pub end_ns: i64,
    /// `dev->last_residency_ns`.
    pub residency_ns: u64,
    /// This entry counted as too deep / too shallow (`states_usage[]`).
    pub above: bool,
    pub below: bool,
    /// `dev->poll_time_limit` after the entry.
    pub poll_time_limit: bool,
    /// A non-polling state woken by the tick / by the wake-up.
    pub by_tick: bool,
    pub by_wake: bool,
}

/// The idle period one governor query sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inputs {
    /// `tick_nohz_get_sleep_length()` and its `delta_next`.
    pub sleep_ns: i64,
    pub delta_next_ns: i64,
    /// `tick_nohz_tick_stopped()`.
    pub tick_stopped: bool,
    /// `cpuidle_governor_latency_req()`.
    pub latency_req_ns: i64,
}

static LOCK: Mutex<()> = Mutex::new(());

/// The C's one CPU, held.
pub struct Core {
    _g: MutexGuard<'static, ()>,
}

impl Core {
    /// Takes the CPU (the simulator's C governors too keep their state in
    /// globals: hold this while running them).
    pub fn lock() -> Core {
        Core {
            _g: LOCK.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }

    /// The driver's table: target residencies and exit latencies (ns),
    /// `CPUIDLE_FLAG_*` bits; all states enabled, counters zero.
    pub fn init(&mut self, residency_ns: &[i64], latency_ns: &[i64], flags: &[u32]) {
        assert!(residency_ns.len() == latency_ns.len() && latency_ns.len() == flags.len());
        // SAFETY: three slices of `len` elements each.
        let rc = unsafe {
            simcore_init_world(
                residency_ns.len() as i32,
                residency_ns.as_ptr(),
                latency_ns.as_ptr(),
                flags.as_ptr(),
            )
        };
        assert_eq!(rc, 0, "simcore_init: bad table");
    }

    #[cfg(test)]
    /// Disables the states of `mask` (bit i: state i), as sysfs does.
    pub fn set_disabled(&mut self, mask: u32) {
        // SAFETY: plain call.
        unsafe { simcore_set_disabled(mask) }
    }

    /// `cpuidle_poll_time()`: the polling limit poll_idle() applies, ns.
    pub fn poll_time(&mut self) -> u64 {
        // SAFETY: plain call.
        unsafe { simcore_poll_time() }
    }

    /// Polling states from the next [`Core::init`] on: the tree's
    /// `poll_idle()` loop itself (one iteration per `cpu_relax()`: slow),
    /// or its closed form (the default; tested against the loop).
    pub fn set_exact_poll(&mut self, exact: bool) {
        // SAFETY: plain call.
        unsafe { simcore_set_exact_poll(exact) }
    }

    /// From the next [`Core::init`] on: the emulated world of src/world.c
    /// (`Some(delay)`: the tick reaches a halted CPU `delay` ns late, and
    /// an episode's wake-up past its timer is when the CPU resumes), or
    /// core.c's (`None`, the default).
    pub fn set_emulated(&mut self, wake_delay_ns: Option<i64>) {
        // SAFETY: plain call.
        unsafe { simcore_set_emulated(wake_delay_ns.is_some(), wake_delay_ns.unwrap_or(0)) }
    }

    /// In the emulated world (after [`Core::set_emulated`] with `Some`),
    /// for the next episode: its wake-up's interrupt reaches a halted CPU
    /// `ns` late, a polling one at once.
    pub fn set_halt_delay(&mut self, ns: i64) {
        // SAFETY: plain call.
        unsafe { simcore_set_halt_delay(ns) }
    }

    /// In the emulated world, from the next [`Core::init`] on: what the
    /// idle loop's work costs, ns: each decision of the governor (charged
    /// before the entry, in [`Core::stop_or_retain_tick`]), stopping the
    /// tick (the same, when that call stopped it), restarting it on the
    /// way out ([`Core::idle_exit_cost`]).  `set_emulated(None)` resets
    /// them to 0.
    pub fn set_tick_costs(&mut self, decide_ns: i64, stop_ns: i64, restart_ns: i64) {
        // SAFETY: plain call.
        unsafe { simcore_set_tick_costs(decide_ns, stop_ns, restart_ns) }
    }

    /// At the end of a period: what `tick_nohz_idle_exit()` costs before
    /// the woken task runs (restarting a stopped tick), ns.
    pub fn idle_exit_cost(&mut self) -> i64 {
        // SAFETY: plain call.
        unsafe { simcore_idle_exit_cost() }
    }

    /// The cost of one `cpu_relax()` in the simulated clock, ns (>= 1).
    pub fn set_relax_ns(&mut self, ns: u64) {
        // SAFETY: plain call.
        unsafe { simcore_set_relax_ns(ns) }
    }

    #[cfg(test)]
    /// Tests: non-polling states last exactly `ns` (`None`: the world's
    /// rule, until the next interrupt plus the exit latency).
    pub fn set_fixed_residency(&mut self, ns: Option<i64>) {
        // SAFETY: plain call.
        unsafe { simcore_set_fixed_residency(ns.unwrap_or(-1)) }
    }

    /// `PM_QOS_CPU_LATENCY_DEFAULT_VALUE`, us: the limit when none is set.
    pub fn qos_default_us() -> i32 {
        // SAFETY: plain call, no state.
        unsafe { simcore_qos_default_us() }
    }

    /// `TICK_NSEC` as the C is built.
    pub fn tick_nsec() -> i64 {
        // SAFETY: plain call, no state.
        unsafe { simcore_tick_nsec() }
    }

    /// A new idle period (times from its start, ns): the wake-up, the
    /// timer, the first tick, and the CPU latency QoS limit (us).
    pub fn episode(&mut self, wake_ns: i64, timer_ns: i64, tick_ns: i64, qos_us: i32) {
        // SAFETY: plain call.
        unsafe { simcore_episode(wake_ns, timer_ns, tick_ns, qos_us) }
    }

    /// The idle loop goes round again (IRQs off).
    pub fn idle_again(&mut self) {
        // SAFETY: plain call.
        unsafe { simcore_idle_again() }
    }

    /// What the governor's `select()` is told now.
    pub fn inputs(&mut self) -> Inputs {
        let mut delta = 0i64;
        // SAFETY: `delta` is a valid local.
        let sleep_ns = unsafe { simcore_sleep_length(&mut delta) };
        Inputs {
            sleep_ns,
            delta_next_ns: delta,
            // SAFETY: plain calls.
            tick_stopped: unsafe { simcore_tick_stopped() },
            latency_req_ns: unsafe { simcore_latency_req() },
        }
    }

    /// `idle_call_stop_or_retain_tick()` with the governor's `stop_tick`.
    pub fn stop_or_retain_tick(&mut self, stop_tick: bool) {
        // SAFETY: plain call.
        unsafe { simcore_stop_or_retain_tick(stop_tick) }
    }

    /// `cpuidle_enter_state()` of state `idx`.
    pub fn enter(&mut self, idx: usize) -> Entry {
        let mut e = RawEntry::default();
        // SAFETY: `e` is a valid local of the C layout.
        unsafe { simcore_enter(idx as i32, &mut e) };
        Entry {
            entered: e.entered as usize,
            start_ns: e.start_ns,
            end_ns: e.end_ns,
            residency_ns: e.residency_ns,
            above: e.above != 0,
            below: e.below != 0,
            poll_time_limit: e.poll_time_limit,
            by_tick: e.by_tick,
            by_wake: e.by_wake,
        }
    }

    /// `tick_nohz_idle_got_tick()` (clears it), as `reflect()` reads it.
    pub fn got_tick(&mut self) -> bool {
        // SAFETY: plain call.
        unsafe { simcore_got_tick() }
    }

    /// A task is ready: the idle period is over.
    pub fn need_resched(&mut self) -> bool {
        // SAFETY: plain call.
        unsafe { simcore_need_resched() }
    }

    /// `dev->poll_time_limit` of the core's device.
    pub fn poll_time_limit(&mut self) -> bool {
        // SAFETY: plain call.
        unsafe { simcore_poll_time_limit() }
    }

    /// Sets `dev->poll_time_limit` (the governor, which shares the field
    /// in the kernel, cleared it).
    pub fn set_poll_time_limit(&mut self, v: bool) {
        // SAFETY: plain call.
        unsafe { simcore_set_poll_time_limit(v) }
    }

    #[cfg(test)]
    /// The tick's next expiry, ns from the episode's start, if armed.
    pub fn next_tick(&mut self) -> Option<i64> {
        // SAFETY: plain call.
        let t = unsafe { simcore_next_tick() };
        (t >= 0).then_some(t)
    }

    /// WARN_ON()s the kernel code hit so far.
    pub fn warnings(&mut self) -> u64 {
        // SAFETY: plain call.
        unsafe { simcore_warnings_count() }
    }
}

/// Differential tests: each mechanism restated in Rust from its
/// documentation, against the tree's C over random inputs.  They check the
/// shim's wiring (the disabled mask, the poll time cache, the clock, the
/// tick) and that the simulator's description of what it runs holds.
#[cfg(test)]
mod tests {
    use super::*;
    use rteo_core::host::SplitMix64;

    /// `CPUIDLE_FLAG_POLLING`.
    const FLAG_POLLING: u32 = 1;

    const US: i64 = 1000;

    /// A random table of 1..=10 states: state 0 polling or not,
    /// residencies (ns) around the poll limit's bounds or anywhere below
    /// 2 ms, exit latencies at most the residency.
    fn random_table(r: &mut SplitMix64) -> (Vec<i64>, Vec<i64>, Vec<u32>) {
        let n = r.range(1, 10) as usize;
        let edges = [
            0,
            1,
            2 * US,
            10 * US - 1,
            10 * US,
            10 * US + 1,
            20 * US,
            250 * US - 1,
            250 * US,
            250 * US + 1,
            1000 * US,
        ];
        let mut res = Vec::new();
        let mut lat = Vec::new();
        let mut flags = Vec::new();
        for i in 0..n {
            let tr = if r.chance(0.5) {
                edges[r.below(edges.len() as u64) as usize]
            } else {
                r.range(0, 2_000 * US)
            };
            res.push(tr);
            lat.push(r.range(0, tr));
            flags.push(if i == 0 && r.chance(0.7) {
                FLAG_POLLING
            } else {
                0
            });
        }
        (res, lat, flags)
    }

    trait Chance {
        fn chance(&mut self, p: f64) -> bool;
    }
    impl Chance for SplitMix64 {
        fn chance(&mut self, p: f64) -> bool {
            self.unit() < p
        }
    }

    /// `cpuidle_poll_time()` restated: the target residency of the first
    /// enabled state after 0 with at least `CPUIDLE_POLL_MIN` (10 us), at
    /// most `CPUIDLE_POLL_MAX` (`TICK_NSEC / 16`); that cap if none.
    fn ref_poll_time(res: &[i64], disabled: u32) -> u64 {
        let max = (Core::tick_nsec() / 16) as u64;
        for (i, &tr) in res.iter().enumerate().skip(1) {
            if disabled & (1 << i) != 0 || tr < 10 * US {
                continue;
            }
            return (tr as u64).min(max);
        }
        max
    }

    #[test]
    fn poll_time_is_the_kernels() {
        let mut c = Core::lock();
        let mut r = SplitMix64(0x9011_0001);
        let (mut cases, mut bad) = (0, 0);
        for _ in 0..20_000 {
            let (res, lat, flags) = random_table(&mut r);
            c.init(&res, &lat, &flags);
            let masks = [0, r.next_u64() as u32 & 0x3ff, r.next_u64() as u32 & 0x3ff];
            for m in masks {
                c.set_disabled(m);
                // twice: the second answer comes from dev->poll_limit_ns
                for _ in 0..2 {
                    cases += 1;
                    let (got, want) = (c.poll_time(), ref_poll_time(&res, m));
                    if got != want {
                        bad += 1;
                        if bad <= 5 {
                            eprintln!(
                                "poll time: table {res:?} disabled {m:#x}: C {got}, Rust {want}"
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(bad, 0, "{bad} of {cases} poll limits differ");
    }

    #[test]
    fn above_below_are_the_kernels() {
        let mut c = Core::lock();
        c.set_exact_poll(false);
        let mut r = SplitMix64(0x9011_0002);
        let (mut cases, mut bad, mut above, mut below) = (0, 0, 0, 0);
        for _ in 0..4_000 {
            let (res, lat, _) = random_table(&mut r);
            // no polling state here: the fixed residency applies to all
            c.init(&res, &lat, &vec![0; res.len()]);
            let m = if r.chance(0.3) {
                0
            } else {
                r.next_u64() as u32 & 0x3ff
            };
            c.set_disabled(m);
            for _ in 0..20 {
                let idx = r.below(res.len() as u64) as usize;
                // around the state's and its neighbours' bounds, or anywhere
                let pick = [
                    res[idx] - 1,
                    res[idx],
                    lat[idx],
                    lat[idx] + 1,
                    res.get(idx + 1).map_or(0, |n| lat[idx] + n - 1),
                    res.get(idx + 1).map_or(0, |n| lat[idx] + n),
                    r.range(0, 3_000 * US),
                ];
                let diff = pick[r.below(pick.len() as u64) as usize].max(0);
                c.set_fixed_residency(Some(diff));
                c.episode(
                    i64::MAX / 4,
                    i64::MAX / 4,
                    Core::tick_nsec(),
                    Core::qos_default_us(),
                );
                c.stop_or_retain_tick(true);
                let e = c.enter(idx);
                cases += 1;
                // the simulator's copy, which scores the oracle
                let states: Vec<rteo_core::rteo_core::State> = res
                    .iter()
                    .zip(&lat)
                    .map(|(&t, &l)| rteo_core::rteo_core::State {
                        target_residency_ns: t,
                        exit_latency_ns: l,
                        polling: false,
                    })
                    .collect();
                let want = crate::oracle::account(&states, m, idx, diff);
                above += u32::from(want.0);
                below += u32::from(want.1);
                if (e.above, e.below) != want || e.residency_ns != diff as u64 {
                    bad += 1;
                    if bad <= 5 {
                        eprintln!(
                            "above/below: table res {res:?} lat {lat:?} disabled {m:#x} idx {idx} diff {diff}: C {:?} residency {}, Rust {want:?}",
                            (e.above, e.below),
                            e.residency_ns
                        );
                    }
                }
            }
        }
        c.set_fixed_residency(None);
        assert_eq!(bad, 0, "{bad} of {cases} entries counted differently");
        eprintln!("above/below: {cases} entries, {above} above, {below} below");
        assert!(above > 5000 && below > 5000);
        assert_eq!(c.warnings(), 0);
    }

    /// poll_idle()'s exit restated: with `c` ns per cpu_relax(), the loop
    /// sees the wake-up after the first relax at or past it, and looks at
    /// the clock after every `POLL_IDLE_RELAX_COUNT + 1` (201) relaxes,
    /// stopping with `poll_time_limit` once more than `limit` has passed
    /// (before it looks at need_resched() again); a task ready at entry
    /// skips the loop.  Ticks while polling do not end it.  Returns how
    /// long it polled and whether it timed out.
    fn ref_poll(wake: i64, limit: i64, c: i64) -> (i64, bool) {
        if wake <= 0 {
            return (0, false);
        }
        let t_wake = (wake + c - 1) / c * c;
        let period = 201 * c;
        let t_limit = (limit / period + 1) * period;
        if t_limit <= t_wake {
            (t_limit, true)
        } else {
            (t_wake, false)
        }
    }

    #[test]
    fn poll_idle_exit_is_the_kernels() {
        let mut c = Core::lock();
        c.set_fixed_residency(None);
        let mut r = SplitMix64(0x9011_0003);
        let (mut cases, mut bad, mut timeouts) = (0, 0, 0);
        c.set_exact_poll(true);
        for _ in 0..3_000 {
            let (mut res, mut lat, mut flags) = random_table(&mut r);
            if res.len() < 2 {
                res.push(20 * US);
                lat.push(2 * US);
                flags.push(0);
            }
            flags[0] = FLAG_POLLING;
            res[0] = 0;
            lat[0] = 0;
            c.init(&res, &lat, &flags);
            let m = r.next_u64() as u32 & 0x3fe;
            c.set_disabled(m);
            let limit = c.poll_time() as i64;
            let relax = [1, 2, 7, 40, 150][r.below(5) as usize];
            c.set_relax_ns(relax as u64);
            for _ in 0..4 {
                let wake = match r.below(4) {
                    0 => r.range(0, 2 * limit),
                    1 => limit + r.range(-2 * 201 * relax, 2 * 201 * relax),
                    2 => r.range(0, 3 * relax),
                    _ => r.range(1, 4_000 * US),
                };
                let tick = r.range(1, Core::tick_nsec());
                c.episode(wake, wake.max(1), tick, Core::qos_default_us());
                c.stop_or_retain_tick(r.chance(0.5));
                let e = c.enter(0);
                cases += 1;
                let got = (e.end_ns - e.start_ns, e.poll_time_limit);
                let want = ref_poll(wake, limit, relax);
                timeouts += u32::from(want.1);
                if got != want || e.residency_ns != got.0 as u64 {
                    bad += 1;
                    if bad <= 5 {
                        eprintln!(
                            "poll_idle: wake {wake} limit {limit} relax {relax}: C {got:?} residency {}, Rust {want:?}",
                            e.residency_ns
                        );
                    }
                }
            }
        }
        c.set_relax_ns(1);
        c.set_exact_poll(false);
        assert_eq!(bad, 0, "{bad} of {cases} polls ended differently");
        eprintln!("poll_idle: {cases} polls, {timeouts} timed out");
        assert!(timeouts > 1000 && cases - timeouts > 1000);
        assert_eq!(c.warnings(), 0);
    }

    /// The closed form of `poll_idle()` the simulator runs, against the
    /// tree's loop: the same episode through both, entry by entry (polling
    /// or not, the tick stopped or not), the same end, residency,
    /// `poll_time_limit`, `got_tick`, wake-up and next inputs.
    #[test]
    fn fast_poll_is_poll_idle() {
        let mut c = Core::lock();
        c.set_fixed_residency(None);
        let tick = Core::tick_nsec();
        let mut r = SplitMix64(0x9011_0005);
        let (mut cases, mut bad) = (0, 0);
        let (mut timeouts, mut ticked) = (0, 0);
        for _ in 0..1_500 {
            let (mut res, mut lat, mut flags) = random_table(&mut r);
            if res.len() < 2 {
                res.push(20 * US);
                lat.push(2 * US);
                flags.push(0);
            }
            flags[0] = FLAG_POLLING;
            res[0] = 0;
            lat[0] = 0;
            let m = r.next_u64() as u32 & 0x3fe;
            let relax = [1, 3, 40, 150][r.below(4) as usize];
            let timer = r.range(1, 3_000 * US);
            let wake = if r.chance(0.3) {
                timer
            } else {
                r.range(1, timer)
            };
            let phase = r.range(1, tick);
            let steps: Vec<(usize, bool)> = (0..12)
                .map(|_| {
                    let idx = if r.chance(0.7) {
                        0
                    } else {
                        r.below(res.len() as u64) as usize
                    };
                    (idx, r.chance(0.3))
                })
                .collect();
            let mut runs = Vec::new();
            for exact in [true, false] {
                c.set_exact_poll(exact);
                c.set_relax_ns(relax);
                c.init(&res, &lat, &flags);
                c.set_disabled(m);
                c.episode(wake, timer, phase, Core::qos_default_us());
                let mut out = Vec::new();
                for (k, &(idx, stop)) in steps.iter().enumerate() {
                    if k > 0 {
                        c.idle_again();
                    }
                    let inp = c.inputs();
                    c.stop_or_retain_tick(stop);
                    let e = c.enter(idx);
                    let t = c.got_tick();
                    let ready = c.need_resched();
                    out.push((inp, e, t, ready, c.next_tick()));
                    if ready {
                        break;
                    }
                }
                runs.push(out);
            }
            cases += runs[0].len();
            for x in &runs[0] {
                timeouts += u32::from(x.1.poll_time_limit && x.1.entered == 0);
                ticked += u32::from(x.2 && x.1.entered == 0);
            }
            if runs[0] != runs[1] {
                bad += 1;
                if bad <= 3 {
                    let k = (0..runs[0].len().min(runs[1].len()))
                        .find(|&k| runs[0][k] != runs[1][k])
                        .unwrap_or(0);
                    eprintln!(
                        "fast poll: res {res:?} disabled {m:#x} relax {relax} wake {wake} timer {timer} tick {phase}, step {k}:\n  poll_idle() {:?}\n  closed form {:?}",
                        runs[0].get(k),
                        runs[1].get(k)
                    );
                }
            }
        }
        c.set_exact_poll(false);
        c.set_relax_ns(1);
        assert_eq!(
            bad, 0,
            "{bad} episodes differ ({cases} entries through poll_idle())"
        );
        assert_eq!(c.warnings(), 0);
        eprintln!(
            "fast poll: {cases} entries, {timeouts} poll time-outs, {ticked} polls with a tick"
        );
        assert!(timeouts > 500 && ticked > 50);
    }

    /// The simulated idle loop restated, in the tick's terms:
    ///
    /// * the sleep length is the time from `ts->idle_entrytime` (the idle
    ///   entry, then the end of each interrupt taken in idle: the tick's,
    ///   not a polling time-out) to the timer; `delta_next` the time from
    ///   there to the clock event device's next event, the tick or the
    ///   timer whichever is first while the tick runs, the timer once it
    ///   is stopped;
    /// * asking to stop the tick stops it (no timer-wheel timer: the next
    ///   event is never within the tick), and it stays stopped for the
    ///   rest of the idle period;
    /// * the tick fires every `TICK_NSEC` on the episode's grid while it
    ///   runs; `got_tick` is whether it fired during the entry;
    /// * a non-polling state ends at the first interrupt, plus its exit
    ///   latency; a polling one at the wake-up or its limit.
    #[test]
    fn idle_loop_follows_the_tick_code() {
        let mut c = Core::lock();
        c.set_fixed_residency(None);
        c.set_relax_ns(1);
        c.set_exact_poll(false);
        let tick = Core::tick_nsec();
        let mut r = SplitMix64(0x9011_0004);
        let (mut cases, mut bad) = (0, 0);
        // what the streams must reach: polls timed out, ticks while
        // polling, inputs measured from a stale idle entry, stopped ticks
        let (mut counts, mut stale, mut stopped_inputs) = ((0, 0), 0, 0);
        let report = |what: &str, got: String, want: String, bad: &mut u32| {
            *bad += 1;
            if *bad <= 8 {
                eprintln!("idle loop: {what}: C {got}, Rust {want}");
            }
        };
        for _ in 0..10_000 {
            let (res, lat, flags) = loop_table(&mut r);
            c.init(&res, &lat, &flags);
            let limit = c.poll_time() as i64;
            let (timer, wake, mut m) = Model::episode(&mut c, &mut r, tick);
            for step in 0..40 {
                if step > 0 {
                    c.idle_again();
                }
                let got = c.inputs();
                let event = if m.stopped {
                    timer
                } else {
                    m.next_tick.min(timer)
                };
                let want = (timer - m.entry_time, event - m.entry_time, m.stopped);
                cases += 1;
                stale += u32::from(m.entry_time != m.now);
                stopped_inputs += u32::from(m.stopped);
                if (got.sleep_ns, got.delta_next_ns, got.tick_stopped) != want {
                    report(
                        "inputs",
                        format!("{got:?}"),
                        format!("{want:?} now {}", m.now),
                        &mut bad,
                    );
                    break;
                }
                let idx = if flags[0] == FLAG_POLLING && r.chance(0.6) {
                    0
                } else {
                    r.below(res.len() as u64) as usize
                };
                let stop = r.chance(0.3);
                c.stop_or_retain_tick(stop);
                m.stopped |= stop;
                if c.next_tick().is_some() == m.stopped {
                    report(
                        "tick armed",
                        format!("{:?}", c.next_tick()),
                        format!("stopped {}", m.stopped),
                        &mut bad,
                    );
                    break;
                }
                let e = c.enter(idx);
                let got_tick = c.got_tick();
                // the model's entry
                let polling = flags[idx] == FLAG_POLLING;
                let (end, ticked) = m.enter(polling, wake, limit, lat[idx], tick, &mut counts);
                cases += 1;
                if (e.end_ns, got_tick) != (end, ticked) {
                    report(
                        "entry",
                        format!("end {} got_tick {got_tick}", e.end_ns),
                        format!("end {end} got_tick {ticked} (idx {idx}, now {}, wake {wake}, timer {timer})", m.now),
                        &mut bad,
                    );
                    break;
                }
                m.now = end;
                if c.need_resched() != (m.now >= wake) {
                    report(
                        "need_resched",
                        format!("{}", c.need_resched()),
                        format!("{}", m.now >= wake),
                        &mut bad,
                    );
                    break;
                }
                if m.now >= wake {
                    break;
                }
            }
        }
        assert_eq!(bad, 0, "{bad} of {cases} steps differ");
        assert_eq!(c.warnings(), 0);
        let (timeouts, poll_ticks) = counts;
        eprintln!(
            "idle loop: {cases} steps, {timeouts} poll time-outs, {poll_ticks} ticks while polling, {stale} stale idle entries, {stopped_inputs} with the tick stopped"
        );
        assert!(timeouts > 1000 && poll_ticks > 100 && stale > 1000 && stopped_inputs > 500);
    }

    /// The model's state of one episode in
    /// [`idle_loop_follows_the_tick_code`]: the idle entry time the inputs
    /// are measured from, the clock, whether the tick is stopped, the next
    /// tick.
    struct Model {
        entry_time: i64,
        now: i64,
        stopped: bool,
        next_tick: i64,
    }

    /// A random table of at least two states, a polling state's residency
    /// and latency 0, for [`idle_loop_follows_the_tick_code`].
    fn loop_table(r: &mut SplitMix64) -> (Vec<i64>, Vec<i64>, Vec<u32>) {
        let (mut res, mut lat, mut flags) = random_table(r);
        if res.len() < 2 {
            res.push(20 * US);
            lat.push(2 * US);
            flags.push(0);
        }
        if flags[0] == FLAG_POLLING {
            res[0] = 0;
            lat[0] = 0;
        }
        (res, lat, flags)
    }

    impl Model {
        /// A random episode begun in the C: its timer, its wake-up and the
        /// model at its start.
        fn episode(c: &mut Core, r: &mut SplitMix64, tick: i64) -> (i64, i64, Model) {
            let timer = r.range(1, 30_000 * US);
            let wake = if r.chance(0.4) {
                timer
            } else {
                r.range(1, timer)
            };
            let phase = r.range(1, tick);
            c.episode(wake, timer, phase, Core::qos_default_us());
            let m = Model {
                entry_time: 0,
                now: 0,
                stopped: false,
                next_tick: phase,
            };
            (timer, wake, m)
        }

        /// The model's entry of a polling state (`polling`) or a halting
        /// one of exit latency `lat`: its end and whether a tick came in
        /// it, the next tick and the idle entry time moved as the tick
        /// code moves them; `counts`: poll time-outs, polls a tick came in.
        fn enter(
            &mut self,
            polling: bool,
            wake: i64,
            limit: i64,
            lat: i64,
            tick: i64,
            counts: &mut (u32, u32),
        ) -> (i64, bool) {
            let mut ticked = false;
            if polling {
                let (len, out) = ref_poll(wake - self.now, limit, 1);
                counts.0 += u32::from(out);
                let end = self.now + len;
                // ticks taken while polling, at the relax they fall in
                while !self.stopped && self.next_tick <= end {
                    ticked = true;
                    self.entry_time = self.next_tick;
                    self.next_tick += tick;
                }
                counts.1 += u32::from(ticked);
                return (end, ticked);
            }
            let first = if self.stopped {
                wake
            } else {
                wake.min(self.next_tick)
            };
            let end = first.max(self.now) + lat;
            while !self.stopped && self.next_tick <= end {
                ticked = true;
                self.next_tick += tick;
            }
            if ticked {
                self.entry_time = end;
            }
            (end, ticked)
        }
    }
}
