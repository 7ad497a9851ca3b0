#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# rteo's recorder (rteo.record, debugfs rteo/trace): bad values refused,
# nothing readable while recording, records with sane fields after idling
# under rteo, and the ring emptied when recording starts again.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"

SYS=/sys/devices/system/cpu/cpuidle
R=/sys/module/rteo/parameters/record
T=/sys/kernel/debug/rteo/trace
ktap_print_header
if [ ! -w "$R" ] || [ ! -r "$T" ]; then
	ktap_skip_all "no rteo recorder ($R, $T)"
	exit "$KSFT_SKIP"
fi
if [ "$(cat $SYS/current_driver)" = none ]; then
	ktap_skip_all "no cpuidle driver"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4
orig=$(cat $SYS/current_governor)
echo rteo >$SYS/current_governor

bad=0
for v in 2 maybe -1 ""; do
	if echo "$v" >$R 2>/dev/null; then bad=$((bad + 1)); fi
done
if [ $bad -eq 0 ] && [ "$(cat $R)" = N ]; then
	ktap_test_pass "bad values refused (4 of 4), recording still off"
else
	ktap_test_fail "$bad bad values accepted, record=$(cat $R)"
fi

echo 1 >$R
sleep 1
if grep -qv '^#' $T; then
	ktap_test_fail "records readable while recording"
else
	ktap_test_pass "nothing readable while recording"
fi
echo 0 >$R
n=$(grep -vc '^#' $T)
# 12 fields, the state index within the table, 0/1 flags
badf=$(grep -v '^#' $T | awk -v max="$(ls -d /sys/devices/system/cpu/cpu0/cpuidle/state* | wc -l)" \
	'NF != 12 || $11 >= max || $8 > 1 || $9 > 1 || $12 > 1 { b++ } END { print b + 0 }')
if [ "$n" -gt 0 ] && [ "$badf" -eq 0 ]; then
	ktap_test_pass "$n records after 1 s of idle, all well-formed"
else
	ktap_test_fail "$n records, $badf malformed"
fi

# a new recording starts from an empty ring: every record of the second
# recording is newer than every record of the first
last=$(grep -v '^#' $T | awk '$2 > m { m = $2 } END { print m + 0 }')
echo 1 >$R
sleep 0.2
echo 0 >$R
m=$(grep -vc '^#' $T)
old=$(grep -v '^#' $T | awk -v l="$last" '$2 <= l { o++ } END { print o + 0 }')
if [ "$m" -gt 0 ] && [ "$old" -eq 0 ]; then
	ktap_test_pass "restart empties the ring ($m new records, none from before)"
else
	ktap_test_fail "restart: $m records, $old from the previous recording"
fi
echo "$orig" >$SYS/current_governor
ktap_finished
