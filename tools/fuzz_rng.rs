// SPDX-License-Identifier: GPL-2.0

//! The fuzzers' random numbers: xorshift64*, so that a seed reproduces a
//! run.  Included by `tools/*-fuzz/src/bin/*.rs` with `#[path]`.

/// xorshift64* state (never 0: seed it with an odd number).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `n` (0 for `n` of 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// True `per_256` times in 256.
    #[allow(dead_code)]
    pub fn chance(&mut self, per_256: u64) -> bool {
        self.below(256) < per_256
    }
}
