// SPDX-License-Identifier: GPL-2.0

//! Builds the parser's `testing` module (a well-formed node) into this
//! host crate: the kernel builds it only with the driver's KUnit option.

fn main() {
    println!("cargo:rustc-cfg=psci_host_testing");
}
