# SPDX-License-Identifier: GPL-2.0
"""The runner of the host self-tests' checks (tools/*-tests/*_test.py).

run(checks, title, on_failure): each (name, check) of checks is called; it
holds if it returns a true value, and fails if it returns a false one or
raises (a missing key or row is a failure too).  Prints "ok NAME" or "FAIL
NAME: ..." per check, on_failure (text, printed if any check failed), then
"TITLE: N passed, N failed".  Returns the exit status: 1 if any failed.
"""


def run(checks, title, on_failure=""):
    passed = failed = 0
    for name, check in checks:
        try:
            ok, why = bool(check()), ""
        except Exception as e:  # pylint: disable=broad-except
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        print("%s %s%s" % ("ok" if ok else "FAIL", name, ": " + why if why else ""))
        passed, failed = passed + ok, failed + (not ok)
    if failed:
        print(on_failure or "", end="")
    print("%s: %d passed, %d failed" % (title, passed, failed))
    return 1 if failed else 0
