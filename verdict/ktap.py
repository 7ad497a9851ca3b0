#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Verdict on one guest console log; fails closed.

Usage: ktap.py LOG --arch A --tests configs/A.tests [--qemu-rc N]
                   --kunit-dir TREE/tools/testing/kunit
       ktap.py LOG --arch A --runner-list kselftest-list.txt --kunit-dir ...

(KUNIT_DIR: the kernel's tools/testing/kunit, whose kunit_parser.py and
kunit_printer.py are imported from their files.)

The console carries two kinds of KTAP:

* KUnit, printed by the kernel: one document at boot and one more at each
  load of a module that carries a suite.  Every document is parsed with
  the kernel's own tools/testing/kunit/kunit_parser.py, and every one must
  be clean: plan against count, numbering, missing subtests, "0 tests
  run" are errors there, and a suite that runs at every load is red if any
  load's run is red or cut short (an earlier pass is not kept).  A
  document starts at a "KTAP version" line, also one the serial console
  put after an unfinished line of user output; a result outside any
  document is red.

* kselftests, run by the kernel's run_kselftest.sh from a
  `make -C tools/testing/selftests TARGETS=cpuidle install`; /init
  prefixes the runner's output with "ksft: " (so kernel messages cannot
  interleave with it) and frames it with rcpuidle-kselftest-begin/end.
  The runner's document is parsed with kunit_parser too, and so is each
  test's own output (the runner's "# " prefix stripped): a test passes
  only if the runner says so (exit status 0), its output has a plan, as
  many results as planned with the right numbers, and nothing red, nested
  suites included.

In every document, KTAP after the plan is met (a result beyond a plan
that undercounts, a second document) is red: kunit_parser stops there.

An expected suite (the A.tests list) passes only if it ran at least one
test.  A kselftest may skip as a whole only where the list says so, with
a reason ("kselftest NAME skip: REASON"), and only as a whole (its output
a "1..0 # SKIP" plan and no result); any other skip (exit 4) is red.  The
run is also red on a guest that timed out or did not finish, on any splat
(a kernel report: a line that matches one of the expressions of
verdict/splats.txt, which verdict/splats.py derives from the kernel's
report-printing sites, the OOM killer, sysfs's duplicate-name dump and
kmemleak disabling itself included), and on dropped or suppressed console
messages (a splat may hide there; warn_alloc's own rate limit excepted,
see DROPPED_OK_RE);
a splat's error line says what was running (a test's mark in the kernel
log, see splat_context()) and the report's frames, and the report is
printed.  Prints one line per suite and a final "N passed, N failed, N
skipped"; every error counts as one failed test, so a red run never reads
"0 failed".

With --runner-list (make verdict), LOG is what a board gives back: the
plain output of `run_kselftest.sh -c cpuidle` from the kit's tarball, or
a console log that holds it.  It is judged by the same rules and code,
read into the guest console's form first (board_lines()): a line printk
stamped with the time is the kernel's, any other line the runner's.  The
runner must have started once; every test of the tarball's
kselftest-list.txt must report; any may skip as a whole, but only with a
reason in its own output ("1..0 # SKIP WHY"), since on a board the
platform tests skip on other platforms (the one difference from the
guest's verdict, whose list says which may skip).  KUnit documents on a
console must be clean; splats and lost messages are red.  There are no
frames, no runner exit status and no "rcpuidle: done" to look for.
"""
import argparse
import importlib.util
import io
import os
import re
import sys

import splats  # (beside this file: the splat list's reader, verdict/splats.txt)
import testlist  # (beside this file: the one reader of configs/ARCH.tests)

# The splats: the kernel's reports, one regex per message that heads one,
# derived from the kernel's report-printing sites by verdict/splats.py
# (whose docstring states the rule) and committed as verdict/splats.txt; a
# host test derives the list again from the pristine tree and compares.
SPLATS_TXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "splats.txt")
try:
    SPLATS = splats.load(SPLATS_TXT)
except OSError as _e:
    raise SystemExit("ktap.py: no splat list: %s" % _e)
if not SPLATS:
    raise SystemExit("ktap.py: no splat in %s" % SPLATS_TXT)
SPLAT_RE = re.compile("|".join(SPLATS))
# printk's own notes that console output was lost or rate-limited: a
# console's "** N printk messages dropped **", setup_log_buf()'s "printk:
# dropped N messages", ratelimit's "FUNC: N callbacks suppressed" and
# "COMM: N output lines suppressed due to ratelimiting", mm's "N messages
# suppressed"
DROPPED_RE = re.compile(r"printk messages dropped|\bdropped \d+ messages|"
                        r"callbacks suppressed|messages suppressed|"
                        r"lines suppressed due to ratelimiting")
# The one rate limit the run may hit: warn_alloc()'s own (one report per
# 10 s), whose messages are only allocation-failure reports, provoked by
# fail_nth.sh by design; a splat cannot hide in that rate limit's state.
DROPPED_OK_RE = re.compile(r"^warn_alloc: \d+ callbacks suppressed$")
KSFT_PREFIX = "ksft: "
KSFT_NAME_RE = re.compile(r"^selftests: (\S+): (\S+)$")
# a splat's frames ("func+0x1c/0x80"), a test's mark in the kernel log, a
# result line of the runner
FRAME_RE = re.compile(r"\b([A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+)")
KMARK = "cpuidle-selftest: "
RUNNER_RESULT_RE = re.compile(r"^(not )?ok \d+ selftests: ")
# a 'KTAP version' line anywhere in a console line; a KUnit document's
# plan and results in column 0; a test's skip as a whole; TAP's bail-out
KTAP_MID_RE = re.compile(r"KTAP version \d+\s*$")
TOP_PLAN_RE = re.compile(r"^1\.\.(\d+)")
TOP_RESULT_RE = re.compile(r"^(not )?ok \d+")
WHOLE_SKIP_RE = re.compile(r"^\s*1\.\.0\s*# SKIP")
BAIL_OUT_RE = re.compile(r"^\s*Bail out!")
# a whole skip's reason; printk's time stamp ("[%5lu.%06lu]", after a
# "<level>" and before a "[T1]" caller id if any); the runner's first line
WHOLE_SKIP_WHY_RE = re.compile(r"^\s*1\.\.0\s*# SKIP\s*(\S.*)?$")
PRINTK_TIME_RE = re.compile(r"(<\d+>)?\[\s*\d+\.\d{6}\](\[\s*[TC]\d+\])? ?")
RUNNER_START_RE = re.compile(r"^TAP version \d+")
AFTER_PLAN = "after the plan was met: "


def splat_context(lines, i, after=60):
    """What a CI log needs to place a splat at line i: what was running,
    the symbolised frames of the report (first ones first, at most 12),
    and the report itself (the kernel's lines from i on, the tests' own
    output left out).

    The runner hands a test's output on only when the test ends, so the
    kernel lines of a test come before its name: what was running is the
    test's own mark in the kernel log (KMARK, "cpuidle-selftest: NAME:
    WHAT") if no runner result came after it, else the test after the last
    result the runner gave."""
    during = "boot (before the kselftests)"
    for line in reversed(lines[:i]):
        if line.startswith(KMARK):
            during = line[len(KMARK):].strip()[:120]
            break
        if line.startswith(KSFT_PREFIX):
            text = line[len(KSFT_PREFIX):].strip()
            if RUNNER_RESULT_RE.match(text):
                during = "the kselftest after '%s'" % text[:100]
                break
            if text.startswith("TAP version"):
                during = "the first kselftest"
                break
    block = [l for l in lines[i:i + after] if not l.startswith(KSFT_PREFIX)]
    frames = []
    for line in block:
        for m in FRAME_RE.finditer(line):
            if m.group(1) not in frames:
                frames.append(m.group(1))
    return during, frames[:12], block


def by_location(name, path):
    """The module NAME imported from the file PATH (no search path changed)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("no module %s at %s" % (name, path))
    module = importlib.util.module_from_spec(spec)
    # registered before it runs: kunit_parser imports kunit_printer by name
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def load_parser(kunit_dir):
    """The kernel's kunit_parser and kunit_printer, from the tree's files."""
    printer = by_location("kunit_printer", os.path.join(kunit_dir, "kunit_printer.py"))
    return by_location("kunit_parser", os.path.join(kunit_dir, "kunit_parser.py")), printer


def read_tests(path):
    """configs/ARCH.tests (verdict/testlist.py reads it): the KUnit suites
    and the kselftests (name -> reason to skip as a whole, or None)."""
    try:
        t = testlist.read(path)
    except ValueError as e:
        raise SystemExit(str(e))
    return t.kunit, t.kselftest


class Parser:
    def __init__(self, kp, printer_mod):
        self.kp = kp
        self.pm = printer_mod

    def parse(self, lines):
        """Parse one KTAP document; return (Test, [error messages])."""
        buf = io.StringIO()
        printer = self.pm.Printer(print=True, output=buf)
        stream = self.kp.LineStream(iter(enumerate(lines, 1)))
        test = self.kp.parse_test(stream, 0, [], False, printer)
        if test.status != self.kp.TestStatus.NO_TESTS:
            test.status = test.counts.get_status()
        errors = [re.sub(r"^\[[0-9:]+\] ", "", l) for l in buf.getvalue().splitlines()
                  if "[ERROR]" in l]
        if test.expected_count is None:
            errors.append("no test plan")
        # kunit_parser stops at the plan's last result and ignores the rest:
        # results beyond the plan (a plan that undercounts) and a second
        # document would vanish
        extra = [l.strip() for l in stream if self.ktap_line(l)]
        if extra:
            errors.append("%s%d line(s), the first '%s'"
                          % (AFTER_PLAN, len(extra), extra[0][:100]))
        return test, errors

    def ktap_line(self, line):
        """A line of KTAP structure: a result, plan, version, subtest
        header or bail-out."""
        kp = self.kp
        return (any(r.match(line) for r in (kp.TEST_RESULT, kp.TEST_PLAN,
                                            kp.KTAP_START, kp.TAP_START,
                                            kp.TEST_HEADER))
                or BAIL_OUT_RE.match(line) is not None)


def kunit_documents(lines):
    """Split the kernel's side of the console (the lines without
    KSFT_PREFIX) into KTAP documents: each starts at a 'KTAP version' line
    in column 0.  Returns the documents and the lines before the first.

    The serial console interleaves the kernel's messages with user output,
    so a 'KTAP version' line can land mid-line, after an unfinished line of
    other output (a runner's line included): it is cut from there.  It
    starts a document unless the current one has yet to report all its
    plan's results (then it is the header of one of that one's suites)."""
    docs, cur, before = [], None, []
    for line in lines:
        m = KTAP_MID_RE.search(line)
        joined = None
        if line.startswith(KSFT_PREFIX):
            if not m:
                continue
            joined = line[m.start():]  # see runner_text()
        elif m and line[:m.start()].strip():
            joined = line[m.start():]
        if joined is not None:
            if cur is not None and not top_plan_met(cur):
                cur.append("    " + joined)
                continue
            line = joined
        if line.startswith("KTAP version "):
            cur = [line]
            docs.append(cur)
        elif cur is not None:
            cur.append(line)
        else:
            before.append(line)
    return docs, before


def runner_text(line):
    """The runner's text of a KSFT_PREFIX line, without a kernel 'KTAP
    version' line the console put after it: the kselftests print "TAP
    version 13" (ktap_helpers.sh, kselftest.h) and suite_lib.sh drops its
    children's version lines, so a 'KTAP version' there is KUnit's."""
    m = KTAP_MID_RE.search(line)
    return line[len(KSFT_PREFIX):m.start() if m else len(line)]


def top_plan_met(doc):
    """Whether a KUnit document (so far) has its plan and as many results
    as planned, in column 0."""
    plan = next((m for m in map(TOP_PLAN_RE.match, doc) if m), None)
    if plan is None:
        return True  # a suite's header comes after the plan
    return sum(1 for l in doc if TOP_RESULT_RE.match(l)) >= int(plan.group(1))


def leaf_counts(test):
    c = test.counts
    return c.passed, c.failed + c.crashed, c.skipped


class Verdict:
    def __init__(self, arch):
        self.arch = arch
        self.rows = []
        self.bad = []
        self.npass = self.nfail = self.nskip = 0

    def suite(self, kind, name, p, f, s, errors):
        ok = not errors and f == 0
        self.rows.append("%-8s %-10s %-40s %-6s %3d passed, %d failed, %d skipped"
                         % (self.arch, kind, name, "ok" if ok else "FAIL", p, f, s))
        self.npass += p
        self.nfail += f
        self.nskip += s
        for e in errors:
            self.error("%s %s: %s" % (kind, name, e))

    def error(self, msg):
        self.bad.append(msg)
        self.nfail += 1


def judge_kunit(v, parser, lines, expected):
    suites = {}  # name -> [p, f, s, errors, runs]
    docs, before = kunit_documents(lines)
    stray = [l.strip() for l in before if parser.ktap_line(l)]
    if stray:
        v.error("kunit: %d KTAP line(s) before any document, the first '%s'"
                % (len(stray), stray[0][:100]))
    for doc in docs:
        main, errors = parser.parse(doc)
        if not main.subtests:
            v.error("kunit document at '%s' holds no suite: %s"
                    % (doc[0], "; ".join(errors) or "empty"))
            continue
        for t in main.subtests:
            name = t.name or "<unnamed>"
            r = suites.setdefault(name, [0, 0, 0, [], 0])
            p, f, s = leaf_counts(t)
            r[0] += p
            r[1] += f
            r[2] += s
            r[4] += 1
            if not t.ok_status():
                r[3].append("run %d: %s" % (r[4], t.status.name))
            if t.counts.errors:
                r[3].append("run %d: %d parse errors" % (r[4], t.counts.errors))
        # errors of the document itself (plan of suites, numbering)
        own = [e for e in errors if "Test: main:" in e or e == "no test plan"
               or e.startswith(AFTER_PLAN)]
        for e in own:
            for t in main.subtests:
                suites[t.name or "<unnamed>"][3].append(e)
    for name, (p, f, s, errors, _) in sorted(suites.items()):
        v.suite("kunit", name, p, f, s, errors)
    for name in expected:
        r = suites.get(name)
        if r is None:
            v.error("expected KUnit suite %s did not report" % name)
        elif r[0] + r[1] == 0:
            v.error("expected KUnit suite %s ran no test" % name)


def not_skipped_whole(parser, body):
    """Why a test's own output is not a skip as a whole (a '1..0 # SKIP'
    plan and no result), or None if it is one."""
    kp = parser.kp
    ran = [l.strip() for l in body if parser.ktap_line(l) and not (
        WHOLE_SKIP_RE.match(l) or kp.KTAP_START.match(l) or kp.TAP_START.match(l))]
    if ran:
        failed = [l for l in ran if l.startswith("not ok")]
        return "'%s'" % (failed or ran)[0][:100]
    if not any(WHOLE_SKIP_RE.match(l) for l in body):
        return "no '1..0 # SKIP' plan"
    return None


def judge_kselftests(v, parser, lines, expected):
    begin = [i for i, l in enumerate(lines) if l.startswith("rcpuidle-kselftest-begin")]
    end = [i for i, l in enumerate(lines) if l.startswith("rcpuidle-kselftest-end")]
    if not expected and not begin:
        return
    if len(begin) != 1:
        v.error("kselftest runner started %d times (expected once)" % len(begin))
        if not begin:
            return
    if not end:
        v.error("kselftest runner did not end (killed or hung)")
    else:
        rc = lines[end[-1]].rsplit("rc=", 1)[-1].strip()
        if rc != "0":
            v.error("run_kselftest.sh exited with rc=%s" % rc)
    stop = end[-1] if end else len(lines)
    runner = [runner_text(l) for l in lines[begin[0]:stop]
              if l.startswith(KSFT_PREFIX)]
    judge_runner(v, parser, runner, expected)


def judge_runner(v, parser, runner, expected, board=False):
    """The runner's document: every test in it judged on the runner's
    result and its own output, every expected test reported.  expected:
    NAME -> None (must run) or why it may skip as a whole (the guest's
    list); board: any test may skip as a whole, with a reason in its own
    output."""
    top, errors = parser.parse(runner)
    for e in errors:
        v.error("run_kselftest.sh: %s" % e)
    seen = {}
    for t in top.subtests:
        m = KSFT_NAME_RE.match(t.name)
        name = m.group(2) if m else (t.name or "<missing>")
        seen[name] = t
        # the test's own output: the runner's log lines after its header
        body, started = [], False
        for l in t.log:
            if l == "# " + t.name:
                started, body = True, []
                continue
            if started:
                body.append(l[2:] if l.startswith("# ") else
                            ("" if l == "#" else l))
        own_errors = []
        if t.status == parser.kp.TestStatus.SKIPPED:
            not_whole = not_skipped_whole(parser, body)
            if board:
                why = [m.group(1) for m in map(WHOLE_SKIP_WHY_RE.match, body)
                       if m and m.group(1)]
                if not not_whole and not why:
                    own_errors.append("skipped as a whole without a reason")
            elif expected.get(name) is None:
                own_errors.append("skipped as a whole where it must run")
            if not_whole:
                # it ran, then exited with the skip code: judged on what
                # it ran, and red
                own_errors.append("exit 4 (skip) but not skipped as a whole: "
                                  + not_whole)
                inner, errs = parser.parse(body) if body else (None, [])
                p, f, s = leaf_counts(inner) if inner else (0, 0, 0)
                own_errors += [e for e in errs if "0 tests run" not in e]
                v.suite("kselftest", name, p, f, s, own_errors)
                continue
            v.suite("kselftest", name, 0, 0, 1, own_errors)
            continue
        if t.status != parser.kp.TestStatus.SUCCESS:
            own_errors.append("runner: %s%s" % (
                t.status.name, " (%s)" % t.skip_reason if t.skip_reason else ""))
        if not started or not body:
            own_errors.append("no output")
            v.suite("kselftest", name, 0, 0, 0, own_errors)
            continue
        inner, errs = parser.parse(body)
        own_errors += errs
        p, f, s = leaf_counts(inner)
        if p + f == 0 and not any("0 tests run" in e for e in own_errors):
            own_errors.append("ran no test")
        v.suite("kselftest", name, p, f, s, own_errors)
    for name in expected:
        if name not in seen:
            v.error("expected kselftest %s did not report" % name)


def board_lines(lines):
    """A board's log in the guest console's form (see judge_kselftests()
    and kunit_documents()): the kernel's lines, those printk stamped with
    the time, without the stamp; every other line is the runner's, so
    prefixed with KSFT_PREFIX.  A stamp after other text (the kernel wrote
    while a user line was unfinished) starts the kernel's line there.  A
    console without time stamps reads as the runner's only: a kernel line
    that looks like KTAP then breaks the runner's document, red.  Returns
    the lines and the number each has in LOG."""
    out, nums = [], []
    for n, line in enumerate(lines, 1):
        m = PRINTK_TIME_RE.search(line)
        if m is None:
            out.append(KSFT_PREFIX + line)
            nums.append(n)
            continue
        if line[:m.start()].strip():
            out.append(KSFT_PREFIX + line[:m.start()])
            nums.append(n)
        out.append(line[m.end():])
        nums.append(n)
    return out, nums


def read_list(path):
    """The tarball's kselftest-list.txt: 'COLLECTION:TEST' lines; the
    cpuidle collection's tests."""
    names = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            coll, sep, name = line.partition(":")
            if not sep or not coll or not name or " " in line:
                raise SystemExit("%s:%d: not a kselftest-list.txt line: '%s'"
                                 % (path, n, line))
            if coll == "cpuidle":
                names.append(name)
    if not names:
        raise SystemExit("%s: no cpuidle test listed" % path)
    return names


def judge_board(v, parser, lines, listed):
    """A board's run of the kit's tarball, LOG in board_lines() form."""
    judge_kunit(v, parser, lines, [])
    starts = [i for i, l in enumerate(lines) if l.startswith(KSFT_PREFIX)
              and RUNNER_START_RE.match(l[len(KSFT_PREFIX):])]
    if len(starts) != 1:
        v.error("run_kselftest.sh output %s (expected once): %s"
                % ("found %d times" % len(starts) if starts else "not found",
                   "a 'TAP version' line at the start of a line begins it"))
        if not starts:
            return
    runner = [runner_text(l) for l in lines[starts[0]:] if l.startswith(KSFT_PREFIX)]
    judge_runner(v, parser, runner, dict.fromkeys(listed), board=True)


def judge_console(v, arch, lines, nums=None):
    """Splats and lost messages anywhere in the log (nums: each line's
    number in the log, if not its place)."""
    num = (lambda i: nums[i]) if nums else (lambda i: i + 1)
    for i, line in enumerate(lines):
        if SPLAT_RE.search(line):
            during, frames, block = splat_context(lines, i)
            print("%s: console splat at line %d, as logged:" % (arch, num(i)))
            for b in block:
                print("%s: | %s" % (arch, b))
            v.error("console splat at line %d: %s [during %s; frames: %s]"
                    % (num(i), line.strip(), during, " < ".join(frames) or "none"))
            break
    for i, line in enumerate(lines):
        if DROPPED_RE.search(line) and not DROPPED_OK_RE.match(line):
            v.error("console messages lost at line %d: %s" % (num(i), line.strip()))
            break


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--arch", required=True)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--tests", help="configs/ARCH.tests: a guest's console log")
    mode.add_argument("--runner-list", metavar="LIST",
                      help="the kit tarball's kselftest-list.txt: a board's "
                      "run_kselftest.sh output or console log")
    ap.add_argument("--qemu-rc", type=int, default=0)
    ap.add_argument("--kunit-dir", required=True, help="the kernel's tools/testing/kunit")
    a = ap.parse_args()
    kunit_dir = a.kunit_dir
    if not os.path.isfile(os.path.join(kunit_dir, "kunit_parser.py")):
        print("%s: ERROR: no kunit_parser.py in %s" % (a.arch, kunit_dir))
        print("%s: 0 passed, 1 failed, 0 skipped" % a.arch)
        return 1
    parser = Parser(*load_parser(kunit_dir))
    if a.tests:
        kunit_expected, ksft_expected = read_tests(a.tests)
    else:
        listed = read_list(a.runner_list)
    v = Verdict(a.arch)
    try:
        with open(a.log, errors="replace") as f:
            lines = [l.rstrip("\r\n").rstrip("\r") for l in f]
    except OSError as e:
        print("%s: ERROR: no %s: %s" % (a.arch, "console log" if a.tests else "log", e))
        print("%s: 0 passed, 1 failed, 0 skipped" % a.arch)
        return 1

    if a.tests:
        judge_kunit(v, parser, lines, kunit_expected)
        judge_kselftests(v, parser, lines, ksft_expected)
        judge_console(v, a.arch, lines)
    else:
        lines, nums = board_lines(lines)
        judge_board(v, parser, lines, listed)
        judge_console(v, a.arch, lines, nums)
    if a.tests:
        # each module the guest was to load before the kselftests
        preload = [p.split()[0] for p in testlist.read(a.tests).preload]
        for m in preload:
            if not any(l.startswith("rcpuidle: preloaded %s " % m) for l in lines):
                v.error("the guest did not preload %s before the kselftests" % m)
        if a.qemu_rc in (124, 137):
            v.error("guest timed out (killed)")
        if not any(l.strip() == "rcpuidle: done" for l in lines):
            v.error("guest did not finish (no 'rcpuidle: done' on the console)")
    for r in v.rows:
        print(r)
    for b in v.bad:
        print("%s: ERROR: %s" % (a.arch, b))
    print("%s: %d passed, %d failed, %d skipped" % (a.arch, v.npass, v.nfail, v.nskip))
    return 1 if v.bad or v.nfail else 0


if __name__ == "__main__":
    sys.exit(main())
