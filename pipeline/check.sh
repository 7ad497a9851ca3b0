#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh build ARCH: build ARCH's kernel and modules for the check boot
#     (x86_64: and the out-of-tree build through the top-level Kbuild),
#     then the stack frames of the project's code (pipeline/frames.sh).
# check.sh boot NAME: boot the built kernel in check mode with the suites
#     of configs/NAME.tests and judge the console.  NAME is ARCH, or
#     ARCH-PART for a second boot of ARCH's kernel with another list
#     (configs/x86_64-vstates.tests).
# Two parts of make check each (pipeline/parts): the boots of one arch
# run side by side once its build is done.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
step=${1:-} name=${2:-}
arch=${name%%-*}
case $step in build | boot) ;; *) die "usage: check.sh build ARCH | boot NAME" ;; esac
arch_setup "$arch"
if [ "$step" = build ]; then
	"$TOP/pipeline/build.sh" "$arch" || exit 1
	# every frame of the project's code within the build's
	# CONFIG_FRAME_WARN
	"$TOP/pipeline/frames.sh" "$arch" || exit 1
	[ "$arch" = x86_64 ] || exit 0
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
	exit 0
fi
tests=$TOP/configs/$name.tests
[ -f "$tests" ] || die "no $tests"
[ -f "$BUILD/$IMAGE" ] || die "$name: no kernel at $BUILD/$IMAGE: check.sh build $arch builds it"
t0=$(date +%s)
logs=$CACHE/logs
mkdir -p "$logs"
initrd=$BUILD/rcpuidle-initramfs-$name.cpio
RCPUIDLE_TESTS=$tests "$TOP/pipeline/mkinitramfs.sh" "$arch" "$initrd" || exit 1
echo "check: $name: booting (TCG, 2 vCPUs; console log $logs/$name-check.log)"
# the boot's limit in QEMU's CPU time ("cpu-limit SECONDS" of the list:
# the same however many guests share the host's CPUs) and its command line
cpu=$(python3 "$TOP/verdict/testlist.py" "$tests" cpu-limit) || die "cannot read $tests"
cmdline=$(python3 "$TOP/verdict/testlist.py" "$tests" cmdline)
# One of as many guest slots as the host has CPUs (RCPUIDLE_GUEST_SLOTS:
# their directory; make check's), held until this boot ends: never more
# guests at once than cores, so that no guest crawls while four others
# and the builds share two cores (its kernel's own clock, and what runs
# on it, would then see another machine).  A free slot if there is one,
# else the wait for the slot of this boot's name.
if [ -n "${RCPUIDLE_GUEST_SLOTS:-}" ]; then
	n=$(nproc)
	got=
	for i in $(seq 1 "$n"); do
		exec {slot}>"$RCPUIDLE_GUEST_SLOTS/$i"
		if flock -n "$slot"; then got=$i; break; fi
		exec {slot}>&-
	done
	if [ -z "$got" ]; then
		got=$(($(echo "$name" | cksum | cut -d' ' -f1) % n + 1))
		exec {slot}>"$RCPUIDLE_GUEST_SLOTS/$got"
		echo "check: $name: waiting for guest slot $got of $n"
		flock "$slot"
	fi
	echo "check: $name: guest slot $got of $n"
fi
# (arm64: QEMU logs the PSCI calls it handles, counted below)
qlog=
[ "$arch" != arm64 ] || { qlog=$logs/$name-qemu.log; rm -f "$qlog"; }
RCPUIDLE_QEMU_LOG=$qlog RCPUIDLE_CMDLINE="$cmdline ${RCPUIDLE_CMDLINE:-}" \
	RCPUIDLE_CPU_LIMIT=${BOOT_CPU_LIMIT:-$cpu} "$TOP/pipeline/boot.sh" "$arch" check "$initrd" "$logs/$name-check.log"
rc=$?
psci=0
if [ -n "$qlog" ]; then
	# Every entry of a PSCI state the guest counted (usage, or rejected:
	# QEMU's power-down returns without resuming; s2idle: suspend-to-idle's
	# entries, counted apart) must be a CPU_SUSPEND
	# call QEMU handled; QEMU's count has, besides, the few calls of the
	# boot, of cpu1's offline/online cycles and of the idle periods after
	# the guest's last reading: at most 2 % + 200 more.
	# (the HVCs QEMU took, the PSCI conduit of virt, as boot.sh kept
	# them: a CPU_SUSPEND, handled as a WFI, leaves the exception before
	# QEMU's "handled as PSCI call" line, so those are not counted)
	calls=$(grep -c '^Taking exception 11 \[Hypervisor Call\]' "$qlog" 2>/dev/null)
	entries=$(awk '$1 == "rcpuidle-counters:" && $3 != "state0" {
		split($5, u, "="); split($6, r, "="); split($7, s, "=")
		n += u[2] + r[2] + s[2]; seen = 1 }
		END { if (seen) print n }' "$logs/$name-check.log")
	if [ -z "$entries" ] || [ "${calls:-0}" = 0 ]; then
		echo "check: $name: PSCI calls: RED: no counters from the guest (${entries:-none}) or no QEMU log of PSCI calls (${calls:-none}, $qlog)"
		psci=1
	elif [ "$calls" -lt "$entries" ] || [ "$calls" -gt $((entries + entries / 50 + 200)) ]; then
		echo "check: $name: PSCI calls: RED: QEMU handled $calls, the guest counted $entries entries of its PSCI states (usage + rejected + s2idle)"
		psci=1
	else
		echo "check: $name: PSCI calls: QEMU handled $calls, the guest counted $entries entries of its PSCI states (usage + rejected + s2idle): $((calls - entries)) calls besides"
	fi
	[ -n "${RCPUIDLE_KEEP_QEMU_LOG:-}" ] || rm -f "$qlog"
fi
# the dress rehearsal of a board's run: the guest ran the kit's tarball
# with run_kselftest.sh; its output alone (the "ksft: " lines), as a board
# owner would send it, must be green under make verdict too
sed -n 's/^ksft: //p' "$logs/$name-check.log" >"$logs/$name-runner.log"
python3 "$TOP/verdict/testlist.py" "$tests" kselftest | cut -f1 | sed 's/^/cpuidle:/' >"$logs/$name-runner.list"
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
