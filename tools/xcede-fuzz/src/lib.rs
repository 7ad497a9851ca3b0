// SPDX-License-Identifier: GPL-2.0

//! Host build of the pseries XCEDE parser: the very file the kernel
//! compiles, for `cargo test` and the fuzzer.

#![no_std]

#[path = "../../../drivers/cpuidle/pseries_xcede.rs"]
pub mod pseries_xcede;
