#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-CPU resume latency (the use case of "per cpu resume latency",
# linux-pm 2017): a limit on one CPU keeps that CPU out of states with a
# longer exit latency while the other CPUs still enter them, through
# sysfs: cpu1/power/pm_qos_resume_latency_us = "n/a" (no latency
# tolerated), N (us), and "0" (no constraint).  State 0 is every
# governor's fallback and is not counted.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu

ktap_print_header
require_root
if ! have_states; then
	ktap_skip_all "needs a cpuidle driver with states 1.. on CPU1" \
		"(current_driver: $(cat $CPUIDLE_SYS/current_driver))"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 3

# sysfs: "n/a", N, "0" on cpu1
Q=$SYS/cpu1/power/pm_qos_resume_latency_us
if [ ! -w "$Q" ]; then
	for t in "n/a" "N us" "0"; do
		ktap_test_skip "sysfs $t: no writable $Q"
	done
else
	# (the lower of the two CPUs' deepest latencies: their tables may
	# differ, and cpu0 must have a state over the limit to show it is
	# not held)
	d1=$(cat "$SYS"/cpu1/cpuidle/state[1-9]*/latency | sort -n | tail -n 1)
	d0=$(cat "$SYS"/cpu0/cpuidle/state[1-9]*/latency | sort -n | tail -n 1)
	deepest=$d1
	[ "$d0" -ge "$d1" ] || deepest=$d0
	check_cap() { # VALUE LIMIT DESC
		echo "$1" >"$Q"
		sleep 0.2
		a1=$(deep_usage 1 "$2"); a0=$(deep_usage 0 "$2")
		sleep 2
		b1=$(deep_usage 1 "$2"); b0=$(deep_usage 0 "$2")
		if [ "$b1" -eq "$a1" ] && [ "$b0" -gt "$a0" ]; then
			msg="cpu1 avoids states over $2 us ($a1 -> $b1)"
			ktap_test_pass "sysfs $3: $msg, cpu0 does not ($a0 -> $b0)"
		else
			msg="cpu1 $a1 -> $b1, cpu0 $a0 -> $b0"
			ktap_test_fail "sysfs $3: $msg (states over $2 us)"
		fi
	}
	check_cap "n/a" 0 '"n/a"'
	if [ "$deepest" -gt 1 ]; then
		check_cap $((deepest - 1)) $((deepest - 1)) "$((deepest - 1))"
	else
		ktap_test_skip "sysfs N: deepest state latency $deepest us (cpu0's or cpu1's)"
	fi
	echo 0 >"$Q"
	sleep 0.2
	a1=$(deep_usage 1); sleep 2; b1=$(deep_usage 1)
	if [ "$(cat "$Q")" = 0 ] && [ "$b1" -gt "$a1" ]; then
		msg="no constraint, cpu1 enters states 1.. again ($a1 -> $b1)"
		ktap_test_pass "sysfs \"0\": $msg"
	else
		ktap_test_fail "sysfs \"0\": reads $(cat "$Q"), cpu1 $a1 -> $b1"
	fi
fi
ktap_finished
