# SPDX-License-Identifier: GPL-2.0
# Shared settings for the rcpuidle scripts (sourced, not run).
# shellcheck shell=bash
# shellcheck disable=SC2034 # (settings for the scripts that source it)

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
# (the project's make hands its command line down in MAKEFLAGS, ARCH=ppc64le
# among it: the kernel's make must not take it for its own ARCH)
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

die() { echo "rcpuidle: error: $*" >&2; exit 1; }
# the files the patches $@ touch (kernel paths)
touched() { grep -hE '^\+\+\+ b/' "$@" | awk '{print $2}' | sed 's|^b/||' | sort -u; }

[ -f "$CACHE/rust_lib_src" ] || die "not set up: run 'make setup'"
RUST_LIB_SRC=$(cat "$CACHE/rust_lib_src")
PRISTINE=$(readlink -f "$CACHE/src/pristine")
KVER=$(basename "$PRISTINE" | sed 's/^linux-source-//')
RUSTVER=$(rustc --version | awk '{print $2}')
# (RCPUIDLE_TREE, RCPUIDLE_BUILD: another tree and build directory, for
# kit/generic-c.sh's vanilla kernel)
TREE=${RCPUIDLE_TREE:-$CACHE/tree/linux-$KVER}
PROFILE=${PROFILE:-debug}

# arch_setup ARCH: sets KARCH, IMAGE, QEMU, BUILD
arch_setup() {
	case "$1" in
	x86_64)  KARCH=x86_64;  IMAGE=arch/x86/boot/bzImage ;;
	ppc64le) KARCH=powerpc; IMAGE=vmlinux ;;
	armv7)   KARCH=arm;     IMAGE=arch/arm/boot/zImage ;;
	arm64)   KARCH=arm64;   IMAGE=arch/arm64/boot/Image ;;
	*) die "unknown ARCH '$1' (x86_64, ppc64le, armv7 or arm64)" ;;
	esac
	BUILD=${RCPUIDLE_BUILD:-$CACHE/build/$1-$PROFILE-$KVER-rust$RUSTVER}
	KMAKE=(make -C "$TREE" O="$BUILD" ARCH="$KARCH" LLVM=-19
	       RUST_LIB_SRC="$RUST_LIB_SRC")
}

# The KUnit configuration of the Rust cpuidle code for kunit.py
# (pipeline/kunit.sh, in the x86_64 check build) and the configuration of
# the bisect build (pipeline/bisect.sh): drivers/cpuidle/.kunitconfig, plus
# modules, so that the bisect build also builds the loadable parts.
KUNIT_ARGS=(--arch=x86_64 --kunitconfig=drivers/cpuidle
	--kconfig_add CONFIG_MODULES=y --kconfig_add CONFIG_CPUIDLE_VSTATES=m
	--kconfig_add CONFIG_SAMPLES=y --kconfig_add CONFIG_SAMPLES_RUST=y
	--kconfig_add CONFIG_SAMPLE_RUST_PM_QOS_CPU=m
	--make_options LLVM=-19 --make_options "RUST_LIB_SRC=$RUST_LIB_SRC")
BISECT_TREE=$CACHE/bisect/linux-$KVER
BISECT_BUILD=$CACHE/build/bisect-x86_64-$KVER-rust$RUSTVER
