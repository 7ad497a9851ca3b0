// SPDX-License-Identifier: GPL-2.0

//! Mutation fuzzer of the XCEDE parser and planner.
//!
//! `xcede-fuzz [ITERATIONS] [SEED]`: starts from well-formed buffers
//! (0..16 records) and mutates them (byte flips, random bytes, cuts,
//! extensions, size-field edits, random timebase frequencies), checking
//! after each input that parsing and planning neither panic (a panic is an
//! out-of-bounds access or an overflow: the release profile keeps overflow
//! checks) nor break an invariant the driver relies on.  Deterministic for
//! a seed.

use std::process::exit;
use xcede_fuzz::pseries_xcede::testing::{build, check_invariants, TB_HZ};

#[path = "../../../fuzz_rng.rs"]
mod fuzz_rng;
use fuzz_rng::Rng;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let iters: u64 = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(0x5eed);
    let mut rng = Rng(seed | 1);
    let mut parsed = 0u64;
    let mut buf = [0u8; 256];
    for it in 0..iters {
        let nrec = rng.below(18) as usize;
        let mut recs = Vec::with_capacity(nrec);
        for _ in 0..nrec {
            let ticks = match rng.below(4) {
                0 => 0,
                1 => rng.below(1024),
                2 => rng.below(1 << 20),
                _ => rng.next(),
            };
            recs.push((rng.below(6) as u8, ticks, rng.below(4) != 0));
        }
        let mut len = if nrec <= 16 {
            build(&recs, &mut buf)
        } else {
            // 17 records do not fit the builder's usual use; build 16 and
            // claim 17 in the size field below
            let l = build(&recs[..16], &mut buf);
            let claimed = (l - 2 + 10) as u16;
            buf[..2].copy_from_slice(&claimed.to_be_bytes());
            l
        };
        for _ in 0..rng.below(4) {
            match rng.below(6) {
                0 => {
                    let i = rng.below(len as u64) as usize;
                    buf[i] ^= 1 << rng.below(8);
                }
                1 => {
                    let i = rng.below(len as u64) as usize;
                    buf[i] = rng.next() as u8;
                }
                2 => len = rng.below(len as u64 + 1) as usize,
                3 => {
                    let extra = rng.below(20) as usize;
                    for b in buf.iter_mut().skip(len).take(extra) {
                        *b = rng.next() as u8;
                    }
                    len = (len + extra).min(buf.len());
                }
                4 => {
                    let v = rng.next() as u16;
                    buf[..2].copy_from_slice(&v.to_be_bytes());
                }
                _ => buf[2] = rng.below(12) as u8,
            }
        }
        let tb = match rng.below(4) {
            0 => TB_HZ,
            1 => 0,
            2 => rng.below(4_000_000_000) + 1,
            _ => rng.next(),
        };
        if xcede_fuzz::pseries_xcede::parse(&buf[..len]).is_ok() {
            parsed += 1;
        }
        if !check_invariants(&buf[..len], tb) {
            eprintln!(
                "xcede-fuzz: invariant broken at iteration {it} (seed {seed}): tb={tb} buf={:02x?}",
                &buf[..len]
            );
            exit(1);
        }
    }
    println!("xcede-fuzz: {iters} inputs (seed {seed}), {parsed} parsed, 0 failures");
}
