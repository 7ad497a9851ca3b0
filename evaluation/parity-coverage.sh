#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# parity-coverage.sh [PERIODS]: line and branch coverage of teo.c reached by
# the parity harness's streams (gcc --coverage on the C side, then gcov).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export CARGO_TARGET_DIR=$CACHE/cargo-target-coverage
n=${1:-400000}
PARITY_COVERAGE=1 cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-parity/Cargo.toml"
obj=$(ls -t "$CARGO_TARGET_DIR"/release/build/cpuidle-parity-*/out/parity_teo.o | head -n1)
out=$(dirname "$obj")
rm -f "$out"/*.gcda
"$CARGO_TARGET_DIR/release/cpuidle-parity" --periods "$n" | tail -n 1
cd "$out"
gcov -b -o "$out" "$obj" 2>/dev/null | awk '/^File .*teo.c/ { p = 1 } p && NF { print } p && /^$/ { exit }' | head -n 6
