#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-boot.sh PARTS LOG: build the x86_64 bench kernel (configs/
# bench.config: no lock or memory debugging, tracing on), an initramfs with
# the field's tools (Debian's rt-tests, linux-perf, iperf3, ioping), and
# boot it in bench mode running PARTS (comma-separated: bench, record,
# seeds; scripts/*-guest.sh).  The console goes to LOG.  Fails if the guest
# did not finish (no BENCH-DONE) or reported an error (BENCH-ERROR).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
parts=$1 log=$2
export PROFILE=bench
arch_setup x86_64
"$TOP/scripts/build.sh" x86_64
initrd=$BUILD/rcpuidle-bench.cpio
RCPUIDLE_GUEST_TOOLS="cyclictest hackbench perf iperf3 ioping" "$TOP/scripts/mkinitramfs.sh" x86_64 "$initrd"
echo "bench: booting x86_64 (bench kernel) for $parts (console log $log)"
rc=0
RCPUIDLE_CMDLINE="rcpuidle.bench.part=$parts ${RCPUIDLE_CMDLINE:-} ${BENCH_ARGS:-}" \
	"$TOP/scripts/boot.sh" x86_64 bench "$initrd" "$log" "${BENCH_TIMEOUT:-5400}" || rc=$?
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
