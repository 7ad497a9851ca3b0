#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# seeds.sh [OUTDIR]: the seeds' measurements replicated (make seeds): an
# x86_64 guest on the bench kernel (evaluation/bench-boot.sh) runs seeds 000,
# 001, 002 and 004 and a ppc64le one seed 003 (evaluation/guest/seeds.sh),
# then evaluation/seeds_report.py writes OUTDIR/seeds.md, summary.json and
# plots against the seeds' numbers.  OUTDIR defaults to out/seeds in the
# repository (not tracked); SEEDS_ARCHES chooses the guests (default both).
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"
. "$TOP/evaluation/lib.sh"
out=${1:-$TOP/out/seeds}
mkdir -p "$out"
logs=() failed=
for arch in ${SEEDS_ARCHES:-x86_64 ppc64le}; do
	log=$CACHE/logs/$arch-seeds.log
	rm -f "$log"
	"$TOP/evaluation/bench-boot.sh" seeds "$log" "$arch" || failed="$failed $arch"
	[ -f "$log" ] && logs+=("$log")
done
[ ${#logs[@]} -gt 0 ] || die "no seeds guest left a console log"
# the report says what is missing when a guest failed; the exit status too
evpy evaluation.seeds_report "$out" "${logs[@]}"
[ -z "$failed" ] || die "the seeds guest failed on$failed: the report is incomplete"
