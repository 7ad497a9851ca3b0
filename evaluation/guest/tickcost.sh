#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In-guest measurement of what stopping and restarting the tick costs
# (rcpuidle.mode=bench, rcpuidle.bench.part=tickcost; bench kernel), from
# the kernel's own tracepoints: power:cpu_idle_sleep_length (emitted by
# cpuidle_select() before the governor runs), timer:tick_stop (success=1:
# tick_nohz_stop_tick() stopped the tick, once per idle period),
# power:cpu_idle (entry and exit) and sched:sched_switch (the idle task
# switched in and out).  For each emulated table (time-scaled as in
# bench.sh), governor and workload, every idle period of CPU0 and CPU1 is
# printed as
#   TICKCOST table governor workload cpu stopped kind enter_us exit_us
# stopped: 1 if the tick was stopped in the period (so tick_nohz_idle_exit()
# restarts it), else 0; kind: "timer" if the last entry lasted its sleep
# length, else "irq"; enter_us: from the period's first sleep-length event
# to its first entry (select(), then tick_nohz_idle_stop_tick() or
# _retain_tick()); exit_us: from the last exit to the switch away from the
# idle task (the interrupt, tick_nohz_idle_exit(), schedule).
# evaluation/tickcost.py takes the costs from the difference between stopped
# and kept periods.  The workloads give all four kinds:
#   cyclic10  cyclictest, 10 ms period (timer, tick stopped)
#   cyclic1   cyclictest, 1 ms period (timer, tick mostly kept)
#   fifo      CPU1 reads what CPU0 writes every 20 ms (IPI, tick stopped)
#   pipe      perf bench sched pipe, 2000 loops (IPI, tick kept; the
#             trace buffer holds them all)
SYS=/sys/devices/system/cpu
MOD=/lib/modules/cpuidle-vstates.ko
RULES=/sys/kernel/debug/rteo/rules
T=/sys/kernel/tracing
tables=${RCPUIDLE_BENCH_TABLES:-x86-like mvebu-xp pseries-xcede}
govs=${RCPUIDLE_BENCH_TCGOVS:-teo menu rteo rteo-parity}
scale=${RCPUIDLE_BENCH_SCALE:-10}
secs=${RCPUIDLE_BENCH_TCSECONDS:-3}
max=${RCPUIDLE_BENCH_TCMAX:-1500}
works=${RCPUIDLE_BENCH_TCWORKS:-cyclic10 cyclic1 fifo pipe}
EVENTS="power/cpu_idle power/cpu_idle_sleep_length timer/tick_stop sched/sched_switch"

err() { echo "BENCH-ERROR $*"; }
[ -d $T/events ] || mount -t tracefs tracefs $T 2>/dev/null
for e in $EVENTS; do
	[ -d $T/events/$e ] || { err "tickcost: no tracepoint $e"; exit 0; }
done

events() { for e in $EVENTS; do echo "$1" >$T/events/$e/enable; done; }

work() {
	case $1 in
	cyclic10) cyclictest -t 1 -a 0 -i 10000 -D "$secs" -q --latency=100000000 >/dev/null 2>&1 ;;
	cyclic1) cyclictest -t 1 -a 0 -i 1000 -D "$secs" -q --latency=100000000 >/dev/null 2>&1 ;;
	fifo) rm -f /tmp/tickcost.fifo; mkfifo /tmp/tickcost.fifo || { err "tickcost: mkfifo"; return; }
		taskset -c 1 sh -c 'while read -r l; do :; done' </tmp/tickcost.fifo &
		r=$!
		n=$((secs * 50))
		taskset -c 0 sh -c "i=0; while [ \$i -lt $n ]; do usleep 20000; echo x; i=\$((i + 1)); done" \
			>/tmp/tickcost.fifo
		wait $r
		rm -f /tmp/tickcost.fifo ;;
	pipe) perf bench sched pipe -l 2000 >/dev/null 2>&1 ;;
	*) err "tickcost: unknown workload $1" ;;
	esac
}

# The trace's clock (rcpuidle.bench.tcclock): local by default, whose
# stamps are whole microseconds; x86-tsc stamps in TSC cycles, turned into
# microseconds here with the TSC rate the kernel calibrated.  Under QEMU's
# instruction counter (bench-boot.sh sets x86-tsc there) a microsecond
# stamp phase-locks with a periodic workload, so only cycles resolve the
# few hundred nanoseconds between two governors' decisions.
tclock=${RCPUIDLE_BENCH_TCCLOCK:-local}
mhz=0
if [ "$tclock" != local ]; then
	mhz=$(dmesg | sed -n 's/.*tsc: .* \([0-9][0-9]*\.[0-9]*\) MHz.*/\1/p' | tail -n 1)
	{ [ -n "$mhz" ] && echo "$tclock" >$T/trace_clock; } ||
		{ err "tickcost: trace clock $tclock (TSC rate '$mhz')"; exit 0; }
fi
echo "BENCH-META tickcost scale $scale seconds $secs max_per_cpu $max clock $tclock $mhz"
echo 0 >$T/tracing_on
echo 4096 >$T/buffer_size_kb
for table in $tables; do
	name=$table-x$scale
	rmmod cpuidle_vstates 2>/dev/null
	insmod $MOD table="$table" scale="$scale" || { err "tickcost: load $table scale=$scale"; continue; }
	for g in $govs; do
		# rteo (its three rules in force), rteo-parity (rules=0, its
		# default, which decides as teo: what the Rust glue costs) or
		# rteo-off=MASK (those rules off); rteo takes the rules when
		# enabled: switch away and back
		case $g in
		rteo | rteo-parity | rteo-off=*) on=7
			[ "$g" = rteo-parity ] && on=0
			[ "${g#rteo-off=}" != "$g" ] && on=$((0x7 & ~${g#rteo-off=}))
			echo "$on" >$RULES &&
				echo menu >$SYS/cpuidle/current_governor &&
				echo rteo >$SYS/cpuidle/current_governor ;;
		*) echo "$g" >$SYS/cpuidle/current_governor ;;
		esac || { err "tickcost: governor $g"; continue; }
		for w in $works; do
			echo >$T/trace
			events 1
			echo 1 >$T/tracing_on
			work "$w"
			echo 0 >$T/tracing_on
			events 0
			echo "BENCH-META tickcost $name $g $w lost $(grep -h 'overrun:' $T/per_cpu/cpu*/stats | awk '{ s += $2 } END { print s + 0 }')"
			awk -v pre="TICKCOST $name $g $w" -v max="$max" -v mhz="$mhz" '
			# the time stamp is the field "SECONDS.USECONDS:" (or
			# "CYCLES:" with mhz set), the event the next; the CPU is
			# the field "[NNN]"
			{
				for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+(\.[0-9]+)?:$/) break
				if (i >= NF) next
				t = substr($i, 1, length($i) - 1)
				t = mhz > 0 ? t / mhz : t * 1e6; ev = $(i + 1)
				c = -1
				for (j = 1; j < i; j++) if ($j ~ /^\[[0-9]+\]$/) c = substr($j, 2, length($j) - 2) + 0
				if (c < 0) next
				split("", f)
				for (j = i + 2; j <= NF; j++) if (split($j, kv, "=") == 2) f[kv[1]] = kv[2]
			}
			# the idle task switched in: a period begins
			ev == "sched_switch:" && f["next_pid"] == "0" { inp[c] = 1; stopped[c] = 0; tsl[c] = -1; tin[c] = -1; tx[c] = -1; next }
			ev == "cpu_idle_sleep_length:" && inp[c] { lsl[c] = t; lsl_len[c] = f["sleep_length"] / 1000; if (tsl[c] < 0) tsl[c] = t; next }
			ev == "tick_stop:" && inp[c] && f["success"] == "1" { stopped[c] = 1; next }
			ev == "cpu_idle:" && inp[c] && f["state"] != "4294967295" { if (tin[c] < 0) tin[c] = t; e0[c] = t; esl[c] = lsl[c]; elen[c] = lsl_len[c]; next }
			ev == "cpu_idle:" && inp[c] && f["state"] == "4294967295" { tx[c] = t; next }
			# the idle task switched out: the period ends
			ev == "sched_switch:" && f["prev_pid"] == "0" && inp[c] {
				inp[c] = 0
				if (tsl[c] < 0 || tin[c] < 0 || tx[c] < 0 || tsl[c] > tin[c]) next
				kind = (tx[c] - esl[c] >= elen[c]) ? "timer" : "irq"
				if (n[c]++ < max)
					printf "%s %d %d %s %.3f %.3f\n", pre, c, stopped[c], kind, tin[c] - tsl[c], t - tx[c]
			}' $T/trace
		done
	done
	rmmod cpuidle_vstates || err "tickcost: unload $table"
done
echo local >$T/trace_clock
