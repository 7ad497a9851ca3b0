#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""trace2corpus.py LOG OUTDIR [MAX] [--split-forced-ticks]

Turns the "REC ..." lines of a bench-mode guest log (evaluation/guest/record.sh:
the kernel's power:cpu_idle_sleep_length, cpu_idle and cpu_idle_miss events)
into the simulator's recorded corpus and the guest side of the fidelity
comparison:

  OUTDIR/corpus/{tuning,heldout}/TABLE.WORKLOAD.GOVERNOR.trace, one idle
  episode per line: sleep_us wake_us src tick_phase_us latency_req_us state
  cpu at_us source (state: the one the guest's CPU woke from; at_us: when
  its sleep length was taken, on the recorder's clock; source: what woke
  its last entry, as recorded: timer, ipi, work, irqN, - or ? where the
  recorder did not say)

An episode's times are from the moment its sleep length was taken (the
sleep-length event, before the governor's select()), as the simulator's
episodes are: the guest's first entry came the governor's decision later
(REC's enter_us; the simulator's emulated world charges that decision as
the tick costs of evaluation/tickcost.py).  A recording made before
guest/record.sh printed enter_us has its episodes from the first entry.
  OUTDIR/guest-idle.json: per (table, workload, governor) what the guest
  measured: entries, above and below per entry (cpu_idle_miss), each
  state's share of the idle time, each state's entries and time (us, the
  exit latency's spin included), the emulated energy the driver counted
  over the trace (guest/record.sh's record-energy line; null in recordings
  from before it); and per table the emulator's interrupt
  delay to a halted CPU, estimated from the pipe workload (below).

An entry's idle time is its duration less the exit latency of the state
entered (the emulated states spin for it after the wake-up).  Entries that
ended at the tick and were followed by the next one within 100 us are
joined into one episode (no task ran between), so that an episode is the
workload's idle time, not the governor's choice; with --split-forced-ticks
(evaluation/idle_bound.py) not where that tick was one no governor could have
stopped: the sleep length was the time to it (a timer within the tick, or
the tick held by RCU or irq_work).  So is a polling entry that ran out of
its poll budget (recorded source `-`, the next entry at once with the same
sleep length and time to the tick: the same idle period, which the
kernel measures from its start) with the entries after it: the replay
polls, times out and chooses again itself.  Where the recorder
gave each entry's wake-up source (REC's 13th field: timer, ipi, work,
irqN or -), an episode is a timer wake-up if the local timer woke its last
entry, else an interrupt; where it did not (an older recording, or `-`: a
polling state left without an interrupt), an episode that ends at the tick
or within 20 us (or 1 %) of its sleep length is a timer wake-up, else an
interrupt (the timing rule).

The wake-up sources (wake_sources in guest-idle.json, where recorded): per
run, how many entries each source ended (timer, ipi, work, irq: device
interrupts, and per device interrupt number; none), and how many episodes
the timing rule calls interrupts that came after the timer was due, by
what really woke them.  Per table, how late the local timer's interrupt
ended an entry whose sleep length was the time to the next clock event
(the timer was the next event): the wake-up's time less the sleep length,
p50 and p90 over halting and over polling states: the emulator's timer
delivery delay to a halted CPU, measured (timer_lateness in
guest-idle.json).

The interrupt delay (irq_delay in guest-idle.json): in the pipe workload
each wake-up is the partner's write, as soon after the CPU went idle
whatever state it entered; the guest's CPU takes it at once when polling
(the waker only sets need_resched) and late when halted (its vCPU thread
must be woken).  Per table with a polling state, over every governor's pipe
run: the median idle time of the interrupt wake-ups from the shallowest
halting state less that from the polling state (an interrupt wake-up: not
at the tick, more than 20 us (or 1 %) before the timer, not a poll that ran
out of budget; a polling state: exit latency 0).

MAX caps the episodes written per trace (the first MAX of each CPU in
turn; default: all); the guest-idle.json figures use every entry.

The split is fixed by workload, so that the held-out set holds workloads
the rules were never tuned on: HELDOUT below.  Headlines are computed on
the held-out set only.
"""

import json
import os
import re
import sys

HELDOUT = {"ioping", "cyclic8", "gzip", "vblk"}
GAP_US = 100
NO_QOS_US = 2000000000
# The longest sleep length and time to the next event a trace holds, us:
# longer ones (a CPU with no timer: about KTIME_MAX) are this.
FAR_US = 10**9
# Recordings made before guest/record.sh printed its numbers with %.0f
# hold, for a sleep length or time to the next event past 2^31 us, what
# busybox awk's %d made of it: INT_MIN.  No real value is that (a negative
# sleep length is a timer a few ms overdue at most): it stands for "far".
AWK_INT_MIN = -2147483648
# What guest/record.sh says woke an entry.
WAKE_SRC = re.compile(r"timer|ipi|work|irq[0-9]+|-")


def split_rep(work):
    """(workload, repetition) of a recorded run's name: WORKLOAD-rK for
    record_reps > 1 (guest/record.sh), WORKLOAD alone (repetition 1)."""
    m = re.fullmatch(r"(.+)-r([0-9]+)", work)
    return (m[1], int(m[2])) if m else (work, 1)


def heldout(work):
    """A held-out workload, its repetitions (WORKLOAD-rK) too."""
    return split_rep(work)[0] in HELDOUT


def far(us):
    return FAR_US if us == AWK_INT_MIN or us > FAR_US else us


def slack(us):
    """How far from a time an event may be and still be at it: 20 us or 1 %."""
    return max(20, us // 100)


def idle_of(r, exit_us):
    """An entry's idle time: its duration less its state's exit latency."""
    return max(0, r["dur"] - exit_us.get(r["state"], 0))


def is_irq(r, idle):
    """An entry ended by an interrupt: not at the tick, well before its timer."""
    return abs(idle - r["tick"]) > slack(r["tick"]) and r["sleep"] - idle > slack(r["sleep"])


def irq_delay(recs, exit_us):
    """recs: a table's pipe entries; the estimate of the module docstring."""
    polling = [s for s, us in exit_us.items() if us == 0]
    halting = sorted(s for s, us in exit_us.items() if us > 0)
    if not polling or not halting:
        return None
    idle = {s: sorted(idle_of(r, exit_us) for r in recs
                      if r["state"] == s and not r.get("polled_out")
                      and is_irq(r, idle_of(r, exit_us)))
            for s in (polling[0], halting[0])}
    if min(len(v) for v in idle.values()) < 20:
        return None
    med = {s: v[len(v) // 2] for s, v in idle.items()}
    return {"workload": "pipe", "polling_state": polling[0], "halting_state": halting[0],
            "polling_p50_us": med[polling[0]], "halting_p50_us": med[halting[0]],
            "polling_n": len(idle[polling[0]]), "halting_n": len(idle[halting[0]]),
            "delay_us": max(0, med[halting[0]] - med[polling[0]])}


def polled_out(recs, k):
    """recs[k] a polling entry that ran out of its poll budget: no
    interrupt ended it (recorded source "-") and the next entry continues
    the same idle period at once: the same sleep length and time to the
    tick, which the kernel measures from the idle period's start
    (tick_nohz_get_sleep_length() from ts->idle_entrytime, set again only
    when the CPU enters the idle loop anew or leaves an interrupt).  A
    need_resched() wake-up runs a task and starts a new idle period."""
    if k + 1 >= len(recs) or recs[k].get("wsrc") != "-":
        return False
    r, nx = recs[k], recs[k + 1]
    return (nx["sleep"] == r["sleep"] and nx["tick"] == r["tick"]
            and nx["t"] - (r["t"] + r["dur"]) < GAP_US)


def forced(r):
    """An entry whose sleep length was the time to the next tick: a timer
    within the tick, or a tick that could not be stopped (RCU, irq_work);
    the tick code then reports the tick as the next event, and it wakes the
    CPU whatever the governor chooses."""
    return abs(r["sleep"] - r["tick"]) <= slack(r["tick"])


def episodes(recs, exit_us, split_forced=False):
    """recs: one CPU's entries in time order (dicts).  split_forced: an
    entry that ended at a tick no governor could have stopped (forced())
    ends its episode."""
    return [e for e, _ in walk(recs, exit_us, split_forced)]


def walk(recs, exit_us, split_forced=False):
    """episodes(), each with the index in recs of its last entry."""
    return [(e, k) for e, _, k in walk_spans(recs, exit_us, split_forced)]


def walk_spans(recs, exit_us, split_forced=False):
    """episodes(), each with the indices in recs of its first and last
    entries."""
    out = []
    i, n = 0, len(recs)
    while i < n:
        start = recs[i]
        k = i
        while True:
            r = recs[k]
            idle = idle_of(r, exit_us)
            end = r["t"] + idle
            at_tick = abs(idle - r["tick"]) <= slack(r["tick"])
            if (at_tick and k + 1 < n and recs[k + 1]["t"] - (r["t"] + r["dur"]) < GAP_US
                    and not (split_forced and forced(r))):
                k += 1
                continue
            # a poll that ran out of budget did not end the idle period: the
            # governor chose again, and the replay does the same
            if polled_out(recs, k):
                k += 1
                continue
            break
        wake = end - start["t"] + start["enter"]
        sleep = start["sleep"]
        woke = recs[k].get("wsrc")
        if woke in (None, "-"):
            timer = at_tick or abs(wake - sleep) <= slack(sleep)
        else:
            timer = woke == "timer"
        if timer:
            src = "timer"
            sleep = min(sleep, wake)
        else:
            src = "irq"
        if wake > 0:
            out.append(((max(1, sleep), max(1, wake), src, max(1, start["tick"]), NO_QOS_US,
                         recs[k]["state"]), i, k))
        i = k + 1
    return out


def src_class(w):
    """The class of a recorded wake-up source: timer, ipi, work, irq, none."""
    return "none" if w == "-" else "irq" if w.startswith("irq") else w


def wake_sources(per_cpu_recs, exit_us):
    """One run's wake-up sources (module docstring), or None if the
    recorder did not give them."""
    recs = [r for c in per_cpu_recs for r in c]
    if not recs or any(r["wsrc"] is None for r in recs):
        return None
    classes, devices, late, periods = {}, {}, {}, 0
    for r in recs:
        c = src_class(r["wsrc"])
        classes[c] = classes.get(c, 0) + 1
        if c == "irq":
            devices[r["wsrc"][3:]] = devices.get(r["wsrc"][3:], 0) + 1
    for c in per_cpu_recs:
        # the timing rule's interrupts after the timer, by their source
        for e, k in walk([dict(r, wsrc=None) for r in c], exit_us):
            periods += 1
            if e[2] == "irq" and e[1] - e[0] > slack(e[0]):
                w = src_class(c[k]["wsrc"])
                late[w] = late.get(w, 0) + 1
    return {"entries": classes, "device_irqs": devices, "episodes": periods,
            "timing_rule_irq_after_timer": late}


def timer_lateness(recs, exit_us):
    """A table's entries the local timer ended with the timer the next
    event: how late it came (us), p50 and p90 over halting and over polling
    states; None where no entry was recorded with its source."""
    late = {"halting": [], "polling": []}
    for r in recs:
        if r["wsrc"] != "timer" or abs(r["sleep"] - r["tick"]) > slack(r["tick"]):
            continue
        kind = "polling" if exit_us.get(r["state"], 0) == 0 else "halting"
        late[kind].append(idle_of(r, exit_us) + r["enter"] - r["sleep"])
    out = {}
    for kind, v in late.items():
        v.sort()
        if v:
            out[kind] = {"n": len(v), "p50_us": v[len(v) // 2], "p90_us": v[len(v) * 9 // 10]}
    return out or None


def read_log(lines):
    """The REC and BENCH-META lines of a log: {(table, workload, governor):
    {cpu: [entries]}}, {table: {state: exit latency us}}, the record-energy
    lines {(table, workload, governor): uJ}, and how many REC lines were
    malformed."""
    runs, exits, energy, bad = {}, {}, {}, 0
    for line in lines:
        p = line.split()
        if "BENCH-META" in p:
            q = p[p.index("BENCH-META"):]
            if len(q) == 5 and q[1] == "exit_latency_us":
                exits.setdefault(q[2], {})[int(q[3][1:])] = int(q[4])
            elif len(q) == 6 and q[1] == "record-energy" and q[5].isdigit():
                energy[(q[2], q[4], q[3])] = int(q[5])
            continue
        if "REC" not in p:
            continue
        q = p[p.index("REC"):]
        # 13 fields; 12 in recordings from before the wake-up source,
        # 11 from before enter_us
        if len(q) not in (11, 12, 13):
            bad += 1
            continue
        try:
            table, gov, work, cpu = q[1], q[2], q[3], int(q[4])
            t, sleep, dur, tick, state = (int(x) for x in q[5:10])
            enter = int(q[11]) if len(q) >= 12 else 0
        except ValueError:
            bad += 1
            continue
        wsrc = q[12] if len(q) == 13 else None
        if not 0 <= enter < 10**6 or (wsrc is not None and not WAKE_SRC.fullmatch(wsrc)):
            bad += 1
            continue
        sleep, tick = far(sleep), far(tick)
        runs.setdefault((table, work, gov), {}).setdefault(cpu, []).append(
            {"t": t, "sleep": sleep, "dur": dur, "tick": tick, "state": state, "miss": q[10],
             "enter": enter, "wsrc": wsrc})
    return runs, exits, energy, bad


def main():
    argv = [a for a in sys.argv[1:] if a != "--split-forced-ticks"]
    split_forced = len(argv) < len(sys.argv) - 1
    if len(argv) not in (2, 3):
        sys.exit("usage: trace2corpus.py LOG OUTDIR [MAX] [--split-forced-ticks]")
    log, outdir = argv[0], argv[1]
    cap = int(argv[2]) if len(argv) > 2 else None
    with open(log, errors="replace") as f:
        runs, exits, energy, bad = read_log(f)
    if not runs:
        sys.exit("trace2corpus: no REC lines in %s" % log)
    guest, pipes, alltab = [], {}, {}
    for (table, work, gov), cpus in sorted(runs.items()):
        if split_rep(work)[0] == "pipe":
            pipes.setdefault(table, []).extend(r for c in cpus.values() for r in c)
        if table not in exits:
            sys.exit("trace2corpus: no exit latencies for table %s" % table)
        eps, time, count, entries, above, below = [], {}, {}, 0, 0, 0
        per_cpu, per_cpu_recs = [], []
        for cpu in sorted(cpus):
            recs = sorted(cpus[cpu], key=lambda r: r["t"])
            for k, r in enumerate(recs):
                r["polled_out"] = polled_out(recs, k)
            per_cpu_recs.append(recs)
            # each episode with its CPU, when its sleep length was taken
            # (us, the recorder's clock) and what woke its last entry
            per_cpu.append([e + (cpu, recs[i]["t"] - recs[i]["enter"], recs[k]["wsrc"] or "?")
                            for e, i, k in walk_spans(recs, exits[table], split_forced)])
            alltab.setdefault(table, []).extend(recs)
            for r in recs:
                entries += 1
                above += r["miss"] == "above"
                below += r["miss"] == "below"
                time[r["state"]] = time.get(r["state"], 0) + r["dur"]
                count[r["state"]] = count.get(r["state"], 0) + 1
        # every CPU's episodes, in turn, up to the cap
        if cap is None:
            eps = [e for c in per_cpu for e in c]
        else:
            share = cap // max(len(per_cpu), 1)
            eps = [e for c in per_cpu for e in c[:share]]
        total = sum(time.values()) or 1
        guest.append({"table": table, "workload": work, "governor": gov,
                      "set": "heldout" if heldout(work) else "tuning",
                      "entries": entries, "episodes": len(eps),
                      "energy_uj": energy.get((table, work, gov)),
                      "above_per_entry": above / max(entries, 1),
                      "below_per_entry": below / max(entries, 1),
                      "share": {"s%d" % s: time.get(s, 0) / total
                                for s in sorted(exits[table])},
                      "state_entries": {"s%d" % s: count.get(s, 0) for s in sorted(exits[table])},
                      "state_time_us": {"s%d" % s: time.get(s, 0) for s in sorted(exits[table])},
                      "wake_sources": wake_sources(per_cpu_recs, exits[table])})
        sub = os.path.join(outdir, "corpus", "heldout" if heldout(work) else "tuning")
        os.makedirs(sub, exist_ok=True)
        path = os.path.join(sub, "%s.%s.%s.trace" % (table, work, gov))
        with open(path, "w") as f:
            f.write("# recorded from power:cpu_idle_sleep_length/cpu_idle in an x86_64 guest, "
                    "table %s, workload %s, governor %s; "
                    "sleep_us wake_us src tick_phase_us latency_req_us state cpu at_us source\n"
                    % (table, work, gov))
            for e in eps:
                f.write("%d %d %s %d %d %d %d %d %s\n" % e)
    delays = {t: irq_delay(recs, exits[t]) for t, recs in sorted(pipes.items())}
    lateness = {t: timer_lateness(recs, exits[t]) for t, recs in sorted(alltab.items())}
    lateness = {t: v for t, v in lateness.items() if v}
    with open(os.path.join(outdir, "guest-idle.json"), "w") as f:
        json.dump({"malformed_lines": bad, "runs": guest,
                   "irq_delay": {t: d for t, d in delays.items() if d},
                   "timer_lateness": lateness}, f, indent=1)
    print("trace2corpus: %d runs, %d episodes, %d malformed lines -> %s"
          % (len(guest), sum(g["episodes"] for g in guest), bad, outdir))
    for t, d in delays.items():
        what = ("%d us (pipe: s%d %d us over %d wake-ups, s%d %d us over %d)" % (
            d["delay_us"], d["halting_state"], d["halting_p50_us"], d["halting_n"],
            d["polling_state"], d["polling_p50_us"], d["polling_n"]) if d else
            "not estimated (no polling state, or too few wake-ups)")
        print("trace2corpus: %s: interrupt delay to a halted CPU %s" % (t, what))
    for t, v in lateness.items():
        print("trace2corpus: %s: the timer's interrupt came %s" % (t, ", ".join(
            "p50 %d us, p90 %d us late over %d %s entries" % (k["p50_us"], k["p90_us"], k["n"], kind)
            for kind, k in sorted(v.items()))))
    for st in ("tuning", "heldout"):
        srcs = [g for g in guest if g["wake_sources"] and g["set"] == st]
        if not srcs:
            continue
        after, n = {}, sum(g["wake_sources"]["episodes"] for g in srcs)
        for g in srcs:
            for w, k in g["wake_sources"]["timing_rule_irq_after_timer"].items():
                after[w] = after.get(w, 0) + k
        print("trace2corpus: %s: of %d episodes the timing rule makes %d (%.1f %%) interrupts "
              "after the timer; what woke them: %s" % (
                  st, n, sum(after.values()), 100 * sum(after.values()) / max(n, 1),
                  ", ".join("%s %d" % kv for kv in sorted(after.items())) or "-"))


if __name__ == "__main__":
    main()
