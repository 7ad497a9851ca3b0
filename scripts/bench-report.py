#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-report.py OUTDIR GUEST_LOG SIM_BIN COMMANDS_FILE

Assembles the evaluation report from the simulator's output (OUTDIR/sim.json,
OUTDIR/sim.md, OUTDIR/sim-*.png) and the BENCH lines of an in-guest run:
OUTDIR/report.md, OUTDIR/summary.json and OUTDIR/guest-*.png (drawn by
`cpuidle-sim --plot`).  Medians and min-max spread over the repetitions of
one boot; governors are only compared within that run."""

import json
import os
import statistics
import subprocess
import sys

GOVS = ["rteo", "teo", "menu"]
METRICS = [
    ("pipe_rtt", "pipe ping-pong round trip (us)", "lower"),
    ("timer_p50", "periodic timer lateness, median (us)", "lower"),
    ("timer_p99", "periodic timer lateness, p99 (us)", "lower"),
    ("wake_p50", "wake-up latency, median (us)", "lower"),
    ("wake_p99", "wake-up latency, p99 (us)", "lower"),
    ("above_pct", "idle: too deep (above) % of entries", "lower"),
    ("below_pct", "idle: too shallow (below) % of entries", "lower"),
    ("idle_energy_uj", "idle: emulated energy of 2 s (uJ)", "lower"),
]


def parse_guest(path):
    runs, qos, errors, done = {}, {}, [], False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("BENCH-ERROR"):
                errors.append(line)
            if line == "BENCH-DONE":
                done = True
            if not line.startswith("BENCH "):
                continue
            parts = line.split()
            if len(parts) != 6:
                continue
            _, table, gov, rep, metric, value = parts
            try:
                v = float(value)
            except ValueError:
                continue
            if rep.startswith("qos"):
                qos.setdefault(table, {}).setdefault(gov, {})[rep + ":" + metric] = v
            else:
                runs.setdefault(table, {}).setdefault(gov, {}).setdefault(metric, []).append(v)
    return runs, qos, errors, done


def order(gs):
    """rteo, teo, menu, then any other governor or rteo variant (rteo-off=MASK) of the run."""
    return [g for g in GOVS if g in gs] + sorted(g for g in gs if g not in GOVS)


def paired(runs, table, metric, a="rteo", b="teo"):
    """Per-repetition ratios a/b of one metric (the governors of a repetition run back to back)."""
    va = runs.get(table, {}).get(a, {}).get(metric, [])
    vb = runs.get(table, {}).get(b, {}).get(metric, [])
    return [x / y for x, y in zip(va, vb) if y > 0]


def stats(vals):
    return {
        "median": statistics.median(vals),
        "min": min(vals),
        "max": max(vals),
        "n": len(vals),
    }


def main():
    out, log, sim_bin, cmds_file = sys.argv[1:5]
    with open(os.path.join(out, "sim.json")) as f:
        sim = json.load(f)
    with open(os.path.join(out, "sim.md")) as f:
        sim_md = f.read()
    with open(cmds_file) as f:
        commands = [l.rstrip("\n") for l in f if l.strip()]
    runs, qos, errors, done = parse_guest(log)
    guest = {
        t: {g: {m: stats(v) for m, v in ms.items()} for g, ms in gs.items()}
        for t, gs in runs.items()
    }

    md = []
    md.append("# rcpuidle governor evaluation\n")
    md.append("Produced by `make bench`; the commands, in order:\n")
    md.append("```")
    md.extend(commands)
    md.append("```\n")
    if not done or errors:
        md.append("**The guest run did not complete:** %s\n" % (", ".join(errors) or "no BENCH-DONE"))

    ov = sim["overall"]
    md.append("## Headline\n")
    md.append("Simulator over the whole corpus (energy-weighted regret; too deep / too shallow = entries "
              "counted by the kernel's above/below rule per 100 idle periods of the workload), "
              "and the in-guest medians on the x86-like emulated table.\n")
    md.append("| | energy regret vs oracle | too deep /100 periods | too shallow /100 periods | exact state % | pipe RTT (us) | timer p50 (us) | wake p50 (us) |")
    md.append("|---|---|---|---|---|---|---|---|")
    x86 = guest.get("x86-like", {})
    for g in GOVS:
        s = ov[g]
        gm = x86.get(g, {})
        cell = lambda m: "%.1f" % gm[m]["median"] if m in gm else "-"
        md.append("| %s | %.4f | %.2f | %.2f | %.1f | %s | %s | %s |" % (
            g, s["energy_regret"], s["too_deep_pct"], s["too_shallow_pct"], s["exact_pct"],
            cell("pipe_rtt"), cell("timer_p50"), cell("wake_p50")))
    md.append("| oracle | 0 | 0 | 0 | 100 | - | - | - |\n")
    md.append("Per entry (the ratio of the kernel's own counters): " + ", ".join(
        "%s above %.2f%% / below %.2f%%" % (g, ov[g]["above_per_entry_pct"], ov[g]["below_per_entry_pct"])
        for g in GOVS) + ".\n")
    ex = []
    for g in GOVS:
        rs = [x for x in sim["per_table_class"] if x["governor"] == g and x["class"] != "qos-limited"]
        p = sum(x["periods"] for x in rs) or 1
        ex.append("%s %.2f / %.2f" % (g, sum(x["too_deep_pct"] * x["periods"] for x in rs) / p,
                                       sum(x["too_shallow_pct"] * x["periods"] for x in rs) / p))
    md.append("Without the qos-limited class (whose below counts are states the QoS limit forbids, which the "
              "kernel's rule counts anyway), too deep / too shallow per 100 periods: " + ", ".join(ex) + ".\n")
    r, t, m = ov["rteo"], ov["teo"], ov["menu"]
    md.append("Targets (simulator, per 100 periods): energy regret <= 0.5 x teo's: rteo/teo = %.3f (%s); "
              "too deep <= teo's: %.2f vs %.2f (%s); too shallow <= menu's: %.2f vs %.2f (%s).\n" % (
                  r["energy_regret"] / t["energy_regret"],
                  "met" if r["energy_regret"] <= 0.5 * t["energy_regret"] else "NOT met",
                  r["too_deep_pct"], t["too_deep_pct"], "met" if r["too_deep_pct"] <= t["too_deep_pct"] else "NOT met",
                  r["too_shallow_pct"], m["too_shallow_pct"],
                  "met" if r["too_shallow_pct"] <= m["too_shallow_pct"] else "NOT met"))

    md.append("Targets in the guest (medians <= teo's): per table, the medians of rteo and teo, and the "
              "per-repetition ratio rteo/teo (median, min-max, repetitions where rteo is not slower).\n")
    md.append("| table | metric | rteo | teo | ratio rteo/teo per repetition | rteo <= teo | target |")
    md.append("|---|---|---|---|---|---|---|")
    guest_targets = {}
    for table in sorted(guest):
        gs = guest[table]
        if "rteo" not in gs or "teo" not in gs:
            continue
        for mkey, name in [("pipe_rtt", "pipe ping-pong round trip (us)"),
                           ("timer_p50", "periodic timer lateness, median (us)")]:
            a, b = gs["rteo"].get(mkey), gs["teo"].get(mkey)
            rs = paired(runs, table, mkey)
            if not a or not b or not rs:
                continue
            met = a["median"] <= b["median"]
            guest_targets.setdefault(table, {})[mkey] = {
                "rteo": a["median"], "teo": b["median"], "met": met,
                "ratio": stats(rs), "not_slower": sum(r <= 1 for r in rs)}
            md.append("| %s | %s | %.1f | %.1f | %.3f (%.3f-%.3f) | %d of %d | %s |" % (
                table, name, a["median"], b["median"], statistics.median(rs), min(rs), max(rs),
                sum(r <= 1 for r in rs), len(rs), "met" if met else "NOT met"))
    md.append("")

    # where rteo loses
    losses = []
    for c in sim["per_class"]:
        if c["governor"] != "rteo":
            continue
        teo = next(x for x in sim["per_class"] if x["class"] == c["class"] and x["governor"] == "teo")
        for k, name in [("energy_regret", "energy regret"), ("too_deep_pct", "too deep /100 periods"),
                        ("too_shallow_pct", "too shallow /100 periods")]:
            if c[k] > teo[k] + 1e-9:
                losses.append("simulator, %s: %s %.4f vs teo %.4f" % (c["class"], name, c[k], teo[k]))
    for table, gs in guest.items():
        if "rteo" not in gs or "teo" not in gs:
            continue
        for mkey, name, _ in METRICS:
            a, b = gs["rteo"].get(mkey), gs["teo"].get(mkey)
            if a and b and a["median"] > b["median"]:
                losses.append("guest %s: %s median %.3f vs teo %.3f (spread %.3f-%.3f vs %.3f-%.3f)" % (
                    table, name, a["median"], b["median"], a["min"], a["max"], b["min"], b["max"]))
    md.append("## Where rteo loses to teo\n")
    if losses:
        md.extend("- " + l for l in losses)
    else:
        md.append("- nowhere in this run")
    md.append("")

    md.append("## In-guest benchmarks (x86_64 QEMU TCG, emulated tables)\n")
    md.append("Median and (min-max) over the repetitions of one boot; governors interleave within each "
              "repetition. TCG timing is noisy: compare within a row only.\n")
    plots = []
    for table in sorted(guest):
        gs = guest[table]
        md.append("### %s\n" % table)
        md.append("| metric | " + " | ".join(order(gs)) + " |")
        md.append("|---|" + "---|" * len(order(gs)))
        for mkey, name, _ in METRICS:
            row = []
            for g in order(gs):
                s = gs[g].get(mkey)
                row.append("%.2f (%.2f-%.2f)" % (s["median"], s["min"], s["max"]) if s else "-")
            md.append("| %s | %s |" % (name, " | ".join(row)))
        md.append("")
    if qos:
        md.append("### Per-CPU resume latency (1 us on CPU1, sysfs)\n")
        md.append("CPU1's timer lateness (median, us) and CPU0's time in its deepest state (ms per s) while the "
                  "timer runs on CPU1, without (0 = no constraint) and with the limit.\n")
        md.append("| table | governor | CPU1 timer p50, no limit | CPU1 timer p50, 1 us | CPU0 deepest ms/s, no limit | CPU0 deepest ms/s, 1 us |")
        md.append("|---|---|---|---|---|---|")
        for table in sorted(qos):
            for g in order(qos[table]):
                q = qos[table].get(g)
                if not q:
                    continue
                md.append("| %s | %s | %s | %s | %s | %s |" % (
                    table, g, q.get("qos0:cpu1_timer_p50", "-"), q.get("qos1:cpu1_timer_p50", "-"),
                    q.get("qos0:cpu0_deepest_ms_per_s", "-"), q.get("qos1:cpu0_deepest_ms_per_s", "-")))
        md.append("")

    # plots of the guest medians
    tables = sorted(guest)
    for mkey, title, fname in [("pipe_rtt", "pipe rtt us median", "guest-pipe.png"),
                               ("timer_p50", "timer lateness p50 us", "guest-timer.png"),
                               ("idle_energy_uj", "idle energy uj median", "guest-energy.png")]:
        csv = os.path.join(out, fname + ".csv")
        with open(csv, "w") as f:
            f.write("," + ",".join(tables) + "\n")
            for g in GOVS:
                f.write(g + "," + ",".join(
                    "%.4f" % guest[t].get(g, {}).get(mkey, {}).get("median", 0.0) for t in tables) + "\n")
        if subprocess.call([sim_bin, "--plot", os.path.join(out, fname), title, csv]) == 0:
            plots.append(fname)
        os.unlink(csv)
    for p in plots:
        md.append("![%s](%s)\n" % (p, p))

    md.append(sim_md.replace("## Simulator", "## Simulator", 1))
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    summary = {
        "commands": commands,
        "guest_complete": done and not errors,
        "simulator": sim,
        "guest": guest,
        "per_cpu_resume_latency": qos,
        "guest_targets": guest_targets,
        "losses": losses,
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    print("bench: report in %s/report.md, summary in %s/summary.json" % (out, out))
    return 0 if done and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
