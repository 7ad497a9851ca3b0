#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the guest targets' check (evaluation/bench_power.py).

A crafted bench summary of known ratios goes through it; each check holds
only if the targets' verdicts and the repetitions it works out are right.
Prints "ok NAME" or "FAIL NAME: ..." per check, then "bench power
self-test: N passed, N failed".  BENCH_POWER=PATH tests another copy (a
mutant).
"""
import json
import os
import subprocess
import sys
import tempfile

import selftest_checks  # noqa: E402  (evaluation/tests/selftest_checks.py)

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
POWER = os.environ.get("BENCH_POWER", os.path.join(TOP, "evaluation", "bench_power.py"))


def ratio(table, bench, metric, num, med, lo, hi, n=7):
    return dict(table=table, benchmark=bench, metric=metric, num=num, den="teo",
                median=med, ci_low=lo, ci_high=hi, n=n, verdict="no difference shown")


def crafted():
    r = [
        # met: median <= 1, interval's end <= 1.05
        ratio("t", "cyclictest", "avg_us", "rteo", 0.95, 0.90, 1.04),
        # missed on the spread: 7 * (0.12 / 0.07)^2 = 20.57 -> 21
        ratio("t", "cyclictest", "max_us", "rteo", 0.98, 0.80, 1.10),
        # the median misses (above 1, below 1.05: no repetitions help)
        ratio("t", "wake", "p50_us", "rteo", 1.02, 0.99, 1.04),
        ratio("t", "wake", "p99_us", "rteo", 1.00, 0.50, 1.05),
        ratio("t", "pipe", "usec_per_op", "rteo", 0.90, 0.85, 0.95, n=9),
        ratio("t", "hackbench", "time_s", "rteo", 0.99, 0.95, 1.07, n=10),
        # energy: strong missed on the spread, 7 * (0.1 / 0.05)^2 = 28;
        # weak met
        ratio("t", "idle", "energy_uj", "rteo", 0.85, 0.80, 0.95),
        # the A/A of one metric: upper arm 0.15 -> 7 * 9 = 63
        ratio("t", "cyclictest", "avg_us", "rteo-parity", 1.0, 0.9, 1.15),
        # a table without energy: listed as missing
        ratio("u", "cyclictest", "avg_us", "rteo", 0.95, 0.90, 1.04),
    ]
    return dict(ratios=r)


def run(summary):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "summary.json")
        with open(src, "w") as f:
            json.dump(summary, f)
        out = os.path.join(d, "power.json")
        p = subprocess.run([sys.executable, POWER, src, "--json", out], capture_output=True, text=True)
        res = json.load(open(out)) if os.path.exists(out) else None
        return p.returncode, p.stdout, res


def main():
    rc, text, res = run(crafted())
    rows = {(r["table"], r["benchmark"], r["metric"]): r for r in (res or {}).get("rows", [])}
    row = lambda t, b, m: rows[(t, b, m)]
    rc0, _, _ = run(dict(ratios=[]))
    checks = [
        ("exit 0 with ratios", lambda: rc == 0),
        ("met: median 0.95, end 1.04", lambda: row("t", "cyclictest", "avg_us")["target"]["met"]),
        ("spread: 21 repetitions",
         lambda: row("t", "cyclictest", "max_us")["target"] == dict(met=False, reps_needed=21,
                                                                     median_misses=False)),
        ("median 1.02 misses, whatever the spread",
         lambda: row("t", "wake", "p50_us")["target"]["median_misses"]),
        ("median 1.00 with end 1.05 is met", lambda: row("t", "wake", "p99_us")["target"]["met"]),
        ("energy strong: 28 repetitions",
         lambda: row("t", "idle", "energy_uj")["strong"]["reps_needed"] == 28),
        ("energy weak met", lambda: row("t", "idle", "energy_uj")["weak"]["met"]),
        ("A/A: 63 repetitions for +-5 %",
         lambda: row("t", "cyclictest", "avg_us")["aa"]["reps_for_5pct"] == 63),
        ("a table without a metric is listed", lambda: "u idle energy_uj" in res["missing"]),
        ("the count line", lambda: "Headline targets met: 4 of 7" in text),
        ("no ratios: exit 1", lambda: rc0 == 1),
    ]
    return selftest_checks.run(checks, "bench power self-test")


if __name__ == "__main__":
    sys.exit(main())
