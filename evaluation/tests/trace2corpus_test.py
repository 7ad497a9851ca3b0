# SPDX-License-Identifier: GPL-2.0
"""Self-tests of evaluation/trace2corpus.py on crafted REC lines.

Each check holds only if the episodes written and the guest's figures are
what the REC lines say: far sleep lengths (a CPU with no timer, printed
whole or as the INT_MIN of an older recorder's %d), entries joined at the
tick, timer and interrupt wake-ups, the exit latency taken off, the
held-out split, episodes timed from the sleep-length event, the recorded
wake-up sources and the timer's lateness measured from them, a poll that
ran out of budget joined to its idle period.  Run by pytest (one test per check).
TRACE2CORPUS=PATH tests
another copy (a mutant).
"""
import json
import os
import subprocess

import pytest

from evaluation import paths
from evaluation.tests import selftest_checks

SCRIPT = selftest_checks.program("trace2corpus", "TRACE2CORPUS")
T = "x86-like-x10"
META = ["BENCH-META exit_latency_us %s s0 0" % T, "BENCH-META exit_latency_us %s s1 20" % T,
        "BENCH-META exit_latency_us %s s2 100" % T]


def rec(work, cpu, t, sleep, dur, tick, state, miss="-", gov="teo"):
    return "REC %s %s %s %d %d %d %d %d %d %s" % (T, gov, work, cpu, t, sleep, dur, tick, state, miss)


LINES = META + [
    # idle, CPU0: no timer at all, as the old recorder printed it (INT_MIN)
    # and as it prints it now (KTIME_MAX / 1000), an interrupt after 5 ms
    rec("idle", 0, 1000, -2147483648, 5100, -2147483648, 2, "above"),
    rec("idle", 0, 10000, 9223372036854, 5100, 9223372036854, 2),
    # a timer 300 us away, met to the microsecond (state 1: 20 us exit)
    rec("idle", 0, 20000, 300, 320, 300, 1),
    # a timer already overdue (a negative sleep length) polled for 40 us
    rec("idle", 0, 30000, -1800, 40, -1800, 0, "below"),
    # CPU1: woken by the tick after 4000 us, idle again 30 us later, and
    # at the tick again 2000 us on: one episode of 6130 us that ended at a
    # tick (a timer wake-up there); then an interrupt after 700 us
    rec("idle", 1, 1000, 50000, 4100, 4000, 2),
    rec("idle", 1, 5130, 45000, 2100, 2000, 2),
    rec("idle", 1, 8000, 40000, 720, 1500, 1),
    # a tick no governor could stop (the sleep length was the time to it),
    # then the CPU idle again at once: one episode, or two with
    # --split-forced-ticks
    rec("forced", 0, 1000, 4000, 4100, 4000, 2),
    rec("forced", 0, 5130, 50000, 2100, 2000, 2),
    # a held-out workload, and a repetition of it (record_reps)
    rec("gzip", 0, 1000, 800, 820, 800, 1),
    rec("gzip-r2", 0, 1000, 800, 820, 800, 1),
    # the driver's energy over the idle trace; none for gzip
    "BENCH-META record-energy %s teo idle 123456" % T,
    "BENCH-META record-energy %s teo pipe 12x" % T,  # not a count: ignored
    # the recorder's 12th field, the time from the sleep-length event to
    # the entry: an interrupt 300 us into C1 entered 50 us after the sleep
    # length (500 us) was taken is 350 us into the episode; a timer 300 us
    # away met, entered 30 us late, after 270 us in C1
    rec("hackbench", 0, 1000, 500, 320, 4000, 1) + " 50",
    rec("hackbench", 0, 2000, 300, 290, 4000, 1) + " 30",
    "REC %s teo hackbench 0 3000 300 290 4000 1 - -5" % T,  # malformed: a negative enter_us
    "REC %s teo idle 0 1 2 3" % T,  # malformed: too few fields
    # the recorder's 13th field, what woke the entry: the local timer 337 us
    # after it was due (the timing rule's interrupt after the timer); a
    # device interrupt; an IPI right at the timer (the timing rule's timer);
    # a device interrupt 500 us after the timer was due; a polling state
    # left without an interrupt (the timing rule decides); the local timer
    # 30 us late to a polling state; a source the recorder never prints
    rec("src", 0, 1000, 1000, 1437, 1000, 2) + " 0 timer",
    rec("src", 0, 10000, 5000, 720, 4000, 1) + " 0 irq24",
    rec("src", 0, 20000, 300, 320, 300, 1) + " 0 ipi",
    rec("src", 0, 30000, 2000, 2600, 2000, 2) + " 0 irq24",
    rec("src", 0, 40000, 3000, 40, 3000, 0) + " 0 -",
    rec("src", 0, 50000, 500, 530, 500, 0) + " 0 timer",
    rec("src", 0, 60000, 500, 530, 500, 0) + " 0 nmi",  # malformed
    # a poll that ran out of its budget after 25 us, the idle period going
    # on in C1 at once (the same sleep length and time to the tick) until
    # its timer 900 us from the start: one episode; then a poll left on
    # need_resched after 30 us (no interrupt), a task, and a new idle
    # period (another sleep length): two
    rec("poll", 0, 1000, 900, 25, 4000, 0) + " 0 -",
    rec("poll", 0, 1030, 900, 880, 4000, 1) + " 0 timer",
    rec("poll", 0, 3000, 2000, 30, 4000, 0) + " 0 -",
    rec("poll", 0, 3040, 1900, 1920, 4000, 1) + " 0 timer",
] + [
    # pipe: wake-ups 7 us after entry when polling, 117 us (137 less C1's
    # 20 us exit) when halted: an interrupt delay of 110 us
    rec("pipe", i % 2, 100000 + 1000 * i, 9223372036854, 7 if i % 2 else 137, 4000, i % 2 ^ 1)
    for i in range(50)
] + [
    # and a repetition of it (a second boot of make record): its wake-ups
    # count too
    rec("pipe-r2", i % 2, 100000 + 1000 * i, 9223372036854, 7 if i % 2 else 137, 4000, i % 2 ^ 1)
    for i in range(10)
]


def run(tmp, *extra):
    log = os.path.join(tmp, "console.log")
    with open(log, "w") as f:
        f.write("\n".join("[ 1.0] " + l for l in LINES) + "\n")
    out = os.path.join(tmp, "out" + "".join(extra))
    p = subprocess.run(SCRIPT + [log, out, *extra], capture_output=True, text=True,
                       env=paths.module_env())
    traces, full = {}, {}
    for sub in ("tuning", "heldout"):
        d = os.path.join(out, "corpus", sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            with open(os.path.join(d, name)) as f:
                full[(sub, name)] = [l.split() for l in f if not l.startswith("#")]
            # the first six fields: the episode as the simulator replays it
            traces[(sub, name)] = [l[:6] for l in full[(sub, name)]]
    traces["full"] = full
    guest = None
    if os.path.exists(os.path.join(out, "guest-idle.json")):
        with open(os.path.join(out, "guest-idle.json")) as f:
            guest = json.load(f)
    return p, traces, guest


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: trace2corpus's locals."""
    tmp = str(tmp_path_factory.mktemp("trace2corpus-test"))
    p, traces, guest = run(tmp)
    sp, straces, _ = run(tmp, "--split-forced-ticks")
    forced = traces.get(("tuning", "%s.forced.teo.trace" % T))
    split = straces.get(("tuning", "%s.forced.teo.trace" % T))
    idle = traces.get(("tuning", "%s.idle.teo.trace" % T), [])
    runs = {r["workload"]: r for r in (guest or {}).get("runs", [])}
    on_failure = p.stdout + p.stderr
    return locals()


CHECKS = [
    ("exit 0, three malformed lines", lambda guest, p: p.returncode == 0 and guest["malformed_lines"] == 3),
    ("episodes from the sleep-length event (enter_us)", lambda traces:
     traces.get(("tuning", "%s.hackbench.teo.trace" % T)) ==
     [["500", "350", "irq", "4000", "2000000000", "1"],
      ["300", "300", "timer", "4000", "2000000000", "1"]]),
    ("no timer (INT_MIN or KTIME_MAX): a far sleep length, an interrupt", lambda idle:
     idle[0] == ["1000000000", "5000", "irq", "1000000000", "2000000000", "2"] and
     idle[1] == ["1000000000", "5000", "irq", "1000000000", "2000000000", "2"]),
    ("a timer met: a timer wake-up, the exit latency taken off", lambda idle:
     idle[2][:3] == ["300", "300", "timer"]),
    ("an overdue timer: sleep length 1 us", lambda idle: idle[3][:2] == ["1", "40"]),
    ("the tick's wake-up joined with the next entry: one episode", lambda idle:
     idle[4][:3] == ["6130", "6130", "timer"] and idle[5][:3] == ["40000", "700", "irq"] and
     len(idle) == 6),
    ("a forced tick joined by default, split with --split-forced-ticks", lambda forced, idle, sp, split, straces:
     forced == [["4000", "6130", "timer", "4000", "2000000000", "2"]] and sp.returncode == 0 and
     split == [["4000", "4000", "timer", "4000", "2000000000", "2"],
               ["2000", "2000", "timer", "2000", "2000000000", "2"]] and
     straces[("tuning", "%s.idle.teo.trace" % T)] == idle),
    ("the held-out workload in heldout/", lambda traces:
     traces.get(("heldout", "%s.gzip.teo.trace" % T)) == [["800", "800", "timer", "800", "2000000000", "1"]]),
    ("a repetition of a held-out workload is held out", lambda runs, traces:
     traces.get(("heldout", "%s.gzip-r2.teo.trace" % T)) == [["800", "800", "timer", "800", "2000000000", "1"]]
     and runs["gzip-r2"]["set"] == "heldout"),
    ("the record-energy line: the run's energy_uj, else null", lambda runs:
     runs["idle"]["energy_uj"] == 123456 and runs["gzip"]["energy_uj"] is None
     and runs["pipe"]["energy_uj"] is None),
    ("each state's entries and time over the traced entries", lambda runs:
     runs["idle"]["state_entries"] == {"s0": 1, "s1": 2, "s2": 4} and
     runs["idle"]["state_time_us"] == {"s0": 40, "s1": 1040, "s2": 16400}),
    ("the state woken from: the joined episode's last entry's", lambda idle:
     [e[5] for e in idle] == ["2", "2", "1", "0", "2", "1"]),
    ("the interrupt delay from the pipe runs, repetitions too: 117 - 7 us", lambda guest:
     guest["irq_delay"][T]["delay_us"] == 110 and guest["irq_delay"][T]["halting_state"] == 1
     and guest["irq_delay"][T]["polling_n"] == 30),
    ("the guest's figures: entries, above/below per entry, shares", lambda runs:
     runs["idle"]["entries"] == 7 and abs(runs["idle"]["above_per_entry"] - 1 / 7) < 1e-9 and
     abs(runs["idle"]["below_per_entry"] - 1 / 7) < 1e-9 and
     abs(runs["idle"]["share"]["s0"] - 40 / 17480) < 1e-9),
    ("the recorded wake-up source decides timer or interrupt", lambda traces:
     traces.get(("tuning", "%s.src.teo.trace" % T)) ==
     [["1000", "1337", "timer", "1000", "2000000000", "2"],
      ["5000", "700", "irq", "4000", "2000000000", "1"],
      ["300", "300", "irq", "300", "2000000000", "1"],
      ["2000", "2500", "irq", "2000", "2000000000", "2"],
      ["3000", "40", "irq", "3000", "2000000000", "0"],
      ["500", "530", "timer", "500", "2000000000", "0"]]),
    ("each episode's CPU, time of its sleep length and recorded source", lambda traces:
     [l[6:] for l in traces["full"][("tuning", "%s.src.teo.trace" % T)]] ==
     [["0", "1000", "timer"], ["0", "10000", "irq24"], ["0", "20000", "ipi"],
      ["0", "30000", "irq24"], ["0", "40000", "-"], ["0", "50000", "timer"]] and
     all(len(l) == 9 for t in traces["full"].values() for l in t)),
    ("the run's wake-up sources, and the timing rule's late interrupts by source", lambda runs:
     runs["src"]["wake_sources"] == {
         "entries": {"timer": 2, "irq": 2, "ipi": 1, "none": 1}, "device_irqs": {"24": 2},
         "episodes": 6,
         "timing_rule_irq_after_timer": {"timer": 2, "irq": 1}}
     and runs["idle"]["wake_sources"] is None),
    ("a poll out of budget goes on with its idle period, a need_resched wake-up ends it",
     lambda traces: traces.get(("tuning", "%s.poll.teo.trace" % T)) ==
     [["890", "890", "timer", "4000", "2000000000", "1"],
      ["2000", "30", "irq", "4000", "2000000000", "0"],
      ["1900", "1900", "timer", "4000", "2000000000", "1"]]),
    ("the timer's lateness: halting and polling entries, the timer the next event", lambda guest:
     guest["timer_lateness"] == {T: {"halting": {"n": 1, "p50_us": 337, "p90_us": 337},
                                     "polling": {"n": 1, "p50_us": 30, "p90_us": 30}}}),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_trace2corpus(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
