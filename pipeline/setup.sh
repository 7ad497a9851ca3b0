#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Idempotent set-up of everything the build needs.
#
#  * host packages from the machine's own Debian suite (apt-get install);
#  * from trixie-backports / trixie, *downloaded only* (never installed):
#    linux-source-7.3, rust-src matching `rustc --version`, and the
#    ppc64el/armhf busybox-static for guest initramfs.  These come through
#    a private apt root under the cache, with trixie-backports pinned at
#    priority 100, so the system's own apt state is never changed;
#  * bindgen-cli 0.72.1 through cargo;
#  * `make rustavailable` in the extracted tree.
#
# Everything lands in $RCPUIDLE_CACHE (default ~/.cache/rcpuidle).
set -euo pipefail
# `make check ARCH=ppc64le` exports the project's ARCH (x86_64, ppc64le,
# armv7); the kernel's make would take it for its own.  Setup is not per
# architecture.  Nor is the make that runs this: its command line (ARCH=
# among it) reaches the kernel's make through MAKEFLAGS.
unset ARCH MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
KVER_PKG=${RCPUIDLE_LINUX_SOURCE:-linux-source-7.3}
BINDGEN_VER=0.72.1
HOST_PKGS="clang-19 lld-19 llvm-19 libclang-19-dev flex bison bc libelf-dev
	libssl-dev cpio busybox-static qemu-system-x86 qemu-system-ppc
	qemu-system-arm python3 gcc libc6-dev valgrind rsync python3-matplotlib python3-numpy
	python3-pytest flake8 mypy shellcheck"

die() {
	echo "setup: error: $*" >&2
	echo "setup: fix the above, then retry with: make setup" >&2
	exit 1
}
log() { echo "setup: $*"; }

mkdir -p "$CACHE"
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# --- host packages ---------------------------------------------------------
missing=
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	log "installing from the machine's suite:$missing"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq ||
		die "apt-get update failed"
	# shellcheck disable=SC2086
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $missing >/dev/null ||
		die "could not install:$missing (apt-get install$missing)"
fi

# --- bindgen ---------------------------------------------------------------
export PATH="$HOME/.cargo/bin:$PATH"
if ! bindgen --version 2>/dev/null | grep -q " $BINDGEN_VER\$"; then
	log "installing bindgen-cli $BINDGEN_VER"
	cargo install bindgen-cli --locked --version "$BINDGEN_VER" >/dev/null ||
		die "cargo install bindgen-cli --locked --version $BINDGEN_VER"
fi

# --- private apt root for downloads from newer suites ----------------------
RUSTVER=$(rustc --version | awk '{print $2}')
[ -n "$RUSTVER" ] || die "rustc not found (install the rustup toolchain)"

# the private apt root and fetch() (pipeline/apt-root.sh)
. "$(dirname "$0")/apt-root.sh"

fetch "$KVER_PKG" '^[0-9]' "$CACHE/pkg/linux-source"
fetch rust-src "^${RUSTVER//./\\.}\\+" "$CACHE/pkg/rust-src-$RUSTVER"
fetch busybox-static:ppc64el '^1:' "$CACHE/pkg/busybox-ppc64le"
fetch busybox-static:armhf '^1:' "$CACHE/pkg/busybox-armv7"
fetch busybox-static:arm64 '^1:' "$CACHE/pkg/busybox-arm64"

RUST_LIB_SRC=$CACHE/pkg/rust-src-$RUSTVER/usr/src/rustc-$RUSTVER/library
[ -d "$RUST_LIB_SRC/core" ] || die "rust-src $RUSTVER has no library at $RUST_LIB_SRC"

# --- pristine kernel tree ----------------------------------------------------
tarball=$(ls "$CACHE"/pkg/linux-source/usr/src/linux-source-*.tar.* | head -n1)
[ -n "$tarball" ] || die "no tarball in $KVER_PKG"
src=$CACHE/src/$(basename "$tarball" | sed 's/\.tar\..*//')
if [ ! -f "$src/.done" ]; then
	log "extracting $(basename "$tarball")"
	rm -rf "$src"
	mkdir -p "$CACHE/src"
	tar -C "$CACHE/src" -xf "$tarball"
	touch "$src/.done"
fi
ln -sfn "$src" "$CACHE/src/pristine"

# --- rustavailable -----------------------------------------------------------
if [ ! -f "$CACHE/rustavailable-$RUSTVER" ]; then
	# (ARCH given here: make setup ARCH=armv7 would hand its own down)
	make -s -C "$src" ARCH=x86_64 LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC" rustavailable ||
		die "make rustavailable failed (see above)"
	touch "$CACHE/rustavailable-$RUSTVER"
fi
echo "$RUST_LIB_SRC" >"$CACHE/rust_lib_src"
log "ready: kernel $(make -s -C "$src" kernelversion), rustc $RUSTVER, cache $CACHE"
