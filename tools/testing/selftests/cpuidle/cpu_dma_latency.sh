#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /dev/cpu_dma_latency: while a limit below the deepest state's exit
# latency is held (binary s32, then a hex string), no CPU enters that state;
# closing the file lifts the limit.  Bad writes are refused.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
DEV=/dev/cpu_dma_latency
ktap_print_header
require_root
drv=$(cat "$SYS/cpuidle/current_driver" 2>/dev/null)
if [ ! -c "$DEV" ] || [ -z "$drv" ] || [ "$drv" = none ]; then
	ktap_skip_all "needs $DEV and a cpuidle driver"
	exit "$KSFT_SKIP"
fi
nstates=$(ls -d "$SYS"/cpu0/cpuidle/state* | wc -l)
deep=state$((nstates - 1))
lat=$(cat "$SYS/cpu0/cpuidle/$deep/latency")
if [ "$lat" -lt 1 ]; then
	ktap_skip_all "deepest state has no exit latency"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4
limit=$((lat - 1))

# the deepest state's entries (usage + rejected: see deep_usage in cpuidle_lib.sh)
usage() {
	cat "$SYS"/cpu[0-9]*/cpuidle/$deep/usage "$SYS"/cpu[0-9]*/cpuidle/$deep/rejected |
		awk '{ s += $1 } END { print s + 0 }'
}

# little-endian s32 as printf octal escapes
le32() {
	v=$1
	# one printf, so that the 4 bytes reach the device in one write()
	f=
	for b in 0 8 16 24; do
		f="$f\\$(printf %o $(((v >> b) & 255)))"
	done
	# shellcheck disable=SC2059 # the format is the escapes themselves
	printf "$f"
}

held() { # MODE: hold a limit of $limit us through fd 3 for 1 s
	exec 3>"$DEV"
	if [ "$1" = binary ]; then le32 "$limit" >&3; else printf '0x%08x' "$limit" >&3; fi
	sleep 0.2
	a=$(usage); sleep 1; b=$(usage)
	exec 3>&-
	if [ "$b" -eq "$a" ]; then
		ktap_test_pass "$1 limit $limit us: $deep (latency $lat us) not entered ($a -> $b)"
	else
		ktap_test_fail "$1 limit $limit us: $deep entered $((b - a)) times"
	fi
}

held binary
held hex

a=$(usage); sleep 2; b=$(usage)
if [ "$b" -gt "$a" ]; then
	ktap_test_pass "limit lifted on close: $deep entered again ($a -> $b)"
else
	ktap_test_fail "after close $deep not entered ($a -> $b)"
fi

# Anything but 4 bytes is parsed as a hex number.
refused=0
for v in "zz" "0x" "0xZZZZZZ" "12 34"; do
	if printf '%s' "$v" >"$DEV" 2>/dev/null; then :; else refused=$((refused + 1)); fi
done
if [ $refused -eq 4 ]; then
	ktap_test_pass "malformed hex strings refused (4 of 4)"
else
	ktap_test_fail "only $refused of 4 malformed hex strings refused"
fi
ktap_finished
