// SPDX-License-Identifier: GPL-2.0

//! Where the host tools' build scripts find the Linux 7.3 tree whose
//! governors they compile: `$RCPUIDLE_KERNEL_SRC`, or
//! `$RCPUIDLE_CACHE/src/pristine`, or `~/.cache/rcpuidle/src/pristine`.
//! Included by `tools/*/build.rs` with `#[path]`.

use std::{env, path::PathBuf};

/// The tree, and the cargo directives that rebuild when it moves.
pub fn kernel_src() -> PathBuf {
    println!("cargo:rerun-if-env-changed=RCPUIDLE_KERNEL_SRC");
    println!("cargo:rerun-if-env-changed=RCPUIDLE_CACHE");
    env::var("RCPUIDLE_KERNEL_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            let cache = env::var("RCPUIDLE_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|_| {
                    PathBuf::from(env::var("HOME").expect("HOME")).join(".cache/rcpuidle")
                });
            cache.join("src/pristine")
        })
}

/// The governor `name`.c of the tree, or a panic telling how to get it.
pub fn governor_source(name: &str) -> PathBuf {
    let f = kernel_src().join(format!("drivers/cpuidle/governors/{name}.c"));
    if !f.exists() {
        panic!(
            "{} not found: run `make setup` (or set RCPUIDLE_KERNEL_SRC to a Linux 7.3 tree)",
            f.display()
        );
    }
    f
}
