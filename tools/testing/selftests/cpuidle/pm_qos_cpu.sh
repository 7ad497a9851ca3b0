#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-CPU resume latency (the use case of "per cpu resume latency",
# linux-pm 2017): a limit on one CPU keeps that CPU out of states with a
# longer exit latency while the other CPUs still enter them.
# - through sysfs: cpu1/power/pm_qos_resume_latency_us = "n/a" (no latency
#   tolerated), N (us), and "0" (no constraint);
# - through the Rust PM QoS sample module (rust_pm_qos_cpu.ko): bad
#   parameters are refused and leave nothing loaded; cpu=1 latency_us=0
#   caps CPU1 only; 20 load/unload cycles work.
# State 0 is every governor's fallback and is not counted.  Set
# RCPUIDLE_MODDIR to where the module is (default /lib/modules).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

MODDIR=${RCPUIDLE_MODDIR:-/lib/modules}
MOD=$MODDIR/rust_pm_qos_cpu.ko
NAME=rust_pm_qos_cpu
SYS=/sys/devices/system/cpu

ktap_print_header
ktap_set_plan 8

loaded() { grep -q "^$NAME " /proc/modules; }

# usage of the states 1.. of CPU $1 with an exit latency above $2 us
# (default 0), summed
deep_usage() {
	sum=0
	for s in "$SYS/cpu$1"/cpuidle/state*; do
		[ -d "$s" ] || continue
		[ "${s##*state}" -gt 0 ] || continue
		[ "$(cat "$s/latency")" -gt "${2:-0}" ] || continue
		[ "$(cat "$s/disable")" = 0 ] || continue
		sum=$((sum + $(cat "$s/usage")))
	done
	echo "$sum"
}

have_states() {
	[ -d "$SYS/cpu1/cpuidle" ] && [ "$(cat "$SYS/cpuidle/current_driver")" != none ] &&
		[ -n "$(ls -d "$SYS"/cpu1/cpuidle/state[1-9]* 2>/dev/null)" ]
}

# sysfs: "n/a", N, "0" on cpu1
Q=$SYS/cpu1/power/pm_qos_resume_latency_us
if ! have_states || [ ! -w "$Q" ]; then
	for t in "n/a" "N us" "0"; do
		ktap_test_skip "sysfs $t: needs cpu1 with states 1.. and $Q"
	done
else
	lats=$(cat "$SYS"/cpu1/cpuidle/state[1-9]*/latency | sort -n)
	deepest=$(echo "$lats" | tail -n 1)
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
		ktap_test_skip "sysfs N: deepest state latency $deepest us"
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

if [ ! -f "$MOD" ]; then
	for t in "cpu=100000" "latency_us=-1" "per-CPU effect" "other CPUs" "20 cycles"; do
		ktap_test_skip "module $t: $MOD not found"
	done
	ktap_finished
fi

if insmod "$MOD" cpu=100000 2>/dev/null || loaded; then
	ktap_test_fail "cpu=100000 accepted"
	rmmod "$NAME" 2>/dev/null
else
	ktap_test_pass "cpu=100000 refused, nothing loaded"
fi

if insmod "$MOD" latency_us=-1 2>/dev/null || loaded; then
	ktap_test_fail "latency_us=-1 accepted"
	rmmod "$NAME" 2>/dev/null
else
	ktap_test_pass "latency_us=-1 refused, nothing loaded"
fi

if ! have_states; then
	ktap_test_skip "per-CPU effect: needs 2 CPUs and a cpuidle driver"
	ktap_test_skip "other CPUs unaffected: needs 2 CPUs and a cpuidle driver"
else
	insmod "$MOD" cpu=1 latency_us=0
	a1=$(deep_usage 1); a0=$(deep_usage 0)
	sleep 2
	b1=$(deep_usage 1); b0=$(deep_usage 0)
	rmmod "$NAME"
	if [ "$b1" -eq "$a1" ]; then
		msg="no entries of states 1.. with exit latency > 0 in 2 s"
		ktap_test_pass "cpu1 capped: $msg ($a1 -> $b1)"
	else
		ktap_test_fail "cpu1 entered deep states under a 0 us limit ($a1 -> $b1)"
	fi
	if [ "$b0" -gt "$a0" ]; then
		ktap_test_pass "cpu0 unaffected: deep-state entries go on ($a0 -> $b0)"
	else
		ktap_test_fail "cpu0 stopped entering deep states ($a0 -> $b0)"
	fi
fi

bad=0
i=0
while [ $i -lt 20 ]; do
	insmod "$MOD" cpu=0 latency_us=$((i * 10)) || bad=$((bad + 1))
	loaded || bad=$((bad + 1))
	rmmod "$NAME" || bad=$((bad + 1))
	loaded && bad=$((bad + 1))
	i=$((i + 1))
done
if [ $bad -eq 0 ]; then
	ktap_test_pass "20 load/unload cycles"
else
	ktap_test_fail "$bad errors in 20 load/unload cycles"
fi
ktap_finished
