#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# 20 load/unload cycles of the emulated-state driver, going through every
# table: each load registers the driver with the table's states and idle
# goes on, each unload leaves no driver; an unknown table is refused.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

MOD=${RCPUIDLE_MODDIR:-/lib/modules}/cpuidle-vstates.ko
SYS=/sys/devices/system/cpu
ktap_print_header
if [ ! -f "$MOD" ]; then
	ktap_skip_all "$MOD not found"
	exit "$KSFT_SKIP"
fi
if [ "$(cat $SYS/cpuidle/current_driver)" != none ]; then
	ktap_skip_all "another cpuidle driver is registered"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 3

if insmod "$MOD" table=no-such-table 2>/dev/null || grep -q '^cpuidle_vstates ' /proc/modules; then
	ktap_test_fail "table=no-such-table accepted"
	rmmod cpuidle_vstates 2>/dev/null
else
	ktap_test_pass "table=no-such-table refused, nothing loaded"
fi

set -- x86-like:4 mvebu-xp:3 mvebu-370:2 mvebu-38x:2 pseries-dedicated:2 pseries-xcede:5
bad=
i=0
while [ $i -lt 20 ]; do
	for t in "$@"; do
		[ $i -lt 20 ] || break
		table=${t%:*} n=${t#*:}
		insmod "$MOD" table="$table" || { bad="$bad load:$table"; i=$((i + 1)); continue; }
		got=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
		[ "$(cat $SYS/cpuidle/current_driver)" = vstates ] || bad="$bad driver:$table"
		[ "$got" -eq "$n" ] || bad="$bad states:$table:$got"
		u0=$(cat $SYS/cpu*/cpuidle/state*/usage | awk '{ s += $1 } END { print s + 0 }')
		sleep 0.3
		u1=$(cat $SYS/cpu*/cpuidle/state*/usage | awk '{ s += $1 } END { print s + 0 }')
		[ "$u1" -gt "$u0" ] || bad="$bad idle:$table"
		rmmod cpuidle_vstates || bad="$bad unload:$table"
		[ "$(cat $SYS/cpuidle/current_driver)" = none ] || bad="$bad left:$table"
		i=$((i + 1))
	done
done
if [ -z "$bad" ]; then
	ktap_test_pass "20 load/unload cycles through all tables"
else
	ktap_test_fail "load/unload cycles:$bad"
fi
if [ "$(cat $SYS/cpuidle/current_driver)" = none ] &&
	! grep -q '^cpuidle_vstates ' /proc/modules; then
	ktap_test_pass "no driver left behind"
else
	ktap_test_fail "driver left: $(cat $SYS/cpuidle/current_driver)"
fi
ktap_finished
