// SPDX-License-Identifier: GPL-2.0

//! Idle-trace simulator: replays idle episodes through rteo's decision core
//! (both modes), the kernel's teo.c and menu.c (compiled from the kernel
//! tree with the parity shim, see build.rs) and an oracle, on every table of
//! `drivers/cpuidle/cpuidle_tables.rs`, and scores them.
//!
//! Usage: cpuidle-sim [--episodes N] [--json FILE] [--md FILE] [--png DIR]
//!                    [--corpus DIR] [--rules MASK] [--check]
//!        cpuidle-sim --plot OUT.png TITLE CSV
//!
//! `--rules` sets the rules of rteo's default mode in force (bits of the
//! core's `rule` module, all by default; `scripts/rteo-ablation.sh`).
//! Debugging: `SIM_TRACE=governor/table[/class]` (with `SIM_FROM`,
//! `SIM_TO`) prints that run's entries; `SIM_BREAKDOWN=1` prints, per run,
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
//! * Closed loop within an episode: if the governor keeps the tick and the
//!   tick comes first, the CPU wakes on the tick and the governor runs
//!   again for the rest of the episode (tick still running); once the
//!   governor stops the tick it stays stopped.  A polling state that runs
//!   past the core's poll limit ends with `poll_time_limit` and the
//!   governor runs again.  Open loop across episodes: when the next task
//!   runs is given by the trace, not by the decisions.
//! * Per entry the kernel's above/below rule (`cpuidle_enter_state()`):
//!   residency `diff` (idle time plus the state's exit latency) below the
//!   state's target residency is "above" (too deep); `diff - exit latency`
//!   reaching the next enabled deeper state's residency is "below" (too
//!   shallow).
//! * Energy in the table's model (as the emulated-state driver reports it):
//!   `diff` at the state's model power plus the exit latency at active
//!   power, per entry.  The oracle enters, once per episode, the deepest
//!   state whose residency fits the real idle time and whose exit latency
//!   fits the QoS limit; regret is energy / oracle energy - 1.
//! * Exact-state accuracy: the entry's state is the oracle's for the idle
//!   time that was really left at that entry.
//! * Latency penalty: exit latency paid on wake-ups by interrupts other
//!   than the timer and the tick, mean per such wake-up.
//!
//! Corpus: the synthetic classes below (fixed seeds) and the recorded
//! traces in `corpus/` (`--corpus DIR`), episodes taken from rteo's
//! recorder in a QEMU guest by `scripts/trace2corpus.py`.

use rteo_core::host::{HostEnv, SplitMix64};
use rteo_core::rteo_core::{rule, Mode, SleepLength, State, Teo};
use std::{fmt::Write as _, process::ExitCode};

mod png;

/// `TICK_NSEC` at HZ=250, as the C governors are built.
const TICK_NSEC: i64 = 4_000_000;
const US: i64 = 1000;
const NO_QOS: i64 = i32::MAX as i64 * US;

#[path = "../../../drivers/cpuidle/cpuidle_tables.rs"]
#[allow(dead_code)]
mod cpuidle_tables;

/// A table with its energy model.
struct Table {
    name: &'static str,
    states: Vec<State>,
    model_mw: Vec<f64>,
    active_mw: f64,
}

fn tables() -> Vec<Table> {
    cpuidle_tables::TABLES
        .iter()
        .map(|t| Table {
            name: t.name,
            states: t
                .states
                .iter()
                .map(|s| State {
                    target_residency_ns: i64::from(s.target_residency_us) * US,
                    exit_latency_ns: i64::from(s.exit_latency_us) * US,
                    polling: s.flags & cpuidle_tables::FLAG_POLLING != 0,
                })
                .collect(),
            model_mw: t.states.iter().map(|s| f64::from(s.model_mw)).collect(),
            active_mw: f64::from(t.active_mw),
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
    /// The core's accounting after the CPU left state `idx`, then reflect().
    fn wakeup(&mut self, idx: usize, residency_ns: u64, poll_time_limit: bool, got_tick: bool);
}

macro_rules! c_governor {
    ($modname:ident, $init:ident, $select:ident, $wakeup:ident) => {
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
            }

            pub fn init(states: &[rteo_core::rteo_core::State]) {
                let res: Vec<i64> = states.iter().map(|s| s.target_residency_ns).collect();
                let lat: Vec<i64> = states.iter().map(|s| s.exit_latency_ns).collect();
                let flags: Vec<u32> = states.iter().map(|s| s.polling as u32).collect();
                // SAFETY: the slices hold `states.len()` elements each.
                let rc = unsafe {
                    $init(
                        states.len() as i32,
                        res.as_ptr(),
                        lat.as_ptr(),
                        flags.as_ptr(),
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
    sim_teo_parity_wakeup
);
c_governor!(
    c_menu,
    sim_menu_parity_init,
    sim_menu_parity_select,
    sim_menu_parity_wakeup
);

struct CTeo;
impl Governor for CTeo {
    fn name(&self) -> &'static str {
        "teo"
    }
    fn reset(&mut self, t: &Table) {
        c_teo::init(&t.states);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        c_teo::select(q)
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
        c_menu::init(&t.states);
    }
    fn select(&mut self, q: &Query) -> (usize, bool) {
        c_menu::select(q)
    }
    fn wakeup(&mut self, idx: usize, r: u64, ptl: bool, tick: bool) {
        c_menu::wakeup(idx, r, ptl, tick)
    }
}

/// `--rules MASK`: the rules of rteo's default mode in force (`rule` bits
/// of the core, all by default), as the `rteo.rules` parameter sets them.
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
            env: HostEnv::new(&[], TICK_NSEC),
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
        self.env = HostEnv::new(&t.states, TICK_NSEC);
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
    /// When the CPU is really woken, ns (== `sleep_ns` for a timer).
    wake_ns: i64,
    src: Src,
    /// Time to the next tick when the CPU goes idle, ns, in (0, TICK_NSEC].
    tick_phase_ns: i64,
    latency_req_ns: i64,
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
    for i in 0..n {
        let tick_phase_ns = r.range(1, TICK_NSEC);
        let mut e = Episode {
            sleep_ns: 0,
            wake_ns: 0,
            src: Src::Timer,
            tick_phase_ns,
            latency_req_ns: NO_QOS,
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
                    e.latency_req_ns = s.exit_latency_ns;
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
/// `sleep_us wake_us timer|irq tick_phase_us latency_req_us`.
fn load_trace(path: &std::path::Path) -> Result<Vec<Episode>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
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
        if f.len() != 5 {
            return Err(format!("{}:{}: want 5 fields", path.display(), n + 1));
        }
        let mut src = match f[2] {
            "timer" => Src::Timer,
            "irq" => Src::Irq,
            _ => return Err(format!("{}:{}: bad source", path.display(), n + 1)),
        };
        let (sleep, wake) = (num(0)? * US, num(1)? * US);
        // an interrupt at or after the timer: the timer came first
        if wake >= sleep {
            src = Src::Timer;
        }
        out.push(Episode {
            sleep_ns: sleep.max(1),
            wake_ns: if src == Src::Timer {
                sleep.max(1)
            } else {
                wake.clamp(1, sleep.max(1))
            },
            src,
            tick_phase_ns: (num(3)? * US).clamp(1, TICK_NSEC),
            latency_req_ns: num(4)?.min(NO_QOS / US) * US,
        });
    }
    Ok(out)
}

/// The recorded corpus: every `*.trace` in `dir`, as classes `rec-NAME`.
fn load_corpus(dir: &str) -> Result<Vec<(&'static str, Vec<Episode>)>, String> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Ok(out);
    };
    let mut paths: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    paths.sort();
    for p in paths {
        let name = format!(
            "rec-{}",
            p.file_stem().unwrap_or_default().to_string_lossy()
        );
        out.push((&*Box::leak(name.into_boxed_str()), load_trace(&p)?));
    }
    Ok(out)
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
    /// Too-shallow entries ended by the tick / the polling limit.
    below_tick: u64,
    below_poll: u64,
}

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
        self.below_tick += o.below_tick;
        self.below_poll += o.below_poll;
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
}

/// The deepest state for `idle_ns` of idle time under `qos_ns`.
fn oracle(t: &Table, idle_ns: i64, qos_ns: i64) -> usize {
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

/// The core's polling limit (`cpuidle_poll_time()`): the residency of the
/// first state after 0, at most a tick.
fn poll_limit(t: &Table) -> i64 {
    t.states
        .get(1)
        .map_or(TICK_NSEC, |s| s.target_residency_ns.min(TICK_NSEC))
}

fn simulate(g: &mut dyn Governor, t: &Table, class: &str, trace: &[Episode]) -> Score {
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
        let o = oracle(t, ep.wake_ns, ep.latency_req_ns);
        let ol = t.states[o].exit_latency_ns as f64;
        sc.oracle_energy += t.model_mw[o] * (ep.wake_ns as f64 + ol) + t.active_mw * ol;
        let mut now = 0i64;
        let mut tick_stopped = false;
        let mut next_tick = ep.tick_phase_ns;
        loop {
            while next_tick <= now {
                next_tick += TICK_NSEC;
            }
            let q = Query {
                latency_req_ns: ep.latency_req_ns,
                tick_stopped,
                sleep_ns: ep.sleep_ns - now,
                delta_tick_ns: next_tick - now,
            };
            let (idx, stop) = g.select(&q);
            let idx = idx.min(n - 1);
            if stop {
                tick_stopped = true;
            }
            let st = t.states[idx];
            let lat = st.exit_latency_ns;
            let mut end = ep.wake_ns;
            let mut by_tick = false;
            let mut ptl = false;
            if !tick_stopped && next_tick < end {
                end = next_tick;
                by_tick = true;
            }
            if st.polling && end - now > poll_limit(t) {
                end = now + poll_limit(t);
                ptl = true;
                by_tick = false;
            }
            let diff = end - now + if st.polling { 0 } else { lat };
            if let Some((from, to)) = trace_window {
                if (from..to).contains(&sc.entries) {
                    eprintln!(
                        "ep={epn} qos={}us sleep={}us wake={}us {:?} now={}us tick_stopped={} -> idx={idx} stop={stop} end={}us by_tick={by_tick} poll_limit={ptl}",
                        ep.latency_req_ns / US,
                        ep.sleep_ns / US,
                        ep.wake_ns / US,
                        ep.src,
                        now / US,
                        q.tick_stopped,
                        end / US
                    );
                }
            }
            sc.entries += 1;
            if idx == oracle(t, ep.wake_ns - now, ep.latency_req_ns) {
                sc.exact += 1;
            }
            // cpuidle_enter_state()'s above/below rule (no state disabled)
            if diff < st.target_residency_ns {
                if idx > 0 {
                    sc.above += 1;
                }
            } else if diff > lat
                && idx + 1 < n
                && diff - lat >= t.states[idx + 1].target_residency_ns
            {
                sc.below += 1;
                sc.below_tick += u64::from(by_tick);
                sc.below_poll += u64::from(ptl);
            }
            sc.energy += t.model_mw[idx] * diff as f64 + t.active_mw * lat as f64;
            let irq = !by_tick && !ptl && ep.src == Src::Irq;
            if irq {
                sc.irq_wakes += 1;
                sc.irq_latency_ns += lat as f64;
            }
            g.wakeup(idx, diff.max(0) as u64, ptl, by_tick);
            if !(by_tick || ptl) {
                break;
            }
            now = end + if st.polling { 0 } else { lat };
            if now >= ep.wake_ns {
                break;
            }
        }
    }
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
    score: Score,
}

fn overall(rows: &[Row], gov: &str, class: Option<&str>) -> Score {
    let mut s = Score::default();
    for r in rows
        .iter()
        .filter(|r| r.gov == gov && class.is_none_or(|c| c == r.class))
    {
        s.add(&r.score);
    }
    s
}

fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.6}")
    } else {
        "null".into()
    }
}

fn score_json(s: &Score) -> String {
    format!(
        "\"energy_regret\": {}, \"too_deep_pct\": {}, \"too_shallow_pct\": {}, \"above_per_entry_pct\": {}, \"below_per_entry_pct\": {}, \"exact_pct\": {}, \"irq_exit_latency_us\": {}, \"periods\": {}, \"entries\": {}, \"energy_mj\": {}, \"oracle_energy_mj\": {}",
        json_num(s.regret()),
        json_num(s.too_deep()),
        json_num(s.too_shallow()),
        json_num(s.per_entry().0),
        json_num(s.per_entry().1),
        json_num(s.accuracy()),
        json_num(s.latency_us()),
        s.periods,
        s.entries,
        json_num(s.energy / 1e12),
        json_num(s.oracle_energy / 1e12)
    )
}

/// `--plot OUT.png TITLE CSV`: a bar chart of a CSV whose first line is
/// `,category...` and every other line `series,value...`.
fn plot(out: &str, title: &str, csv: &str) -> ExitCode {
    let Ok(text) = std::fs::read_to_string(csv) else {
        eprintln!("cpuidle-sim: cannot read {csv}");
        return ExitCode::FAILURE;
    };
    let mut lines = text.lines();
    let cats: Vec<&str> = lines.next().unwrap_or("").split(',').skip(1).collect();
    let (mut names, mut vals) = (Vec::new(), Vec::new());
    for l in lines {
        let mut f = l.split(',');
        names.push(f.next().unwrap_or(""));
        vals.push(f.map(|v| v.parse().unwrap_or(0.0)).collect::<Vec<f64>>());
    }
    match png::bar_chart(out, title, &cats, &names, &vals) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cpuidle-sim: {out}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--plot" {
        return plot(&args[2], &args[3], &args[4]);
    }
    let mut episodes = 12_000usize;
    let (mut json, mut md, mut png_dir, mut check) = (None, None, None, false);
    let mut corpus = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus").to_string();
    let mut i = 1;
    while i < args.len() {
        let val = args.get(i + 1).cloned();
        match args[i].as_str() {
            "--episodes" => episodes = val.and_then(|v| v.parse().ok()).unwrap_or(episodes),
            "--json" => json = val,
            "--md" => md = val,
            "--png" => png_dir = val,
            "--corpus" => corpus = val.unwrap_or_default(),
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
            a => {
                eprintln!("cpuidle-sim: unknown argument {a}");
                return ExitCode::from(2);
            }
        }
        i += 2;
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
        .chain(recorded.iter().map(|r| r.0))
        .collect();
    let mut rows = Vec::new();
    for t in &tabs {
        for &class in &class_names {
            let trace = match CLASSES.iter().find(|c| c.0 == class) {
                Some(&(_, seed)) => generate(class, seed, episodes, t),
                None => recorded
                    .iter()
                    .find(|r| r.0 == class)
                    .map(|r| r.1.clone())
                    .unwrap_or_default(),
            };
            for &g in GOVS {
                let mut gov = governor(g);
                let score = simulate(gov.as_mut(), t, class, &trace);
                rows.push(Row {
                    gov: g,
                    table: t.name,
                    class,
                    score,
                });
            }
        }
    }

    // SIM_BREAKDOWN=1: where the too-shallow entries come from.
    if std::env::var_os("SIM_BREAKDOWN").is_some() {
        for r in &rows {
            let s = &r.score;
            eprintln!(
                "{:18} {:15} {:12} above {:7} below {:8} (tick {:8}, poll limit {:8}, wake-up {:7})",
                r.table,
                r.class,
                r.gov,
                s.above,
                s.below,
                s.below_tick,
                s.below_poll,
                s.below - s.below_tick - s.below_poll
            );
        }
    }

    // rteo in parity mode must score exactly as teo.c: same decisions.
    let mut parity_ok = true;
    for r in rows.iter().filter(|r| r.gov == "rteo-parity") {
        let teo = rows
            .iter()
            .find(|x| x.gov == "teo" && x.table == r.table && x.class == r.class)
            .map(|x| x.score);
        if let Some(teo) = teo {
            if (teo.entries, teo.above, teo.below, teo.exact)
                != (r.score.entries, r.score.above, r.score.below, r.score.exact)
            {
                eprintln!(
                    "cpuidle-sim: rteo-parity differs from teo on {}/{}",
                    r.table, r.class
                );
                parity_ok = false;
            }
        }
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "| governor | energy regret vs oracle | too deep (per 100 periods) | too shallow (per 100 periods) | above / below per entry % | exact state % | exit latency on IRQ wake-ups (us) |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for &g in GOVS {
        let s = overall(&rows, g, None);
        let (a, b) = s.per_entry();
        let _ = writeln!(
            out,
            "| {g} | {:.4} | {:.2} | {:.2} | {a:.2} / {b:.2} | {:.1} | {:.2} |",
            s.regret(),
            s.too_deep(),
            s.too_shallow(),
            s.accuracy(),
            s.latency_us()
        );
    }
    let _ = writeln!(out, "| oracle | 0 | 0 | 0 | 0 / 0 | 100 | - |");
    let headline = out.clone();
    print!("{headline}");

    let mut per_class = String::new();
    let _ = writeln!(
        per_class,
        "| class | governor | energy regret | too deep /100 periods | too shallow /100 periods | exact % | IRQ exit latency (us) |"
    );
    let _ = writeln!(per_class, "|---|---|---|---|---|---|---|");
    for &c in &class_names {
        for &g in GOVS {
            let s = overall(&rows, g, Some(c));
            let _ = writeln!(
                per_class,
                "| {c} | {g} | {:.4} | {:.2} | {:.2} | {:.1} | {:.2} |",
                s.regret(),
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

    if let Some(path) = &md {
        let cmd = args.join(" ");
        let mut m = String::new();
        let _ = writeln!(m, "## Simulator (host, `{cmd}`)\n");
        let _ = writeln!(
            m,
            "{episodes} episodes per synthetic trace ({} classes, seeds fixed in tools/cpuidle-sim), {} recorded traces ({}), x {} tables.\n",
            CLASSES.len(),
            recorded.len(),
            recorded
                .iter()
                .map(|r| format!("{}: {} episodes", r.0, r.1.len()))
                .collect::<Vec<_>>()
                .join(", "),
            tabs.len()
        );
        let _ = writeln!(m, "### All traces\n\n{headline}");
        let _ = writeln!(m, "### Per trace class\n\n{per_class}");
        if png_dir.is_some() {
            let _ = writeln!(
                m,
                "![energy regret per class](sim-regret.png)\n\n![too deep and too shallow per class](sim-rates.png)\n"
            );
        }
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
            "{{\n  \"episodes_per_trace\": {episodes},\n  \"overall\": {{"
        );
        for (k, &g) in GOVS.iter().enumerate() {
            let sep = if k + 1 < GOVS.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "    \"{g}\": {{ {} }}{sep}",
                score_json(&overall(&rows, g, None))
            );
        }
        let _ = writeln!(j, "  }},\n  \"per_class\": [");
        let mut first = true;
        for &c in &class_names {
            for &g in GOVS {
                let _ = write!(j, "{}", if first { "" } else { ",\n" });
                first = false;
                let _ = write!(
                    j,
                    "    {{ \"class\": \"{c}\", \"governor\": \"{g}\", {} }}",
                    score_json(&overall(&rows, g, Some(c)))
                );
            }
        }
        let _ = writeln!(j, "\n  ],\n  \"per_table_class\": [");
        for (k, r) in rows.iter().enumerate() {
            let sep = if k + 1 < rows.len() { "," } else { "" };
            let _ = writeln!(
                j,
                "    {{ \"table\": \"{}\", \"class\": \"{}\", \"governor\": \"{}\", {} }}{sep}",
                r.table,
                r.class,
                r.gov,
                score_json(&r.score)
            );
        }
        let _ = writeln!(j, "  ]\n}}");
        if let Err(e) = std::fs::write(path, j) {
            eprintln!("cpuidle-sim: {path}: {e}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(dir) = &png_dir {
        let classes: Vec<&str> = class_names.clone();
        let series = |f: &dyn Fn(&Score) -> f64| -> Vec<Vec<f64>> {
            GOVS.iter()
                .map(|g| {
                    classes
                        .iter()
                        .map(|c| f(&overall(&rows, g, Some(c))))
                        .collect()
                })
                .collect()
        };
        let regret = series(&|s| s.regret());
        // qos-limited is left out of the rates chart: its below counts
        // (states the QoS limit forbids) dwarf every other class.
        let rate_classes: Vec<&str> = classes
            .iter()
            .copied()
            .filter(|c| *c != "qos-limited")
            .collect();
        let rates_of = |f: &dyn Fn(&Score) -> f64| -> Vec<Vec<f64>> {
            GOVS.iter()
                .map(|g| {
                    rate_classes
                        .iter()
                        .map(|c| f(&overall(&rows, g, Some(c))))
                        .collect()
                })
                .collect()
        };
        let deep = rates_of(&|s| s.too_deep());
        let shallow = rates_of(&|s| s.too_shallow());
        let r1 = png::bar_chart(
            &format!("{dir}/sim-regret.png"),
            "energy regret vs oracle",
            &classes,
            GOVS,
            &regret,
        );
        let mut rates: Vec<Vec<f64>> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for (k, g) in GOVS.iter().enumerate() {
            rates.push(deep[k].clone());
            names.push(format!("{g} deep"));
        }
        for (k, g) in GOVS.iter().enumerate() {
            rates.push(shallow[k].clone());
            names.push(format!("{g} shallow"));
        }
        let nref: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
        let r2 = png::bar_chart(
            &format!("{dir}/sim-rates.png"),
            "too deep and too shallow per 100 idle periods (qos-limited left out)",
            &rate_classes,
            &nref,
            &rates,
        );
        if let Err(e) = r1.and(r2) {
            eprintln!("cpuidle-sim: png: {e}");
            return ExitCode::FAILURE;
        }
    }

    if !parity_ok {
        return ExitCode::FAILURE;
    }
    if check {
        // The regression bar: rteo (default mode) must not lose to teo on
        // energy regret, the too-deep or the too-shallow rate.
        let r = overall(&rows, "rteo", None);
        let teo = overall(&rows, "teo", None);
        let mut ok = true;
        let mut bar = |what: &str, ours: f64, theirs: f64, who: &str| {
            let pass = ours <= theirs;
            println!(
                "sim check: {what}: rteo {ours:.4} vs {who} {theirs:.4}: {}",
                if pass { "ok" } else { "WORSE" }
            );
            ok &= pass;
        };
        bar("energy regret", r.regret(), teo.regret(), "teo");
        bar(
            "too deep per 100 periods",
            r.too_deep(),
            teo.too_deep(),
            "teo",
        );
        bar(
            "too shallow per 100 periods",
            r.too_shallow(),
            teo.too_shallow(),
            "teo",
        );
        if !ok {
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
