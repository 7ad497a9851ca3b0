# SPDX-License-Identifier: GPL-2.0
"""Self-tests of evaluation/idle_bound.py on a crafted recording.

Three repetitions of the idle workload under teo and rteo on x86-like-x10,
each one 100 ms timer period per CPU: the energy model's optimum (and the
oracle's) is one C6 entry per period, 100 mW over the period and the
1.33 ms exit plus the entry's own 2387 uJ (cpuidle_tables.rs's entry_nj,
scaled by 10), 12520 uJ.  rteo takes C6 on both CPUs; teo takes C1E on
CPU1 (500 mW over 100.1 ms and its own 70 uJ: 50120 uJ), so teo's floor
is 2 x 12520 / (12520 + 50120).  The window
energies (record-energy) are 20000, 25000 and 28246 uJ under teo, 30000
under rteo: rteo / teo 30000 / 25000.  A recording without a
record-energy line for one trace is an error that names it.  Run by pytest (one test per check).  IDLE_BOUND=PATH tests
another copy (a mutant).
"""

import pytest

from evaluation.tests import selftest_checks

SCRIPT = selftest_checks.program("idle_bound", "IDLE_BOUND")
T = "x86-like-x10"
META = ["BENCH-META exit_latency_us %s s%d %d" % (T, i, us) for i, us in enumerate((0, 20, 100, 1330))]
C6_UJ = 100 * (100000 + 1330) / 1000 + 2387
C1E_UJ = 500 * (100000 + 100) / 1000 + 70
TEO_UJ = (20000, 25000, 28246)
RTEO_UJ = (30000, 30000, 30000)


def log_lines(drop=None):
    lines = list(META)
    for gov, energy in (("teo", TEO_UJ), ("rteo", RTEO_UJ)):
        for k, uj in enumerate(energy, 1):
            run = "idle-r%d" % k
            for cpu in (0, 1):
                # a timer 100 ms away, met in C6 or C1E (its exit latency
                # included in the duration)
                dur, state = (100100, 2) if (gov, cpu) == ("teo", 1) else (101330, 3)
                lines.append("REC %s %s %s %d %d 100000 %d 100000 %d - 0"
                             % (T, gov, run, cpu, 1000 * k, dur, state))
            if (gov, run) != drop:
                lines.append("BENCH-META record-energy %s %s %s %d" % (T, gov, run, uj))
    return lines


def run(tmp, name, lines):
    return selftest_checks.run_on_log(SCRIPT, tmp, name, ["[ 1.0] " + line for line in lines],
                                      "idle-bound.json")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: idle_bound's locals."""
    tmp = str(tmp_path_factory.mktemp("idle-bound-test"))
    p, res = run(tmp, "good", log_lines())
    bad, bres = run(tmp, "bad", log_lines(drop=("rteo", "idle-r2")))
    govs = {g["governor"]: g for g in (res or {}).get("governors", [])}
    table = ((res or {}).get("tables") or [{}])[0]
    on_failure = p.stdout + p.stderr + bad.stdout + bad.stderr
    return locals()


CHECKS = [
    ("exit 0, no problems", lambda p, res: p.returncode == 0 and res["problems"] == []),
    ("two periods per trace, three repetitions", lambda govs:
     govs["teo"]["periods"] == [2, 2, 2] and govs["teo"]["reps"] == [1, 2, 3]),
    ("the optimum: one C6 entry per period", lambda govs:
     all(abs(o - 2 * C6_UJ) < 0.5 for o in govs["teo"]["optimum_uj"])),
    ("the window's energy from record-energy", lambda govs: govs["teo"]["window_uj"] == list(TEO_UJ)),
    ("the traced entries' energy from their states and times", lambda govs:
     all(abs(x - (C6_UJ + C1E_UJ)) < 0.5 for x in govs["teo"]["traced_uj"]) and
     all(abs(x - 2 * C6_UJ) < 0.5 for x in govs["rteo"]["traced_uj"])),
    ("teo's floor: the optimum over its traced entries' energy", lambda table:
     abs(table["floor"][0] - 2 * C6_UJ / (C6_UJ + C1E_UJ)) < 1e-6 and
     abs(table["oracle"][0] - 2 * C6_UJ / (C6_UJ + C1E_UJ)) < 1e-6),
    ("rteo / teo paired by repetition", lambda table: abs(table["rteo_over_teo"][0] - 30000 / 25000) < 1e-9),
    ("a trace without record-energy: exit 1, named", lambda bad, bres:
     bad.returncode == 1 and any("%s.idle-r2.rteo: no record-energy line" % T in x
                                 for x in bres["problems"])),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_idle_bound(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
