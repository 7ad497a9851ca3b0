#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cpuidle under stress, with a registered cpuidle driver:
# 1. >= 1000 switches of current_governor through those of rteo, teo, menu
#    and ladder that are available, while one job per CPU alternates a
#    ~20 ms busy loop and sleep 0.05; every write is taken and reads back,
#    the governor is restored, and every CPU still enters idle states;
# 2. >= 50 offline/online cycles of cpu1 under the same load while another
#    job switches governors; every write is taken, cpu1 ends online and
#    enters idle states again;
# 3. >= 200 governor switches while jobs write 0/1 to random
#    cpuN/cpuidle/stateM/disable (M >= 1) and 0, 10 and n/a to random
#    cpuN/power/pm_qos_resume_latency_us; every write is taken, all of
#    them are then set back to 0 and read back 0, and the CPUs idle.
# Every loop also stops at a deadline (seconds of uptime) and then fails
# with the count it reached.  Knobs: CPUIDLE_STRESS_SWITCHES (1000; case 3
# does a fifth of it), CPUIDLE_STRESS_CYCLES (50), CPUIDLE_STRESS_SECONDS
# (time limit of each case; default 600, 300 and 300 s: a switch takes
# about 130 ms and a CPU1 cycle 0.7 s on the KASAN kernel under TCG).
# Where no driver is registered, CPUIDLE_STRESS_DRIVER="MODULE.ko [PARAM...]"
# names one to load for the run (and unload after it, a fourth result).

DIR=$(dirname "$0")
# shellcheck disable=SC1091 # installed by run_kselftest.sh
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
CPUIDLE=$SYS/cpuidle
CUR=$CPUIDLE/current_governor
SWITCHES=${CPUIDLE_STRESS_SWITCHES:-1000}
CYCLES=${CPUIDLE_STRESS_CYCLES:-50}
WSWITCHES=$((SWITCHES / 5))
[ "$WSWITCHES" -gt 0 ] || WSWITCHES=1

ktap_print_header
require_root
driver=
[ -r "$CPUIDLE/current_driver" ] && read -r driver <"$CPUIDLE/current_driver"
loaded=
if [ "$driver" = none ] && [ -n "${CPUIDLE_STRESS_DRIVER:-}" ]; then
	# shellcheck disable=SC2086
	set -- $CPUIDLE_STRESS_DRIVER
	if ! insmod "$@"; then
		ktap_set_plan 1
		ktap_test_fail "cannot load $CPUIDLE_STRESS_DRIVER"
		ktap_finished
	fi
	loaded=$(basename "$1" .ko | tr - _)
	read -r driver <"$CPUIDLE/current_driver"
fi
if [ -z "$driver" ] || [ "$driver" = none ]; then
	ktap_skip_all "no cpuidle driver registered (current_driver: ${driver:-absent})"
	exit "$KSFT_SKIP"
fi
if [ -n "$loaded" ]; then ktap_set_plan 4; else ktap_set_plan 3; fi

# NOW: seconds of uptime, without forking
now() {
	read -r _up _ </proc/uptime
	NOW=${_up%%.*}
}

# CS: centiseconds of uptime
now_cs() {
	read -r _up _ </proc/uptime
	CS=${_up%%.*}${_up#*.}
}

read -r orig <"$CUR"
avail=$(cat "$CPUIDLE/available_governors")
govs=
ngov=0
for g in rteo teo menu ladder; do
	case " $avail " in
	*" $g "*) govs="$govs $g" ngov=$((ngov + 1)) ;;
	esac
done
govs=${govs# }
few="fewer than two of rteo teo menu ladder"

# CPUS: the online CPUs with a cpuidle directory
cpus() {
	CPUS=
	for _c in "$SYS"/cpu[0-9]*; do
		[ -d "$_c/cpuidle" ] || continue
		_o=1
		[ -r "$_c/online" ] && read -r _o <"$_c/online"
		[ "$_o" = 1 ] && CPUS="$CPUS $_c"
	done
}

# USAGE: the idle entries of CPU directory $1, every state's usage and
# rejected summed (a rejected entry is one the governor chose all the
# same: QEMU's PSCI power-down on arm64 is always rejected)
cpu_usage() {
	USAGE=0
	for _f in "$1"/cpuidle/state[0-9]*/usage "$1"/cpuidle/state[0-9]*/rejected; do
		[ -r "$_f" ] || continue
		read -r _v <"$_f"
		USAGE=$((USAGE + _v))
	done
}

# STUCK: the online CPUs that entered no idle state in 1 s; IDLE: the
# summed usage before and after
idle_check() {
	cpus
	_snap=
	for _c in $CPUS; do
		cpu_usage "$_c"
		_snap="$_snap $USAGE"
	done
	sleep 1
	STUCK=
	IDLE=
	# shellcheck disable=SC2086 # one word per CPU
	set -- $_snap
	for _c in $CPUS; do
		cpu_usage "$_c"
		[ "$USAGE" -gt "$1" ] || STUCK="$STUCK ${_c##*/}"
		IDLE="$IDLE ${_c##*/}:$1->$USAGE"
		shift
	done
}

TMPD=$(mktemp -d "${TMPDIR:-/tmp}/cpuidle_stress.XXXXXX" 2>/dev/null) ||
	{ TMPD=${TMPDIR:-/tmp}/cpuidle_stress.$$; mkdir -p "$TMPD"; }
JOBS=

# busy for 20 ms (to the next tick of uptime's 10 ms, then two ticks:
# 20 to 30 ms in all), then sleep 50 ms
load_job() {
	while :; do
		now_cs
		end=$((CS + 3))
		while [ "$CS" -lt "$end" ]; do
			now_cs
		done
		sleep 0.05
	done
}

start_load() {
	cpus
	for _c in $CPUS; do
		load_job &
		JOBS="$JOBS $!"
	done
}

# writer jobs: NAME counts its writes and failures and, when killed,
# leaves "WRITES FAILURES FIRST-FAILURE" in $TMPD/NAME
writer_init() {
	W_NAME=$1 W_N=0 W_BAD=0 W_FIRST=-
	rm -f "$TMPD/$W_NAME"
	trap 'echo "$W_N $W_BAD $W_FIRST" >"$TMPD/$W_NAME"; exit 0' TERM
}

# write $2 to $1, counted
wr() {
	W_N=$((W_N + 1))
	if ! echo "$2" 2>/dev/null >"$1"; then
		W_BAD=$((W_BAD + 1))
		[ "$W_FIRST" != - ] || W_FIRST="$2>${1#"$SYS"/}"
	fi
}

# R: pseudo-random, 0..65536 (the ZX81's generator: small numbers only)
rnd() {
	SEED=$(((SEED * 75 + 74) % 65537))
	R=$SEED
}

gov_job() {
	writer_init gov
	while :; do
		for g in $govs; do
			wr "$CUR" "$g"
		done
	done
}

disable_job() { # FILES...
	writer_init disable
	SEED=4242
	while :; do
		rnd
		eval "f=\${$((R % $# + 1))}"
		rnd
		wr "$f" $((R % 2))
	done
}

latency_job() { # FILES...
	writer_init latency
	SEED=1717
	while :; do
		rnd
		eval "f=\${$((R % $# + 1))}"
		rnd
		case $((R % 3)) in
		0) v=0 ;;
		1) v=10 ;;
		*) v=n/a ;;
		esac
		wr "$f" "$v"
	done
}

# W: "WRITES FAILURES FIRST-FAILURE" of writer NAME after stop_jobs
writer_result() {
	if [ -r "$TMPD/$1" ]; then
		read -r W <"$TMPD/$1"
	else
		W="0 1 no-report"
	fi
}

stop_jobs() {
	[ -n "$JOBS" ] || return 0
	# shellcheck disable=SC2086 # one word per job
	kill $JOBS 2>/dev/null
	# shellcheck disable=SC2086
	wait $JOBS 2>/dev/null
	JOBS=
}

RESTORE=
cleanup() {
	stop_jobs
	for _f in $RESTORE; do
		echo 0 2>/dev/null >"$_f"
	done
	[ -w "$SYS/cpu1/online" ] && echo 1 2>/dev/null >"$SYS/cpu1/online"
	echo "$orig" 2>/dev/null >"$CUR"
	rm -rf "$TMPD"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

limit() { # DEFAULT
	echo "${CPUIDLE_STRESS_SECONDS:-$1}"
}

# 1: governor switches under alternating load
if [ "$ngov" -lt 2 ]; then
	ktap_test_skip "governor switches under load: $few ($avail)"
else
	secs=$(limit 600)
	start_load
	now
	deadline=$((NOW + secs))
	i=0 bad=0 first="" late=""
	while [ $i -lt "$SWITCHES" ] && [ -z "$late" ]; do
		for g in $govs; do
			[ $i -lt "$SWITCHES" ] || break
			i=$((i + 1))
			if echo "$g" 2>/dev/null >"$CUR"; then
				read -r c <"$CUR"
				[ "$c" = "$g" ] && continue
				c="reads $c"
			else
				c=refused
			fi
			bad=$((bad + 1))
			[ -n "$first" ] || first="switch $i to $g $c"
		done
		now
		[ "$NOW" -lt "$deadline" ] || late=1
	done
	stop_jobs
	echo "$orig" >"$CUR"
	read -r c <"$CUR"
	idle_check
	what="governor switches under alternating load ($govs)"
	if [ -n "$late" ] && [ $i -lt "$SWITCHES" ]; then
		msg="deadline ($secs s) reached after $i of $SWITCHES ($bad failed)"
		ktap_test_fail "$what: $msg"
	elif [ $bad -ne 0 ]; then
		ktap_test_fail "$what: $bad of $i failed, first: $first"
	elif [ "$c" != "$orig" ]; then
		ktap_test_fail "$what: governor not restored to $orig (reads $c)"
	elif [ -n "$STUCK" ]; then
		ktap_test_fail "$what: no idle entries afterwards on$STUCK ($IDLE )"
	else
		ktap_test_pass "$i $what, $orig restored, CPUs idle"
	fi
fi

# 2: offline/online cycles of cpu1 under load, governors switching
ON=$SYS/cpu1/online
if [ ! -e "$ON" ] || [ ! -w "$ON" ]; then
	ktap_test_skip "cpu1 offline/online cycles: $ON absent or not writable"
else
	secs=$(limit 300)
	start_load
	if [ "$ngov" -ge 2 ]; then
		gov_job &
		JOBS="$JOBS $!"
	fi
	now
	deadline=$((NOW + secs))
	i=0 bad=0 first="" late=""
	while [ $i -lt "$CYCLES" ]; do
		i=$((i + 1))
		for v in 0 1; do
			if ! echo $v 2>/dev/null >"$ON"; then
				bad=$((bad + 1))
				[ -n "$first" ] || first="cycle $i: online=$v refused"
			fi
		done
		now
		if [ "$NOW" -ge "$deadline" ] && [ $i -lt "$CYCLES" ]; then
			late=1
			break
		fi
	done
	stop_jobs
	if [ "$ngov" -ge 2 ]; then
		writer_result gov
	else
		W="0 0 -"
	fi
	# shellcheck disable=SC2086 # three words
	set -- $W
	gn=$1 gbad=$2 gfirst=$3
	echo "$orig" >"$CUR"
	read -r o <"$ON"
	if [ "$o" != 1 ]; then
		echo 1 2>/dev/null >"$ON"
		sleep 0.2
	fi
	cpu_usage "$SYS/cpu1"
	u0=$USAGE
	sleep 1
	cpu_usage "$SYS/cpu1"
	u1=$USAGE
	what="offline/online cycles of cpu1 under load"
	[ "$ngov" -lt 2 ] || what="$what, $gn governor switches alongside"
	if [ -n "$late" ]; then
		msg="deadline of $secs s reached after $i of $CYCLES cycles"
		ktap_test_fail "$what: $msg ($bad failed writes)"
	elif [ $bad -ne 0 ] || [ "$gbad" -ne 0 ]; then
		msg="$bad of $((2 * i)) online writes failed (first: ${first:--})"
		gmsg="$gbad of $gn governor writes failed (first: $gfirst)"
		ktap_test_fail "$what: $msg, $gmsg"
	elif [ "$o" != 1 ]; then
		ktap_test_fail "$what: cpu1 ended with online=$o"
	elif [ "$u1" -le "$u0" ]; then
		ktap_test_fail "$what: cpu1 enters no idle state afterwards ($u0 -> $u1)"
	else
		ktap_test_pass "$i $what, cpu1 online and idle ($u0 -> $u1)"
	fi
fi

# 3: governor switches while disable and resume latency writers run
cpus
dis=
lat=
for c in $CPUS; do
	for s in "$c"/cpuidle/state[0-9]*; do
		[ "${s##*state}" -ge 1 ] && [ -w "$s/disable" ] && dis="$dis $s/disable"
	done
	[ -w "$c/power/pm_qos_resume_latency_us" ] && lat="$lat $c/power/pm_qos_resume_latency_us"
done
if [ "$ngov" -lt 2 ]; then
	ktap_test_skip "concurrent writers: $few available ($avail)"
elif [ -z "$dis$lat" ]; then
	msg="no state 1.. disable and no pm_qos_resume_latency_us files"
	ktap_test_skip "concurrent writers: $msg"
else
	secs=$(limit 300)
	RESTORE="$dis $lat"
	if [ -n "$dis" ]; then
		# shellcheck disable=SC2086 # one word per file
		disable_job $dis &
		JOBS="$JOBS $!"
	fi
	if [ -n "$lat" ]; then
		# shellcheck disable=SC2086
		latency_job $lat &
		JOBS="$JOBS $!"
	fi
	now
	deadline=$((NOW + secs))
	i=0 bad=0 first="" late=""
	while [ $i -lt "$WSWITCHES" ] && [ -z "$late" ]; do
		for g in $govs; do
			[ $i -lt "$WSWITCHES" ] || break
			i=$((i + 1))
			if ! echo "$g" 2>/dev/null >"$CUR"; then
				bad=$((bad + 1))
				[ -n "$first" ] || first="switch $i to $g refused"
			fi
		done
		now
		[ "$NOW" -lt "$deadline" ] || late=1
	done
	stop_jobs
	dn=0 dbad=0 dfirst=- ln=0 lbad=0 lfirst=-
	if [ -n "$dis" ]; then
		writer_result disable
		# shellcheck disable=SC2086 # three words
		set -- $W
		dn=$1 dbad=$2 dfirst=$3
	fi
	if [ -n "$lat" ]; then
		writer_result latency
		# shellcheck disable=SC2086
		set -- $W
		ln=$1 lbad=$2 lfirst=$3
	fi
	# restore, then read back
	for f in $dis $lat; do
		echo 0 2>/dev/null >"$f"
	done
	echo "$orig" >"$CUR"
	RESTORE=
	left=
	for f in $dis $lat; do
		read -r v <"$f"
		[ "$v" = 0 ] || left="$left ${f#"$SYS"/}=$v"
	done
	idle_check
	# A governor switch disables and re-enables every cpuidle device
	# (cpuidle_switch_governor()), which removes and re-adds its stateN
	# directories: a disable write that races with it finds its file gone.
	# Those failures are counted, not failed; at least one write of each
	# kind must have been taken, and the restore below must read back.
	what="$dn state disable writes, $dbad of them racing a switch"
	what="$what, $ln resume latency writes"
	what="governor switches with concurrent writers ($what)"
	if [ -n "$late" ] && [ $i -lt "$WSWITCHES" ]; then
		ktap_test_fail "$what: deadline of $secs s reached after $i of $WSWITCHES switches"
	elif [ $bad -ne 0 ] || [ "$lbad" -ne 0 ] ||
		{ [ -n "$dis" ] && [ "$dbad" -ge "$dn" ]; }; then
		msg="$bad governor (${first:--}), $dbad disable ($dfirst)"
		ktap_test_fail "$what: failed writes: $msg, $lbad latency ($lfirst)"
	elif [ -n "$left" ]; then
		ktap_test_fail "$what: not restored to 0:$left"
	elif [ -n "$STUCK" ]; then
		ktap_test_fail "$what: no idle entries afterwards on$STUCK ($IDLE )"
	else
		ktap_test_pass "$i $what, all restored to 0, CPUs idle"
	fi
fi
if [ -n "$loaded" ]; then
	stop_jobs
	if rmmod "$loaded" && [ "$(cat $CPUIDLE/current_driver)" = none ]; then
		ktap_test_pass "unload $loaded after the stress ($driver)"
	else
		ktap_test_fail "unload $loaded: driver $(cat $CPUIDLE/current_driver)"
	fi
fi
ktap_finished
