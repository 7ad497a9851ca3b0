#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# build.sh ARCH OUT: build failnth.c for a guest without a libc, static and
# freestanding.  ARCH: x86_64 (gcc), ppc64le, armv7 or arm64 (clang-19 and lld).
# CC overrides gcc, CLANG overrides clang-19.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 x86_64|ppc64le|armv7|arm64 OUT" >&2; exit 2; }
src=$(dirname "$0")/failnth.c
flags="-O2 -Wall -Wextra -Werror -nostdlib -ffreestanding -fno-stack-protector -fno-asynchronous-unwind-tables -static"
case "$1" in
x86_64)
	# shellcheck disable=SC2086
	${CC:-gcc} $flags -o "$2" "$src"
	;;
ppc64le)
	# shellcheck disable=SC2086
	${CLANG:-clang-19} --target=powerpc64le-linux-gnu $flags -fuse-ld=lld -o "$2" "$src"
	;;
armv7|arm)
	# shellcheck disable=SC2086
	${CLANG:-clang-19} --target=armv7a-linux-gnueabihf -marm $flags -fuse-ld=lld -o "$2" "$src"
	;;
arm64)
	# shellcheck disable=SC2086
	${CLANG:-clang-19} --target=aarch64-linux-gnu $flags -fuse-ld=lld -o "$2" "$src"
	;;
*)
	echo "$0: unknown ARCH '$1' (x86_64, ppc64le, armv7, arm64)" >&2
	exit 2
	;;
esac
