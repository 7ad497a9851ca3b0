#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Rust pseries driver (cpuidle-pseries-rs.ko) against bad input and
# repeated loading: bad parameters (a payload that is not hex or has an
# odd length, an unknown lpar=) are refused and nothing is loaded;
# malformed cede latency settings (wrong record size, a truncated record,
# a payload size beyond the buffer, 17 records) are reported and leave
# snooze + CEDE, with CEDE's latency fixed up as cpuidle-pseries.c does
# (from the whole records it reads, none for a wrong record size), and so
# does a record whose latency is too large for an extended CEDE state;
# 20 load/unload cycles alternating the machine's own table and the
# injected one keep idling and leave nothing behind.  The payload tests
# need CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

MOD=$(cpuidle_module cpuidle-pseries-rs.ko)
NAME=cpuidle_pseries_rs
SYS=/sys/devices/system/cpu
THREE=002009010000000000000400010200000000000028000103000000000000c8000100

ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module cpuidle-pseries-rs.ko
# a board's user who loaded the driver (the kit's README) lends it to the
# test, which loads it again at the end
cpuidle_borrow $NAME
# shellcheck disable=SC2119  # (no reason prefix)
cpuidle_skip_if_driver
ktap_set_plan 6

loaded() { grep -q "^$NAME " /proc/modules; }
nstates() { ls -d $SYS/cpu0/cpuidle/state[0-9]* 2>/dev/null | wc -l; }
usage() { cat $SYS/cpu*/cpuidle/state*/usage | awk '{ s += $1 } END { print s + 0 }'; }
# state 1 (CEDE) as latency:residency on every CPU, or the first that differs
cede() {
	c0=$(cat $SYS/cpu0/cpuidle/state1/latency):$(cat $SYS/cpu0/cpuidle/state1/residency)
	for c in $SYS/cpu[0-9]*/cpuidle/state1; do
		got=$(cat "$c/latency"):$(cat "$c/residency")
		[ "$got" = "$c0" ] || { echo "$got"; return; }
	done
	echo "$c0"
}

bad=
for a in xcede_payload=zz00 xcede_payload=123 lpar=bogus; do
	if insmod "$MOD" lpar=dedicated $a 2>/dev/null || loaded; then
		bad="$bad $a"
		rmmod $NAME 2>/dev/null
	fi
done
if [ -z "$bad" ]; then
	ktap_test_pass "bad parameters refused (not hex, odd length, unknown lpar), nothing loaded"
else
	ktap_test_fail "bad parameters accepted:$bad"
fi

inject=1
if insmod "$MOD" lpar=dedicated xcede_payload=$THREE 2>/dev/null; then
	rmmod $NAME
else
	inject=
fi

if [ -z "$inject" ]; then
	ktap_test_skip "payload injection not enabled (CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD)"
	ktap_test_skip "payload injection not enabled (CONFIG_PSERIES_CPUIDLE_RUST_TEST_PAYLOAD)"
else
	# PAYLOAD:CEDE latency:residency: record size 11 (no fix-up, as C);
	# the second record cut short, a payload size beyond the buffer, 17
	# records (every one 2 us; fixed up from the whole records)
	bad=
	# the payload of 17 records, four to a line
	p17=00ac0901
	p17=${p17}00000000000004000101000000000000040001010000000000000400010100000000000004000101
	p17=${p17}00000000000004000101000000000000040001010000000000000400010100000000000004000101
	p17=${p17}00000000000004000101000000000000040001010000000000000400010100000000000004000101
	p17=${p17}00000000000004000101000000000000040001010000000000000400010100000000000004000101
	p17=${p17}00000000000004000100
	for c in \
		00200a010000000000000400010200000000000028000103000000000000c8000100:10:100 \
		000f090100000000000004000102000000:2:20 \
		2000090100000000000004000100:2:20 \
		"$p17:2:20"; do
		p=${c%%:*} want=${c#*:}
		dmesg -c >/dev/null 2>&1
		if ! insmod "$MOD" lpar=dedicated xcede_payload="$p"; then
			bad="$bad load:$p"
			continue
		fi
		n=$(nstates)
		[ "$n" -eq 2 ] || bad="$bad states:$n:$p"
		got=$(cede)
		[ "$got" = "$want" ] || bad="$bad cede:$got(want $want):$p"
		dmesg | grep -q "malformed cede latency settings" || bad="$bad no-error:$p"
		rmmod $NAME || bad="$bad unload:$p"
	done
	if [ -z "$bad" ]; then
		ktap_test_pass "malformed settings reported, snooze + CEDE, CEDE fixed up as C does"
	else
		ktap_test_fail "malformed settings:$bad"
	fi

	# one record waking in 500 s (256e9 ticks): beyond an extended CEDE
	# state's range (no state), below C's UINT_MAX us: CEDE takes it,
	# its residency saturated where C's would wrap
	bad=
	p=000c09010000003b9aca00000100
	dmesg -c >/dev/null 2>&1
	if insmod "$MOD" lpar=dedicated xcede_payload="$p"; then
		n=$(nstates)
		[ "$n" -eq 2 ] || bad="$bad states:$n"
		got=$(cede)
		[ "$got" = 500000000:4294967295 ] || bad="$bad cede:$got"
		dmesg | grep -q "hint 1): wake-up latency out of range" || bad="$bad no-warning"
		rmmod $NAME || bad="$bad unload"
	else
		bad="$bad load"
	fi
	if [ -z "$bad" ]; then
		ktap_test_pass "an out-of-range latency gives no state but fixes CEDE up as C does"
	else
		ktap_test_fail "out-of-range latency:$bad"
	fi
fi

bad=
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	if [ -n "$inject" ] && [ $((i % 2)) -eq 0 ]; then
		args="lpar=dedicated xcede_payload=$THREE" n=5
	else
		args='' n=''
	fi
	insmod "$MOD" $args || { bad="$bad load:$i"; continue; }
	[ "$(cat $SYS/cpuidle/current_driver)" = pseries_idle ] || bad="$bad driver:$i"
	[ -z "$n" ] || [ "$(nstates)" -eq "$n" ] || bad="$bad states:$i:$(nstates)"
	u0=$(usage)
	sleep 0.3
	[ "$(usage)" -gt "$u0" ] || bad="$bad idle:$i"
	rmmod $NAME || bad="$bad unload:$i"
	[ "$(cat $SYS/cpuidle/current_driver)" = none ] || bad="$bad left:$i"
done
if [ -z "$bad" ]; then
	ktap_test_pass "20 load/unload cycles${inject:+ alternating plain and injected tables}"
else
	ktap_test_fail "load/unload cycles:$bad"
fi

if loaded || [ -d /sys/kernel/debug/cpuidle_pseries ]; then
	ktap_test_fail "module or debugfs directory left behind"
else
	ktap_test_pass "nothing left behind"
fi
if grep -q "pseries_rs" $SYS/hotplug/states 2>/dev/null; then
	ktap_test_fail "CPU hotplug states left behind"
else
	ktap_test_pass "CPU hotplug states removed"
fi
ktap_finished
