// SPDX-License-Identifier: GPL-2.0

//! Idle episodes: the synthetic trace classes (fixed seeds) and the
//! recorded traces (read for core.c's world, or for the emulated world of
//! `replay` with its late interrupts).

use crate::{simcore::Core, table::Table, units::US};
use rteo_core::host::SplitMix64;

/// What ends an episode.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Src {
    Timer,
    Irq,
}

/// One stretch of idle time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Episode {
    /// Time to the next timer when the CPU goes idle, ns.
    pub(crate) sleep_ns: i64,
    /// When the CPU is really woken, ns (== `sleep_ns` for a timer, but
    /// for a late one in the emulated world of `--wake-delay-us`: then
    /// later, unless [`raise_times`] made the lateness `halt_delay_ns`).
    pub(crate) wake_ns: i64,
    pub(crate) src: Src,
    /// Time to the next tick when the CPU goes idle, ns, in (0, TICK_NSEC].
    pub(crate) tick_phase_ns: i64,
    /// The CPU latency QoS limit (`cpu_latency_qos_limit()`), us.
    pub(crate) qos_us: i32,
    /// The state the guest's CPU was in when the episode ended, where a
    /// recorded trace says so.
    pub(crate) guest_state: Option<usize>,
    /// In the emulated world: how much later than `wake_ns` a halted CPU
    /// takes the wake-up's interrupt (a polling one takes it at
    /// `wake_ns`); set by [`raise_times`].
    pub(crate) halt_delay_ns: i64,
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
pub(crate) const CLASSES: &[(&str, u64)] = &[
    ("periodic-timer", 0x5eed_0001),
    ("poisson-io", 0x5eed_0002),
    ("ping-pong", 0x5eed_0003),
    ("bursty", 0x5eed_0004),
    ("tick-dominated", 0x5eed_0005),
    ("qos-limited", 0x5eed_0006),
];

pub(crate) fn generate(class: &str, seed: u64, n: usize, t: &Table) -> Vec<Episode> {
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

/// A recorded trace (evaluation/trace2corpus.py): one episode per line,
/// `sleep_us wake_us timer|irq tick_phase_us latency_req_us [state [cpu
/// at_us source]]`, `state` the index of the state the guest's CPU woke
/// from (the recorder's `cpu`, `at_us` and `source` are not read).  A wake-up
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
pub(crate) fn load_trace(path: &std::path::Path, late: bool) -> Result<Vec<Episode>, String> {
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
        if ![5, 6, 9].contains(&f.len()) {
            return Err(format!(
                "{}:{}: want 5, 6 or 9 fields",
                path.display(),
                n + 1
            ));
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
pub(crate) fn raise_times(eps: &mut [Episode], t: &Table, delay_ns: i64) -> Result<(), String> {
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

/// The seed of the tick phases [`load_trace`] draws for `replay`'s
/// emulated world.
const TICK_PHASE_SEED: u64 = 0x7e1c_0001;

/// The `*.trace` files of `dir`, sorted.
pub(crate) fn traces_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
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
