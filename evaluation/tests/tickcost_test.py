# SPDX-License-Identifier: GPL-2.0
"""Self-tests of evaluation/tickcost.py on crafted TICKCOST lines.

Each check holds only if the estimates are what the lines say (the decision
from the kept periods, the stop and the restart from stopped against kept
periods of the same governor and workload, and of the same wake-up kind for
the restart), and a run that did not finish, lost trace events, printed a
malformed line or gave too few periods fails.  Run by pytest (one test per check).
TICKCOST=PATH tests another copy (a mutant).
"""

import pytest

from evaluation.tests import selftest_checks

SCRIPT = selftest_checks.program("tickcost", "TICKCOST")
T = "x86-like-x10"


def lines(gov, work, stopped, kind, enter, exit_, n=20):
    return ["[ 9.1] TICKCOST %s %s %s %d %d %s %.1f %.1f"
            % (T, gov, work, i % 2, stopped, kind, enter, exit_) for i in range(n)]


# cyclic10: stopping costs 40 us on the way in, restarting 60 on the way
# out; fifo: 33 and 50; the kept periods decide in 10 and 12 us.  A timer
# wake-up's exit (kept) is slower than an IPI's: the restart is taken per
# kind, so no cell mixes them.
GOOD = (lines("teo", "cyclic10", 1, "timer", 50, 100) + lines("teo", "cyclic10", 0, "timer", 10, 40) +
        lines("teo", "fifo", 1, "irq", 45, 70) + lines("teo", "fifo", 0, "irq", 12, 20) +
        # a kind with stopped periods only: no cell
        lines("teo", "fifo", 1, "timer", 45, 900, 5) +
        ["BENCH-META tickcost %s teo cyclic10 lost 0" % T, "BENCH-META tickcost %s teo fifo lost 0" % T])


def run(tmp, name, text):
    return selftest_checks.run_on_log(SCRIPT, tmp, name, text, "tickcost.json")


def est(res, key):
    return res["per_table"][T][key]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: tickcost's locals."""
    tmp = str(tmp_path_factory.mktemp("tickcost-test"))
    good, gj = run(tmp, "good", GOOD + ["BENCH-DONE"])
    lost, lj = run(tmp, "lost", GOOD + lines("menu", "pipe", 0, "irq", 999, 999) +
                   ["BENCH-META tickcost %s menu pipe lost 12" % T, "BENCH-DONE"])
    unfinished, _ = run(tmp, "unfinished", GOOD)
    bad, bj = run(tmp, "bad", GOOD + ["TICKCOST %s teo fifo 0 2 irq 1 1" % T, "BENCH-DONE"])
    aa, aj = run(tmp, "aa", GOOD + lines("rteo-parity", "cyclic10", 0, "timer", 10, 40, 19) +
                 lines("rteo-parity", "cyclic10", 0, "timer", 30, 40, 1) +
                 lines("rteo-parity", "fifo", 0, "irq", 12, 22) +
                 lines("rteo-parity", "pipe", 0, "irq", 99, 20) + ["BENCH-DONE"])
    few, fj = run(tmp, "few", lines("teo", "pipe", 1, "irq", 40, 60, 9) +
                  lines("teo", "pipe", 0, "irq", 5, 5) + ["BENCH-DONE"])
    on_failure = good.stdout + good.stderr
    return locals()


CHECKS = [
    ("a complete run: exit 0, complete", lambda gj, good: good.returncode == 0 and gj["complete"]),
    ("decide: the median of the kept periods' entries", lambda gj:
     est(gj, "decide_us")["us"] == 11.0 and est(gj, "decide_us")["periods"] == 40),
    # weights 20 * 20 / 40 and 25 * 20 / 45 (fifo's 5 stopped timer
    # periods count on the way in): (40 * 10 + 33 * 11.11) / 21.11
    ("stop: stopped less kept per (governor, workload), weighted", lambda gj:
     est(gj, "stop_us")["us"] == 36.3 and est(gj, "stop_us")["cells"] == 2),
    ("restart: per wake-up kind, a kind without kept periods left out", lambda gj:
     est(gj, "restart_us")["us"] == 55.0 and est(gj, "restart_us")["cells"] == 2 and
     est(gj, "restart_us")["ci_low"] <= 55.0 <= est(gj, "restart_us")["ci_high"]),
    # (1000 ns * 10 + 0 * 10) / 20, weights 20 * 20 / 40
    ("decide against teo: means of kept periods per workload, in ns", lambda aa, aj:
     aa.returncode == 0 and est(aj, "decide_vs_teo")["rteo-parity"]["ns"] == 500 and
     est(aj, "decide_vs_teo")["rteo-parity"]["cells"] == 2 and
     est(aj, "decide_vs_teo")["rteo-parity"]["ci_low"] <= 500 <=
     est(aj, "decide_vs_teo")["rteo-parity"]["ci_high"] and
     "decide rteo-parity - teo: +500 ns" in aa.stdout),
    # the way out: cyclic10 timer 40 against 40, fifo irq 22 against 20
    ("exit against teo: per workload and wake-up kind", lambda aj:
     est(aj, "exit_vs_teo")["rteo-parity"]["ns"] == 1000 and
     est(aj, "exit_vs_teo")["rteo-parity"]["cells"] == 2),
    ("a run that lost events: left out, exit 1, said", lambda lj, lost: lost.returncode == 1 and
     lj["lost_runs"] == ["%s menu pipe" % T] and est(lj, "decide_us")["us"] == 11.0 and
     "lost 12 trace events" in lost.stderr),
    ("no BENCH-DONE: exit 1", lambda unfinished: unfinished.returncode == 1 and
     "did not finish" in unfinished.stderr),
    ("a malformed line: counted, exit 1", lambda bad, bj: bad.returncode == 1 and
     bj["malformed_lines"] == 1),
    ("too few periods for a cell: no estimate, exit 1", lambda few, fj: few.returncode == 1 and
     fj["per_table"][T]["stop_us"] is None and "too few periods for stop_us" in few.stderr),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_tickcost(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
