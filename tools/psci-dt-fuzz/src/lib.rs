// SPDX-License-Identifier: GPL-2.0

//! Host build of the PSCI idle-state parser: the very file the kernel
//! compiles, for `cargo test` (its KUnit cases) and the fuzzer.

#![no_std]

#[path = "../../../drivers/cpuidle/psci_states.rs"]
pub mod psci_states;
