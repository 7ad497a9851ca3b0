// SPDX-License-Identifier: GPL-2.0

//! The governors the simulator drives, behind one [`Governor`] trait: the
//! kernel's teo.c and menu.c (compiled from the tree with the parity shim,
//! see build.rs), and rteo's decision core in its default mode (its rules
//! as `--rules` leaves them) and in parity mode.

use crate::{simcore::Core, table::Table};
use rteo_core::host::HostEnv;
use rteo_core::rteo_core::{rule, Mode, SleepLength, Teo};

/// The inputs of one `select()`.
pub(crate) struct Query {
    pub(crate) latency_req_ns: i64,
    pub(crate) tick_stopped: bool,
    pub(crate) sleep_ns: i64,
    pub(crate) delta_tick_ns: i64,
}

pub(crate) trait Governor {
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

/// `--rules MASK`: the rules of rteo's default mode in force (`rule` bits
/// of the core, all by default), as the `rteo.rules_off` parameter leaves
/// them.
pub(crate) static RULES: std::sync::atomic::AtomicU32 =
    std::sync::atomic::AtomicU32::new(rule::ALL);

/// A `--rules` mask, hexadecimal (`0x`) or decimal, of the core's rules
/// only.
pub(crate) fn parse_rules(v: &str) -> Result<u32, String> {
    let m = match v.strip_prefix("0x") {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    };
    m.filter(|m| m & !rule::ALL == 0).ok_or_else(|| {
        format!(
            "a mask of rteo's rules (at most {:#x}), not {v:?}",
            rule::ALL
        )
    })
}

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

pub(crate) const GOVS: &[&str] = &["rteo", "rteo-parity", "teo", "menu"];

pub(crate) fn governor(name: &str) -> Box<dyn Governor> {
    match name {
        "rteo" => Box::new(Rteo::new("rteo", Mode::Default)),
        "rteo-parity" => Box::new(Rteo::new("rteo-parity", Mode::Parity)),
        "teo" => Box::new(CTeo),
        _ => Box::new(CMenu),
    }
}
