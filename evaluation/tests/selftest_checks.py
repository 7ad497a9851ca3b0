# SPDX-License-Identifier: GPL-2.0
"""What the evaluation's tests share.

A test module runs the program under test once, in a module-scoped
fixture that returns its locals (the runs), and lists its checks as
CHECKS: (name, check), check a function of some of those locals, named
by its parameters; it holds if it returns a true value (holds()).

program(name, override): the command that runs evaluation/NAME.py, or
the copy the environment variable OVERRIDE names (a mutant), with the
environment it needs (evaluation.paths.module_env()).
run_on_log(cmd, tmp, name, lines, result): CMD run on a crafted console
log, with what it wrote as JSON.
"""
import inspect
import json
import os
import subprocess
import sys

from evaluation import paths


def holds(check, runs):
    """check called with the runs its parameters name."""
    return bool(check(*(runs[a] for a in inspect.signature(check).parameters)))


def program(name, override=None):
    path = os.environ.get(override) if override else None
    return [sys.executable, path] if path else paths.module_command(name)


def run_on_log(cmd, tmp, name, lines, result):
    """Runs `CMD LOG OUT` with lines written to LOG (tmp/NAME.log) and OUT
    tmp/NAME: the completed process, and the JSON of OUT/RESULT, or None
    if the program wrote none."""
    log = os.path.join(tmp, name + ".log")
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    out = os.path.join(tmp, name)
    p = subprocess.run(cmd + [log, out], capture_output=True, text=True, env=paths.module_env())
    res = None
    if os.path.exists(os.path.join(out, result)):
        with open(os.path.join(out, result)) as f:
            res = json.load(f)
    return p, res
