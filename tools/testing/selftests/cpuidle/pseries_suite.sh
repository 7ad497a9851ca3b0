#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pseries_suite.sh [xcede|plain|auto] [GOVERNOR...]: load the Rust pseries
# driver (cpuidle-pseries-rs.ko), check the state table it registers, run
# the cpuidle kselftests against it under each governor (default: rteo teo
# menu), check that the XCEDE states are entered, then unload it.
#
# xcede: the dedicated-processor table (test-only lpar=dedicated; QEMU
# always reports a shared-processor LPAR) with three cede latency records
# injected through the test-only xcede_payload= parameter (hints 1..3
# waking in 2, 20 and 100 us at the 512 MHz timebase): snooze, CEDE 2/20
# us, XCEDE1 12/120, XCEDE2 30/300, XCEDE3 110/1100, the XCEDE states
# stopping the timer.
# plain: the dedicated-processor table without a payload; where firmware
# has no cede latency settings (QEMU) that is snooze and CEDE 10/100 us, as
# upstream.
# auto: no parameters: whatever the machine is (QEMU: snooze and Shared
# Cede 10/100 us); on firmware with settings only the shape is checked.
# xcede and plain need CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"
. "$DIR/suite_lib.sh"

set -- ${RCPUIDLE_ARGS:-} "$@"
mode=${1:-xcede}
[ $# -gt 0 ] && shift
govs=${*:-rteo teo menu}
MOD=$(cpuidle_module cpuidle-pseries-rs.ko)
NAME=cpuidle_pseries_rs
SYS=/sys/devices/system/cpu
DBG=/sys/kernel/debug/cpuidle_pseries/states
# payload size 32, record size 10, three records, NUL
THREE=002009010000000000000400010200000000000028000103000000000000c8000100

case "$mode" in
xcede) args="lpar=dedicated xcede_payload=$THREE"
       want="snooze:0:0 CEDE:2:20 XCEDE1:12:120 XCEDE2:30:300 XCEDE3:110:1100" ;;
plain) args="lpar=dedicated"
       want="snooze:0:0 CEDE:10:100" ;;
auto)  args=
       want= ;;
*)     echo "usage: $0 [xcede|plain|auto] [GOVERNOR...]" >&2; exit "$KSFT_FAIL" ;;
esac

ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module cpuidle-pseries-rs.ko
# a board's user who loaded the driver (the kit's README) lends it to the
# test, which loads it again at the end
cpuidle_borrow $NAME
# shellcheck disable=SC2119  # (no reason prefix)
cpuidle_skip_if_driver
if ! insmod "$MOD" $args; then
	if [ -n "$args" ] && insmod "$MOD" 2>/dev/null; then
		rmmod $NAME
		ktap_skip_all "$args refused: needs CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD"
		exit "$KSFT_SKIP"
	fi
	ktap_set_plan 1
	ktap_test_fail "load $NAME $mode"
	ktap_finished
fi
govs=$(suite_govs $govs)
# load, table, flags, governor ABI, the suite, parameters, XCEDE entries
# under rteo and teo, unload
ktap_set_plan $((4 + $(suite_count $govs) + 1 + $([ "$mode" = xcede ] && echo 2 || echo 0) + 1))
ktap_test_pass "load $NAME $mode (driver $(cat $SYS/cpuidle/current_driver))"

# the table, on every CPU
table() {
	for s in "$1"/cpuidle/state[0-9]*; do
		printf '%s:%s:%s ' "$(cat "$s/name")" "$(cat "$s/latency")" "$(cat "$s/residency")"
	done
}
settings=$(sed -n 's/^settings: //p' "$DBG" 2>/dev/null)
if [ -z "$want" ] || { [ "$mode" = plain ] && [ "$settings" != none ]; }; then
	# real firmware: its own numbers; check the shape only
	got=$(table $SYS/cpu0)
	case "$got" in
	"snooze:0:0 CEDE:"*|"snooze:0:0 Shared Cede:"*)
		ktap_test_pass "$mode: table $got(settings: $settings)" ;;
	*) ktap_test_fail "$mode: table $got(settings: $settings)" ;;
	esac
else
	bad=
	for c in $SYS/cpu[0-9]*; do
		[ -d "$c/cpuidle" ] || continue
		got=$(table "$c")
		[ "$got" = "$want " ] || bad="$bad $(basename "$c"):[$got]"
	done
	if [ -z "$bad" ]; then
		ktap_test_pass "$mode: every CPU has $want"
	else
		ktap_test_fail "$mode: want $want, got$bad"
	fi
fi

# flags, from the driver's debugfs table
if [ -r "$DBG" ]; then
	fbad=
	while read -r st name rest; do
		case "$st" in state*) ;; *) continue ;; esac
		case "$name" in
		snooze) echo "$rest" | grep -q ' polling' || fbad="$fbad $name:no-polling" ;;
		XCEDE*) echo "$rest" | grep -q ' timer_stop' || fbad="$fbad $name:no-timer_stop" ;;
		*) echo "$rest" | grep -Eq 'timer_stop|polling' && fbad="$fbad $name:flags" ;;
		esac
	done <"$DBG"
	if [ -z "$fbad" ]; then
		msg="snooze polls, XCEDE states stop the timer, CEDE neither"
		ktap_test_pass "$mode: flags: $msg"
	else
		ktap_test_fail "$mode: flags:$fbad"
	fi
else
	ktap_test_skip "$mode: no $DBG (debugfs not mounted)"
fi

run_one "pseries-$mode" cpuidle_governor.sh
run_suite "pseries-$mode" $govs
run_one "pseries-$mode" rteo_params.sh

# XCEDE states are entered under each governor
xusage() {
	for s in $SYS/cpu[0-9]*/cpuidle/state[0-9]*; do
		case "$(cat "$s/name")" in XCEDE*) cat "$s/usage" ;; esac
	done | awk '{ s += $1 } END { print s + 0 }'
}
if [ "$mode" = xcede ]; then
	orig=$(cat $SYS/cpuidle/current_governor)
	for g in rteo teo; do
		if ! echo " $(cat $SYS/cpuidle/available_governors) " | grep -q " $g "; then
			ktap_test_skip "$mode/$g: governor not available"
			continue
		fi
		echo "$g" >$SYS/cpuidle/current_governor
		u0=$(xusage)
		sleep 1
		u1=$(xusage)
		if [ "$u1" -gt "$u0" ]; then
			ktap_test_pass "$mode/$g: XCEDE usage grows while idle ($u0 -> $u1)"
		else
			ktap_test_fail "$mode/$g: XCEDE usage stuck at $u0"
		fi
	done
	echo "$orig" >$SYS/cpuidle/current_governor
fi

if rmmod $NAME && [ "$(cat $SYS/cpuidle/current_driver)" = none ]; then
	ktap_test_pass "unload $NAME"
else
	ktap_test_fail "unload $NAME (driver $(cat $SYS/cpuidle/current_driver))"
fi
ktap_finished
