#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [OUTDIR]: the governor evaluation (make bench).
#  1. the simulator over the trace corpus (make sim alone runs this part);
#  2. an x86_64 guest in bench mode: idlebench and idle phases per emulated
#     table, governor and repetition (scripts/bench-guest.sh);
#  3. the report: OUTDIR/report.md, summary.json and PNG plots.
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

cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml"
sim=$CARGO_TARGET_DIR/release/cpuidle-sim
run "$sim" --episodes "${SIM_EPISODES:-12000}" --json "$out/sim.json" --md "$out/sim.md" --png "$out"

arch_setup x86_64
"$TOP/scripts/build.sh" x86_64
initrd=$BUILD/rcpuidle-bench.cpio
"$TOP/scripts/mkinitramfs.sh" x86_64 "$initrd"
log=$CACHE/logs/x86_64-bench.log
echo "bench: booting x86_64 in bench mode (console log $log)"
RCPUIDLE_CMDLINE="${RCPUIDLE_CMDLINE:-} ${BENCH_ARGS:-}" \
	run "$TOP/scripts/boot.sh" x86_64 bench "$initrd" "$log" "${BENCH_TIMEOUT:-2400}" || true
echo "(in the guest) /usr/share/rcpuidle/bench.sh = scripts/bench-guest.sh" >>"$cmds"
# the recorded traces of this run, in the simulator's corpus format (to
# refresh the stored corpus: copy them to tools/cpuidle-sim/corpus/)
run python3 "$TOP/scripts/trace2corpus.py" "$log" "$out/corpus"
python3 "$TOP/scripts/bench-report.py" "$out" "$log" "$sim" "$cmds"
