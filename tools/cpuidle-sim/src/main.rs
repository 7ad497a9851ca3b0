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
//!        cpuidle-sim --replay TRACE --table NAME --governor G
//!                    [--wake-delay-us N [--irq-delay-us N]
//!                     [--tick-costs-us DECIDE,STOP,RESTART]] [--relax-ns N]
//!                    [--json FILE]
//!
//! `--replay` replays one recorded trace (scripts/trace2corpus.py's
//! format), closed loop as every trace, with governor G (rteo,
//! rteo-parity, teo, menu) on table NAME, and reports what the guest's
//! tracepoints measure of the same run: entries, above and below per entry
//! (`cpuidle_enter_state()`'s counters) and each state's share of the time
//! in states, the exit latency's spin included (scripts/fidelity.py).  A
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
//! took halted ([`raise_times`]).  `--tick-costs-us DECIDE,STOP,RESTART`
//! adds the idle loop's own work (scripts/tickcost.py measures it): each
//! governor decision and each stop of the tick delays the entry after it,
//! a restart of the stopped tick delays the woken task (the replay's
//! interrupt wake-up latency).
//!
//! `--bound` prints what a policy deciding from the sleep length and the
//! last periods could reach with hindsight (src/bound.rs, README.md "What
//! the information permits").
//!
//! `--rules` sets the rules of rteo's default mode in force (bits of the
//! core's `rule` module, all by default; `scripts/rteo-ablation.sh`).
//! `--relax-ns` sets what one `cpu_relax()` of `poll_idle()` costs in the
//! simulated clock (1 ns by default, see below); `--exact-poll` runs the
//! tree's `poll_idle()` loop itself, one iteration per `cpu_relax()`,
//! instead of its closed form (the same results, tested; minutes instead
//! of a second).  Plots: scripts/sim-plots.py
//! draws them from the `--json` output (scripts/sim.sh runs both).
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
//!   the measured residency at the state's model power plus the exit
//!   latency at active power, per entry.  The oracle enters, once per
//!   episode, the deepest state whose residency fits the real idle time and
//!   whose exit latency fits the QoS limit; regret is energy / oracle
//!   energy - 1.  The oracle's entries are classified by the kernel's rule
//!   too ([`account`], tested against `cpuidle_enter_state()`).
//! * Too deep / too shallow: the kernel's counters, per idle period of the
//!   workload (a governor that splits a period into many entries would
//!   dilute a per-entry rate with its own extra entries) and per entry.
//! * Exact-state accuracy: the entry's state is the oracle's for the idle
//!   time that was really left at that entry.
//! * IRQ exit latency: exit latency paid on wake-ups by interrupts other
//!   than the timer and the tick, mean per such wake-up.
//!
//! Corpus: the synthetic classes below (fixed seeds) and the recorded
//! traces in `corpus/` (`--corpus DIR`), episodes taken from rteo's
//! recorder in a QEMU guest by `scripts/trace2corpus.py`, split once and
//! for all into `corpus/tuning/` and `corpus/heldout/` (corpus/README).
//! Synthetic classes and the tuning traces are the tuning set; the
//! held-out traces are scored apart.  `--check` is the bar (README.md,
//! "The bar"; src/bar.rs): parity mode must score as teo.c on every run;
//! rteo's documented targets are shown on the held-out set, and, with
//! their tuning-set versions, held to the committed `bar-baseline.json`
//! (`--baseline FILE` for another), which `--write-baseline FILE` writes.
//! Workloads with a PM QoS latency limit that forbids some state are
//! reported apart as well.

use rteo_core::host::{HostEnv, SplitMix64};
use rteo_core::rteo_core::{rule, Mode, SleepLength, State, Teo};
use simcore::Core;
use std::{fmt::Write as _, process::ExitCode};

mod bar;
mod bound;
mod simcore;

const US: i64 = 1000;

#[path = "../../../drivers/cpuidle/cpuidle_tables.rs"]
#[allow(dead_code)]
mod cpuidle_tables;

/// A table with its energy model.
struct Table {
    name: &'static str,
    states: Vec<State>,
    /// The `CPUIDLE_FLAG_*` bits the C sees (polling only: the
    /// emulated-state driver registers no other flag that matters here).
    flags: Vec<u32>,
    model_mw: Vec<f64>,
    active_mw: f64,
}

impl Table {
    fn residencies(&self) -> Vec<i64> {
        self.states.iter().map(|s| s.target_residency_ns).collect()
    }
    fn latencies(&self) -> Vec<i64> {
        self.states.iter().map(|s| s.exit_latency_ns).collect()
    }
}

/// `t` with every exit latency and target residency multiplied by
/// `scale`, as the emulated-state driver's `scale` parameter registers it
/// (drivers/cpuidle/vstates.rs: `exit_latency_us * scale`,
/// `target_residency_us * scale`), named `name`.  The energy model follows:
/// an entry's exit-latency charge at active power is the scaled latency,
/// as the driver's energy file charges `exit_latency_us * scale`.
fn table_of(t: &cpuidle_tables::Table, scale: u32, name: &'static str) -> Table {
    let us = |v: u32| i64::from(v) * i64::from(scale) * US;
    Table {
        name,
        states: t
            .states
            .iter()
            .map(|s| State {
                target_residency_ns: us(s.target_residency_us),
                exit_latency_ns: us(s.exit_latency_us),
                polling: s.flags & cpuidle_tables::FLAG_POLLING != 0,
            })
            .collect(),
        flags: t
            .states
            .iter()
            .map(|s| s.flags & cpuidle_tables::FLAG_POLLING)
            .collect(),
        model_mw: t.states.iter().map(|s| f64::from(s.model_mw)).collect(),
        active_mw: f64::from(t.active_mw),
    }
}

fn tables() -> Vec<Table> {
    cpuidle_tables::TABLES
        .iter()
        .map(|t| table_of(t, 1, t.name))
        .collect()
}

/// The largest time scale, the emulated-state driver's `SCALE_MAX`.
const SCALE_MAX: u32 = 1000;

/// The table called `name`: a table of `cpuidle_tables.rs` (`TABLES` or
/// `SEED_TABLES`, as the emulated-state driver's `table=` takes it), or
/// `BASE-xN`, BASE's table time-scaled by N (1..=1000), as the driver
/// registers it with `table=BASE scale=N` (and as the guest's recordings
/// name it).
fn table_named(name: &str) -> Result<Table, String> {
    let (base, scale) = match name.rsplit_once("-x") {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => {
            match n.parse::<u32>() {
                Ok(k) if (1..=SCALE_MAX).contains(&k) => (b, k),
                _ => return Err(format!("{name}: the scale must be 1..={SCALE_MAX}")),
            }
        }
        _ => (name, 1),
    };
    let t = cpuidle_tables::by_name(base.as_bytes()).ok_or_else(|| {
        let known: Vec<&str> = cpuidle_tables::TABLES
            .iter()
            .chain(cpuidle_tables::SEED_TABLES)
            .map(|t| t.name)
            .collect();
        format!(
            "{name}: unknown table (known: {}; BASE-xN scales BASE by N)",
            known.join(", ")
        )
    })?;
    Ok(table_of(
        t,
        scale,
        Box::leak(name.to_string().into_boxed_str()),
    ))
}

/// `cpuidle_poll_time()` of the tree for each table, all states enabled:
/// the polling limit `poll_idle()` applies in the simulator, ns.
fn poll_limits(core: &mut Core, tabs: &[Table]) -> Vec<(&'static str, u64)> {
    tabs.iter()
        .map(|t| {
            core.init(&t.residencies(), &t.latencies(), &t.flags);
            (t.name, core.poll_time())
        })
        .collect()
}

/// The inputs of one `select()`.
struct Query {
    latency_req_ns: i64,
    tick_stopped: bool,
    sleep_ns: i64,
    delta_tick_ns: i64,
}

trait Governor {
    fn name(&self) -> &'static str;
    /// Freshly enabled on a CPU with `t`'s states.
    fn reset(&mut self, t: &Table);
    fn select(&mut self, q: &Query) -> (usize, bool);
    /// The governor's `dev->poll_time_limit` (teo's and rteo's `select()`
    /// clear it when they account for the last period).
    fn poll_time_limit(&self) -> bool;
    /// The core's accounting after the CPU left state `idx`, then reflect().
    fn wakeup(&mut self, idx: usize, residency_ns: u64, poll_time_limit: bool, got_tick: bool);
}

macro_rules! c_governor {
    ($modname:ident, $init:ident, $select:ident, $wakeup:ident, $ptl:ident) => {
        mod $modname {
            extern "C" {
                pub fn $init(
                    count: i32,
                    residency_ns: *const i64,
                    latency_ns: *const i64,
                    flags: *const u32,
                ) -> i32;
                pub fn $select(
                    disabled: u32,
                    latency_req_ns: i64,
                    tick_stopped: bool,
                    sleep_ns: i64,
                    delta_tick_ns: i64,
                    stop_tick: *mut bool,
                    sleep_queries: *mut u32,
                ) -> i32;
                pub fn $wakeup(idx: i32, residency_ns: u64, poll_time_limit: bool, got_tick: bool);
                pub fn $ptl() -> bool;
            }

            pub fn init(t: &super::Table) {
                let res = t.residencies();
                let lat = t.latencies();
                // SAFETY: the slices hold `t.states.len()` elements each.
                let rc = unsafe {
                    $init(
                        t.states.len() as i32,
                        res.as_ptr(),
                        lat.as_ptr(),
                        t.flags.as_ptr(),
                    )
                };
                assert_eq!(rc, 0, "C governor init failed");
            }

            pub fn select(q: &super::Query) -> (usize, bool) {
                let (mut stop, mut queries) = (true, 0u32);
                // SAFETY: the out-pointers are valid locals.
                let idx = unsafe {
                    $select(
                        0,
                        q.latency_req_ns,
                        q.tick_stopped,
                        q.sleep_ns,
                        q.delta_tick_ns,
                        &mut stop,
                        &mut queries,
                    )
                };
                (idx as usize, stop)
            }

            pub fn poll_time_limit() -> bool {
                // SAFETY: plain call.
                unsafe { $ptl() }
            }

            pub fn wakeup(idx: usize, residency_ns: u64, ptl: bool, got_tick: bool) {
                // SAFETY: plain call.
                unsafe { $wakeup(idx as i32, residency_ns, ptl, got_tick) };
            }
        }
    };
}

c_governor!(
    c_teo,
    sim_teo_parity_init,
    sim_teo_parity_select,
    sim_teo_parity_wakeup,
    sim_teo_parity_poll_time_limit
);
c_governor!(
    c_menu,
    sim_menu_parity_init,
    sim_menu_parity_select,
    sim_menu_parity_wakeup,
    sim_menu_parity_poll_time_limit
);

struct CTeo;
impl Governor for CTeo {
    fn name(&self) -> &'static str {
        "teo"
    }
    fn reset(&mut self, t: &Table) {
        c_teo::init(t);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        c_teo::select(q)
    }
    fn poll_time_limit(&self) -> bool {
        c_teo::poll_time_limit()
    }
    fn wakeup(&mut self, idx: usize, r: u64, ptl: bool, tick: bool) {
        c_teo::wakeup(idx, r, ptl, tick)
    }
}

struct CMenu;
impl Governor for CMenu {
    fn name(&self) -> &'static str {
        "menu"
    }
    fn reset(&mut self, t: &Table) {
        c_menu::init(t);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        c_menu::select(q)
    }
    fn poll_time_limit(&self) -> bool {
        c_menu::poll_time_limit()
    }
    fn wakeup(&mut self, idx: usize, r: u64, ptl: bool, tick: bool) {
        c_menu::wakeup(idx, r, ptl, tick)
    }
}

/// `--bound`'s reference: the state the sleep length allows (the deepest
/// whose target residency fits it, within the QoS limit), the tick
/// stopped; no history at all.
struct TimerOnly(Vec<State>);
impl Governor for TimerOnly {
    fn name(&self) -> &'static str {
        "timer"
    }
    fn reset(&mut self, t: &Table) {
        self.0.clone_from(&t.states);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        let fits = |s: &&State| {
            s.exit_latency_ns <= q.latency_req_ns && s.target_residency_ns <= q.sleep_ns
        };
        let n = self
            .0
            .iter()
            .take_while(|s| s.exit_latency_ns <= q.latency_req_ns)
            .count();
        let idx = self.0[..n].iter().rposition(|s| fits(&s)).unwrap_or(0);
        (idx, true)
    }
    fn poll_time_limit(&self) -> bool {
        false
    }
    fn wakeup(&mut self, _idx: usize, _r: u64, _ptl: bool, _tick: bool) {}
}

/// `--rules MASK`: the rules of rteo's default mode in force (`rule` bits
/// of the core, all by default), as the `rteo.rules_off` parameter leaves
/// them.
static RULES: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(rule::ALL);

struct Rteo {
    name: &'static str,
    mode: Mode,
    teo: Teo,
    env: HostEnv,
}

impl Rteo {
    fn new(name: &'static str, mode: Mode) -> Self {
        Self {
            name,
            mode,
            teo: Teo::ZERO,
            env: HostEnv::new(&[], Core::tick_nsec()),
        }
    }
}

impl Governor for Rteo {
    fn name(&self) -> &'static str {
        self.name
    }
    fn reset(&mut self, t: &Table) {
        self.teo = Teo::ZERO;
        self.teo.set_mode(self.mode);
        self.teo.rules &= RULES.load(std::sync::atomic::Ordering::Relaxed);
        self.env = HostEnv::new(&t.states, Core::tick_nsec());
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        self.env.latency_req_ns = q.latency_req_ns;
        self.env.tick_stopped = q.tick_stopped;
        self.env.sleep = SleepLength {
            duration_ns: q.sleep_ns,
            delta_tick_ns: q.delta_tick_ns,
        };
        let d = self.teo.select(&mut self.env);
        (d.idx, d.stop_tick)
    }
    fn poll_time_limit(&self) -> bool {
        self.env.poll_time_limit
    }
    fn wakeup(&mut self, idx: usize, r: u64, ptl: bool, tick: bool) {
        self.env.last_residency_ns = r;
        self.env.poll_time_limit = ptl;
        self.teo.reflect(tick);
        self.env.last_state_idx = idx as i32;
    }
}

/// What ends an episode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    Timer,
    Irq,
}

/// One stretch of idle time.
#[derive(Clone, Copy, Debug)]
struct Episode {
    /// Time to the next timer when the CPU goes idle, ns.
    sleep_ns: i64,
    /// When the CPU is really woken, ns (== `sleep_ns` for a timer, but
    /// for a late one in the emulated world of `--wake-delay-us`: then
    /// later, unless [`raise_times`] made the lateness `halt_delay_ns`).
    wake_ns: i64,
    src: Src,
    /// Time to the next tick when the CPU goes idle, ns, in (0, TICK_NSEC].
    tick_phase_ns: i64,
    /// The CPU latency QoS limit (`cpu_latency_qos_limit()`), us.
    qos_us: i32,
    /// The state the guest's CPU was in when the episode ended, where a
    /// recorded trace says so.
    guest_state: Option<usize>,
    /// In the emulated world: how much later than `wake_ns` a halted CPU
    /// takes the wake-up's interrupt (a polling one takes it at
    /// `wake_ns`); set by [`raise_times`].
    halt_delay_ns: i64,
}

/// The trace generator: splitmix64 with exponential draws.
type Rng = SplitMix64;

trait Draws {
    fn exp(&mut self, mean_ns: f64) -> i64;
    fn chance(&mut self, p: f64) -> bool;
}

impl Draws for Rng {
    fn exp(&mut self, mean_ns: f64) -> i64 {
        (-(1.0 - self.unit()).ln() * mean_ns) as i64 + 1
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

/// Trace classes: name, seed, generator.
const CLASSES: &[(&str, u64)] = &[
    ("periodic-timer", 0x5eed_0001),
    ("poisson-io", 0x5eed_0002),
    ("ping-pong", 0x5eed_0003),
    ("bursty", 0x5eed_0004),
    ("tick-dominated", 0x5eed_0005),
    ("qos-limited", 0x5eed_0006),
];

fn generate(class: &str, seed: u64, n: usize, t: &Table) -> Vec<Episode> {
    let mut r = SplitMix64(seed);
    let mut out = Vec::with_capacity(n);
    let mut burst = 0;
    let (tick, no_qos) = (Core::tick_nsec(), Core::qos_default_us());
    for i in 0..n {
        let tick_phase_ns = r.range(1, tick);
        let mut e = Episode {
            sleep_ns: 0,
            wake_ns: 0,
            src: Src::Timer,
            tick_phase_ns,
            qos_us: no_qos,
            guest_state: None,
            halt_delay_ns: 0,
        };
        match class {
            "periodic-timer" => {
                // A periodic timer (300 us, 2 ms or 12 ms, changing every
                // 2000 episodes) with 2% jitter; the timer wakes the CPU,
                // now and then an interrupt comes first.
                let period = [300 * US, 2_000 * US, 12_000 * US][(i / 2000) % 3];
                e.sleep_ns = period + r.range(-period / 50, period / 50);
                e.wake_ns = e.sleep_ns;
                if r.chance(0.05) {
                    e.wake_ns = r.range(1, e.sleep_ns);
                    e.src = Src::Irq;
                }
            }
            "poisson-io" | "qos-limited" => {
                // I/O completions with a 50 us, 400 us or 3 ms mean,
                // changing every 2000 episodes; the next timer 10-100 ms
                // away.
                let mean = [50_000.0, 400_000.0, 3_000_000.0][(i / 2000) % 3];
                e.sleep_ns = r.range(10_000 * US, 100_000 * US);
                let w = r.exp(mean);
                if w < e.sleep_ns {
                    e.wake_ns = w;
                    e.src = Src::Irq;
                } else {
                    e.wake_ns = e.sleep_ns;
                }
                if class == "qos-limited" {
                    // a QoS limit at a state's exit latency, changing every
                    // 1000 episodes
                    let k = t.states.len();
                    let s = &t.states[(i / 1000) % k];
                    e.qos_us = (s.exit_latency_ns / US) as i32;
                }
            }
            "ping-pong" => {
                // Two tasks passing a token: short idles ended by the
                // wake-up IPI, housekeeping timers 1-4 ms away.
                e.sleep_ns = r.range(1_000 * US, 4_000 * US);
                e.wake_ns = r.range(5 * US, 40 * US);
                e.src = Src::Irq;
            }
            "bursty" => {
                // Bursts of 20-80 short I/O idles (mean 30 us), then a
                // long idle until a timer 5-50 ms away.
                if burst == 0 {
                    burst = r.range(20, 80);
                    e.sleep_ns = r.range(5_000 * US, 50_000 * US);
                    e.wake_ns = e.sleep_ns;
                } else {
                    burst -= 1;
                    e.sleep_ns = r.range(5_000 * US, 50_000 * US);
                    e.wake_ns = r.exp(30_000.0).min(e.sleep_ns);
                    e.src = Src::Irq;
                }
            }
            _ => {
                // tick-dominated: the next timer is always due with the
                // next tick (jiffy timers), which wakes the CPU.
                e.sleep_ns = tick_phase_ns;
                e.wake_ns = tick_phase_ns;
            }
        }
        out.push(e);
    }
    out
}

/// A recorded trace (scripts/trace2corpus.py): one episode per line,
/// `sleep_us wake_us timer|irq tick_phase_us latency_req_us [state]`,
/// `state` the index of the state the guest's CPU woke from.  A wake-up
/// at or after the timer is the timer's: at the timer (`late` false, the
/// world of core.c, where a timer wakes the CPU on time), or when the
/// guest's CPU really resumed, as recorded (`late`, the emulated world of
/// `--wake-delay-us`, where a timer's interrupt may come late).
///
/// The tick phase is the recorded `delta_next`, the time to the clock
/// event device's next event: the tick's when it comes before the timer.
/// When it does not (`delta_next` at least the sleep length: the next
/// event was the timer), the tick's phase was not recorded; core.c's world
/// puts the tick at the timer then (harmless there: the wake-up wins the
/// tie), the emulated world (`late`), where the tick's delayed interrupt
/// would then end the entry, draws it uniformly from where it can be, after
/// the timer and within a tick ((sleep, TICK_NSEC], or (0, TICK_NSEC] if
/// the sleep length is a tick or more), seed [`TICK_PHASE_SEED`].
fn load_trace(path: &std::path::Path, late: bool) -> Result<Vec<Episode>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    let tick = Core::tick_nsec();
    let mut phases = SplitMix64(TICK_PHASE_SEED);
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let num = |i: usize| -> Result<i64, String> {
            f.get(i)
                .and_then(|v| v.parse::<i64>().ok())
                .ok_or_else(|| format!("{}:{}: bad field {}", path.display(), n + 1, i + 1))
        };
        if f.len() != 5 && f.len() != 6 {
            return Err(format!("{}:{}: want 5 or 6 fields", path.display(), n + 1));
        }
        let guest_state = match f.get(5) {
            None => None,
            Some(v) => Some(
                v.parse::<usize>()
                    .ok()
                    .filter(|&i| i < 10)
                    .ok_or_else(|| format!("{}:{}: bad state {v:?}", path.display(), n + 1))?,
            ),
        };
        let mut src = match f[2] {
            "timer" => Src::Timer,
            "irq" => Src::Irq,
            _ => return Err(format!("{}:{}: bad source", path.display(), n + 1)),
        };
        let (sleep, wake) = (num(0)? * US, num(1)? * US);
        let mut tick_phase_ns = (num(3)? * US).clamp(1, tick);
        if late && num(3)? * US >= sleep {
            tick_phase_ns = if sleep.max(1) < tick {
                phases.range(sleep.max(1) + 1, tick)
            } else {
                phases.range(1, tick)
            };
        }
        // an interrupt at or after the timer: the timer came first
        if wake >= sleep {
            src = Src::Timer;
        }
        out.push(Episode {
            sleep_ns: sleep.max(1),
            wake_ns: if src == Src::Timer {
                if late {
                    wake.max(sleep.max(1))
                } else {
                    sleep.max(1)
                }
            } else {
                wake.clamp(1, sleep.max(1))
            },
            src,
            tick_phase_ns,
            qos_us: num(4)?.clamp(0, i64::from(i32::MAX)) as i32,
            guest_state,
            halt_delay_ns: 0,
        });
    }
    Ok(out)
}

/// The emulated world's late interrupts to a halted CPU, per episode: when
/// the wake-up's interrupt was raised (`wake_ns`) and how much later a
/// halted CPU takes it (`halt_delay_ns`; a polling one takes it at once,
/// src/world.c).  An interrupt (`--irq-delay-us`) reached the guest's CPU
/// `delay_ns` late where that CPU was halted, so an interrupt's episode
/// whose guest state does not poll on `t` was raised `delay_ns` before its
/// recorded wake-up (at least 1 ns after the start), and every interrupt's
/// episode has the delay `delay_ns`.  A timer's wake-up recorded past its
/// expiry with the guest's CPU halted was raised at the expiry: its delay
/// is the lateness.  A state the table does not have is an error.
fn raise_times(eps: &mut [Episode], t: &Table, delay_ns: i64) -> Result<(), String> {
    for (i, e) in eps.iter_mut().enumerate() {
        let Some(s) = e.guest_state else { continue };
        let st = t.states.get(s).ok_or_else(|| {
            format!(
                "episode {}: state {s}, but {} has {} states",
                i + 1,
                t.name,
                t.states.len()
            )
        })?;
        match e.src {
            Src::Irq => {
                if !st.polling {
                    e.wake_ns = (e.wake_ns - delay_ns).max(1);
                }
            }
            Src::Timer => {
                if !st.polling && e.wake_ns > e.sleep_ns {
                    e.halt_delay_ns = e.wake_ns - e.sleep_ns;
                    e.wake_ns = e.sleep_ns;
                }
            }
        }
    }
    for e in eps.iter_mut().filter(|e| e.src == Src::Irq) {
        e.halt_delay_ns = delay_ns;
    }
    Ok(())
}

/// The seed of the tick phases [`load_trace`] draws for `--replay`'s
/// emulated world.
const TICK_PHASE_SEED: u64 = 0x7e1c_0001;

/// A recorded trace of the corpus.
struct Recorded {
    /// `rec-NAME` for `NAME.trace`.
    name: &'static str,
    episodes: Vec<Episode>,
    /// From `corpus/heldout/`: never to be tuned against.
    heldout: bool,
}

/// The `*.trace` files of `dir`, sorted.
fn traces_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    paths.sort();
    paths
}

/// The recorded corpus: `dir/tuning/*.trace` and `dir/heldout/*.trace`
/// (corpus/README), as classes `rec-NAME`.  A trace directly in `dir`
/// belongs to neither set: an error.
fn load_corpus(dir: &str) -> Result<Vec<Recorded>, String> {
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
fn corpus_list(recorded: &[Recorded]) -> Vec<(String, String, u64)> {
    recorded
        .iter()
        .map(|r| {
            let set = if r.heldout { "heldout" } else { "tuning" };
            (set.to_string(), r.name.to_string(), r.episodes.len() as u64)
        })
        .collect()
}

/// Scores of one governor on one trace.
#[derive(Default, Clone, Copy)]
struct Score {
    /// Idle periods of the workload (episodes): the same for every
    /// governor on one trace.
    periods: u64,
    entries: u64,
    above: u64,
    below: u64,
    exact: u64,
    energy: f64,
    oracle_energy: f64,
    irq_wakes: u64,
    irq_latency_ns: f64,
    /// Periods ended by an interrupt other than the timer and the tick,
    /// and their wake-up latency: from the interrupt to the woken task
    /// (the end of the last entry: an emulated delay to a halted CPU, the
    /// exit latency, a poll's last slice; then the restart of a stopped
    /// tick, [`Core::idle_exit_cost`]).
    irq_ends: u64,
    wake_latency_ns: f64,
    /// Too-shallow entries ended by the tick / the polling limit.
    below_tick: u64,
    below_poll: u64,
    /// Energy above the oracle's, by kind of period: one with a too-deep
    /// entry, one with a too-shallow entry (and none too deep), one split
    /// into several entries (neither), one entry (neither).
    excess_by_kind: [f64; 4],
    /// The oracle's entries (one per period) by the kernel's rule, and the
    /// exit latency it pays on interrupt wake-ups.
    oracle_above: u64,
    oracle_below: u64,
    oracle_irq_wakes: u64,
    oracle_irq_latency_ns: f64,
    /// Per state: entries, and the time in it as `cpuidle_enter_state()`
    /// measures it (`time_end - time_start`: the exit latency's spin
    /// included, as the guest's `power:cpu_idle` durations include it).
    state_entries: [u64; STATE_MAX],
    state_ns: [u64; STATE_MAX],
}

/// `CPUIDLE_STATE_MAX`.
const STATE_MAX: usize = 10;

impl Score {
    fn add(&mut self, o: &Score) {
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
    fn of_oracle(&self) -> Score {
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
    fn regret(&self) -> f64 {
        self.energy / self.oracle_energy - 1.0
    }
    /// Too-deep entries per 100 idle periods of the workload.  Per period
    /// rather than per entry: a governor that splits a period into many
    /// entries (polling slices, tick wake-ups) would otherwise dilute its
    /// rate with its own extra entries.
    fn too_deep(&self) -> f64 {
        100.0 * self.above as f64 / self.periods.max(1) as f64
    }
    /// Too-shallow entries per 100 idle periods.
    fn too_shallow(&self) -> f64 {
        100.0 * self.below as f64 / self.periods.max(1) as f64
    }
    /// The kernel counters' ratios: above and below per entry, %.
    fn per_entry(&self) -> (f64, f64) {
        let n = self.entries.max(1) as f64;
        (100.0 * self.above as f64 / n, 100.0 * self.below as f64 / n)
    }
    fn accuracy(&self) -> f64 {
        100.0 * self.exact as f64 / self.entries.max(1) as f64
    }
    fn latency_us(&self) -> f64 {
        self.irq_latency_ns / self.irq_wakes.max(1) as f64 / 1000.0
    }
    /// Mean wake-up latency of the periods an interrupt ended, us (not a
    /// number without one: the oracle's score has none).
    fn wake_latency_us(&self) -> f64 {
        if self.irq_ends == 0 {
            return f64::NAN;
        }
        self.wake_latency_ns / self.irq_ends as f64 / 1000.0
    }
}

/// The deepest state for `idle_ns` of idle time under `qos_ns`.
fn oracle(t: &Table, idle_ns: i64, qos_ns: i64) -> usize {
    deepest_fit(&t.states, idle_ns, qos_ns)
}

/// The deepest of `states` for `idle_ns` of idle time under `qos_ns`
/// ([`oracle`]'s rule, for a governor that keeps the states alone).
fn deepest_fit(states: &[State], idle_ns: i64, qos_ns: i64) -> usize {
    let mut best = 0;
    for (i, s) in states.iter().enumerate() {
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
fn account(states: &[State], disabled: u32, idx: usize, diff: i64) -> (bool, bool) {
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

fn simulate(
    core: &mut Core,
    g: &mut dyn Governor,
    t: &Table,
    class: &str,
    trace: &[Episode],
) -> Score {
    core.init(&t.residencies(), &t.latencies(), &t.flags);
    g.reset(t);
    // SIM_TRACE=governor/table[/class] [SIM_FROM=n SIM_TO=m]: print
    // entries n..m.
    let trace_window = std::env::var("SIM_TRACE")
        .is_ok_and(|v| {
            v == format!("{}/{}", g.name(), t.name)
                || v == format!("{}/{}/{class}", g.name(), t.name)
        })
        .then(|| {
            let n = |k: &str, d: u64| {
                std::env::var(k)
                    .ok()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(d)
            };
            (n("SIM_FROM", 0), n("SIM_TO", 200))
        });
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
            if let Some((from, to)) = trace_window {
                if (from..to).contains(&sc.entries) {
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
            sc.energy += t.model_mw[idx] * e.residency_ns as f64 + t.active_mw * lat as f64;
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
                // the oracle: one entry for the whole period, under the
                // limit the governors were given
                let o = oracle(t, ep.wake_ns, inp.latency_req_ns);
                let os = t.states[o];
                let ol = if os.polling { 0 } else { os.exit_latency_ns };
                let diff = ep.wake_ns + ol;
                let (a, b) = account(&t.states, 0, o, diff);
                sc.oracle_above += u64::from(a);
                sc.oracle_below += u64::from(b);
                let oe = t.model_mw[o] * diff as f64 + t.active_mw * ol as f64;
                sc.oracle_energy += oe;
                let kind = if deep {
                    0
                } else if shallow {
                    1
                } else if sc.entries - entries_before > 1 {
                    2
                } else {
                    3
                };
                sc.excess_by_kind[kind] += sc.energy - energy_before - oe;
                if ep.src == Src::Irq {
                    sc.oracle_irq_wakes += 1;
                    sc.oracle_irq_latency_ns += ol as f64;
                }
                break;
            }
        }
    }
    assert_eq!(core.warnings(), 0, "the kernel's code warned");
    sc
}

const GOVS: &[&str] = &["rteo", "rteo-parity", "teo", "menu"];

fn governor(name: &str) -> Box<dyn Governor> {
    match name {
        "rteo" => Box::new(Rteo::new("rteo", Mode::Default)),
        "rteo-parity" => Box::new(Rteo::new("rteo-parity", Mode::Parity)),
        "teo" => Box::new(CTeo),
        _ => Box::new(CMenu),
    }
}

struct Row {
    gov: &'static str,
    table: &'static str,
    class: &'static str,
    /// A held-out trace.
    heldout: bool,
    /// The trace sets a latency limit that forbids some state of the table.
    qos: bool,
    score: Score,
}

/// The rows scored together.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Set {
    /// The tuning set: synthetic classes and `corpus/tuning/` (`--check`).
    Tuning,
    /// The tuning set without the latency-limited workloads (`overall`).
    NoQos,
    /// The tuning set's latency-limited workloads.
    Qos,
    /// `corpus/heldout/`.
    Heldout,
}

impl Set {
    fn has(self, r: &Row) -> bool {
        match self {
            Set::Tuning => !r.heldout,
            Set::NoQos => !r.heldout && !r.qos,
            Set::Qos => !r.heldout && r.qos,
            Set::Heldout => r.heldout,
        }
    }
}

fn total(rows: &[Row], gov: &str, set: Option<Set>, class: Option<&str>) -> Score {
    let mut s = Score::default();
    for r in rows.iter().filter(|r| {
        r.gov == gov && set.is_none_or(|x| x.has(r)) && class.is_none_or(|c| c == r.class)
    }) {
        s.add(&r.score);
    }
    s
}

/// A governor's score, or the oracle's ("oracle": taken from teo's rows).
fn score_of(rows: &[Row], gov: &str, set: Option<Set>, class: Option<&str>) -> Score {
    if gov == "oracle" {
        total(rows, "teo", set, class).of_oracle()
    } else {
        total(rows, gov, set, class)
    }
}

/// The corpus as the simulator ran it: its results, tables, recorded
/// traces, class names, each table's poll limit, episodes per synthetic
/// trace.
struct Corpus<'a> {
    rows: &'a [Row],
    tabs: &'a [Table],
    recorded: &'a [Recorded],
    classes: &'a [&'static str],
    limits: &'a [(&'static str, u64)],
    episodes: usize,
}

/// The traces of `set`, each with its table, class and the poll limit of
/// the table, as the corpus runs them.
fn set_traces<'t>(
    corpus: &Corpus<'t>,
    set: Set,
) -> Vec<(&'t Table, &'static str, Vec<Episode>, i64)> {
    let Corpus {
        rows,
        tabs,
        recorded,
        classes,
        limits,
        episodes,
    } = *corpus;
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
                Some(&(_, seed)) => generate(class, seed, episodes, t),
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

/// `policy`'s score in the simulator's closed loop ([`bound::PolicyGov`])
/// on `traces`.
fn closed_loop(
    core: &mut Core,
    policy: &bound::Policy,
    k: usize,
    traces: &[(&Table, &'static str, Vec<Episode>, i64)],
) -> Score {
    let mut sc = Score::default();
    for (t, class, trace, _) in traces {
        let mut g = bound::PolicyGov::new(policy.clone(), k);
        sc.add(&simulate(core, &mut g, t, class, trace));
    }
    sc
}

/// `--policy-sweep`: the tuning set's policy per table ([`bound_table`]'s
/// last columns) made at every weight of a grid on too-deep entries,
/// too-shallow first entries and IRQ exit latency, each in the closed loop
/// on the tuning and the held-out sets, with k = 1 and 2 periods of
/// history; then the readings: the weights chosen on the tuning set
/// (the lowest tuning regret within teo's too-deep rate and IRQ exit
/// latency and menu's too-shallow rate, per entry), the best held-out
/// regret within the held-out targets (with hindsight), the lowest
/// held-out regret within teo's too-deep rate and latency, within each
/// alone, and of any setting (with hindsight).
fn policy_sweep(core: &mut Core, corpus: &Corpus) -> String {
    const WEIGHTS: [f64; 4] = [0.0, 0.03, 0.3, 3.0];
    // (regret, too deep per entry, too shallow per entry, latency)
    type Figures = (f64, f64, f64, f64);
    let rows = corpus.rows;
    let traces = |set| set_traces(corpus, set);
    let (tuning, heldout) = (traces(Set::NoQos), traces(Set::Heldout));
    let fig = |s: &Score| -> Figures {
        let (d, sh) = s.per_entry();
        (s.regret(), d / 100.0, sh / 100.0, s.latency_us())
    };
    let fmt = |f: Figures| format!("{:.4} | {:.5} | {:.5} | {:.2}", f.0, f.1, f.2, f.3);
    let (teo_t, menu_t) = (
        fig(&score_of(rows, "teo", Some(Set::NoQos), None)),
        fig(&score_of(rows, "menu", Some(Set::NoQos), None)),
    );
    let (teo_h, menu_h) = (
        fig(&score_of(rows, "teo", Some(Set::Heldout), None)),
        fig(&score_of(rows, "menu", Some(Set::Heldout), None)),
    );
    let mut out = format!(
        "cpuidle-sim --policy-sweep: the tuning set's policy per table in the closed loop; per entry: too deep, too shallow\n\nteo: tuning {}; held out {}\nmenu: tuning {}; held out {}\n\n| k | w deep | w shallow | w latency | tuning regret | too deep | too shallow | IRQ exit latency (us) | held-out regret | too deep | too shallow | IRQ exit latency (us) |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        fmt(teo_t),
        fmt(teo_h),
        fmt(menu_t),
        fmt(menu_h)
    );
    let mut runs = Vec::new();
    for k in [1, 2] {
        let mut ctx = bound::Contexts::default();
        for (t, _, trace, limit) in &tuning {
            ctx.add(t, "", trace, *limit, k);
        }
        for wd in WEIGHTS {
            for ws in WEIGHTS {
                for wl in WEIGHTS {
                    let p = ctx.policy(wd, ws, wl);
                    let (a, b) = (
                        fig(&closed_loop(core, &p, k, &tuning)),
                        fig(&closed_loop(core, &p, k, &heldout)),
                    );
                    let _ = writeln!(
                        out,
                        "| {k} | {wd} | {ws} | {wl} | {} | {} |",
                        fmt(a),
                        fmt(b)
                    );
                    runs.push(((k, wd, ws, wl), a, b));
                }
            }
        }
    }
    let reading = |what: &str, pick: Option<&(_, Figures, Figures)>| match pick {
        Some(&((k, wd, ws, wl), a, b)) => format!(
            "{what}: k {k}, weights {wd}, {ws}, {wl}: tuning {}; held out {} ({:.2} x teo)\n",
            fmt(a),
            fmt(b),
            b.0 / teo_h.0
        ),
        None => format!("{what}: none\n"),
    };
    // every target's side: too deep and latency at most teo's, too
    // shallow at most menu's
    let within =
        |f: &Figures, teo: &Figures, menu: &Figures| f.1 <= teo.1 && f.2 <= menu.2 && f.3 <= teo.3;
    // the lowest regret on the tuning set (`false`) or the held-out set
    // among the runs whose figures there `keep`
    let lowest_with = |heldout: bool, keep: &dyn Fn(&Figures) -> bool| {
        let on = |r: &(_, Figures, Figures)| if heldout { r.2 } else { r.1 };
        runs.iter()
            .filter(|r| keep(&on(r)))
            .min_by(|x, y| on(x).0.total_cmp(&on(y).0))
    };
    let chosen = lowest_with(false, &|f| within(f, &teo_t, &menu_t));
    let best = lowest_with(true, &|f| within(f, &teo_h, &menu_h));
    let deep_lat = lowest_with(true, &|f| f.1 <= teo_h.1 && f.3 <= teo_h.3);
    let deep = lowest_with(true, &|f| f.1 <= teo_h.1);
    let lat = lowest_with(true, &|f| f.3 <= teo_h.3);
    let lowest = lowest_with(true, &|_| true);
    out += &reading(
        "chosen on the tuning set (within teo's too deep and latency, menu's too shallow)",
        chosen,
    );
    out += &reading(
        "best held out within its three targets, with hindsight",
        best,
    );
    out += &reading(
        "lowest held out within teo's too deep and latency, with hindsight",
        deep_lat,
    );
    out += &reading(
        "lowest held out within teo's too deep alone, with hindsight",
        deep,
    );
    out += &reading(
        "lowest held out within teo's latency alone, with hindsight",
        lat,
    );
    out += &reading("lowest held out of any", lowest);
    out
}

/// Most periods of history [`bound_table`] takes as context.
const BOUND_K: usize = 3;

/// `--bound`: what a policy that decides from the sleep length and the
/// last k periods could reach with hindsight (src/bound.rs), per set and
/// k, beside teo, rteo and the timer alone in the simulator: a policy per
/// trace with energy alone, then the lowest regret that keeps too deep
/// and the IRQ exit latency at teo's (energy weighed against both, the
/// weights swept), a policy per trace and one per table for every trace
/// of the set; last, the tuning set's policy per table, on each set, and
/// the same in the simulator's closed loop, where it pays for the tick and
/// decides again after it as a governor would ([`bound::PolicyGov`]).
fn bound_table(core: &mut Core, corpus: &Corpus) -> String {
    let rows = corpus.rows;
    let mut out = String::from(
        "regret / too deep per 100 periods / IRQ exit latency (us); the energy model's optimum: the regret of the cheapest state for every period, clairvoyant\n\n| set | k | teo | rteo | the timer alone | the model's optimum | bound per trace, energy alone | bound per trace, too deep and latency at most teo's | bound per table, the same | per table, made on the tuning set | the same, closed loop |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let fmt = |(r, d, l): (f64, f64, f64)| format!("{r:.4} / {d:.2} / {l:.2}");
    let of = |s: &Score| fmt((s.regret(), s.too_deep(), s.latency_us()));
    let within = |c: &bound::Contexts, teo: &Score| {
        c.best_within(teo.too_deep(), teo.latency_us())
            .map_or("none".to_string(), fmt)
    };
    let mut made: Vec<Option<bound::Policy>> = vec![None; BOUND_K + 1];
    for (name, set) in [
        ("tuning (no QoS limit)", Set::NoQos),
        ("held out", Set::Heldout),
    ] {
        let teo = score_of(rows, "teo", Some(set), None);
        let rteo = score_of(rows, "rteo", Some(set), None);
        let mut timer = Score::default();
        let traces = set_traces(corpus, set);
        for (k, made) in made.iter_mut().enumerate() {
            let (mut per_trace, mut per_table) =
                (bound::Contexts::default(), bound::Contexts::default());
            for (t, class, trace, limit) in &traces {
                per_trace.add(t, class, trace, *limit, k);
                per_table.add(t, "", trace, *limit, k);
                if k == 0 {
                    let mut g = TimerOnly(Vec::new());
                    timer.add(&simulate(core, &mut g, t, class, trace));
                }
            }
            // the tuning set's per-table policy at the weights that keep it
            // within teo's there, then applied to the held-out set
            let made_here = match made {
                None => {
                    *made = per_table
                        .weights_within(teo.too_deep(), teo.latency_us())
                        .map(|(_, wd, wl)| per_table.policy(wd, 0.0, wl));
                    "(made here)".to_string()
                }
                Some(p) => fmt(per_table.apply(p)),
            };
            let closed = made.as_ref().map_or("none".to_string(), |p| {
                of(&closed_loop(core, p, k, &traces))
            });
            let _ = writeln!(
                out,
                "| {name} | {k} | {} | {} | {} | {:.4} | {} | {} | {} | {made_here} | {closed} |",
                of(&teo),
                of(&rteo),
                of(&timer),
                per_trace.cheapest(),
                fmt(per_trace.best(0.0, 0.0)),
                within(&per_trace, &teo),
                within(&per_table, &teo),
            );
        }
    }
    out
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        n as f64 / d as f64
    }
}

/// Every field of a score.  Rates: `*_pct` in % of the entries or per 100
/// periods (as the tables), `*_per_entry` and `*_per_period` as plain
/// ratios.
fn score_json(s: &Score) -> String {
    format!(
        "\"energy_regret\": {}, \"too_deep_pct\": {}, \"too_shallow_pct\": {}, \"above_per_entry_pct\": {}, \"below_per_entry_pct\": {}, \"too_deep_per_entry\": {}, \"too_shallow_per_entry\": {}, \"too_deep_per_period\": {}, \"too_shallow_per_period\": {}, \"exact_pct\": {}, \"irq_exit_latency_us\": {}, \"irq_wakes\": {}, \"irq_wake_latency_us\": {}, \"irq_ends\": {}, \"periods\": {}, \"entries\": {}, \"energy_mj\": {}, \"oracle_energy_mj\": {}",
        json_num(s.regret()),
        json_num(s.too_deep()),
        json_num(s.too_shallow()),
        json_num(s.per_entry().0),
        json_num(s.per_entry().1),
        json_num(ratio(s.above, s.entries)),
        json_num(ratio(s.below, s.entries)),
        json_num(ratio(s.above, s.periods)),
        json_num(ratio(s.below, s.periods)),
        json_num(s.accuracy()),
        json_num(s.latency_us()),
        s.irq_wakes,
        json_num(s.wake_latency_us()),
        s.irq_ends,
        s.periods,
        s.entries,
        json_num(s.energy / 1e12),
        json_num(s.oracle_energy / 1e12)
    )
}

/// The held-out block's fields.
fn heldout_json(s: &Score) -> String {
    format!(
        "\"energy_regret\": {}, \"too_deep_per_entry\": {}, \"too_shallow_per_entry\": {}, \"irq_exit_latency_us\": {}, \"too_deep_per_period\": {}, \"too_shallow_per_period\": {}, \"periods\": {}, \"entries\": {}",
        json_num(s.regret()),
        json_num(ratio(s.above, s.entries)),
        json_num(ratio(s.below, s.entries)),
        json_num(s.latency_us()),
        json_num(ratio(s.above, s.periods)),
        json_num(ratio(s.below, s.periods)),
        s.periods,
        s.entries
    )
}

/// rteo's targets on one set (README.md, "The bar"), in the order of
/// [`bar::METRICS`]: its value and the bound from the kernel's governors.
fn targets_of(rows: &[Row], set: Set, name: &str) -> Vec<bar::Target> {
    let of = |g: &str| total(rows, g, Some(set), None);
    let (r, teo, menu) = (of("rteo"), of("teo"), of("menu"));
    bar::METRICS
        .iter()
        .map(|m| {
            let (rteo, bound) = match m.key {
                "energy_regret" => (r.regret(), 0.5 * teo.regret()),
                "too_deep_per_entry" => (ratio(r.above, r.entries), ratio(teo.above, teo.entries)),
                "too_shallow_per_entry" => {
                    (ratio(r.below, r.entries), ratio(menu.below, menu.entries))
                }
                "irq_exit_latency_us" => (r.latency_us(), teo.latency_us()),
                k => unreachable!("no target {k}"),
            };
            bar::Target {
                set: name.to_string(),
                key: m.key.to_string(),
                rteo,
                bound,
            }
        })
        .collect()
}

/// What parity mode must share with teo.c on a run: every count and sum
/// of the score (the same decisions give the same sums, to the bit).
fn parity_key(s: &Score) -> impl PartialEq + use<> {
    (
        (s.periods, s.entries, s.above, s.below, s.exact),
        (s.energy.to_bits(), s.oracle_energy.to_bits()),
        (s.irq_wakes, s.irq_latency_ns.to_bits()),
        (s.irq_ends, s.wake_latency_ns.to_bits()),
        (s.below_tick, s.below_poll),
        (s.state_entries, s.state_ns),
    )
}

/// The governors and the oracle, for the blocks and tables.
const ALL: &[&str] = &["rteo", "rteo-parity", "teo", "menu", "oracle"];

/// A markdown table of one set.
fn set_table(rows: &[Row], set: Set) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| governor | energy regret vs oracle | too deep (per 100 periods) | too shallow (per 100 periods) | above / below per entry % | exact state % | exit latency on IRQ wake-ups (us) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for &g in ALL {
        let s = score_of(rows, g, Some(set), None);
        let (a, b) = s.per_entry();
        let _ = writeln!(
            out,
            "| {g} | {:.4} | {:.2} | {:.2} | {a:.2} / {b:.2} | {:.1} | {:.2} |",
            if g == "oracle" { 0.0 } else { s.regret() },
            s.too_deep(),
            s.too_shallow(),
            s.accuracy(),
            s.latency_us()
        );
    }
    out
}

/// `--replay`: one recorded trace, closed loop as [`simulate`] runs every
/// trace, with one governor on one table; what the guest's tracepoints
/// measure of the same run (scripts/fidelity.py compares the two).
struct Replay {
    trace: String,
    table: Table,
    gov: &'static str,
    wake_delay_ns: Option<i64>,
    irq_delay_ns: i64,
    /// The idle loop's costs, ns: deciding, stopping the tick, restarting
    /// it ([`Core::set_tick_costs`]).
    tick_costs_ns: [i64; 3],
    relax_ns: u64,
    score: Score,
    /// The energy model's optimum for the trace's periods as the guest
    /// recorded them ([`bound::cheapest_entry`] summed), in the unit of
    /// [`Score::energy`] (mW x ns), and the oracle's energy for them: each
    /// period as long as the guest was idle, a wake-up past the sleep
    /// length included (the emulated world's reading of the trace, whatever
    /// the world of the replay), so that they are what the guest's own
    /// entries of the trace are compared with.
    optimum_energy: f64,
    oracle_energy: f64,
}

impl Replay {
    /// `wake_delay_ns`: `Some`, the emulated world (src/world.c) with the
    /// tick's wake-up delay and the recorded late wake-ups, and an
    /// interrupt's delay to a halted CPU of `irq_delay_ns` ([`raise_times`]);
    /// `None`, core.c's world, as the corpus simulation runs (then
    /// `irq_delay_ns` and `tick_costs_ns` must be 0).
    #[allow(clippy::too_many_arguments)]
    fn run(
        core: &mut Core,
        trace: &str,
        table: Table,
        gov: &'static str,
        wake_delay_ns: Option<i64>,
        irq_delay_ns: i64,
        tick_costs_ns: [i64; 3],
        relax_ns: u64,
    ) -> Result<Self, String> {
        if wake_delay_ns.is_none() && tick_costs_ns != [0; 3] {
            return Err("the idle loop's costs need the emulated world".into());
        }
        let mut episodes = load_trace(std::path::Path::new(trace), wake_delay_ns.is_some())?;
        if episodes.is_empty() {
            return Err(format!("{trace}: no episodes"));
        }
        if irq_delay_ns != 0 && wake_delay_ns.is_none() {
            return Err("an interrupt delay needs the emulated world".into());
        }
        if wake_delay_ns.is_some() {
            raise_times(&mut episodes, &table, irq_delay_ns)
                .map_err(|e| format!("{trace}: {e}"))?;
        }
        let mut g = governor(gov);
        core.set_relax_ns(relax_ns);
        core.set_emulated(wake_delay_ns);
        let [decide, stop, restart] = tick_costs_ns;
        core.set_tick_costs(decide, stop, restart);
        let score = simulate(core, g.as_mut(), &table, "replay", &episodes);
        core.set_emulated(None);
        let recorded = load_trace(std::path::Path::new(trace), true)?;
        let optimum_energy = recorded
            .iter()
            .map(|e| bound::cheapest_entry(&table, e))
            .sum();
        let oracle_energy = recorded
            .iter()
            .map(|e| bound::oracle_energy(&table, e, i64::from(e.qos_us) * US))
            .sum();
        Ok(Self {
            trace: trace.to_string(),
            table,
            gov,
            wake_delay_ns,
            irq_delay_ns,
            tick_costs_ns,
            relax_ns,
            score,
            optimum_energy,
            oracle_energy,
        })
    }

    /// Each state's share of the time in states (the exit latency's spin
    /// included).
    fn shares(&self) -> Vec<f64> {
        let n = self.table.states.len();
        let total: u64 = self.score.state_ns[..n].iter().sum();
        self.score.state_ns[..n]
            .iter()
            .map(|&t| t as f64 / total.max(1) as f64)
            .collect()
    }

    fn text(&self) -> String {
        let s = &self.score;
        let shares = self
            .shares()
            .iter()
            .enumerate()
            .map(|(i, x)| format!("s{i} {x:.4}"))
            .collect::<Vec<_>>()
            .join(", ");
        format!(
            "replay {} on {} with {} ({}): {} periods, {} entries, above per entry {:.4}, below per entry {:.4}, share of idle time {shares}, interrupt wake-up latency {:.1} us, energy {:.0} uJ (the energy model's optimum for its periods {:.0} uJ)\n",
            self.trace,
            self.table.name,
            self.gov,
            self.world(),
            s.periods,
            s.entries,
            ratio(s.above, s.entries),
            ratio(s.below, s.entries),
            s.wake_latency_us(),
            s.energy / 1e6,
            self.optimum_energy / 1e6
        )
    }

    fn world(&self) -> String {
        match self.wake_delay_ns {
            Some(d) => format!(
                "emulated world, wake-up delay {} us, interrupt delay {} us, tick costs {} us",
                d / US,
                self.irq_delay_ns / US,
                self.tick_costs_ns
                    .map(|c| c / US)
                    .map(|c| c.to_string())
                    .join(",")
            ),
            None => "core.c's world".into(),
        }
    }

    fn json(&self) -> String {
        let s = &self.score;
        let n = self.table.states.len();
        let per_state = |v: &dyn Fn(usize) -> String| {
            (0..n)
                .map(|i| format!("\"s{i}\": {}", v(i)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let shares = self.shares();
        format!(
            "{{\n  \"trace\": \"{}\",\n  \"table\": \"{}\",\n  \"governor\": \"{}\",\n  \"wake_delay_us\": {},\n  \"irq_delay_us\": {},\n  \"tick_costs_us\": [{}],\n  \"relax_ns\": {},\n  \"irq_wake_latency_us\": {},\n  \"irq_ends\": {},\n  \"periods\": {},\n  \"entries\": {},\n  \"above\": {},\n  \"below\": {},\n  \"above_per_entry\": {},\n  \"below_per_entry\": {},\n  \"share\": {{ {} }},\n  \"state_entries\": {{ {} }},\n  \"state_time_ns\": {{ {} }},\n  \"exit_latency_ns\": {{ {} }},\n  \"target_residency_ns\": {{ {} }},\n  \"model_mw\": {{ {} }},\n  \"active_mw\": {},\n  \"energy_uj\": {},\n  \"oracle_energy_uj\": {},\n  \"optimum_energy_uj\": {}\n}}\n",
            self.trace.replace('\\', "\\\\").replace('"', "\\\""),
            self.table.name,
            self.gov,
            self.wake_delay_ns
                .map_or("null".to_string(), |d| (d / US).to_string()),
            self.irq_delay_ns / US,
            self.tick_costs_ns.map(|c| (c / US).to_string()).join(", "),
            self.relax_ns,
            json_num(s.wake_latency_us()),
            s.irq_ends,
            s.periods,
            s.entries,
            s.above,
            s.below,
            json_num(ratio(s.above, s.entries)),
            json_num(ratio(s.below, s.entries)),
            per_state(&|i| json_num(shares[i])),
            per_state(&|i| s.state_entries[i].to_string()),
            per_state(&|i| s.state_ns[i].to_string()),
            per_state(&|i| self.table.states[i].exit_latency_ns.to_string()),
            per_state(&|i| self.table.states[i].target_residency_ns.to_string()),
            per_state(&|i| json_num(self.table.model_mw[i])),
            json_num(self.table.active_mw),
            json_num(s.energy / 1e6),
            json_num(self.oracle_energy / 1e6),
            json_num(self.optimum_energy / 1e6),
        )
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let mut episodes = 12_000usize;
    let (mut json, mut md, mut check) = (None, None, false);
    let mut relax_ns = 1u64;
    let mut exact_poll = false;
    let mut bound = false;
    let mut policy_sweep_on = false;
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
            "--policy-sweep" => {
                policy_sweep_on = true;
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
                    "cpuidle-sim: {} is gone: scripts/sim-plots.py draws the plots from --json",
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

    if bound
        && (check || json.is_some() || md.is_some() || write_baseline.is_some() || replay.is_some())
    {
        eprintln!(
            "cpuidle-sim: --bound prints its table alone (no --check, --json, --md, --write-baseline, --replay)"
        );
        return ExitCode::from(2);
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
    let recorded = match load_corpus(&corpus) {
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
    let mut rows = Vec::new();
    for t in &tabs {
        for &class in &class_names {
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
                let score = simulate(&mut core, gov.as_mut(), t, class, &trace);
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
    // the reports of the information bound's policies, in place of the
    // corpus tables
    let report: Option<fn(&mut Core, &Corpus) -> String> = if policy_sweep_on {
        Some(policy_sweep)
    } else if bound {
        Some(bound_table)
    } else {
        None
    };
    if let Some(report) = report {
        let corpus = Corpus {
            rows: &rows,
            tabs: &tabs,
            recorded: &recorded,
            classes: &class_names,
            limits: &limits,
            episodes,
        };
        print!("{}", report(&mut core, &corpus));
        return ExitCode::SUCCESS;
    }
    // (held out, QoS-limited on some table)
    let class_flags = |c: &str| {
        (
            rows.iter().any(|r| r.class == c && r.heldout),
            rows.iter().any(|r| r.class == c && r.qos),
        )
    };

    // SIM_BREAKDOWN=1: where the too-shallow entries come from, and the
    // energy regret by kind of period (per run, then per set)
    if std::env::var_os("SIM_BREAKDOWN").is_some() {
        let kinds = |s: &Score| {
            let k = s.excess_by_kind.map(|x| x / s.oracle_energy);
            format!(
                "regret {:.4} = too deep {:.4} + too shallow {:.4} + split {:.4} + one entry {:.4}",
                s.regret(),
                k[0],
                k[1],
                k[2],
                k[3]
            )
        };
        for r in &rows {
            let s = &r.score;
            eprintln!(
                "{:18} {:15} {:12} above {:7} below {:8} (tick {:8}, poll limit {:8}, wake-up {:7}) {}",
                r.table,
                r.class,
                r.gov,
                s.above,
                s.below,
                s.below_tick,
                s.below_poll,
                s.below - s.below_tick - s.below_poll,
                kinds(s)
            );
        }
        for (name, set) in [
            ("tuning (no QoS limit)", Set::NoQos),
            ("held out", Set::Heldout),
        ] {
            for g in GOVS {
                eprintln!(
                    "{name:22} {g:12} {}",
                    kinds(&score_of(&rows, g, Some(set), None))
                );
            }
        }
    }

    // rteo in parity mode must score exactly as teo.c: same decisions, on
    // every run of every set.  Per set: (runs, runs that differ).
    let mut parity = [
        ("tuning", Set::NoQos, 0, 0),
        ("QoS-limited", Set::Qos, 0, 0),
        ("held-out", Set::Heldout, 0, 0),
    ];
    for r in rows.iter().filter(|r| r.gov == "rteo-parity") {
        let teo = rows
            .iter()
            .find(|x| x.gov == "teo" && x.table == r.table && x.class == r.class)
            .map(|x| x.score);
        let same = teo.is_some_and(|t| parity_key(&t) == parity_key(&r.score));
        if !same {
            eprintln!(
                "cpuidle-sim: rteo-parity differs from teo on {}/{}",
                r.table, r.class
            );
        }
        for p in parity.iter_mut().filter(|p| p.1.has(r)) {
            p.2 += 1;
            p.3 += usize::from(!same);
        }
    }
    let parity_ok = parity.iter().all(|p| p.3 == 0);
    let bar_now = bar::Bar {
        episodes: episodes as u64,
        relax_ns,
        rules: u64::from(RULES.load(std::sync::atomic::Ordering::Relaxed)),
        corpus: corpus_list(&recorded),
        targets: [("heldout", Set::Heldout), ("tuning", Set::Tuning)]
            .iter()
            .flat_map(|&(name, set)| targets_of(&rows, set, name))
            .collect(),
    };

    // the headline: the tuning set, the population of --check
    let headline = set_table(&rows, Set::Tuning);
    print!("{headline}");

    let mut per_class = String::new();
    let _ = writeln!(
        per_class,
        "| class | set | governor | energy regret | too deep /100 periods | too shallow /100 periods | above / below per entry % | exact % | IRQ exit latency (us) |"
    );
    let _ = writeln!(per_class, "|---|---|---|---|---|---|---|---|---|");
    for &c in &class_names {
        let (h, q) = class_flags(c);
        let set = match (h, q) {
            (true, _) => "held out",
            (false, true) => "tuning, QoS-limited",
            _ => "tuning",
        };
        for &g in ALL {
            let s = score_of(&rows, g, None, Some(c));
            let (a, b) = s.per_entry();
            let _ = writeln!(
                per_class,
                "| {c} | {set} | {g} | {:.4} | {:.2} | {:.2} | {a:.2} / {b:.2} | {:.1} | {:.2} |",
                if g == "oracle" { 0.0 } else { s.regret() },
                s.too_deep(),
                s.too_shallow(),
                s.accuracy(),
                s.latency_us()
            );
        }
    }
    let mut per_table = String::new();
    let _ = writeln!(
        per_table,
        "| table | class | governor | energy regret | too deep /100 periods | too shallow /100 periods | exact % |"
    );
    let _ = writeln!(per_table, "|---|---|---|---|---|---|---|");
    for r in &rows {
        let s = r.score;
        let _ = writeln!(
            per_table,
            "| {} | {} | {} | {:.4} | {:.2} | {:.2} | {:.1} |",
            r.table,
            r.class,
            r.gov,
            s.regret(),
            s.too_deep(),
            s.too_shallow(),
            s.accuracy()
        );
    }
    let limits_text = limits
        .iter()
        .map(|(t, l)| format!("{t} {} us", *l as f64 / 1000.0))
        .collect::<Vec<_>>()
        .join(", ");
    let names_of = |h: bool| {
        recorded
            .iter()
            .filter(|r| r.heldout == h)
            .map(|r| format!("{}: {} episodes", r.name, r.episodes.len()))
            .collect::<Vec<_>>()
            .join(", ")
    };

    if let Some(path) = &md {
        let cmd = args.join(" ");
        let mut m = String::new();
        let _ = writeln!(m, "## Simulator (host, `{cmd}`)\n");
        let _ = writeln!(
            m,
            "{episodes} episodes per synthetic trace ({} classes, seeds fixed in tools/cpuidle-sim), recorded traces for tuning ({}) and held out ({}), x {} tables. Polling limit (`cpuidle_poll_time()` of the tree): {limits_text}; one `cpu_relax()` = {relax_ns} ns{}.\n",
            CLASSES.len(),
            names_of(false),
            names_of(true),
            tabs.len(),
            if exact_poll {
                ", the tree's poll_idle() loop"
            } else {
                ""
            }
        );
        let _ = writeln!(
            m,
            "### Tuning set (synthetic classes and corpus/tuning; the `--check` population)\n\n{headline}"
        );
        let _ = writeln!(
            m,
            "### Tuning set without latency limits\n\n{}",
            set_table(&rows, Set::NoQos)
        );
        let _ = writeln!(
            m,
            "### QoS-limited workloads (a latency limit forbids some state)\n\n{}",
            set_table(&rows, Set::Qos)
        );
        let _ = writeln!(
            m,
            "### Held out (corpus/heldout)\n\n{}",
            set_table(&rows, Set::Heldout)
        );
        let _ = writeln!(m, "### Per trace class\n\n{per_class}");
        let _ = writeln!(m, "### Per table and class\n\n{per_table}");
        if let Err(e) = std::fs::write(path, m) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(path) = &json {
        let mut j = String::new();
        let _ = writeln!(
            j,
            "{{\n  \"episodes_per_trace\": {episodes},\n  \"relax_ns\": {relax_ns},\n  \"exact_poll\": {exact_poll},"
        );
        let _ = writeln!(
            j,
            "  \"poll_limit_ns\": {{ {} }},",
            limits
                .iter()
                .map(|(t, l)| format!("\"{t}\": {l}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let list = |h: bool| {
            recorded
                .iter()
                .filter(|r| r.heldout == h)
                .map(|r| format!("\"{}\"", r.name))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(
            j,
            "  \"corpus\": {{ \"tuning\": [{}], \"heldout\": [{}] }},",
            list(false),
            list(true)
        );
        for (key, set) in [
            ("overall", Set::NoQos),
            ("qos_limited", Set::Qos),
            ("tuning", Set::Tuning),
        ] {
            let _ = writeln!(j, "  \"{key}\": {{");
            for (k, &g) in ALL.iter().enumerate() {
                let sep = if k + 1 < ALL.len() { "," } else { "" };
                let _ = writeln!(
                    j,
                    "    \"{g}\": {{ {} }}{sep}",
                    score_json(&score_of(&rows, g, Some(set), None))
                );
            }
            let _ = writeln!(j, "  }},");
        }
        let _ = writeln!(j, "  \"heldout\": {{");
        let hg = ["rteo", "teo", "menu", "oracle"];
        for (k, &g) in hg.iter().enumerate() {
            let sep = if k + 1 < hg.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "    \"{g}\": {{ {} }}{sep}",
                heldout_json(&score_of(&rows, g, Some(Set::Heldout), None))
            );
        }
        let _ = writeln!(j, "  }},\n  \"targets\": {{");
        for (k, (set, _)) in bar::SETS.iter().enumerate() {
            let sep = if k + 1 < bar::SETS.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "    \"{set}\": {}{sep}",
                bar::set_json(&bar_now.targets, set, "    ")
            );
        }
        let _ = writeln!(j, "  }},\n  \"per_class\": [");
        let mut first = true;
        for &c in &class_names {
            let (h, q) = class_flags(c);
            for &g in ALL {
                let _ = write!(j, "{}", if first { "" } else { ",\n" });
                first = false;
                let _ = write!(
                    j,
                    "    {{ \"class\": \"{c}\", \"governor\": \"{g}\", \"heldout\": {h}, \"qos_limited\": {q}, {} }}",
                    score_json(&score_of(&rows, g, None, Some(c)))
                );
            }
        }
        let _ = writeln!(j, "\n  ],\n  \"per_table_class\": [");
        let mut first = true;
        for r in &rows {
            let mut emit = |g: &str, s: &Score| {
                let _ = write!(j, "{}", if first { "" } else { ",\n" });
                first = false;
                let _ = write!(
                    j,
                    "    {{ \"table\": \"{}\", \"class\": \"{}\", \"governor\": \"{g}\", \"heldout\": {}, \"qos_limited\": {}, {} }}",
                    r.table,
                    r.class,
                    r.heldout,
                    r.qos,
                    score_json(s)
                );
            };
            emit(r.gov, &r.score);
            if r.gov == "teo" {
                emit("oracle", &r.score.of_oracle());
            }
        }
        let _ = writeln!(j, "\n  ]\n}}");
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
    // The bar (README.md, "The bar").  Hard: parity mode scores as teo.c.
    println!(
        "sim check: parity: rteo-parity scores exactly as teo on every run: {}: {}",
        parity
            .iter()
            .map(|p| format!(
                "{} {} runs{}",
                p.0,
                p.2,
                if p.3 > 0 {
                    format!(" ({} differ)", p.3)
                } else {
                    String::new()
                }
            ))
            .collect::<Vec<_>>()
            .join(", "),
        if parity_ok { "ok" } else { "FAILED" }
    );
    // The documented targets on the held-out set, and the same on the
    // tuning set: shown, then held to the baseline.
    for t in &bar_now.targets {
        let what = if t.set == "heldout" {
            "target"
        } else {
            "tuning target"
        };
        println!("sim {what}: {}", t.line());
    }
    if let Some(path) = &write_baseline {
        if !parity_ok {
            println!("sim baseline: not written: parity mode differs from teo");
            return ExitCode::FAILURE;
        }
        let text = match bar_now.to_json() {
            Ok(t) => t,
            Err(e) => {
                println!("sim baseline: not written: {e}");
                return ExitCode::FAILURE;
            }
        };
        match std::fs::read_to_string(path).map(|t| bar::Bar::parse(&t)) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                println!("sim baseline: {path} is new")
            }
            Err(e) => println!("sim baseline: {path} unreadable ({e}): replaced"),
            Ok(Err(e)) => println!("sim baseline: {path} was malformed ({e}): replaced"),
            Ok(Ok(old)) => {
                let changes = bar_now.changes(&old);
                if changes.is_empty() {
                    println!("sim baseline: no change against {path}");
                }
                for c in changes {
                    println!("sim baseline: changed: {c}");
                }
            }
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
        println!("sim baseline: wrote {path}");
        return ExitCode::SUCCESS;
    }
    // The ratchet: no target the baseline has met missed, none of rteo's
    // values worse than the baseline's.
    let ratchet_ok = match bar::Bar::load(&baseline) {
        Err(e) => {
            println!("sim ratchet: FAILED: {e}");
            false
        }
        Ok(base) => {
            let v = bar::ratchet(&base, &bar_now);
            for b in &v.better {
                println!("sim ratchet: better than baseline: {b}: update with --write-baseline");
            }
            for f in &v.fails {
                println!("sim ratchet: FAIL: {f}");
            }
            let met = |b: &bar::Bar, set: &str| {
                b.targets.iter().filter(|t| t.set == set && t.met()).count()
            };
            println!(
                "sim ratchet: {} values against {baseline} (tolerance {} %), targets met: held-out {} of {n} (baseline {}), tuning {} of {n} (baseline {}): {}",
                bar_now.targets.len(),
                100.0 * bar::REL_TOL,
                met(&bar_now, "heldout"),
                met(&base, "heldout"),
                met(&bar_now, "tuning"),
                met(&base, "tuning"),
                if v.fails.is_empty() { "ok" } else { "FAILED" },
                n = bar::METRICS.len()
            );
            v.fails.is_empty()
        }
    };
    if parity_ok && ratchet_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The time-scaled tables, `--replay` and its emulated world.
#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-made trace in a file of its own.
    fn trace_file(name: &str, lines: &[&str]) -> String {
        let p = std::env::temp_dir().join(format!(
            "cpuidle-sim-test-{}-{name}.trace",
            std::process::id()
        ));
        let mut text = String::from("# sleep_us wake_us src tick_phase_us latency_req_us\n");
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    }

    /// A governor of given decisions, one per query, in turn.
    struct Fixed(Vec<(usize, bool)>, usize);

    impl Governor for Fixed {
        fn name(&self) -> &'static str {
            "fixed"
        }
        fn reset(&mut self, _t: &Table) {
            self.1 = 0;
        }
        fn select(&mut self, _q: &Query) -> (usize, bool) {
            self.1 += 1;
            self.0[(self.1 - 1) % self.0.len()]
        }
        fn poll_time_limit(&self) -> bool {
            false
        }
        fn wakeup(&mut self, _idx: usize, _r: u64, _ptl: bool, _tick: bool) {}
    }

    /// Each entry's (state, end) of `trace` under `g`, in core.c's world
    /// (`None`) or the emulated one.
    fn entries(trace: &str, t: &Table, g: &mut dyn Governor, delay: Option<i64>) -> Score {
        let mut core = Core::lock();
        core.set_relax_ns(1);
        core.set_exact_poll(false);
        core.set_emulated(delay);
        let eps = load_trace(std::path::Path::new(trace), delay.is_some()).unwrap();
        let s = simulate(&mut core, g, t, "test", &eps);
        core.set_emulated(None);
        s
    }

    /// `trace` in the emulated world with no tick delay and an interrupt
    /// delay of `irq_delay_ns` ([`raise_times`]), state `state` chosen
    /// every time with the tick stopped: the episodes as raised, the score.
    fn emulated_in(
        trace: &str,
        t: &Table,
        state: usize,
        irq_delay_ns: i64,
    ) -> (Vec<Episode>, Score) {
        let mut core = Core::lock();
        core.set_relax_ns(1);
        core.set_exact_poll(false);
        core.set_emulated(Some(0));
        let mut eps = load_trace(std::path::Path::new(trace), true).unwrap();
        raise_times(&mut eps, t, irq_delay_ns).unwrap();
        let s = simulate(
            &mut core,
            &mut Fixed(vec![(state, true)], 0),
            t,
            "test",
            &eps,
        );
        core.set_emulated(None);
        (eps, s)
    }

    /// The regret by kind of period: Armada 370 (WFI, Deep Idle: 1 ms
    /// residency, 100 us exit latency), the tick stopped, the deep state
    /// for a 200 us interrupt (too deep), WFI for a 5 ms timer (too
    /// shallow), the deep state for a 3 ms timer (the oracle's choice).
    #[test]
    fn regret_splits_by_kind_of_period() {
        let t = table_named("mvebu-370").unwrap();
        let tr = trace_file(
            "kinds",
            &[
                "50000 200 irq 4000 2000000000",
                "5000 5000 timer 4000 2000000000",
                "3000 3000 timer 4000 2000000000",
            ],
        );
        let s = entries(
            &tr,
            &t,
            &mut Fixed(vec![(1, true), (0, true), (1, true)], 0),
            None,
        );
        let _ = std::fs::remove_file(&tr);
        let [deep, shallow, split, one] = s.excess_by_kind;
        assert!(deep > 0.0 && shallow > 0.0, "{:?}", s.excess_by_kind);
        assert_eq!((split, one), (0.0, 0.0));
        // the kinds add up to the energy above the oracle's
        let sum: f64 = s.excess_by_kind.iter().sum();
        assert!((sum - (s.energy - s.oracle_energy)).abs() < 1e-6 * s.energy);
        // WFI for 5 ms costs more above the oracle than 100 us of exit
        // latency at active power and 200 us in the deep state
        assert!(shallow > deep);
    }

    #[test]
    fn scaled_table_multiplies_latency_and_residency() {
        let base = table_named("x86-like").unwrap();
        let x10 = table_named("x86-like-x10").unwrap();
        assert_eq!(x10.name, "x86-like-x10");
        assert_eq!(base.states.len(), 4);
        assert_eq!(x10.states.len(), base.states.len());
        for (b, s) in base.states.iter().zip(&x10.states) {
            assert_eq!(s.exit_latency_ns, 10 * b.exit_latency_ns);
            assert_eq!(s.target_residency_ns, 10 * b.target_residency_ns);
            assert_eq!(s.polling, b.polling);
        }
        assert_eq!(
            (x10.flags.clone(), x10.model_mw.clone()),
            (base.flags, base.model_mw)
        );
        assert_eq!(x10.active_mw, base.active_mw);
        // the numbers of the guest's x86-like-x10 (its BENCH-META lines)
        assert_eq!(x10.latencies(), [0, 20_000, 100_000, 1_330_000]);
        assert_eq!(x10.residencies(), [0, 20_000, 200_000, 6_000_000]);
        // every table, as the emulated-state driver's scale=N registers it
        for t in cpuidle_tables::TABLES
            .iter()
            .chain(cpuidle_tables::SEED_TABLES)
        {
            let s = table_named(&format!("{}-x1000", t.name)).unwrap();
            for (spec, st) in t.states.iter().zip(&s.states) {
                assert_eq!(
                    st.exit_latency_ns,
                    i64::from(spec.exit_latency_us * 1000) * US
                );
                assert_eq!(
                    st.target_residency_ns,
                    i64::from(spec.target_residency_us * 1000) * US
                );
            }
        }
        for bad in ["x86-like-x0", "x86-like-x1001", "nosuch-x10", "x86-like-x"] {
            assert!(table_named(bad).is_err(), "{bad}");
        }
    }

    /// The energy of a scaled table: the residency at the state's power
    /// plus the scaled exit latency at active power.
    #[test]
    fn scaled_table_energy_charges_the_scaled_latency() {
        let trace = trace_file("energy", &["100000 3000 irq 4000 2000000000"]);
        for name in ["x86-like", "x86-like-x10"] {
            let t = table_named(name).unwrap();
            for k in 1..t.states.len() {
                let s = entries(&trace, &t, &mut Fixed(vec![(k, true)], 0), None);
                let lat = t.states[k].exit_latency_ns;
                assert_eq!(s.entries, 1);
                // the tick stopped: halted until the wake-up, then the exit
                // latency
                assert_eq!(s.state_ns[k], (3_000 * US + lat) as u64);
                let want = t.model_mw[k] * (3_000 * US + lat) as f64 + t.active_mw * lat as f64;
                assert!(
                    (s.energy - want).abs() < 1e-6,
                    "{name} s{k}: {} vs {want}",
                    s.energy
                );
            }
        }
        let (b, x) = (
            table_named("x86-like").unwrap(),
            table_named("x86-like-x10").unwrap(),
        );
        let e = |t: &Table| entries(&trace, t, &mut Fixed(vec![(3, true)], 0), None).energy;
        // C6: 133 us at 3000 mW, scaled 1330 us; residency 3133 / 4330 us
        // at 100 mW
        assert!((e(&b) - (100.0 * 3_133_000.0 + 3000.0 * 133_000.0)).abs() < 1e-3);
        assert!((e(&x) - (100.0 * 4_330_000.0 + 3000.0 * 1_330_000.0)).abs() < 1e-3);
        std::fs::remove_file(trace).unwrap();
    }

    /// A hand-made trace through the decisions given: the entries,
    /// `cpuidle_enter_state()`'s above and below, and the shares of time
    /// in state, worked out by hand.
    #[test]
    fn replay_counts_as_the_kernel_with_known_outcome() {
        let t = table_named("x86-like-x10").unwrap();
        // exit latencies 0/20/100/1330 us, residencies 0/20/200/6000 us
        let trace = trace_file(
            "known",
            &[
                // C6 for 50 us: 1380 us < 6000 us, C1E was enabled: above
                "100000 50 irq 4000 2000000000",
                // C1 for 10 ms: 10020 - 20 >= 200 (C1E): below
                "100000 10000 irq 4000 2000000000",
                // C1E for 300 us: 400 >= 200, 300 < 6000: neither
                "100000 300 irq 4000 2000000000",
            ],
        );
        let s = entries(
            &trace,
            &t,
            &mut Fixed(vec![(3, true), (1, true), (2, true)], 0),
            None,
        );
        assert_eq!((s.periods, s.entries, s.above, s.below), (3, 3, 1, 1));
        assert_eq!(
            s.state_ns[..4],
            [0, 10_020 * US as u64, 400 * US as u64, 1_380 * US as u64]
        );
        let total = (10_020 + 400 + 1_380) as f64;
        let r = Replay {
            trace: trace.clone(),
            table: t,
            gov: "fixed",
            wake_delay_ns: None,
            irq_delay_ns: 0,
            tick_costs_ns: [0; 3],
            relax_ns: 1,
            score: s,
            optimum_energy: 0.0,
            oracle_energy: 0.0,
        };
        let sh = r.shares();
        for (i, want) in [0.0, 10_020.0 / total, 400.0 / total, 1_380.0 / total]
            .iter()
            .enumerate()
        {
            assert!((sh[i] - want).abs() < 1e-12, "s{i}: {} vs {want}", sh[i]);
        }
        let j = r.json();
        assert!(j.contains("\"above_per_entry\": 0.333333"), "{j}");
        assert!(j.contains("\"below_per_entry\": 0.333333"), "{j}");
        assert!(j.contains("\"entries\": 3,"), "{j}");
        std::fs::remove_file(trace).unwrap();
    }

    /// The whole replay path with the kernel's governors: a trace of
    /// 100 ms timer wake-ups is one entry each in the deepest state, with
    /// the tick stopped, neither too deep nor too shallow.
    #[test]
    fn replay_of_long_timer_sleeps() {
        let line = "100000 100000 timer 4000 2000000000";
        let trace = trace_file("long", &[line; 50]);
        for gov in GOVS {
            let mut core = Core::lock();
            let t = table_named("x86-like-x10").unwrap();
            let r = Replay::run(&mut core, &trace, t, gov, None, 0, [0; 3], 1).unwrap();
            let s = &r.score;
            assert_eq!((s.periods, s.above, s.below), (50, 0, 0), "{gov}");
            // the first entry may keep the tick (no history yet)
            assert!(s.entries <= 52, "{gov}: {} entries", s.entries);
            assert!(r.shares()[3] > 0.97, "{gov}: {:?}", r.shares());
            assert!(r.text().contains(&format!("with {gov} ")));
        }
        std::fs::remove_file(trace).unwrap();
    }

    /// The optimum a replay reports (scripts/idle-bound.py's floor): for
    /// 100 ms periods on x86-like-x10, one C6 entry each (100 mW for the
    /// period and the 1.33 ms exit, 3 W for the exit), as for the oracle; a
    /// wake-up past the timer counts whole; and no governor spends less
    /// than it on any trace of the stored corpus replayed with the
    /// recorded idle times, on the trace's own table.
    #[test]
    fn replay_optimum_is_a_floor() {
        let line = "100000 100000 timer 4000 2000000000";
        let trace = trace_file("floor", &[line; 10]);
        let mut core = Core::lock();
        let t = table_named("x86-like-x10").unwrap();
        let r = Replay::run(&mut core, &trace, t, "teo", None, 0, [0; 3], 1).unwrap();
        let c6 = (100.0 * (100_000.0 + 1_330.0) + 3_000.0 * 1_330.0) * 1e3;
        assert!(
            (r.optimum_energy - 10.0 * c6).abs() < 1.0,
            "{}",
            r.optimum_energy
        );
        let json = r.json();
        assert!(json.contains("\"optimum_energy_uj\": "), "{json}");
        // the oracle goes by the target residencies: C6 (6 ms) here too
        assert!((r.oracle_energy - 10.0 * c6).abs() < 1.0);
        // a timer's wake-up recorded 50 ms late: 150 ms of idle time, in
        // core.c's world of the replay too
        let late = trace_file("floor-late", &["100000 150000 timer 4000 2000000000"]);
        let t = table_named("x86-like-x10").unwrap();
        let r = Replay::run(&mut core, &late, t, "teo", None, 0, [0; 3], 1).unwrap();
        let c6 = (100.0 * (150_000.0 + 1_330.0) + 3_000.0 * 1_330.0) * 1e3;
        assert!((r.optimum_energy - c6).abs() < 1.0, "{}", r.optimum_energy);
        std::fs::remove_file(late).unwrap();
        assert!(json.contains("\"oracle_energy_uj\": "), "{json}");
        assert!(
            json.contains("\"model_mw\": { \"s0\": 2000.000000, \"s1\": 1000.000000, \"s2\": 500.000000, \"s3\": 100.000000 }"),
            "{json}"
        );
        assert!(json.contains("\"active_mw\": 3000.000000,"), "{json}");
        std::fs::remove_file(trace).unwrap();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut n = 0;
        for sub in ["tuning", "heldout"] {
            for p in traces_in(&dir.join(sub)) {
                let stem = p.file_stem().unwrap().to_string_lossy().to_string();
                let table = stem.split('.').next().unwrap();
                for gov in GOVS {
                    let t = table_named(table).unwrap();
                    let path = p.to_string_lossy();
                    // the emulated world replays the recorded idle times
                    let r = Replay::run(&mut core, &path, t, gov, Some(0), 0, [0; 3], 1).unwrap();
                    assert!(
                        r.score.energy >= r.optimum_energy * (1.0 - 1e-12),
                        "{stem} {gov}: {} below the optimum {}",
                        r.score.energy,
                        r.optimum_energy
                    );
                    n += 1;
                }
            }
        }
        assert!(n >= 4 * 54, "{n} replays");
    }

    /// The emulated world: the tick reaches a halted CPU `--wake-delay-us`
    /// late; a wake-up recorded past its timer is when the CPU resumes.
    #[test]
    fn emulated_world_delays_the_tick_and_keeps_late_wakeups() {
        let t = table_named("x86-like-x10").unwrap();
        let c1 = |tr: &str, d| entries(tr, &t, &mut Fixed(vec![(1, false)], 0), d);
        // C1 (exit 20 us) with the tick kept, first tick at 1 ms: core.c's
        // world ends the entries at the ticks 1, 5 and 9 ms and the
        // wake-up at 10 ms, each 20 us later
        let irq = trace_file("tick", &["100000 10000 irq 1000 2000000000"]);
        let s = c1(&irq, None);
        assert_eq!(s.entries, 4);
        assert_eq!(s.state_ns[1], (10_020 * US) as u64);
        // 264 us late: the ticks at 1.264, 5.264 and 9.264 ms
        let s = c1(&irq, Some(264 * US));
        assert_eq!(s.entries, 4);
        assert_eq!(s.state_ns[1], (10_020 * US) as u64);
        let s = c1(&irq, Some(1_500 * US));
        // 2.5, 6.5 ms, then the wake-up at 10 ms
        assert_eq!(s.entries, 3);
        // a timer at 500 us that woke the CPU at 800 us, the tick stopped
        let late = trace_file("late", &["500 800 irq 4000 2000000000"]);
        let stop = |d| entries(&late, &t, &mut Fixed(vec![(2, true)], 0), d);
        let s = stop(None);
        assert_eq!((s.entries, s.state_ns[2]), (1, (600 * US) as u64));
        let s = stop(Some(0));
        assert_eq!((s.entries, s.state_ns[2]), (1, (900 * US) as u64));
        // polling: the recorded wake-up, the poll limit (20 us) first
        let s = entries(&late, &t, &mut Fixed(vec![(0, true)], 0), Some(0));
        assert_eq!(s.state_ns[0], (800 * US) as u64);
        assert!(s.entries >= 800 / 21);
        std::fs::remove_file(irq).unwrap();
        std::fs::remove_file(late).unwrap();
    }

    /// The emulated world's interrupt delay: an interrupt before the timer
    /// reaches a halted CPU `--irq-delay-us` late, a polling one at once;
    /// a recorded wake-up from a halting state held the delay already.
    #[test]
    fn emulated_world_delays_interrupts_to_halted_cpus_only() {
        let t = table_named("x86-like-x10").unwrap();
        // exit latencies 0/20/100/1330 us; an interrupt recorded at 500 us
        // with the guest in C1 (halted), and one with it polling
        let tr = trace_file(
            "irqdelay",
            &[
                "100000 500 irq 4000 2000000000 1",
                "100000 500 irq 4000 2000000000 0",
                "300 300 timer 4000 2000000000 1",
            ],
        );
        let run = |state: usize, irq_us: i64| {
            emulated_in(&tr, &t, state, irq_us * US).1.state_ns[state] / US as u64
        };
        // (to the microsecond: a poll notices the wake-up at its next
        // clock read)
        let near = |got: u64, want: u64| assert!(got.abs_diff(want) <= 2, "{got} vs {want}");
        // halted in C1: raised at 400 us, resumed at 500, 20 us exit; the
        // polled one raised at 500, resumed at 600; the timer at 300
        near(run(1, 100), (500 + 20) + (600 + 20) + (300 + 20));
        // polling: at once, at 400 and 500 us; the timer at 300
        near(run(0, 100), 400 + 500 + 300);
        // no delay: the recorded times
        near(run(1, 0), 3 * 20 + 500 + 500 + 300);
        near(run(0, 0), 500 + 500 + 300);
        // a state the table does not have
        let bad = trace_file("irqbad", &["100000 500 irq 4000 2000000000 7"]);
        let mut eps = load_trace(std::path::Path::new(&bad), true).unwrap();
        assert!(raise_times(&mut eps, &t, US)
            .unwrap_err()
            .contains("state 7"));
        assert!(load_trace(
            std::path::Path::new(&trace_file("irqbad2", &["1 1 irq 1 1 x"])),
            true
        )
        .is_err());
        std::fs::remove_file(tr).unwrap();
        std::fs::remove_file(bad).unwrap();
    }

    /// A timer's wake-up recorded late with the guest's CPU halted: the
    /// emulator's delay of the timer's interrupt to a halted CPU.  A
    /// halted simulated CPU resumes when the guest's did, a polling one at
    /// the timer's expiry; from a polling guest the lateness stays.
    #[test]
    fn emulated_world_late_timers_are_late_to_halted_cpus_only() {
        let t = table_named("x86-like-x10").unwrap();
        // a 500 us timer that woke the guest at 800 us, in C1 and polling
        let tr = trace_file(
            "latetimer",
            &[
                "500 800 timer 4000 2000000000 1",
                "500 800 timer 4000 2000000000 0",
            ],
        );
        let run = |state: usize| {
            let (eps, s) = emulated_in(&tr, &t, state, 0);
            (
                eps[0].wake_ns / US,
                eps[0].halt_delay_ns / US,
                s.state_ns[state] / US as u64,
            )
        };
        let near = |got: u64, want: u64| assert!(got.abs_diff(want) <= 2, "{got} vs {want}");
        // halted in C1: both resume at 800 us, 20 us exit each
        let (wake, delay, c1) = run(1);
        assert_eq!((wake, delay), (500, 300));
        near(c1, 2 * 820);
        // polling: the first at the timer, the second (a polling guest
        // woke late too) at 800 us
        near(run(0).2, 500 + 800);
        std::fs::remove_file(tr).unwrap();
    }

    /// The idle loop's costs in the emulated world: a decision delays the
    /// entry after it, a stop of the tick delays it more, a restart of the
    /// stopped tick delays the woken task; core.c's world has none.
    #[test]
    fn emulated_world_charges_the_idle_loops_work() {
        let t = table_named("x86-like-x10").unwrap();
        // an interrupt 3000 us into the period, the tick at 4000 us, the
        // timer far: one entry of C1E (100 us exit latency)
        let tr = trace_file("tickcost", &["100000 3000 irq 4000 2000000000 2"]);
        let run = |emulated: bool, stop: bool, costs_us: [i64; 3]| {
            let mut core = Core::lock();
            core.set_relax_ns(1);
            core.set_exact_poll(false);
            core.set_emulated(emulated.then_some(0));
            core.set_tick_costs(costs_us[0] * US, costs_us[1] * US, costs_us[2] * US);
            let eps = load_trace(std::path::Path::new(&tr), true).unwrap();
            let s = simulate(&mut core, &mut Fixed(vec![(2, stop)], 0), &t, "test", &eps);
            core.set_emulated(None);
            assert_eq!((s.entries, s.irq_ends), (1, 1));
            (s.state_ns[2] / US as u64, s.wake_latency_us())
        };
        let costs = [7, 33, 56];
        // stopped: entered at 7 + 33 us, woken at 3000, out at 3100; the
        // task runs after the restart, 100 + 56 us after the interrupt
        assert_eq!(run(true, true, costs), (3000 - 40 + 100, 156.0));
        // kept: entered at 7 us, no restart
        assert_eq!(run(true, false, costs), (3000 - 7 + 100, 100.0));
        // free in the emulated world without costs, and in core.c's
        assert_eq!(run(true, true, [0; 3]), (3100, 100.0));
        assert_eq!(run(false, true, costs), (3100, 100.0));
        std::fs::remove_file(tr).unwrap();
    }

    /// src/world.c with no delay and no wake-up past the timer is core.c's
    /// world: the synthetic classes score the same through both, governor
    /// by governor, on every table.
    #[test]
    fn emulated_world_without_delay_is_the_stock_world() {
        let mut core = Core::lock();
        core.set_relax_ns(1);
        core.set_exact_poll(false);
        let mut n = 0;
        for t in tables() {
            for &(class, seed) in CLASSES {
                let trace = generate(class, seed, 3_000, &t);
                for &g in GOVS {
                    let mut run = |d| {
                        core.set_emulated(d);
                        let s = simulate(&mut core, governor(g).as_mut(), &t, class, &trace);
                        core.set_emulated(None);
                        s
                    };
                    let (a, b) = (run(None), run(Some(0)));
                    let key = |s: &Score| {
                        (
                            s.entries,
                            s.above,
                            s.below,
                            s.exact,
                            s.state_entries,
                            s.state_ns,
                        )
                    };
                    assert_eq!(key(&a), key(&b), "{}/{class}/{g}", t.name);
                    assert_eq!(a.energy.to_bits(), b.energy.to_bits());
                    n += a.entries;
                }
            }
        }
        eprintln!("emulated world, no delay: {n} entries as core.c's");
    }

    /// The committed baseline of `--check` reads, and is for the default
    /// run (every rule, one `cpu_relax()` = 1 ns) and the corpus as it is.
    #[test]
    fn committed_baseline_is_well_formed() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/bar-baseline.json");
        let b = bar::Bar::load(path).unwrap();
        assert_eq!((b.rules, b.relax_ns), (u64::from(rule::ALL), 1));
        let corpus = load_corpus(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus")).unwrap();
        let mut now = corpus_list(&corpus);
        let mut base = b.corpus.clone();
        now.sort();
        base.sort();
        assert_eq!(
            base, now,
            "the corpus changed: cpuidle-sim --write-baseline {path}"
        );
    }
}
