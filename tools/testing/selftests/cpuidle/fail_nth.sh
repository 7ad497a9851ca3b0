#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Systematic fault injection (/proc/thread-self/fail-nth, through the
# failnth helper, failnth.c, which the collection's Makefile builds): for
# each module and for a switch of
# current_governor to rteo, fail the 1st, 2nd, ... fault point of the one
# system call (finit_module, write) until an attempt passes all its fault
# points and succeeds.  Every faulted attempt must return an error and
# leave nothing behind: the module not in /proc/modules nor /sys/module,
# the cpuidle driver, the top-level debugfs entries, the platform drivers
# and the CPU hotplug states as before; for the governor, current_governor
# unchanged.  An attempt that succeeds in spite of its fault (an error
# path that is allowed to be ignored) must leave the module loaded and
# unload cleanly, or make the switch.  After the successful attempt the
# module unloads and loads again.  Last, kmemleak (if enabled) must list
# no leak after two scans.
#
# CPUIDLE_FAILNTH_MODULES: "PATH[:PARAM,PARAM...] ..." (default: those of
# cpuidle-vstates.ko:table=x86-like, rust_pm_qos_cpu.ko,
# cpuidle-pseries-rs.ko and cpuidle-mvebu-v7-rs.ko that are in
# $RCPUIDLE_MODDIR or the module tree, see cpuidle_lib.sh); CPUIDLE_FAILNTH_MAX (2000): the last N
# tried; CPUIDLE_FAILNTH_SECONDS (600): time limit of each module or
# switch, CPUIDLE_FAILNTH_TOTAL (1200) of them all (a Rust module's load
# passes several hundred fault points, about 0.35 s an attempt on the
# KASAN kernel under TCG); CPUIDLE_FAILNTH_VERBOSE
# (0): the fault attributes' verbose level while testing;
# CPUIDLE_FAILNTH_MIN_ORDER (unset: the kernel's 1): fail_page_alloc's
# min-order while testing (0 also fails single pages, many more points).
#
# Needs CONFIG_FAULT_INJECTION with CONFIG_FAILSLAB (and FAIL_PAGE_ALLOC),
# and CONFIG_FAULT_INJECTION_DEBUG_FS to set ignore-gfp-wait to N:
# otherwise allocations that may sleep, nearly all of them, never fail.

DIR=$(dirname "$0")
# shellcheck disable=SC1091 # installed by run_kselftest.sh
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/cpuidle_lib.sh"

SYS=/sys/devices/system/cpu
CPUIDLE=$SYS/cpuidle
CUR=$CPUIDLE/current_governor
DEBUGFS=/sys/kernel/debug
HPSTATES=$SYS/hotplug/states
KMEMLEAK=$DEBUGFS/kmemleak
MAXN=${CPUIDLE_FAILNTH_MAX:-2000}
SECS=${CPUIDLE_FAILNTH_SECONDS:-600}
TOTAL=${CPUIDLE_FAILNTH_TOTAL:-1200}

ktap_print_header
require_root
if [ ! -e /proc/self/fail-nth ]; then
	ktap_skip_all "no /proc/self/fail-nth (CONFIG_FAULT_INJECTION)"
	exit "$KSFT_SKIP"
fi
if [ -x "$DIR/failnth" ]; then
	FAILNTH=$DIR/failnth
else
	FAILNTH=$(command -v failnth 2>/dev/null)
fi
if [ -z "$FAILNTH" ]; then
	ktap_skip_all "no failnth helper in $DIR or PATH (failnth.c, built by the Makefile)"
	exit "$KSFT_SKIP"
fi

if [ "${CPUIDLE_FAILNTH_MODULES+set}" = set ]; then
	mods=$CPUIDLE_FAILNTH_MODULES
else
	mods=
	for m in cpuidle-vstates.ko:table=x86-like rust_pm_qos_cpu.ko \
		 cpuidle-pseries-rs.ko cpuidle-mvebu-v7-rs.ko; do
		p=$(cpuidle_module "${m%%:*}") && mods="$mods $p${m#"${m%%:*}"}"
	done
fi
nmods=0
for m in $mods; do
	nmods=$((nmods + 1))
done
ktap_set_plan $((nmods + 2))

# The runner hands a test's output on when the test ends, so a splat on
# the console would not say what this test was doing: tell the kernel log
# where each part starts.
kmark() { # WHAT
	[ -w /dev/kmsg ] && echo "cpuidle-selftest: fail_nth.sh: $1" >/dev/kmsg
}

now() {
	read -r _up _ </proc/uptime
	NOW=${_up%%.*}
}
now
END=$((NOW + TOTAL))

# fault attributes: allocations that may sleep fail too; quiet
SAVED=
fi_set() { # FILE VALUE
	[ -w "$1" ] || return 1
	read -r _old <"$1" || return 1
	echo "$2" 2>/dev/null >"$1" || return 1
	SAVED="$SAVED $1=$_old"
}
gfp=
for d in failslab fail_page_alloc; do
	fi_set "$DEBUGFS/$d/ignore-gfp-wait" N && gfp="$gfp $d"
done
for f in "$DEBUGFS"/fail*/verbose; do
	[ -e "$f" ] && fi_set "$f" "${CPUIDLE_FAILNTH_VERBOSE:-0}"
done
[ -z "${CPUIDLE_FAILNTH_MIN_ORDER:-}" ] ||
	fi_set "$DEBUGFS/fail_page_alloc/min-order" "$CPUIDLE_FAILNTH_MIN_ORDER" ||
	echo "# cannot set fail_page_alloc/min-order"
[ -n "$gfp" ] ||
	echo "# cannot set ignore-gfp-wait=N" \
		"(no CONFIG_FAULT_INJECTION_DEBUG_FS or FAILSLAB): only atomic allocations can fail"
# A module's KUnit suites run at each load, in the task that loads it:
# under the injected faults they would fail.  KUnit's own filter keeps
# them from running while this test loads modules ("*.*", the default,
# afterwards).
KGLOB=/sys/module/kunit/parameters/filter_glob
if [ -w "$KGLOB" ]; then
	echo "fail_nth.no_suite" >"$KGLOB" || echo "# cannot set $KGLOB"
else
	KGLOB=
fi
orig=
[ -r "$CUR" ] && read -r orig <"$CUR"
# the drivers a board's user loaded (the kit's README) are lent to the
# test, loaded again at the end
for _n in cpuidle_pseries_rs cpuidle_mvebu_v7_rs; do
	cpuidle_take $_n || ktap_exit_fail_msg "$_n is loaded and cannot be unloaded"
done
OURS=
cleanup() {
	[ -n "$OURS" ] && loaded "$OURS" && rmmod "$OURS" 2>/dev/null
	for _s in $SAVED; do
		echo "${_s#*=}" 2>/dev/null >"${_s%=*}"
	done
	[ -n "$orig" ] && echo "$orig" 2>/dev/null >"$CUR"
	[ -n "$KGLOB" ] && echo "*.*" 2>/dev/null >"$KGLOB"
	cpuidle_give_back || echo "# could not load$CPUIDLE_TAKEN again"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# kmemleak: forget the suspects from before
leak=
if [ -w "$KMEMLEAK" ]; then
	if echo scan 2>/dev/null >"$KMEMLEAK" && echo clear 2>/dev/null >"$KMEMLEAK"; then
		leak=1
	else
		leak=disabled
	fi
fi

# S_*: what a faulted attempt must leave as it was; B_*: the baseline
state() {
	S_DRV=-
	[ -r "$CPUIDLE/current_driver" ] && read -r S_DRV <"$CPUIDLE/current_driver"
	set -- "$DEBUGFS"/*
	S_DBG=" $* "
	set -- /sys/bus/platform/drivers/*
	S_PLAT=" $* "
	S_HP=
	if [ -r "$HPSTATES" ]; then
		while IFS= read -r _l; do
			S_HP="$S_HP;$_l"
		done <"$HPSTATES"
	fi
	S_HP="$S_HP;"
}

baseline() {
	state
	B_DRV=$S_DRV B_DBG=$S_DBG B_PLAT=$S_PLAT B_HP=$S_HP
}

# ADDED: the items of list $2 not in list $1, both separated by $3
added() {
	ADDED=
	_ifs=$IFS
	IFS=$3
	set -f
	for _i in $2; do
		[ -n "$_i" ] || continue
		case "$1" in
		*"$3$_i$3"*) ;;
		*) ADDED="$ADDED ${_i##*/}" ;;
		esac
	done
	set +f
	IFS=$_ifs
}

# WHAT: how the state differs from the baseline (empty if it does not)
differs() {
	state
	WHAT=
	[ "$S_DRV" = "$B_DRV" ] || WHAT="$WHAT driver $S_DRV (was $B_DRV);"
	if [ "$S_DBG" != "$B_DBG" ]; then
		added "$B_DBG" "$S_DBG" " "
		WHAT="$WHAT debugfs changed (new:${ADDED:- none});"
	fi
	if [ "$S_PLAT" != "$B_PLAT" ]; then
		added "$B_PLAT" "$S_PLAT" " "
		WHAT="$WHAT platform drivers changed (new:${ADDED:- none});"
	fi
	if [ "$S_HP" != "$B_HP" ]; then
		added "$B_HP" "$S_HP" ";"
		WHAT="$WHAT hotplug states changed (new:${ADDED:- none});"
	fi
	WHAT=${WHAT# }
	WHAT=${WHAT%;}
	[ -z "$WHAT" ]
}

loaded() { # NAME
	[ -e "/sys/module/$1" ] && return 0
	while read -r _m _; do
		[ "$_m" = "$1" ] && return 0
	done </proc/modules
	return 1
}

# a faulted attempt went wrong: count it, and judge the next ones against
# what it left
note() { # PROBLEM
	BAD=$((BAD + 1))
	[ -n "$FIRST" ] || FIRST=$1
	baseline
}

# fault_loop ATTEMPT FAULTED TOLERATED: N = 1.. until an attempt without an
# injected fault; ATTEMPT sets OUT and RC from the helper, FAULTED and
# TOLERATED check a failed and a successful faulted attempt (WHAT: the
# problem) and set STOP when nothing more can be tried.  Sets K (the
# attempt that succeeded), LATE, HELPER, BAD, FIRST, TOL and ERRS.
fault_loop() {
	K='' LATE='' HELPER='' BAD=0 FIRST='' TOL=0 ERRS='' STOP=''
	N=1
	while [ "$N" -le "$MAXN" ]; do
		$1
		case "$RC:$OUT" in
		[01]:*"injected=1"*) inj=1 ;;
		[01]:*"injected=0"*) inj=0 ;;
		*) HELPER="fail-nth $N: $OUT (exit $RC)"; return ;;
		esac
		if [ $inj = 0 ]; then
			if [ "$RC" = 0 ]; then
				K=$N
			else
				HELPER="fail-nth $N: failed without an injected fault: $OUT"
			fi
			return
		fi
		if [ "$RC" = 1 ]; then
			e=${OUT##*errno=}
			e=${e%% *}
			case " $ERRS " in
			*" $e "*) ;;
			*) ERRS="$ERRS $e" ;;
			esac
			$2 || note "fail-nth $N ($e): $WHAT"
		else
			TOL=$((TOL + 1))
			$3 || note "fail-nth $N (succeeded): $WHAT"
		fi
		[ -z "$STOP" ] || return
		now
		if [ "$NOW" -ge "$OP_END" ]; then
			LATE=$N
			return
		fi
		N=$((N + 1))
	done
}

# report DESC POSTCHECK-PROBLEM
report() {
	f=$((K - 1))
	ok="$f faulted attempts returned errors (${ERRS# }) and left nothing"
	if [ "$TOL" -ne 0 ]; then
		ok="$f faulted attempts left nothing: $((f - TOL)) returned errors (${ERRS# }),"
		ok="$ok $TOL succeeded in spite of the fault and were undone"
	fi
	if [ -n "$HELPER" ]; then
		ktap_test_fail "$1: $HELPER${FIRST:+; before: $FIRST}"
	elif [ -n "$STOP" ]; then
		ktap_test_fail "$1: stopped at fail-nth $N: $FIRST"
	elif [ -n "$LATE" ]; then
		msg="time limit of $op_secs s reached at fail-nth $LATE"
		ktap_test_fail "$1: $msg ($BAD went wrong${FIRST:+, first: $FIRST})"
	elif [ -z "$K" ]; then
		msg="fail-nth $MAXN still faulted (CPUIDLE_FAILNTH_MAX)"
		ktap_test_fail "$1: $msg, $BAD went wrong${FIRST:+, first: $FIRST}"
	elif [ "$BAD" -ne 0 ]; then
		msg="$BAD of $((K - 1)) faulted attempts went wrong"
		ktap_test_fail "$1: fail-nth 1..$K: $msg, first: $FIRST"
	elif [ "$K" -eq 1 ]; then
		msg="CONFIG_FAILSLAB? ignore-gfp-wait:${gfp:- not settable}"
		ktap_test_skip "$1: fail-nth 1 reached no fault point ($msg)"
	elif [ -n "$2" ]; then
		ktap_test_fail "$1: fail-nth 1..$K: $ok; attempt $K succeeded; but $2"
	else
		ktap_test_pass "$1: fail-nth 1..$K: $ok; attempt $K succeeded, $POST"
	fi
}

# the time limit of the next op; none left: 0
op_limit() {
	now
	OP_END=$((NOW + SECS))
	[ "$OP_END" -le "$END" ] || OP_END=$END
	op_secs=$((OP_END - NOW))
	[ "$op_secs" -gt 0 ]
}

# --- modules ---
mod_attempt() {
	_ifs=$IFS
	IFS=,
	set -f
	# shellcheck disable=SC2086 # one word per parameter
	set -- $M_PARAMS
	IFS=$_ifs
	set +f
	OUT=$("$FAILNTH" "$N" insmod "$M_PATH" "$@" 2>&1)
	RC=$?
}

mod_faulted() {
	if loaded "$M_NAME"; then
		WHAT="$M_NAME loaded although finit_module failed"
		rmmod "$M_NAME" 2>/dev/null || STOP=1
		return 1
	fi
	differs
}

mod_tolerated() {
	if ! loaded "$M_NAME"; then
		WHAT="finit_module succeeded but $M_NAME is not loaded"
		STOP=1
		return 1
	fi
	if ! rmmod "$M_NAME" 2>/dev/null; then
		WHAT="cannot unload $M_NAME"
		STOP=1
		return 1
	fi
	differs
}

for m in $mods; do
	M_PATH=${m%%:*}
	M_PARAMS=${m#"$M_PATH"}
	M_PARAMS=${M_PARAMS#:}
	M_NAME=$(basename "$M_PATH" .ko | tr - _)
	desc="${M_PATH##*/}${M_PARAMS:+ $(echo "$M_PARAMS" | tr , ' ')}"
	if [ ! -f "$M_PATH" ]; then
		ktap_test_skip "$desc: not found"
		continue
	fi
	if loaded "$M_NAME"; then
		ktap_test_skip "$desc: $M_NAME is loaded already"
		continue
	fi
	if ! op_limit; then
		ktap_test_fail "$desc: no time left (CPUIDLE_FAILNTH_TOTAL=$TOTAL s)"
		continue
	fi
	# a plain load and unload first: the baseline is what they leave
	N=0
	OURS=$M_NAME
	mod_attempt
	if [ "$RC" = 1 ]; then
		OURS=
		ktap_test_skip "$desc: does not load here without faults ($OUT)"
		continue
	elif [ "$RC" != 0 ]; then
		OURS=
		ktap_test_fail "$desc: failnth $FAILNTH: $OUT (exit $RC)"
		continue
	fi
	if ! rmmod "$M_NAME"; then
		ktap_test_fail "$desc: cannot unload after a plain load"
		continue
	fi
	baseline
	kmark "fail-nth loop of $desc"
	fault_loop mod_attempt mod_faulted mod_tolerated
	post=
	POST="unloaded and loaded again"
	if [ -n "$K" ]; then
		WHAT=
		if ! rmmod "$M_NAME"; then
			post="cannot unload it"
		elif ! differs; then
			post="after unloading: $WHAT"
		else
			N=0
			mod_attempt
			if [ "$RC" != 0 ]; then
				post="the next plain load failed: $OUT"
			elif ! rmmod "$M_NAME" || ! differs; then
				post="the next plain load did not unload cleanly${WHAT:+: $WHAT}"
			fi
		fi
	fi
	loaded "$M_NAME" && rmmod "$M_NAME" 2>/dev/null
	OURS=
	report "$desc" "$post"
done

# --- governor switch to rteo ---
gov_attempt() {
	OUT=$("$FAILNTH" "$N" write "$CUR" rteo 2>&1)
	RC=$?
}

gov_faulted() {
	read -r _g <"$CUR"
	if [ "$_g" != "$other" ]; then
		WHAT="current_governor is $_g, was $other"
		echo "$other" 2>/dev/null >"$CUR" || STOP=1
		return 1
	fi
	differs
}

gov_tolerated() {
	read -r _g <"$CUR"
	if [ "$_g" != rteo ]; then
		WHAT="the write succeeded, current_governor is $_g"
		echo "$other" 2>/dev/null >"$CUR" || STOP=1
		return 1
	fi
	echo "$other" 2>/dev/null >"$CUR" || {
		WHAT="cannot switch back to $other"; STOP=1; return 1
	}
	differs
}

avail=" $(cat "$CPUIDLE/available_governors" 2>/dev/null) "
other=
rteo=
for g in teo menu ladder $avail; do
	case "$avail" in
	*" $g "*) [ "$g" = rteo ] && rteo=1 || [ -n "$other" ] || other=$g ;;
	esac
done
desc="switch of current_governor from ${other:-another governor} to rteo"
if [ ! -w "$CUR" ]; then
	ktap_test_skip "$desc: no $CUR"
elif [ -z "$rteo" ]; then
	ktap_test_skip "$desc: rteo not available (${avail# })"
elif [ -z "$other" ]; then
	ktap_test_skip "$desc: no other governor available (${avail# })"
elif ! op_limit; then
	ktap_test_fail "$desc: no time left (CPUIDLE_FAILNTH_TOTAL=$TOTAL s)"
elif ! echo "$other" 2>/dev/null >"$CUR"; then
	ktap_test_fail "$desc: cannot switch to $other"
else
	baseline
	kmark "fail-nth loop of the $desc"
	fault_loop gov_attempt gov_faulted gov_tolerated
	post=
	POST="switched back and again"
	if [ -n "$K" ]; then
		read -r g <"$CUR"
		if [ "$g" != rteo ]; then
			post="current_governor is $g after the successful write"
		elif ! echo "$other" 2>/dev/null >"$CUR"; then
			post="cannot switch back to $other"
		else
			N=0
			gov_attempt
			read -r g <"$CUR"
			[ "$RC" = 0 ] && [ "$g" = rteo ] ||
				post="the next plain switch: $OUT, current_governor $g"
		fi
	fi
	echo "$orig" 2>/dev/null >"$CUR"
	report "$desc" "$post"
fi

# --- kmemleak ---
if [ -z "$leak" ]; then
	ktap_test_skip "kmemleak: not enabled (CONFIG_DEBUG_KMEMLEAK)"
elif [ "$leak" = disabled ]; then
	ktap_test_skip "kmemleak: disabled (scan refused)"
else
	kmark "kmemleak scans"
	# objects younger than 5 s are not reported
	sleep 5
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
	leaks=$(cat "$KMEMLEAK")
	if [ -z "$leaks" ]; then
		ktap_test_pass "kmemleak: no leak after the faulted attempts (two scans)"
	else
		n=$(echo "$leaks" | grep -c '^unreferenced object')
		echo "$leaks" | head -n 60 | sed 's/^/# /'
		ktap_test_fail "kmemleak: $n unreferenced objects after the faulted attempts"
	fi
fi
ktap_finished
