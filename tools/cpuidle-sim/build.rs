// SPDX-License-Identifier: GPL-2.0

//! Compiles the kernel's teo.c and menu.c (from the cached kernel tree,
//! never copied into this repository) with the userspace shim of
//! tools/cpuidle-parity, for HZ=250.  Each governor gets its own copy of
//! the shim, its symbols prefixed (`sim_teo_*`, `sim_menu_*`), so both
//! link into one program.  The tree: see `tools/kernel_src.rs`.

use std::{env, path::PathBuf, process::Command};

#[path = "../kernel_src.rs"]
mod kernel_src;

/// The shim's external symbols (defined by parity.c or used by the
/// governor through the shim's headers).
const SYMS: &[&str] = &[
    "parity_init",
    "parity_enable",
    "parity_select",
    "parity_wakeup",
    "parity_set_last_state_idx",
    "parity_last_state_idx",
    "parity_poll_time_limit",
    "parity_teo_state",
    "parity_initcall",
    "cpuidle_register_governor",
    "cpuidle_governor_latency_req",
    "tick_nohz_get_sleep_length",
    "tick_nohz_tick_stopped",
    "tick_nohz_idle_got_tick",
];

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let cc = env::var("PARITY_CC").unwrap_or_else(|_| "clang-19".into());
    let ar = env::var("PARITY_AR").unwrap_or_else(|_| "ar".into());
    let shim = PathBuf::from("../cpuidle-parity/shim");
    let mut objs = Vec::new();
    for gov in ["teo", "menu"] {
        let file = kernel_src::governor_source(gov);
        let obj = out.join(format!("sim_{gov}.o"));
        let mut cmd = Command::new(&cc);
        cmd.args([
            "-O2",
            "-Wall",
            "-Werror",
            "-Wno-unused-function",
            "-fPIC",
            "-c",
        ])
        .arg("-DHZ=250")
        .arg(format!("-I{}", shim.join("include").display()))
        .arg(format!("-DGOV_SRC=\"{}\"", file.display()));
        if gov == "teo" {
            cmd.arg("-DPARITY_TEO");
        }
        for s in SYMS {
            cmd.arg(format!("-D{s}=sim_{gov}_{s}"));
        }
        let st = cmd
            .arg(shim.join("parity.c"))
            .arg("-o")
            .arg(&obj)
            .status()
            .unwrap_or_else(|e| panic!("{cc}: {e}"));
        assert!(st.success(), "compiling {gov}.c with the shim failed");
        objs.push(obj);
    }
    let lib = out.join("libsim_govs.a");
    let _ = std::fs::remove_file(&lib);
    let st = Command::new(&ar)
        .arg("crs")
        .arg(&lib)
        .args(&objs)
        .status()
        .unwrap();
    assert!(st.success(), "{ar} failed");
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=sim_govs");
    println!("cargo:rerun-if-changed=../cpuidle-parity/shim");
}
