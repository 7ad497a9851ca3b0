// SPDX-License-Identifier: GPL-2.0

//! Host build of the rteo decision core: the very file the kernel compiles,
//! so that `cargo test` and the parity harness exercise the kernel's code.

#![no_std]

#[cfg(test)]
extern crate std;

#[path = "../../../drivers/cpuidle/governors/rteo_core.rs"]
pub mod rteo_core;

pub mod host;
