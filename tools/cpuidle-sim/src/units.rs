// SPDX-License-Identifier: GPL-2.0

//! Units and plain ratios, a leaf of the crate: every time is in ns, every
//! latency limit of a trace in us.

/// Nanoseconds per microsecond.
pub(crate) const US: i64 = 1000;

/// `n / d`, not a number when `d` is 0.
pub(crate) fn ratio(n: u64, d: u64) -> f64 {
    if d == 0 {
        f64::NAN
    } else {
        n as f64 / d as f64
    }
}
