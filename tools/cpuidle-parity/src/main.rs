// SPDX-License-Identifier: GPL-2.0

//! Parity of rteo with the kernel's teo.c.
//!
//! Replays the same idle periods into teo.c (compiled from the kernel tree
//! with a userspace shim, see build.rs) and into rteo's decision core, and
//! compares after every period: the state index, the stop-tick decision,
//! whether the sleep length was asked for, the device's last state index
//! and poll-time-limit flag, and every field of the per-CPU metrics.
//!
//! Usage: cpuidle-parity [--periods N] [--seed S]
//!        cpuidle-parity --bench teo|rteo|rteo-default|both [--periods N] [--table T]
//!
//! `--bench` replays one pre-generated period stream (all workloads, one
//! table) through one governor only (rteo: parity mode; rteo-default: the
//! default mode, every rule in force; both: all three) and prints ns per
//! period; run it under
//! `valgrind --tool=callgrind --toggle-collect=<select function>` to count
//! the instructions of `select()` alone (see evaluation/select-cost.sh).
//!
//! Prints the number of periods compared and mismatches per table and
//! workload, the first mismatch with its inputs, and exits 1 on any.

use rteo_core::host::{HostEnv, SplitMix64};
use rteo_core::rteo_core::{Decision, Mode, SleepLength, State, Teo, STATE_MAX};
use std::process::ExitCode;

mod ffi {
    extern "C" {
        pub fn parity_init(
            count: i32,
            residency_ns: *const i64,
            latency_ns: *const i64,
            flags: *const u32,
        ) -> i32;
        pub fn parity_enable() -> i32;
        pub fn parity_select(
            disabled: u32,
            latency_req_ns: i64,
            tick_stopped: bool,
            sleep_ns: i64,
            delta_tick_ns: i64,
            stop_tick: *mut bool,
            sleep_queries: *mut u32,
        ) -> i32;
        pub fn parity_wakeup(idx: i32, residency_ns: u64, poll_time_limit: bool, got_tick: bool);
        pub fn parity_set_last_state_idx(idx: i32);
        pub fn parity_last_state_idx() -> i32;
        pub fn parity_poll_time_limit() -> bool;
        pub fn parity_teo_state(out: *mut i64);
    }
}

/// `TICK_NSEC` at HZ=250, as the shim is built.
const TICK_NSEC: i64 = 4_000_000;
const US: i64 = 1000;

#[path = "../../../drivers/cpuidle/cpuidle_tables.rs"]
#[allow(dead_code)]
mod cpuidle_tables;

/// The tables the governor is checked on: every table the drivers and the
/// emulated-state driver use (drivers/cpuidle/cpuidle_tables.rs).
fn tables() -> Vec<(&'static str, Vec<State>)> {
    cpuidle_tables::TABLES
        .iter()
        .map(|t| {
            let states = t
                .states
                .iter()
                .map(|s| State {
                    target_residency_ns: i64::from(s.target_residency_us) * US,
                    exit_latency_ns: i64::from(s.exit_latency_us) * US,
                    polling: s.flags & cpuidle_tables::FLAG_POLLING != 0,
                })
                .collect();
            (t.name, states)
        })
        .collect()
}

/// The input generator: splitmix64 with a percent chance.
type Rng = SplitMix64;

trait Chance {
    fn chance(&mut self, percent: u64) -> bool;
}

impl Chance for Rng {
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One idle period's inputs.
#[derive(Clone, Copy, Debug, Default)]
struct Period {
    disabled: u32,
    latency_req_ns: i64,
    tick_stopped: bool,
    sleep_ns: i64,
    delta_tick_ns: i64,
    residency_ns: u64,
    poll_time_limit: bool,
    got_tick: bool,
    /// Re-enable the governor before this period (a governor switch),
    /// leaving `stale_idx` as the device's last state index.
    switch: bool,
    stale_idx: i32,
}

/// Workload classes; each generates periods from the table and the RNG.
const WORKLOADS: &[&str] = &[
    "random",
    "periodic-timer",
    "poisson-irq",
    "tick-dominated",
    "pm-qos",
    "disabled-states",
    "tick-stopped",
    "governor-switch",
    "boundaries",
];

const NO_QOS: i64 = i32::MAX as i64 * US;

fn gen(w: &str, r: &mut Rng, t: &[State], prev_sleep: &mut i64) -> Period {
    let n = t.len() as u32;
    let all = (1u32 << n) - 1;
    let deepest = t[t.len() - 1].target_residency_ns;
    let mut p = Period {
        latency_req_ns: NO_QOS,
        delta_tick_ns: r.range(0, TICK_NSEC),
        ..Default::default()
    };
    match w {
        "random" => {
            p.disabled = if r.chance(20) {
                r.below(all as u64 + 1) as u32
            } else {
                0
            };
            p.latency_req_ns = match r.below(4) {
                0 => NO_QOS,
                1 => 0,
                2 => t[r.below(n as u64) as usize].exit_latency_ns + r.range(-1, 1),
                _ => r.range(0, 2_000 * US),
            };
            p.tick_stopped = r.chance(30);
            p.sleep_ns = match r.below(6) {
                0 => r.range(-50 * US, 0),
                1 => r.range(0, 50 * US),
                2 => r.range(0, 3 * deepest),
                3 => r.range(0, 100 * TICK_NSEC),
                4 => i64::MAX,
                _ => t[r.below(n as u64) as usize].target_residency_ns + r.range(-2, 2),
            };
            p.residency_ns = match r.below(4) {
                0 => r.below(20 * US as u64),
                1 => r.below((p.sleep_ns.clamp(1, 1 << 40)) as u64 + 1),
                2 => r.below(u64::MAX >> 1),
                _ => p.sleep_ns.max(0) as u64 + r.below(50 * US as u64),
            };
            p.poll_time_limit = r.chance(10);
            p.got_tick = r.chance(30);
        }
        "periodic-timer" => {
            // A timer every ~2 ms with 50 us jitter; the CPU wakes on it.
            let period = 2_000 * US;
            p.sleep_ns = period + r.range(-50 * US, 50 * US);
            p.residency_ns = (p.sleep_ns + r.range(0, 20 * US)).max(0) as u64;
            p.got_tick = r.chance(5);
        }
        "poisson-irq" => {
            // Timers far away; I/O completions arrive with a 300 us mean.
            p.sleep_ns = r.range(5 * TICK_NSEC, 50 * TICK_NSEC);
            let u = (r.below(1 << 20) as f64 + 1.0) / (1u64 << 20) as f64;
            p.residency_ns = (-u.ln() * 300_000.0) as u64;
        }
        "tick-dominated" => {
            p.sleep_ns = if r.chance(80) {
                i64::MAX
            } else {
                r.range(0, 40 * TICK_NSEC)
            };
            p.residency_ns = (TICK_NSEC + r.range(-100 * US, 100 * US)) as u64;
            p.got_tick = r.chance(85);
        }
        "pm-qos" => {
            let s = &t[r.below(n as u64) as usize];
            p.latency_req_ns = (s.exit_latency_ns + r.range(-US, US)).max(0);
            p.sleep_ns = r.range(0, 5 * deepest);
            p.residency_ns = r.below(5 * deepest as u64 + 1);
            p.tick_stopped = r.chance(20);
        }
        "disabled-states" => {
            p.disabled = match r.below(4) {
                0 => all,                             // all disabled
                1 => all & !(1 << r.below(n as u64)), // a single one enabled
                2 => 1,                               // state 0 disabled
                _ => r.below(all as u64 + 1) as u32,
            };
            p.sleep_ns = r.range(-10 * US, 3 * deepest);
            p.residency_ns = r.below(3 * deepest as u64 + 1);
            p.got_tick = r.chance(20);
        }
        "tick-stopped" => {
            p.tick_stopped = r.chance(90);
            // disabled states inside the "far timer" search range too
            p.disabled = if r.chance(25) {
                r.below(all as u64 + 1) as u32 & !1
            } else {
                0
            };
            p.sleep_ns = if r.chance(50) {
                r.range(2 * TICK_NSEC, 200 * TICK_NSEC)
            } else {
                r.range(0, 3 * TICK_NSEC)
            };
            p.residency_ns = if r.chance(50) {
                p.sleep_ns as u64
            } else {
                r.below(50 * US as u64)
            };
        }
        "boundaries" => {
            // Inputs exactly at (and one ns around) every threshold teo
            // compares against: residencies, tick, 2 ticks, the 15 us
            // residency threshold, measured = residency - exit latency / 2.
            let s = &t[r.below(n as u64) as usize];
            let s2 = &t[r.below(n as u64) as usize];
            let edges = [
                s.target_residency_ns,
                TICK_NSEC,
                TICK_NSEC / 2,
                2 * TICK_NSEC,
                15 * US,
                s.exit_latency_ns,
                0,
            ];
            let e = edges[r.below(edges.len() as u64) as usize] + r.range(-1, 1);
            p.sleep_ns = e;
            p.delta_tick_ns = if r.chance(50) {
                s2.target_residency_ns + r.range(-1, 1)
            } else {
                p.delta_tick_ns
            };
            p.latency_req_ns = match r.below(3) {
                0 => NO_QOS,
                1 => s2.exit_latency_ns + r.range(-1, 1),
                _ => 15 * US / 2 + r.range(-1, 1),
            };
            // The state entered last is unknown here; aim at the measured
            // value for any state's exit latency.
            let lat = t[r.below(n as u64) as usize].exit_latency_ns;
            let m = edges[r.below(edges.len() as u64) as usize] + r.range(-1, 1);
            p.residency_ns = (m + lat / 2).max(0) as u64;
            if r.chance(10) {
                p.residency_ns = lat.max(0) as u64 + r.range(-1, 1).max(0) as u64;
            }
            p.tick_stopped = r.chance(30);
            p.got_tick = r.chance(40);
            p.poll_time_limit = r.chance(5);
            p.disabled = if r.chance(15) {
                r.below(all as u64 + 1) as u32
            } else {
                0
            };
        }
        _ => {
            // governor-switch: occasional re-enable with a stale index
            // (possibly beyond this table) left in the device.
            p.switch = r.chance(5);
            p.stale_idx = r.range(-1, STATE_MAX as i64 - 1) as i32;
            p.sleep_ns = (*prev_sleep + r.range(-100 * US, 100 * US)).max(-1000);
            p.residency_ns = r.below(2 * deepest as u64 + 1);
            p.poll_time_limit = r.chance(5);
            p.got_tick = r.chance(25);
        }
    }
    *prev_sleep = p.sleep_ns;
    p
}

struct Mismatch {
    table: &'static str,
    workload: &'static str,
    period: u64,
    what: String,
    input: Period,
}

fn teo_state(t: &Teo) -> [i64; 6 + 2 * STATE_MAX] {
    let mut o = [0i64; 6 + 2 * STATE_MAX];
    o[0] = t.sleep_length_ns;
    o[1] = t.total as i64;
    o[2] = t.total_tick as i64;
    o[3] = t.tick_intercepts as i64;
    o[4] = t.short_idles as i64;
    o[5] = t.tick_wakeup as i64;
    for i in 0..STATE_MAX {
        o[6 + 2 * i] = t.state_bins[i].intercepts as i64;
        o[7 + 2 * i] = t.state_bins[i].hits as i64;
    }
    o
}

/// rteo and teo.c on one emulated CPU each, fed the same periods.
struct Pair {
    teo: Teo,
    env: HostEnv,
}

impl Pair {
    /// Both governors, freshly enabled on a CPU with `states`.
    fn new(states: &[State]) -> Self {
        let res: Vec<i64> = states.iter().map(|s| s.target_residency_ns).collect();
        let lat: Vec<i64> = states.iter().map(|s| s.exit_latency_ns).collect();
        let flags: Vec<u32> = states.iter().map(|s| s.polling as u32).collect();
        // SAFETY: the slices hold `states.len()` elements each.
        let rc = unsafe {
            ffi::parity_init(
                states.len() as i32,
                res.as_ptr(),
                lat.as_ptr(),
                flags.as_ptr(),
            )
        };
        assert_eq!(rc, 0, "teo.c init failed");
        Self {
            teo: Teo::ZERO,
            env: HostEnv::new(states, TICK_NSEC),
        }
    }

    /// A governor switch on both sides, leaving `p.stale_idx` in the device.
    fn switch(&mut self, p: &Period) {
        self.env.last_state_idx = p.stale_idx;
        self.teo = Teo::ZERO;
        // SAFETY: plain calls into the harness's C side.
        unsafe {
            ffi::parity_set_last_state_idx(p.stale_idx);
            ffi::parity_enable();
        }
    }

    /// rteo's select() for `p`.
    fn rteo_select(&mut self, p: &Period) -> Decision {
        self.env.disabled = p.disabled;
        self.env.latency_req_ns = p.latency_req_ns;
        self.env.tick_stopped = p.tick_stopped;
        self.env.sleep = SleepLength {
            duration_ns: p.sleep_ns,
            delta_tick_ns: p.delta_tick_ns,
        };
        self.env.sleep_queries = 0;
        self.teo.select(&mut self.env)
    }

    /// The wakeup after rteo entered state `idx`: what the core records,
    /// then reflect().
    fn rteo_wakeup(&mut self, p: &Period, idx: usize) {
        self.env.last_residency_ns = p.residency_ns;
        self.env.poll_time_limit = p.poll_time_limit;
        self.teo.reflect(p.got_tick);
        self.env.last_state_idx = idx as i32;
    }

    /// teo.c's select() for `p`: (index, stop_tick, sleep-length queries).
    fn c_select(p: &Period) -> (i32, bool, u32) {
        let (mut stop, mut queries) = (true, 0u32);
        // SAFETY: the out-pointers are valid locals.
        let idx = unsafe {
            ffi::parity_select(
                p.disabled,
                p.latency_req_ns,
                p.tick_stopped,
                p.sleep_ns,
                p.delta_tick_ns,
                &mut stop,
                &mut queries,
            )
        };
        (idx, stop, queries)
    }

    /// The wakeup after teo.c entered state `idx`.
    fn c_wakeup(p: &Period, idx: i32) {
        // SAFETY: plain call.
        unsafe { ffi::parity_wakeup(idx, p.residency_ns, p.poll_time_limit, p.got_tick) };
    }
}

fn run(
    table: &'static str,
    states: &[State],
    workload: &'static str,
    periods: u64,
    seed: u64,
) -> Result<(), Mismatch> {
    let mut pair = Pair::new(states);
    let mut r = SplitMix64(seed);
    let mut prev_sleep = 1_000 * US;
    for i in 0..periods {
        let p = gen(workload, &mut r, states, &mut prev_sleep);
        let fail = |what: String| Mismatch {
            table,
            workload,
            period: i,
            what,
            input: p,
        };
        if p.switch {
            pair.switch(&p);
        }
        let d = pair.rteo_select(&p);
        let (cidx, stop, queries) = Pair::c_select(&p);
        let env = &pair.env;
        if cidx as usize != d.idx || stop != d.stop_tick {
            return Err(fail(format!(
                "teo.c chose ({cidx}, stop_tick={stop}), rteo ({}, stop_tick={})",
                d.idx, d.stop_tick
            )));
        }
        if queries != env.sleep_queries {
            return Err(fail(format!(
                "sleep length asked {queries}x by teo.c, {}x by rteo",
                env.sleep_queries
            )));
        }
        // SAFETY: plain reads of the C device.
        let (clast, cpoll) =
            unsafe { (ffi::parity_last_state_idx(), ffi::parity_poll_time_limit()) };
        if clast != env.last_state_idx || cpoll != env.poll_time_limit {
            return Err(fail(format!(
                "device after select: teo.c last={clast} poll={cpoll}, rteo last={} poll={}",
                env.last_state_idx, env.poll_time_limit
            )));
        }

        // The CPU wakes up; the core records what happened; reflect().
        pair.rteo_wakeup(&p, d.idx);
        Pair::c_wakeup(&p, cidx);

        let mut c = [0i64; 6 + 2 * STATE_MAX];
        // SAFETY: `c` has the 26 slots the C side writes.
        unsafe { ffi::parity_teo_state(c.as_mut_ptr()) };
        let rs = teo_state(&pair.teo);
        if c != rs {
            return Err(fail(format!(
                "metrics differ:\n    teo.c {c:?}\n    rteo  {rs:?}"
            )));
        }
    }
    Ok(())
}

/// Replays `stream` through teo.c (`rteo == None`) or rteo in mode
/// `rteo`; returns a checksum of the decisions so the work cannot be
/// optimised away.
fn bench_one(states: &[State], stream: &[Period], rteo: Option<Mode>) -> u64 {
    let mut pair = Pair::new(states);
    if let Some(m) = rteo {
        pair.teo.set_mode(m);
    }
    let mut sum = 0u64;
    for p in stream {
        if rteo.is_some() {
            let d = pair.rteo_select(p);
            pair.rteo_wakeup(p, d.idx);
            sum = sum.wrapping_add(d.idx as u64 + d.stop_tick as u64);
        } else {
            let (idx, stop, _) = Pair::c_select(p);
            Pair::c_wakeup(p, idx);
            sum = sum.wrapping_add(idx as u64 + stop as u64);
        }
    }
    sum
}

fn bench(which: &str, table: &str, periods: u64, seed: u64) -> ExitCode {
    let tables = tables();
    let Some((_, states)) = tables.iter().find(|(n, _)| *n == table) else {
        eprintln!("unknown table {table}");
        return ExitCode::from(2);
    };
    let mut r = SplitMix64(seed);
    let mut prev = 1_000 * US;
    let stream: Vec<Period> = (0..periods)
        .map(|i| {
            let mut p = gen(
                WORKLOADS[(i as usize / 1000) % WORKLOADS.len()],
                &mut r,
                states,
                &mut prev,
            );
            p.switch = false;
            p
        })
        .collect();
    let govs: &[Option<Mode>] = match which {
        "teo" => &[None],
        "rteo" => &[Some(Mode::Parity)],
        "rteo-default" => &[Some(Mode::Default)],
        "both" => &[None, Some(Mode::Parity), Some(Mode::Default)],
        _ => {
            eprintln!("--bench wants teo, rteo, rteo-default or both");
            return ExitCode::from(2);
        }
    };
    for round in 0..5 {
        for &g in govs {
            let t = std::time::Instant::now();
            let sum = bench_one(states, &stream, g);
            let ns = t.elapsed().as_nanos() as f64 / periods as f64;
            let name = match g {
                None => "teo.c",
                Some(Mode::Parity) => "rteo",
                Some(Mode::Default) => "rteo-default",
            };
            println!("bench: round {round} {name:<12} {table}: {ns:.1} ns/period (checksum {sum})");
        }
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    let mut periods: u64 = 1_000_000;
    let mut seed: u64 = 0x5eed_0001;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--bench") && args.len() >= 2 {
        let which = args[1].clone();
        let mut table = String::from("x86-like");
        let mut n = 1_000_000u64;
        let mut i = 2;
        while i + 1 < args.len() {
            match args[i].as_str() {
                "--periods" => n = args[i + 1].parse().unwrap_or(n),
                "--table" => table = args[i + 1].clone(),
                _ => {}
            }
            i += 2;
        }
        return bench(&which, &table, n, seed);
    }
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let v = it.next().and_then(|v| {
            if let Some(h) = v.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok()
            } else {
                v.parse().ok()
            }
        });
        match (a.as_str(), v) {
            ("--periods", Some(v)) => periods = v,
            ("--seed", Some(v)) => seed = v,
            _ => {
                eprintln!("usage: cpuidle-parity [--periods N] [--seed S]");
                return ExitCode::from(2);
            }
        }
    }
    let tables = tables();
    let runs = (tables.len() * WORKLOADS.len()) as u64;
    let per_run = periods.div_ceil(runs);
    let mut total = 0u64;
    let mut first: Option<Mismatch> = None;
    let mut mismatches = 0u64;
    println!("parity: teo.c (HZ=250) vs rteo core, seed {seed:#x}, {per_run} periods per table and workload");
    for (ti, (table, states)) in tables.iter().enumerate() {
        for (wi, w) in WORKLOADS.iter().enumerate() {
            let s = seed ^ ((ti as u64) << 32) ^ ((wi as u64) << 40);
            match run(table, states, w, per_run, s) {
                Ok(()) => {
                    total += per_run;
                    println!("  {table:<18} {w:<16} {per_run:>8} periods, 0 mismatches");
                }
                Err(m) => {
                    total += m.period + 1;
                    mismatches += 1;
                    println!("  {table:<18} {w:<16} MISMATCH at period {}", m.period);
                    first.get_or_insert(m);
                }
            }
        }
    }
    println!("parity: {total} periods compared, {mismatches} mismatches");
    if let Some(m) = first {
        println!(
            "parity: first mismatch: table {} workload {} period {}: {}\n  inputs: {:?}",
            m.table, m.workload, m.period, m.what, m.input
        );
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
