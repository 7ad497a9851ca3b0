#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tickcost.py LOG OUTDIR

What deciding, stopping the tick and restarting it cost in the guest, from
the "TICKCOST ..." lines of a bench-mode console LOG
(evaluation/guest/tickcost.sh, one line per idle period):

  TICKCOST table governor workload cpu stopped kind enter_us exit_us

Per table:
  decide_us   the median enter_us of the periods that kept the tick: from
              the sleep-length event (cpuidle_select(), before the
              governor) to the entry, the governor's select() and
              tick_nohz_idle_retain_tick();
  stop_us     what stopping the tick adds to that: per (governor,
              workload), the median enter_us of the periods that stopped
              the tick less that of the periods that kept it;
  restart_us  what restarting it adds to the way out: per (governor,
              workload, kind), the median exit_us (last exit to the switch
              away from the idle task) of the stopped periods less that of
              the kept ones, kind apart (a timer's callback and an IPI's
              handler differ);
each difference over the cells with at least MIN_N periods of both, their
mean weighted by n_stopped * n_kept / (n_stopped + n_kept), with a
bootstrap 95 % CI (the periods of every group resampled);
  decide_vs_teo  per governor besides teo, what its decision path costs
              more than teo's, in ns: per workload, the mean enter_us of
              its periods that kept the tick less teo's, combined as above
              (means: a difference of a few hundred nanoseconds; under
              QEMU's instruction counter, RCPUIDLE_ICOUNT=0, the trace is
              stamped in TSC cycles and a nanosecond is an instruction);
  exit_vs_teo the same of exit_us, per workload and wake-up kind: the
              way out of the kept periods (the governor's reflect()).
The simulator's emulated world takes them (cpuidle-sim --tick-costs-us
DECIDE,STOP,RESTART; evaluation/fidelity.py passes each table's on).

Writes OUTDIR/tickcost.json and prints the estimates.  Fails (exit 1, after
writing) when the guest did not finish (no BENCH-DONE), reported an error,
lost trace events in a run (its periods are not trusted: the run is left
out), or a table has no cell for an estimate; without numpy exits 2.
"""

import json
import os
import re
import sys
from collections import defaultdict

try:
    import numpy as np
except ImportError as e:
    print("tickcost: %s: install python3-numpy (pipeline/setup.sh) and run this with "
          "/usr/bin/python3" % e, file=sys.stderr)
    sys.exit(2)

SEED = 0x71C
RESAMPLES = 2000
MIN_N = 10
LINE = re.compile(r"\b(TICKCOST|BENCH-META tickcost|BENCH-DONE|BENCH-ERROR)\b(.*)")


def parse(path):
    rows, lost, bad, done, errors = [], {}, 0, False, []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.search(line)
            if not m:
                continue
            kind, rest = m.group(1), m.group(2).split()
            if kind == "BENCH-DONE":
                done = True
            elif kind == "BENCH-ERROR":
                errors.append(" ".join(rest))
            elif kind == "BENCH-META tickcost":
                if len(rest) == 5 and rest[3] == "lost" and rest[4].isdigit():
                    lost[tuple(rest[:3])] = int(rest[4])
            else:
                try:
                    table, gov, work = rest[0], rest[1], rest[2]
                    cpu, stopped = int(rest[3]), int(rest[4])
                    wk, enter, exit_ = rest[5], float(rest[6]), float(rest[7])
                    if len(rest) != 8 or stopped not in (0, 1) or wk not in ("timer", "irq") \
                            or enter < 0 or exit_ < 0 or cpu < 0:
                        raise ValueError
                except (ValueError, IndexError):
                    bad += 1
                    continue
                rows.append((table, gov, work, stopped, wk, enter, exit_))
    return rows, lost, bad, done, errors


def weighted_diff(cells, rng, stat):
    """cells: [(a values, b values)]; the mean over the cells with at least
    MIN_N of both of stat(a) - stat(b), weighted by n_a * n_b / (n_a +
    n_b), and its bootstrap CI: (point, low, high, cells kept), or None.
    stat is np.median or np.mean (with an axis argument)."""
    cells = [(np.asarray(a), np.asarray(b)) for a, b in cells
             if len(a) >= MIN_N and len(b) >= MIN_N]
    if not cells:
        return None
    w = np.array([len(a) * len(b) / (len(a) + len(b)) for a, b in cells])
    w /= w.sum()
    point = float(sum(wi * (stat(a) - stat(b)) for wi, (a, b) in zip(w, cells)))
    boot = np.zeros(RESAMPLES)
    for wi, (a, b) in zip(w, cells):
        i = rng.integers(0, len(a), (RESAMPLES, len(a)))
        j = rng.integers(0, len(b), (RESAMPLES, len(b)))
        boot += wi * (stat(a[i], axis=1) - stat(b[j], axis=1))
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return point, float(lo), float(hi), cells


def combine(cells, rng):
    """cells: [(stopped values, kept values)]; the weighted mean of the
    differences of medians and its bootstrap CI, in us."""
    d = weighted_diff(cells, rng, np.median)
    if d is None:
        return None
    point, lo, hi, cells = d
    return {"us": round(point, 1), "ci_low": round(lo, 1), "ci_high": round(hi, 1),
            "cells": len(cells), "periods": int(sum(len(s) + len(k) for s, k in cells))}


def vs_teo(kept, rng):
    """kept: {(gov, cell): [us]}; per governor besides teo, the weighted
    mean over the cells of its mean less teo's, in ns, with a bootstrap
    CI."""
    res = {}
    for gov in sorted({g for g, _w in kept if g != "teo"}):
        d = weighted_diff([(kept[(gov, w)], kept[("teo", w)])
                           for g, w in sorted(kept) if g == gov and ("teo", w) in kept],
                          rng, np.mean)
        if d is None:
            res[gov] = None
            continue
        point, lo, hi, cells = d
        res[gov] = {"ns": round(point * 1000), "ci_low": round(lo * 1000),
                    "ci_high": round(hi * 1000), "cells": len(cells),
                    "periods": int(sum(len(a) for a, _b in cells))}
    return res


def median_ci(v, rng):
    v = np.asarray(v)
    if len(v) < MIN_N:
        return None
    i = rng.integers(0, len(v), (RESAMPLES, len(v)))
    lo, hi = np.percentile(np.median(v[i], axis=1), [2.5, 97.5])
    return {"us": round(float(np.median(v)), 1), "ci_low": round(float(lo), 1),
            "ci_high": round(float(hi), 1), "periods": len(v)}


def estimate(rows, rng):
    enter, exit_ = defaultdict(lambda: ([], [])), defaultdict(lambda: ([], []))
    kept, kept_in, kept_out = [], defaultdict(list), defaultdict(list)
    for _t, gov, work, stopped, wk, e, x in rows:
        enter[(gov, work)][0 if stopped else 1].append(e)
        exit_[(gov, work, wk)][0 if stopped else 1].append(x)
        if not stopped:
            kept.append(e)
            kept_in[(gov, work)].append(e)
            kept_out[(gov, (work, wk))].append(x)
    return {"decide_us": median_ci(kept, rng),
            "decide_vs_teo": vs_teo(kept_in, rng),
            "exit_vs_teo": vs_teo(kept_out, rng),
            "stop_us": combine([enter[k] for k in sorted(enter)], rng),
            "restart_us": combine([exit_[k] for k in sorted(exit_)], rng),
            "periods": {"stopped": sum(1 for r in rows if r[3]),
                        "kept": sum(1 for r in rows if not r[3])}}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.splitlines()[0])
    log, outdir = sys.argv[1], sys.argv[2]
    rows, lost, bad, done, errors = parse(log)
    problems = []
    if not done:
        problems.append("the guest did not finish (no BENCH-DONE)")
    problems += ["the guest reported: %s" % e for e in errors]
    dropped = sorted(k for k, n in lost.items() if n)
    for k in dropped:
        problems.append("%s %s %s lost %d trace events: left out" % (*k, lost[k]))
    rows = [r for r in rows if r[:3] not in set(dropped)]
    if bad:
        problems.append("%d malformed TICKCOST lines" % bad)
    rng = np.random.default_rng(SEED)
    tables = sorted({r[0] for r in rows})
    if not tables:
        problems.append("no TICKCOST lines in %s" % log)
    per = {}
    for t in tables:
        per[t] = estimate([r for r in rows if r[0] == t], rng)
        for k in ("decide_us", "stop_us", "restart_us"):
            if per[t][k] is None:
                problems.append("%s: too few periods for %s" % (t, k))
    res = {"log": os.path.basename(log), "min_n": MIN_N, "resamples": RESAMPLES,
           "per_table": per, "runs": len({r[:3] for r in rows}),
           "lost_runs": ["%s %s %s" % k for k in dropped], "malformed_lines": bad,
           "complete": not problems, "problems": problems}
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "tickcost.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("tickcost: %d periods in %d runs -> %s" % (len(rows), res["runs"],
                                                     os.path.join(outdir, "tickcost.json")))
    for t in tables:
        line = ["%-20s" % t]
        for k in ("decide_us", "stop_us", "restart_us"):
            e = per[t][k]
            line.append("%s %s" % (k, "n/a" if e is None else
                                   "%.1f [%.1f, %.1f]" % (e["us"], e["ci_low"], e["ci_high"])))
        print("tickcost: " + "  ".join(line))
        for k in ("decide", "exit"):
            for g, e in per[t][k + "_vs_teo"].items():
                print("tickcost: %-20s %s %s - teo: %s" % (
                    t, k, g, "n/a" if e is None else "%+d ns [%+d, %+d] (%d periods in %d cells)" % (
                        e["ns"], e["ci_low"], e["ci_high"], e["periods"], e["cells"])))
    for p in problems:
        print("tickcost: FAIL: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
