#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest replications of the measurements the project grew from
# (rcpuidle.mode=bench with rcpuidle.bench.part=seeds; x86_64, bench
# kernel).  Each runs on cpuidle_vstates with the seed's table, time-scaled
# by RCPUIDLE_BENCH_SCALE (the emulator's own wake-up cost swamps
# unscaled latencies), before and after the seed's change, alternating in
# every repetition, under each governor:
#   000  per-CPU resume latency: cyclictest on CPU0 (the seed's line) on
#        the msm8916 table, without and with cpu0's pm_qos_resume_latency_us
#        just below state 1's latency; CPU1's deep-state residency
#   001  Armada XP thresholds: 2014 (mvebu-xp-2014) against 2015 (mvebu-xp):
#        iperf3 over the loopback, ioping on tmpfs, emulated idle energy
#   002  TEO v6 review: the sleep sweep (threads that only sleep, per-state
#        share of time against the sleep time) and the not-cross-core pipe
#        (both ends on CPU1: state 0 entries per second, share of time)
#   004  menu's polling fallback: a pipe ping-pong pinned to CPU0 and CPU1
#        on x86-like, with the polling state disabled (what menu did
#        before the fix: no polling fallback) and enabled
# and on ppc64le (the real pseries driver, cpuidle-pseries-rs, under QEMU's
# H_CEDE; no time scale: the states' costs are QEMU's own):
#   003  extended CEDE: the seed's cede latency records injected, with
#        XCEDE1 skipped (before: CEDE only, its latency fixed up) or
#        offered (after): a pipe ping-pong pinned to CPU0 and CPU1, a
#        schbench-like wake-up test, and the share of idle time in XCEDE1
# Prints "SEED seed table governor condition rep metric value" lines.
SYS=/sys/devices/system/cpu
MOD=/lib/modules/cpuidle-vstates.ko
E=/sys/kernel/debug/cpuidle_vstates/energy
govs=${RCPUIDLE_BENCH_GOVS:-rteo teo menu}
reps=${RCPUIDLE_BENCH_REPS:-9}
scale=${RCPUIDLE_BENCH_SCALE:-10}
if [ "$(uname -m)" = ppc64le ]; then
	seeds=${RCPUIDLE_BENCH_SEEDS:-003}
else
	seeds=${RCPUIDLE_BENCH_SEEDS:-000 001 002 004}
fi

err() { echo "BENCH-ERROR $*"; }
sum() { cat "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
energy() { sed -n 's/.*energy_uj=\([0-9]*\).*/\1/p' "$E" | awk '{ s += $1 } END { print s + 0 }'; }
up() { cut -d' ' -f1 /proc/uptime; }
# gov NAME: a governor, rteo (its three rules in force) or rteo-off=MASK
# (those without the rules of MASK), as guest/bench.sh's use_gov;
# RCPUIDLE_BENCH_GOVS names them
RULES=/sys/kernel/debug/rteo/rules
gov() {
	case $1 in
	rteo-off=*) echo $((0x7 & ~${1#rteo-off=})) >$RULES || return 1 ;;
	rteo) echo 0x7 >$RULES || return 1 ;;
	esac
	case $1 in
	rteo*) echo menu >$SYS/cpuidle/current_governor &&
		echo rteo >$SYS/cpuidle/current_governor ;;
	*) echo "$1" >$SYS/cpuidle/current_governor ;;
	esac
}
# load TABLE [SCALE]
load() {
	rmmod cpuidle_vstates 2>/dev/null
	insmod $MOD table="$1" scale="${2:-$scale}" || { err "load $1 scale=${2:-$scale}"; return 1; }
}
# conds REP: before and after, in the order of repetition REP (alternating)
conds() { if [ $(($1 % 2)) = 0 ]; then echo after before; else echo before after; fi; }
# out SEED TABLE GOV COND REP: "metric value" lines on stdin to SEED lines
out() { while read -r m v; do echo "SEED $1 $2 $3 $4 $5 $m $v"; done; }

# (003 runs the real pseries driver: no scale)
[ "$seeds" = 003 ] || echo "BENCH-META scale $scale"
for s in $seeds; do
	case $s in
	000)
		# x4, not x10: the state's target residency (2 ms) must stay
		# below cyclictest's 10 ms period, as on the seed's board
		s0=${RCPUIDLE_BENCH_SCALE000:-4}
		load msm8916 "$s0" || continue
		lat=$(cat $SYS/cpu0/cpuidle/state1/latency)
		q=$SYS/cpu0/power/pm_qos_resume_latency_us
		echo "BENCH-META seed000 state1_latency_us $lat qos_us $((lat - 1))"
		rep=1
		while [ $rep -le "$reps" ]; do
			for g in $govs; do
				gov "$g" || err "governor $g"
				for c in $(conds $rep); do
					if [ $c = after ]; then echo $((lat - 1)) >$q; else echo 0 >$q; fi
					d0=$(cat $SYS/cpu1/cpuidle/state1/time) t0=$(up)
					cyclictest -t 1 -a 0 -i 10000 -l 200 -q --latency=10000 2>/dev/null |
						awk '$1 == "T:" { for (i = 1; i < NF; i++) { if ($i == "Avg:") print "avg_us", $(i + 1); if ($i == "Max:") print "max_us", $(i + 1) } }' |
						out 000 msm8916-x$s0 "$g" $c $rep
					d1=$(cat $SYS/cpu1/cpuidle/state1/time) t1=$(up)
					awk -v d=$((d1 - d0)) -v t0="$t0" -v t1="$t1" \
						'BEGIN { printf "cpu1_deep_share %.4f\n", d / 1e6 / (t1 - t0) }' |
						out 000 msm8916-x$s0 "$g" $c $rep
				done
				echo 0 >$q
			done
			rep=$((rep + 1))
		done ;;
	001)
		ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
		rep=1
		while [ $rep -le "$reps" ]; do
			for g in $govs; do
				for c in $(conds $rep); do
					t=mvebu-xp
					[ $c = before ] && t=mvebu-xp-2014
					load $t || continue
					gov "$g" || err "governor $g"
					sleep 0.3
					iperf3 -s -1 -D >/dev/null 2>&1
					sleep 0.2
					iperf3 -c 127.0.0.1 -t 2 -f m 2>/dev/null |
						awk '/receiver/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Mbits/sec") print "iperf_mbit_s", $i }' |
						out 001 $t-x$scale "$g" $c $rep
					ioping -c 200 -i 0 -q -B /tmp 2>/dev/null |
						awk 'NF >= 4 { print "ioping_iops", $3; exit }' |
						out 001 $t-x$scale "$g" $c $rep
					e0=$(energy) t0=$(up)
					sleep 2
					e1=$(energy) t1=$(up)
					awk -v e=$((e1 - e0)) -v t0="$t0" -v t1="$t1" \
						'BEGIN { printf "idle_mw %.1f\n", e / 1000 / (t1 - t0) }' |
						out 001 $t-x$scale "$g" $c $rep
				done
			done
			rep=$((rep + 1))
		done ;;
	002)
		load x86-like || continue
		n=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
		rep=1
		while [ $rep -le "$reps" ]; do
			for g in $govs; do
				gov "$g" || err "governor $g"
				for us in 100 300 1000 3000 10000; do
					i=0
					while [ $i -lt "$n" ]; do eval "t0_$i=$(sum $SYS/cpu*/cpuidle/state$i/time)"; i=$((i + 1)); done
					a=$(up)
					cyclictest -t 8 -i $us -D 2 -q --latency=100000000 >/dev/null 2>&1
					b=$(up)
					i=0
					while [ $i -lt "$n" ]; do
						t1=$(sum $SYS/cpu*/cpuidle/state$i/time)
						eval "t0=\$t0_$i"
						awk -v d=$((t1 - t0)) -v a="$a" -v b="$b" -v i=$i \
							'BEGIN { printf "share_s%d %.4f\n", i, d / 1e6 / (b - a) / 2 }'
						i=$((i + 1))
					done | out 002 x86-like-x$scale "$g" sleep$us $rep
				done
				# not cross-core: both ends of the pipe on CPU1
				u0=$(cat $SYS/cpu1/cpuidle/state0/usage) t0=$(cat $SYS/cpu1/cpuidle/state0/time) a=$(up)
				taskset -c 1 perf bench sched pipe -l 20000 >/dev/null 2>&1
				u1=$(cat $SYS/cpu1/cpuidle/state0/usage) t1=$(cat $SYS/cpu1/cpuidle/state0/time) b=$(up)
				awk -v u=$((u1 - u0)) -v t=$((t1 - t0)) -v a="$a" -v b="$b" \
					'BEGIN { printf "state0_entries_per_s %.1f\nstate0_share_pct %.4f\n", u / (b - a), 100 * t / 1e6 / (b - a) }' |
					out 002 x86-like-x$scale "$g" pipe-same-cpu $rep
			done
			rep=$((rep + 1))
		done ;;
	003)
		# The seed's firmware: cede latency records (pseries_xcede.rs
		# has the layout) for CEDE, hint 0, 1 us (512 timebase ticks),
		# and XCEDE1, hint 1, 2 us, which the driver offers as 12 us
		# (+10 us: its timer stops) with a 120 us target residency.
		# Before, XCEDE1's record says it does not wake on interrupts:
		# the driver skips it and only fixes CEDE's latency up, as the
		# seed's kernel did before its patch.
		PS=/lib/modules/cpuidle-pseries-rs.ko
		rec="0016 09 00 0000000000000200 01 01 0000000000000400"
		# (read through eval by pload)
		# shellcheck disable=SC2034
		pl_before=$(echo "$rec 00 00" | tr -d ' ') pl_after=$(echo "$rec 01 00" | tr -d ' ')
		pload() {
			rmmod cpuidle_pseries_rs 2>/dev/null
			eval "pl=\$pl_$1"
			# shellcheck disable=SC2154
			insmod $PS lpar=dedicated xcede_payload="$pl" || { err "load pseries-rs $1"; return 1; }
		}
		for c in before after; do
			pload $c || continue
			echo "BENCH-META seed003_$c $(cat $SYS/cpu0/cpuidle/state*/name | tr '\n' ' ')"
			cpupower idle-info 2>&1 | grep -E 'Available idle states' | sed "s/^/BENCH-META seed003_cpupower_$c /"
		done
		rep=1
		while [ $rep -le "$reps" ]; do
			for g in $govs; do
				for c in $(conds $rep); do
					pload $c || continue
					gov "$g" || err "governor $g"
					sleep 0.3
					n=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
					all0=$(sum $SYS/cpu*/cpuidle/state*/time) x0=0
					[ "$n" -gt 2 ] && x0=$(sum $SYS/cpu*/cpuidle/state[2-9]/time)
					idlebench pipe 5000 0 1 |
						awk '$1 == "pipe_rtt" && $2 > 0 { printf "pipe_loops_per_s %.1f\n", 1e6 / $2 }' |
						out 003 pseries-dedicated "$g" $c $rep
					idlebench wake 300 | while read -r m v _; do
						case $m in
						wake_p50) echo "wake_p50_us $v" ;;
						wake_p99) echo "wake_p99_us $v" ;;
						esac
					done | out 003 pseries-dedicated "$g" $c $rep
					all1=$(sum $SYS/cpu*/cpuidle/state*/time) x1=0
					[ "$n" -gt 2 ] && x1=$(sum $SYS/cpu*/cpuidle/state[2-9]/time)
					awk -v x=$((x1 - x0)) -v a=$((all1 - all0)) \
						'BEGIN { if (a > 0) printf "xcede_idle_share %.4f\n", x / a }' |
						out 003 pseries-dedicated "$g" $c $rep
				done
			done
			rep=$((rep + 1))
		done
		rmmod cpuidle_pseries_rs 2>/dev/null ;;
	004)
		load x86-like || continue
		rep=1
		while [ $rep -le "$reps" ]; do
			for g in $govs; do
				gov "$g" || err "governor $g"
				for c in $(conds $rep); do
					d=1
					[ $c = after ] && d=0
					echo $d >$SYS/cpu0/cpuidle/state0/disable
					echo $d >$SYS/cpu1/cpuidle/state0/disable
					idlebench pipe 5000 0 1 | awk '$1 == "pipe_rtt" { print "us_per_loop", $2 }' |
						out 004 x86-like-x$scale "$g" $c $rep
				done
				echo 0 >$SYS/cpu0/cpuidle/state0/disable
				echo 0 >$SYS/cpu1/cpuidle/state0/disable
			done
			rep=$((rep + 1))
		done ;;
	*) err "unknown seed $s" ;;
	esac
done
rmmod cpuidle_vstates 2>/dev/null
