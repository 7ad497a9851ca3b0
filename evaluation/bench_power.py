#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench_power.py SUMMARY_JSON [--json OUT] [--md OUT]

The guest targets of rteo against teo, held against a bench run's report
(the summary.json of evaluation/bench_report.py), with what the run's own
spread says about the repetitions it would take to show them.

A headline metric's target is met when the rteo/teo ratio of medians is at
most 1.00 and its paired 95 % interval ends at or below 1.05; idle energy's
when the ratio is at most 0.9 with the interval's end at or below 0.9
("strong", wanted on two tables) or at most 1.0 ("weak", wanted on all).

For a target not met whose median is below its bound, the repetitions it
would take, were the median to stay where it is and the interval to narrow
as 1/sqrt(n) (a paired bootstrap's does for a spread that stays):

    n' = ceil(n * ((hi - median) / (bound - median)) ** 2)

For a median above the bound, no number of repetitions shows the target
unless the median moves: "median misses".  The A/A control (rteo-parity
against teo, the same decisions as teo) gives the run's resolution: the
repetitions at which its interval's upper arm would be 0.05, the least it
would take to show any governor within 5 % of teo.

Exits 1 on a summary without the rteo/teo ratios it needs, 0 otherwise
(the targets are reported, not enforced here).
"""

import argparse
import json
import math
import sys

HEADLINE = [("cyclictest", "avg_us"), ("cyclictest", "max_us"), ("wake", "p50_us"),
            ("wake", "p99_us"), ("pipe", "usec_per_op"), ("hackbench", "time_s")]
ENERGY = ("idle", "energy_uj")
UPPER = 1.05
AA = ("rteo-parity", "teo")


def reps_needed(n, med, hi, bound):
    """The repetitions at which an interval with this spread would end at
    bound, the median staying; None when the median itself is past it."""
    if med >= bound:
        return None
    if hi <= bound:
        return n
    return math.ceil(n * ((hi - med) / (bound - med)) ** 2)


def judge(r, med_max, bound):
    """One target on one ratio row: met, or what it would take."""
    med, hi = r["median"], r["ci_high"]
    met = med <= med_max and hi <= bound
    need = None if met or med > med_max else reps_needed(r["n"], med, hi, bound)
    return dict(met=met, reps_needed=need, median_misses=not met and need is None)


def analyse(summary):
    rows = {}
    for r in summary.get("ratios", []):
        key = (r["table"], r["benchmark"], r["metric"])
        if (r["num"], r["den"]) == ("rteo", "teo"):
            rows.setdefault(key, {})["main"] = r
        elif (r["num"], r["den"]) == AA:
            rows.setdefault(key, {})["aa"] = r
    tables = sorted({t for t, _, _ in rows})
    out, missing = [], []
    for t in tables:
        for bench, metric in HEADLINE + [ENERGY]:
            got = rows.get((t, bench, metric), {})
            if "main" not in got:
                missing.append("%s %s %s" % (t, bench, metric))
                continue
            r = got["main"]
            row = dict(table=t, benchmark=bench, metric=metric, n=r["n"], median=r["median"],
                       ci_low=r["ci_low"], ci_high=r["ci_high"])
            if (bench, metric) == ENERGY:
                row["strong"] = judge(r, 0.9, 0.9)
                row["weak"] = judge(r, 1.0, 1.0)
            else:
                row["target"] = judge(r, 1.0, UPPER)
            aa = got.get("aa")
            if aa:
                arm = aa["ci_high"] - aa["median"]
                row["aa"] = dict(median=aa["median"], ci_low=aa["ci_low"], ci_high=aa["ci_high"],
                                 n=aa["n"], upper_arm=arm,
                                 reps_for_5pct=math.ceil(aa["n"] * (arm / 0.05) ** 2)
                                 if arm > 0.05 else aa["n"])
            out.append(row)
    return out, missing


def fmt_target(j):
    if j["met"]:
        return "met"
    if j["median_misses"]:
        return "median misses"
    return "missed; %d reps" % j["reps_needed"]


def markdown(rows, missing):
    md = ["| table | benchmark | rteo/teo [95 % CI] | n | target | A/A [95 % CI] | "
          "A/A reps for +-5 % |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        tgt = ("strong (0.9): %s; weak (1.0): %s" % (fmt_target(r["strong"]), fmt_target(r["weak"]))
               if "strong" in r else fmt_target(r["target"]))
        aa = r.get("aa")
        md.append("| %s | %s %s | %.3f [%.3f, %.3f] | %d | %s | %s | %s |" % (
            r["table"], r["benchmark"], r["metric"], r["median"], r["ci_low"], r["ci_high"], r["n"],
            tgt, "%.3f [%.3f, %.3f]" % (aa["median"], aa["ci_low"], aa["ci_high"]) if aa else "-",
            aa["reps_for_5pct"] if aa else "-"))
    met = sum(r["target"]["met"] for r in rows if "target" in r)
    total = sum("target" in r for r in rows)
    strong = sum(r["strong"]["met"] for r in rows if "strong" in r)
    weak = sum(r["weak"]["met"] for r in rows if "weak" in r)
    ntab = sum("strong" in r for r in rows)
    aa = sorted(r["aa"]["reps_for_5pct"] for r in rows if "aa" in r)
    md.append("")
    md.append("Headline targets met: %d of %d; idle energy <= 0.9 shown on %d of %d tables "
              "(wanted: 2), <= 1.0 on %d of %d (wanted: all)." % (met, total, strong, ntab, weak, ntab))
    if aa:
        md.append("The A/A control would need %d to %d repetitions (median %d) for its interval's "
                  "upper arm to be 0.05." % (aa[0], aa[-1], aa[len(aa) // 2]))
    if missing:
        md.append("Not in the run: " + ", ".join(missing) + ".")
    return "\n".join(md) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("summary")
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args()
    with open(args.summary) as f:
        summary = json.load(f)
    rows, missing = analyse(summary)
    text = markdown(rows, missing)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, missing=missing), f, indent=1, sort_keys=True)
    if not rows:
        print("bench-power: no rteo/teo ratios in %s" % args.summary, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
