#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-kept.sh: the report of the in-guest benchmark logs kept in
# evaluation/recordings (bench-TABLE-COMMIT[-RUN].log.xz: the console logs
# of evaluation/bench-boot.sh runs, COMMIT the commit whose kernel booted),
# per table, the runs of one table pooled (evaluation/bench_report.py LOG
# LOG...: their setups must agree).  Prints, per table, the report's
# verdicts and its per-table section without the plots: what
# Documentation/evaluation/bench-kept.md holds and `make check` compares
# (pipeline/host-tests.sh); python3 -m evaluation docs writes it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rec=$TOP/evaluation/recordings
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
logs=("$rec"/bench-*.log.xz)
[ ${#logs[@]} -gt 0 ] || { echo "bench-kept: no bench-*.log.xz in $rec" >&2; exit 1; }
# the table is the name up to the commit: bench-TABLE-COMMIT[-RUN]
declare -A table_of
for l in "${logs[@]}"; do
	table_of[$l]=$(basename "$l" .log.xz | sed -E 's/^bench-(.*)-[0-9a-f]{7,40}(-[a-z0-9]+)?$/\1/')
done
tables=$(printf '%s\n' "${table_of[@]}" | sort -u)
echo "# In-guest benchmark logs kept in evaluation/recordings"
echo
echo "Made by evaluation/bench-kept.sh (evaluation/bench_report.py of the kept logs)."
for t in $tables; do
	names=()
	for l in "${logs[@]}"; do
		[ "${table_of[$l]}" = "$t" ] || continue
		n=$(basename "$l" .xz)
		xz -dc "$l" >"$tmp/$n"
		names+=("$n")
	done
	# the report of an incomplete run exits 1: a kept log must be complete
	(cd "$tmp" && evpy evaluation.bench_report "out-$t" "${names[@]}" >/dev/null)
	echo
	echo "## $t"
	echo
	# from the pooling note to the end of the table's section, the plots left out
	awk '/^## Per table/ { skip = 1; next } /^### / { skip = 0 }
		/^Pooled from|^Malformed|^Run:/ { keep = 1 }
		keep && !skip && !/^!\[/ { print }' "$tmp/out-$t/report.md" |
		sed -E 's/^(#+) /#\1 /' | cat -s
done
