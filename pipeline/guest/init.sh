#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the rcpuidle test guest.  The kernel command line selects:
#   rcpuidle.mode=check  KUnit is already on the console; run the kselftests
#                        listed in /etc/rcpuidle/tests with run_kselftest.sh
#   rcpuidle.mode=run    show the idle driver/governor and state statistics
#   rcpuidle.mode=bench  governor benchmarks (bench.sh) and the seeds'
#                        replications (seeds.sh): BENCH and SEED lines
#   rcpuidle.mode=shell  interactive shell
# Every mode ends with "rcpuidle: done" and a reboot (QEMU runs with
# -no-reboot, so that powers the guest off).
/bin/busybox mkdir -p /proc /sys /dev /tmp /bin /sbin /usr/bin /usr/sbin /run
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# what udev would add: run_kselftest.sh writes to /dev/stdout
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
export PATH=/bin:/sbin:/usr/bin:/usr/sbin

mode=check
for a in $(cat /proc/cmdline); do
	case "$a" in rcpuidle.mode=*) mode=${a#rcpuidle.mode=} ;; esac
done

finish() {
	sync
	echo "rcpuidle: done"
	reboot -f
	sleep 5
}

case "$mode" in
shell)
	echo "rcpuidle: interactive shell; 'exit' powers off"
	setsid cttyhack sh
	finish
	;;
run)
	sh /usr/share/rcpuidle/show.sh
	finish
	;;
bench)
	for a in $(cat /proc/cmdline); do
		case "$a" in rcpuidle.bench.*=*) v=${a#rcpuidle.bench.}; export "RCPUIDLE_BENCH_$(echo "${v%%=*}" | tr '[:lower:]' '[:upper:]')=$(echo "${v#*=}" | tr , ' ')" ;; esac
	done
	# the parts to run (rcpuidle.bench.part=bench,seeds): bench.sh
	# (evaluation/guest/bench.sh), seeds.sh (evaluation/guest/seeds.sh)
	for p in ${RCPUIDLE_BENCH_PART:-bench}; do
		if [ -r "/usr/share/rcpuidle/$p.sh" ]; then
			sh "/usr/share/rcpuidle/$p.sh"
		else
			echo "BENCH-ERROR no bench part $p"
		fi
	done
	echo "BENCH-DONE"
	finish
	;;
check)
	# The kernel's kselftest runner over the install in /kselftest; the
	# tests to run are the arch's list (/etc/rcpuidle/tests, one
	# "cpuidle:NAME" a line), their arguments the runner's own
	# KSELFTEST_<NAME>_ARGS variables (/etc/rcpuidle/test-env).  Output
	# lines are prefixed so the verdict can tell them from kernel messages.
	set --
	for t in $(cat /etc/rcpuidle/tests); do set -- "$@" -t "$t"; done
	[ -r /etc/rcpuidle/test-env ] && . /etc/rcpuidle/test-env
	# what a board's user loads before the tests (the kit's README)
	while read -r m a; do
		# shellcheck disable=SC2086 # the module's parameters
		if insmod "/lib/modules/$m" $a; then
			echo "rcpuidle: preloaded $m (driver: $(cat /sys/devices/system/cpu/cpuidle/current_driver))"
		else
			echo "rcpuidle: cannot preload $m"
		fi
	done </etc/rcpuidle/preload
	echo "rcpuidle-kselftest-begin"
	# (the vCPUs' busy time so far, all CPUs, in s: under TCG, about the
	# host CPU time the guest took)
	busy() {
		read -r _ u n s _ _ q sq _ </proc/stat
		echo $(((u + n + s + q + sq) / 100))
	}
	echo "rcpuidle-time: $(cut -d' ' -f1 /proc/uptime) s, busy $(busy) s: kselftests begin"
	# no in-guest timeout beyond the runner's own: the host kills a hung guest
	# (each test's end also gets a line with the guest's uptime, for the
	# time each takes)
	{ (cd /kselftest && ./run_kselftest.sh "$@"); echo $? >/tmp/ksft.rc; } 2>&1 |
		while IFS= read -r l; do
			echo "ksft: $l"
			case $l in
			"ok "[0-9]*" selftests: "* | "not ok "[0-9]*" selftests: "*)
				echo "rcpuidle-time: $(cut -d' ' -f1 /proc/uptime) s, busy $(busy) s: $l" ;;
			esac
		done
	echo "rcpuidle-kselftest-end: rc=$(cat /tmp/ksft.rc 2>/dev/null || echo lost)"
	# every state's final counters, for the host's checks (arm64: QEMU's
	# count of the PSCI calls it handled)
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state[0-9]*; do
		[ -r "$d/usage" ] || continue
		c=${d#/sys/devices/system/cpu/}
		s2=$(cat "$d/s2idle/usage" 2>/dev/null || echo 0)
		echo "rcpuidle-counters: ${c%%/*} ${d##*/} $(cat "$d/name") usage=$(cat "$d/usage") rejected=$(cat "$d/rejected") s2idle=$s2"
	done
	finish
	;;
esac
finish
