#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the guest benchmark report (scripts/bench-report.py).

Crafted console logs of known data go through the report; each check holds
only if the report's statistics, verdicts and run status are right.  Prints
"ok NAME" or "FAIL NAME: ..." per check, then "bench report self-test: N
passed, N failed".  BENCH_REPORT=PATH tests another copy (a mutant).
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.environ.get("BENCH_REPORT", os.path.join(TOP, "scripts", "bench-report.py"))
GOVS = ["rteo", "teo", "menu", "rteo-parity"]
REPS = 9
# the guest's console: kernel messages and prefixes around the BENCH lines
PREFIXES = ["", "[   12.345678] ", "~ # ", "rcu: note "]
EXIT = {"s1": 2.0, "s3": 30.0, "s6": 100.0}


def crafted():
    """values[(table, benchmark, metric)][governor] = one value per repetition."""
    rnd = random.Random(7)
    v = {}
    # the host's load of a repetition scales every governor of it: only a
    # pairing by repetition sees through it
    load = [rnd.uniform(0.6, 1.4) for _ in range(REPS)]
    noisy = lambda base, sd=0.01: [base * f * rnd.gauss(1, sd) for f in load]
    # (b) rteo 20 % faster, menu 30 % slower, rteo 50 % worse on wake p99
    v[("x86-like", "pipe", "usec_per_op")] = dict(
        rteo=noisy(80), teo=noisy(100), menu=noisy(130), **{"rteo-parity": noisy(100)})
    v[("x86-like", "wake", "p99_us")] = dict(
        rteo=noisy(300), teo=noisy(200), menu=noisy(200), **{"rteo-parity": noisy(200)})
    # two repetitions only: no verdict, however large the difference
    v[("x86-like", "hackbench", "time_s")] = dict(rteo=noisy(1)[:2], teo=noisy(2)[:2])
    # (a) A/A: all four from one distribution
    v[("mvebu-xp-x20", "cyclictest", "p99_us")] = {g: noisy(500, 0.05) for g in GOVS}
    # the floor, and each state's lateness: the floor plus the exit latency,
    # but s3 does not pay its own
    floor = noisy(50)
    v[("x86-like", "floor", "p50_us")] = {"none": floor}
    for s, us in EXIT.items():
        paid = 0 if s == "s3" else us
        v[("x86-like", "exitlat-" + s, "p50_us")] = {"none": [f + paid + rnd.gauss(0, 0.5) for f in floor]}
    return v


MALFORMED = [
    "BENCH x86-like rteo 1 pipe usec_per_op",
    "BENCH x86-like rteo x pipe usec_per_op 3",
    "BENCH x86-like rteo 0 pipe usec_per_op 3",
    "BENCH x86-like rteo 1 pipe usec_per_op abc",
    "BENCH x86-like rteo 1 pipe usec_per_op nan",
    "BENCH x86-like rteo 1 pipe usec_per_op 1 extra",
    "BENCH x86-like rteo 1 pipe usec_per_op 999",  # rep 1 again
    "BENCH x86-like none 1 exitlat s1 p50_us 77 extra",
    "BENCH-META",
    "BENCH-FOO bar",
    "[    3.0] BENCH-DONE early",
]


def log(values, done=True, error=None, malformed=False):
    out = ["Linux version 7.3", "BENCHMARK: not ours", "BENCH-META scale x86-like 1"]
    out += ["BENCH-META exit_latency_us x86-like %s %g" % kv for kv in EXIT.items()]
    n = 0
    for rep in range(1, REPS + 1):
        k = (rep - 1) % len(GOVS)
        for g in GOVS[k:] + GOVS[:k] + ["none"]:
            for (t, b, m), runs in sorted(values.items()):
                if rep <= len(runs.get(g, [])):
                    if b == "exitlat-s1":  # the other form of the line
                        b = "exitlat s1"
                    out.append("%sBENCH %s %s %d %s %s %.6f" % (
                        PREFIXES[n % len(PREFIXES)], t, g, rep, b, m, runs[g][rep - 1]))
                    n += 1
        if rep == 1 and malformed:
            out += MALFORMED
    if error:
        out.append("[  99.1] " + error)
    if done:
        out.append("BENCH-DONE")
    return "\n".join(out) + "\n"


def run(tmp, name, text, env=None):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "console.log"), "w") as f:
        f.write(text)
    p = subprocess.run([sys.executable, REPORT, d, os.path.join(d, "console.log")],
                       capture_output=True, text=True, env=env)
    res = dict(rc=p.returncode, err=p.stderr, dir=d, summary=None, md="")
    if os.path.exists(os.path.join(d, "summary.json")):
        with open(os.path.join(d, "summary.json")) as f:
            res["summary"] = json.load(f)
        with open(os.path.join(d, "report.md")) as f:
            res["md"] = f.read()
    return res


def ratio(s, table, bench, metric, num, den="teo"):
    return next(r for r in s["ratios"] if (r["table"], r["benchmark"], r["metric"], r["num"],
                                           r["den"]) == (table, bench, metric, num, den))


def row(md, table, bench, metric):
    """The cells of the report's table row for one metric (the last two:
    the verdict on rteo/teo and the A/A ratio)."""
    sec = md.split("### %s\n" % table, 1)[1].split("\n#", 1)[0]
    line = next(l for l in sec.splitlines() if l.startswith("| %s | %s |" % (bench, metric)))
    return line.strip("| ").split(" | ")


def main():
    values = crafted()
    tmp = tempfile.mkdtemp(prefix="bench-report-test.")
    base = run(tmp, "base", log(values, malformed=True))
    s, md = base["summary"] or {}, base["md"]
    pipe = ("x86-like", "pipe", "usec_per_op")
    aa_key = ("mvebu-xp-x20", "cyclictest", "p99_us")
    teo_pipe = next((g for g in s.get("guest", []) if (g["table"], g["benchmark"], g["metric"],
                                                      g["governor"]) == pipe + ("teo",)), {})
    ex = {e["state"]: e for e in s.get("exit_latency", [])}
    checks = [
        ("a clean log: exit 0, complete", lambda: base["rc"] == 0 and s["complete"] is True),
        ("guest median and CI of the median", lambda: teo_pipe["n"] == REPS and
         abs(teo_pipe["median"] - statistics.median(values[pipe]["teo"])) < 1e-5 and
         teo_pipe["ci_low"] <= teo_pipe["median"] <= teo_pipe["ci_high"] and
         teo_pipe["ci_low"] < teo_pipe["ci_high"]),
        ("(a) A/A: rteo-parity/teo CI contains 1, no difference",
         lambda: ratio(s, *aa_key, "rteo-parity")["ci_low"] < 1 < ratio(s, *aa_key, "rteo-parity")["ci_high"]
         and ratio(s, *aa_key, "rteo-parity")["verdict"] == "no difference shown"
         and row(md, *aa_key)[-2] == "no difference shown"
         and "A/A differs" not in md),
        ("(a) aa_width is the A/A interval's width", lambda: any(
            (w["table"], w["benchmark"], w["metric"]) == aa_key and abs(w["width"] - (
                ratio(s, *aa_key, "rteo-parity")["ci_high"] - ratio(s, *aa_key, "rteo-parity")["ci_low"])) < 1e-12
            for w in s["aa_width"])),
        ("(b) rteo 20 % faster: ratio 0.8, ci_high < 1, better",
         lambda: abs(ratio(s, *pipe, "rteo")["median"] - 0.8) < 0.02
         and ratio(s, *pipe, "rteo")["ci_high"] < 0.85 and ratio(s, *pipe, "rteo")["n"] == REPS
         and row(md, *pipe)[-2] == "better"),
        ("(b) menu 30 % slower: ci_low > 1, worse",
         lambda: ratio(s, *pipe, "menu")["ci_low"] > 1.2 and ratio(s, *pipe, "menu")["verdict"] == "worse"),
        ("(b) a loss is stated", lambda: row(md, "x86-like", "wake", "p99_us")[-2] == "worse" and
         "- x86-like, wake p99_us: rteo is worse than teo" in md.split("## Where rteo loses to teo")[1]
         and "pipe usec_per_op: rteo is worse" not in md),
        ("too few repetitions: no verdict", lambda: ratio(s, "x86-like", "hackbench", "time_s", "rteo")
         ["verdict"] == row(md, "x86-like", "hackbench", "time_s")[-2] == "too few repetitions"),
        ("exit latency less the floor against the emulated one",
         lambda: ex["s1"]["check"] == ex["s6"]["check"] == "consistent" and ex["s1"]["n"] == REPS
         and ex["s3"]["check"] == "shorter than the exit latency" and abs(ex["s6"]["excess"] - 100) < 1),
        ("(e) malformed lines counted, prefixed ones parsed", lambda: s["malformed_lines"] == len(MALFORMED)
         and "Malformed BENCH lines ignored: %d" % len(MALFORMED) in md),
        ("plots drawn", lambda: all(open(os.path.join(base["dir"], p), "rb").read(8) == b"\x89PNG\r\n\x1a\n"
                                    for p in s["plots"]) and len(s["plots"]) == 4),
    ]
    nodone = run(tmp, "nodone", log(values, done=False))
    err = run(tmp, "error", log(values, error="BENCH-ERROR load mvebu-xp"))
    checks += [
        ("(c) no BENCH-DONE: non-zero, complete false, said", lambda: nodone["rc"] != 0 and
         nodone["summary"]["complete"] is False and "INCOMPLETE" in nodone["md"] and nodone["summary"]["ratios"]),
        ("(d) BENCH-ERROR: non-zero, complete false, said", lambda: err["rc"] != 0 and
         err["summary"]["complete"] is False and err["summary"]["errors"] == ["load mvebu-xp"]
         and "load mvebu-xp" in err["md"]),
    ]
    # without matplotlib: a clear message, nothing written
    fake = os.path.join(tmp, "fake")
    os.makedirs(os.path.join(fake, "matplotlib"))
    with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
        f.write("raise ImportError('No module named matplotlib')\n")
    nomp = run(tmp, "nomp", log(values), env=dict(os.environ, PYTHONPATH=fake))
    checks.append(("no matplotlib: non-zero, clear message", lambda: nomp["rc"] != 0 and
                   "install python3-matplotlib" in nomp["err"] and nomp["summary"] is None))

    passed = failed = 0
    for name, check in checks:
        try:
            ok = bool(check())
            why = ""
        except Exception as e:  # a missing key or row is a failure too
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        print("%s %s%s" % ("ok" if ok else "FAIL", name, ": " + why if why else ""))
        passed, failed = passed + ok, failed + (not ok)
    if failed:
        print(base["err"] or "", end="")
    shutil.rmtree(tmp)
    print("bench report self-test: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
