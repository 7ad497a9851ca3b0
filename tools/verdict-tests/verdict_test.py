#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the console verdict (scripts/ktap.py).

A clean crafted console log must be judged green; each failure shape the
verdict must catch is the same log with one thing broken, and must be
judged red.  Usage: verdict_test.py KUNIT_DIR (the kernel's
tools/testing/kunit, whose kunit_parser.py the verdict uses).
"""
import os
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KTAP = os.path.join(TOP, "scripts", "ktap.py")

TESTS = """\
kunit rteo_core
kunit mod_suite
module cpuidle-vstates.ko
kselftest cpuidle_sysfs.sh skip: no driver at boot
kselftest vstates_x86_like.sh
kselftest pm_qos_cpu.sh
"""

BOOT_KUNIT = """\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: rteo_core
    # module: rteo
    1..2
    ok 1 case_a
    ok 2 case_b
# rteo_core: pass:2 fail:0 skip:0 total:2
ok 1 rteo_core
"""


def module_kunit(cases=2, report=None):
    """The KTAP a module's suite prints at one load."""
    report = cases if report is None else report
    out = ["KTAP version 1", "1..1", "    KTAP version 1",
           "    # Subtest: mod_suite", "    1..%d" % cases]
    out += ["    ok %d m%d" % (i, i) for i in range(1, report + 1)]
    if report == cases:
        out.append("ok 1 mod_suite")
    return "\n".join(out) + "\n"


SYSFS_SKIP = ["TAP version 13", "1..0 # SKIP no cpuidle driver"]
SUITE = ["TAP version 13", "1..3",
         "ok 1 load cpuidle_vstates table=x86-like",
         "    # Subtest: x86-like/rteo/cpuidle_sysfs.sh",
         "    1..2", "    ok 1 a", "    ok 2 b",
         "ok 2 x86-like/rteo/cpuidle_sysfs.sh",
         "ok 3 unload cpuidle_vstates"]
QOS = ["TAP version 13", "1..2", "ok 1 qos a", "ok 2 qos b # SKIP no cpu2"]


def runner(tests):
    """run_kselftest.sh's output for [(name, output lines, runner result)]."""
    out = ["TAP version 13", "1..%d" % len(tests)]
    for i, (name, body, result) in enumerate(tests, 1):
        out.append("# timeout set to 900")
        out.append("# selftests: cpuidle: %s" % name)
        out += ["# " + l for l in body]
        if result is not None:
            out.append(result % (i, "selftests: cpuidle: " + name))
    return out


def good_tests():
    return [("cpuidle_sysfs.sh", SYSFS_SKIP, "ok %d %s # SKIP"),
            ("vstates_x86_like.sh", SUITE, "ok %d %s"),
            ("pm_qos_cpu.sh", QOS, "ok %d %s")]


def console(kunit=BOOT_KUNIT, modules=(module_kunit(), module_kunit()),
            tests=None, runner_rc="0", extra="", done=True, ended=True):
    tests = good_tests() if tests is None else tests
    out = ["Linux version 7.3.4", "Run /init as init process"]
    out += kunit.splitlines()
    out.append("rcpuidle-kselftest-begin")
    lines = runner(tests)
    # the kernel's KUnit of module loads lands in the middle of the run
    half = len(lines) // 2
    for l in lines[:half]:
        out.append("ksft: " + l)
    for m in modules:
        out += m.splitlines()
    out += extra.splitlines()
    for l in lines[half:]:
        out.append("ksft: " + l)
    if ended:
        out.append("rcpuidle-kselftest-end: rc=%s" % runner_rc)
    if done:
        out.append("rcpuidle: done")
    return "\n".join(out) + "\n"


def replace(tests, name, body=None, result=None):
    return [(n, body if (n == name and body is not None) else b,
             result if (n == name and result is not False) and result is not None else r)
            for n, b, r in tests]


CASES = [
    # (name, log, qemu rc, want red); the reason is in REASONS
    ("clean log", console(), 0, False),
    ("expected suite skips as a whole",
     console(tests=replace(good_tests(), "vstates_x86_like.sh",
                           body=["TAP version 13", "1..0 # SKIP no module"],
                           result="ok %d %s # SKIP")), 0, True),
    ("test prints only its header and exits 0",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh", body=["TAP version 13"])), 0, True),
    ("test reports fewer results than planned",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh", body=QOS[:3])), 0, True),
    ("test exits non-zero with every result ok",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           result="not ok %d %s # exit=1"), runner_rc="1"), 0, True),
    ("test dies mid-way (guest killed, no result, no end)",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh", body=QOS[:3], result=False)[:2]
             + [("pm_qos_cpu.sh", QOS[:3], None)], ended=False, done=False), 124, True),
    ("expected kselftest missing from the run",
     console(tests=good_tests()[:2]), 0, True),
    ("expected kselftest ran only skips",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           body=["TAP version 13", "1..1", "ok 1 qos # SKIP x"])), 0, True),
    ("child of a suite ran fewer tests than it planned",
     console(tests=replace(good_tests(), "vstates_x86_like.sh",
                           body=SUITE[:5] + SUITE[6:])), 0, True),
    ("test numbering wrong",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           body=["TAP version 13", "1..2", "ok 1 a", "ok 3 b"])), 0, True),
    ("a failing test",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           body=["TAP version 13", "1..2", "ok 1 a", "not ok 2 b"],
                           result="not ok %d %s # exit=1"), runner_rc="1"), 0, True),
    ("runner exits non-zero", console(runner_rc="1"), 0, True),
    ("KUnit suite: fewer cases than planned",
     console(kunit=BOOT_KUNIT.replace("    ok 2 case_b\n", "")), 0, True),
    ("KUnit: 0 tests run",
     console(kunit="KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: rteo_core\n"
                   "    1..0\nok 1 rteo_core\n"), 0, True),
    ("KUnit: case numbering wrong",
     console(kunit=BOOT_KUNIT.replace("ok 2 case_b", "ok 3 case_b")), 0, True),
    ("KUnit: expected suite missing", console(kunit=""), 0, True),
    ("KUnit: a failing case",
     console(kunit=BOOT_KUNIT.replace("    ok 2 case_b", "    not ok 2 case_b")
             .replace("ok 1 rteo_core", "not ok 1 rteo_core")), 0, True),
    ("KUnit: module suite cut short on a later load",
     console(modules=(module_kunit(), module_kunit(cases=2, report=1))), 0, True),
    ("console splat", console(extra="WARNING: CPU: 1 PID: 7 at kernel/cpu.c:1 x"), 0, True),
    ("splat placed by a test's mark in the kernel log",
     console(extra="cpuidle-selftest: fail_nth.sh: fail-nth loop of rust_pm_qos_cpu.ko\n"
                   "BUG: Unable to handle kernel data access on read at 0x28220830\n"
                   "NIP [c000000000123456] pm_qos_read_value+0x10/0x40\n"), 0, True),
    ("splat placed: test and frames",
     console(extra="BUG: Unable to handle kernel data access on read at 0x28220830\n"
                   "NIP [c000000000123456] pm_qos_read_value+0x10/0x40\n"
                   "LR [c000000000234567] cpuidle_governor_latency_req+0x20/0x80\n"
                   "Call Trace:\n"
                   "[c0000000041ff9e0] [c000000000234567] cpuidle_governor_latency_req+0x20/0x80\n"
                   "[c0000000041ffa40] [c000000000345678] rteo_select+0x44/0x300\n"), 0, True),
    ("printk messages dropped",
     console(extra="** 12 printk messages dropped **"), 0, True),
    ("rate-limited messages suppressed",
     console(extra="cpuidle: 5 callbacks suppressed"), 0, True),
    ("warn_alloc's own rate limit (fault injection)",
     console(extra="warn_alloc: 7 callbacks suppressed"), 0, False),
    ("guest did not finish", console(done=False), 0, True),
    ("guest timed out", console(), 124, True),
]

# the ERROR line each red case must show: red for the right reason
REASONS = {
    "expected suite skips as a whole": "vstates_x86_like.sh: skipped as a whole where it must run",
    "test prints only its header and exits 0": "pm_qos_cpu.sh: [ERROR] Test: main: 0 tests run",
    "test reports fewer results than planned": "pm_qos_cpu.sh: [ERROR] Test: main: missing expected subtest",
    "test exits non-zero with every result ok": "pm_qos_cpu.sh: runner: FAILURE",
    "test dies mid-way (guest killed, no result, no end)": "runner did not end",
    "expected kselftest missing from the run": "expected kselftest pm_qos_cpu.sh did not report",
    "expected kselftest ran only skips": "pm_qos_cpu.sh: ran no test",
    "child of a suite ran fewer tests than it planned": "vstates_x86_like.sh: [ERROR] Test: x86-like/rteo/cpuidle_sysfs.sh: missing expected subtest",
    "test numbering wrong": "Expected test number 2 but found 3",
    "a failing test": "pm_qos_cpu.sh: runner: FAILURE",
    "runner exits non-zero": "run_kselftest.sh exited with rc=1",
    "KUnit suite: fewer cases than planned": "kunit rteo_core: run 1: TEST_CRASHED",
    "KUnit: 0 tests run": "kunit rteo_core: run 1: NO_TESTS",
    "KUnit: case numbering wrong": "kunit rteo_core: run 1: 1 parse errors",
    "KUnit: expected suite missing": "expected KUnit suite rteo_core did not report",
    "KUnit: a failing case": "kunit rteo_core: run 1: FAILURE",
    "KUnit: module suite cut short on a later load": "kunit mod_suite: run 2: TEST_CRASHED",
    "console splat": "console splat at line",
    "splat placed by a test's mark in the kernel log":
        "[during fail_nth.sh: fail-nth loop of rust_pm_qos_cpu.ko; "
        "frames: pm_qos_read_value+0x10/0x40]",
    "splat placed: test and frames":
        "[during the kselftest after 'ok 1 selftests: cpuidle: cpuidle_sysfs.sh # SKIP'; "
        "frames: pm_qos_read_value+0x10/0x40 < cpuidle_governor_latency_req+0x20/0x80"
        " < rteo_select+0x44/0x300]",
    "printk messages dropped": "console messages lost",
    "rate-limited messages suppressed": "console messages lost",
    "guest did not finish": "guest did not finish",
    "guest timed out": "guest timed out",
}


def main():
    kunit_dir = sys.argv[1]
    red_cases = {name for name, _, _, red in CASES if red}
    if red_cases != set(REASONS):
        print("verdict self-test: REASONS and the red cases differ: %s"
              % sorted(red_cases ^ set(REASONS)))
        return 1
    npass = nfail = 0
    with tempfile.TemporaryDirectory() as d:
        tests = os.path.join(d, "t.tests")
        with open(tests, "w") as f:
            f.write(TESTS)
        for name, log, rc, want_red in CASES:
            path = os.path.join(d, "console.log")
            with open(path, "w") as f:
                f.write(log)
            r = subprocess.run([sys.executable, KTAP, path, "--arch", "test",
                                "--tests", tests, "--qemu-rc", str(rc),
                                "--kunit-dir", kunit_dir],
                               capture_output=True, text=True)
            last = (r.stdout.strip().splitlines() or [""])[-1]
            # red means judged red: exit 1 with a summary that counts failures
            red = (r.returncode == 1 and " 0 failed" not in last
                   and last.startswith("test: "))
            errors = [l for l in r.stdout.splitlines() if ": ERROR: " in l]
            want = REASONS.get(name)
            ok = red == want_red and (not want_red or any(want in l for l in errors))
            why = [l for l in errors if want and want in l][:1] or errors[:1]
            print("%s %s: %s (%s)%s" % ("ok" if ok else "FAIL", name,
                                        "red" if red else "green", last,
                                        (": " + why[0]) if why else ""))
            if ok:
                npass += 1
            else:
                nfail += 1
                print(r.stdout)
    print("verdict self-test: %d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
