#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Per-CPU resume latency through the Rust PM QoS sample module
# (rust_pm_qos_cpu.ko, samples/rust): bad parameters are refused and leave
# nothing loaded; cpu=1 latency_us=0 keeps CPU1 out of the states with an
# exit latency while CPU0 still enters them; 20 load/unload cycles work.
# The module is looked up as cpuidle_lib.sh says (RCPUIDLE_MODDIR).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

MOD=$(cpuidle_module rust_pm_qos_cpu.ko)
NAME=rust_pm_qos_cpu

ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module rust_pm_qos_cpu.ko
ktap_set_plan 5

loaded() { grep -q "^$NAME " /proc/modules; }

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
