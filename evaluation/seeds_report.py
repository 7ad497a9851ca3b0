#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""seeds_report.py OUTDIR LOG [LOG...]

The seeds' replications (evaluation/guest/seeds.sh) from the guests' console
LOGs (one per arch: x86_64 runs 000-002 and 004, ppc64le 003) against the
seeds' own numbers (/work/shared/seeds, quoted below):
OUTDIR/summary.json, OUTDIR/seeds.md and a plot per seed.

The guest prints, after any console prefix:
  SEED <seed> <table> <governor> <condition> <rep> <metric> <value>
and BENCH-META, BENCH-ERROR and BENCH-DONE lines as for evaluation/bench_report.py
(whose parser, statistics and verdict rules this reuses).  Any other line
naming SEED, one of a shape the seed does not print or a repetition printed
twice is malformed.  A log without BENCH-DONE, any BENCH-ERROR or no data at
all makes the run incomplete: the report says so and the exit status is 1.

Per seed, metric and governor: the medians before and after the seed's change
over the repetitions that ran both (they alternate within each repetition),
the ratio after/before with a paired bootstrap 95 % CI, and whether that CI
shows the seed's direction.  Where the seed claims no change (SAME), the CI
must lie within [1 / (1 + MARGIN), 1 + MARGIN] instead.  Seed 002 compares
governors: menu (4.20-rc3) before, each other governor (teo v6 in the seed)
after.
"""

import json
import math
import os
import re
import statistics
import sys

from evaluation import bench_report as br

np, plt = br.np, br.plt

LINE = re.compile(r"\bSEED(?![\w-])(.*)")
# the lines each seed prints: (seed, condition, metric)
SHAPES = [("000", r"before|after", r"avg_us|max_us|cpu1_deep_share"),
          ("001", r"before|after", r"iperf_mbit_s|ioping_iops|idle_mw"),
          ("002", r"sleep[1-9][0-9]*", r"share_s[0-9]+"),
          ("002", r"pipe-same-cpu", r"state0_entries_per_s|state0_share_pct"),
          ("003", r"before|after", r"pipe_loops_per_s|wake_p50_us|wake_p99_us|xcede_idle_share"),
          ("004", r"before|after", r"us_per_loop")]

# The seeds' numbers (before, after), in our metrics' units; None where the
# seed gives none.  Their order is the rows' order.
NUMBERS = {
    # 000: "without the patch: Latency (us) Min: 87 Act: 209 Avg: 205 Max: 239";
    # "With the patch and cpu0/power/pm_qos_resume_latency_us is lower than
    # 280us, like set to 279 ... Latency (us) Min: 82 Act: 91 Avg: 95 Max: 110"
    ("000", "avg_us"): (205, 95),
    ("000", "max_us"): (239, 110),
    # only "while let other unnecessary cpus go to deep idle": no number
    ("000", "cpu1_deep_share"): (None, None),
    # 001: "iperf localhost (gbit/sec)   ~3.7           ~6.4" (here Mbit/s)
    ("001", "iperf_mbit_s"): (3700, 6400),
    # "ioping tmpfs (iops)          ~163k          ~206k"
    ("001", "ioping_iops"): (163000, 206000),
    # "power consumption idle (W)   ~2.4            ~3.2" (here mW; the
    # board's power, ours the emulated CPUs' idle power)
    ("001", "idle_mw"): (2400, 3200),
    # 002, before 4.20-rc3 (menu), after teo v6: "teov6 entered/exited idle
    # state 0 about 60,984 times/second/cpu. -rc3 entered/exited idle state 0
    # about 62,806 times/second/cpu."
    ("002", "state0_entries_per_s"): (62806, 60984),
    # "with kernel 4.20-rc3 spending 0.2441% in idle state 0 verses teov6 at
    # 0.0641%"
    ("002", "state0_share_pct"): (0.2441, 0.0641),
    # 003, ebizzy's records/s Avg: "x  10 ... 5327281.3" (only CEDE0 latency
    # fixup) and "*  10 ... 5146614.6" (+ CEDE1): "a 3.39% regression"
    ("003", "ebizzy_records_s"): (5327281.3, 5146614.6),
    # "context_switch2 CPU0 CPU1 (Same Big-core, different small-cores). No
    # difference with and without patch": Avg 345584.02 and 345877.22
    ("003", "pipe_loops_per_s"): (345584.02, 345877.22),
    # schbench, "No regressions observed": "50.0th: 29" and "50.0th: 30",
    # "*99.0th: 13648" and "*99.0th: 13616"
    ("003", "wake_p50_us"): (29, 30),
    ("003", "wake_p99_us"): (13648, 13616),
    # the seed's cpupower idle-info of CPU0 after the patch, Duration (us):
    # snooze 27006062, CEDE 110786770, XCEDE1 1436433815: XCEDE1 holds
    # 0.9125 of the idle time; before, there is no XCEDE1
    ("003", "xcede_idle_share"): (0, 0.9125),
    # 004: our before is the polling state disabled, after enabled; the
    # seed's kernels differ in how often menu polls.  Before: the one that
    # polls less, "master" with 0c313cb20732 ("Fall back to polling if next
    # timer event is near", which undoes "polling to be used more often"):
    # "2.801577 usecs/loop -- avg 2.799550"; after: "master 0c313cb20732
    # reverted": "2.277279 usecs/loop -- avg 2.279783"
    ("004", "us_per_loop"): (2.799550, 2.279783),
}

SEEDS = {
    "000": dict(
        title="per-CPU resume latency (Alex Shi, LKML, January 2017)",
        seed="a DragonBoard 410c (4 cores, state 1's latency 280 us): cyclictest -t 1 -n -i 10000 "
             "-l 1000 on CPU0, before without the per-CPU limit, after with cpu0's "
             "pm_qos_resume_latency_us at 279, just below state 1's latency (\"the Avg latency "
             "always drop to half\"), while the other CPUs may still go deep.",
        ours="cyclictest -t 1 -a 0 -i 10000 -l 200 on CPU0 on the emulated msm8916 table, before "
             "with cpu0's pm_qos_resume_latency_us at 0 (no limit), after at one below state 1's "
             "latency (BENCH-META seed000); cpu1_deep_share: CPU1's share of time in state 1 over "
             "the same run.",
        why="Under TCG a timer wake-up costs the emulator tens of microseconds whatever the state "
            "(its wake-up floor): the emulated state-1 exit latency shows in cyclictest's latency "
            "only as far as it stands above that floor, and the limit only helps where the "
            "governor picked state 1 without it."),
    "001": dict(
        title="Armada XP cpuidle thresholds (Sebastien Rannou, March 2015)",
        seed="an Online Labs C1 (Armada XP), the 2014 thresholds (before) against the 2015 ones "
             "(exit latencies and target residencies x10, after): iperf over localhost and "
             "ioping on tmpfs up, idle power up too (\"proportionally less than the performance "
             "gain\").",
        ours="iperf3 over the loopback (2 s), ioping -c 200 on tmpfs and the emulated idle power "
             "over 2 s of sleep, on the mvebu-xp-2014 table (before) and mvebu-xp (after).",
        why="Loopback iperf3 and tmpfs ioping under TCG are bound by the emulator's speed more "
            "than by wake-up latency; the exit latencies the thresholds trade are emulated and "
            "time-scaled; idle_mw is the module's energy model of the CPUs, not a board's power."),
    "002": dict(
        title="TEO v6 review (Doug Smythies, November 2018)",
        seed="an 8-CPU machine, 4.20-rc3 (menu, before) against 4.20-rc3 + teo v6 (after): a pipe "
             "test within one core (state 0 entries per second per CPU, share of time in state "
             "0), and a sweep of 40 threads sleeping 1 to 500 us whose per-state results are on "
             "an external page (no numbers here).",
        ours="both ends of perf bench sched pipe on CPU1: menu (before) against each other "
             "governor (after) of the same repetition; the sweep: 8 cyclictest threads at "
             "intervals of 100 us to 10 ms, 2 s each, share of time per state over both CPUs, on "
             "the x86-like table.",
        why="The seed's state 0 is hardware polling next to real C-states; under TCG the pipe's "
            "idle periods are emulated and far longer than the hardware's, state 0's share "
            "rests on few entries, and the table's time scale moves where each state pays off."),
    "003": dict(
        title="pseries extended CEDE states (Gautham R. Shenoy)",
        seed="a POWER LPAR with XCEDE1 (latency 12 us) offered besides snooze and CEDE (latency "
             "1 us), against CEDE only with its latency fixed up: ebizzy 3.39 % lower (Avg), "
             "context_switch2 and schbench unchanged (\"Over all we do not see any additional "
             "benefit from having XCEDE1 over CEDE\").",
        ours="the real driver (cpuidle-pseries-rs lpar=dedicated) in a ppc64le guest (QEMU "
             "pseries, POWER10), the seed's records injected with xcede_payload=: CEDE 1 us and "
             "XCEDE1 2 us, which the driver offers as 12 us with a 120 us target residency. "
             "Before, XCEDE1's record does not wake on interrupts, so the driver skips it and only "
             "fixes CEDE's latency up, as the seed's kernel before its patch (the states: "
             "BENCH-META seed003_*). idlebench's pipe round trips per second between CPU0 and "
             "CPU1 (context_switch2 CPU0 CPU1), its schbench-like wake-up p50 and p99, and the "
             "share of the idle time in XCEDE1 over those runs. No time scale: the states cost "
             "what QEMU's H_CEDE costs. \"Unchanged\" is judged as a CI within "
             "[1/1.05, 1.05].",
        why="QEMU's H_CEDE halts the vCPU whatever the cede latency hint: XCEDE1 costs what "
            "CEDE costs, plus the broadcast timer's IPI its timer-stop flag brings; under TCG "
            "the wake-up latency is the emulator's. Where the pipe runs faster with XCEDE1 "
            "offered, one likely cause (not measured here) is the polling state: a vCPU in "
            "snooze keeps its host thread busy, and the guest has as many vCPUs as this "
            "machine has cores. ebizzy is not packaged by Debian."),
    "004": dict(
        title="menu's polling fallback (Mike Galbraith, April 2016)",
        seed="pipe-test between two CPUs (taskset 0xc) in usecs per loop, the bisected \"cross "
             "core scheduling frequency drop\": as before here master with 0c313cb20732 (menu "
             "polls less), as after master with it reverted (menu polls more), to match ours.",
        ours="idlebench's pipe round trip between CPU0 and CPU1 on the x86-like table, before "
             "with the polling state 0 disabled, after enabled: the seed's kernels differ in how "
             "often menu polls, ours in whether the governors can.",
        why="Under TCG the round trip is dominated by the emulator's scheduling of the vCPUs; "
            "polling saves a wake-up only where the emulated one costs more than the spin."),
}
# why a row has no data, where that is known beforehand
NOT_RUN = {("003", "ebizzy_records_s"): "ebizzy is not packaged by Debian; the pipe and wake-up "
                                        "rows stand for the seed's other two benchmarks"}
# the seed's claim is that its change changes nothing: the CI of after/before
# must then lie within [1 / (1 + MARGIN), 1 + MARGIN]
SAME = {("003", "pipe_loops_per_s"), ("003", "wake_p50_us"), ("003", "wake_p99_us")}
MARGIN = 0.05
KEYS = ("seed", "metric", "governor", "seed_before", "seed_after", "ours_before", "ours_after",
        "n", "ci_low", "ci_high", "reproduces", "reason")


def parse_seeds(path, data, tables, bad):
    """Adds path's lines: data[(seed, metric)][governor][condition][rep] =
    value, tables[seed] = {table}, bad = [malformed line]."""
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if m and not record(data, tables, m.group(1).split()):
                bad.append(line.strip())


def record(data, tables, f):
    if len(f) != 7:
        return False
    seed, table, gov, cond, rep, metric, value = f
    if not any(s == seed and re.fullmatch(c, cond) and re.fullmatch(m, metric) for s, c, m in SHAPES):
        return False
    try:
        rep, value = int(rep), float(value)
    except ValueError:
        return False
    if rep < 1 or not math.isfinite(value) or rep in data.get((seed, metric), {}).get(gov, {}).get(cond, {}):
        return False
    data.setdefault((seed, metric), {}).setdefault(gov, {}).setdefault(cond, {})[rep] = value
    tables.setdefault(seed, set()).add(table)
    return True


def comparisons(seed, runs):
    """(governor, before, after) per governor: {rep: value} each."""
    if seed == "002":  # the seed's kernels: 4.20-rc3 is menu, teo v6 is teo
        menu = runs.get("menu", {}).get("pipe-same-cpu")
        return [(g, menu, runs[g]["pipe-same-cpu"]) for g in br.order(runs)
                if g != "menu" and menu and "pipe-same-cpu" in runs[g]]
    return [(g, runs[g]["before"], runs[g]["after"]) for g in br.order(runs)
            if {"before", "after"} <= runs[g].keys()]


def judge(sb, sa, lo, hi, n, same=False):
    """Whether the CI of after/before lies on the seed's side of 1 (or, where
    the seed claims no change, within the margin), and why not."""
    if sb is None or sa is None:
        return "no seed number", None
    if n < br.MIN_REPS:
        return "not shown", "too few repetitions (%d, fewer than %d)" % (n, br.MIN_REPS)
    if same:
        lo_ok, hi_ok = 1 / (1 + MARGIN), 1 + MARGIN
        seed_side, other = lo_ok <= lo and hi <= hi_ok, hi < lo_ok or lo > hi_ok
    else:
        seed_side, other = (hi < 1, lo > 1) if sa < sb else (lo > 1, hi < 1)
    return ("yes" if seed_side else "no" if other else "not shown"), None


def rows_of(data):
    rows = []
    for (seed, metric), (sb, sa) in NUMBERS.items():
        blank = dict(dict.fromkeys(KEYS), seed=seed, metric=metric, seed_before=sb,
                     seed_after=sa, n=0)
        pairs = [(g, b, a, sorted(b.keys() & a.keys()))
                 for g, b, a in comparisons(seed, data.get((seed, metric), {}))]
        pairs = [p for p in pairs if p[3]]
        if not pairs:
            rows.append(dict(blank, reproduces="not run", reason=NOT_RUN.get(
                (seed, metric), "no log holds a repetition with both conditions")))
        for gov, before, after, reps in pairs:
            b, a = [before[r] for r in reps], [after[r] for r in reps]
            _, lo, hi = br.paired(a, b, br.ratio)
            verdict, reason = judge(sb, sa, lo, hi, len(reps), (seed, metric) in SAME)
            rows.append(dict(blank, governor=gov, ours_before=statistics.median(b),
                             ours_after=statistics.median(a), n=len(reps), ci_low=lo,
                             ci_high=hi, reproduces=verdict, reason=reason))
    return rows


def vs_teo(data):
    """Each other governor against teo, per seed, metric and condition: the
    ratio of medians over the repetitions both ran, with its paired
    bootstrap 95 % CI (002's sweep excluded: it has its own plot)."""
    out = []
    for (seed, metric), runs in sorted(data.items()):
        if "teo" not in runs or metric.startswith("share_s"):
            continue
        for gov in br.order(runs):
            if gov == "teo":
                continue
            for cond in sorted(runs[gov].keys() & runs["teo"].keys()):
                reps = sorted(runs[gov][cond].keys() & runs["teo"][cond].keys())
                if not reps:
                    continue
                med, lo, hi = br.paired([runs[gov][cond][r] for r in reps],
                                        [runs["teo"][cond][r] for r in reps], br.ratio)
                out.append(dict(seed=seed, metric=metric, condition=cond, num=gov, den="teo",
                                median=med, ci_low=lo, ci_high=hi, n=len(reps)))
    return out


def sweep_of(data):
    """002's sleep sweep: each state's share of time per governor and sleep time."""
    out = []
    for (seed, metric), runs in data.items():
        if seed != "002" or not metric.startswith("share_s"):
            continue
        for gov in br.order(runs):
            for cond, reps in runs[gov].items():
                if cond.startswith("sleep"):
                    med, lo, hi = br.median_ci(list(reps.values()))
                    out.append(dict(governor=gov, state=int(metric[len("share_s"):]),
                                    sleep_us=int(cond[len("sleep"):]), median=med, ci_low=lo,
                                    ci_high=hi, n=len(reps)))
    govs = br.order({s["governor"] for s in out})
    return sorted(out, key=lambda s: (govs.index(s["governor"]), s["state"], s["sleep_us"]))


def save(fig, path):
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_bars(path, title, data, rows, seed, labels):
    """Per metric: the median before and after per governor with its bootstrap
    CI, each repetition's pair joined, and the paired ratio's CI above."""
    metrics = [m for s, m in NUMBERS if s == seed and (s, m) in data]
    fig, axs = plt.subplots(1, len(metrics), figsize=(max(5.5, 4.2 * len(metrics)), 4), squeeze=False)
    for ax, metric in zip(axs[0], metrics):
        runs = data[(seed, metric)]
        govs = br.order(runs)
        for j, cond in enumerate(("before", "after")):
            vals = [list(runs[g].get(cond, {}).values()) for g in govs]
            st = np.array([br.median_ci(v) if v else (np.nan,) * 3 for v in vals])
            ax.bar(np.arange(len(govs)) + 0.4 * (j - 0.5), st[:, 0], 0.38, alpha=0.6, capsize=3,
                   yerr=[st[:, 0] - st[:, 1], st[:, 2] - st[:, 0]], label=labels[j])
        for i, g in enumerate(govs):
            reps = sorted(runs[g].get("before", {}).keys() & runs[g].get("after", {}).keys())
            for k, r in enumerate(reps):
                dx = 0.2 * k / max(1, len(reps) - 1) - 0.1
                ax.plot([i - 0.2 + dx, i + 0.2 + dx], [runs[g]["before"][r], runs[g]["after"][r]],
                        "k.-", ms=3, lw=0.4, alpha=0.6)
        for r in rows:
            if (r["seed"], r["metric"]) == (seed, metric) and r["n"] and r["ours_before"]:
                ax.annotate("x%s\n[%s, %s]" % tuple(br.fmt(x) for x in (
                    r["ours_after"] / r["ours_before"], r["ci_low"], r["ci_high"])),
                    (govs.index(r["governor"]), 1), xycoords=("data", "axes fraction"),
                    ha="center", va="top", fontsize="x-small")
        ax.set_xticks(range(len(govs)), govs)
        ax.set_ylim(top=ax.get_ylim()[1] * 1.15)
        ax.set_title(metric, fontsize="small")
    axs[0][0].legend(fontsize="small", loc="lower left")
    fig.suptitle("%s: medians with 95 %% CIs, lines join a repetition's pair;\n"
                 "above: after/before [paired 95 %% CI]" % title, fontsize="medium")
    save(fig, path)


def plot_sweep(path, sweep):
    states = sorted({s["state"] for s in sweep})
    fig, axs = plt.subplots(1, len(states), figsize=(3.4 * len(states), 3.4), squeeze=False,
                            sharey=True)
    for ax, state in zip(axs[0], states):
        for gov in br.order({s["governor"] for s in sweep}):
            pts = [s for s in sweep if (s["governor"], s["state"]) == (gov, state)]
            med = np.array([s["median"] for s in pts])
            ax.errorbar([s["sleep_us"] for s in pts], med, capsize=2, marker="o", ms=3, label=gov,
                        yerr=[med - [s["ci_low"] for s in pts], [s["ci_high"] for s in pts] - med])
        ax.set_xscale("log")
        ax.set_xlabel("sleep (us)")
        ax.set_title("state %d" % state, fontsize="small")
    axs[0][0].set_ylabel("share of time (median, 95 % CI)")
    axs[0][0].legend(fontsize="small")
    fig.suptitle("002: share of time per state against the sleep time", fontsize="medium")
    save(fig, path)


def fmt_row(r):
    sb, sa = r["seed_before"], r["seed_after"]
    seed = ("-" if sb is None else "%s -> %s" % (br.fmt(sb), br.fmt(sa)) +
            (" (x%s)" % br.fmt(sa / sb) if sb else ""))
    ours = "%s -> %s" % (br.fmt(r["ours_before"]), br.fmt(r["ours_after"]))
    ci = ("x%s [%s, %s]" % (br.fmt(r["ours_after"] / r["ours_before"]), br.fmt(r["ci_low"]),
                            br.fmt(r["ci_high"])) if r["ours_before"] else "-")
    return "| %s | %s | %s | %s | %s | %d | %s%s |" % (
        r["metric"], r["governor"] or "-", seed, ours if r["n"] else "-", ci, r["n"],
        r["reproduces"], " (%s)" % r["reason"] if r["reason"] else "")


def main(argv=None):
    argv = sys.argv if argv is None else [sys.argv[0]] + list(argv)
    if len(argv) < 3:
        sys.exit(__doc__.split("\n")[0])
    outdir, logs = argv[1], argv[2:]
    os.makedirs(outdir, exist_ok=True)
    for log in logs:
        if not os.path.exists(log):
            print("seeds-report: no console log %s" % log, file=sys.stderr)
            return 1
    data, tables, bad, meta, errors, done = {}, {}, [], {}, [], True
    for log in logs:
        _, m, e, d, bench_bad = br.parse(log)
        parse_seeds(log, data, tables, bad)
        bad += bench_bad
        for k, vs in m.items():
            meta.setdefault(k, []).extend(vs)
        name = " (%s)" % os.path.basename(log) if len(logs) > 1 else ""
        errors += [x + name for x in e]
        if not d and len(logs) > 1:
            errors.append("no BENCH-DONE in %s" % os.path.basename(log))
        done = done and d
    complete = done and not errors and bool(data)
    rows, sweep, against = rows_of(data), sweep_of(data), vs_teo(data)
    scale = " ".join(meta["scale"][-1]) if meta.get("scale") else None

    md = ["# The seeds, replicated in the guest\n"]
    md += br.run_header(complete, errors, done, bool(data), "SEED or BENCH", bad, meta, "SEED")
    md.append("Each seed's change, before and after, ran alternately within every repetition under "
              "each governor, on time-scaled emulated tables (x%s, BENCH-META scale; 003: the real pseries "
              "driver, unscaled) under TCG. Ours: "
              "the medians over the repetitions that ran both; their ratio after/before with a "
              "paired bootstrap 95 %% CI over the repetitions (%d resamples, seed %#x). It "
              "*reproduces* the seed's direction (after against before) if the CI lies entirely on "
              "the seed's side of 1 (from %d repetitions on), *no* if entirely on the other side, "
              "*not shown* otherwise. Absolute values are not comparable: other hardware, "
              "emulated and scaled latencies.\n" % (scale or "?", br.RESAMPLES, br.SEED, br.MIN_REPS))
    plots = []
    for seed, info in SEEDS.items():
        rs = [r for r in rows if r["seed"] == seed]
        md.append("## %s: %s\n" % (seed, info["title"]))
        md.append("The seed: %s\n" % info["seed"])
        md.append("Ours%s: %s\n" % (" (%s)" % ", ".join(sorted(tables[seed])) if seed in tables else "",
                                    info["ours"]))
        md.append("| metric | governor | seed before -> after (ratio) | ours before -> after | "
                  "ours after/before [95 % CI] | n | reproduces |")
        md.append("|---|---|---|---|---|---|---|")
        md += [fmt_row(r) for r in rs] + [""]
        counts = {v: sum(r["reproduces"] == v for r in rs) for v in ("yes", "no", "not shown")}
        if any(r["n"] for r in rs):
            md.append("Reproduces: yes in %d, no in %d, not shown in %d of %d rows.\n" % (
                *counts.values(), len(rs)))
        if counts["no"] or counts["not shown"]:
            md.append("Why it may not: %s%s\n" % (info["why"], "" if seed == "003" else
                      " The tables are time-scaled x%s (BENCH-META scale)." % (scale or "?")))
        vt = [v for v in against if v["seed"] == seed]
        if vt:
            md.append("Each governor against teo, in the same repetitions (ratio of medians "
                      "[paired 95 % CI]):\n")
            md.append("| metric | condition | governor / teo | n |")
            md.append("|---|---|---|---|")
            md += ["| %s | %s | %s: x%s [%s, %s] | %d |" % (
                v["metric"], v["condition"], v["num"], br.fmt(v["median"]), br.fmt(v["ci_low"]),
                br.fmt(v["ci_high"]), v["n"]) for v in vt]
            md.append("")
        name = "seed-%s.png" % seed
        if seed == "002" and sweep:
            plot_sweep(os.path.join(outdir, name), sweep)
        elif seed != "002" and any(s == seed for s, _ in data):
            plot_bars(os.path.join(outdir, name), seed, data, rows, seed,
                      ("without the limit", "with it") if seed == "000" else
                      ("2014 thresholds", "2015 thresholds") if seed == "001" else
                      ("CEDE only", "with XCEDE1") if seed == "003" else
                      ("polling disabled", "polling enabled"))
        else:
            continue
        plots.append(name)
        md.append("![%s](%s)\n" % (name, name))

    summary = dict(complete=complete, errors=errors, malformed_lines=len(bad),
                   meta={k: [" ".join(v) for v in vs] for k, vs in meta.items()},
                   rows=rows, sweep=sweep, vs_teo=against, plots=plots)
    with open(os.path.join(outdir, "seeds.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(outdir, "summary.json"), "w") as f:
        json.dump(br.jsonable(summary), f, indent=1, sort_keys=True)
    print("seeds: report in %s/seeds.md, summary in %s/summary.json%s" % (
        outdir, outdir, "" if complete else " (the run is INCOMPLETE)"))
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
