// SPDX-License-Identifier: GPL-2.0

//! Builds the parser's `testing` module (payload builders and invariant
//! checks) into this host crate: the kernel builds it only with the
//! driver's KUnit option, never into a production module.

fn main() {
    println!("cargo:rustc-cfg=xcede_host_testing");
}
