// SPDX-License-Identifier: GPL-2.0

//! Compiles the kernel's teo.c (from the cached kernel tree, never copied
//! into this repository) with the userspace shim in `shim/`, for HZ=250.
//! The tree is `$RCPUIDLE_KERNEL_SRC`, or `$RCPUIDLE_CACHE/src/pristine`,
//! or `~/.cache/rcpuidle/src/pristine`.

use std::{env, path::PathBuf, process::Command};

fn main() {
    let src = env::var("RCPUIDLE_KERNEL_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            let cache = env::var("RCPUIDLE_CACHE")
                .map(PathBuf::from)
                .unwrap_or_else(|_| {
                    PathBuf::from(env::var("HOME").expect("HOME")).join(".cache/rcpuidle")
                });
            cache.join("src/pristine")
        });
    let teo = src.join("drivers/cpuidle/governors/teo.c");
    if !teo.exists() {
        panic!(
            "{} not found: run `make setup` (or set RCPUIDLE_KERNEL_SRC to a Linux 7.3 tree)",
            teo.display()
        );
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let obj = out.join("parity_teo.o");
    let lib = out.join("libparity_teo.a");
    // PARITY_COVERAGE=1: build the C side with gcc --coverage (gcov), for
    // scripts/parity-coverage.sh.
    let coverage = env::var("PARITY_COVERAGE").is_ok_and(|v| v == "1");
    let cc = if coverage {
        "gcc".into()
    } else {
        env::var("PARITY_CC").unwrap_or_else(|_| "clang-19".into())
    };
    let opt: &[&str] = if coverage {
        &["-O0", "--coverage"]
    } else {
        &["-O2"]
    };
    let st = Command::new(&cc)
        .args(opt)
        .args([
            "-Wall",
            "-Werror",
            "-Wno-unused-function",
            "-fPIC",
            "-c",
            "-DHZ=250",
            "-DPARITY_TEO",
        ])
        .arg("-Ishim/include")
        .arg(format!("-DGOV_SRC=\"{}\"", teo.display()))
        .arg("shim/parity.c")
        .arg("-o")
        .arg(&obj)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(st.success(), "compiling teo.c with the shim failed");
    let ar = env::var("PARITY_AR").unwrap_or_else(|_| "ar".into());
    let st = Command::new(&ar)
        .arg("crs")
        .arg(&lib)
        .arg(&obj)
        .status()
        .unwrap();
    assert!(st.success(), "{ar} failed");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=parity_teo");
    if coverage {
        println!("cargo:rustc-link-lib=gcov");
    }
    println!("cargo:rerun-if-env-changed=PARITY_COVERAGE");
    println!("cargo:rerun-if-changed=shim");
    println!("cargo:rerun-if-changed={}", teo.display());
    println!("cargo:rerun-if-env-changed=RCPUIDLE_KERNEL_SRC");
    println!("cargo:rerun-if-env-changed=RCPUIDLE_CACHE");
}
