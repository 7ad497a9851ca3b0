#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace2corpus.py LOG OUTDIR [MAX_EPISODES]

Turns the "REC workload cpu ..." lines of a bench-mode guest log (rteo's
recorder, on the x86-like emulated table) into the simulator's recorded
corpus: OUTDIR/<workload>.trace, one idle episode per line:

    sleep_us wake_us src tick_phase_us latency_req_us

Each record holds a select()'s inputs and how the *previous* period ended,
so the outcome of entry k is read from record k+1 of the same CPU.  The
idle time of an entry is the measured residency minus the exit latency of
the state entered (the emulated states spin for it).  Entries that ended by
the tick or the polling time limit and were followed by the next select()
within 100 us are joined with it into one episode (no task ran between).
An episode that ends within 20 us (or 1%) of the timer it started with, or
by the tick, counts as a timer wake-up, else as an interrupt.  Replaying
the episodes is open-loop across episodes, as for the synthetic classes."""

import os
import sys

# x86-like table (drivers/cpuidle/cpuidle_tables.rs): exit latency, ns
EXIT_NS = [0, 2000, 10000, 133000]
GAP_NS = 100000


def episodes(recs):
    out = []
    i = 0
    n = len(recs)
    while i + 1 < n:
        start = recs[i]
        t0 = start["t"]
        sleep = start["sleep"]
        k = i
        while True:
            nxt = recs[k + 1]
            idle = max(0, nxt["res"] - EXIT_NS[min(recs[k]["idx"], 3)])
            end = recs[k]["t"] + idle
            joined = (nxt["tick"] or nxt["ptl"]) and k + 2 < n and nxt["t"] - end < GAP_NS
            if not joined:
                break
            k += 1
        wake = end - t0
        tick_end = bool(recs[k + 1]["tick"])
        if tick_end or (sleep > 0 and abs(wake - sleep) <= max(20000, sleep // 100)):
            src = "timer"
            sleep = min(sleep, wake) if sleep > 0 else wake
        else:
            src = "irq"
        if sleep > 0 and wake > 0:
            out.append((sleep // 1000, max(1, wake // 1000), src,
                        max(1, start["dtick"] // 1000), start["qos"] // 1000))
        i = k + 1
    return out


def main():
    log, outdir = sys.argv[1], sys.argv[2]
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else 1500
    per = {}
    with open(log, errors="replace") as f:
        for line in f:
            p = line.split()
            if len(p) != 14 or p[0] != "REC":
                continue
            try:
                w, cpu = p[1], int(p[2])
                v = [int(x) for x in p[3:]]
            except ValueError:
                continue
            per.setdefault(w, {}).setdefault(cpu, []).append({
                "t": v[0], "sleep": v[1], "dtick": v[2], "qos": min(v[3], 2**31 * 1000),
                "res": v[4], "tick": v[6], "ptl": v[7], "idx": v[9],
            })
    os.makedirs(outdir, exist_ok=True)
    for w, cpus in sorted(per.items()):
        eps = []
        for cpu in sorted(cpus):
            eps.extend(episodes(sorted(cpus[cpu], key=lambda r: r["t"])))
        eps = eps[:limit]
        path = os.path.join(outdir, w + ".trace")
        with open(path, "w") as f:
            f.write("# recorded by rteo.record in an x86_64 guest (x86-like emulated table), "
                    "workload %s; sleep_us wake_us src tick_phase_us latency_req_us\n" % w)
            for e in eps:
                f.write("%d %d %s %d %d\n" % e)
        print("trace2corpus: %s: %d episodes" % (path, len(eps)))


if __name__ == "__main__":
    main()
