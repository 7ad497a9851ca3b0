// SPDX-License-Identifier: GPL-2.0

//! Compiles the kernel's teo.c (from the cached kernel tree, never copied
//! into this repository) with the userspace shim in `shim/`, for HZ=250.
//! The tree: see `tools/kernel_src.rs`.

use std::{env, path::PathBuf, process::Command};

#[path = "../kernel_src.rs"]
mod kernel_src;

fn main() {
    let teo = kernel_src::governor_source("teo");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let obj = out.join("parity_teo.o");
    let lib = out.join("libparity_teo.a");
    // PARITY_COVERAGE=1: build the C side with gcc --coverage (gcov), for
    // evaluation/parity-coverage.sh.
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
    // PARITY_CFLAGS: more flags for the C side (evaluation/select-cost.sh
    // builds as the kernel does: no vector instructions).
    let extra = env::var("PARITY_CFLAGS").unwrap_or_default();
    let st = Command::new(&cc)
        .args(opt)
        .args(extra.split_whitespace())
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
    println!("cargo:rerun-if-env-changed=PARITY_CFLAGS");
    println!("cargo:rerun-if-changed=shim");
    println!("cargo:rerun-if-changed={}", teo.display());
}
