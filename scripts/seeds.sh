#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# seeds.sh [OUTDIR]: the seeds' measurements replicated (make seeds): an
# x86_64 guest on the bench kernel (scripts/bench-boot.sh) runs
# scripts/seeds-guest.sh, then scripts/seeds-report.py writes
# OUTDIR/seeds.md, summary.json and plots against the seeds' numbers.
# OUTDIR defaults to out/seeds in the repository (not tracked).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=${1:-$TOP/out/seeds}
mkdir -p "$out"
log=$CACHE/logs/x86_64-seeds.log
grc=0
"$TOP/scripts/bench-boot.sh" seeds "$log" || grc=$?
# the report says what is missing when the guest failed; the exit status too
/usr/bin/python3 "$TOP/scripts/seeds-report.py" "$out" "$log"
[ "$grc" = 0 ] || die "the seeds guest failed: the report is incomplete"
