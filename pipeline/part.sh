#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# part.sh RESULTS PART NICE BUDGET COMMAND...: run one part of make check
# (a row of pipeline/parts) at nice NICE, for at most BUDGET seconds and
# never past the check's own end (RCPUIDLE_CHECK_T0 +
# RCPUIDLE_CHECK_BUDGET), its output into RESULTS/PART.log; then write
# RESULTS/PART.json:
#
#   {"part", "rc", "passed", "failed", "skipped", "first_failure",
#    "cpu_s", "wall_s", "stopped"}
#
# passed/failed/skipped are the counts of the output's last "N passed, N
# failed, N skipped" line (none: 0, 0, 0); first_failure the first line
# that tells of one.  RESULTS/PART.ok is written when the part passed:
# status 0 and no failure counted.  Exits 0 either way (pipeline/check.mk
# waits on PART.ok).
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
res=$1 part=$2 nice=$3 budget=$4
shift 4
out=$res/$part.log
t0=$(date +%s)
end=$((${RCPUIDLE_CHECK_T0:-$t0} + ${RCPUIDLE_CHECK_BUDGET:-5100}))
limit=$((end - t0))
[ "$limit" -lt "$budget" ] || limit=$budget
echo "check: $part starts at $((t0 - ${RCPUIDLE_CHECK_T0:-$t0})) s"
stopped=false
if [ "$limit" -le 0 ]; then
	echo "check: $part: not run: the check's time was spent" >"$out"
	rc=124 stopped=true
else
	# (the make that runs the parts hands its flags down in the
	# environment: the kernel's own make must not take them)
	(cd "$TOP" && unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES &&
		exec timeout -k 30 "$limit" nice -n "$nice" "$@") >"$out" 2>&1 </dev/null
	rc=$?
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		stopped=true
		echo "check: $part: stopped at its limit of $limit s" >>"$out"
	fi
fi
# (the CPU time of this shell's children, the part's processes all)
times >"$res/$part.times"
cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= NF; i++) { split($i, b, "m"); s += b[1] * 60 + b[2] }; printf "%.0f", s }' "$res/$part.times")
rm -f "$res/$part.times"
wall=$(($(date +%s) - t0))
python3 - "$out" "$res/$part.json" "$part" "$rc" "$cpu" "$wall" "$stopped" <<'PY'
import json, re, sys
out, dst, part, rc, cpu, wall, stopped = sys.argv[1:]
lines = open(out, errors="replace").read().splitlines()
counts = [0, 0, 0]
for l in lines:
    m = re.search(r"(\d+) passed, (\d+) failed, (\d+) skipped$", l)
    if m:
        counts = [int(x) for x in m.groups()]
bad = re.compile(r"RED|^not ok|FAIL|ERROR|[Ee]rror|failed:|did not|not run|stopped|incomplete")
first = next((l for l in lines if bad.search(l) and " 0 failed, " not in l), None)
r = {"part": part, "rc": int(rc), "passed": counts[0], "failed": counts[1],
     "skipped": counts[2], "first_failure": first[:200] if first else None,
     "cpu_s": int(cpu), "wall_s": int(wall), "stopped": stopped == "true"}
with open(dst, "w") as f:
    json.dump(r, f, indent=1)
    f.write("\n")
PY
ok=
if [ $rc = 0 ] && python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["failed"] > 0)' "$res/$part.json"; then
	touch "$res/$part.ok"
	ok=passed
fi
echo "check: $part done at $(($(date +%s) - ${RCPUIDLE_CHECK_T0:-$t0})) s (${wall} s, $cpu CPU-s): ${ok:-FAILED (status $rc)}: $(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)"
exit 0
