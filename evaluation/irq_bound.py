#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""irq_bound.py LOG [--sim BIN] [--governor GOV]

How much of a governor's excess energy a predictor of interrupt wake-ups
per source could remove at most, from a `make record` recording (LOG:
record.log, plain or .xz; evaluation/record-boots.sh), per table, on the
held-out workloads (evaluation/trace2corpus.py's HELDOUT), in the guest's
own runs of GOV (default teo).

Each run's entries are joined into idle periods as trace2corpus.py joins
them.  A period's energy is the current model's (cpuidle_tables.rs, as
`cpuidle-sim --replay` reports it: each entry's state power over its
time, the exit latency's spin included, plus the entry's own energy); its
optimum, the cheapest single entry for the time from its first entry to
its wake-up (the deepest state whose target residency fits it: the model's
break-evens are the targets); its excess, the difference.  Periods are
classed by what woke their last entry (guest/record.sh's source): the
local timer, a device interrupt (irqN), an IPI, work (irq_work), none (a
polling state left on need_resched).

A predictor of each source's next interrupt from its own interval history
(the kernel's removed IRQ-timings idea) can shorten no period but those
its source ended, so it can remove at most their excess: the device
interrupts' share of the interrupt-ended excess (the sources IRQ timings
tracked), and with the IPIs counted as one more source.  Where that share
is below the stop rule's 30 %, no such predictor meets it (issue 39,
point 3), however good.  Prints one markdown table.
"""

import argparse
import lzma
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402  (simulator(), replay())
import trace2corpus as t2c  # noqa: E402

STOP_RULE = 0.30
CLASSES = ("irq", "ipi", "work", "none")


def read_runs(log):
    """trace2corpus.py's reading of the log: its runs (entries with their
    recorded wake-up source only) and exit latencies."""
    opener = lzma.open if log.endswith(".xz") else open
    with opener(log, "rt", errors="replace") as f:
        runs, exits, _, _ = t2c.read_log(f)
    runs = {k: cpus for k, cpus in runs.items()
            if all(r["wsrc"] is not None for c in cpus.values() for r in c)}
    return runs, exits


def model_of(binary, table, scratch):
    """(model_mw, entry_nj, exit latency ns) per state, from a replay."""
    trace = os.path.join(scratch, "one.trace")
    with open(trace, "w") as f:
        f.write("1000 1000 timer 1000 2000000000 0\n")
    r, why = fidelity.replay(binary, trace, table, "teo", [])
    if r is None:
        sys.exit("irq_bound: replay on %s failed: %s" % (table, why))
    n = len(r["model_mw"])
    return ([r["model_mw"]["s%d" % i] for i in range(n)],
            [r["entry_nj"]["s%d" % i] for i in range(n)],
            [int(r["exit_latency_ns"]["s%d" % i]) for i in range(n)])


def excess_by_source(cpus, exits, model):
    """{class: excess nJ}, {class: periods} of one run's periods."""
    mw, enj, lat_ns = model
    ex, count = {}, {}
    for recs in cpus.values():
        recs = sorted(recs, key=lambda r: r["t"])
        for k, r in enumerate(recs):
            r["polled_out"] = t2c.polled_out(recs, k)
        for _, i, k in t2c.walk_spans(recs, exits):
            ents = recs[i:k + 1]
            start = ents[0]["t"]
            idle = ents[-1]["t"] + t2c.idle_of(ents[-1], exits) - start
            if idle <= 0:
                continue
            energy = sum(mw[e["state"]] * e["dur"] + enj[e["state"]] for e in ents)
            best = min(mw[s] * (idle + lat_ns[s] / 1000) + enj[s] for s in range(len(mw)))
            w = ents[-1]["wsrc"]
            c = "timer" if w == "timer" else t2c.src_class(w)
            ex[c] = ex.get(c, 0.0) + energy - best
            count[c] = count.get(c, 0) + 1
    return ex, count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log")
    ap.add_argument("--sim", help="the cpuidle-sim binary (default: build it)")
    ap.add_argument("--governor", default="teo")
    args = ap.parse_args()
    runs, exits = read_runs(args.log)
    if not runs:
        sys.exit("irq_bound: no REC lines with wake-up sources in %s" % args.log)
    binary = fidelity.simulator(args.sim)
    scratch = tempfile.mkdtemp(prefix="irq-bound.")
    try:
        models = {t: model_of(binary, t, scratch) for t in sorted({k[0] for k in runs})}
    finally:
        shutil.rmtree(scratch)
    print("Held-out periods of %s's own runs (%s): excess energy over the optimum, uJ, by what"
          " ended the period; the shares are of the interrupt-ended excess"
          % (args.governor, os.path.basename(args.log)))
    print()
    print("| table | periods | excess, all | timer | interrupt-ended | device irq | ipi | work"
          " | none | device irq share | device irq + ipi share | stop rule %d %% reachable |"
          % (100 * STOP_RULE))
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for t in sorted(models):
        ex, count = {}, {}
        for (table, work, gov), cpus in sorted(runs.items()):
            if table != t or gov != args.governor or not t2c.heldout(work):
                continue
            e, c = excess_by_source(cpus, exits[t], models[t])
            for k, v in e.items():
                ex[k] = ex.get(k, 0.0) + v
            for k, v in c.items():
                count[k] = count.get(k, 0) + v
        irq_ended = sum(ex.get(c, 0.0) for c in CLASSES)
        share = ex.get("irq", 0.0) / irq_ended if irq_ended > 0 else None
        share2 = (ex.get("irq", 0.0) + ex.get("ipi", 0.0)) / irq_ended if irq_ended > 0 else None

        def uj(v):
            return "%.0f" % (v / 1000)

        def pct(v):
            return "-" if v is None else "%.1f %%" % (100 * v)
        print("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            t, sum(count.values()), uj(sum(ex.values())), uj(ex.get("timer", 0.0)),
            uj(irq_ended), uj(ex.get("irq", 0.0)), uj(ex.get("ipi", 0.0)),
            uj(ex.get("work", 0.0)), uj(ex.get("none", 0.0)), pct(share), pct(share2),
            "-" if share2 is None else "yes" if share2 >= STOP_RULE else "no"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
