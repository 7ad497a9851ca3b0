#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-all.sh ARCH...: host tests, the patch-series check and every arch
# (ARCH, or ARCH:PART for a second boot of ARCH's kernel with the suites
# of configs/ARCH-PART.tests); prints a total "N passed, N failed, N
# skipped" and fails if any part did.
#
# The host tests run beside everything else at a low priority.  x86_64
# (the longest guest run) goes in the background, its second boot
# (x86_64:vstates) beside its first once the kernel is built; the other
# arches' kernels build one after the other at a lower CPU priority, and
# each arch boots as soon as its kernel is built, beside the guests
# already running and the next build; kunit.py, rustdoc and the bisect
# build of the series (incremental, from a copy of that build) run in
# the x86_64 build once its guest has started, side by side.
# Each part's output is printed whole, in the order given, when all are
# done, and then a line per part, green or RED with its first line of
# failure; a line marks each part's end as it comes, with the CPU time
# the part took, so that a run stopped from outside still shows what
# finished; last, how busy the CPUs were over the run, and per minute.
#
# The run keeps to a budget: RCPUIDLE_CHECK_BUDGET seconds (default 5100,
# 85 min) from RCPUIDLE_CHECK_T0 (.ci/run sets it before the set-up) or
# from here.  A part still running then is stopped and counted failed,
# and the outputs so far are printed, rather than the whole run being
# killed by CI with nothing to show.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
fail=0 p=0 f=0 s=0
tally() { # add the counts of a "..: N passed, N failed, N skipped" line
	local l
	l=$(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" 2>/dev/null | tail -n1)
	[ -n "$l" ] || return 0
	p=$((p + $(echo "$l" | sed -E 's/.* ([0-9]+) passed.*/\1/')))
	f=$((f + $(echo "$l" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
	s=$((s + $(echo "$l" | sed -E 's/.* ([0-9]+) skipped.*/\1/')))
}
dir=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
t0=${RCPUIDLE_CHECK_T0:-$(date +%s)}
budget=${RCPUIDLE_CHECK_BUDGET:-5100}
exec 3>&1
cpu_s() { # CPU_S: the CPU time (user + system, s) of this shell's waited-for children
	# (times in this shell, not in a command substitution's subshell)
	local f=$dir/times.$BASHPID
	times >"$f"
	CPU_S=$(awk 'NR == 2 { s = 0; for (i = 1; i <= NF; i++) { split($i, b, "m"); s += b[1] * 60 + b[2] }; print int(s) }' "$f")
}
done_line() { # PART FILE: the part's end, its CPU time and its tally line, at once
	cpu_s
	echo "check: $1 done at $(($(date +%s) - t0)) s ($CPU_S CPU-s): $(grep -E '[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$2" 2>/dev/null | tail -n1 || true)" >&3
}
# wait_done PID: until the background part PID has ended.  Its status is
# not used (each part leaves an .rc file, read below).  On a long run the
# PIDs wrap (pid_max 32768 here) and bash forgets a finished child's status
# once a later child gets its PID; wait then says "pid N is not a child of
# this shell" and returns at once, which is right: that part has ended.
wait_done() {
	wait "$1" 2>/dev/null
	return 0
}
below() { # PID: the processes below PID
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		below "$c"
	done
}
# how busy the CPUs were: (busy, total) jiffies of all CPUs, from
# /proc/stat; a sample a minute, printed at the end, shows where the run
# left CPU time unused
cpustat() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
cpu0=$(cpustat)
{
	prev=$cpu0
	while sleep 60; do
		cur=$(cpustat)
		echo "$prev $cur" | awk '{printf "%d ", ($4 > $2 ? 100 * ($3 - $1) / ($4 - $2) : 0)}' >>"$dir/cpu"
		prev=$cur
	done
} </dev/null >/dev/null 2>&1 &
sampler=$!
# the watchdog: at the end of the budget, stop every part (their builds
# and guests with them)
{
	me=$BASHPID
	left=$((t0 + budget - $(date +%s)))
	# (its sleep holds none of the run's output open: a pipe reading
	# this run ends when the run does)
	[ $left -gt 0 ] && { sleep $left </dev/null >/dev/null 2>&1 & wait $!; }
	touch "$dir/deadline"
	echo "check: the budget of $budget s is spent: stopping the parts still running" >&3
	for sig in TERM KILL; do
		all=$(below $$)
		mine=$(below "$me")
		kill -$sig $(echo "$all" | grep -vx -e "$me" $(for q in $mine; do echo "-e $q"; done)) 2>/dev/null
		sleep 10
	done
} &
watchdog=$!


one() { # ARCH: the arch's checks, output in $dir/ARCH, status in $dir/ARCH.rc
	local rc=0
	if [ "$1" = x86_64 ]; then
		"$TOP/pipeline/patches.sh" verify || rc=1
	fi
	RCPUIDLE_BOOT_MARK=$dir/$1.booted "$TOP/pipeline/check.sh" "$1" || rc=1
	[ ! -f "$dir/deadline" ] || { rc=1; echo "check: $1: stopped at the end of the budget ($budget s)"; }
	echo $rc >"$dir/$1.rc"
}
# graft once here: the per-arch builds below then find nothing to change
# in the shared tree, so that running two of them at once is safe
"$TOP/pipeline/graft.sh" || fail=1
# the host tests, beside everything else at a low priority (the guests
# leave the CPUs idle much of the time); their output is printed first
# at the end
{
	RCPUIDLE_BUILD_NICE=15 nice -n 15 "$TOP/pipeline/host-tests.sh" >"$dir/host" 2>&1
	echo $? >"$dir/host.rc"
	done_line "host tests" "$dir/host"
} &
hostpid=$!
# once the x86_64 guest has started (nothing reads the check build then:
# the guest has its kernel and initramfs), the bisect build of the series
# starts from a copy of that build, at the other builds' priority, and
# once it has its copy, kunit.py, rustfmtcheck and rustdoc run in the
# check build beside it, a little below the guests
kunit= kunitpid=
case " $* " in
*" x86_64 "*)
	kunit=1
	{
		while [ ! -f "$dir/x86_64.booted" ] && [ ! -f "$dir/x86_64.rc" ]; do
			sleep 5
		done
		if [ -f "$dir/x86_64.booted" ]; then
			# every prefix of the series builds for x86_64
			# (bisectable), incrementally from a copy of that build
			{
				rc=0
				RCPUIDLE_BISECT_COPIED=$dir/bisect.copied RCPUIDLE_BUILD_NICE=10 \
					"$TOP/pipeline/patches.sh" bisect >"$dir/bisect" 2>&1 || rc=1
				echo $rc >"$dir/bisect.rc"
				done_line bisect "$dir/bisect"
			} &
			bisectpid=$!
			while [ ! -f "$dir/bisect.copied" ] && kill -0 $bisectpid 2>/dev/null; do
				sleep 2
			done
			rc=0
			{ RCPUIDLE_BUILD_NICE=5 "$TOP/pipeline/kunit.sh" &&
				RCPUIDLE_BUILD_NICE=5 "$TOP/pipeline/rustdoc.sh"; } >"$dir/kunit" 2>&1 || rc=1
			[ ! -f "$dir/deadline" ] || { rc=1; echo "kunit: stopped at the end of the budget ($budget s)" >>"$dir/kunit"; }
			echo $rc >"$dir/kunit.rc"
			done_line kunit.py "$dir/kunit"
			wait $bisectpid
		else
			echo "kunit: not run: the x86_64 build failed" >"$dir/kunit"
			echo 1 >"$dir/kunit.rc"
			echo "bisect: not run: the x86_64 build failed" >"$dir/bisect"
			echo 1 >"$dir/bisect.rc"
		fi
	} &
	kunitpid=$! ;;
esac
# the second boots of an arch (ARCH:PART, configs/ARCH-PART.tests), each
# once the arch's own boot has started, beside it (its build is done)
partpids=
for a in "$@"; do
	case $a in *:*) ;; *) continue ;; esac
	{
		base=${a%%:*}
		while [ ! -f "$dir/$base.booted" ] && [ ! -f "$dir/$base.rc" ]; do
			sleep 5
		done
		if [ -f "$dir/$base.booted" ]; then
			one "$a" >"$dir/$a" 2>&1
		else
			echo "check: $a: not run: the $base build failed" >"$dir/$a"
			echo 1 >"$dir/$a.rc"
		fi
		done_line "$a" "$dir/$a"
	} &
	partpids="$partpids $!"
done
bg=
case " $* " in
*" x86_64 "*) [ $# -gt 1 ] && bg=yes ;;
esac
# the other arches' kernels are built one after the other in the
# background, below the x86_64 build, so that the next arch builds while
# the previous one's guest runs; each arch's
# checks start once its build is done (check.sh's build then has nothing
# left to do: no two builds ever share a build directory)
others=
for arch in "$@"; do
	[ "$arch" = x86_64 ] && [ -n "$bg" ] && continue
	case $arch in *:*) continue ;; esac
	others="$others $arch"
done
if [ -n "$others" ]; then
	{
		for arch in $others; do
			cpu_s
			c0=$CPU_S
			RCPUIDLE_BUILD_NICE=${bg:+10} "$TOP/pipeline/build.sh" "$arch" >"$dir/$arch.build" 2>&1
			cpu_s
			echo "check: $arch built at $(($(date +%s) - t0)) s ($((CPU_S - c0)) CPU-s)" >&3
			touch "$dir/$arch.built"
		done
	} &
	builds=$!
fi
if [ -n "$bg" ]; then
	{ one x86_64 >"$dir/x86_64" 2>&1; done_line x86_64 "$dir/x86_64"; } &
	bg=$!
	echo "check: x86_64 running in the background"
fi
# (each arch's checks in the background once its kernel is built, so
# that with the kernels already built, as in a warm run, all the guests
# run side by side)
otherpids=
for arch in $others; do
	while [ ! -f "$dir/$arch.built" ] && kill -0 "$builds" 2>/dev/null; do sleep 5; done
	if [ -f "$dir/deadline" ]; then
		{ cat "$dir/$arch.build" 2>/dev/null; echo "check: $arch: not run: the budget ($budget s) was spent"; } >"$dir/$arch"
		continue
	fi
	{
		{ cat "$dir/$arch.build"; RCPUIDLE_BUILD_NICE=${bg:+10} one "$arch"; } >"$dir/$arch" 2>&1
		done_line "$arch" "$dir/$arch"
	} &
	otherpids="$otherpids $!"
done
[ -z "$others" ] || wait_done "$builds"
for q in $otherpids; do wait_done "$q"; done
[ -z "$kunitpid" ] || wait_done "$kunitpid"
[ -z "$bg" ] || wait_done "$bg"
for q in $partpids; do wait_done "$q"; done
wait_done "$hostpid"
kill $(below "$watchdog") "$watchdog" $(below "$sampler") "$sampler" 2>/dev/null
# each part: its output, its tally; a part whose status is not 0 is red
# and counts at least one failure, whatever its own counts say, and the
# last lines name every red part with its first line of failure (all a
# log's tail may show)
parts=()
part() { # NAME OUT RCFILE
	local f0=$f why
	echo "== $1 =="
	cat "$2" 2>/dev/null
	tally "$2"
	if [ "$(cat "$3" 2>/dev/null)" = 0 ]; then
		parts+=("$1: green")
		return 0
	fi
	fail=1
	[ -f "$3" ] || echo "check: $1: did not finish"
	[ $f -gt $f0 ] || f=$((f + 1))
	why=$(grep -E 'RED|not ok|FAIL|ERROR|[Ee]rror|failed:|did not|not run|stopped|incomplete' "$2" 2>/dev/null |
		grep -vE ' 0 failed, ' | head -n 1 | cut -c1-160)
	parts+=("$1: RED (${why:-status $(cat "$3" 2>/dev/null || echo none), no failure line})")
}
part "host tests" "$dir/host" "$dir/host.rc"
if [ -n "$kunit" ]; then
	part "patch series: bisect" "$dir/bisect" "$dir/bisect.rc"
	[ "$(cat "$dir/bisect.rc" 2>/dev/null)" != 0 ] || p=$((p + 1))
	part "kunit.py, rustfmtcheck, rustdoc" "$dir/kunit" "$dir/kunit.rc"
fi
for arch in "$@"; do
	part "$arch" "$dir/$arch" "$dir/$arch.rc"
done
[ ! -f "$dir/deadline" ] || { echo "== budget =="; echo "check: stopped at the end of the budget ($budget s): what had not finished is counted failed"; f=$((f + 1)); }
echo "== CPUs =="
echo "$cpu0 $(cpustat)" | awk -v n="$(nproc)" -v hz="$(getconf CLK_TCK)" '{
	printf "check: %d CPUs busy %d %% of the run (%d CPU-s unused)\n", n,
		100 * ($3 - $1) / ($4 - $2), (($4 - $2) - ($3 - $1)) / hz }'
echo "check: busy % per minute: $(cat "$dir/cpu" 2>/dev/null)"
echo "== parts =="
printf '%s\n' "${parts[@]}"
echo "== total =="
echo "$p passed, $f failed, $s skipped"
[ $fail = 0 ] && [ $f = 0 ]
