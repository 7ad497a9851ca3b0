#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# record-boots.sh [OUTDIR]: idle periods recorded over several boots (make
# record): RECORD_BOOTS (default 3) x86_64 guests on the bench kernel
# (evaluation/bench-boot.sh), each recording every table, governor and
# workload once (evaluation/guest/record.sh, with each entry's wake-up
# source); boot K's runs are named WORKLOAD-rK, as record_reps names the
# repetitions of one boot, and evaluation/trace2corpus.py turns the REC and
# BENCH-META lines of all boots (OUTDIR/record.log, which names the kernel
# first) into OUTDIR/corpus and OUTDIR/guest-idle.json; evaluation/
# headline.py makes the headline of it (evaluation/recordings/ keeps the
# one Documentation/evaluation/headline.json comes from).  BENCH_ARGS passes rcpuidle.bench.* options
# (record_seconds, record_workloads, tables; not record_reps) to every
# boot.  OUTDIR
# defaults to out/record in the repository (not tracked).
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"
. "$TOP/evaluation/lib.sh"
out=${1:-$TOP/out/record}
boots=${RECORD_BOOTS:-3}
case $boots in '' | *[!0-9]* | 0) die "record-boots: RECORD_BOOTS=$boots: a count of 1 or more" ;; esac
# the boots are the repetitions: a boot's own (WORKLOAD-rK) would be named twice
case " ${BENCH_ARGS:-} " in *record_reps=*) die "record-boots: record_reps: the boots are the repetitions" ;; esac
mkdir -p "$out"
# the kernel the boots run (bench-boot.sh builds it from this tree), for
# evaluation/headline.py; -dirty: from uncommitted changes
echo "BENCH-META record kernel $(git -C "$TOP" describe --always --dirty --abbrev=7 2>/dev/null ||
	echo unknown)" >"$out/record.log"
k=1
while [ "$k" -le "$boots" ]; do
	log=$CACHE/logs/x86_64-record-$k.log
	rm -f "$log"
	"$TOP/evaluation/bench-boot.sh" record "$log" x86_64
	# the runs of boot K: WORKLOAD-rK on the REC lines (field 4 from REC)
	# and on the record and record-energy lines (field 5 from BENCH-META)
	awk -v k="$k" '
	{ for (i = 1; i <= NF; i++) if ($i == "REC" || $i == "BENCH-META") break }
	i > NF { next }
	$i == "REC" && NF - i >= 11 { $(i + 3) = $(i + 3) "-r" k; print; next }
	$i == "BENCH-META" && ($(i + 1) == "record" || $(i + 1) == "record-energy") && NF - i >= 5 &&
		$(i + 2) != "scale" && $(i + 2) != "nullblk" { $(i + 4) = $(i + 4) "-r" k; print; next }
	$i == "BENCH-META" { print }' "$log" >>"$out/record.log"
	k=$((k + 1))
done
grep -qw REC "$out/record.log" || die "record-boots: no REC lines in $out/record.log"
evpy evaluation.trace2corpus "$out/record.log" "$out"
