#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-CPU resume latency through the Rust PM QoS sample module
# (rust_pm_qos_cpu.ko): bad parameters are refused and leave nothing
# loaded; while loaded with cpu=N latency_us=0, CPU N enters no state with
# a non-zero exit latency while another CPU still does; 20 load/unload
# cycles work.  Set RCPUIDLE_MODDIR to where the module is (default
# /lib/modules).

DIR=$(dirname "$0")
. "$DIR/ktap_helpers.sh"

MODDIR=${RCPUIDLE_MODDIR:-/lib/modules}
MOD=$MODDIR/rust_pm_qos_cpu.ko
NAME=rust_pm_qos_cpu
SYS=/sys/devices/system/cpu

ktap_print_header
if [ ! -f "$MOD" ]; then
	ktap_skip_all "$MOD not found"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 5

loaded() { grep -q "^$NAME " /proc/modules; }

# usage of the states of CPU $1 with a non-zero exit latency, summed;
# state 0 is left out: it is every governor's fallback whatever the limit
deep_usage() {
	sum=0
	for s in "$SYS/cpu$1"/cpuidle/state*; do
		[ -d "$s" ] || continue
		[ "${s##*state}" -gt 0 ] || continue
		[ "$(cat "$s/latency")" -gt 0 ] || continue
		[ "$(cat "$s/disable")" = 0 ] || continue
		sum=$((sum + $(cat "$s/usage")))
	done
	echo "$sum"
}

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

ncpu=$(ls -d "$SYS"/cpu[0-9]* | wc -l)
if [ "$ncpu" -lt 2 ] || [ ! -d "$SYS/cpu1/cpuidle" ] ||
   [ "$(cat "$SYS/cpuidle/current_driver")" = none ]; then
	ktap_test_skip "per-CPU effect: needs 2 CPUs and a cpuidle driver"
	ktap_test_skip "other CPUs unaffected: needs 2 CPUs and a cpuidle driver"
else
	insmod "$MOD" cpu=1 latency_us=0
	a1=$(deep_usage 1); a0=$(deep_usage 0)
	sleep 2
	b1=$(deep_usage 1); b0=$(deep_usage 0)
	rmmod "$NAME"
	if [ "$b1" -eq "$a1" ]; then
		ktap_test_pass "cpu1 capped: no entries of states 1.. with exit latency > 0 in 2 s ($a1 -> $b1)"
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
