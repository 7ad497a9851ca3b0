#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vstates_suite.sh TABLE [GOVERNOR...]: load cpuidle_vstates with TABLE,
# run the cpuidle kselftests under each governor (default: rteo teo menu,
# those available), report each of their results as one of ours
# ("TABLE/GOVERNOR/test: ..."), check the emulated energy in debugfs, then
# unload the driver.

DIR=$(dirname "$0")
. "$DIR/ktap_helpers.sh"

set -- ${RCPUIDLE_ARGS:-} "$@"
table=${1:-x86-like}
[ $# -gt 0 ] && shift
govs=${*:-rteo teo menu}
MOD=${RCPUIDLE_MODDIR:-/lib/modules}/cpuidle-vstates.ko
SYS=/sys/devices/system/cpu/cpuidle

ktap_print_header
if [ ! -f "$MOD" ]; then
	ktap_skip_all "$MOD not found"
	exit "$KSFT_SKIP"
fi
if ! insmod "$MOD" table="$table"; then
	echo "not ok 1 load cpuidle_vstates table=$table"
	echo "1..1"
	exit "$KSFT_FAIL"
fi
ktap_test_pass "load cpuidle_vstates table=$table (driver $(cat $SYS/current_driver))"
orig=$(cat $SYS/current_governor)
for g in $govs; do
	echo " $(cat $SYS/available_governors) " | grep -q " $g " || continue
	echo "$g" >$SYS/current_governor
	for t in cpuidle_sysfs.sh cpu_dma_latency.sh pm_qos_cpu.sh; do
		out=$(sh "$DIR/$t" 2>&1)
		echo "$out" | sed -nE 's/^(ok|not ok) [0-9]+ (.*)$/\1|\2/p' |
		while IFS='|' read -r res desc; do
			echo "$res $table/$g/$t: $desc"
		done >"/tmp/vstates.$$"
		while read -r line; do
			case "$line" in
			"not ok "*) ktap_test_fail "${line#not ok }" ;;
			*"# SKIP"*) d=${line#ok }; ktap_test_skip "${d%% # SKIP*}" ;;
			*) ktap_test_pass "${line#ok }" ;;
			esac
		done <"/tmp/vstates.$$"
		rm -f "/tmp/vstates.$$"
		if echo "$out" | grep -q '^1\.\.0 # SKIP'; then
			ktap_test_skip "$table/$g/$t: $(echo "$out" | sed -n 's/^1\.\.0 # SKIP //p')"
		fi
	done
done
echo "$orig" >$SYS/current_governor

# emulated energy: it grows, and an idle second with only state 0 enabled
# costs more than one with every state enabled
E=/sys/kernel/debug/cpuidle_vstates/energy
energy() { sed -n 's/.*energy_uj=\([0-9]*\).*/\1/p' "$E" | awk '{ s += $1 } END { print s + 0 }'; }
if [ -r "$E" ]; then
	e0=$(energy); sleep 1; e1=$(energy)
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[1-9]*/disable; do echo 1 >"$d"; done
	sleep 0.2
	e2=$(energy); sleep 1; e3=$(energy)
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[1-9]*/disable; do echo 0 >"$d"; done
	all=$((e1 - e0)) only0=$((e3 - e2))
	if [ "$e1" -gt "$e0" ] && [ "$only0" -gt "$all" ]; then
		ktap_test_pass "$table: emulated energy of an idle second: $all uJ with all states, $only0 uJ with state 0 only"
	else
		ktap_test_fail "$table: energy $e0 -> $e1 (all states), $e2 -> $e3 (state 0 only)"
	fi
else
	ktap_test_fail "$table: no $E"
fi

if rmmod cpuidle_vstates; then
	ktap_test_pass "unload cpuidle_vstates"
else
	ktap_test_fail "unload cpuidle_vstates"
fi
ktap_set_plan $((KTAP_TESTNO - 1))
ktap_finished
