# SPDX-License-Identifier: GPL-2.0
"""The end of make check: every planned part's output and result.

    python3 pipeline/summary.py RESULTS ARCH... [--cpu BUSY0 TOTAL0 BUSY1 TOTAL1]

reads only RESULTS/PART.json and RESULTS/PART.log (pipeline/part.sh) for
the parts of pipeline/parts (or $RCPUIDLE_PARTS) that ARCH... select, in the table's order.
A part is green when its status is 0 and it counted no failure; a planned
part without a result (its need failed, or the run was stopped) is red.
A green part that printed no counts counts as one passed check.  Prints
each part's output, a line per part, the CPUs' use and the total
"N passed, N failed, N skipped"; exits 1 unless every part is green.
"""

import json
import os
import sys


def table(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or len(line.split()) < 7:
                continue
            c = line.split()
            rows.append({"part": c[0], "arch": c[1], "needs": c[2], "command": " ".join(c[6:])})
    return rows


def main(argv):
    cpu = None
    if "--cpu" in argv:
        i = argv.index("--cpu")
        cpu = [int(x) for x in argv[i + 1:i + 5]]
        argv = argv[:i]
    res, arches = argv[1], set(argv[2:])
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    path = os.environ.get("RCPUIDLE_PARTS") or os.path.join(top, "pipeline", "parts")
    rows = [r for r in table(path)
            if r["arch"] == "-" or r["arch"] in arches]
    total = [0, 0, 0]
    lines = []
    for r in rows:
        p = r["part"]
        print("== %s ==" % p)
        try:
            with open(os.path.join(res, p + ".log"), errors="replace") as f:
                sys.stdout.write(f.read())
        except OSError:
            pass
        try:
            with open(os.path.join(res, p + ".json")) as f:
                j = json.load(f)
        except (OSError, ValueError):
            print("check: %s: did not run (needs: %s)" % (p, r["needs"]))
            total[1] += 1
            lines.append("%s: RED (did not run; needs %s)" % (p, r["needs"]))
            continue
        n = [j["passed"], j["failed"], j["skipped"]]
        green = j["rc"] == 0 and j["failed"] == 0
        if green and n == [0, 0, 0]:
            n[0] = 1
        if not green and n[1] == 0:
            n[1] = 1
        total = [a + b for a, b in zip(total, n)]
        how = "%d s, %d CPU-s" % (j["wall_s"], j["cpu_s"])
        if green:
            lines.append("%s: green (%s)" % (p, how))
        else:
            why = j["first_failure"] or (
                "%d failed" % j["failed"] if j["failed"] else "status %d, no failure line" % j["rc"])
            lines.append("%s: RED (%s; %s)" % (p, why[:160], how))
    if cpu:
        print("== CPUs ==")
        hz = os.sysconf("SC_CLK_TCK")
        busy, all_ = cpu[2] - cpu[0], cpu[3] - cpu[1]
        print("check: %d CPUs busy %d %% of the run (%d CPU-s unused)"
              % (os.cpu_count() or 0, 100 * busy // max(all_, 1), (all_ - busy) // hz))
    print("== parts ==")
    print("\n".join(lines))
    print("== total ==")
    print("%d passed, %d failed, %d skipped" % tuple(total))
    return 0 if all(": green" in l for l in lines) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
