#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Rust mvebu-v7 cpuidle driver as a module: 20 load/unload cycles.  On
# an Armada SoC each load must bind the cpuidle-armada-* device the arch
# code registered and register the SoC's driver; elsewhere it must load,
# bind nothing and leave the cpuidle driver alone.  Unloading must leave
# nothing behind.  If the module carries its KUnit suite, the suite runs at
# every load and its result is checked through debugfs.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

MOD=$(cpuidle_module cpuidle-mvebu-v7-rs.ko)
NAME=cpuidle_mvebu_v7_rs
SYS=/sys/devices/system/cpu
PDRV=/sys/bus/platform/drivers/$NAME
KUNIT=/sys/kernel/debug/kunit/cpuidle_mvebu_v7/results
ktap_print_header
require_root
[ -n "$MOD" ] || cpuidle_skip_no_module cpuidle-mvebu-v7-rs.ko
# a board's user who loaded the driver (the kit's README) lends it to the
# test, which loads it again at the end
cpuidle_borrow $NAME
before=$(cat $SYS/cpuidle/current_driver)
pdev=
for d in /sys/bus/platform/devices/cpuidle-armada-*; do
	[ -e "$d" ] && pdev=$(basename "$d")
done
case "$pdev" in
cpuidle-armada-xp)  want=armada_xp_idle n=3 ;;
cpuidle-armada-370) want=armada_370_idle n=2 ;;
cpuidle-armada-38x) want=armada_38x_idle n=2 ;;
*)                  want=$before n= ;;
esac
if [ -n "$pdev" ] && [ "$before" != none ]; then
	ktap_skip_all "$pdev is driven by $before already (the C driver built in?)"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 4

# the KUnit suite idles through the driver under the current governor:
# alternate rteo and menu across the loads
govs=
for g in rteo menu; do
	grep -qw "$g" $SYS/cpuidle/available_governors && govs="$govs $g"
done
orig_gov=$(cat $SYS/cpuidle/current_governor)
bad=
kbad=
ksaw=
kgov=
i=0
while [ $i -lt 20 ]; do
	i=$((i + 1))
	set -- $govs
	if [ $# -gt 0 ]; then
		[ $((i % 2)) = 1 ] || shift $(($# - 1))
		echo "$1" >$SYS/cpuidle/current_governor || bad="$bad governor:$1:$i"
		g=$1
	fi
	if ! insmod "$MOD"; then
		bad="$bad load:$i"
		continue
	fi
	[ -d "$PDRV" ] || bad="$bad no-driver-dir:$i"
	bound=$(ls "$PDRV" | grep -c '^cpuidle-armada-')
	if [ -n "$pdev" ]; then
		[ "$bound" -eq 1 ] || bad="$bad unbound:$i"
		got=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
		[ "$got" -eq "$n" ] || bad="$bad states:$i:$got"
	else
		[ "$bound" -eq 0 ] || bad="$bad bound:$i"
	fi
	[ "$(cat $SYS/cpuidle/current_driver)" = "$want" ] || bad="$bad driver:$i"
	if [ -f "$KUNIT" ]; then
		ksaw=1
		if tail -n 1 "$KUNIT" | grep -q '^ok '; then
			echo " $kgov " | grep -q " $g " || kgov="$kgov $g"
		else
			kbad="$kbad $i($g)"
		fi
	fi
	rmmod $NAME || bad="$bad unload:$i"
	[ "$(cat $SYS/cpuidle/current_driver)" = "$before" ] || bad="$bad left:$i"
done
echo "$orig_gov" >$SYS/cpuidle/current_governor
if [ -z "$bad" ]; then
	ktap_test_pass "20 load/unload cycles (device: ${pdev:-none}, driver: $want)"
else
	ktap_test_fail "load/unload cycles:$bad"
fi
if grep -q "^$NAME " /proc/modules || [ -d "$PDRV" ]; then
	ktap_test_fail "module or platform driver left behind"
else
	ktap_test_pass "nothing left behind"
fi
if [ "$(cat $SYS/cpuidle/current_driver)" = "$before" ]; then
	ktap_test_pass "cpuidle driver back to $before"
else
	ktap_test_fail "cpuidle driver is $(cat $SYS/cpuidle/current_driver), was $before"
fi
# (echo without quotes: the lists compared with their spacing folded)
# shellcheck disable=SC2116
if [ -z "$ksaw" ]; then
	ktap_test_skip "module built without its KUnit suite"
elif [ -z "$kbad" ] && [ "$(echo $kgov)" = "$(echo $govs)" ]; then
	ktap_test_pass "KUnit suite cpuidle_mvebu_v7 passed at every load, under:$kgov"
else
	msg="failed at loads:$kbad (passed under:$kgov of$govs)"
	ktap_test_fail "KUnit suite cpuidle_mvebu_v7 $msg"
fi
ktap_finished
