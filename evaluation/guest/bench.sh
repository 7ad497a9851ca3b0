#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest governor benchmarks (rcpuidle.mode=bench, x86_64, the bench
# kernel profile).  For each emulated table (cpuidle_vstates, time-scaled
# by RCPUIDLE_BENCH_SCALE: the emulator's own wake-up cost would swamp the
# real tables' latencies) and repetition, every governor runs in turn, in
# an order that rotates with the repetition:
#   cyclictest  Debian's rt-tests, seed 000's settings (-t 1 -i 10000
#               --latency=10000), pinned to CPU0, every sample printed;
#               with the run's emulated energy (both CPUs, and CPU0's)
#               and the mean exit latency of the states CPU0 entered
#   hackbench   Debian's rt-tests, process groups over sockets
#   pipe        perf bench sched pipe (Debian's linux-perf): where its two
#               tasks run is the scheduler's choice, the same CPU (no idle
#               at all) or two, and it changes from run to run
#   pipe-pinned the same round trip with one end pinned to each CPU
#               (tools/idlebench pipe): every wake-up from idle
#   wake        schbench-like wake-up latency (tools/idlebench: no packaged
#               schbench)
#   idle        2 s of idle: emulated energy, above/below per entry
# rteo-parity (rteo in its parity mode, which decides as teo) is the A/A
# control.  Before the governors, in every repetition: the floor
# (cyclictest with /dev/cpu_dma_latency at 0, the shallowest state only)
# and, per state, how late a timer wake-up is with that state alone
# enabled.  rcpuidle.bench.benchmarks=B1,B2 runs only those benchmarks
# (all by default; the floor always).
# Prints "BENCH table governor rep benchmark metric value" lines,
# and "BENCH-META ..." lines (/init prints "BENCH-DONE" after all parts).
SYS=/sys/devices/system/cpu
MOD=/lib/modules/cpuidle-vstates.ko
E=/sys/kernel/debug/cpuidle_vstates/energy
tables=${RCPUIDLE_BENCH_TABLES:-x86-like mvebu-xp pseries-xcede}
govs=${RCPUIDLE_BENCH_GOVS:-rteo teo menu rteo-parity}
reps=${RCPUIDLE_BENCH_REPS:-9}
scale=${RCPUIDLE_BENCH_SCALE:-10}
loops=${RCPUIDLE_BENCH_LOOPS:-200}
all="cyclictest hackbench pipe pipe-pinned wake idle"
benches=${RCPUIDLE_BENCH_BENCHMARKS:-$all}
for b in $benches; do
	case " $all " in *" $b "*) ;; *) echo "BENCH-ERROR unknown benchmark $b (of: $all)"; exit 0 ;; esac
done
# has BENCHMARK: whether this run runs it
has() { case " $benches " in *" $1 "*) return 0 ;; esac; return 1; }

# rteo's rules in force (debugfs; 0: teo's decisions, its default)
RULES=/sys/kernel/debug/rteo/rules

err() { echo "BENCH-ERROR $*"; }

# use_gov NAME: NAME is a governor; rteo (the label of rteo with its three
# rules in force, rules=0x7), rteo-parity (rules=0: teo's decisions, rteo's
# default) or rteo-off=MASK (0x7 without the rules of MASK).  rteo takes
# the rules when enabled on a CPU: switch away and back.
use_gov() {
	case $1 in
	rteo-off=*) echo $((0x7 & ~${1#rteo-off=})) >$RULES || return 1 ;;
	rteo-parity) echo 0 >$RULES || return 1 ;;
	rteo*) echo 0x7 >$RULES || return 1 ;;
	esac
	case $1 in
	rteo*) echo menu >$SYS/cpuidle/current_governor &&
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
# energy [CPU]: the emulated energy so far (uJ), of every CPU or of cpuCPU
energy() { sed -n "s/^cpu${1:-[0-9]*} energy_uj=\([0-9]*\).*/\1/p" "$E" | awk '{ s += $1 } END { print s + 0 }'; }

# cyclic LATENCY: cyclictest pinned to CPU0, every sample (-v); prints
# "avg_us V", "max_us V", "p50_us V", "p99_us V"
cyclic() {
	cyclictest -t 1 -a 0 -i 10000 -l "$loops" -q -v --latency="$1" 2>/dev/null |
		awk '$1 == "0:" { v[n++] = $3 + 0 }
		END {
			if (n < '"$loops"') { print "short", n; exit 1 }
			# insertion sort: a few hundred samples
			for (i = 1; i < n; i++) { x = v[i]; for (j = i - 1; j >= 0 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
			for (i = 0; i < n; i++) s += v[i]
			printf "avg_us %.1f\nmax_us %d\np50_us %d\np99_us %d\n", s / n, v[n - 1], v[int(n * 0.5)], v[int(n * 0.99)]
		}'
}

# lat_sum: CPU0's entries so far, each weighted by its state's exit latency
# (us), and the entries: "SUM COUNT"
lat_sum() {
	for d in $SYS/cpu0/cpuidle/state*; do
		echo "$(cat "$d/usage") $(cat "$d/latency")"
	done | awk '{ s += $1 * $2; c += $1 } END { print s + 0, c + 0 }'
}

# cyclic_cost: cyclic 10000, then what the governor paid for its latency:
# the emulated energy of the run (both CPUs, and CPU0's, where cyclictest
# runs) and the mean exit latency of the states CPU0 entered
cyclic_cost() {
	e0=$(energy)
	c0=$(energy 0)
	l0=$(lat_sum)
	cyclic 10000 || return
	e1=$(energy)
	c1=$(energy 0)
	l1=$(lat_sum)
	echo "energy_uj $((e1 - e0))"
	echo "cpu0_energy_uj $((c1 - c0))"
	echo "$l0 $l1" | awk '{ c = $4 - $2; printf "exit_us_per_entry %.2f\n", (c > 0 ? ($3 - $1) / c : 0) }'
}

# emit TABLE GOV REP BENCHMARK: "metric value" lines on stdin to BENCH lines
emit() {
	while read -r m v; do
		case $m in
		short) err "$1 $2 $3 $4: $v of $loops samples" ;;
		*) echo "BENCH $1 $2 $3 $4 $m $v" ;;
		esac
	done
}

# floor NAME REP: the floor (the shallowest state only: cyclictest with
# /dev/cpu_dma_latency at 0, under teo), then each state alone: how late a
# 10 ms timer wakes from it, with every other state disabled
floor() {
	use_gov teo || err "teo"
	cyclic 0 | emit "$1" none "$2" floor
	i=0
	while [ $i -lt "$n" ]; do
		for c in 0 1; do
			j=0
			while [ $j -lt "$n" ]; do
				[ $j = $i ]; echo $? >$SYS/cpu$c/cpuidle/state$j/disable
				j=$((j + 1))
			done
		done
		cyclic 10000000 | emit "$1" none "$2" "exitlat-s$i"
		i=$((i + 1))
	done
	for c in 0 1; do
		for d in $SYS/cpu$c/cpuidle/state*/disable; do echo 0 >"$d"; done
	done
}

echo "BENCH-META scale $scale"
# the guest's clock (boot.sh, RCPUIDLE_ICOUNT): QEMU's wall clock, or
# instructions counted (icount-shift-N: 2^N ns each, halted time skipped)
echo "BENCH-META clock ${RCPUIDLE_BENCH_CLOCK:-wall}"
echo "BENCH-META tools $(cyclictest --help 2>&1 | head -n 1 | tr -s ' ') / $(perf version 2>&1)"
for table in $tables; do
	name=$table-x$scale
	[ "$scale" = 1 ] && name=$table
	insmod $MOD table="$table" scale="$scale" || { err "load $table scale=$scale"; continue; }
	n=$(ls -d $SYS/cpu0/cpuidle/state* | wc -l)
	i=0
	while [ $i -lt "$n" ]; do
		echo "BENCH-META exit_latency_us $name s$i $(cat $SYS/cpu0/cpuidle/state$i/latency)"
		i=$((i + 1))
	done
	rep=1
	ngov=$(echo $govs | wc -w)
	while [ $rep -le "$reps" ]; do
		floor "$name" "$rep"
		# each repetition starts with the next governor: a governor's
		# place in the round does not favour it
		for g in $(rot $(((rep - 1) % ngov)) $govs); do
			use_gov "$g" || { err "governor $g"; continue; }
			sleep 0.3
			has cyclictest && cyclic_cost | emit "$name" "$g" "$rep" cyclictest
			has hackbench && hackbench -g 2 -f 5 -l 500 2>&1 |
				awk '$1 == "Time:" { print "time_s", $2 }' | emit "$name" "$g" "$rep" hackbench
			has pipe && perf bench sched pipe -l 5000 2>&1 |
				awk '$2 == "usecs/op" { print "usec_per_op", $1 }' | emit "$name" "$g" "$rep" pipe
			has pipe-pinned && idlebench pipe 5000 0 1 |
				awk '$1 == "pipe_rtt" { print "usec_per_op", $2 }' | emit "$name" "$g" "$rep" pipe-pinned
			has wake && idlebench wake 300 | while read -r m v _; do
				case $m in
				wake_p50) echo "p50_us $v" ;;
				wake_p99) echo "p99_us $v" ;;
				esac
			done | emit "$name" "$g" "$rep" wake
			has idle || continue
			u0=$(sum $SYS/cpu*/cpuidle/state*/usage)
			a0=$(sum $SYS/cpu*/cpuidle/state*/above)
			b0=$(sum $SYS/cpu*/cpuidle/state*/below)
			e0=$(energy)
			t0=$(cut -d' ' -f1 /proc/uptime)
			sleep 2
			u1=$(sum $SYS/cpu*/cpuidle/state*/usage)
			a1=$(sum $SYS/cpu*/cpuidle/state*/above)
			b1=$(sum $SYS/cpu*/cpuidle/state*/below)
			e1=$(energy)
			t1=$(cut -d' ' -f1 /proc/uptime)
			awk -v u=$((u1 - u0)) -v a=$((a1 - a0)) -v b=$((b1 - b0)) -v e=$((e1 - e0)) \
				-v t="$t0" -v t1="$t1" 'BEGIN {
				d = u > 0 ? u : 1
				printf "energy_uj %d\nentries %d\nabove_per_entry %.4f\nbelow_per_entry %.4f\nwakeups_per_s %.1f\n",
					e, u, a / d, b / d, u / (t1 - t)
			}' | emit "$name" "$g" "$rep" idle
		done
		rep=$((rep + 1))
	done
	rmmod cpuidle_vstates || err "unload $table"
done
