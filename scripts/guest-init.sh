#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the rcpuidle test guest.  The kernel command line selects:
#   rcpuidle.mode=check  collect KUnit (already on the console), run the
#                        kselftests listed in /etc/rcpuidle/tests, print KTAP
#   rcpuidle.mode=run    show the idle driver/governor and state statistics
#   rcpuidle.mode=bench  governor benchmarks (bench.sh), BENCH lines
#   rcpuidle.mode=shell  interactive shell
# Every mode ends with "rcpuidle: done" and a reboot (QEMU runs with
# -no-reboot, so that powers the guest off).
/bin/busybox mkdir -p /proc /sys /dev /tmp /bin /sbin /usr/bin /usr/sbin /run
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
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
		case "$a" in rcpuidle.bench.*=*) v=${a#rcpuidle.bench.}; export "RCPUIDLE_BENCH_$(echo "${v%%=*}" | tr a-z A-Z)=$(echo "${v#*=}" | tr , ' ')" ;; esac
	done
	sh /usr/share/rcpuidle/bench.sh
	finish
	;;
check)
	tests=$(cat /etc/rcpuidle/tests 2>/dev/null)
	for t in $tests; do
		set -- $(echo "$t" | tr ':' ' ')
		name=$1; shift
		echo "rcpuidle-kselftest-begin: $name $*"
		# no in-guest timeout: the host kills a hung guest and reports it
		(cd /selftests/cpuidle && RCPUIDLE_ARGS="$*" sh "./$name" 2>&1)
		echo "rcpuidle-kselftest-end: $name rc=$?"
	done
	finish
	;;
esac
finish
