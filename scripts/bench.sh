#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [OUTDIR]: the governor evaluation (make bench).
#  1. an x86_64 guest on the bench kernel (scripts/bench-boot.sh): the
#     field's benchmarks per time-scaled emulated table, governor and
#     repetition (scripts/bench-guest.sh), then idle periods recorded with
#     the kernel's tracepoints (scripts/record-guest.sh) and what deciding,
#     stopping and restarting the tick cost (scripts/tickcost-guest.sh);
#  2. the simulator over its stored corpus (scripts/sim.sh, make sim);
#  3. the corpus recorded by this run (scripts/trace2corpus.py), the tick
#     costs (scripts/tickcost.py), the simulator's replay of each recorded
#     run against the guest (scripts/fidelity.py) and the report:
#     OUTDIR/report.md, summary.json and plots.
# OUTDIR defaults to out/bench in the repository (not tracked).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:-$TOP/out/bench}
mkdir -p "$out"
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
cmds=$out/commands.txt
: >"$cmds"
run() { echo "$*" >>"$cmds"; "$@"; }

# the guest: benchmarks and the recording of idle periods
log=$CACHE/logs/x86_64-bench.log
grc=0
run "$TOP/scripts/bench-boot.sh" "${BENCH_PARTS:-bench,record,tickcost}" "$log" || grc=$?
echo "(in the guest) /usr/share/rcpuidle/{bench,record,tickcost}.sh = scripts/{bench,record,tickcost}-guest.sh" >>"$cmds"
# the simulator over its stored corpus (make sim alone runs this part)
run "$TOP/scripts/sim.sh" "$out/sim"
# the recorded idle periods: the simulator's corpus (tuning and held-out
# sets) and the guest's own above/below and residencies, for fidelity
if grep -q 'TICKCOST ' "$log"; then
	run /usr/bin/python3 "$TOP/scripts/tickcost.py" "$log" "$out" || echo "bench: tickcost.py failed: see $out/tickcost.json" >&2
fi
if grep -q 'REC ' "$log"; then
	run python3 "$TOP/scripts/trace2corpus.py" "$log" "$out"
	run python3 "$TOP/scripts/fidelity.py" "$out" || echo "bench: fidelity.py failed: the report has no fidelity section" >&2
fi
# the report says what is missing when the guest failed; the exit status too
/usr/bin/python3 "$TOP/scripts/bench-report.py" "$out" "$log" --sim "$out/sim/sim.json" --commands "$cmds"
# the guest targets against this run, and the repetitions its spread says
# they would take (power.md, power.json)
python3 "$TOP/scripts/bench-power.py" "$out/summary.json" --md "$out/power.md" --json "$out/power.json" ||
	echo "bench: bench-power.py found no rteo/teo ratios" >&2
[ "$grc" = 0 ] || die "the bench guest failed: the report is incomplete"
