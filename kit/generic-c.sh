#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# generic-c.sh (make generic-c): the generic kselftests against an upstream
# C driver.  Vanilla 7.3 with just the generic kselftests' patch
# (pipeline/patches.sh generic, out/patches/generic/), built for ppc64le
# with the C pseries cpuidle driver and no Rust (configs/common.config,
# debug.config, ppc64le.config, then kit/generic-c.config), booted on
# QEMU's pseries; the guest runs the patched tree's gen_tar tarball with
# run_kselftest.sh, and the verdict judges the console (kit/generic-c.tests)
# and, as make verdict, the runner's output.  Its own tree and build
# directory in the cache; about 15 minutes cold here, 5 warm.
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"
arch=ppc64le
export RCPUIDLE_TREE=$CACHE/generic/linux-$KVER
export RCPUIDLE_BUILD=$CACHE/build/generic-c-$arch-$KVER
TREE=$RCPUIDLE_TREE
arch_setup "$arch"
out=${1:-$TOP/out/generic-c}
mkdir -p "$out" "$CACHE/generic" "$CACHE/logs"

# the patch, and a tree with it: a hard-link copy of the pristine source,
# the files the patch edits copied first so that the pristine stays so
"$TOP/pipeline/patches.sh" generic "$out/patches"
patch=$(ls "$out"/patches/*.patch)
stamp=$(sed -n '/^---$/,$p' "$patch" | sha256sum | cut -c1-16)
if [ "$(cat "$TREE/.rcpuidle-generic" 2>/dev/null)" != "$stamp" ]; then
	echo "generic-c: creating $TREE with $(basename "$patch")"
	rm -rf "$TREE" "$TREE.tmp"
	cp -al "$PRISTINE" "$TREE.tmp"
	for f in $(grep -E '^\+\+\+ b/' "$patch" | sed 's|^+++ b/||'); do
		[ ! -f "$TREE.tmp/$f" ] || { cp "$TREE.tmp/$f" "$TREE.tmp/$f.u" && mv "$TREE.tmp/$f.u" "$TREE.tmp/$f"; }
	done
	patch -s -p1 -d "$TREE.tmp" --no-backup-if-mismatch <"$patch" ||
		die "$(basename "$patch") does not apply to $KVER"
	echo "$stamp" >"$TREE.tmp/.rcpuidle-generic"
	mv "$TREE.tmp" "$TREE"
fi

RCPUIDLE_KCONFIG_FRAGS="$TOP/kit/generic-c.config" "$TOP/pipeline/kconfig.sh" "$arch"
{ grep -qx 'CONFIG_PSERIES_CPUIDLE=y' "$BUILD/.config" && ! grep -q '^CONFIG_RUST=y' "$BUILD/.config"; } ||
	die "$BUILD/.config: not the C pseries driver without Rust"
echo "generic-c: building vmlinux in $BUILD"
nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${KMAKE[@]}" -j"${JOBS:-3}" vmlinux >"$BUILD/.rcpuidle-build.log" 2>&1 || {
	tail -n 20 "$BUILD/.rcpuidle-build.log"
	die "build failed (log: $BUILD/.rcpuidle-build.log)"
}

# the collection as the patched tree packs it
o=$(mktemp -d)
trap 'rm -rf "$o"' EXIT
make -C "$TREE/tools/testing/selftests" O="$o" ARCH="$KARCH" LLVM=-19 TARGETS=cpuidle \
	gen_tar >"$o/log" 2>&1 || { tail -n 20 "$o/log"; die "gen_tar failed"; }
cp "$o/kselftest/kselftest_install/kselftest-packages/kselftest.tar.gz" "$out/kselftest-cpuidle.tar.gz"
RCPUIDLE_TESTS=$TOP/kit/generic-c.tests RCPUIDLE_KSFT_TARBALL=$out/kselftest-cpuidle.tar.gz \
	"$TOP/pipeline/mkinitramfs.sh" "$arch" "$o/initramfs.cpio"

log=$CACHE/logs/generic-c-$arch.log
echo "generic-c: booting (TCG, 2 vCPUs; console log $log)"
rc=0
RCPUIDLE_CPU_LIMIT=$(python3 "$TOP/verdict/testlist.py" "$TOP/kit/generic-c.tests" cpu-limit) \
	"$TOP/pipeline/boot.sh" "$arch" check "$o/initramfs.cpio" "$log" || rc=$?
echo "generic-c: the tests ran against: $(grep -m1 -oE 'driver [a-z_]+' "$log" || echo '(no driver named)')"
sed -n 's/^ksft: //p' "$log" >"$out/runner.log"
tar -xOzf "$out/kselftest-cpuidle.tar.gz" ./kselftest-list.txt >"$out/list"
v=0
LIST=$out/list "$TOP/verdict/verdict.sh" "$out/runner.log" "$arch" | sed 's/^/generic-c: make verdict: /' || v=1
python3 "$TOP/verdict/ktap.py" "$log" --arch "$arch" --qemu-rc "$rc" --tests "$TOP/kit/generic-c.tests" \
	--kunit-dir "$PRISTINE/tools/testing/kunit" || v=1
exit $v
