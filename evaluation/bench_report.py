#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_report.py OUTDIR LOG [LOG...] [--sim SIM_JSON] [--commands FILE]

The report of an in-guest governor run (evaluation/guest/bench.sh) from its
console LOG: OUTDIR/summary.json, OUTDIR/report.md and OUTDIR/*.png.  With
several LOGs, runs of one setup (the same clock, scale and tables' exit
latencies; anything else is refused) pooled: the repetitions of each later
log are numbered on after those of the logs before it, so a pair of
governors is still compared within one repetition of one boot.

The guest prints these lines; kernel messages and prefixes may precede them
on a console line:
  BENCH <table> <governor> <rep> <benchmark> <metric> <value>
  BENCH <table> <governor> <rep> exitlat <state> <metric> <value>
    (the same as benchmark exitlat-<state>)
  BENCH-META <key> <value...>
  BENCH-ERROR <text...>
  BENCH-DONE
Any other line naming BENCH, and a repetition printed twice, is counted as
malformed.  Without BENCH-DONE, with a BENCH-ERROR or without data the run is
incomplete: the report says so and the exit status is 1 (after writing it);
without numpy or matplotlib it is 2.

Per (table, benchmark, metric, governor): the median over the repetitions
with a bootstrap 95 % CI.  Per pair num/den (rteo/teo, menu/teo and the A/A
control rteo-parity/teo): the ratio of the medians over the repetitions both
ran, with a paired bootstrap CI (the same repetitions resampled for both: the
governors of a repetition ran back to back, under the same host load).  For
the A/A control, also how many repetitions an interval of +-5 % around its
ratio would need, from the spread of its per-repetition log ratios (the
normal approximation, 1.96 sd / sqrt(n) <= ln 1.05): what it takes to tell
a 5 % difference from the run's noise.
With SIM_JSON, the simulator's results (and the SIM_JSON.md beside it).
With OUTDIR/tickcost.json (evaluation/tickcost.py), summary.json's "tickcost"
and a section on what deciding, stopping and restarting the tick cost.
With OUTDIR/fidelity.json (evaluation/fidelity.py: the simulator's replay of
each recorded run against what the guest measured of it), summary.json's
"fidelity" (its rows) and "fidelity_summary", and a fidelity section: per
run, each metric's simulated and guest value and whether it is within the
goal, and how many are.
"""

import argparse
import json
import math
import os
import re
import sys
from collections import defaultdict

try:
    import numpy as np
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError as e:
    print("bench-report: %s (for %s): install python3-matplotlib and python3-numpy "
          "(pipeline/setup.sh) and run this with /usr/bin/python3" % (e, sys.executable),
          file=sys.stderr)
    sys.exit(2)

SEED = 0x5EED
RESAMPLES = 10000
# fewer repetitions give a bootstrap interval but no verdict
MIN_REPS = 5
GOVS = ["rteo", "teo", "menu", "rteo-parity"]
PAIRS = [("rteo", "teo"), ("menu", "teo"), ("rteo-parity", "teo")]
AA = ("rteo-parity", "teo")
OFF = "rteo-off="
# what describes the run rather than scores it (the depth of the states
# cyclictest's CPU entered: its energy and latency score it): its ratios
# say higher/lower
INFO = {("idle", "entries"), ("idle", "wakeups_per_s"), ("cyclictest", "exit_us_per_entry")}
# the exit-latency check's metrics: the typical lateness, not the tail
EXIT_METRICS = ("late_us", "p50_us", "avg_us")
# the per-repetition figure's panels
MAIN = [("cyclictest", "avg_us"), ("cyclictest", "p99_us"), ("hackbench", "time_s"),
        ("pipe", "usec_per_op"), ("pipe-pinned", "usec_per_op"), ("wake", "p50_us"),
        ("wake", "p99_us"), ("idle", "energy_uj"), ("idle", "above_per_entry")]
# the ratio figures' axis marks (a log scale)
TICKS = [0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100]
LINE = re.compile(r"\bBENCH(-[A-Z]+)?(?![\w-])(.*)")

# what summary.json keeps of the simulator's JSON (cpuidle-sim run --json)
SIM_KEYS = ("poll_limit_ns", "corpus", "overall", "qos_limited", "tuning", "heldout",
            "targets")


def run_header(complete, errors, done, have_data, kind, bad, meta, data_kind=None):
    """The report's first lines about the run itself: whether it is
    complete (and why not: no DATA_KIND data), the malformed KIND lines, the
    BENCH-META lines."""
    md = []
    if not complete:
        why = errors + ([] if done else ["no BENCH-DONE"]) + ([] if have_data else ["no %s data" % (data_kind or kind)])
        md.append("**The run is INCOMPLETE:** %s. What follows is what the log holds.\n"
                  % "; ".join(why))
    md.append("Malformed %s lines ignored: %d%s\n" % (kind, len(bad), ", the first:" if bad else "."))
    if bad:
        md += ["```"] + bad[:5] + ["```\n"]
    if meta:
        md.append("Run: " + "; ".join("%s %s" % (k, ", ".join(" ".join(v) for v in vs))
                                      for k, vs in sorted(meta.items())) + ".\n")
    return md


def parse(path):
    """The console log: data[(table, benchmark, metric)][governor][rep] = value."""
    data = defaultdict(dict)
    meta, errors, bad, done = defaultdict(list), [], [], False
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            kind, fields = m.group(1), m.group(2).split()
            if kind == "-DONE" and not fields:
                done = True
            elif kind == "-ERROR":
                errors.append(" ".join(fields) or "(no text)")
            elif kind == "-META" and meta_ok(fields):
                meta[fields[0]].append(fields[1:])
            elif kind is None and record(data, fields):
                pass
            else:
                bad.append(line.strip())
    return data, meta, errors, done, bad


# BENCH-META keys that must agree between pooled logs: the same clock and
# the same tables make the repetitions of one experiment
SAME_SETUP = ("clock", "exit_latency_us", "scale")


def parse_logs(paths):
    """parse() of each log, pooled: the repetitions of a later log numbered on
    after the highest of the logs before it.  Raises ValueError if the logs'
    setups (SAME_SETUP metas) differ."""
    data, meta, errors, bad, done = defaultdict(dict), defaultdict(list), [], [], True
    base, setup = 0, None
    for path in paths:
        d, m, e, dn, b = parse(path)
        s = {k: sorted(m.get(k, [])) for k in SAME_SETUP}
        if setup is not None and s != setup:
            raise ValueError("%s: not the setup of %s (%s)" % (
                path, paths[0], ", ".join(k for k in SAME_SETUP if s[k] != setup[k])))
        setup = s
        top = 0
        for key, runs in d.items():
            for gov, reps in runs.items():
                for rep, v in reps.items():
                    data[key].setdefault(gov, {})[base + rep] = v
                    top = max(top, rep)
        for k, vs in m.items():
            meta[k] += [v for v in vs if v not in meta[k]]
        errors += e
        bad += b
        done = done and dn
        base += top
    return data, meta, errors, done, bad


def reps_for_5pct(a, b):
    """Repetitions a paired interval of +-5 % around a/b would need: from the
    sample spread of the per-repetition log ratios (None with fewer than 2
    positive pairs)."""
    lr = [math.log(x / y) for x, y in zip(a, b) if x > 0 and y > 0]
    if len(lr) < 2:
        return None
    sd = float(np.std(lr, ddof=1))
    return max(2, math.ceil((1.96 * sd / math.log(1.05)) ** 2))


def meta_ok(f):
    """A BENCH-META line has a key; exit_latency_us's value is TABLE STATE US."""
    if f[:1] != ["exit_latency_us"]:
        return bool(f)
    try:
        return len(f) == 4 and math.isfinite(float(f[3]))
    except ValueError:
        return False


def record(data, f):
    """Files the fields of one BENCH line; False if they are malformed."""
    if len(f) == 7 and f[3] == "exitlat":
        f = f[:3] + ["exitlat-" + f[4]] + f[5:]
    if len(f) != 6:
        return False
    table, gov, rep, bench, metric, value = f
    try:
        rep, value = int(rep), float(value)
    except ValueError:
        return False
    if rep < 1 or not math.isfinite(value) or rep in data.get((table, bench, metric), {}).get(gov, {}):
        return False
    data[(table, bench, metric)].setdefault(gov, {})[rep] = value
    return True


def order(govs):
    return [g for g in GOVS if g in govs] + sorted(g for g in govs if g not in GOVS)


def ratio(x, y):
    """x / y; 1 where both are 0 (equal), inf where only y is."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((x == 0) & (y == 0), 1.0, x / y)


def interval(boot):
    # order statistics, no interpolation: an infinite ratio stays infinite
    lo, hi = np.percentile(boot, [2.5, 97.5], method="inverted_cdf")
    return float(lo), float(hi)


def median_ci(vals):
    """The median of vals and its bootstrap 95 % CI."""
    v = np.asarray(vals, float)
    idx = np.random.default_rng(SEED).integers(0, len(v), (RESAMPLES, len(v)))
    return float(np.median(v)), *interval(np.median(v[idx], axis=1))


def paired(a, b, stat):
    """stat(median a, median b) and its CI, a[i] and b[i] resampled together."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    idx = np.random.default_rng(SEED).integers(0, len(a), (RESAMPLES, len(a)))
    boot = stat(np.median(a[idx], axis=1), np.median(b[idx], axis=1))
    return float(stat(np.median(a), np.median(b))), *interval(boot)


def common(runs, num, den):
    reps = sorted(runs[num].keys() & runs[den].keys())
    return [runs[num][r] for r in reps], [runs[den][r] for r in reps]


def verdict(bench, metric, lo, hi, n):
    info = (bench, metric) in INFO
    if n < MIN_REPS:
        return "too few repetitions"
    if hi < 1:
        return "lower" if info else "better"
    if lo > 1:
        return "higher" if info else "worse"
    return "no difference shown"


def differs(r):
    return r is not None and r["verdict"] not in ("no difference shown", "too few repetitions")


def analyse(data, meta):
    guest, ratios, exitlat = [], [], []
    for (table, bench, metric), runs in sorted(data.items()):
        key = dict(table=table, benchmark=bench, metric=metric)
        for gov in order(runs):
            reps = sorted(runs[gov])
            vals = [runs[gov][r] for r in reps]
            med, lo, hi = median_ci(vals)
            guest.append(dict(key, governor=gov, median=med, ci_low=lo, ci_high=hi,
                              n=len(vals), reps=reps, values=vals))
        # rteo with rules switched off (rteo-off=MASK) against rteo (what
        # those rules bring in the guest) and against teo
        off = [(g, d) for g in order(runs) if g.startswith(OFF) for d in ("rteo", "teo")]
        for num, den in PAIRS + off:
            if num in runs and den in runs:
                a, b = common(runs, num, den)
                if a:
                    med, lo, hi = paired(a, b, ratio)
                    r = dict(key, num=num, den=den, median=med, ci_low=lo, ci_high=hi,
                             n=len(a), verdict=verdict(bench, metric, lo, hi, len(a)))
                    if (num, den) == AA:
                        r["reps_for_5pct"] = reps_for_5pct(a, b)
                    ratios.append(r)
    # the lateness of a timer that wakes a CPU from each state alone, less
    # the floor (the lateness with the deep states off): should be the
    # state's emulated exit latency
    lat = {(t, s): float(us) for t, s, us in meta.get("exit_latency_us", [])}
    for (table, bench, metric), runs in sorted(data.items()):
        if not bench.startswith("exitlat-") or metric not in EXIT_METRICS:
            continue
        state = bench[len("exitlat-"):]
        fm = next((m for m in (metric, "p50_us", "avg_us") if (table, "floor", m) in data), None)
        floor = data[(table, "floor", fm)].get("none", {}) if fm else {}
        for gov in order(runs):
            late = dict(runs[gov])
            ref = {r: floor[r] for r in late if r in floor} if floor else {r: 0.0 for r in late}
            a, b = [late[r] for r in ref], list(ref.values())
            if not a:
                continue
            exc, lo, hi = paired(a, b, np.subtract)
            el = lat.get((table, state))
            check = ("no exit latency given" if el is None else
                     "too few repetitions" if len(a) < MIN_REPS else
                     "shorter than the exit latency" if hi < el else
                     "longer than the exit latency" if lo > el else "consistent")
            exitlat.append(dict(table=table, state=state, governor=gov, metric=metric,
                                late_median=float(np.median(a)), floor=fm if floor else None,
                                excess=exc, ci_low=lo, ci_high=hi, n=len(a),
                                exit_latency_us=el, excess_per_exit=exc / el if el else None,
                                check=check))
    aa = [dict(table=r["table"], benchmark=r["benchmark"], metric=r["metric"],
               width=r["ci_high"] - r["ci_low"], reps_for_5pct=r["reps_for_5pct"])
          for r in ratios if (r["num"], r["den"]) == AA]
    return guest, ratios, aa, exitlat


def jsonable(o):
    """o with its infinities null (JSON has none): a ratio over a zero median."""
    return ({k: jsonable(v) for k, v in o.items()} if isinstance(o, dict) else
            [jsonable(v) for v in o] if isinstance(o, list) else
            None if isinstance(o, float) and not math.isfinite(o) else o)


def fmt(x):
    return "-" if x is None else "%.4g" % x


def fmt_ratio(r):
    return "%.3f [%.3f, %.3f]" % (r["median"], r["ci_low"], r["ci_high"]) if r else "-"


def safe(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def finite(*xs):
    return all(math.isfinite(x) and x > 0 for x in xs)


def plot_ratios(path, table, rows):
    keys = sorted({(r["benchmark"], r["metric"]) for r in rows})
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.6 * len(keys)))
    for i, (num, den) in enumerate(PAIRS):
        pts = [(keys.index((r["benchmark"], r["metric"])) + 0.25 * (i - 1), r)
               for r in rows if (r["num"], r["den"]) == (num, den)
               and finite(r["median"], r["ci_low"], r["ci_high"])]
        if pts:
            y, rs = zip(*pts)
            med = np.array([r["median"] for r in rs])
            err = [med - [r["ci_low"] for r in rs], [r["ci_high"] for r in rs] - med]
            ax.errorbar(med, y, xerr=err, fmt="o", ms=4, capsize=2, label="%s/%s" % (num, den))
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xscale("log")
    lo, hi = ax.get_xlim()
    ticks = [t for t in TICKS if lo <= t <= hi]
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xticks(ticks, ["%g" % t for t in ticks])
    ax.set_yticks(range(len(keys)), ["%s %s" % k for k in keys], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("ratio of medians, 95 % paired bootstrap CI (< 1: lower than teo)")
    ax.set_title("%s: governors against teo" % table)
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_reps(path, table, data):
    keys = [k for k in MAIN if (table,) + k in data] or \
        sorted(k[1:] for k in data if k[0] == table)[:8]
    cols = min(4, len(keys))
    rows = -(-len(keys) // cols)
    fig, axs = plt.subplots(rows, cols, figsize=(3.2 * cols, 3 * rows), squeeze=False)
    for ax in axs.flat[len(keys):]:
        ax.set_visible(False)
    for ax, (bench, metric) in zip(axs.flat, keys):
        runs = data[(table, bench, metric)]
        govs = [g for g in order(runs) if g != "none"] or list(runs)
        vals = [list(runs[g].values()) for g in govs]
        ax.boxplot(vals, widths=0.5, showfliers=False)
        for i, v in enumerate(vals, 1):
            ax.plot(i + np.linspace(-0.12, 0.12, len(v)), v, "o", ms=3, alpha=0.7)
        ax.set_xticks(range(1, len(govs) + 1), govs, rotation=30, fontsize="small")
        ax.set_title("%s %s" % (bench, metric), fontsize="small")
    for ax in list(axs.flat)[len(keys):]:
        ax.set_visible(False)
    fig.suptitle("%s: per repetition" % table)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def table_md(table, guest, ratios, exitlat):
    md = ["### %s\n" % table]
    rows = [g for g in guest if g["table"] == table]
    med = {(g["benchmark"], g["metric"], g["governor"]): g for g in rows}
    rat = {(r["benchmark"], r["metric"], r["num"], r["den"]): r for r in ratios
           if r["table"] == table}
    govs = order({g["governor"] for g in rows} - {"none"})
    keys = sorted({(g["benchmark"], g["metric"]) for g in rows
                   if g["benchmark"] != "floor" and not g["benchmark"].startswith("exitlat-")})
    if keys:
        md.append("| benchmark | metric | " + " | ".join(govs) +
                  " | rteo/teo [95 % CI] | verdict | A/A rteo-parity/teo [95 % CI] |")
        md.append("|---|---|" + "---|" * (len(govs) + 3))
        for b, m in keys:
            r, aa = rat.get((b, m, "rteo", "teo")), rat.get((b, m) + AA)
            cells = [fmt(med[(b, m, g)]["median"]) if (b, m, g) in med else "-" for g in govs]
            md.append("| %s | %s | %s | %s | %s | %s%s |" % (
                b, m, " | ".join(cells), fmt_ratio(r), r["verdict"] if r else "-",
                fmt_ratio(aa), " **A/A differs**" if differs(aa) else ""))
        md.append("")
    offs = [g for g in govs if g.startswith(OFF)]
    if keys and offs:
        md.append("rteo with rules switched off against rteo (rteo-off=MASK/rteo, the "
                  "rteo.rules_off bits; > 1: higher without those rules) and against teo "
                  "[95 % CI], verdict:\n")
        md.append("| benchmark | metric | " + " | ".join("%s/rteo | %s/teo" % (g, g) for g in offs) + " |")
        md.append("|---|---|" + "---|" * (2 * len(offs)))
        for b, m in keys:
            cells = []
            for g in offs:
                for den in ("rteo", "teo"):
                    r = rat.get((b, m, g, den))
                    cells.append("%s %s" % (fmt_ratio(r), r["verdict"]) if r else "-")
            md.append("| %s | %s | %s |" % (b, m, " | ".join(cells)))
        md.append("")
    floor = [g for g in rows if g["benchmark"] == "floor"]
    if floor:
        md.append("Wake-up floor (deep states disabled), median [95 %% CI] over %d repetitions: " % floor[0]["n"] +
                  ", ".join("%s %s [%s, %s] us%s" % (
                      g["metric"], fmt(g["median"]), fmt(g["ci_low"]), fmt(g["ci_high"]),
                      "" if g["governor"] == "none" else " (%s)" % g["governor"]) for g in floor) + ".\n")
    ex = [e for e in exitlat if e["table"] == table]
    if ex:
        md.append("Exit latencies: a timer's lateness with one state alone enabled, less the "
                  "floor's same metric, against the state's emulated exit latency.\n")
        md.append("| state | governor | metric | lateness (us) | less the floor [95 % CI] | "
                  "exit latency (us) | ratio | check |")
        md.append("|---|---|---|---|---|---|---|---|")
        for e in ex:
            md.append("| %s | %s | %s | %s | %s [%s, %s]%s | %s | %s | %s (n %d) |" % (
                e["state"], e["governor"], e["metric"], fmt(e["late_median"]), fmt(e["excess"]),
                fmt(e["ci_low"]), fmt(e["ci_high"]), "" if e["floor"] else " (no floor)",
                fmt(e["exit_latency_us"]), fmt(e["excess_per_exit"]), e["check"], e["n"]))
        md.append("")
    return md


def fmt_share(x):
    return "-" if x is None else "%.4f" % x


def tickcost_md(tc):
    """The tick costs' section from tickcost.json (evaluation/tickcost.py)."""
    md = ["## What the idle loop's work costs in the guest\n",
          "evaluation/tickcost.py over the TICKCOST lines of %s (evaluation/guest/tickcost.sh: the "
          "tracepoints power:cpu_idle_sleep_length, timer:tick_stop, power:cpu_idle and "
          "sched:sched_switch): deciding (select() and keeping the tick: the kept periods' "
          "median from the sleep-length event to the entry), what stopping the tick adds on "
          "the way in and restarting it on the way out (stopped against kept periods of the "
          "same governor and workload), us, with bootstrap 95 %% intervals.%s\n" % (
              tc.get("log", "?"), "" if tc.get("complete") else
              " **Incomplete**: " + "; ".join(tc.get("problems", [])) + "."),
          "| table | decide | stop | restart | periods stopped / kept |",
          "|---|---|---|---|---|"]
    for t, e in sorted(tc.get("per_table", {}).items()):
        cell = [("%.1f [%.1f, %.1f]" % (v["us"], v["ci_low"], v["ci_high"])) if v else "-"
                for v in (e.get("decide_us"), e.get("stop_us"), e.get("restart_us"))]
        p = e.get("periods", {})
        md.append("| %s | %s | %s | %s | %s / %s |" % (t, *cell, p.get("stopped"), p.get("kept")))
    md.append("")
    return md


def fidelity_md(fid):
    """The fidelity section of the report from fidelity.json."""
    rows, sm = fid.get("rows", []), fid.get("summary", {})
    stock = fid.get("stock", {})
    rel = fid.get("relative_only", {}).get("all")
    sim = fid.get("simulator", {})
    total = sm.get("all", {"within": sum(bool(r["within"]) for r in rows), "runs": len(rows)})
    md = ["## Fidelity: the simulator against the guest\n",
          "Each recorded run replayed in the simulator (evaluation/fidelity.py: `cpuidle-sim "
          "replay` with the run's governor and table, %s) against what the guest's own "
          "tracepoints measured of it: above and below per entry, each state's share of the "
          "time in states. The goal: %s.\n" % (
              " ".join(sim.get("flags", [])) or "the simulator's own world",
              fid.get("goal", "within 25 %")),
          "**%d of %d metrics are within the goal, %d miss it**%s%s.\n" % (
              total["within"], total["runs"], total["runs"] - total["within"],
              " (%d of them only by the absolute floor)" % (total["within"] - rel["within"])
              if rel else "",
              "; in the simulator's own world (no emulator model) %d of %d" % (
                  stock["all"]["within"], stock["all"]["runs"]) if "all" in stock else "")]
    md.append("| metric | within the goal | own world |")
    md.append("|---|---|---|")
    for m, c in sm.items():
        if m != "all":
            o = stock.get(m)
            md.append("| %s | %d of %d | %s |" % (
                m, c["within"], c["runs"], "%d of %d" % (o["within"], o["runs"]) if o else "-"))
    md.append("")
    tc = sim.get("tick_costs_us")
    if tc:
        md.append("The emulated world's tick costs (decide, stop, restart, us; %s): %s.\n" % (
            sim.get("tick_costs_from", "?"),
            ", ".join("%s %s" % (t, "/".join(map(str, c))) for t, c in sorted(tc.items()))))
    cross = fid.get("cross", {})
    if cross.get("ratios"):
        wake = {(r["table"], r["set"], r["governor"]): r for r in cross.get("rows", [])}
        md.append("### The governors on the same input\n")
        md.append("Every recorded trace replayed with every governor in that model (the "
                  "cross block): the mean wake-up latency of the periods an interrupt ended, "
                  "from the interrupt to the woken task (an emulated delay to a halted CPU, "
                  "the exit latency, the restart of a stopped tick), and its ratio to teo's; "
                  "rteo-parity/teo is the A/A control (deterministic: exactly 1).\n")
        md.append("| table | set | teo us | rteo/teo | menu/teo | rteo-parity/teo |")
        md.append("|---|---|---|---|---|---|")
        rat = {(r["table"], r["set"], r["num"]): r["ratio"] for r in cross["ratios"]}
        for t, st in sorted({(r["table"], r["set"]) for r in cross["ratios"]}):
            teo = wake.get((t, st, "teo"), {}).get("wake_us")
            md.append("| %s | %s | %s | %s | %s | %s |" % (
                t, st, fmt(teo) if teo is not None else "-",
                *(fmt(rat.get((t, st, g))) if rat.get((t, st, g)) is not None else "-"
                  for g in ("rteo", "menu", "rteo-parity"))))
        md.append("")
    for why in fid.get("missing", []):
        md.append("- no replay of %s %s %s (%s): %s" % (
            why.get("table"), why.get("workload"), why.get("governor"), why.get("config", ""),
            why.get("why")))
    runs = []
    for r in rows:
        k = (r["table"], r["workload"], r["governor"])
        if not runs or runs[-1][0] != k:
            runs.append((k, []))
        runs[-1][1].append(r)
    for (table, work, gov), rs in runs:
        n = sum(bool(r["within"]) for r in rs)
        md.append("### %s, %s, %s: %d of %d within the goal\n" % (table, work, gov, n, len(rs)))
        e = rs[0]
        if e.get("entries_sim") is not None:
            md.append("Entries: simulator %s, guest %s.\n" % (e["entries_sim"], e.get("entries_guest")))
        md.append("| metric | sim | guest | within 25 %? | sim, own world |")
        md.append("|---|---|---|---|---|")
        for r in rs:
            md.append("| %s | %s | %s | %s | %s |" % (
                r["metric"], fmt_share(r["sim"]), fmt_share(r["guest"]),
                ("yes" if r.get("within_relative", True) else "yes (floor)") if r["within"]
                else "**no**", fmt_share(r.get("sim_stock"))))
        md.append("")
    return md


def losses_md(ratios, main_r, aa, tables):
    """The report's "Where rteo loses to teo": rteo/teo's losses, the A/A
    control's misses and its width, and each table's count."""
    md = ["## Where rteo loses to teo\n"]
    losses = [r for r in main_r if r["verdict"] == "worse"]
    md += ["- %s, %s %s: rteo is worse than teo, ratio %s" % (
        r["table"], r["benchmark"], r["metric"], fmt_ratio(r)) for r in losses] or \
        ["- nowhere shown by this run"]
    aa_r = [r for r in ratios if (r["num"], r["den"]) == AA and differs(r)]
    if aa_r:
        md.append("- the A/A control rteo-parity/teo excludes 1 in %d of %d metrics (about 1 in 20 "
                  "by chance alone; more: the run's noise exceeds its intervals, or the parity "
                  "mode is not teo):" % (len(aa_r), len(aa)))
        md += ["  - %s, %s %s: %s" % (r["table"], r["benchmark"], r["metric"], fmt_ratio(r))
               for r in aa_r]
    wide = [r for r in ratios if (r["num"], r["den"]) == AA and r["n"] >= MIN_REPS
            and (r["benchmark"], r["metric"]) not in INFO
            and r["reps_for_5pct"] and (r["ci_low"] < 1 / 1.05 or r["ci_high"] > 1.05)]
    if wide:
        md.append("- the A/A interval is wider than +-5 %% in %d of %d metrics; the repetitions "
                  "a +-5 %% interval would need, from the spread of its log ratios:" % (
                      len(wide), len(aa)))
        md += ["  - %s, %s %s: %s from %d repetitions; about %d needed" % (
            r["table"], r["benchmark"], r["metric"], fmt_ratio(r), r["n"], r["reps_for_5pct"])
            for r in wide]
    md.append("")
    for t in tables:
        rs = [r for r in main_r if r["table"] == t]
        if rs:
            md.append("- %s: rteo/teo better in %d, worse in %d, no difference shown in %d of %d." % (
                t, *(sum(r["verdict"] == v for r in rs) for v in ("better", "worse", "no difference shown")),
                len(rs)))
    md.append("")
    return md


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("logs", nargs="+", metavar="log")
    ap.add_argument("--sim", help="the simulator's JSON (cpuidle-sim run --json)")
    ap.add_argument("--commands", help="the commands of the run, one a line")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)

    try:
        data, meta, errors, done, bad = parse_logs(args.logs)
    except ValueError as e:
        print("bench-report: %s" % e, file=sys.stderr)
        return 2
    guest, ratios, aa, exitlat = analyse(data, meta)
    complete = done and not errors and bool(data)
    tables = sorted({t for t, _, _ in data})
    commands = []
    if args.commands:
        with open(args.commands) as f:
            commands = [l.rstrip("\n") for l in f if l.strip()]

    md = ["# rcpuidle governor evaluation: in-guest benchmarks\n"]
    if commands:
        md += ["The commands of the run, in order:\n", "```"] + commands + ["```\n"]
    if len(args.logs) > 1:
        md.append("Pooled from %d logs (%s), in that order; the repetitions of each are "
                  "numbered on after the last of the one before.\n" % (
                      len(args.logs), ", ".join(args.logs)))
    md += run_header(complete, errors, done, bool(data), "BENCH", bad, meta)
    md.append("Medians over the repetitions (the governors of a repetition run back to back, in "
              "rotating order). Ratios are of the medians over the repetitions both governors ran; "
              "their 95 %% CI is a paired bootstrap over the repetitions (%d resamples, seed %#x). "
              "All metrics are lower-is-better but %s, which only describe the run. Verdict: "
              "*better* only if the CI lies below 1, *worse* only if above (and only from %d "
              "repetitions on); rteo-parity (rteo in "
              "its parity mode, which must behave as teo) against teo is the A/A control, whose "
              "interval is the noise floor: with 95 %% intervals about 1 metric in 20 differs by "
              "chance alone.\n" % (
                  RESAMPLES, SEED, " and ".join("%s %s" % k for k in sorted(INFO)), MIN_REPS))

    main_r = [r for r in ratios if r["num"] == "rteo" and r["den"] == "teo"]
    md += losses_md(ratios, main_r, aa, tables)

    md.append("## Per table\n")
    plots = []
    for t in tables:
        md += table_md(t, guest, ratios, exitlat)
        rows = [r for r in ratios if r["table"] == t]
        names = ["ratios-%s.png" % safe(t)] if rows else []
        if rows:
            plot_ratios(os.path.join(args.outdir, names[0]), t, rows)
        names.append("reps-%s.png" % safe(t))
        plot_reps(os.path.join(args.outdir, names[-1]), t, data)
        plots += names
        md += ["![%s](%s)\n" % (n, n) for n in names]

    summary = dict(complete=complete, errors=errors, malformed_lines=len(bad),
                   meta={k: [" ".join(v) for v in vs] for k, vs in meta.items()},
                   commands=commands, guest=guest, ratios=ratios, aa_width=aa,
                   exit_latency=exitlat, plots=plots)
    tc_path = os.path.join(args.outdir, "tickcost.json")
    if os.path.exists(tc_path):
        with open(tc_path) as f:
            tc = json.load(f)
        summary["tickcost"] = tc
        md += tickcost_md(tc)
    fid_path = os.path.join(args.outdir, "fidelity.json")
    if os.path.exists(fid_path):
        with open(fid_path) as f:
            fid = json.load(f)
        summary["fidelity"] = fid.get("rows", [])
        summary["fidelity_summary"] = {k: v for k, v in fid.items() if k != "rows"}
        md += fidelity_md(fid)
    if args.sim:
        # the simulator's headline blocks; its per-class detail stays in
        # its own JSON and report
        with open(args.sim) as f:
            sim = json.load(f)
        summary["simulator"] = {k: sim[k] for k in SIM_KEYS if k in sim}
        md.append("## Simulator\n\nThe simulator's report of this run: `%s` (and `%s`); "
                  "its headline blocks (%s) are in summary.json under \"simulator\".\n" % (
                      os.path.splitext(os.path.basename(args.sim))[0] + ".md",
                      os.path.basename(args.sim), ", ".join(k for k in SIM_KEYS if k in sim)))

    with open(os.path.join(args.outdir, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(args.outdir, "summary.json"), "w") as f:
        json.dump(jsonable(summary), f, indent=1, sort_keys=True)
    print("bench: report in %s/report.md, summary in %s/summary.json%s" % (
        args.outdir, args.outdir, "" if complete else " (the run is INCOMPLETE)"))
    return 0 if complete else 1


if __name__ == "__main__":
    sys.exit(main())
