# SPDX-License-Identifier: GPL-2.0
"""The runner of the host self-tests' checks (tools/*-tests/*_test.py).

run(checks, title, on_failure): each (name, check) of checks is called; it
holds if it returns a true value, and fails if it returns a false one or
raises (a missing key or row is a failure too).  Prints "ok NAME" or "FAIL
NAME: ..." per check, on_failure (text, printed if any check failed), then
"TITLE: N passed, N failed".  Returns the exit status: 1 if any failed.

run_on_log(script, tmp, name, lines, result): a script of the evaluation
run on a crafted console log, with what it wrote as JSON.
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


def run_on_log(script, tmp, name, lines, result):
    """Runs `script LOG OUT` (python) with lines written to LOG
    (tmp/NAME.log) and OUT tmp/NAME: the completed process, and the JSON
    of OUT/RESULT, or None if the script wrote none."""
    import json
    import os
    import subprocess
    import sys
    log = os.path.join(tmp, name + ".log")
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, name)
    p = subprocess.run([sys.executable, script, log, out], capture_output=True, text=True)
    res = None
    if os.path.exists(os.path.join(out, result)):
        with open(os.path.join(out, result)) as f:
            res = json.load(f)
    return p, res
