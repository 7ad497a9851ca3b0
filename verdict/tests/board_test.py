# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the board verdict (verdict/ktap.py --runner-list, what
make verdict runs).

A clean crafted run_kselftest.sh output, and a console log holding one,
must be judged green; each failure shape is the same with one thing
broken, and must be judged red for its reason.  The kernel's
kunit_parser.py comes from conftest.py's kunit_dir fixture.
"""
import subprocess
import sys

import pytest

from verdict.tests.verdict_test import KTAP, QOS, SUITE, runner

# the tarball's kselftest-list.txt
LIST = """\
cpuidle:cpuidle_sysfs.sh
cpuidle:vstates_x86_like.sh
cpuidle:pm_qos_cpu.sh
cpuidle:mvebu_v7_module.sh
"""

SYSFS_SKIP = ["TAP version 13", "1..0 # SKIP no cpuidle driver with states"]
MVEBU_SKIP = ["TAP version 13", "1..0 # SKIP /lib/modules/cpuidle-mvebu-v7-rs.ko not found"]


def good_tests():
    return [("cpuidle_sysfs.sh", SYSFS_SKIP, "ok %d %s # SKIP"),
            ("vstates_x86_like.sh", SUITE, "ok %d %s"),
            ("pm_qos_cpu.sh", QOS, "ok %d %s"),
            ("mvebu_v7_module.sh", MVEBU_SKIP, "ok %d %s # SKIP")]


def with_test(name, body=None, result=None):
    return [(n, body if n == name and body is not None else b,
             result if n == name and result is not None else r)
            for n, b, r in good_tests()]


def plain(tests=None, plan=None, cut=None):
    """What `run_kselftest.sh -c cpuidle | tee` keeps: the runner's lines
    only (the first CUT of them if cut)."""
    lines = runner(good_tests() if tests is None else tests, plan)
    return "\n".join(lines[:cut]) + "\n"


def stamp(t, text):
    return "[%5d.%06d] %s" % (t, 123456, text)


KUNIT_OK = ["KTAP version 1", "1..1", "    KTAP version 1", "    # Subtest: pseries_xcede",
            "    1..1", "    ok 1 parse", "ok 1 pseries_xcede"]


def console(tests=None, kernel=(), kunit=KUNIT_OK, merge=True, stamps=True):
    """A serial console: boot messages, a shell, the runner's output with
    the kernel's messages (time-stamped) among it: the runner's kmsg note,
    a module's KUnit document, KERNEL, one message that lands after an
    unfinished runner line (if merge)."""
    k = (lambda t, s: stamp(t, s)) if stamps else (lambda t, s: s)
    out = [k(0, "Booting Linux on physical CPU 0x0"), k(1, "Run /sbin/init as init process"),
           "root@board:~# cd kselftest && ./run_kselftest.sh -c cpuidle | tee cpuidle.log"]
    lines = runner(good_tests() if tests is None else tests)
    half = len(lines) // 2
    out += lines[:1] + [k(20, "kselftest: Running tests in cpuidle")] + lines[1:half]
    out += [k(21, l) for l in kunit]
    out += [k(22, l) for l in kernel]
    rest = lines[half:]
    if merge:
        # a runner line the kernel cut: "ok 3 selftests: ..." then the
        # kernel's message, the runner's newline after it
        i = next(i for i, l in enumerate(rest) if l.startswith("ok "))
        out += rest[:i] + [rest[i] + k(23, "cpuidle: rteo selected"), ""] + rest[i + 1:]
    else:
        out += rest
    out.append("root@board:~/kselftest# ")
    return "\n".join(out) + "\n"


CASES = [
    # (name, log, want red, what an ERROR line or a FAIL row of a red case
    # must show, spaces squeezed)
    ("clean runner output", plain(), False, None),
    ("clean console log, kernel lines among the runner's", console(), False, None),
    ("clean console log: a warn_alloc rate limit (fault injection)",
     console(kernel=["warn_alloc: 7 callbacks suppressed"]), False, None),
    ("a failing test",
     plain(with_test("pm_qos_cpu.sh", body=["TAP version 13", "1..2", "ok 1 a", "not ok 2 b"],
                     result="not ok %d %s # exit=1")), True,
     "kselftest pm_qos_cpu.sh: runner: FAILURE"),
    ("a failing case in a test that exits 0",
     plain(with_test("pm_qos_cpu.sh", body=["TAP version 13", "1..2", "ok 1 a", "not ok 2 b"])),
     True, "kselftest pm_qos_cpu.sh FAIL 1 passed, 1 failed"),
    ("the run died in a test (the output stops)",
     plain(cut=-3), True, "run_kselftest.sh: [ERROR] Test: main: missing expected subtest"),
    ("the run died in a test: the list's last test did not report",
     plain(cut=-3), True, "expected kselftest mvebu_v7_module.sh did not report"),
    ("the run died in a test: a console's panic",
     console(kernel=["Kernel panic - not syncing: Fatal exception"]), True,
     "console splat at line 27: Kernel panic - not syncing"),
    ("a test reports more results than planned",
     plain(with_test("pm_qos_cpu.sh", body=QOS + ["not ok 3 qos c"])), True,
     "pm_qos_cpu.sh: after the plan was met: 1 line(s), the first 'not ok 3 qos c'"),
    ("the runner reports more tests than planned",
     plain(good_tests() + [("extra.sh", ["TAP version 13", "1..1", "not ok 1 e"],
                            "not ok %d %s # exit=1")], plan=4), True,
     "run_kselftest.sh: after the plan was met: 1 line(s), the first 'not ok 5 "
     "selftests: cpuidle: extra.sh # exit=1'"),
    ("a listed test did not run",
     plain(good_tests()[:3]), True, "expected kselftest mvebu_v7_module.sh did not report"),
    ("a whole skip without a reason",
     plain(with_test("mvebu_v7_module.sh", body=["TAP version 13", "1..0 # SKIP"])), True,
     "kselftest mvebu_v7_module.sh: skipped as a whole without a reason"),
    ("a test that ran, failed a case and exited 4",
     plain(with_test("cpuidle_sysfs.sh", body=["TAP version 13", "1..2", "ok 1 a", "not ok 2 b"])),
     True, "cpuidle_sysfs.sh: exit 4 (skip) but not skipped as a whole: 'not ok 2 b'"),
    ("a test whose every case skipped",
     plain(with_test("pm_qos_cpu.sh", body=["TAP version 13", "1..1", "ok 1 qos # SKIP x"])),
     True, "kselftest pm_qos_cpu.sh: ran no test"),
    ("no runner output", "root@board:~# ls\n", True, "run_kselftest.sh output not found"),
    ("the runner twice in one log", plain() + plain(), True,
     "run_kselftest.sh output found 2 times"),
    ("a console splat",
     console(kernel=["WARNING: CPU: 1 PID: 90 at drivers/cpuidle/cpuidle.c:1 x+0x1/0x2"]),
     True, "console splat at line 27: WARNING: CPU: 1 PID: 90"),
    ("console messages dropped",
     console(kernel=["** 12 printk messages dropped **"]), True,
     "console messages lost at line 27: ** 12 printk messages dropped **"),
    ("a module's KUnit suite fails on the console",
     console(kunit=[l.replace("ok 1", "not ok 1") for l in KUNIT_OK]), True,
     "kunit pseries_xcede: run 1: FAILURE"),
    ("a console without time stamps: the KUnit document breaks the runner's",
     console(stamps=False, merge=False), True, "run_kselftest.sh: "),
]


@pytest.mark.parametrize("name, log, want_red, want", CASES, ids=[c[0] for c in CASES])
def test_board(kunit_dir, tmp_path, name, log, want_red, want):
    lst = tmp_path / "kselftest-list.txt"
    lst.write_text(LIST)
    path = tmp_path / "board.log"
    path.write_text(log)
    r = subprocess.run([sys.executable, KTAP, str(path), "--arch", "board",
                        "--runner-list", str(lst), "--kunit-dir", kunit_dir],
                       capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    # red means judged red: exit 1 with a summary that counts failures
    red = r.returncode == 1 and " 0 failed" not in last and last.startswith("board: ")
    assert red == want_red, r.stdout + r.stderr
    if want_red:
        errors = [" ".join(line.split()) for line in r.stdout.splitlines()
                  if ": ERROR: " in line or " FAIL " in line]
        assert any(want in line for line in errors), r.stdout
