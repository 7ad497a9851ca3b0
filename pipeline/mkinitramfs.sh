#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh ARCH OUT: busybox initramfs for ARCH holding /init, the
# project's modules from the build (each "module NAME.ko" line of
# configs/ARCH.tests), the kselftests of the kit's tarball (the kernel's
# make -C tools/testing/selftests TARGETS=cpuidle gen_tar) in /kselftest,
# and the list of kselftests /init runs in check mode.  A missing module
# or file fails the build of the initramfs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1 out=$2
arch_setup "$arch"
# (RCPUIDLE_TESTS: another list, RCPUIDLE_KSFT_TARBALL: a kselftest
# tarball made already, for kit/generic-c.sh's vanilla kernel)
tests=${RCPUIDLE_TESTS:-$TOP/configs/$arch.tests}
# (the list's one reader)
list() { python3 "$TOP/verdict/testlist.py" "$tests" "$1" || die "cannot read $tests"; }
list module >/dev/null

case "$arch" in
x86_64)  bb=/bin/busybox ;;
ppc64le) bb=$CACHE/pkg/busybox-ppc64le/usr/bin/busybox ;;
armv7)   bb=$CACHE/pkg/busybox-armv7/usr/bin/busybox ;;
arm64)   bb=$CACHE/pkg/busybox-arm64/usr/bin/busybox ;;
esac
[ -x "$bb" ] || die "no busybox for $arch at $bb (run 'make setup')"

root=$(mktemp -d)
trap 'rm -rf "$root" "$root.log" "$root.tgz"' EXIT
mkdir -p "$root"/{bin,usr/bin,lib/modules,etc/rcpuidle,usr/share/rcpuidle}
cp "$bb" "$root/bin/busybox"
install -m 755 "$TOP/pipeline/guest/init.sh" "$root/init"
install -m 755 "$TOP/pipeline/guest/show.sh" "$root/usr/share/rcpuidle/show.sh"
install -m 755 "$TOP/evaluation/guest/bench.sh" "$root/usr/share/rcpuidle/bench.sh"
install -m 755 "$TOP/evaluation/guest/seeds.sh" "$root/usr/share/rcpuidle/seeds.sh"
install -m 755 "$TOP/evaluation/guest/record.sh" "$root/usr/share/rcpuidle/record.sh"
install -m 755 "$TOP/evaluation/guest/tickcost.sh" "$root/usr/share/rcpuidle/tickcost.sh"
if [ "$arch" = x86_64 ]; then
	# the in-guest benchmark program (static: the guest has no libc)
	gcc -O2 -Wall -Werror -static -o "$root/usr/bin/idlebench" "$TOP/tools/idlebench/idlebench.c" ||
		die "cannot build tools/idlebench"
fi

# the field's tools the mode needs (RCPUIDLE_GUEST_TOOLS) and the ones the
# arch's tests need ("tool NAME" lines): Debian's binaries with their
# libraries (x86_64 and ppc64le)
tools="${RCPUIDLE_GUEST_TOOLS:-} $(list tool | tr '\n' ' ')"
if [ -n "${tools// /}" ]; then
	# shellcheck disable=SC2086 # tool names
	"$TOP/pipeline/guest-tools.sh" "$arch" "$root" $tools || die "cannot add the guest tools:$tools"
fi

# the modules the arch's tests need, each found exactly once in the build
for m in $(list module); do
	found=$(find "$BUILD" -name "$m" -not -path '*/.tmp*')
	[ "$(echo "$found" | grep -c .)" = 1 ] ||
		die "module $m: expected once in $BUILD, found: ${found:-nothing}"
	cp "$found" "$root/lib/modules/"
done

# the kselftests: exactly the kit's tarball (kit/kit.sh tarball: the
# kernel's gen_tar of the grafted tree, what a board or a lab runs),
# unpacked in /kselftest
if [ -n "${RCPUIDLE_KSFT_TARBALL:-}" ]; then
	cp "$RCPUIDLE_KSFT_TARBALL" "$root.tgz"
else
	"$TOP/kit/kit.sh" tarball "$arch" "$root.tgz" || die "cannot make the kit's kselftest tarball"
fi
mkdir -p "$root/kselftest"
tar -xzf "$root.tgz" -C "$root/kselftest" || die "cannot unpack the kit's kselftest tarball"
rm -f "$root.tgz"
[ -x "$root/kselftest/run_kselftest.sh" ] && [ -s "$root/kselftest/kselftest-list.txt" ] ||
	die "the kit's tarball holds no run_kselftest.sh or test list"

# run_kselftest.sh calls coreutils' "timeout --foreground"
install -m 755 "$TOP/pipeline/guest/timeout" "$root/usr/bin/timeout"

# the modules /init loads before the tests, as a board's user following
# the kit's README would ("preload NAME.ko [PARAM...]" lines; each a
# "module" of the list)
list preload >"$root/etc/rcpuidle/preload"
while read -r m _; do
	[ -f "$root/lib/modules/$m" ] || die "$tests preloads $m, which is not a module line"
done <"$root/etc/rcpuidle/preload"

# the tests /init runs (each must be in the install), and the runner's
# per-test arguments ("env KSELFTEST_<NAME>_ARGS=..." lines)
list kselftest | cut -f1 | sed 's/^/cpuidle:/' >"$root/etc/rcpuidle/tests"
while read -r t; do
	grep -qxF "$t" "$root/kselftest/kselftest-list.txt" ||
		die "$tests names $t, which the kselftest install does not have"
done <"$root/etc/rcpuidle/tests"
list env | sed 's/^/export /' >"$root/etc/rcpuidle/test-env"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
