#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel command line's cpuidle.governor= and rteo.record=1 took
# effect: the named governor is current, and rteo recorded from boot (the
# recorder's rings are allocated once the allocator is up).  Run it before
# any other test switches the governor.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

CPUIDLE=/sys/devices/system/cpu/cpuidle
REC=/sys/module/rteo/parameters/record
TRACE=/sys/kernel/debug/rteo/trace
arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p" | tail -n 1; }
gov=$(arg cpuidle.governor)
rec=$(arg rteo.record)

ktap_print_header
if [ -z "$gov" ] && [ -z "$rec" ]; then
	ktap_skip_all "neither cpuidle.governor= nor rteo.record= on the kernel command line"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 3
cur=$(cat $CPUIDLE/current_governor 2>/dev/null)
if [ -z "$gov" ]; then
	ktap_test_skip "no cpuidle.governor= on the command line"
elif [ "$cur" = "$gov" ]; then
	ktap_test_pass "cpuidle.governor=$gov: current governor at boot is $cur"
else
	ktap_test_fail "cpuidle.governor=$gov: current governor at boot is $cur"
fi
case "$rec" in
"")
	ktap_test_skip "no rteo.record= on the command line"
	ktap_test_skip "no rteo.record= on the command line" ;;
1|y|Y)
	if [ "$(cat $REC)" = Y ]; then
		ktap_test_pass "rteo.record=$rec: recording since boot"
	else
		ktap_test_fail "rteo.record=$rec: record reads $(cat $REC)"
	fi
	# stop, then the trace is readable (header, and records if rteo ran
	# with a driver)
	if echo 0 >$REC && head -n 1 $TRACE | grep -q '^# cpu t_ns' &&
	   ! tail -n +2 $TRACE | grep -qvE '^[0-9]+( -?[0-9]+){11}$'; then
		n=$(($(wc -l <$TRACE) - 1))
		ktap_test_pass "recording stopped, trace well-formed ($n records)"
	else
		ktap_test_fail "trace after stopping: $(head -n 2 $TRACE | tr '\n' '|')"
	fi ;;
*)
	if [ "$(cat $REC)" = N ]; then
		ktap_test_pass "rteo.record=$rec: not recording"
	else
		ktap_test_fail "rteo.record=$rec: record reads $(cat $REC)"
	fi
	ktap_test_skip "not recording: no trace to check" ;;
esac
ktap_finished
