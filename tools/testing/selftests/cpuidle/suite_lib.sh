#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the *_suite.sh tests after ktap_helpers.sh.  A suite provides
# what its child tests need (a driver, a table), so a child passes only if
# it exits 0, prints a plan, runs as many tests as it planned and none of
# them fails; a child that skips as a whole fails here.

SUITE_TESTS="cpuidle_sysfs.sh cpu_dma_latency.sh pm_qos_cpu.sh pm_qos_sample.sh"

# suite_govs GOVERNORS...: those of GOVERNORS that are available
suite_govs() {
	avail=" $(cat /sys/devices/system/cpu/cpuidle/available_governors) "
	for g in "$@"; do
		case "$avail" in *" $g "*) printf '%s ' "$g" ;; esac
	done
}

# run_one LABEL TEST: run TEST as a nested KTAP subtest "LABEL/TEST" (its
# output indented), then report one result for it.
run_one() {
	name="$1/$2"
	out=/tmp/suite.$$.out
	(cd "$DIR" && RCPUIDLE_ARGS='' sh "./$2") >"$out" 2>&1
	rc=$?
	echo "    # Subtest: $name"
	grep -vE '^K?TAP version ' "$out" | sed 's/^/    /'
	plan=$(sed -nE 's/^1\.\.([0-9]+).*/\1/p' "$out" | head -n 1)
	ran=$(grep -cE '^(ok|not ok) [0-9]+' "$out")
	failed=$(grep -cE '^not ok [0-9]+' "$out")
	rm -f "$out"
	why=
	[ "$rc" = 0 ] || why="exit status $rc"
	if [ -z "$plan" ]; then
		why="${why:+$why, }no plan"
	elif [ "$plan" = 0 ]; then
		why="${why:+$why, }skipped as a whole"
	elif [ "$plan" != "$ran" ]; then
		why="${why:+$why, }planned $plan, ran $ran"
	fi
	[ "$failed" = 0 ] || why="${why:+$why, }$failed failed"
	if [ -z "$why" ]; then
		ktap_test_pass "$name"
	else
		ktap_print_msg "$name: $why"
		ktap_test_fail "$name"
	fi
}

# run_suite LABEL GOVERNORS...: the behaviour tests ($SUITE_TESTS) against
# the registered driver under each of GOVERNORS (pass the output of
# suite_govs, so that the plan can count them beforehand), as
# "LABEL/GOVERNOR/test"; the current governor is restored afterwards.
run_suite() {
	label=$1
	shift
	cpuidle=/sys/devices/system/cpu/cpuidle
	orig=$(cat $cpuidle/current_governor)
	for g in "$@"; do
		echo "$g" >$cpuidle/current_governor
		for t in $SUITE_TESTS; do
			run_one "$label/$g" "$t"
		done
	done
	echo "$orig" >$cpuidle/current_governor
}

# suite_count GOVERNORS...: how many results run_suite reports for them
suite_count() {
	echo $(($# * $(echo $SUITE_TESTS | wc -w)))
}
