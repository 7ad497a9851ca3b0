#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rteo's rules: debugfs rteo/rules (the rules of rteo's own in force, bit
# n-1 for rule n; 0, teo's decisions, unless rteo.rules= was given at
# boot) refuses what is not a mask of rules, and rule 2 without rule 1,
# each with a message, and keeps its value; a valid mask is taken when
# rteo is enabled again and the CPUs go on idling.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu/cpuidle
R=/sys/kernel/debug/rteo/rules
ktap_print_header
require_root
if [ ! -w "$R" ]; then
	ktap_skip_all "no $R (rteo not built in, or debugfs not mounted)"
	exit "$KSFT_SKIP"
fi
if [ "$(cat $SYS/current_driver)" = none ]; then
	ktap_skip_all "no cpuidle driver"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 5
orig=$(cat $SYS/current_governor)
orig_rules=$(cat $R)
usage() {
	cat /sys/devices/system/cpu/cpu*/cpuidle/state*/usage | awk '{ s += $1 } END { print s }'
}
reenable() { echo menu >$SYS/current_governor; echo rteo >$SYS/current_governor; }

boot=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^rteo\.rules=//p')
if [ -n "$boot" ] || [ "$orig_rules" = 0x0 ]; then
	ktap_test_pass "rules: $orig_rules at boot (teo's decisions unless rteo.rules= is given)"
else
	ktap_test_fail "rules: $orig_rules at boot without rteo.rules="
fi

echo 0 >$R
bad=0
for v in 0x8 0x80000000 2147483648 -1 abc "" 0x2 0x6; do
	if echo "$v" >$R 2>/dev/null; then bad=$((bad + 1)); fi
done
if [ $bad -eq 0 ] && [ "$(cat $R)" = 0x0 ]; then
	ktap_test_pass "rules: 8 bad values refused, still 0x0"
else
	ktap_test_fail "rules: $bad bad values taken, now $(cat $R)"
fi

if dmesg | grep -q "rteo: rules=0x80000000: the rules are bits 0x7$"; then
	ktap_test_pass "rules: the refusal says which bits are rules"
else
	ktap_test_fail "rules: no message for 0x80000000"
fi

if dmesg | grep -q "rteo: rules=0x2: rule 2 needs rule 1, put both in force$"; then
	ktap_test_pass "rules: the refusal of 0x2 says rule 2 needs rule 1"
else
	ktap_test_fail "rules: no message for 0x2"
fi

ok=1
for v in 0x1 0x3 0x4 0x5 0x7 0; do
	if ! echo "$v" >$R; then
		ok=0
		break
	fi
	reenable
	u0=$(usage)
	sleep 0.5
	u1=$(usage)
	[ "$(cat $R)" = "$(printf '0x%x' "$v")" ] && [ "$u1" -gt "$u0" ] || ok=0
done
if [ $ok -eq 1 ]; then
	ktap_test_pass "rules: 0x1, 0x3, 0x4, 0x5, 0x7 and 0 taken, CPUs idle under each"
else
	ktap_test_fail "rules: a valid mask refused or no idle entries"
fi
echo "$orig_rules" >$R
echo "$orig" >$SYS/current_governor
ktap_finished
