#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-boot.sh PARTS LOG [ARCH]: build ARCH's bench kernel (configs/
# bench.config: no lock or memory debugging, tracing on; ARCH x86_64 by
# default, or ppc64le), an initramfs with the field's tools (x86_64:
# Debian's rt-tests, linux-perf, iperf3, ioping; ppc64le: rt-tests and
# idlebench), and boot it in bench mode running PARTS (comma-separated:
# bench, record, seeds, tickcost; evaluation/guest/*.sh).  The console goes to LOG.
# Fails if the guest did not finish (no BENCH-DONE) or reported an error
# (BENCH-ERROR).
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"
parts=$1 log=$2 arch=${3:-x86_64}
export PROFILE=bench
case $arch in
x86_64) tools="cyclictest hackbench perf iperf3 ioping" ;;
ppc64le) tools="cyclictest idlebench" ;;
*) die "bench-boot: no bench guest for $arch (x86_64 or ppc64le)" ;;
esac
arch_setup "$arch"
"$TOP/pipeline/build.sh" "$arch"
initrd=$BUILD/rcpuidle-bench.cpio
RCPUIDLE_GUEST_TOOLS=$tools "$TOP/pipeline/mkinitramfs.sh" "$arch" "$initrd"
# a scratch disk the recorder's vblk workload reads (its interrupts are a
# device's: virtio-blk's completions); one per boot, so that two bench
# boots can run side by side (QEMU locks the image it writes)
disk=
if [ "$arch" = x86_64 ]; then
	disk=$(mktemp "$BUILD/rcpuidle-bench-disk.XXXXXX")
	trap 'rm -f "$disk"' EXIT
	truncate -s 64M "$disk"
fi
echo "bench: booting $arch (bench kernel) for $parts (console log $log)"
rc=0
clock=
# on the instruction counter the tick costs are stamped in TSC cycles
# (evaluation/guest/tickcost.sh)
[ -n "${RCPUIDLE_ICOUNT:-}" ] && clock="rcpuidle.bench.clock=icount-shift-$RCPUIDLE_ICOUNT"
[ -n "${RCPUIDLE_ICOUNT:-}" ] && [ "$arch" = x86_64 ] && clock="$clock rcpuidle.bench.tcclock=x86-tsc"
RCPUIDLE_QEMU_DISK=$disk \
RCPUIDLE_CMDLINE="rcpuidle.bench.part=$parts $clock ${RCPUIDLE_CMDLINE:-} ${BENCH_ARGS:-}" \
	"$TOP/pipeline/boot.sh" "$arch" bench "$initrd" "$log" "${BENCH_TIMEOUT:-5400}" || rc=$?
grep -q 'BENCH-DONE' "$log" || die "the bench guest did not finish (QEMU rc $rc, log $log)"
if grep -q 'BENCH-ERROR' "$log"; then
	grep 'BENCH-ERROR' "$log" | head -n 10
	die "the bench guest reported errors (log $log)"
fi
# a splat makes every number of the run suspect
if grep -qE 'BUG:|WARNING:|Oops|Call Trace:' "$log"; then
	grep -m 5 -E 'BUG:|WARNING:|Oops|Call Trace:' "$log"
	die "the bench kernel splatted (log $log)"
fi
