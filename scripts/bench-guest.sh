#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest governor benchmarks (rcpuidle.mode=bench, x86_64): for each
# emulated table (cpuidle_vstates) and repetition, each governor in turn
# runs idlebench (pipe ping-pong, periodic timer latency, schbench-like
# wake-up latency) and an idle phase (above/below %, emulated energy).
# Then the per-CPU resume latency scenario: a 1 us limit on CPU1 through
# sysfs, the timer latency on CPU1 and CPU0's deepest-state residency, with
# and without it.  Prints "BENCH table governor rep metric value" lines.
SYS=/sys/devices/system/cpu
MOD=/lib/modules/cpuidle-vstates.ko
E=/sys/kernel/debug/cpuidle_vstates/energy
tables=${RCPUIDLE_BENCH_TABLES:-x86-like mvebu-xp pseries-xcede}
govs=${RCPUIDLE_BENCH_GOVS:-rteo teo menu}
reps=${RCPUIDLE_BENCH_REPS:-9}

RULES_OFF=/sys/module/rteo/parameters/rules_off

# use_gov NAME: NAME is a governor, or rteo-off=MASK: rteo with those rules
# of its default mode off (RCPUIDLE_BENCH_GOVS="rteo teo rteo-off=0x20").
# rteo takes rules_off when enabled on a CPU: switch away and back.
use_gov() {
	case $1 in
	rteo-off=*) echo "${1#rteo-off=}" >$RULES_OFF || return 1 ;;
	*) [ -w $RULES_OFF ] && echo 0 >$RULES_OFF ;;
	esac
	case $1 in
	rteo*) echo menu >$SYS/cpuidle/current_governor
		echo rteo >$SYS/cpuidle/current_governor ;;
	*) echo "$1" >$SYS/cpuidle/current_governor ;;
	esac
}

# rot N WORD...: the words, the first N moved to the end
rot() {
	n=$1
	shift
	tail=
	for w; do
		if [ "$n" -gt 0 ]; then tail="$tail $w"; n=$((n - 1)); else printf '%s ' "$w"; fi
	done
	echo $tail
}

sum() { cat "$@" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
energy() { sed -n 's/.*energy_uj=\([0-9]*\).*/\1/p' "$E" | awk '{ s += $1 } END { print s + 0 }'; }
deepest() { ls -d $SYS/cpu$1/cpuidle/state* | tail -n 1; }

for table in $tables; do
	insmod $MOD table="$table" || { echo "BENCH-ERROR load $table"; continue; }
	rep=1
	ngov=$(echo $govs | wc -w)
	while [ $rep -le "$reps" ]; do
		# each repetition starts with the next governor: a governor's
		# place in the round does not favour it
		for g in $(rot $(((rep - 1) % ngov)) $govs); do
			use_gov "$g" || continue
			sleep 0.3
			idlebench pipe 2000 0 1 | while read -r m v u; do echo "BENCH $table $g $rep $m $v"; done
			idlebench timer 1000 500 1 | while read -r m v u; do echo "BENCH $table $g $rep $m $v"; done
			idlebench wake 300 | while read -r m v u; do echo "BENCH $table $g $rep $m $v"; done
			u0=$(sum $SYS/cpu*/cpuidle/state*/usage)
			a0=$(sum $SYS/cpu*/cpuidle/state*/above)
			b0=$(sum $SYS/cpu*/cpuidle/state*/below)
			e0=$(energy)
			sleep 2
			u1=$(sum $SYS/cpu*/cpuidle/state*/usage)
			a1=$(sum $SYS/cpu*/cpuidle/state*/above)
			b1=$(sum $SYS/cpu*/cpuidle/state*/below)
			e1=$(energy)
			n=$((u1 - u0)); [ $n -gt 0 ] || n=1
			echo "BENCH $table $g $rep idle_entries $((u1 - u0))"
			echo "BENCH $table $g $rep above_pct $(awk "BEGIN { printf \"%.3f\", 100 * ($a1 - $a0) / $n }")"
			echo "BENCH $table $g $rep below_pct $(awk "BEGIN { printf \"%.3f\", 100 * ($b1 - $b0) / $n }")"
			echo "BENCH $table $g $rep idle_energy_uj $((e1 - e0))"
		done
		rep=$((rep + 1))
	done
	# per-CPU resume latency (seed: "PM / QoS: Add per-CPU resume latency"):
	# a 1 us limit on CPU1 must cut CPU1's timer latency while CPU0 keeps
	# its deepest-state residency.
	q=$SYS/cpu1/power/pm_qos_resume_latency_us
	if [ -w "$q" ]; then
		for g in $govs; do
			use_gov "$g" || continue
			for lim in 0 1; do
				echo $lim >$q
				sleep 0.3
				d0=$(cat "$(deepest 0)/time")
				t0=$(cut -d' ' -f1 /proc/uptime)
				idlebench timer 1000 500 1 | while read -r m v u; do
					[ "$m" = timer_p50 ] && echo "BENCH $table $g qos$lim cpu1_timer_p50 $v"
				done
				d1=$(cat "$(deepest 0)/time")
				t1=$(cut -d' ' -f1 /proc/uptime)
				echo "BENCH $table $g qos$lim cpu0_deepest_ms_per_s $(awk "BEGIN { printf \"%.1f\", ($d1 - $d0) / 1000 / ($t1 - $t0) }")"
			done
			echo 0 >$q
		done
	fi
	rmmod cpuidle_vstates
done
# Recorded traces for the simulator's corpus: rteo's recorder (rteo.record)
# on the x86-like table while each workload runs; every record goes to the
# console as "REC workload cpu ...".
R=/sys/module/rteo/parameters/record
if [ -w "$R" ] && [ "${RCPUIDLE_BENCH_RECORD:-1}" = 1 ] && insmod $MOD table=x86-like; then
	echo rteo >$SYS/cpuidle/current_governor
	for w in pipe timer wake gzip idle; do
		echo 1 >$R
		case $w in
		pipe) idlebench pipe 3000 0 1 >/dev/null ;;
		timer) idlebench timer 2000 300 1 >/dev/null ;;
		wake) idlebench wake 400 >/dev/null ;;
		gzip) i=0; while [ $i -lt 6 ]; do
			dd if=/dev/zero bs=4k count=400 2>/dev/null | gzip | md5sum >/dev/null; usleep 20000; i=$((i + 1)); done ;;
		idle) sleep 3 ;;
		esac
		echo 0 >$R
		grep -v '^#' /sys/kernel/debug/rteo/trace | sed "s/^/REC $w /"
	done
	rmmod cpuidle_vstates
fi
echo "BENCH-DONE"
