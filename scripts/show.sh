#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What `make run` shows: the idle driver and governor, and each CPU's
# state table with its statistics after an idle phase and a load phase.
cpuidle=/sys/devices/system/cpu/cpuidle

table() {
	for cpu in /sys/devices/system/cpu/cpu[0-9]*; do
		[ -d "$cpu/cpuidle" ] || { echo "$(basename "$cpu"): no cpuidle states"; continue; }
		echo "$(basename "$cpu"):"
		printf '  %-6s %-18s %8s %9s %10s %12s %8s %8s\n' state name "exit(us)" "resid(us)" usage "time(us)" above below
		for s in "$cpu"/cpuidle/state*; do
			printf '  %-6s %-18s %8s %9s %10s %12s %8s %8s\n' "$(basename "$s")" \
				"$(cat "$s/name")" "$(cat "$s/latency")" "$(cat "$s/residency")" \
				"$(cat "$s/usage")" "$(cat "$s/time")" "$(cat "$s/above")" "$(cat "$s/below")"
		done
	done
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
		insmod "$m" lpar=dedicated xcede_payload=$p && echo "loaded $(basename "$m") lpar=dedicated xcede_payload=$p"
		cat /sys/kernel/debug/cpuidle_pseries/states 2>/dev/null ;;
	esac
done
echo "driver after modules: $(cat $cpuidle/current_driver 2>/dev/null)"
for gov in $(cat $cpuidle/available_governors 2>/dev/null); do
	echo "== governor $gov =="
	echo "$gov" >$cpuidle/current_governor || continue
	echo "-- idle phase (2 s) --"
	sleep 2
	table
	echo "-- load phase (2 s, one busy loop per CPU, 10 ms sleeps between bursts) --"
	pids=
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		( end=$(($(date +%s) + 2)); while [ "$(date +%s)" -lt $end ]; do i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done; usleep 10000; done ) &
		pids="$pids $!"
	done
	wait $pids
	table
done
