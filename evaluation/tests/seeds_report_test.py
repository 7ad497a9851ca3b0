# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the seeds' report (evaluation/seeds_report.py).

Crafted console logs of known data go through the report; each check holds
only if its statistics, its verdicts against the seeds' directions and the
run's status are right.  Run by pytest (one test per check).  SEEDS_REPORT=PATH tests another
copy (a mutant; bench_report.py must sit beside it).
"""
import json
import os
import random
import statistics
import subprocess

import pytest

from evaluation import paths
from evaluation.tests import selftest_checks

REPORT = selftest_checks.program("seeds_report", "SEEDS_REPORT")
GOVS = ["rteo", "teo", "menu"]
REPS = 9
# the host's load of a repetition scales both conditions of it: a shift of
# x0.5 that only a pairing by repetition sees through the spread of x2.6
LOAD = [0.55, 1.4, 0.8, 1.2, 0.6, 1.0, 1.45, 0.7, 1.1]
SLEEPS = [100, 200, 500, 1000, 2000, 5000, 10000]
PREFIXES = ["", "[   12.345678] ", "~ # ", "rcu: note "]
TABLES = {"000": "msm8916-x10", "002": "x86-like-x10", "003": "pseries-dedicated",
          "004": "x86-like-x10"}
KEYS = {"seed", "metric", "governor", "seed_before", "seed_after", "ours_before", "ours_after",
        "n", "ci_low", "ci_high", "reproduces", "reason"}
TOP_KEYS = {"complete", "errors", "malformed_lines", "meta", "rows", "sweep", "vs_teo", "plots"}
SWEEP_KEYS = {"governor", "state", "sleep_us", "median", "ci_low", "ci_high", "n"}


def crafted():
    """values[(seed, metric)][governor][condition] = one value per repetition."""
    rnd = random.Random(11)
    noisy = lambda base: [base * f * rnd.gauss(1, 0.01) for f in LOAD]
    ba = lambda b, a: {g: dict(before=noisy(b), after=noisy(a)) for g in GOVS}
    v = {
        # (a) the seed's direction: 205 -> 95 us, ours 600 -> 300
        ("000", "avg_us"): ba(600, 300),
        ("000", "max_us"): ba(800, 800),
        ("000", "cpu1_deep_share"): ba(0.9, 0.9),
        # (b) against the seed's direction: the seed's iperf went up
        ("001", "iperf_mbit_s"): ba(5000, 4000),
        ("001", "ioping_iops"): ba(20000, 30000),
        ("001", "idle_mw"): ba(100, 100),
        ("004", "us_per_loop"): ba(30, 20),
        # 003, in a second (ppc64le) log: the seed claims no change; ours
        # unchanged (within the margin), 30 % up (not unchanged), and a
        # spread too wide to tell; XCEDE1's share from none to some
        ("003", "pipe_loops_per_s"): ba(20000, 20100),
        ("003", "wake_p50_us"): ba(100, 130),
        ("003", "wake_p99_us"): {g: dict(before=[500 * rnd.gauss(1, 0.15) for _ in LOAD],
                                         after=[500 * rnd.gauss(1, 0.15) for _ in LOAD])
                                 for g in GOVS},
        ("003", "xcede_idle_share"): {g: dict(before=[0.0] * REPS, after=noisy(0.6)) for g in GOVS},
        # teo below menu as in the seed, rteo as menu
        ("002", "state0_entries_per_s"): {g: {"pipe-same-cpu": noisy(4e4 if g == "teo" else 5e4)}
                                          for g in GOVS},
        ("002", "state0_share_pct"): {g: {"pipe-same-cpu": noisy(0.5 if g == "teo" else 2.0)}
                                      for g in GOVS},
    }
    for i in range(3):
        v[("002", "share_s%d" % i)] = {g: {"sleep%d" % us: [
            max(0.0, share(i, us, k) + rnd.gauss(0, 0.005)) for _ in range(REPS)]
            for us in SLEEPS} for k, g in enumerate(GOVS)}
    return v


def share(state, us, k):
    deep = us / (us + 2000.0 * (1 + 0.3 * k))
    return [0.3 / (1 + us / 200.0), 1 - deep - 0.3 / (1 + us / 200.0), deep][state] * 0.9


MALFORMED = [
    "SEED 000 msm8916-x10 teo before 1 avg_us",
    "SEED 000 msm8916-x10 teo before x avg_us 3",
    "SEED 000 msm8916-x10 teo before 0 avg_us 3",
    "SEED 000 msm8916-x10 teo before 1 avg_us abc",
    "SEED 000 msm8916-x10 teo before 1 avg_us inf",
    "SEED 000 msm8916-x10 teo before 1 avg_us 3 extra",
    "SEED 000 msm8916-x10 teo during 1 avg_us 3",
    "SEED 000 msm8916-x10 teo before 1 p99_us 3",
    "SEED 003 pseries teo before 1 ebizzy_records_s 3",
    "SEED 002 x86-like-x10 teo before 1 share_s0 0.5",
    "SEED 002 x86-like-x10 teo sleep 1 share_s0 0.5",
    "SEED 002 x86-like-x10 teo pipe-same-cpu 1 share_s0 0.5",
    "[    3.0] SEED 000 msm8916-x10 teo before 1 avg_us 999",  # rep 1 again
    "SEED",
    "BENCH-META",
]
# not SEED lines at all
OTHER = ["random: SEEDS of the crng", "RESEED 000 a b c 1 d 2", "SEED-like: no"]


def log(values, done=True, error=None, malformed=False, skip=(), seeds=("000", "001", "002", "004")):
    out = ["Linux version 7.3", "BENCH-META scale 10",
           "BENCH-META seed000 state1_latency_us 2800 qos_us 2799"] + OTHER
    n = 0
    for seed in seeds:
        if seed in skip:
            continue
        for rep in range(1, REPS + 1):
            for g in GOVS:
                conds = ["before", "after"][::1 if rep % 2 else -1]
                if seed == "002":
                    conds = ["sleep%d" % us for us in SLEEPS] + ["pipe-same-cpu"]
                for c in conds:
                    table = TABLES.get(seed) or ("mvebu-xp-2014-x10" if c == "before" else "mvebu-xp-x10")
                    for (s, m), runs in sorted(values.items()):
                        if s == seed and c in runs[g]:
                            out.append("%sSEED %s %s %s %s %d %s %.6f" % (
                                PREFIXES[n % len(PREFIXES)], s, table, g, c, rep, m, runs[g][c][rep - 1]))
                            n += 1
            if rep == 1 and malformed and seed == "000":
                out += MALFORMED
    if error:
        out.append("[  99.1] " + error)
    if done:
        out.append("BENCH-DONE")
    return "\n".join(out) + "\n"


def run(tmp, name, *texts):
    """The report over one console log per text (x86_64's, then ppc64le's)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    logs = []
    for i, text in enumerate(texts):
        logs.append(os.path.join(d, "console-%d.log" % i))
        with open(logs[-1], "w") as f:
            f.write(text)
    p = subprocess.run(REPORT + [d] + logs, capture_output=True, text=True,
                       env=paths.module_env())
    res = dict(rc=p.returncode, err=p.stderr, dir=d, summary=None, md="")
    if os.path.exists(os.path.join(d, "summary.json")):
        with open(os.path.join(d, "summary.json")) as f:
            res["summary"] = json.load(f)
        with open(os.path.join(d, "seeds.md")) as f:
            res["md"] = f.read()
    return res


def rows(s, seed, metric):
    return {r["governor"]: r for r in s["rows"] if (r["seed"], r["metric"]) == (seed, metric)}


def section(md, seed):
    return md.split("## %s: " % seed, 1)[1].split("\n## ", 1)[0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: seeds_report's locals."""
    values = crafted()
    tmp = str(tmp_path_factory.mktemp("seeds-report-test"))
    base = run(tmp, "base", log(values, malformed=True), log(values, seeds=("003",)))
    s, md = base["summary"] or {}, base["md"]
    avg = values[("000", "avg_us")]
    verdicts = lambda seed, metric: {g: r["reproduces"] for g, r in rows(s, seed, metric).items()}
    nodone = run(tmp, "nodone", log(values, done=False, skip=("001",)))
    ppcdone = run(tmp, "ppc-nodone", log(values), log(values, done=False, seeds=("003",)))
    err = run(tmp, "error", log(values, error="BENCH-ERROR load msm8916 scale=10"))
    on_failure = base["err"]
    return locals()


CHECKS = [
    ("a clean log: exit 0, complete", lambda base, s: base["rc"] == 0 and s["complete"] is True),
    ("summary.json's keys, exactly", lambda s: set(s) == TOP_KEYS and s["rows"] and
     all(set(r) == KEYS for r in s["rows"]) and all(set(w) == SWEEP_KEYS for w in s["sweep"])),
    ("the crafted noise hides 000's shift from an unpaired view", lambda avg: all(
        max(avg[g]["after"]) > min(avg[g]["before"]) for g in GOVS)),
    ("(a) 000 avg 600 -> 300: medians, paired CI around 0.5, reproduces yes", lambda avg, s: all(
        abs(r["ours_before"] - statistics.median(avg[g]["before"])) < 1e-5 and
        abs(r["ours_after"] - statistics.median(avg[g]["after"])) < 1e-5 and
        0.45 < r["ci_low"] < 0.5 < r["ci_high"] < 0.55 and r["n"] == REPS and
        (r["seed_before"], r["seed_after"]) == (205, 95) and r["reproduces"] == "yes"
        for g, r in rows(s, "000", "avg_us").items()) and len(rows(s, "000", "avg_us")) == 3),
    ("(b) against the seed's direction: no; no change: not shown",
     lambda verdicts: set(verdicts("001", "iperf_mbit_s").values()) == {"no"} and
     set(verdicts("001", "idle_mw").values()) == set(verdicts("000", "max_us").values()) ==
     {"not shown"} and set(verdicts("001", "ioping_iops").values()) == {"yes"}),
    ("no seed number: said so", lambda s, verdicts: set(verdicts("000", "cpu1_deep_share").values()) ==
     {"no seed number"} and rows(s, "000", "cpu1_deep_share")["teo"]["seed_before"] is None),
    ("004: polling enabled faster, as the reverted kernel: yes",
     lambda verdicts: set(verdicts("004", "us_per_loop").values()) == {"yes"}),
    ("002: menu before, each other governor after", lambda s, values, verdicts: all(
        verdicts("002", m) == {"teo": "yes", "rteo": "not shown"} and
        abs(rows(s, "002", m)["teo"]["ours_before"] -
            statistics.median(values[("002", m)]["menu"]["pipe-same-cpu"])) < 1e-3
        for m in ("state0_entries_per_s", "state0_share_pct"))),
    ("003 from the second log: no change claimed, judged within the margin", lambda s, verdicts:
     set(verdicts("003", "pipe_loops_per_s").values()) == {"yes"} and
     set(verdicts("003", "wake_p50_us").values()) == {"no"} and
     set(verdicts("003", "wake_p99_us").values()) == {"not shown"} and
     all(r["ci_low"] < 1 / 1.05 or r["ci_high"] > 1.05
         for r in rows(s, "003", "wake_p99_us").values())),
    ("003: XCEDE1's share from none: yes, no ratio of the seed's 0", lambda md, verdicts:
     set(verdicts("003", "xcede_idle_share").values()) == {"yes"} and
     "| xcede_idle_share | teo | 0 -> 0.9125 | 0 -> 0.6" in section(md, "003")),
    ("003: ebizzy not run, the reason", lambda s: [
        (r["n"], r["reproduces"], "Debian" in r["reason"])
        for r in s["rows"] if r["metric"] == "ebizzy_records_s"] == [(0, "not run", True)]),
    ("each governor against teo: 002's pipe, teo below menu and rteo as menu", lambda md, s: {
        (v["num"], v["condition"]): v["ci_low"] > 1 for v in s["vs_teo"]
        if (v["seed"], v["metric"]) == ("002", "state0_entries_per_s")} ==
     {("rteo", "pipe-same-cpu"): True, ("menu", "pipe-same-cpu"): True} and
     "| state0_entries_per_s | pipe-same-cpu | rteo: x" in section(md, "002")),
    ("002's sweep: every governor, state and sleep; its medians", lambda s, values:
     len(s["sweep"]) == len(GOVS) * 3 * len(SLEEPS) and all(
         abs(w["median"] - statistics.median(values[("002", "share_s%d" % w["state"])]
                                             [w["governor"]]["sleep%d" % w["sleep_us"]])) < 1e-5
         and w["n"] == REPS for w in s["sweep"])),
    ("seeds.md: a section per seed, its verdicts, why not", lambda md: all(
        "## %s: " % k in md for k in ("000", "001", "002", "003", "004")) and
     "| iperf_mbit_s | teo | 3700 -> 6400 (x1.73) |" in section(md, "001") and
     "Why it may not:" in section(md, "001") and "Why it may not:" not in section(md, "004") and
     "x10 (BENCH-META scale)" in md),
    ("(d) malformed lines counted, prefixed ones parsed", lambda md, s: s["malformed_lines"] ==
     len(MALFORMED) and "lines ignored: %d" % len(MALFORMED) in md),
    ("a plot per seed run", lambda base, s:
     s["plots"] == ["seed-%s.png" % k for k in ("000", "001", "002", "003", "004")]
     and all(open(os.path.join(base["dir"], p), "rb").read(8) == b"\x89PNG\r\n\x1a\n" for p in s["plots"])),
] + [
    ("(c) no BENCH-DONE: non-zero, incomplete, said; a seed absent: not run", lambda nodone, verdicts:
     nodone["rc"] != 0 and nodone["summary"]["complete"] is False and "INCOMPLETE" in nodone["md"]
     and verdicts("000", "avg_us") == {g: r["reproduces"] for g, r in rows(nodone["summary"], "000", "avg_us").items()}
     and [r["reproduces"] for r in nodone["summary"]["rows"] if r["seed"] == "001"] == ["not run"] * 3),
    ("one log of two without BENCH-DONE: non-zero, incomplete, which log", lambda ppcdone:
     ppcdone["rc"] != 0 and ppcdone["summary"]["complete"] is False and
     "no BENCH-DONE in console-1.log" in ppcdone["md"]),
    ("one log: 003 not run, every row", lambda nodone: {
        r["reproduces"] for r in nodone["summary"]["rows"] if r["seed"] == "003"} == {"not run"}),
    ("BENCH-ERROR: non-zero, incomplete, said", lambda err: err["rc"] != 0 and
     err["summary"]["errors"] == ["load msm8916 scale=10"] and "load msm8916" in err["md"]),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_seeds_report(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
