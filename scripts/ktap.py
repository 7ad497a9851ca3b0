#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Verdict on one guest console log.

Usage: ktap.py LOG --arch A [--expect SUITE ...] [--qemu-rc N]

Parses the KUnit KTAP the kernel printed and the kselftest KTAP /init
framed with rcpuidle-kselftest-begin/end markers, prints one line per suite
and a final "N passed, N failed, N skipped", and exits 1 when any test
failed, an expected suite did not report, the guest timed out or did not
finish, or the console shows a splat (WARNING, BUG, lockdep, KASAN, Oops,
panic, RCU stall).
"""
import argparse
import re
import sys

SPLATS = [
    r"WARNING:", r"BUG:", r"\bOops\b", r"Kernel panic", r"KASAN:", r"UBSAN:",
    r"-+\[ cut here \]-+", r"possible recursive locking",
    r"possible circular locking", r"inconsistent lock state",
    r"suspicious RCU usage", r"general protection fault",
    r"Unable to handle kernel", r"rcu: INFO: .*stall", r"INFO: task .* blocked",
    r"Internal error:", r"BUG kmalloc", r"kernel BUG at",
]
SPLAT_RE = re.compile("|".join(SPLATS))
RESULT_RE = re.compile(r"^(\s*)(ok|not ok) (\d+)\s*-?\s*([^#]*?)\s*(#\s*(.*))?$")
SUBTEST_RE = re.compile(r"^(\s*)# Subtest: (\S+)")


def classify(status, directive):
    if directive and directive.upper().startswith("SKIP"):
        return "skip"
    return "pass" if status == "ok" else "fail"


def parse_kunit(lines):
    """Return {suite: [pass, fail, skip, verdict]} for KUnit suites.

    Suites are the '# Subtest:' blocks at indentation 4; their cases are the
    results at indentation 4 too (parameterised cases count once, by their own
    line at that depth).  The suite's own line at indentation 0 gives the
    verdict.  A suite that reports more than once (a module's suite runs at
    every load) adds up its cases and keeps its worst verdict."""
    suites = {}
    cur = None
    for line in lines:
        m = SUBTEST_RE.match(line)
        if m and len(m.group(1)) == 4:
            cur = m.group(2)
            suites.setdefault(cur, [0, 0, 0, None])
            continue
        m = RESULT_RE.match(line)
        if not m or cur is None:
            continue
        indent, status, _, name, _, directive = m.groups()
        kind = classify(status, directive)
        if len(indent) == 4:
            suites[cur][{"pass": 0, "fail": 1, "skip": 2}[kind]] += 1
        elif len(indent) == 0 and name == cur:
            rank = {None: 0, "pass": 1, "skip": 2, "fail": 3}
            if rank[kind] > rank[suites[cur][3]]:
                suites[cur][3] = kind
            cur = None
    return suites


def parse_kselftests(lines):
    """Return {test: [pass, fail, skip, verdict]} from the framed output."""
    tests = {}
    cur = None
    for line in lines:
        if line.startswith("rcpuidle-kselftest-begin: "):
            cur = line.split()[1] + "".join(":" + a for a in line.split()[2:])
            tests[cur] = [0, 0, 0, None]
            continue
        if line.startswith("rcpuidle-kselftest-end: ") and cur:
            rc = line.rsplit("rc=", 1)[-1].strip()
            t = tests[cur]
            if rc == "4" and t[0] + t[1] == 0:
                t[3] = "skip"
                t[2] = max(t[2], 1)
            elif rc == "0" and t[1] == 0:
                t[3] = "pass"
            else:
                t[3] = "fail(rc=%s)" % rc
            cur = None
            continue
        if cur is None:
            continue
        m = RESULT_RE.match(line)
        if m and m.group(1) == "":
            kind = classify(m.group(2), m.group(6))
            tests[cur][{"pass": 0, "fail": 1, "skip": 2}[kind]] += 1
            if kind == "fail":
                print("  FAIL %s: %s" % (cur, line.strip()))
    for t in tests.values():
        if t[3] is None:
            t[3] = "fail(no end: killed or hung)"
    return tests


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--arch", required=True)
    ap.add_argument("--expect", nargs="*", default=[])
    ap.add_argument("--qemu-rc", type=int, default=0)
    a = ap.parse_args()
    try:
        with open(a.log, errors="replace") as f:
            lines = [l.rstrip("\r\n") for l in f]
    except OSError as e:
        print("%s: ERROR: no console log: %s" % (a.arch, e))
        print("%s: 0 passed, 1 failed, 0 skipped" % a.arch)
        return 1

    bad = []
    kunit = parse_kunit(lines)
    ksft = parse_kselftests(lines)
    npass = nfail = nskip = 0
    for kind, res in (("kunit", kunit), ("kselftest", ksft)):
        for name, (p, fl, s, verdict) in sorted(res.items()):
            if verdict is None:
                verdict = "fail(no verdict)"
            ok = verdict in ("pass", "skip")
            print("%-8s %-10s %-40s %-6s %3d passed, %d failed, %d skipped"
                  % (a.arch, kind, name, "ok" if ok else "FAIL", p, fl, s))
            npass += p
            nfail += fl
            nskip += s
            if not ok:
                bad.append("%s %s: %s" % (kind, name, verdict))
                if fl == 0:
                    nfail += 1
    for e in a.expect:
        if e not in kunit and e not in ksft:
            bad.append("expected suite %s did not report" % e)
            nfail += 1
    # Run-level errors each count as one failed test, so that the summary
    # line never reads "0 failed" for a red run.
    for i, line in enumerate(lines):
        if SPLAT_RE.search(line):
            bad.append("console splat at line %d: %s" % (i + 1, line.strip()))
            nfail += 1
            break
    if a.qemu_rc == 124 or a.qemu_rc == 137:
        bad.append("guest timed out (killed)")
        nfail += 1
    if not any(l.strip() == "rcpuidle: done" for l in lines):
        bad.append("guest did not finish (no 'rcpuidle: done' on the console)")
        nfail += 1
    for b in bad:
        print("%s: ERROR: %s" % (a.arch, b))
    print("%s: %d passed, %d failed, %d skipped" % (a.arch, npass, nfail, nskip))
    return 1 if bad or nfail else 0


if __name__ == "__main__":
    sys.exit(main())
