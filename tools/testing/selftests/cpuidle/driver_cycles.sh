#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# 20 load/unload cycles of the emulated-state driver, going through every
# table: each load registers the driver with the table's states and idle
# goes on, each unload leaves no driver; an unknown table and a time scale
# out of range are refused; scale=N multiplies the table's latencies.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

MOD=$(cpuidle_module cpuidle-vstates.ko)
SYS=/sys/devices/system/cpu
ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module cpuidle-vstates.ko
cpuidle_skip_if_driver "needs the emulated tables of cpuidle-vstates"
ktap_set_plan 5

if insmod "$MOD" table=no-such-table 2>/dev/null || grep -q '^cpuidle_vstates ' /proc/modules; then
	ktap_test_fail "table=no-such-table accepted"
	rmmod cpuidle_vstates 2>/dev/null
else
	ktap_test_pass "table=no-such-table refused, nothing loaded"
fi

for sc in 0 1001; do
	insmod "$MOD" scale=$sc 2>/dev/null
done
if grep -q '^cpuidle_vstates ' /proc/modules; then
	ktap_test_fail "scale=0 or scale=1001 accepted"
	rmmod cpuidle_vstates 2>/dev/null
else
	ktap_test_pass "scale=0 and scale=1001 refused, nothing loaded"
fi

# x86-like C6: 133 us exit latency, 600 us target residency
if insmod "$MOD" table=x86-like scale=20; then
	d=$SYS/cpu0/cpuidle/state3
	got="$(cat $d/latency) $(cat $d/residency)"
	rmmod cpuidle_vstates
	if [ "$got" = "2660 12000" ]; then
		ktap_test_pass "scale=20: C6 latency and residency 2660 12000 us"
	else
		ktap_test_fail "scale=20: C6 latency and residency $got, not 2660 12000"
	fi
else
	ktap_test_fail "scale=20 refused"
fi

set -- x86-like:4 mvebu-xp:3 mvebu-370:2 mvebu-38x:2 pseries-dedicated:2 pseries-xcede:5 \
	mvebu-xp-2014:3 msm8916:2
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
