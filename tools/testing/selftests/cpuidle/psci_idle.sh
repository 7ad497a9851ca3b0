#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The Rust PSCI driver (CONFIG_ARM_PSCI_CPUIDLE_RUST, built in) against
# the device tree it was built from:
# 1. every CPU has a driver psci_idle of its own whose states are WFI and
#    the CPU's enabled idle-state nodes, in order, with the node's name,
#    idle-state-name, latency (wakeup-latency-us, or entry + exit) and
#    min-residency-us; disabled nodes are not states.  A CPU's nodes are
#    found as of_get_cpu_state_node() finds them: entry i of the
#    domain-idle-states of its power domain (power-domains), else of its
#    cpu-idle-states; each state past WFI has an s2idle entry;
# 2. each state past WFI, alone enabled on cpu1 for 2 s, is entered
#    through the firmware: a retention state (arm,psci-suspend-param of
#    type 0) counts usage and no rejection; a power-down one (type 1)
#    counts usage on hardware, and rejections and no usage on QEMU, whose
#    PSCI answers CPU_SUSPEND with a WFI and SUCCESS, so the CPU never
#    resumes through cpu_resume (arm64 turns that into -EOPNOTSUPP);
# 3. on QEMU, no power-down state of any CPU has ever counted usage;
# 4. suspend-to-idle, woken by the RTC's alarm after 2 s, enters a DT
#    state (its enter_s2idle) on some CPU: the states' s2idle_usage grows.
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
# node PHANDLE: the DT directory of the node with that phandle
PHANDLES=$(find $DT -name phandle 2>/dev/null | while read -r f; do
	echo "$(be32 "$f") ${f%/phandle}"
done)
node() { echo "$PHANDLES" | awk -v p="$1" '$1 == p { print $2; exit }'; }
# states CPU: the phandles of the CPU's idle-state nodes, in order
states() {
	o=$SYS/cpu$1/of_node
	d=$o/cpu-idle-states nd=0
	if [ -r $o/power-domains ]; then
		pd=$(node "$(be32 $o/power-domains)")
		[ -n "$pd" ] && [ -r "$pd/domain-idle-states" ] &&
			d=$pd/domain-idle-states nd=$(cells "$d")
	fi
	c=$o/cpu-idle-states nc=0
	[ -r "$c" ] && nc=$(cells "$c")
	i=0
	while :; do
		if [ $i -lt "$nd" ]; then
			be32 "$d" $i
		elif [ $i -lt "$nc" ]; then
			be32 "$c" $i
		else
			break
		fi
		i=$((i + 1))
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
	for ph in $(states "$1"); do
		n=$(node "$ph")
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
ktap_set_plan $((3 + cpu1_states))

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
	# (the core shows s2idle/ for a state with an enter_s2idle)
	for st in $SYS/cpu$c/cpuidle/state[1-9]*; do
		[ ! -d "$st" ] || [ -d "$st/s2idle" ] ||
			bad="$bad cpu$c/${st##*/}: no s2idle entry;"
	done
done
if [ -z "$bad" ]; then
	msg="every CPU: a psci_idle driver of WFI and its DT states ($total past WFI in all,"
	ktap_test_pass "$msg each with an s2idle entry), disabled nodes left out"
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

# 4: suspend-to-idle
# s2idle_usage CPU...: the s2idle_usage of each state past WFI
s2idle_usage() {
	for c in "$@"; do
		for s in $SYS/cpu$c/cpuidle/state[1-9]*; do
			[ -r "$s/s2idle/usage" ] && echo "cpu$c/${s##*/}=$(cat "$s/s2idle/usage")"
		done
	done
}
rtc=/sys/class/rtc/rtc0/wakealarm
if ! grep -qw freeze /sys/power/state 2>/dev/null; then
	ktap_test_skip "suspend-to-idle: not in /sys/power/state (CONFIG_SUSPEND)"
elif [ ! -w $rtc ]; then
	ktap_test_skip "suspend-to-idle: no RTC alarm to wake from it ($rtc)"
else
	before=$(s2idle_usage $cpus)
	echo 0 >$rtc
	echo +2 >$rtc
	t0=$(cut -d' ' -f1 /proc/uptime)
	rc=0
	echo freeze >/sys/power/state || rc=1
	t1=$(cut -d' ' -f1 /proc/uptime)
	after=$(s2idle_usage $cpus)
	grown=$(printf '%s\n%s\n' "$before" "$after" | awk -F= '
		{ if ($1 in b) { if ($2 > b[$1]) printf " %s +%d", $1, $2 - b[$1] }
		  else b[$1] = $2 }')
	what="suspend-to-idle from $t0 s to $t1 s uptime, woken by the RTC alarm"
	if [ $rc = 0 ] && [ -n "$grown" ]; then
		ktap_test_pass "$what: s2idle usage$grown"
	else
		before=$(echo "$before" | tr '\n' ' ')
		after=$(echo "$after" | tr '\n' ' ')
		ktap_test_fail "$what: rc $rc, s2idle usage before '$before' after '$after'"
	fi
fi
ktap_finished
