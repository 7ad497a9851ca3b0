#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpuidle governor ABI: every available governor can be made current and
# reads back, switching back and forth many times works, and bad writes are
# refused without changing the current governor.  With RCPUIDLE_ARGS or
# $1 naming a governor, that governor must be available.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

CPUIDLE=/sys/devices/system/cpu/cpuidle
want=${1:-${RCPUIDLE_ARGS:-}}

ktap_print_header
require_root
if [ ! -r "$CPUIDLE/current_governor" ]; then
	ktap_skip_all "no cpuidle sysfs (CONFIG_CPU_IDLE=n?)"
	exit "$KSFT_SKIP"
fi
govs=$(cat "$CPUIDLE/available_governors")
n=0
for g in $govs; do n=$((n + 1)); done
ktap_set_plan $((2 * n + 4))

# the idle entries the governors chose, of every state of every CPU: usage
# and rejected (an entry the driver refused or could not complete, such as
# a PSCI power-down state that did not resume through cpu_resume, is a
# choice made all the same)
usage_sum() {
	cat /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/usage \
		/sys/devices/system/cpu/cpu[0-9]*/cpuidle/state*/rejected 2>/dev/null |
		awk '{ s += $1 } END { print s + 0 }'
}
driver=$(cat "$CPUIDLE/current_driver" 2>/dev/null)

orig=$(cat "$CPUIDLE/current_governor")

if [ -z "$want" ] || echo " $govs " | grep -q " $want "; then
	ktap_test_pass "required governor '${want:-none}' is available ($govs)"
else
	ktap_test_fail "governor '$want' missing from available_governors ($govs)"
fi

for g in $govs; do
	if echo "$g" >"$CPUIDLE/current_governor" &&
	   [ "$(cat "$CPUIDLE/current_governor")" = "$g" ]; then
		ktap_test_pass "switch to $g reads back"
	else
		cur=$(cat "$CPUIDLE/current_governor")
		ktap_test_fail "switch to $g: current_governor is $cur"
	fi
	if [ -z "$driver" ] || [ "$driver" = none ]; then
		ktap_test_skip "idle entries under $g: no cpuidle driver"
		continue
	fi
	before=$(usage_sum)
	sleep 1
	after=$(usage_sum)
	if [ "$after" -gt "$before" ]; then
		ktap_test_pass "idle entries under $g on $driver ($before -> $after)"
	else
		ktap_test_fail "no idle entries in 1 s under $g on $driver ($before -> $after)"
	fi
done

# one CPU busy, the others idling, while switching
( while :; do :; done ) &
load=$!
bad=0
i=0
while [ $i -lt 100 ]; do
	for g in $govs; do
		echo "$g" >"$CPUIDLE/current_governor" 2>/dev/null || bad=$((bad + 1))
		read -r cur <"$CPUIDLE/current_governor"
		[ "$cur" = "$g" ] || bad=$((bad + 1))
	done
	i=$((i + 1))
done
kill "$load"
wait "$load" 2>/dev/null
if [ $bad -eq 0 ]; then
	ktap_test_pass "100 rounds of switches through all governors, one CPU loaded"
else
	ktap_test_fail "$bad failed switches in 100 rounds"
fi

echo "$orig" >"$CPUIDLE/current_governor"
rejected=0
# (the kernel takes the first word of a write, so "teo menu" would be "teo")
for junk in "no-such-governor" "" "$(printf 'x%.0s' $(seq 1 40))" "-1"; do
	if echo "$junk" >"$CPUIDLE/current_governor" 2>/dev/null; then
		:
	else
		rejected=$((rejected + 1))
	fi
done
if [ "$(cat "$CPUIDLE/current_governor")" = "$orig" ] && [ $rejected -eq 4 ]; then
	ktap_test_pass "bad governor names refused ($rejected of 4), current unchanged"
else
	cur=$(cat "$CPUIDLE/current_governor")
	ktap_test_fail "bad writes: $rejected refused, current is $cur, was $orig"
fi

idle_before=$(awk '/^cpu /{print $5}' /proc/stat)
sleep 1
idle_after=$(awk '/^cpu /{print $5}' /proc/stat)
if [ "$idle_after" -gt "$idle_before" ]; then
	ktap_test_pass "CPUs still idle after the switches ($idle_before -> $idle_after jiffies)"
else
	ktap_test_fail "no idle time after switching governors"
fi
ktap_finished
