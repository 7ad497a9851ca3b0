#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Rust PSCI driver (CONFIG_ARM_PSCI_CPUIDLE_RUST, built in) against
# the device tree it was built from:
# 1. every CPU has a driver psci_idle of its own whose states are WFI and
#    the enabled nodes of the CPU's cpu-idle-states, in order, with the
#    node's name, idle-state-name, latency (wakeup-latency-us, or entry +
#    exit) and min-residency-us; disabled nodes are not states;
# 2. each state past WFI, alone enabled on cpu1 for 2 s, is entered
#    through the firmware: a retention state (arm,psci-suspend-param of
#    type 0) counts usage and no rejection; a power-down one (type 1)
#    counts usage on hardware, and rejections and no usage on QEMU, whose
#    PSCI answers CPU_SUSPEND with a WFI and SUCCESS, so the CPU never
#    resumes through cpu_resume (arm64 turns that into -EOPNOTSUPP);
# 3. on QEMU, no power-down state of any CPU has ever counted usage.
# The host's check counts QEMU's own log of the PSCI calls against the
# counters.  The power_state type bit is bit 16 (the original format;
# the extended one, bit 30, is recognised by a parameter above 16 bits).

DIR=$(dirname "$0")
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
DT=/sys/firmware/devicetree/base

ktap_print_header
require_root
drv=$(cat $SYS/cpu0/cpuidle/driver/name 2>/dev/null)
if [ "$drv" != psci_idle ]; then
	why="cpu0's cpuidle driver is '${drv:-none}', not psci_idle"
	ktap_skip_all "$why (CONFIG_ARM_PSCI_CPUIDLE_RUST, DT idle states)"
	exit "$KSFT_SKIP"
fi
qemu=0
tr '\0' '\n' <$DT/compatible 2>/dev/null | grep -qx 'linux,dummy-virt' && qemu=1

# be32 FILE [N]: the N-th (from 0) big-endian 32-bit cell of a DT property
be32() {
	od -An -tu1 -v "$1" 2>/dev/null | tr -s ' \n' '  ' |
		awk -v n="${2:-0}" '{ i = 4 * n + 1
			print $i * 16777216 + $(i + 1) * 65536 + $(i + 2) * 256 + $(i + 3) }'
}
# cells FILE: the number of 32-bit cells of a property
cells() { echo $(($(wc -c <"$1") / 4)); }
# str FILE: a string property
str() { tr -d '\0' <"$1"; }
# node PHANDLE: the DT directory of the idle-state node with that phandle
node() {
	for n in $DT/cpus/idle-states/*/ $DT/idle-states/*/; do
		[ -r "${n}phandle" ] || continue
		[ "$(be32 "${n}phandle")" = "$1" ] && { echo "${n%/}"; return; }
	done
}
# power_down PARAM: whether a power_state is of type power-down
power_down() {
	if [ "$1" -ge 131072 ]; then
		[ $(($1 >> 30 & 1)) = 1 ]
	else
		[ $(($1 >> 16 & 1)) = 1 ]
	fi
}
# expected CPU: "name|desc|latency|residency|param" of each state past WFI
expected() {
	# (the CPU device's link to its DT node)
	p=$SYS/cpu$1/of_node/cpu-idle-states
	[ -r "$p" ] || return 0
	i=0
	while [ $i -lt "$(cells "$p")" ]; do
		n=$(node "$(be32 "$p" $i)")
		i=$((i + 1))
		[ -n "$n" ] || { echo "?|no node|||"; continue; }
		[ -r "$n/status" ] && case "$(str "$n/status")" in okay | ok) ;; *) continue ;; esac
		name=${n##*/}
		name=${name%%@*}
		desc=$name
		[ -r "$n/idle-state-name" ] && desc=$(str "$n/idle-state-name")
		# (as the driver copies them: CPUIDLE_NAME_LEN and
		# CPUIDLE_DESC_LEN bytes with the NUL)
		name=$(printf %.15s "$name")
		desc=$(printf %.31s "$desc")
		if [ -r "$n/wakeup-latency-us" ]; then
			lat=$(be32 "$n/wakeup-latency-us")
		else
			lat=$(($(be32 "$n/entry-latency-us") + $(be32 "$n/exit-latency-us")))
		fi
		res=$(be32 "$n/min-residency-us")
		echo "$name|$desc|$lat|$res|$(be32 "$n/arm,psci-suspend-param")"
	done
}
# actual CPU: the same of the registered states past WFI
actual() {
	for s in $SYS/cpu$1/cpuidle/state[1-9]*; do
		[ -d "$s" ] || continue
		echo "$(cat "$s/name")|$(cat "$s/desc")|$(cat "$s/latency")|$(cat "$s/residency")"
	done
}

cpus=$(ls -d $SYS/cpu[0-9]* | sed 's|.*/cpu||' | sort -n)
cpu1_states=$(ls -d $SYS/cpu1/cpuidle/state[1-9]* 2>/dev/null | wc -l)
ktap_set_plan $((2 + cpu1_states))

# 1: the tables
bad=
total=0
for c in $cpus; do
	[ -d $SYS/cpu$c/cpuidle ] || continue
	d=$(cat $SYS/cpu$c/cpuidle/driver/name 2>/dev/null)
	[ "$d" = psci_idle ] || bad="$bad cpu$c: driver '$d';"
	s0="$(cat $SYS/cpu$c/cpuidle/state0/name)|$(cat $SYS/cpu$c/cpuidle/state0/desc)"
	[ "$s0" = "WFI|ARM WFI" ] || bad="$bad cpu$c: state0 is '$s0';"
	want=$(expected "$c" | cut -d'|' -f1-4)
	got=$(actual "$c")
	if [ "$want" != "$got" ]; then
		bad="$bad cpu$c: states '$(echo "$got" | tr '\n' ' ')'"
		bad="$bad but the DT says '$(echo "$want" | tr '\n' ' ')';"
	fi
	total=$((total + $(echo "$got" | grep -c .)))
done
if [ -z "$bad" ]; then
	msg="every CPU: a psci_idle driver of WFI and its DT states ($total past WFI in all)"
	ktap_test_pass "$msg, disabled nodes left out"
else
	ktap_test_fail "tables:$bad"
fi

# 2: each state of cpu1 alone
params=$(expected 1 | cut -d'|' -f5)
i=1
for p in $params; do
	s=$SYS/cpu1/cpuidle/state$i
	[ -d "$s" ] || break
	for d in $SYS/cpu1/cpuidle/state[0-9]*; do
		v=1
		[ "$d" = "$s" ] && v=0
		echo $v >"$d/disable"
	done
	u0=$(cat "$s/usage") r0=$(cat "$s/rejected")
	sleep 2
	u1=$(cat "$s/usage") r1=$(cat "$s/rejected")
	for d in $SYS/cpu1/cpuidle/state[0-9]*; do echo 0 >"$d/disable"; done
	du=$((u1 - u0)) dr=$((r1 - r0))
	what="cpu1 $(cat "$s/name") (param $(printf %#x "$p")) alone for 2 s:"
	what="$what usage +$du, rejected +$dr"
	if ! power_down "$p"; then
		if [ $du -gt 0 ] && [ $dr = 0 ]; then
			ktap_test_pass "retention $what"
		else
			ktap_test_fail "retention $what: expected usage and no rejection"
		fi
	elif [ $qemu = 1 ]; then
		# (no resume through cpu_resume: every entry is rejected)
		if [ $dr -gt 0 ] && [ $du = 0 ]; then
			ktap_test_pass "power-down on QEMU $what"
		else
			ktap_test_fail "power-down on QEMU $what: expected rejections and no usage"
		fi
	elif [ $du -gt 0 ]; then
		ktap_test_pass "power-down $what"
	else
		ktap_test_fail "power-down $what: expected usage"
	fi
	i=$((i + 1))
done
while [ $i -le "$cpu1_states" ]; do
	ktap_test_fail "cpu1 state$i: no arm,psci-suspend-param in the DT for it"
	i=$((i + 1))
done

# 3: no power-down usage on QEMU, ever
if [ $qemu = 1 ]; then
	bad=
	for c in $cpus; do
		i=1
		for p in $(expected "$c" | cut -d'|' -f5); do
			s=$SYS/cpu$c/cpuidle/state$i
			i=$((i + 1))
			power_down "$p" || continue
			u=$(cat "$s/usage")
			[ "$u" = 0 ] || bad="$bad cpu$c/state$((i - 1)) usage $u;"
		done
	done
	if [ -z "$bad" ]; then
		ktap_test_pass "QEMU: no power-down state ever counted usage (every entry rejected)"
	else
		ktap_test_fail "QEMU: power-down usage counted:$bad"
	fi
else
	ktap_test_skip "power-down usage: only QEMU's PSCI never resumes through cpu_resume"
fi
ktap_finished
