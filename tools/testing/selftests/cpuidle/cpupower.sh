#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpupower (tools/power/cpupower, as distributions ship it) against the
# registered cpuidle driver: `cpupower idle-info` shows the driver, the
# governor and cpu0's states as sysfs has them; `cpupower idle-set -d N`
# and `-e N` disable and enable state N on every CPU; a state that does
# not exist is refused and changes nothing.
#
# CPUIDLE_CPUPOWER_DRIVER="MODULE.ko ARGS...": a driver module to load for
# the test when none is registered (unloaded at the end).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
ktap_print_header
require_root
if ! command -v cpupower >/dev/null 2>&1; then
	ktap_skip_all "cpupower is not installed"
	exit "$KSFT_SKIP"
fi
loaded=
if [ "$(cat $SYS/cpuidle/current_driver 2>/dev/null)" = none ] &&
	[ -n "${CPUIDLE_CPUPOWER_DRIVER:-}" ]; then
	# shellcheck disable=SC2086 # module and its arguments
	insmod $CPUIDLE_CPUPOWER_DRIVER || {
		ktap_exit_fail_msg "insmod $CPUIDLE_CPUPOWER_DRIVER failed"
	}
	loaded=$(basename "${CPUIDLE_CPUPOWER_DRIVER%% *}" .ko | tr - _)
fi
drv=$(cat $SYS/cpuidle/current_driver 2>/dev/null)
if [ -z "$drv" ] || [ "$drv" = none ] || [ ! -d $SYS/cpu0/cpuidle/state0 ]; then
	ktap_skip_all "no cpuidle driver with states"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 5
keep_states
gov=$(cat $SYS/cpuidle/current_governor)
n=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
deep=$((n - 1))
names=$(for s in $SYS/cpu0/cpuidle/state*; do cat "$s/name"; done | tr '\n' ' ' | sed 's/ $//')
cpus=$(ls -d $SYS/cpu[0-9]* | grep -E 'cpu[0-9]+$')
# disabled N: how many CPUs have state N disabled
disabled() { cat $SYS/cpu*/cpuidle/state"$1"/disable | grep -c '^1$'; }

info=$(cpupower idle-info 2>&1)
if echo "$info" | grep -qx "CPUidle driver: $drv" &&
	echo "$info" | grep -qx "CPUidle governor: $gov"; then
	ktap_test_pass "idle-info: driver $drv, governor $gov"
else
	got=$(echo "$info" | head -n 3 | tr '\n' '|')
	ktap_test_fail "idle-info does not name driver $drv and governor $gov: $got"
fi
if echo "$info" | grep -qx "Number of idle states: $n" &&
	echo "$info" | grep -qx "Available idle states: $names"; then
	ktap_test_pass "idle-info: $n states: $names"
else
	got=$(echo "$info" | grep -E '^(Number|Available)' | tr '\n' '|')
	ktap_test_fail "idle-info states differ from sysfs ($n: $names): $got"
fi

out=$(cpupower idle-set -d $deep 2>&1)
ncpu=$(echo "$cpus" | wc -l)
if [ "$(disabled $deep)" = "$ncpu" ] &&
	cpupower idle-info 2>&1 | grep -q "(DISABLED)"; then
	ktap_test_pass "idle-set -d $deep: state $deep disabled on all $ncpu CPUs"
else
	ktap_test_fail "idle-set -d $deep: disabled on $(disabled $deep) of $ncpu CPUs ($out)"
fi
out=$(cpupower idle-set -e $deep 2>&1)
if [ "$(disabled $deep)" = 0 ]; then
	ktap_test_pass "idle-set -e $deep: enabled again on every CPU"
else
	ktap_test_fail "idle-set -e $deep: still disabled on $(disabled $deep) CPUs ($out)"
fi

out=$(cpupower idle-set -d $n 2>&1)
rc=$?
left=0
i=0
while [ $i -lt $n ]; do
	left=$((left + $(disabled $i)))
	i=$((i + 1))
done
if { [ $rc != 0 ] || echo "$out" | grep -qi 'not available'; } && [ $left = 0 ]; then
	ktap_test_pass "idle-set -d $n (no such state) refused, nothing disabled"
else
	ktap_test_fail "idle-set -d $n: rc $rc, '$out', $left states disabled"
fi
for c in $cpus; do
	for d in "$c"/cpuidle/state*/disable; do echo 0 >"$d"; done
done
[ -n "$loaded" ] && rmmod "$loaded"
ktap_finished
