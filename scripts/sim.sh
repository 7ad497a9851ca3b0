#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sim.sh [OUTDIR] [ARGS...]: the governor simulator alone (make sim): the
# corpus through rteo (both modes), teo.c, menu.c and the oracle; writes
# OUTDIR/sim.md, sim.json and PNG plots, prints the headline table.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
out=${1:-$TOP/out/sim}
shift || true
mkdir -p "$out"
cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml"
"$CARGO_TARGET_DIR/release/cpuidle-sim" --json "$out/sim.json" --md "$out/sim.md" --png "$out" "$@"
echo "sim: report in $out/sim.md"
