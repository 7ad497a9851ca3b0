#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel command line's cpuidle.governor= took effect: the named
# governor is current at boot (rteo registers from a device initcall, after
# the C governors, and the core switches to the named governor when it
# registers).  Run it before any other test switches the governor.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

CPUIDLE=/sys/devices/system/cpu/cpuidle
gov=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^cpuidle.governor=//p' | tail -n 1)

ktap_print_header
if [ -z "$gov" ]; then
	ktap_skip_all "no cpuidle.governor= on the kernel command line"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 1
cur=$(cat $CPUIDLE/current_governor 2>/dev/null)
if [ "$cur" = "$gov" ]; then
	ktap_test_pass "cpuidle.governor=$gov: current governor at boot is $cur"
else
	ktap_test_fail "cpuidle.governor=$gov: current governor at boot is $cur"
fi
ktap_finished
