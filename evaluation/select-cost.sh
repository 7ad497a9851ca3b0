#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# select-cost.sh --check [PERIODS]: the same on each of x86-like, mvebu-xp
# and pseries-xcede; fails unless rteo's default mode takes at most
# teo.c's count on every one (the guard of issue 16's select() target;
# the guest's tickcost part, which counts the trampolines too, is its
# judge).
# select-cost.sh [TABLE] [PERIODS]: instructions per select() of teo.c and
# of rteo (parity mode, and the default mode with every rule) on the host,
# for the same stream of idle periods (the parity harness's workloads),
# counted by callgrind inside the select functions only (teo_select with
# the teo_update it inlines; Teo::select with update).  Instruction counts are exact and repeatable, unlike timings on
# a shared 2-core machine.  Also prints the harness's wall-clock medians.
#
# Both sides are built as the kernel builds them, not as a release build
# would: Rust at opt-level=2 with overflow checks, C at -O2, neither with
# vector instructions (the kernel's x86_64 code has no SSE).  A release
# build (opt-level=3, vectorised teo.c and rteo) counts 20 to 70 fewer
# instructions per select and does not predict the kernel.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
export RUSTFLAGS="-Copt-level=2 -Coverflow-checks=on -Cno-vectorize-loops -Cno-vectorize-slp"
export PARITY_CFLAGS="-fno-vectorize -fno-slp-vectorize"
# (its own target directory: other flags, other objects)
export CARGO_TARGET_DIR=$CACHE/cargo-target-kernel-like
if [ "${1:-}" = --check ]; then
	bad=0
	all=
	for t in x86-like mvebu-xp pseries-xcede; do
		out=$("$0" "$t" "${2:-50000}") || exit 1
		echo "$out" | head -n 2
		r=$(echo "$out" | sed -n 's/.*, \([0-9.]*\) (default mode)$/\1/p')
		[ -n "$r" ] || { echo "select-cost: no ratio for $t"; exit 1; }
		awk -v r="$r" 'BEGIN { exit !(r <= 1.0) }' ||
			{ echo "select-cost: $t: rteo's default mode takes $r of teo.c's instructions, more than 1.0"; bad=1; }
		all="$all $t $r"
	done
	echo "select-cost: rteo's default mode / teo.c:$all (at most 1.0: $([ $bad = 0 ] && echo ok || echo FAILED))"
	exit $bad
fi
table=${1:-x86-like}
n=${2:-200000}
command -v valgrind >/dev/null || { echo "select-cost: needs valgrind (apt-get install valgrind)"; exit 1; }
cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-parity/Cargo.toml"
bin=$CARGO_TARGET_DIR/release/cpuidle-parity
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # GOV PATTERN
	valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.out" \
		--toggle-collect="$2" "$bin" --bench "$1" --periods "$n" --table "$table" >/dev/null 2>&1
	callgrind_annotate "$tmp/$1.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
teo=$(count teo 'teo_select')
rteo=$(count rteo '*Teo*select*')
dflt=$(count rteo-default '*Teo*select*')
for v in "$teo" "$rteo" "$dflt"; do
	{ [ -n "$v" ] && [ "$v" -gt 0 ]; } || { echo "select-cost: callgrind counted nothing"; exit 1; }
done
# the stream is replayed 5 times by --bench
per() { echo "$1 $n" | awk '{ printf "%.1f", $1 / ($2 * 5) }'; }
echo "select-cost: $table, $n periods x 5: teo.c $(per "$teo") instructions/select, rteo parity mode $(per "$rteo"), rteo default mode $(per "$dflt")"
echo "select-cost: ratio rteo/teo = $(echo "$rteo $teo" | awk '{ printf "%.3f", $1 / $2 }') (parity mode), $(echo "$dflt $teo" | awk '{ printf "%.3f", $1 / $2 }') (default mode)"
"$bin" --bench both --periods "$n" --table "$table" |
	awk '{ v[$4] = v[$4] " " $6 } END { for (g in v) print "select-cost: wall " g " ns/period (5 rounds, incl. harness):" v[g] }'
