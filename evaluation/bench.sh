#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [OUTDIR]: the governor evaluation (make bench).
#  1. an x86_64 guest on the bench kernel (evaluation/bench-boot.sh): the
#     field's benchmarks per time-scaled emulated table, governor and
#     repetition (evaluation/guest/bench.sh), then idle periods recorded with
#     the kernel's tracepoints (evaluation/guest/record.sh) and what deciding,
#     stopping and restarting the tick cost (evaluation/guest/tickcost.sh);
#  2. the simulator over its stored corpus (python3 -m evaluation sim, make sim);
#  3. the corpus recorded by this run (evaluation/trace2corpus.py), the tick
#     costs (evaluation/tickcost.py), the simulator's replay of each recorded
#     run against the guest (evaluation/fidelity.py) and the report:
#     OUTDIR/report.md, summary.json and plots.
# OUTDIR defaults to out/bench in the repository (not tracked).
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"
. "$TOP/evaluation/lib.sh"
out=${1:-$TOP/out/bench}
mkdir -p "$out"
cmds=$out/commands.txt
: >"$cmds"
run() { echo "$*" >>"$cmds"; "$@"; }

# the guest: benchmarks and the recording of idle periods
log=$CACHE/logs/x86_64-bench.log
grc=0
run "$TOP/evaluation/bench-boot.sh" "${BENCH_PARTS:-bench,record,tickcost}" "$log" || grc=$?
echo "(in the guest) /usr/share/rcpuidle/{bench,record,tickcost}.sh = evaluation/guest/{bench,record,tickcost}.sh" >>"$cmds"
# the simulator over its stored corpus (make sim alone runs this part)
run evpy evaluation sim "$out/sim"
# the recorded idle periods: the simulator's corpus (tuning and held-out
# sets) and the guest's own above/below and residencies, for fidelity
if grep -q 'TICKCOST ' "$log"; then
	run evpy evaluation.tickcost "$log" "$out" || echo "bench: tickcost.py failed: see $out/tickcost.json" >&2
fi
if grep -q 'REC ' "$log"; then
	run evpy evaluation.trace2corpus "$log" "$out"
	run evpy evaluation.fidelity "$out" || echo "bench: fidelity.py failed: the report has no fidelity section" >&2
fi
# the report says what is missing when the guest failed; the exit status too
evpy evaluation.bench_report "$out" "$log" --sim "$out/sim/sim.json" --commands "$cmds"
# the guest targets against this run, and the repetitions its spread says
# they would take (power.md, power.json)
evpy evaluation.bench_power "$out/summary.json" --md "$out/power.md" --json "$out/power.json" ||
	echo "bench: bench_power.py found no rteo/teo ratios" >&2
[ "$grc" = 0 ] || die "the bench guest failed: the report is incomplete"
