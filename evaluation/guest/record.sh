#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest recording of idle periods with the kernel's own tracepoints
# (rcpuidle.mode=bench, rcpuidle.bench.part=record; bench kernel):
# power:cpu_idle_sleep_length (what the governor is told: the sleep length
# and the time to the next tick), power:cpu_idle (the state entered, and
# when the CPU left it) and power:cpu_idle_miss (too deep / too shallow).
# For each emulated table (time-scaled as in bench.sh), governor and
# workload, one trace of RCPUIDLE_RECORD_SECONDS; every completed idle
# period goes to the console as
#   REC table governor workload cpu t_us sleep_us dur_us tick_us state miss enter_us
# (t_us: entry time; dur_us: entry to exit, the emulated exit latency
# included; miss: above, below or -; enter_us: from the sleep-length event,
# which cpuidle_select() emits before the governor runs, to the entry: the
# governor's select() and its tick decision), at most RCPUIDLE_RECORD_MAX
# periods per CPU; `src`, last on the line, is what woke the CPU: the
# first interrupt it served between entering the state and leaving it
# (x86: the halt serves it, and the polling state polls with IRQs on):
# `timer` (the local APIC timer, irq_vectors:local_timer_entry), `ipi`
# (reschedule, call-function), `irqN` (device interrupt N,
# irq:irq_handler_entry), `work` (irq_work's self-IPI), or `-` (none: a
# polling state left on need_resched or on its poll budget).
# Workloads: the field's tools (hackbench, perf's pipe, cyclictest with 8
# threads, iperf3 on the loopback, ioping on tmpfs, gzip), `nullblk`
# (dd reading 4 KiB with O_DIRECT, one request in flight, from a null_blk
# device whose completions come from a timer, irqmode=2, after
# NULLBLK_NS), `vblk` (ioping reading the guest's virtio-blk disk with
# O_DIRECT every 2 ms: a device's completion interrupts) and `wake`
# (idlebench's schbench-like wake-ups between two CPUs).  After each trace,
#   BENCH-META record-energy table governor workload uj
# gives the emulated energy the driver counted over it (its debugfs energy
# file, as guest/bench.sh reads it), for evaluation/idle_bound.py.
# From the kernel command line (BENCH_ARGS of bench-boot.sh):
# rcpuidle.bench.record_seconds=N, rcpuidle.bench.record_workloads=W1,W2,
# rcpuidle.bench.tables=T1,T2 and rcpuidle.bench.record_reps=N (N traces
# of each workload, named WORKLOAD-rK; one, named WORKLOAD, by default).
# evaluation/trace2corpus.py turns them into the simulator's corpus.
SYS=/sys/devices/system/cpu
MOD=/lib/modules/cpuidle-vstates.ko
T=/sys/kernel/tracing
tables=${RCPUIDLE_BENCH_TABLES:-x86-like mvebu-xp pseries-xcede}
govs=${RCPUIDLE_RECORD_GOVS:-rteo teo menu}
scale=${RCPUIDLE_BENCH_SCALE:-10}
secs=${RCPUIDLE_BENCH_RECORD_SECONDS:-${RCPUIDLE_RECORD_SECONDS:-2}}
max=${RCPUIDLE_RECORD_MAX:-3000}
works=${RCPUIDLE_BENCH_RECORD_WORKLOADS:-${RCPUIDLE_RECORD_WORKLOADS:-idle hackbench pipe cyclic8 iperf ioping gzip nullblk vblk wake}}
NULLBLK_NS=${RCPUIDLE_BENCH_NULLBLK_NS:-500000}
reps=${RCPUIDLE_BENCH_RECORD_REPS:-1}
E=/sys/kernel/debug/cpuidle_vstates/energy

err() { echo "BENCH-ERROR $*"; }
[ -d $T/events ] || mount -t tracefs tracefs $T 2>/dev/null
# the events traced: the idle ones, then each interrupt entry the CPU can
# be woken by (the wake-up sources)
evs="power/cpu_idle power/cpu_idle_miss power/cpu_idle_sleep_length
irq/irq_handler_entry irq_vectors/local_timer_entry irq_vectors/reschedule_entry
irq_vectors/call_function_entry irq_vectors/call_function_single_entry irq_vectors/irq_work_entry"
for e in $evs; do
	[ -d $T/events/$e ] || { err "no tracepoint $e"; exit 0; }
done
case $reps in '' | *[!0-9]* | 0) err "record_reps=$reps: a count of 1 or more"; exit 0 ;; esac
[ -d /sys/kernel/debug/cpuidle_vstates ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ip link set lo up 2>/dev/null
energy() { sed -n 's/.*energy_uj=\([0-9]*\).*/\1/p' "$E" | awk '{ s += $1 } END { print s + 0 }'; }

# work NAME: run the workload for about $secs seconds
work() {
	case $1 in
	idle) sleep "$secs" ;;
	hackbench) end=$(($(date +%s) + secs))
		while [ "$(date +%s)" -lt $end ]; do hackbench -g 1 -f 4 -l 20 >/dev/null 2>&1; usleep 50000; done ;;
	pipe) timeout "$secs" perf bench sched pipe -l 100000000 >/dev/null 2>&1 ;;
	cyclic8) cyclictest -t 8 -i 1000 -D "$secs" -q --latency=100000000 >/dev/null 2>&1 ;;
	iperf) iperf3 -s -1 -D >/dev/null 2>&1; usleep 200000
		iperf3 -c 127.0.0.1 -t "$secs" -b 200M >/dev/null 2>&1 ;;
	ioping) ioping -w "$secs" -i 2ms -q /tmp >/dev/null 2>&1 ;;
	gzip) end=$(($(date +%s) + secs))
		while [ "$(date +%s)" -lt $end ]; do
			dd if=/dev/zero bs=4k count=200 2>/dev/null | gzip | md5sum >/dev/null; usleep 3000; done ;;
	nullblk) timeout "$secs" dd if="$nullb" of=/dev/null bs=4k iflag=direct 2>/dev/null ;;
	vblk) ioping -D -w "$secs" -i 2ms -q /dev/vda >/dev/null 2>&1 ||
		err "vblk: ioping on /dev/vda failed" ;;
	wake) idlebench wake $((secs * 600)) >/dev/null 2>&1 ;;
	*) err "unknown workload $1" ;;
	esac
}

# the null_blk device of `nullblk`: configfs's, timer completions
nullb=
case " $works " in
*" nullblk "*)
	C=/sys/kernel/config
	[ -d $C/nullb ] || mount -t configfs configfs $C 2>/dev/null
	# (the disk is named after its configfs directory; older kernels
	# named it nullbINDEX)
	d=$C/nullb/nullb-rec
	if mkdir $d && echo 2 >$d/irqmode && echo "$NULLBLK_NS" >$d/completion_nsec &&
		echo 1 >$d/power; then
		for b in /dev/nullb-rec "/dev/nullb$(cat $d/index)"; do
			[ -b "$b" ] && { nullb=$b; break; }
		done
	fi
	if [ -n "$nullb" ]; then
		echo "BENCH-META record nullblk $nullb irqmode 2 completion_nsec $NULLBLK_NS"
	else
		err "no null_blk device through configfs ($d)"
	fi ;;
esac

# x86: until the TSC is calibrated the kernel runs on tsc-early, and the
# tick stays periodic (every CPU woken each tick with no timer pending):
# not the system the traces are for
w=0
while [ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" = tsc-early ]; do
	[ $w -ge 300 ] && { err "clocksource still tsc-early after 30 s"; break; }
	sleep 0.1
	w=$((w + 1))
done
echo "BENCH-META record scale $scale seconds $secs max_per_cpu $max"
echo 0 >$T/tracing_on
echo 4096 >$T/buffer_size_kb
for table in $tables; do
	name=$table-x$scale
	rmmod cpuidle_vstates 2>/dev/null
	insmod $MOD table="$table" scale="$scale" || { err "load $table scale=$scale"; continue; }
	for d in $SYS/cpu0/cpuidle/state*; do
		echo "BENCH-META exit_latency_us $name s${d##*state} $(cat $d/latency)"
	done
	for g in $govs; do
		case $g in
		rteo) echo 0x7 >/sys/kernel/debug/rteo/rules
			echo menu >$SYS/cpuidle/current_governor && echo rteo >$SYS/cpuidle/current_governor ;;
		*) echo "$g" >$SYS/cpuidle/current_governor ;;
		esac || { err "governor $g"; continue; }
		for run in $(for w in $works; do
			k=1
			while [ $k -le "$reps" ]; do
				if [ "$reps" = 1 ]; then echo "$w"; else echo "$w-r$k"; fi
				k=$((k + 1))
			done
		done); do
			echo >$T/trace
			for e in $evs; do echo 1 >$T/events/$e/enable; done
			e0=$(energy)
			echo 1 >$T/tracing_on
			work "${run%-r[0-9]*}"
			echo 0 >$T/tracing_on
			e1=$(energy)
			for e in $evs; do echo 0 >$T/events/$e/enable; done
			echo "BENCH-META record $name $g $run lost $(grep -h 'overrun:' $T/per_cpu/cpu*/stats | awk '{ s += $2 } END { print s + 0 }')"
			echo "BENCH-META record-energy $name $g $run $((e1 - e0))"
			awk -v pre="REC $name $g $run" -v max="$max" '
			# the time stamp is the field "SECONDS.USECONDS:", the event the next
			{
				for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
				if (i >= NF) next
				t = substr($i, 1, length($i) - 1) * 1e6; ev = $(i + 1)
				split("", f)
				for (j = i + 2; j <= NF; j++) { split($j, kv, "="); f[kv[1]] = kv[2] }
				c = f["cpu_id"] + 0
				# the interrupt events have no cpu_id: the CPU column
				for (j = 1; j < i; j++) if ($j ~ /^\[[0-9]+\]$/) { cc = substr($j, 2, length($j) - 2) + 0; break }
			}
			function flush(c) { if (have[c]) { if (n[c]++ < max) print pre, c, rec[c], miss[c], ent[c], ws[c]; have[c] = 0 } }
			function woke(s) { if (inidle[cc] && src[cc] == "-") src[cc] = s }
			ev == "local_timer_entry:" { woke("timer") }
			ev == "reschedule_entry:" || ev == "call_function_entry:" || ev == "call_function_single_entry:" { woke("ipi") }
			ev == "irq_work_entry:" { woke("work") }
			ev == "irq_handler_entry:" { woke("irq" (f["irq"] + 0)) }
			ev == "cpu_idle_sleep_length:" { flush(c); sl[c] = f["sleep_length"]; dn[c] = f["delta_next"]; tsl[c] = t; known[c] = 1 }
			ev == "cpu_idle:" && f["state"] != "4294967295" { flush(c); st[c] = f["state"]; t0[c] = t; ent[c] = sprintf("%.0f", t - tsl[c]); inidle[c] = known[c]; src[c] = "-" }
			ev == "cpu_idle:" && f["state"] == "4294967295" && inidle[c] {
				# (%.0f: the sleep length of a CPU with no timer is
				# about KTIME_MAX, beyond the int that %d converts to)
				rec[c] = sprintf("%.0f %.0f %.0f %.0f %d", t0[c], sl[c] / 1000, t - t0[c], dn[c] / 1000, st[c])
				miss[c] = "-"; ws[c] = src[c]; have[c] = 1; inidle[c] = 0; known[c] = 0
			}
			ev == "cpu_idle_miss:" && have[c] { miss[c] = f["type"] }
			END { for (c in have) flush(c) }' $T/trace
		done
	done
	rmmod cpuidle_vstates || err "unload $table"
done
