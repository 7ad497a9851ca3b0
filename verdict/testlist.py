# SPDX-License-Identifier: GPL-2.0
"""configs/ARCH.tests: what a check boot must carry and report.

The one reader of the format (documented at the top of configs/x86_64.tests),
for verdict/ktap.py (imported) and for the shell scripts (as a command):

    python3 verdict/testlist.py FILE KIND

prints the entries of KIND, one a line: module, preload, tool, env,
cmdline, kunit, kselftest (NAME, or NAME<TAB>WHY for a test that skips as
a whole), cpu-limit (the check boot's QEMU CPU-seconds, default 1200).
A line it cannot read is an error (exit 2), whatever KIND was asked for.
"""

import re
import sys
from dataclasses import dataclass, field

DEFAULT_CPU_LIMIT = 1200


@dataclass
class TestList:
    modules: list[str] = field(default_factory=list)
    preload: list[str] = field(default_factory=list)  # "NAME.ko [PARAM...]"
    tools: list[str] = field(default_factory=list)
    env: list[str] = field(default_factory=list)  # "VAR=VALUE"
    cmdline: list[str] = field(default_factory=list)
    kunit: list[str] = field(default_factory=list)
    kselftest: dict[str, str | None] = field(default_factory=dict)  # name -> skip reason
    cpu_limit: int = DEFAULT_CPU_LIMIT


def read(path: str) -> TestList:
    t = TestList()
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            kind, _, rest = line.partition(" ")
            rest = rest.strip()
            name, _, extra = rest.partition(" ")
            extra = extra.strip()
            if not name:
                pass
            elif kind == "module" and not extra:
                t.modules.append(name)
                continue
            elif kind == "preload":
                t.preload.append(rest)
                continue
            elif kind == "tool" and not extra:
                t.tools.append(name)
                continue
            elif kind == "env" and "=" in name:
                t.env.append(rest)
                continue
            elif kind == "cmdline":
                t.cmdline.append(rest)
                continue
            elif kind == "cpu-limit" and name.isdigit() and not extra:
                t.cpu_limit = int(name)
                continue
            elif kind == "kunit" and not extra:
                t.kunit.append(name)
                continue
            elif kind == "kselftest" and (not extra or re.match(r"skip: \S", extra)):
                t.kselftest[name] = extra[len("skip: "):] if extra else None
                continue
            raise ValueError("%s:%d: cannot read '%s'" % (path, n, line))
    return t


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: testlist.py FILE KIND", file=sys.stderr)
        return 2
    try:
        t = read(argv[1])
    except (OSError, ValueError) as e:
        print("testlist: %s" % e, file=sys.stderr)
        return 2
    kind = argv[2]
    if kind == "kselftest":
        rows = [n if why is None else "%s\t%s" % (n, why) for n, why in t.kselftest.items()]
    elif kind == "cpu-limit":
        rows = [str(t.cpu_limit)]
    elif kind == "cmdline":
        rows = [" ".join(t.cmdline)] if t.cmdline else []
    else:
        lists = {"module": t.modules, "preload": t.preload, "tool": t.tools,
                 "env": t.env, "kunit": t.kunit}
        if kind not in lists:
            print("testlist: no kind '%s'" % kind, file=sys.stderr)
            return 2
        rows = lists[kind]
    for r in rows:
        print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
