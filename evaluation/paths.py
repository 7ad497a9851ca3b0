# SPDX-License-Identifier: GPL-2.0
"""Where things are, for every Python program of evaluation/ and verdict/.

TOP        the repository
CACHE      $RCPUIDLE_CACHE, by default ~/.cache/rcpuidle (make setup fills it)
TARGET     the cargo target directory: $CARGO_TARGET_DIR, by default
           CACHE/cargo-target
PRISTINE   the kernel source make setup extracted (CACHE/src/pristine)
KUNIT_DIR  its tools/testing/kunit (the kernel's kunit_parser, which
           verdict/ktap.py loads)
PYTHON     Debian's python3, which has numpy and matplotlib
"""

import os
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.environ.get("RCPUIDLE_CACHE") or os.path.expanduser("~/.cache/rcpuidle")
TARGET = os.environ.get("CARGO_TARGET_DIR") or os.path.join(CACHE, "cargo-target")
PRISTINE = os.path.realpath(os.path.join(CACHE, "src", "pristine"))
KUNIT_DIR = os.path.join(PRISTINE, "tools", "testing", "kunit")
RECORDINGS = os.path.join(TOP, "evaluation", "recordings")
DOCS = os.path.join(TOP, "Documentation", "evaluation")
PYTHON = "/usr/bin/python3"
SIM_MANIFEST = os.path.join(TOP, "tools", "cpuidle-sim", "Cargo.toml")


def cargo_env():
    """The environment cargo runs in: the target directory, rustup's cargo."""
    path = os.path.expanduser("~/.cargo/bin") + os.pathsep + os.environ.get("PATH", "")
    return dict(os.environ, CARGO_TARGET_DIR=TARGET, PATH=path)


def simulator(binary=None):
    """The cpuidle-sim binary: BINARY if given, else built (release) in TARGET."""
    if binary:
        return binary
    subprocess.run(["cargo", "build", "--quiet", "--release", "--manifest-path", SIM_MANIFEST],
                   check=True, env=cargo_env())
    return os.path.join(TARGET, "release", "cpuidle-sim")


def module_command(name):
    """The command that runs evaluation.NAME as a program from any directory."""
    return [sys.executable, "-m", "evaluation." + name]


def module_env(env=None):
    """ENV (default: this process's) with the repository importable."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (TOP, env.get("PYTHONPATH")) if p)
    return env
