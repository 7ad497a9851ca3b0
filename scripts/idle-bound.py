#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""idle-bound.py LOG OUTDIR [--sim BINARY]

How low any governor's idle energy can go against teo's on the guest's idle
benchmark, from a recording of it (scripts/record-guest.sh with
rcpuidle.bench.record_workloads=idle and record_reps=N; each trace is the
benchmark's own window, `sleep 2` on an idle guest).

For every trace: the emulated energy the driver counted over it (its
record-energy line: what the governor really spent, as bench-guest.sh
measures it) and the energy model's optimum for the same idle periods
(`cpuidle-sim --replay`'s optimum_energy_uj: the cheapest single entry
for each period, clairvoyant, the tick never in its way; the model is the
driver's own, drivers/cpuidle/vstates.rs).  No governor spends less than
the optimum on those periods, so optimum / teo's energy is the lowest
idle-energy ratio against teo that any governor can show on this
workload, as far as the idle periods do not depend on the governor (the
table lists each governor's periods to show how far they do).

Writes OUTDIR/idle-bound.md and idle-bound.json (trace2corpus.py's corpus
and guest-idle.json in OUTDIR too): per table and governor, the medians
over the repetitions with bootstrap 95 % intervals (bench-report.py's
resampling): energy, optimum, optimum over energy; per table, the guest's
rteo/teo and menu/teo energy ratios (paired by repetition) and the bound
optimum(teo's periods) / teo's energy.  Exits 1 if a trace has no
record-energy line or its replay fails.
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402  (simulator(), replay())

_spec = importlib.util.spec_from_file_location("bench_report", os.path.join(HERE, "bench-report.py"))
bench_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_report)

REP = re.compile(r"^(?P<work>.+)-r(?P<rep>[0-9]+)$")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("log")
    ap.add_argument("outdir")
    ap.add_argument("--sim", help="cpuidle-sim binary (default: built with cargo)")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    subprocess.run([sys.executable, os.path.join(HERE, "trace2corpus.py"), args.log, args.outdir],
                   check=True)
    with open(os.path.join(args.outdir, "guest-idle.json")) as f:
        runs = json.load(f)["runs"]
    binary = fidelity.simulator(args.sim)
    # (table, governor) -> rep -> (energy, optimum, periods)
    data, problems = {}, []
    for r in runs:
        m = REP.match(r["workload"])
        work, rep = (m["work"], int(m["rep"])) if m else (r["workload"], 1)
        if work != "idle":
            continue
        name = "%s.%s.%s" % (r["table"], r["workload"], r["governor"])
        if r.get("energy_uj") is None:
            problems.append("%s: no record-energy line" % name)
            continue
        trace = os.path.join(args.outdir, "corpus", r["set"], name + ".trace")
        sim, err = fidelity.replay(binary, trace, r["table"], r["governor"], [])
        if sim is None:
            problems.append("%s: replay failed: %s" % (name, err))
            continue
        data.setdefault((r["table"], r["governor"]), {})[rep] = (
            float(r["energy_uj"]), float(sim["optimum_energy_uj"]), int(sim["periods"]))
    if not data:
        problems.append("no idle traces in %s" % args.log)
    out = {"log": args.log, "problems": problems, "governors": [], "tables": []}
    md = ["# The idle benchmark's energy floor",
          "",
          "From `%s` (`scripts/idle-bound.py`). Per governor's own traces: the driver's "
          "emulated energy (uJ), the energy model's optimum for the same idle periods, "
          "and the optimum over the energy; medians over the repetitions, bootstrap 95 %% "
          "intervals." % os.path.basename(args.log),
          "",
          "| table | governor | reps | periods | energy (uJ) | optimum (uJ) | optimum / energy |",
          "|---|---|---|---|---|---|---|"]
    ci = lambda v: "%.3f [%.3f, %.3f]" % bench_report.median_ci(v)  # noqa: E731
    for (table, gov), reps in sorted(data.items()):
        e = [reps[k][0] for k in sorted(reps)]
        o = [reps[k][1] for k in sorted(reps)]
        p = [reps[k][2] for k in sorted(reps)]
        frac = [a / b if b else float("inf") for a, b in zip(o, e)]
        out["governors"].append({"table": table, "governor": gov, "reps": sorted(reps),
                                 "energy_uj": e, "optimum_uj": o, "periods": p,
                                 "optimum_over_energy": bench_report.median_ci(frac)})
        md.append("| %s | %s | %d | %s | %.0f | %.0f | %s |" % (
            table, gov, len(reps), "%g" % bench_report.median_ci(p)[0],
            bench_report.median_ci(e)[0], bench_report.median_ci(o)[0], ci(frac)))
    md += ["",
           "Per table, paired by repetition: the guest's energy ratios, and the floor "
           "(the optimum for teo's periods over teo's energy) that no governor's ratio "
           "against teo goes below while the periods stay teo's.",
           "",
           "| table | rteo / teo | menu / teo | floor: optimum / teo |",
           "|---|---|---|---|"]
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
                [d[k][0] for k in reps], [teo[k][0] for k in reps], lambda a, b: a / b)
            cells.append("%.3f [%.3f, %.3f]" % row[gov + "_over_teo"])
        if len(teo) >= 2:
            row["floor"] = bench_report.paired([teo[k][1] for k in sorted(teo)],
                                               [teo[k][0] for k in sorted(teo)], lambda a, b: a / b)
            cells.append("%.3f [%.3f, %.3f]" % row["floor"])
        else:
            cells.append("-")
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
