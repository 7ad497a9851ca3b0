#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vstates_suite.sh TABLE [GOVERNOR...]: load cpuidle_vstates with TABLE,
# run the cpuidle kselftests under each governor (default: rteo teo menu,
# those available), report each of their results as one of ours
# ("TABLE/GOVERNOR/test: ..."), check the emulated energy in debugfs, then
# unload the driver.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"
. "$DIR/suite_lib.sh"

set -- ${RCPUIDLE_ARGS:-} "$@"
table=${1:-x86-like}
[ $# -gt 0 ] && shift
govs=${*:-rteo teo menu}
MOD=$(cpuidle_module cpuidle-vstates.ko)
SYS=/sys/devices/system/cpu/cpuidle

ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module cpuidle-vstates.ko
# the emulated tables replace the platform's idle driver: where one is
# registered (a real board), there is nothing to emulate them in
cpuidle_skip_if_driver "needs the emulated tables of cpuidle-vstates"
govs=$(suite_govs $govs)
# load, the suite, parameters, energy, unload
ktap_set_plan $((1 + $(suite_count $govs) + 1 + 1 + 1))
if ! insmod "$MOD" table="$table"; then
	ktap_test_fail "load cpuidle_vstates table=$table"
	ktap_exit_fail_msg "cannot load the driver"
fi
ktap_test_pass "load cpuidle_vstates table=$table (driver $(cat $SYS/current_driver))"
run_suite "$table" $govs
run_one "$table" rteo_params.sh

# emulated energy: it grows, and an idle second with only state 0 enabled
# costs more than one with every state enabled
E=/sys/kernel/debug/cpuidle_vstates/energy
energy() { sed -n 's/.*energy_uj=\([0-9]*\).*/\1/p' "$E" | awk '{ s += $1 } END { print s + 0 }'; }
if [ -r "$E" ]; then
	e0=$(energy); sleep 1; e1=$(energy)
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[1-9]*/disable; do
		echo 1 >"$d"
	done
	sleep 0.2
	e2=$(energy); sleep 1; e3=$(energy)
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[1-9]*/disable; do
		echo 0 >"$d"
	done
	all=$((e1 - e0)) only0=$((e3 - e2))
	if [ "$e1" -gt "$e0" ] && [ "$only0" -gt "$all" ]; then
		msg="$all uJ with all states, $only0 uJ with state 0 only"
		ktap_test_pass "$table: emulated energy of an idle second: $msg"
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
ktap_finished
