#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sim.sh [OUTDIR] [ARGS...]: the governor simulator alone (make sim): the
# corpus through rteo (both modes), teo.c, menu.c and the oracle, with the
# cpuidle core's and the tick's own C from the kernel tree; writes
# OUTDIR/sim.md and sim.json (also as OUTDIR/summary.json, the name runs
# are compared by, as make bench's), the information bound (bound.md) and
# the bound's policy swept in the closed loop (policy.md), the energy
# model against the tables' target residencies (model.md), the stop rule
# of the interrupt predictor (irqpred.md), prints the
# headline table, then draws
# OUTDIR/sim-*.png from the JSON (evaluation/sim_plots.py, matplotlib under
# Debian's /usr/bin/python3).  ARGS go to cpuidle-sim.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
py=/usr/bin/python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
	echo "sim.sh: matplotlib is missing for $py, needed for the plots (Debian: apt-get install python3-matplotlib)" >&2
	exit 1
fi
out=${1:-$TOP/out/sim}
shift || true
mkdir -p "$out"
cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --json "$out/sim.json" --md "$out/sim.md" "$@"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --bound "$@" >"$out/bound.md"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --policy-sweep "$@" >"$out/policy.md"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --model "$@" >"$out/model.md"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --irq-predictor "$@" >"$out/irqpred.md"
"$py" "$TOP/evaluation/sim_plots.py" "$out/sim.json" "$out" --md "$out/sim.md"
cp "$out/sim.json" "$out/summary.json"
echo "sim: report in $out/sim.md, summary in $out/summary.json, bound in $out/bound.md, policy sweep in $out/policy.md, model in $out/model.md, interrupt predictor in $out/irqpred.md"
