#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# verdict.sh LOG [ARCH] (make verdict LOG=.. [ARCH=..] [LIST=..]): the
# fail-closed verdict of verdict/ktap.py on what a board gives back, the
# output of the kit's `run_kselftest.sh -c cpuidle` or a console log that
# holds it.  The tests that must report are those of the kit's tarball
# (out/kit/ARCH/kselftest-cpuidle.tar.gz, its kselftest-list.txt; without
# ARCH, the one tarball of out/kit/*/), or those of LIST (a file in
# kselftest-list.txt's form, COLLECTION:TEST a line) for a run of fewer.
# Prints one line per suite and "ARCH: N passed, N failed, N skipped";
# fails if the run is red.
set -euo pipefail
. "$(dirname "$0")/../evaluation/lib.sh"
die() { echo "verdict: error: $*" >&2; exit 2; }

log=${1:-}
arch=${2:-}
[ -n "$log" ] || die "usage: make verdict LOG=FILE [ARCH=x86_64|armv7|ppc64le|arm64] [LIST=FILE]"
[ -f "$log" ] || die "no log $log"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${LIST:-}" ]; then
	[ -f "$LIST" ] || die "no list $LIST"
	list=$LIST
	echo "verdict: the tests of $LIST must report"
else
	if [ -n "$arch" ]; then
		case "$arch" in
		x86_64 | armv7 | ppc64le | arm64) ;;
		*) die "unknown ARCH '$arch' (x86_64, armv7, ppc64le or arm64)" ;;
		esac
		tarball=$TOP/out/kit/$arch/kselftest-cpuidle.tar.gz
		[ -f "$tarball" ] || die "no kit for $arch: run make kit ARCH=$arch first"
	else
		tarballs=$(ls "$TOP"/out/kit/*/kselftest-cpuidle.tar.gz 2>/dev/null || true)
		[ -n "$tarballs" ] || die "no kit: run make kit ARCH=... first (or give LIST=)"
		# the tarball is the same for every arch (shell tests only); more
		# than one must then list the same tests
		for t in $tarballs; do
			tar -xOzf "$t" ./kselftest-list.txt >"$work/l"
			[ -z "${first:-}" ] || cmp -s "$work/l" "$work/list" ||
				die "the kits' tarballs list different tests ($first, $t): give ARCH="
			first=${first:-$t}
			mv "$work/l" "$work/list"
		done
		tarball=$first
	fi
	tar -xOzf "$tarball" ./kselftest-list.txt >"$work/list" ||
		die "$tarball has no kselftest-list.txt"
	list=$work/list
	echo "verdict: the tests of ${tarball#"$TOP"/} (kselftest-list.txt) must report"
fi
exec python3 "$TOP/verdict/ktap.py" "$log" --arch "${arch:-board}" --runner-list "$list" \
	--kunit-dir "$KUNIT_DIR"
