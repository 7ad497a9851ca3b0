// SPDX-License-Identifier: GPL-2.0

//! Builds the kernel C the simulator runs, from the cached kernel tree
//! (never copied into this repository), for HZ=250:
//!
//! * teo.c and menu.c with the userspace shim of tools/cpuidle-parity.
//!   Each governor gets its own copy of the shim, its symbols prefixed
//!   (`sim_teo_*`, `sim_menu_*`), so both link into one program.
//! * The cpuidle core's and the tick's own mechanisms: the definitions
//!   listed in [`PIECES`] are cut out of the tree's files at build time
//!   (`cpuidle_enter_state()`, `cpuidle_poll_time()`, `poll_idle()`,
//!   `cpuidle_governor_latency_req()`, `idle_call_stop_or_retain_tick()`,
//!   the NOHZ idle code of tick-sched.c, `hrtimer_forward()`, and the
//!   structures, enums and macros they use) into `$OUT_DIR/simcore_types.h`
//!   and `$OUT_DIR/simcore_kernel.c`, which
//!   tools/cpuidle-parity/shim/core.c compiles against its stand-ins for
//!   the rest of the kernel (`simcore_*`, see src/simcore.rs), included
//!   whole by src/world.c, which adds the emulated world of `--replay`.
//!
//! The tree: see `tools/kernel_src.rs`.

use std::{
    env,
    fmt::Write as _,
    path::{Path, PathBuf},
    process::Command,
};

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

/// One definition to cut out of a file of the tree.
#[derive(Clone, Copy)]
enum Piece {
    /// `#define NAME ...` (with its continuation lines).
    Define(&'static str),
    /// `struct NAME { ... };`
    Struct(&'static str),
    /// `enum NAME { ... };`
    Enum(&'static str),
    /// The definition of the function `NAME` (not a declaration).
    Fn(&'static str),
}

use Piece::{Define, Enum, Fn, Struct};

/// What the simulator compiles from the tree, file by file, in this order:
/// types first (`simcore_types.h`), then the functions (`simcore_kernel.c`),
/// each after what it calls.
const PIECES: &[(&str, &[Piece])] = &[
    (
        "include/linux/cpuidle.h",
        &[
            Define("CPUIDLE_STATE_MAX"),
            Define("CPUIDLE_NAME_LEN"),
            Define("CPUIDLE_DESC_LEN"),
            Define("CPUIDLE_STATE_DISABLED_BY_USER"),
            Define("CPUIDLE_STATE_DISABLED_BY_DRIVER"),
            Define("CPUIDLE_FLAG_POLLING"),
            Define("CPUIDLE_FLAG_COUPLED"),
            Define("CPUIDLE_FLAG_TIMER_STOP"),
            Define("CPUIDLE_FLAG_TLB_FLUSHED"),
            Define("CPUIDLE_FLAG_RCU_IDLE"),
            Struct("cpuidle_state_usage"),
            Struct("cpuidle_state"),
            Struct("cpuidle_device"),
            Struct("cpuidle_driver"),
        ],
    ),
    (
        "include/linux/pm_qos.h",
        &[
            Define("PM_QOS_LATENCY_ANY"),
            Define("PM_QOS_CPU_LATENCY_DEFAULT_VALUE"),
            Define("PM_QOS_RESUME_LATENCY_NO_CONSTRAINT"),
        ],
    ),
    ("include/linux/hrtimer_types.h", &[Enum("hrtimer_restart")]),
    (
        "kernel/time/tick-internal.h",
        &[Define("TICK_DO_TIMER_NONE")],
    ),
    (
        "kernel/time/tick-sched.h",
        &[
            Enum("tick_device_mode"),
            Struct("tick_device"),
            Define("TS_FLAG_INIDLE"),
            Define("TS_FLAG_STOPPED"),
            Define("TS_FLAG_IDLE_ACTIVE"),
            Define("TS_FLAG_DO_TIMER_LAST"),
            Define("TS_FLAG_NOHZ"),
            Define("TS_FLAG_HIGHRES"),
            Struct("tick_sched"),
        ],
    ),
    ("kernel/time/hrtimer.c", &[Fn("hrtimer_forward")]),
    (
        "kernel/time/tick-sched.c",
        &[
            Fn("tick_sched_flag_test"),
            Fn("tick_sched_flag_set"),
            Fn("tick_sched_flag_clear"),
            Fn("tick_limited_update_jiffies64"),
            Define("MAX_STALLED_JIFFIES"),
            Fn("tick_sched_do_timer"),
            Fn("tick_sched_handle"),
            Fn("tick_nohz_handler"),
            Fn("tick_nohz_tick_stopped"),
            Fn("get_jiffies_update"),
            Fn("tick_nohz_next_event"),
            Fn("tick_nohz_stop_tick"),
            Fn("tick_nohz_retain_tick"),
            Fn("__tick_nohz_full_update_tick"),
            Fn("tick_nohz_full_update_tick"),
            Fn("report_idle_softirq"),
            Fn("can_stop_idle_tick"),
            Fn("tick_nohz_idle_stop_tick"),
            Fn("tick_nohz_idle_retain_tick"),
            Fn("tick_nohz_clock_sleep"),
            Fn("tick_nohz_idle_enter"),
            Fn("tick_nohz_irq_exit"),
            Fn("tick_nohz_idle_got_tick"),
            Fn("tick_nohz_get_sleep_length"),
        ],
    ),
    (
        "kernel/sched/idle.c",
        &[Fn("idle_call_stop_or_retain_tick")],
    ),
    (
        "drivers/cpuidle/governor.c",
        &[Fn("cpuidle_governor_latency_req")],
    ),
    (
        "drivers/cpuidle/cpuidle.c",
        &[
            Fn("find_deepest_state"),
            Fn("cpuidle_enter_state"),
            Define("CPUIDLE_POLL_MIN"),
            Define("CPUIDLE_POLL_MAX"),
            Fn("cpuidle_poll_time"),
        ],
    ),
    (
        "drivers/cpuidle/poll_state.c",
        &[Define("POLL_IDLE_RELAX_COUNT"), Fn("poll_idle")],
    ),
];

/// Whether `line` names `name` as an identifier followed by `rest` (after
/// optional blanks).
fn names(line: &str, name: &str, rest: char) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(k) = line[from..].find(name) {
        let at = from + k;
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].trim_start().chars().next();
        if !before.is_some_and(ident) && after == Some(rest) {
            return true;
        }
        from = at + name.len();
    }
    false
}

/// The lines `[start, end]` of `piece` in `lines`, or why not.
fn find(lines: &[&str], piece: Piece) -> Result<(usize, usize), String> {
    let mut hits = Vec::new();
    match piece {
        Define(name) => {
            for (i, l) in lines.iter().enumerate() {
                let t = l.trim_start();
                let Some(d) = t.strip_prefix('#') else {
                    continue;
                };
                let Some(d) = d.trim_start().strip_prefix("define") else {
                    continue;
                };
                let d = d.trim_start();
                if d.strip_prefix(name)
                    .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t', '(']))
                {
                    let mut end = i;
                    while lines[end].ends_with('\\') {
                        end += 1;
                    }
                    hits.push((i, end));
                }
            }
        }
        Struct(name) | Enum(name) => {
            let kw = if matches!(piece, Struct(_)) {
                "struct"
            } else {
                "enum"
            };
            for (i, l) in lines.iter().enumerate() {
                let Some(r) = l.strip_prefix(kw) else {
                    continue;
                };
                let r = r.trim_start();
                if r.strip_prefix(name).is_some_and(|r| r.trim() == "{") {
                    let end = (i..lines.len())
                        .find(|&j| lines[j].starts_with("};"))
                        .ok_or("no closing `};`")?;
                    hits.push((i, end));
                }
            }
        }
        Fn(name) => {
            for (i, l) in lines.iter().enumerate() {
                if l.starts_with([' ', '\t', '#', '/', '*', '}', '{'])
                    || l.is_empty()
                    || !names(l, name, '(')
                {
                    continue;
                }
                // a definition: the header ends in a line that is or ends
                // with `{`, before any `;`
                let mut j = i;
                let mut def = false;
                while j < lines.len() {
                    let t = lines[j].trim_end();
                    if t.ends_with(';') {
                        break;
                    }
                    if t.ends_with('{') {
                        def = true;
                        break;
                    }
                    j += 1;
                }
                if !def {
                    continue;
                }
                let end = (j + 1..lines.len())
                    .find(|&k| lines[k] == "}")
                    .ok_or("no closing `}`")?;
                // the return type on the line before (`static ktime_t\nname(`)
                let start = if l.starts_with(name) && i > 0 && !lines[i - 1].trim().is_empty() {
                    i - 1
                } else {
                    i
                };
                hits.push((start, end));
            }
        }
    }
    match hits.as_slice() {
        [one] => Ok(*one),
        [] => Err("not found".into()),
        _ => Err(format!(
            "{} definitions (lines {})",
            hits.len(),
            hits.iter()
                .map(|h| (h.0 + 1).to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Cuts [`PIECES`] out of the tree at `tree`: (types, functions), each
/// piece behind a `#line` naming its place in the tree.
fn extract(tree: &Path) -> (String, String) {
    let (mut types, mut funcs) = (String::new(), String::new());
    for (file, pieces) in PIECES {
        let path = tree.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: run `make setup` (or set RCPUIDLE_KERNEL_SRC to a Linux 7.3 tree)",
                path.display()
            )
        });
        let lines: Vec<&str> = text.lines().collect();
        for &p in *pieces {
            let (start, end) = find(&lines, p).unwrap_or_else(|e| {
                let n = match p {
                    Define(n) | Struct(n) | Enum(n) | Fn(n) => n,
                };
                panic!("{}: {n}: {e}", path.display())
            });
            let out = if matches!(p, Fn(_)) {
                &mut funcs
            } else {
                &mut types
            };
            let _ = writeln!(out, "#line {} \"{}\"", start + 1, path.display());
            for l in &lines[start..=end] {
                let _ = writeln!(out, "{l}");
            }
        }
    }
    (types, funcs)
}

fn compile(cc: &str, args: &[String], src: &Path, obj: &Path, what: &str) {
    let st = Command::new(cc)
        .args([
            "-O2",
            "-Wall",
            "-Werror",
            "-Wno-unused-function",
            "-fPIC",
            "-c",
        ])
        .args(args)
        .arg(src)
        .arg("-o")
        .arg(obj)
        .status()
        .unwrap_or_else(|e| panic!("{cc}: {e}"));
    assert!(st.success(), "compiling {what} failed");
}

fn main() {
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let cc = env::var("PARITY_CC").unwrap_or_else(|_| "clang-19".into());
    let ar = env::var("PARITY_AR").unwrap_or_else(|_| "ar".into());
    let shim = PathBuf::from("../cpuidle-parity/shim");
    let inc = format!("-I{}", shim.join("include").display());
    let mut objs = Vec::new();
    for gov in ["teo", "menu"] {
        let file = kernel_src::governor_source(gov);
        println!("cargo:rerun-if-changed={}", file.display());
        let obj = out.join(format!("sim_{gov}.o"));
        let mut args = vec![
            "-DHZ=250".to_string(),
            inc.clone(),
            format!("-DGOV_SRC=\"{}\"", file.display()),
        ];
        if gov == "teo" {
            args.push("-DPARITY_TEO".into());
        }
        args.extend(SYMS.iter().map(|s| format!("-D{s}=sim_{gov}_{s}")));
        compile(
            &cc,
            &args,
            &shim.join("parity.c"),
            &obj,
            &format!("{gov}.c with the shim"),
        );
        objs.push(obj);
    }

    let (types, funcs) = extract(&kernel_src::kernel_src());
    std::fs::write(out.join("simcore_types.h"), types).unwrap();
    std::fs::write(out.join("simcore_kernel.c"), funcs).unwrap();
    let obj = out.join("simcore.o");
    // src/world.c includes shim/core.c whole and adds the emulated
    // world of --replay (the wake-up delay of an emulator)
    println!("cargo:rerun-if-changed=src/world.c");
    compile(
        &cc,
        &[
            "-DHZ=250".into(),
            inc.clone(),
            format!("-I{}", shim.display()),
            format!("-I{}", out.display()),
        ],
        Path::new("src/world.c"),
        &obj,
        "the cpuidle core and tick code of the tree with shim/core.c and src/world.c",
    );
    objs.push(obj);

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
