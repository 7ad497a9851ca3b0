# SPDX-License-Identifier: GPL-2.0
"""make loc: code lines of the product and of the tooling around it.

A code line is a non-blank line that is not only a comment (//, #, /*, *,
or a docstring's quotes; #! and the C preprocessor's lines count).  The
product is what the series carries: rust/, drivers/, samples/ and the
kselftests; the tooling is every other script and program git tracks,
but for the simulator's stored corpus, the documentation and the series'
own files (kernel-patches/).  Prints a line per folder and the ratio.
"""

import collections
import os
import subprocess
import sys

PRODUCT = ("rust/", "drivers/", "samples/", "tools/testing/selftests/")
NOT_CODE = ("tools/cpuidle-sim/corpus/", "Documentation/", "kernel-patches/")
CODE_EXT = {".rs", ".c", ".h", ".py", ".sh", ".mk", ".awk"}
PREPROCESSOR = ("#!", "#[", "#include", "#define", "#if", "#else", "#endif", "#undef")


def code_lines(path):
    n = 0
    with open(path, errors="replace") as f:
        for line in f:
            t = line.strip()
            if not t:
                continue
            if t.startswith(("//", "#", "/*", "*", '"""')) and not t.startswith(PREPROCESSOR):
                continue
            n += 1
    return n


def is_code(path):
    ext = os.path.splitext(path)[1]
    shell = path.startswith(("pipeline/guest/", "tools/testing/selftests/cpuidle/"))
    return ext in CODE_EXT or os.path.basename(path) in ("Makefile", "Kbuild") or shell


def main():
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = subprocess.run(["git", "-C", top, "ls-files"], capture_output=True,
                           text=True, check=True).stdout.split()
    per = collections.Counter()
    total = collections.Counter()
    for f in files:
        if f.startswith(NOT_CODE) or not is_code(f) or not os.path.isfile(os.path.join(top, f)):
            continue
        role = "product" if f.startswith(PRODUCT) else "tooling"
        parts = f.split("/")
        folder = "/".join(parts[:2]) if parts[0] == "tools" and len(parts) > 2 else parts[0]
        n = code_lines(os.path.join(top, f))
        per[(role, folder)] += n
        total[role] += n
    for (role, folder), n in sorted(per.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print("%-8s %-28s %6d" % (role, folder, n))
    print("product %d, tooling %d code lines: tooling %.2f x product"
          % (total["product"], total["tooling"], total["tooling"] / max(total["product"], 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
