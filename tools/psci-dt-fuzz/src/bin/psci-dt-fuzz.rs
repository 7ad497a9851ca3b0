// SPDX-License-Identifier: GPL-2.0

//! psci-dt-fuzz [ITERATIONS [SEED]]: random idle-state node lists through
//! `psci_states::parse`, each result compared with a separate restatement
//! of the rules of dt_idle_states.c and cpuidle-psci.c (plus the driver's
//! one stricter rule: a node needs a name), and the accepted tables checked for what cpuidle
//! needs: at most 9 states, NUL-terminated names that fit, parameters in
//! the firmware's format.  Exit status 1 on the first disagreement.

use psci_dt_fuzz::psci_states::{parse, Error, Format, Node, MAX_DT_STATES, NAME_LEN};

#[path = "../../../fuzz_rng.rs"]
mod fuzz_rng;
use fuzz_rng::Rng;

/// What the fuzzer draws for a DT cell.
trait Draw {
    fn value(&mut self) -> u32;
    fn opt(&mut self, present_per_256: u64) -> Option<u32>;
}

impl Draw for Rng {
    fn value(&mut self) -> u32 {
        match self.below(4) {
            0 => self.below(2000) as u32,
            1 => u32::MAX - self.below(4) as u32,
            2 => 1 << self.below(32),
            _ => self.next() as u32,
        }
    }
    fn opt(&mut self, present_per_256: u64) -> Option<u32> {
        self.chance(present_per_256).then(|| self.value())
    }
}

const NAMES: [&[u8]; 8] = [
    b"cpu-retention",
    b"cpu-sleep@0",
    b"@1",
    b"",
    b"\0hidden",
    b"a-name-well-over-sixteen-bytes",
    b"x@y@z",
    b"cluster-pd",
];

/// The rules, restated: Ok(number of states) or the error expected.
fn expected(nodes: &[Node<'_>], format: Format) -> Result<usize, Error> {
    let mask = match format {
        Format::Original => 0x0301_ffffu32,
        Format::Extended => 0x4fff_ffffu32,
    };
    let mut count = 0;
    for (index, n) in nodes.iter().enumerate() {
        if !n.compatible {
            return Err(Error::NotIdleState { index });
        }
        if !n.available {
            continue;
        }
        if count == MAX_DT_STATES {
            // C warns and keeps the first ones, the rest unread
            return Ok(count);
        }
        if n.wakeup_latency_us.is_none() {
            match (n.entry_latency_us, n.exit_latency_us) {
                (Some(_), Some(_)) => {}
                _ => return Err(Error::NoLatency { index }),
            }
        }
        if n.min_residency_us.is_none() {
            return Err(Error::NoResidency { index });
        }
        let Some(param) = n.psci_param else {
            return Err(Error::NoParam { index });
        };
        if param & !mask != 0 {
            return Err(Error::BadParam { index, param, mask });
        }
        let base_len = n.name.iter().take_while(|&&c| c != b'@' && c != 0).count();
        if base_len == 0 {
            return Err(Error::NoName { index });
        }
        count += 1;
    }
    Ok(count)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let iterations: u64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let (mut accepted, mut states) = (0u64, 0u64);
    for i in 0..iterations {
        let len = rng.below(13) as usize;
        let mut nodes = [Node::default(); 12];
        for n in nodes.iter_mut().take(len) {
            // mostly good nodes, so that long lists are reached
            let good = rng.chance(200);
            *n = Node {
                name: NAMES[rng.below(NAMES.len() as u64) as usize],
                compatible: good || rng.chance(128),
                available: good || rng.chance(128),
                psci_param: if good {
                    Some(rng.below(0x2_0000) as u32)
                } else {
                    rng.opt(200)
                },
                entry_latency_us: rng.opt(if good { 255 } else { 180 }),
                exit_latency_us: rng.opt(if good { 255 } else { 180 }),
                wakeup_latency_us: rng.opt(60),
                min_residency_us: if good {
                    Some(rng.value())
                } else {
                    rng.opt(200)
                },
                local_timer_stop: rng.chance(128),
                idle_state_name: rng.chance(100).then(|| NAMES[rng.below(8) as usize]),
            };
            if good && n.name.first().is_none_or(|&c| c == b'@' || c == 0) {
                n.name = b"ok";
            }
        }
        let nodes = &nodes[..len.min(12)];
        let format = if rng.chance(128) {
            Format::Original
        } else {
            Format::Extended
        };
        let got = parse(nodes, format);
        let want = expected(nodes, format);
        let fail = |what: &str| -> ! {
            eprintln!("psci-dt-fuzz: input {i} (seed {seed}): {what}\n  nodes {nodes:?}\n  format {format:?}\n  parse {got:?}\n  expected {want:?}");
            std::process::exit(1)
        };
        match (&got, &want) {
            (Ok(t), Ok(n)) => {
                if t.len() != *n {
                    fail("state count differs");
                }
                accepted += 1;
                states += t.len() as u64;
                for s in t.states() {
                    let nm = s.name_with_nul();
                    if nm.len() > NAME_LEN || nm.last() != Some(&0) || nm.len() < 2 {
                        fail("bad state name");
                    }
                    if s.param & !format.mask() != 0 {
                        fail("parameter outside the format");
                    }
                    let node = &nodes[s.index];
                    let lat = node.wakeup_latency_us.unwrap_or_else(|| {
                        let (a, b) = (node.entry_latency_us, node.exit_latency_us);
                        a.unwrap_or(0).saturating_add(b.unwrap_or(0))
                    });
                    if s.exit_latency_us != lat
                        || Some(s.target_residency_us) != node.min_residency_us
                    {
                        fail("latency or residency differs from the node");
                    }
                    let over = node.wakeup_latency_us.is_none()
                        && u64::from(node.entry_latency_us.unwrap_or(0))
                            + u64::from(node.exit_latency_us.unwrap_or(0))
                            > u64::from(u32::MAX);
                    if s.latency_saturated != over {
                        fail("saturation flag differs");
                    }
                    if s.timer_stop != node.local_timer_stop {
                        fail("timer stop differs from the node");
                    }
                }
            }
            (Err(a), Err(b)) if a == b => {}
            _ => fail("accept/refuse differs"),
        }
    }
    println!("psci-dt-fuzz: {iterations} inputs (seed {seed}), {accepted} accepted with {states} states, 0 failures");
}
