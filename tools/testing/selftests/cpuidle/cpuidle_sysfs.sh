#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpuidle sysfs ABI and state control:
# - driver/governor files and every state's attributes are present and sane
#   (target residency non-decreasing, exit latency <= residency);
# - usage and time grow while the CPUs idle;
# - disabling the deepest state stops its usage counter on every CPU and
#   re-enabling it lets it grow again;
# - bad writes to "disable" and "pm_qos_resume_latency_us" are refused and
#   change nothing.

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
ktap_print_header
require_root
drv=$(cat "$SYS/cpuidle/current_driver" 2>/dev/null)
if [ -z "$drv" ] || [ "$drv" = none ] || [ ! -d "$SYS/cpu0/cpuidle/state0" ]; then
	ktap_skip_all "no cpuidle driver with states"
	exit "$KSFT_SKIP"
fi
ktap_set_plan 8
keep_states
cpus=$(ls -d "$SYS"/cpu[0-9]* | grep -E 'cpu[0-9]+$')
nstates=$(ls -d "$SYS"/cpu0/cpuidle/state* | wc -l)
deep=state$((nstates - 1))

# 1: attributes
bad=
for c in $cpus; do
	prev=-1
	for s in "$c"/cpuidle/state*; do
		for a in name desc latency residency usage time above below \
			disable default_status power; do
			[ -r "$s/$a" ] || bad="$bad $s/$a(missing)"
		done
		lat=$(cat "$s/latency"); res=$(cat "$s/residency")
		[ "$res" -ge "$prev" ] || bad="$bad $s(residency $res < $prev)"
		[ "$lat" -le "$res" ] || bad="$bad $s(latency $lat > residency $res)"
		prev=$res
	done
done
for f in current_driver current_governor available_governors; do
	[ -r "$SYS/cpuidle/$f" ] || bad="$bad cpuidle/$f(missing)"
done
if [ -z "$bad" ]; then
	ktap_test_pass "$drv: $nstates states per CPU, attributes present and sane"
else
	ktap_test_fail "attributes:$bad"
fi

sum() { # FILE-GLOB-SUFFIX: sum of cpu*/cpuidle/$1 over all CPUs
	cat "$SYS"/cpu[0-9]*/cpuidle/$1 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'
}

# 2: entries (usage + rejected) and time grow while idle
u0=$(($(sum 'state*/usage') + $(sum 'state*/rejected'))); t0=$(sum 'state*/time')
sleep 1
u1=$(($(sum 'state*/usage') + $(sum 'state*/rejected'))); t1=$(sum 'state*/time')
if [ "$u1" -gt "$u0" ] && [ "$t1" -gt "$t0" ]; then
	ktap_test_pass "usage ($u0 -> $u1) and time ($t0 -> $t1) grow while idle"
else
	ktap_test_fail "usage $u0 -> $u1, time $t0 -> $t1 while idle"
fi

# 3, 4: disabling the deepest state stops its entries (usage + rejected:
# see deep_usage in cpuidle_lib.sh); re-enabling resumes them
for c in $cpus; do echo 1 >"$c/cpuidle/$deep/disable"; done
sleep 0.2
d0=$(($(sum "$deep/usage") + $(sum "$deep/rejected")))
sleep 1
d1=$(($(sum "$deep/usage") + $(sum "$deep/rejected")))
if [ "$d1" -eq "$d0" ]; then
	ktap_test_pass "$deep disabled on every CPU: entries frozen at $d0"
else
	ktap_test_fail "$deep disabled but entries grew $d0 -> $d1"
fi
for c in $cpus; do echo 0 >"$c/cpuidle/$deep/disable"; done
sleep 2
d2=$(($(sum "$deep/usage") + $(sum "$deep/rejected")))
if [ "$d2" -gt "$d1" ]; then
	ktap_test_pass "$deep re-enabled: entries grow again ($d1 -> $d2)"
else
	ktap_test_fail "$deep re-enabled but entries stayed at $d2"
fi

# 5: bad writes to "disable"
s=$SYS/cpu0/cpuidle/$deep
before=$(cat "$s/disable")
refused=0
for v in abc -1 "" 99999999999999999999; do
	echo "$v" >"$s/disable" 2>/dev/null || refused=$((refused + 1))
done
if [ "$(cat "$s/disable")" = "$before" ] && [ $refused -eq 4 ]; then
	ktap_test_pass "bad writes to disable refused (4 of 4), value unchanged"
else
	now=$(cat "$s/disable")
	ktap_test_fail "disable: $refused of 4 bad writes refused, value $now (was $before)"
fi

# 6: bad writes to pm_qos_resume_latency_us
q=$SYS/cpu0/power/pm_qos_resume_latency_us
if [ -w "$q" ]; then
	before=$(cat "$q")
	refused=0
	for v in abc -5 "1 2" 0x; do
		echo "$v" >"$q" 2>/dev/null || refused=$((refused + 1))
	done
	if [ "$(cat "$q")" = "$before" ] && [ $refused -eq 4 ]; then
		ktap_test_pass "bad writes to pm_qos_resume_latency_us refused, value unchanged"
	else
		now="value $(cat "$q") (was $before)"
		ktap_test_fail "pm_qos_resume_latency_us: $refused of 4 refused, $now"
	fi
else
	ktap_test_skip "no pm_qos_resume_latency_us"
fi

# 7, 8: idle goes on across 10 offline/online cycles of the last CPU,
# with the CPUs idle and then with one busy loop per CPU
last=$(echo "$cpus" | tail -n 1)
hotplug() { # DESC [load]
	pids=
	if [ "${2:-}" = load ]; then
		for c in $cpus; do ( while :; do :; done ) & pids="$pids $!"; done
	fi
	bad=0
	i=0
	while [ $i -lt 10 ]; do
		echo 0 >"$last/online" || bad=$((bad + 1))
		echo 1 >"$last/online" || bad=$((bad + 1))
		i=$((i + 1))
	done
	if [ -n "$pids" ]; then
		kill $pids
		wait $pids 2>/dev/null
	fi
	u0=$(($(sum 'state*/usage') + $(sum 'state*/rejected'))); sleep 1
	u1=$(($(sum 'state*/usage') + $(sum 'state*/rejected')))
	if [ $bad -eq 0 ] && [ "$u1" -gt "$u0" ]; then
		msg="10 offline/online cycles of $(basename "$last") $1"
		ktap_test_pass "$msg, idle goes on ($u0 -> $u1)"
	else
		ktap_test_fail "hotplug $1: $bad errors, usage $u0 -> $u1"
	fi
}
if [ -w "$last/online" ]; then
	hotplug "while idle"
	hotplug "under load" load
else
	ktap_test_skip "$(basename "$last") cannot go offline"
	ktap_test_skip "$(basename "$last") cannot go offline (under load)"
fi
ktap_finished
