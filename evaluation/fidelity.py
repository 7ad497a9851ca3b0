#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fidelity.py OUTDIR [--sim BIN] [--wake-delay-us US] [--irq-delay-us US]
               [--tick-costs-us D,S,R] [--relax-ns NS]

The simulator against the guest, run by run: for every run of
OUTDIR/guest-idle.json (evaluation/trace2corpus.py: what the guest's own
tracepoints measured per table, workload and governor), the run's recorded
trace OUTDIR/corpus/<set>/<table>.<workload>.<governor>.trace is replayed
closed loop in the simulator with the same governor on the same table
(`cpuidle-sim replay`, time-scaled tables `BASE-xN` included), and the two
are compared on what the guest measured:

  above_per_entry   entries counted too deep by cpuidle_enter_state()
  below_per_entry   entries counted too shallow (power:cpu_idle_miss)
  share_s<i>        state i's share of the time in states (power:cpu_idle
                    durations, the exit latency's spin included)

A metric is within the goal when |sim - guest| <= max(TOL * guest, FLOOR):
TOL = 0.25 (the project's fidelity goal: within 25 %), relative to the
guest, with an absolute FLOOR of 0.02 for these rates and shares, which lie
in [0, 1] (25 % of a near-zero value, 0.004 of a rate of 0.016, is below
what a run of a few hundred entries resolves).

The simulator's model of the emulator is explicit, its two parameters
passed on and written into fidelity.json, by default the values
tools/cpuidle-sim/README.md ("Replay") documents as calibrated on a
recording (WAKE_DELAY_US, RELAX_NS below):

  --wake-delay-us  cpuidle-sim's emulated world: the tick reaches a halted
                   CPU this late, and a recorded wake-up past its timer is
                   when the CPU resumed (the timer's interrupt came late);
  --relax-ns       the cost of one cpu_relax() in poll_idle() (the guest's
                   polls time out later than the limit);
  --irq-delay-us   an interrupt before the timer reaches a halted CPU this
                   late, a polling one at once (cpuidle-sim's emulated
                   world); by default per table the estimate of this run's
                   own recording (guest-idle.json's irq_delay, from its pipe
                   runs: evaluation/trace2corpus.py), for a table without one
                   the median of the others' estimates, 0 if none has one;
  --tick-costs-us  the idle loop's own work in cpuidle-sim's emulated
                   world: deciding, stopping the tick, restarting it; by
                   default per table the estimates of OUTDIR/tickcost.json
                   (evaluation/tickcost.py, from the guest's tracepoints), for
                   a table without them the median of the others', none
                   without the file.

Every run is also replayed in the simulator's own world (core.c's: no
delay, a timer wakes on time, 1 ns per cpu_relax(), as the corpus
simulation runs): the "stock" columns and summary say what the model buys.

Writes OUTDIR/fidelity.json:
  {"goal", "tolerance", "floor",
   "simulator": {binary, wake_delay_us, relax_ns, flags,
                 irq_delay_us: {table: us}, irq_delay_from,
                 tick_costs_us: {table: [decide, stop, restart]},
                 tick_costs_from},
   "rows": [{"table", "workload", "governor", "set", "metric", "sim",
             "guest", "within", "within_relative", "sim_stock",
             "within_stock", "within_stock_relative", "entries_sim",
             "entries_guest"}, ...],
   "summary": {METRIC: {"within", "runs"}, "all": {...}},
   "relative_only": {the same counts without the floor},
   "stock", "stock_relative_only": {the same for the stock world},
   "missing": [runs without a trace or whose replay failed],
   "wake_latency": [{"table", "workload", "governor", "sim", "sim_stock"}:
                    the replay's mean interrupt wake-up latency, us],
   "cross": {"governors", "rows": [{"table", "set", "governor", "wake_us",
             "irq_ends", "traces"}], "ratios": [{"table", "set", "num", "den",
             "ratio"}]}}

The cross block compares the governors on the same input: every trace of
OUTDIR/corpus replayed (in the model) with every governor of CROSS, not
only the one it was recorded under, the interrupt wake-ups' latency summed
per table and set; the ratios are against teo, rteo-parity/teo the A/A
control (exactly 1: the simulator is deterministic and parity mode decides
as teo).
and prints the summary.  evaluation/bench_report.py puts it in the report.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

from evaluation import paths

TOL = 0.25
FLOOR = 0.02
RATES = ["above_per_entry", "below_per_entry"]
# the emulator's model (tools/cpuidle-sim/README.md, "Replay", says how
# they were calibrated): the tick's wake-up delay of a halted CPU, us, and
# the cost of one cpu_relax(), ns
WAKE_DELAY_US = 264
RELAX_NS = 200


def within(sim, guest, floor=FLOOR):
    return sim is not None and abs(sim - guest) <= max(TOL * abs(guest), floor)


def replay(binary, trace, table, gov, model):
    """The simulator's replay of one trace: its JSON, or None and why."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        p = subprocess.run([binary, "replay", trace, "--table", table, "--governor", gov,
                            "--json", out.name] + model, capture_output=True, text=True)
        if p.returncode != 0:
            return None, (p.stderr.strip() or "exit %d" % p.returncode)
        with open(out.name) as f:
            return json.load(f), None


def traced_energy(run, sim):
    """The energy model over a guest run's traced entries (guest-idle.json's
    per-state entries and time), uJ, with the model a replay of its table
    reports (sim: its JSON): each state's power over its time, each entry's
    own energy (cpuidle_tables.rs's entry_nj, as drivers/cpuidle/vstates.rs
    charges it)."""
    nj = 0.0
    for s, us in run["state_time_us"].items():
        nj += sim["model_mw"][s] * us
        nj += sim["entry_nj"][s] * run["state_entries"][s]
    return nj / 1000


def metrics(run):
    """The compared metrics of a run of guest-idle.json or of a replay."""
    m = {k: run[k] for k in RATES}
    m.update(("share_" + s, v) for s, v in sorted(run["share"].items(), key=lambda kv: int(kv[0][1:])))
    return m


def counts(rows, key):
    out = {}
    for r in rows:
        c = out.setdefault(r["metric"], {"within": 0, "runs": 0})
        c["runs"] += 1
        c["within"] += bool(r[key])
    out["all"] = {"within": sum(c["within"] for c in out.values()),
                  "runs": sum(c["runs"] for c in out.values())}
    return out


def tick_costs(args, tables):
    """Per table [decide, stop, restart] us, and where they come from."""
    if args.tick_costs_us is not None:
        try:
            c = [int(x) for x in args.tick_costs_us.split(",")]
            if len(c) != 3 or min(c) < 0:
                raise ValueError
        except ValueError:
            sys.exit("fidelity: --tick-costs-us wants DECIDE,STOP,RESTART (us, >= 0)")
        return {t: c for t in tables}, "the command line"
    path = os.path.join(args.outdir, "tickcost.json")
    if not os.path.exists(path):
        return {t: [0, 0, 0] for t in tables}, "none: no %s" % path
    with open(path) as f:
        tc = json.load(f)
    est = {}
    for t, e in tc.get("per_table", {}).items():
        v = [e.get(k) for k in ("decide_us", "stop_us", "restart_us")]
        if all(x is not None for x in v):
            est[t] = [max(0, round(x["us"])) for x in v]
    if not est:
        sys.exit("fidelity: %s has no table with all three estimates" % path)
    fill = [sorted(c[i] for c in est.values())[len(est) // 2] for i in range(3)]
    return ({t: est.get(t, fill) for t in tables},
            "%s (evaluation/tickcost.py of %s%s); tables without estimates: %s, the median of "
            "the others'" % (path, tc.get("log", "?"),
                             "" if tc.get("complete") else ", incomplete: " +
                             "; ".join(tc.get("problems", [])), ",".join(map(str, fill))))


CROSS = ["rteo", "teo", "menu", "rteo-parity"]


def cross(binary, corpus, model_of, extra):
    """Every trace of the corpus under every governor of CROSS."""
    acc = {}
    for st in ("tuning", "heldout"):
        d = os.path.join(corpus, st)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if not name.endswith(".trace"):
                continue
            table = name.split(".")[0]
            for gov in CROSS:
                r, why = replay(binary, os.path.join(d, name), table, gov, model_of(table) + extra)
                a = acc.setdefault((table, st, gov), {"ns": 0.0, "n": 0, "traces": 0, "failed": 0})
                if r is None or "irq_ends" not in r:
                    a["failed"] += 1
                    continue
                if r.get("irq_wake_latency_us") is None:
                    continue
                a["ns"] += r["irq_wake_latency_us"] * r["irq_ends"]
                a["n"] += r["irq_ends"]
                a["traces"] += 1
    rows = [dict(table=t, set=st, governor=g, wake_us=a["ns"] / a["n"] if a["n"] else None,
                 irq_ends=a["n"], traces=a["traces"], failed=a["failed"])
            for (t, st, g), a in sorted(acc.items())]
    by = {(r["table"], r["set"], r["governor"]): r["wake_us"] for r in rows}
    ratios = [dict(table=t, set=st, num=g, den="teo",
                   ratio=by[(t, st, g)] / by[(t, st, "teo")]
                   if by.get((t, st, g)) is not None and by.get((t, st, "teo")) else None)
              for (t, st, g) in sorted(by) if g != "teo"]
    return {"governors": CROSS, "corpus": corpus, "flags": extra, "rows": rows,
            "ratios": ratios}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--sim", help="the cpuidle-sim binary (default: build it)")
    ap.add_argument("--wake-delay-us", type=int, default=WAKE_DELAY_US,
                    help="the simulator's --wake-delay-us (default %(default)s)")
    ap.add_argument("--relax-ns", type=int, default=RELAX_NS,
                    help="the simulator's --relax-ns (default %(default)s)")
    ap.add_argument("--irq-delay-us", type=int,
                    help="the simulator's --irq-delay-us for every table (default: this "
                         "run's estimate per table)")
    ap.add_argument("--tick-costs-us",
                    help="the simulator's --tick-costs-us D,S,R for every table (default: "
                         "OUTDIR/tickcost.json's per table)")
    args = ap.parse_args(argv)
    model = ["--wake-delay-us", str(args.wake_delay_us), "--relax-ns", str(args.relax_ns)]
    out = os.path.join(args.outdir, "fidelity.json")
    if os.path.exists(out):
        os.remove(out)  # a failed run leaves none, not an old one
    with open(os.path.join(args.outdir, "guest-idle.json")) as f:
        gi = json.load(f)
    guest = gi["runs"]
    tables = sorted({g["table"] for g in guest})
    if args.irq_delay_us is not None:
        irq = {t: args.irq_delay_us for t in tables}
        irq_from = "the command line"
    else:
        est = {t: d["delay_us"] for t, d in gi.get("irq_delay", {}).items()}
        others = sorted(est.values())
        fill = others[len(others) // 2] if others else 0
        irq = {t: est.get(t, fill) for t in tables}
        irq_from = ("this run's recording (guest-idle.json irq_delay); tables without an "
                    "estimate: %d us, the median of the others'" % fill)
    costs, costs_from = tick_costs(args, tables)
    binary = paths.simulator(args.sim)
    model_of = lambda t: model + [  # noqa: E731
        "--irq-delay-us", str(irq[t]), "--tick-costs-us", ",".join(str(c) for c in costs[t])]
    corpus = os.path.join(args.outdir, "corpus")
    rows, missing, wake = [], [], []
    for g in guest:
        configs = {"model": model_of(g["table"]), "stock": []}
        trace = os.path.join(args.outdir, "corpus", g["set"], "%s.%s.%s.trace" % (
            g["table"], g["workload"], g["governor"]))
        key = dict(table=g["table"], workload=g["workload"], governor=g["governor"], set=g["set"])
        sims = {}
        for c, flags in configs.items():
            if not os.path.exists(trace):
                sims[c], why = None, "no trace %s" % trace
            else:
                sims[c], why = replay(binary, trace, g["table"], g["governor"], flags)
            if sims[c] is None:
                missing.append(dict(key, config=c, why=why))
        sm = {c: metrics(s) if s else {} for c, s in sims.items()}
        wake.append(dict(key, sim=(sims["model"] or {}).get("irq_wake_latency_us"),
                         sim_stock=(sims["stock"] or {}).get("irq_wake_latency_us")))
        for m, v in metrics(g).items():
            s, s0 = sm["model"].get(m), sm["stock"].get(m)
            rows.append(dict(key, metric=m, sim=s, guest=v, within=within(s, v),
                             within_relative=within(s, v, 0.0),
                             sim_stock=s0, within_stock=within(s0, v),
                             within_stock_relative=within(s0, v, 0.0),
                             entries_sim=(sims["model"] or {}).get("entries"),
                             entries_guest=g["entries"]))
    res = dict(goal="within %g %% of the guest (relative), or %g absolute for values near zero"
               % (100 * TOL, FLOOR), tolerance=TOL, floor=FLOOR,
               simulator=dict(binary=binary, wake_delay_us=args.wake_delay_us,
                              relax_ns=args.relax_ns, flags=model, irq_delay_us=irq,
                              irq_delay_from=irq_from, tick_costs_us=costs,
                              tick_costs_from=costs_from),
               rows=rows, summary=counts(rows, "within"),
               relative_only=counts(rows, "within_relative"),
               stock=counts(rows, "within_stock"),
               stock_relative_only=counts(rows, "within_stock_relative"), missing=missing,
               wake_latency=wake)
    res["cross"] = cross(binary, corpus, model_of, [])
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print("fidelity: interrupt delay per table (us): %s, from %s" % (
        ", ".join("%s %d" % kv for kv in sorted(irq.items())), irq_from))
    print("fidelity: tick costs per table (decide, stop, restart, us): %s, from %s" % (
        ", ".join("%s %s" % (t, ",".join(map(str, c))) for t, c in sorted(costs.items())),
        costs_from))
    for name, c in (("model: %s" % " ".join(model), res["summary"]),
                    ("model, no floor", res["relative_only"]),
                    ("stock world", res["stock"]),
                    ("stock world, no floor", res["stock_relative_only"])):
        print("fidelity (%s): %s" % (name, ", ".join(
            "%s %d/%d" % (m, v["within"], v["runs"]) for m, v in c.items())))
    if missing:
        print("fidelity: %d replays missing or failed (fidelity.json: missing)" % len(missing))
    for r in res["cross"]["ratios"]:
        print("fidelity: cross: %s %s: interrupt wake-up latency %s/teo %s" % (
            r["table"], r["set"], r["num"], "n/a" if r["ratio"] is None else "%.3f" % r["ratio"]))
    print("fidelity: %s/fidelity.json" % args.outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
