#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle_bound.py LOG OUTDIR [--sim BINARY]

How low any governor's idle energy can go against teo's on the guest's idle
benchmark, from a recording of it (evaluation/guest/record.sh with
rcpuidle.bench.record_workloads=idle and record_reps=N; each trace is the
benchmark's own window, `sleep 2` on an idle guest).

For every trace: the emulated energy the driver counted over its window
(its record-energy line: what the benchmark measures), the driver's
energy model (drivers/cpuidle/vstates.rs: each state's power over its
time, each entry's own energy, derived from the target residencies:
cpuidle_tables.rs's entry_nj; the model from `cpuidle-sim replay`) over the traced entries alone, and, from
`cpuidle-sim replay`, the energy model's optimum for the same idle
periods (the cheapest single entry for each, clairvoyant) and the oracle's
(the deepest state whose target residency fits each).  A period is as long
as the guest was idle in it, from its sleep-length event (the governor's
decision, some microseconds, included) to the wake-up; a wake-up by a tick
that no governor could have stopped ends it (trace2corpus.py
--split-forced-ticks: the tick code gave that tick as the next event, for
a timer within it or because RCU or irq_work held it).  No governor spends
less than the optimum on those periods, so optimum / teo's traced energy
(the floor) is the lowest idle-energy ratio against teo that any governor
can show on this workload, as far as the idle periods do not depend on
the governor (the table lists each governor's periods to show how far
they do).

Writes OUTDIR/idle-bound.md and idle-bound.json (trace2corpus.py's corpus
and guest-idle.json in OUTDIR too): per table and governor, medians over
the repetitions with bootstrap 95 % intervals (bench_report.py's
resampling); per table, the guest's rteo/teo and menu/teo window energy
ratios (paired by repetition) and the floor.  Exits 1 if a trace has no
record-energy line or its replay fails.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

from evaluation import bench_report, fidelity, paths, trace2corpus


def replay_idle(runs, outdir, binary):
    """Each idle run's trace replayed under its own governor: (table,
    governor) -> repetition -> (traced energy, optimum, periods, window
    energy, oracle), and the problems met."""
    data, problems = {}, []
    for r in runs:
        work, rep = trace2corpus.split_rep(r["workload"])
        if work != "idle":
            continue
        name = "%s.%s.%s" % (r["table"], r["workload"], r["governor"])
        if r.get("energy_uj") is None:
            problems.append("%s: no record-energy line" % name)
            continue
        trace = os.path.join(outdir, "corpus", r["set"], name + ".trace")
        sim, err = fidelity.replay(binary, trace, r["table"], r["governor"], [])
        if sim is None:
            problems.append("%s: replay failed: %s" % (name, err))
            continue
        data.setdefault((r["table"], r["governor"]), {})[rep] = (
            fidelity.traced_energy(r, sim), float(sim["optimum_energy_uj"]), int(sim["periods"]),
            float(r["energy_uj"]), float(sim["oracle_energy_uj"]))
    return data, problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("outdir")
    ap.add_argument("--sim", help="cpuidle-sim binary (default: built with cargo)")
    args = ap.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    subprocess.run(paths.module_command("trace2corpus") + [args.log, args.outdir,
                                                           "--split-forced-ticks"],
                   check=True, env=paths.module_env())
    with open(os.path.join(args.outdir, "guest-idle.json")) as f:
        runs = json.load(f)["runs"]
    data, problems = replay_idle(runs, args.outdir, paths.simulator(args.sim))
    if not data:
        problems.append("no idle traces in %s" % args.log)
    out = {"log": os.path.basename(args.log), "problems": problems, "governors": [], "tables": []}
    md = ["# The idle benchmark's energy floor",
          "",
          "From `%s` (`evaluation/idle_bound.py`). Per governor's own traces, medians over the "
          "repetitions with bootstrap 95 %% intervals: the driver's emulated energy over the "
          "trace's window (uJ, as the benchmark measures it), the same model over the traced "
          "entries, the energy model's optimum for their idle periods (the cheapest state "
          "for each, clairvoyant), the oracle's energy (the deepest state whose target "
          "residency fits each period, clairvoyant: the best a governor that goes by the "
          "kernel's target residencies can do), and each over the traced entries' "
          "energy." % os.path.basename(args.log),
          "",
          "| table | governor | reps | periods | window (uJ) | traced entries (uJ) | optimum (uJ) "
          "| optimum / traced | oracle (uJ) | oracle / traced |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    col = lambda reps, i: [reps[k][i] for k in sorted(reps)]  # noqa: E731
    ci = lambda v: "%.3f [%.3f, %.3f]" % bench_report.median_ci(v)  # noqa: E731
    med = statistics.median
    for (table, gov), reps in sorted(data.items()):
        e, o, p, w, orc = (col(reps, i) for i in range(5))
        frac = [a / b if b else float("inf") for a, b in zip(o, e)]
        ofrac = [a / b if b else float("inf") for a, b in zip(orc, e)]
        out["governors"].append({"table": table, "governor": gov, "reps": sorted(reps),
                                 "window_uj": w, "traced_uj": e, "optimum_uj": o, "periods": p,
                                 "oracle_uj": orc,
                                 "optimum_over_traced": bench_report.median_ci(frac),
                                 "oracle_over_traced": bench_report.median_ci(ofrac)})
        md.append("| %s | %s | %d | %g | %.0f | %.0f | %.0f | %s | %.0f | %s |" % (
            table, gov, len(reps), med(p), med(w), med(e), med(o), ci(frac), med(orc), ci(ofrac)))
    md += ["",
           "Per table, paired by repetition: the guest's window energy ratios (the benchmark's "
           "measure); the floor, the optimum for teo's periods over what teo spent on them, "
           "below which no governor's energy goes on those periods; and the oracle's over "
           "teo's, where a governor that knew each period's length but chose by the target "
           "residencies would be.",
           "",
           "| table | rteo / teo | menu / teo | floor: optimum / teo | oracle / teo |",
           "|---|---|---|---|---|"]
    for table in sorted({t for t, _ in data}):
        teo = data.get((table, "teo"), {})
        row = {"table": table}
        cells = []
        for gov in ("rteo", "menu"):
            d = data.get((table, gov), {})
            reps = sorted(teo.keys() & d.keys())
            if len(reps) < 2:
                cells.append("-")
                continue
            row[gov + "_over_teo"] = bench_report.paired(
                [d[k][3] for k in reps], [teo[k][3] for k in reps], lambda a, b: a / b)
            cells.append("%.3f [%.3f, %.3f]" % row[gov + "_over_teo"])
        if len(teo) >= 2:
            row["floor"] = bench_report.paired(col(teo, 1), col(teo, 0), lambda a, b: a / b)
            row["oracle"] = bench_report.paired(col(teo, 4), col(teo, 0), lambda a, b: a / b)
            cells.append("%.3f [%.3f, %.3f]" % row["floor"])
            cells.append("%.3f [%.3f, %.3f]" % row["oracle"])
        else:
            cells += ["-", "-"]
        out["tables"].append(row)
        md.append("| %s | %s |" % (table, " | ".join(cells)))
    if problems:
        md += ["", "Problems:", ""] + ["- " + p for p in problems]
    with open(os.path.join(args.outdir, "idle-bound.json"), "w") as f:
        json.dump(out, f, indent=1)
    with open(os.path.join(args.outdir, "idle-bound.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
