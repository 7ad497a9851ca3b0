#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-all.sh ARCH...: host tests, the patch-series check, then every
# arch; prints a total "N passed, N failed, N skipped" and fails if any part did.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fail=0 p=0 f=0 s=0
tally() { # add the counts of a "..: N passed, N failed, N skipped" line
	local l
	l=$(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -n1)
	[ -n "$l" ] || return 0
	p=$((p + $(echo "$l" | sed -E 's/.* ([0-9]+) passed.*/\1/')))
	f=$((f + $(echo "$l" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
	s=$((s + $(echo "$l" | sed -E 's/.* ([0-9]+) skipped.*/\1/')))
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

echo "== host tests =="
"$TOP/scripts/host-tests.sh" 2>&1 | tee "$out"
[ "${PIPESTATUS[0]}" = 0 ] || fail=1
tally "$out"
for arch in "$@"; do
	echo "== $arch =="
	if [ "$arch" = x86_64 ]; then
		"$TOP/scripts/patches.sh" verify || fail=1
	fi
	"$TOP/scripts/check.sh" "$arch" 2>&1 | tee "$out"
	[ "${PIPESTATUS[0]}" = 0 ] || { fail=1; grep -q ' failed, ' "$out" || f=$((f + 1)); }
	tally "$out"
done
echo "== total =="
echo "$p passed, $f failed, $s skipped"
[ $fail = 0 ] && [ $f = 0 ]
