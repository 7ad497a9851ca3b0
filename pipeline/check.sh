#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh ARCH: build, boot in check mode, judge the console.
# The suites each arch must report are in configs/ARCH.tests.
# check.sh ARCH:PART: a second boot of ARCH's kernel, built already (by
# check.sh ARCH), with the suites of configs/ARCH-PART.tests, judged as
# ARCH-PART: pipeline/check-all.sh runs it beside the first, so that a
# long list finishes sooner.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arch=${1%%:*} part=
case $1 in *:*) part=${1#*:} ;; esac
name=$arch${part:+-$part}
tests=$TOP/configs/$name.tests
[ -f "$tests" ] || die "no $tests"
arch_setup "$arch"
t0=$(date +%s)
if [ -n "$part" ]; then
	# (the first boot's check built it; building here again would race
	# with what runs in that build once its guest started: kunit.py)
	[ -f "$BUILD/$IMAGE" ] || die "$name: no kernel at $BUILD/$IMAGE: check.sh $arch builds it"
else
	"$TOP/pipeline/build.sh" "$arch" || exit 1
fi
if [ "$arch" = x86_64 ] && [ -z "$part" ]; then
	# the out-of-tree build through the top-level Kbuild, in a scratch copy
	oot=$(mktemp -d)
	(cd "$TOP" && git ls-files -z 2>/dev/null | xargs -0 -I{} cp --parents {} "$oot/" 2>/dev/null) ||
		cp -r "$TOP"/. "$oot/"
	if make -s -C "$BUILD" M="$oot" LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC" modules >"$oot.log" 2>&1; then
		echo "check: out-of-tree build: $(cd "$oot" && find . -name '*.ko' | sort | tr '\n' ' ')"
	else
		tail -n 20 "$oot.log"
		rm -rf "$oot" "$oot.log"
		die "out-of-tree build (make -C <build> M=...) failed"
	fi
	rm -rf "$oot" "$oot.log"
fi
logs=$CACHE/logs
mkdir -p "$logs"
initrd=$BUILD/rcpuidle-initramfs${part:+-$part}.cpio
RCPUIDLE_TESTS=$tests "$TOP/pipeline/mkinitramfs.sh" "$arch" "$initrd" || exit 1
echo "check: $name: booting (TCG, 2 vCPUs; console log $logs/$name-check.log)"
# the arch's boot time limit ("boot-timeout SECONDS" of ARCH.tests) and
# check boot parameters ("cmdline ...")
tmo=$(awk '$1 == "boot-timeout" { print $2 }' "$tests")
tmo=${tmo:-1200}
cmdline=$(awk '$1 == "cmdline" { $1 = ""; printf "%s", $0 }' "$tests")
# (RCPUIDLE_BOOT_MARK: a file to create as the guest starts, after which
# nothing here reads the build: pipeline/check-all.sh then runs kunit.py in it)
[ -z "${RCPUIDLE_BOOT_MARK:-}" ] || touch "$RCPUIDLE_BOOT_MARK"
# (arm64: QEMU logs the PSCI calls it handles, counted below)
qlog=
[ "$arch" != arm64 ] || { qlog=$logs/$name-qemu.log; rm -f "$qlog"; }
RCPUIDLE_QEMU_LOG=$qlog RCPUIDLE_CMDLINE="${cmdline# } ${RCPUIDLE_CMDLINE:-}" \
	"$TOP/pipeline/boot.sh" "$arch" check "$initrd" "$logs/$name-check.log" "${BOOT_TIMEOUT:-$tmo}"
rc=$?
psci=0
if [ -n "$qlog" ]; then
	# Every entry of a PSCI state the guest counted (usage, or rejected:
	# QEMU's power-down returns without resuming) must be a CPU_SUSPEND
	# call QEMU handled; QEMU's count has, besides, the few calls of the
	# boot, of cpu1's offline/online cycles and of the idle periods after
	# the guest's last reading: at most 2 % + 200 more.
	# (the HVCs QEMU took, the PSCI conduit of virt, as boot.sh kept
	# them: a CPU_SUSPEND, handled as a WFI, leaves the exception before
	# QEMU's "handled as PSCI call" line, so those are not counted)
	calls=$(grep -c '^Taking exception 11 \[Hypervisor Call\]' "$qlog" 2>/dev/null)
	entries=$(awk '$1 == "rcpuidle-counters:" && $3 != "state0" {
		split($5, u, "="); split($6, r, "="); n += u[2] + r[2]; seen = 1 }
		END { if (seen) print n }' "$logs/$name-check.log")
	if [ -z "$entries" ] || [ "${calls:-0}" = 0 ]; then
		echo "check: $name: PSCI calls: RED: no counters from the guest (${entries:-none}) or no QEMU log of PSCI calls (${calls:-none}, $qlog)"
		psci=1
	elif [ "$calls" -lt "$entries" ] || [ "$calls" -gt $((entries + entries / 50 + 200)) ]; then
		echo "check: $name: PSCI calls: RED: QEMU handled $calls, the guest counted $entries entries of its PSCI states (usage + rejected)"
		psci=1
	else
		echo "check: $name: PSCI calls: QEMU handled $calls, the guest counted $entries entries of its PSCI states (usage + rejected): $((calls - entries)) calls besides"
	fi
	[ -n "${RCPUIDLE_KEEP_QEMU_LOG:-}" ] || rm -f "$qlog"
fi
# the dress rehearsal of a board's run: the guest ran the kit's tarball
# with run_kselftest.sh; its output alone (the "ksft: " lines), as a board
# owner would send it, must be green under make verdict too
sed -n 's/^ksft: //p' "$logs/$name-check.log" >"$logs/$name-runner.log"
awk '$1 == "kselftest" { print "cpuidle:" $2 }' "$tests" >"$logs/$name-runner.list"
if out=$(LIST="$logs/$name-runner.list" "$TOP/verdict/verdict.sh" "$logs/$name-runner.log" "$arch" 2>&1); then
	r=green
else
	r=RED
	echo "$out" | grep -E "^$arch: ERROR|FAIL" | head -n 20
fi
echo "check: $name: rehearsal: make verdict on the runner's output ($logs/$name-runner.log): $r, $(echo "$out" | tail -n 1 | sed "s/^$arch: //; s/ skipped\$/ skipped./")"
python3 "$TOP/verdict/ktap.py" "$logs/$name-check.log" --arch "$name" \
	--qemu-rc "$rc" --tests "$tests" \
	--kunit-dir "$PRISTINE/tools/testing/kunit"
v=$?
[ "$r" = green ] || v=1
[ $psci = 0 ] || v=1
echo "check: $name: $(( $(date +%s) - t0 )) s"
exit $v
