#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rteo's parameters: rteo.rules_off (rules of the default mode switched off,
# bit n-1 for rule n) refuses what is not a mask of rules, and rule 2 left on
# without rule 1, each with a message, and keeps its value; a valid mask is
# taken when rteo is enabled again and the CPUs go on idling; rteo.parity
# takes 1 and 0, reads back as Y and N, and refuses what is not a boolean.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

SYS=/sys/devices/system/cpu/cpuidle
P=/sys/module/rteo/parameters
ktap_print_header
if [ ! -w "$P/rules_off" ] || [ ! -w "$P/parity" ]; then
	ktap_skip_all "no rteo parameters in $P"
	exit "$KSFT_SKIP"
fi
if [ "$(cat $SYS/current_driver)" = none ]; then
	ktap_skip_all "no cpuidle driver"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 6
orig=$(cat $SYS/current_governor)
usage() {
	cat /sys/devices/system/cpu/cpu*/cpuidle/state*/usage | awk '{ s += $1 } END { print s }'
}
reenable() { echo menu >$SYS/current_governor; echo rteo >$SYS/current_governor; }

bad=0
for v in 0x8 0x80000000 2147483648 -1 abc "" 0x1 0x5; do
	if echo "$v" >$P/rules_off 2>/dev/null; then bad=$((bad + 1)); fi
done
if [ $bad -eq 0 ] && [ "$(cat $P/rules_off)" = 0 ]; then
	ktap_test_pass "rules_off: 8 bad values refused, still 0"
else
	ktap_test_fail "rules_off: $bad bad values taken, now $(cat $P/rules_off)"
fi

if dmesg | grep -q "rteo: rules_off=0x80000000: the rules are bits 0x7$"; then
	ktap_test_pass "rules_off: the refusal says which bits are rules"
else
	ktap_test_fail "rules_off: no message for 0x80000000"
fi

if dmesg | grep -q "rteo: rules_off=0x5: rule 2 needs rule 1, switch both off$"; then
	ktap_test_pass "rules_off: the refusal of 0x5 says rule 2 needs rule 1"
else
	ktap_test_fail "rules_off: no message for 0x5"
fi

ok=1
for v in 0x3 0x2 0x4 0x7 0; do
	if ! echo "$v" >$P/rules_off; then
		ok=0
		break
	fi
	reenable
	u0=$(usage)
	sleep 0.5
	u1=$(usage)
	[ "$(cat $P/rules_off)" = "$(printf %d $v)" ] && [ "$u1" -gt "$u0" ] || ok=0
done
if [ $ok -eq 1 ]; then
	ktap_test_pass "rules_off: 0x3, 0x2, 0x4, 0x7 and 0 taken, CPUs idle under each"
else
	ktap_test_fail "rules_off: a valid mask refused or no idle entries"
fi

if echo 1 >$P/parity && [ "$(cat $P/parity)" = Y ] && reenable &&
	echo 0 >$P/parity && [ "$(cat $P/parity)" = N ] && reenable; then
	ktap_test_pass "parity: 1 and 0 taken, read back as Y and N"
else
	ktap_test_fail "parity: 1 or 0 refused or misread, now $(cat $P/parity)"
fi

bad=0
for v in 2 maybe ""; do
	if echo "$v" >$P/parity 2>/dev/null; then bad=$((bad + 1)); fi
done
if [ $bad -eq 0 ] && [ "$(cat $P/parity)" = N ]; then
	ktap_test_pass "parity: 3 bad values refused, still off"
else
	ktap_test_fail "parity: $bad bad values taken, now $(cat $P/parity)"
fi
echo "$orig" >$SYS/current_governor
ktap_finished
