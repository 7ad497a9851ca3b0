#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the *_suite.sh tests after ktap_helpers.sh.
#
# run_one LABEL TEST: run one test script and report each of its results
# as one of ours ("LABEL/TEST: ...").
run_one() {
	out=$(RCPUIDLE_ARGS= sh "$DIR/$2" 2>&1)
	echo "$out" | sed -nE 's/^(ok|not ok) [0-9]+ (.*)$/\1|\2/p' |
	while IFS='|' read -r res desc; do
		echo "$res $1/$2: $desc"
	done >"/tmp/suite.$$"
	while read -r line; do
		case "$line" in
		"not ok "*) ktap_test_fail "${line#not ok }" ;;
		*"# SKIP"*) d=${line#ok }; ktap_test_skip "${d%% # SKIP*}" ;;
		*) ktap_test_pass "${line#ok }" ;;
		esac
	done <"/tmp/suite.$$"
	rm -f "/tmp/suite.$$"
	if echo "$out" | grep -q '^1\.\.0 # SKIP'; then
		ktap_test_skip "$1/$2: $(echo "$out" | sed -n 's/^1\.\.0 # SKIP //p')"
	fi
}

# run_suite LABEL GOVERNORS...: run the behaviour tests against the
# registered driver under each governor that is available ("LABEL/GOVERNOR/
# test: ...").
run_suite() {
	label=$1
	shift
	cpuidle=/sys/devices/system/cpu/cpuidle
	orig=$(cat $cpuidle/current_governor)
	for g in "$@"; do
		echo " $(cat $cpuidle/available_governors) " | grep -q " $g " || continue
		echo "$g" >$cpuidle/current_governor
		for t in cpuidle_sysfs.sh cpu_dma_latency.sh pm_qos_cpu.sh; do
			run_one "$label/$g" "$t"
		done
	done
	echo "$orig" >$cpuidle/current_governor
}
