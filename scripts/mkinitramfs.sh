#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh ARCH OUT [TESTS...]: busybox initramfs for ARCH holding
# /init, the project's modules from the build, the installed kselftests and
# the list of kselftests /init runs in check mode (name[:arg...]).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1 out=$2
shift 2
arch_setup "$arch"

case "$arch" in
x86_64)  bb=/bin/busybox ;;
ppc64le) bb=$CACHE/pkg/busybox-ppc64le/usr/bin/busybox ;;
armv7)   bb=$CACHE/pkg/busybox-armv7/usr/bin/busybox ;;
esac
[ -x "$bb" ] || die "no busybox for $arch at $bb (run 'make setup')"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,usr/bin,lib/modules,etc/rcpuidle,usr/share/rcpuidle,selftests/cpuidle}
cp "$bb" "$root/bin/busybox"
install -m 755 "$TOP/scripts/guest-init.sh" "$root/init"
install -m 755 "$TOP/scripts/show.sh" "$root/usr/share/rcpuidle/show.sh"
install -m 755 "$TOP/scripts/bench-guest.sh" "$root/usr/share/rcpuidle/bench.sh"
if [ "$arch" = x86_64 ]; then
	# the in-guest benchmark program (static: the guest has no libc)
	gcc -O2 -Wall -Werror -static -o "$root/usr/bin/idlebench" "$TOP/tools/idlebench/idlebench.c" ||
		die "cannot build tools/idlebench"
fi
find "$BUILD" -name '*.ko' -exec cp {} "$root/lib/modules/" \; 2>/dev/null || true
if [ -d "$TOP/selftests/cpuidle" ]; then
	cp -r "$TOP"/selftests/cpuidle/. "$root/selftests/cpuidle/"
fi
cp "$TREE/tools/testing/selftests/kselftest/ktap_helpers.sh" "$root/selftests/cpuidle/"
printf '%s\n' "$@" >"$root/etc/rcpuidle/tests"
(cd "$root" && find . | cpio -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
