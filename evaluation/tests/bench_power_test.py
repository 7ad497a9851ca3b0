# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the guest targets' check (evaluation/bench_power.py).

A crafted bench summary of known ratios goes through it; each check holds
only if the targets' verdicts and the repetitions it works out are right.
Run by pytest (one test per check).  BENCH_POWER=PATH tests another copy (a
mutant).
"""
import json
import os
import subprocess
import tempfile

import pytest

from evaluation import paths
from evaluation.tests import selftest_checks

POWER = selftest_checks.program("bench_power", "BENCH_POWER")


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
        p = subprocess.run(POWER + [src, "--json", out], capture_output=True, text=True,
                           env=paths.module_env())
        res = json.load(open(out)) if os.path.exists(out) else None
        return p.returncode, p.stdout, res


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: bench_power's locals."""
    rc, text, res = run(crafted())
    rows = {(r["table"], r["benchmark"], r["metric"]): r for r in (res or {}).get("rows", [])}
    row = lambda t, b, m: rows[(t, b, m)]
    rc0, _, _ = run(dict(ratios=[]))
    on_failure = ""
    return locals()


CHECKS = [
    ("exit 0 with ratios", lambda rc: rc == 0),
    ("met: median 0.95, end 1.04", lambda row: row("t", "cyclictest", "avg_us")["target"]["met"]),
    ("spread: 21 repetitions",
     lambda row: row("t", "cyclictest", "max_us")["target"] == dict(
         met=False, reps_needed=21, median_misses=False)),
    ("median 1.02 misses, whatever the spread",
     lambda row: row("t", "wake", "p50_us")["target"]["median_misses"]),
    ("median 1.00 with end 1.05 is met", lambda row: row("t", "wake", "p99_us")["target"]["met"]),
    ("energy strong: 28 repetitions",
     lambda row: row("t", "idle", "energy_uj")["strong"]["reps_needed"] == 28),
    ("energy weak met", lambda row: row("t", "idle", "energy_uj")["weak"]["met"]),
    ("A/A: 63 repetitions for +-5 %",
     lambda row: row("t", "cyclictest", "avg_us")["aa"]["reps_for_5pct"] == 63),
    ("a table without a metric is listed", lambda res: "u idle energy_uj" in res["missing"]),
    ("the count line", lambda text: "Headline targets met: 4 of 7" in text),
    ("no ratios: exit 1", lambda rc0: rc0 == 1),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_bench_power(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
