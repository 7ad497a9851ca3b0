#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh ARCH MODE INITRAMFS LOG [TIMEOUT]: boot the built kernel under
# QEMU TCG with 2 vCPUs.  MODE is check, run or shell.  The console goes
# to LOG (and to stdout for run/shell).  Exit status: QEMU's, or 124 when
# the boot timed out (the guest is killed).
# RCPUIDLE_CPU_LIMIT=SECONDS (check mode): the limit is QEMU's CPU time
# instead (RLIMIT_CPU), which does not grow when other guests and builds
# share the host's CPUs, as the wall clock does; TIMEOUT is then 4 times
# that, a backstop for a guest hung with its vCPUs halted.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1 mode=$2 initrd=$3 log=$4 tmo=${5:-900}
arch_setup "$arch"
kernel=$BUILD/$IMAGE
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make kernel ARCH=$arch'"

append="printk.time=0 panic=-1 rcpuidle.mode=$mode ${RCPUIDLE_CMDLINE:-}"
case "$arch" in
x86_64)
	qemu=(qemu-system-x86_64 -M pc -cpu max -m 1G)
	append="console=ttyS0 $append" ;;
ppc64le)
	qemu=(qemu-system-ppc64 -M pseries -cpu "${RCPUIDLE_PPC_CPU:-power10}" -m 1G)
	append="console=hvc0 $append" ;;
armv7)
	qemu=(qemu-system-arm -M virt -cpu cortex-a15 -m 512M)
	append="console=ttyAMA0 $append" ;;
arm64)
	qemu=(qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1G)
	append="console=ttyAMA0 $append"
	# QEMU's own tree with the idle states of configs/arm64-idle-states.dts
	dtb=$BUILD/rcpuidle-virt.dtb
	"$TOP/pipeline/arm64-dtb.sh" "$dtb" -cpu cortex-a57 -smp 2 -m 1G || exit 1
	qemu+=(-dtb "$dtb")
	# RCPUIDLE_QEMU_LOG=FILE: the HVCs (PSCI calls) QEMU takes, one line
	# each, for the check's count: QEMU logs every exception (-d int),
	# through a pipe that keeps only those lines (a boot's whole log is
	# hundreds of MB)
	if [ -n "${RCPUIDLE_QEMU_LOG:-}" ]; then
		fifo=$(mktemp -u)
		mkfifo "$fifo"
		grep '^Taking exception 11 \[Hypervisor Call\]' <"$fifo" >"$RCPUIDLE_QEMU_LOG" &
		qlog_pid=$!
		trap 'rm -f "$fifo"' EXIT
		qemu+=(-d int -D "$fifo")
	fi ;;
esac
# RCPUIDLE_ICOUNT=SHIFT: the guest's clock counts instructions (one per
# 2^SHIFT ns, single-threaded TCG) and skips the time every vCPU is
# halted, so the guest's timings do not depend on the host's load
if [ -n "${RCPUIDLE_ICOUNT:-}" ]; then
	qemu+=(-accel "tcg,thread=single" -icount "shift=$RCPUIDLE_ICOUNT,sleep=off,align=off")
else
	qemu+=(-accel tcg)
fi
qemu+=(-smp 2 -kernel "$kernel" -initrd "$initrd" -append "$append"
       -nographic -no-reboot -monitor none)
# RCPUIDLE_QEMU_DISK=FILE: a raw image as the guest's virtio-blk disk
# (evaluation/bench-boot.sh: the recorder's device-interrupt workload)
if [ -n "${RCPUIDLE_QEMU_DISK:-}" ]; then
	qemu+=(-drive "file=$RCPUIDLE_QEMU_DISK,if=none,id=rcpuidle-disk,format=raw"
	       -device "virtio-blk-pci,drive=rcpuidle-disk")
fi

if [ "$mode" = shell ]; then
	exec "${qemu[@]}"
fi
mkdir -p "$(dirname "$log")"
if [ "$mode" = run ]; then
	timeout --foreground -k 10 "$tmo" "${qemu[@]}" </dev/null 2>&1 | tee "$log"
	exit "${PIPESTATUS[0]}"
fi
# (the CPU time QEMU takes: this shell's children's, from the times
# builtin, before and after)
tf=$(mktemp)
kids_cpu() { # the CPU seconds of this shell's children so far, in $kids
	times >"$tf"
	kids=$(tail -n 1 "$tf" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); n += t[1] * 60 + t[2] } print n }')
}
kids_cpu
c0=$kids t0=$(date +%s)
cpu=${RCPUIDLE_CPU_LIMIT:-}
if [ -n "$cpu" ]; then
	tmo=$((4 * cpu))
	# (soft: SIGXCPU, which ends QEMU; hard, 10 s later: SIGKILL; no core
	# file.  --foreground: the signal of a make check part's own time
	# limit, sent to its process group, reaches QEMU too)
	timeout --foreground -k 10 "$tmo" prlimit --core=0 --cpu="$cpu:$((cpu + 10))" \
		"${qemu[@]}" </dev/null >"$log" 2>&1
else
	timeout --foreground -k 10 "$tmo" "${qemu[@]}" </dev/null >"$log" 2>&1
fi
rc=$?
kids_cpu
rm -f "$tf"
took=$(awk -v a="$kids" -v b="$c0" 'BEGIN { printf "%.0f", a - b }')
echo "boot: $arch: QEMU ran $(($(date +%s) - t0)) s and took $took CPU-s${cpu:+ (limit $cpu CPU-s)}"
case $rc in
124) echo "boot: $arch: stopped at $tmo s of wall-clock time" ;;
$((128 + 24)) | 137)
	if [ -n "$cpu" ] && [ "$took" -ge "$cpu" ]; then
		echo "boot: $arch: stopped at its limit of $cpu CPU-s"
		rc=124
	fi ;;
esac
# (the filter of QEMU's log writes its last lines once QEMU has closed
# the pipe: the log is whole only when the filter has exited; a writer
# of no lines ends its wait if QEMU never opened the pipe)
if [ -n "${qlog_pid:-}" ]; then
	# shellcheck disable=SC2016 # ($1 of the inner sh)
	timeout 10 sh -c ': >"$1"' sh "$fifo" </dev/null >/dev/null 2>&1 &
	wait "$qlog_pid"
fi
exit $rc
