#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make run` shows: the idle driver and governor, then per governor
# one table of what changed in an idle phase and in a load phase, summed
# over the CPUs: each state's share of the time, entries, and above/below
# (too deep / too shallow) per entry, the entries the driver rejected (on
# arm64 under QEMU every power-down entry: QEMU's PSCI never resumes
# through cpu_resume), and the wake-ups per second.  The
# full per-CPU counters after each phase follow on lines that start with
# "full:" (`make run` leaves them in the console log).
SYS=/sys/devices/system/cpu
cpuidle=$SYS/cpuidle
T=${RCPUIDLE_SHOW_SECONDS:-2}

# snap FILE: per state "index name usage time above below usage rejected", summed over
# CPUs, usage read before and after above/below: entries from one snapshot
# to the next are counted from the first usage to the second, a window
# that holds every above/below counted between them (the CPUs keep idling
# while the counters are read)
snap() {
	for s in $SYS/cpu0/cpuidle/state*; do
		i=${s##*state}
		u=0 t=0 a=0 b=0 v=0 r=0
		for c in $SYS/cpu[0-9]*/cpuidle/state$i; do
			u=$((u + $(cat "$c/usage"))) t=$((t + $(cat "$c/time")))
			a=$((a + $(cat "$c/above"))) b=$((b + $(cat "$c/below")))
			v=$((v + $(cat "$c/usage"))) r=$((r + $(cat "$c/rejected")))
		done
		echo "$i $(tr ' ' '_' <"$s/name") $u $t $a $b $v $r"
	done >"$1"
	cut -d' ' -f1 /proc/uptime >>"$1"
}

full() {
	for cpu in $SYS/cpu[0-9]*; do
		[ -d "$cpu/cpuidle" ] || continue
		for s in "$cpu"/cpuidle/state*; do
			echo "full: $1 $(basename "$cpu") $(basename "$s") $(tr ' ' '_' <"$s/name")" \
				"usage=$(cat "$s/usage") time_us=$(cat "$s/time")" \
				"above=$(cat "$s/above") below=$(cat "$s/below") rejected=$(cat "$s/rejected")"
		done
	done
}

load() {
	pids=
	for c in $SYS/cpu[0-9]*; do
		(end=$(($(date +%s) + T)); while [ "$(date +%s)" -lt $end ]; do
			i=0; while [ $i -lt 2000 ]; do i=$((i + 1)); done; usleep 10000; done) &
		pids="$pids $!"
	done
	wait $pids
}

echo "== cpuidle =="
echo "driver:               $(cat $cpuidle/current_driver 2>/dev/null)"
echo "governor:             $(cat $cpuidle/current_governor 2>/dev/null)"
echo "available governors:  $(cat $cpuidle/available_governors 2>/dev/null)"
for m in /lib/modules/*.ko; do
	[ -f "$m" ] || continue
	case "$(basename "$m")" in
	*vstates*) insmod "$m" table=x86-like && echo "loaded $(basename "$m") table=x86-like" ;;
	# QEMU has no cede latency settings: inject three XCEDE records
	*pseries-rs*)
		p=002009010000000000000400010200000000000028000103000000000000c8000100
		insmod "$m" lpar=dedicated xcede_payload=$p && echo "loaded $(basename "$m") lpar=dedicated xcede_payload=$p" ;;
	esac
done
drv=$(cat $cpuidle/current_driver 2>/dev/null)
echo "driver after modules: $drv"
if [ ! -d $SYS/cpu0/cpuidle ]; then
	echo "no cpuidle states on cpu0: nothing to show"
	exit 0
fi
ncpu=$(ls -d $SYS/cpu[0-9]*/cpuidle | wc -l)
echo "states (cpu0): $(for s in $SYS/cpu0/cpuidle/state*; do
	printf '%s=%s/%sus ' "$(tr ' ' '_' <"$s/name")" "$(cat "$s/latency")" "$(cat "$s/residency")"; done)(exit latency/target residency)"
echo "phases: idle = ${T} s of sleep; load = ${T} s of a busy loop per CPU with 10 ms sleeps"
echo "time% = share of the ${ncpu} CPUs' time; above/below = entries too deep/too shallow, per entry"
for gov in $(cat $cpuidle/available_governors 2>/dev/null); do
	echo "$gov" >$cpuidle/current_governor || continue
	snap /tmp/s0
	sleep "$T"
	snap /tmp/s1
	full "$gov idle"
	load
	snap /tmp/s2
	full "$gov load"
	echo
	awk -v gov="$gov" -v ncpu="$ncpu" '
	FNR == 1 { f++ }
	NF == 1 { up[f] = $1; next }
	{ name[$1] = $2; u[f, $1] = $3; t[f, $1] = $4; a[f, $1] = $5; b[f, $1] = $6; v[f, $1] = $7; r[f, $1] = $8; if ($1 + 1 > n) n = $1 + 1 }
	function row(p, q, i,   du, dt, span) {
		du = v[q, i] - u[p, i]; dt = t[q, i] - t[p, i]; span = (up[q] - up[p]) * 1e6 * ncpu
		return sprintf("%6.1f %7d %5.2f %5.2f %6d", 100 * dt / span, du,
			du ? (a[q, i] - a[p, i]) / du : 0, du ? (b[q, i] - b[p, i]) / du : 0, r[q, i] - r[p, i])
	}
	function wakeups(p, q,   i, s) { for (i = 0; i < n; i++) s += u[q, i] - u[p, i] + r[q, i] - r[p, i]; return s / (up[q] - up[p]) }
	END {
		printf "%-16s %-33s | %-33s\n", "governor " gov, "idle phase", "load phase"
		printf "%-16s %6s %7s %5s %5s %6s | %6s %7s %5s %5s %6s\n", "state", "time%", "entries", "above", "below", "reject", "time%", "entries", "above", "below", "reject"
		for (i = 0; i < n; i++)
			printf "%-16s %s | %s\n", substr(i " " name[i], 1, 16), row(1, 2, i), row(2, 3, i)
		printf "%-16s %31.0f/s | %31.0f/s\n", "wake-ups", wakeups(1, 2), wakeups(2, 3)
	}' /tmp/s0 /tmp/s1 /tmp/s2
done
