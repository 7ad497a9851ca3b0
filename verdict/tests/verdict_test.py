# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the console verdict (verdict/ktap.py).

A clean crafted console log must be judged green; each failure shape the
verdict must catch is the same log with one thing broken, and must be
judged red, with its reason among the ERROR lines.  The kernel's
kunit_parser.py comes from conftest.py's kunit_dir fixture.
"""
import os
import subprocess
import sys

import pytest

from evaluation import paths

KTAP = os.path.join(paths.TOP, "verdict", "ktap.py")

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


def runner(tests, plan=None):
    """run_kselftest.sh's output for [(name, output lines, runner result)]."""
    out = ["TAP version 13", "1..%d" % (len(tests) if plan is None else plan)]
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
            tests=None, runner_rc="0", extra="", done=True, ended=True, plan=None):
    tests = good_tests() if tests is None else tests
    out = ["Linux version 7.3.4", "Run /init as init process"]
    out += kunit.splitlines()
    out.append("rcpuidle-kselftest-begin")
    lines = runner(tests, plan)
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


def failing_module_kunit(first):
    """A module load's KTAP whose suite fails a case, its first line
    replaced by FIRST (a 'KTAP version' line where the console put it)."""
    return "\n".join([first] + module_kunit().replace(
        "    ok 2 m2", "    not ok 2 m2").replace(
        "ok 1 mod_suite", "not ok 1 mod_suite").splitlines()[1:]) + "\n"


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
    # a 'KTAP version' line the serial console put mid-line, after an
    # unfinished line of user output: the document still starts there
    ("KUnit: a module's document starts after unfinished user output",
     console(modules=(module_kunit(), failing_module_kunit(
         "some user output without newline    KTAP version 1"))), 0, True),
    ("KUnit: a module's document starts after an unfinished runner line",
     console(modules=(module_kunit(), failing_module_kunit(
         "ksft: # some test output without newlineKTAP version 1"))), 0, True),
    ("KUnit: a module's document starts right after a runner line's prefix",
     console(modules=(module_kunit(), "ksft: # " + module_kunit())), 0, False),
    ("KUnit: a suite's header after unfinished user output (a suite, not a document)",
     console(modules=(module_kunit(), module_kunit().replace(
         "    KTAP version 1", "user output    KTAP version 1"))), 0, False),
    # results after the plan is met, a second document
    ("test reports more results than planned",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           body=QOS + ["not ok 3 qos c"])), 0, True),
    ("a second TAP document in one test's output",
     console(tests=replace(good_tests(), "pm_qos_cpu.sh",
                           body=QOS + ["TAP version 13", "1..1", "not ok 1 qos d"])),
     0, True),
    ("runner reports more tests than planned",
     console(tests=good_tests() + [("extra.sh", ["TAP version 13", "1..1", "not ok 1 e"],
                                    "not ok %d %s # exit=1")], plan=3), 0, True),
    ("KUnit: a suite after the document's plan is met",
     console(kunit=BOOT_KUNIT + "    KTAP version 1\n    # Subtest: other\n    1..1\n"
                                "    not ok 1 o1\nnot ok 2 other\n"), 0, True),
    ("KUnit: a suite before any document",
     console(kunit="    KTAP version 1\n    # Subtest: stray\n    1..1\n"
                   "    not ok 1 s1\nnot ok 1 stray\n" + BOOT_KUNIT), 0, True),
    # a test allowed to skip as a whole that ran, then exited with 4
    ("allowed skip: runs, fails a case, exits 4",
     console(tests=replace(good_tests(), "cpuidle_sysfs.sh",
                           body=["TAP version 13", "1..2", "ok 1 a", "not ok 2 b"])), 0, True),
    ("allowed skip: runs its plan, exits 4",
     console(tests=replace(good_tests(), "cpuidle_sysfs.sh",
                           body=["TAP version 13", "1..2", "ok 1 a", "ok 2 b"])), 0, True),
    ("allowed skip: exits 4 with no output",
     console(tests=replace(good_tests(), "cpuidle_sysfs.sh", body=[])), 0, True),
    # kernel reports without WARNING:, lost messages (printk's formats)
    ("OOM killer invoked",
     console(extra="sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, "
                   "oom_score_adj=0"), 0, True),
    ("OOM kill",
     console(extra="Out of memory: Killed process 93 (sh) total-vm:2508kB, anon-rss:4kB, "
                   "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:44kB oom_score_adj:0"),
     0, True),
    ("sysfs duplicate filename (a stack dump, no WARNING:)",
     console(extra="sysfs: cannot create duplicate filename "
                   "'/devices/system/cpu/cpu0/cpuidle/state0'\n"
                   "CPU: 0 UID: 0 PID: 80 Comm: insmod Not tainted 7.3.4 #1\n"
                   "Call Trace:\n dump_stack_lvl+0x5d/0x80\n sysfs_warn_dup+0x5a/0x70\n"),
     0, True),
    ("kmemleak disables itself",
     console(extra="kmemleak: Kernel memory leak detector disabled"), 0, True),
    ("kmemleak disabled with leaks found",
     console(extra="kmemleak: Kmemleak disabled without freeing internal data. Reclaim "
                   "the memory with \"echo clear > /sys/kernel/debug/kmemleak\"."), 0, True),
    ("kmemleak warns of an unknown object",
     console(extra="kmemleak: Partially freeing unknown object at 0xffff888004a3c000 "
                   "(size 64)"), 0, True),
    ("output lines suppressed due to ratelimiting",
     console(extra="printk: sh: 3 output lines suppressed due to ratelimiting"), 0, True),
    ("early printk messages dropped",
     console(extra="printk: dropped 12 messages"), 0, True),
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
    "child of a suite ran fewer tests than it planned":
        "vstates_x86_like.sh: [ERROR] Test: x86-like/rteo/cpuidle_sysfs.sh: missing expected subtest",
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
    "KUnit: a module's document starts after unfinished user output":
        "kunit mod_suite: run 2: FAILURE",
    "KUnit: a module's document starts after an unfinished runner line":
        "kunit mod_suite: run 2: FAILURE",
    "test reports more results than planned":
        "pm_qos_cpu.sh: after the plan was met: 1 line(s), the first 'not ok 3 qos c'",
    "a second TAP document in one test's output":
        "pm_qos_cpu.sh: after the plan was met: 3 line(s), the first 'TAP version 13'",
    "runner reports more tests than planned":
        "run_kselftest.sh: after the plan was met: 1 line(s), the first 'not ok 4 "
        "selftests: cpuidle: extra.sh # exit=1'",
    "KUnit: a suite after the document's plan is met":
        "kunit rteo_core: after the plan was met: 5 line(s), the first 'KTAP version 1'",
    "KUnit: a suite before any document":
        "kunit: 5 KTAP line(s) before any document, the first 'KTAP version 1'",
    "allowed skip: runs, fails a case, exits 4":
        "cpuidle_sysfs.sh: exit 4 (skip) but not skipped as a whole: 'not ok 2 b'",
    "allowed skip: runs its plan, exits 4":
        "cpuidle_sysfs.sh: exit 4 (skip) but not skipped as a whole: '1..2'",
    "allowed skip: exits 4 with no output":
        "cpuidle_sysfs.sh: exit 4 (skip) but not skipped as a whole: no '1..0 # SKIP' plan",
    "OOM killer invoked": ": sh invoked oom-killer: gfp_mask=0xcc0",
    "OOM kill": ": Out of memory: Killed process 93 (sh)",
    "sysfs duplicate filename (a stack dump, no WARNING:)":
        ": sysfs: cannot create duplicate filename '/devices/system/cpu/cpu0/cpuidle/state0' "
        "[during the kselftest after 'ok 1 selftests: cpuidle: cpuidle_sysfs.sh # SKIP'; "
        "frames: dump_stack_lvl+0x5d/0x80 < sysfs_warn_dup+0x5a/0x70]",
    "kmemleak disables itself": ": kmemleak: Kernel memory leak detector disabled",
    "kmemleak disabled with leaks found": ": kmemleak: Kmemleak disabled without freeing",
    "kmemleak warns of an unknown object": ": kmemleak: Partially freeing unknown object",
    "output lines suppressed due to ratelimiting":
        "console messages lost at line 43: printk: sh: 3 output lines suppressed",
    "early printk messages dropped": "console messages lost at line 43: printk: dropped 12",
}


def test_every_red_case_has_its_reason():
    red_cases = {name for name, _, _, red in CASES if red}
    assert red_cases == set(REASONS)


@pytest.mark.parametrize("name, log, rc, want_red", CASES, ids=[c[0] for c in CASES])
def test_verdict(kunit_dir, tmp_path, name, log, rc, want_red):
    tests = tmp_path / "t.tests"
    tests.write_text(TESTS)
    path = tmp_path / "console.log"
    path.write_text(log)
    r = subprocess.run([sys.executable, KTAP, str(path), "--arch", "test",
                        "--tests", str(tests), "--qemu-rc", str(rc),
                        "--kunit-dir", kunit_dir],
                       capture_output=True, text=True)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    # red means judged red: exit 1 with a summary that counts failures
    red = r.returncode == 1 and " 0 failed" not in last and last.startswith("test: ")
    assert red == want_red, r.stdout + r.stderr
    if want_red:
        errors = [line for line in r.stdout.splitlines() if ": ERROR: " in line]
        assert any(REASONS[name] in line for line in errors), r.stdout
