#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# arm64-dtb.sh OUT QEMU-ARGS...: QEMU's virt device tree with idle states.
# QEMU dumps the tree it would give the guest (-machine virt,dumpdtb=, with
# the boot's own -cpu, -smp and -m, passed as QEMU-ARGS), the kernel's dtc
# (from the arm64 build) turns it into source, and configs/
# arm64-idle-states.dts, compiled on top of it, adds the idle states, a
# CPU power domain, and each CPU's cpu-idle-states or power-domains.  QEMU
# replaces the /psci node of a tree it is given (-dtb) with its own.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$1
shift
arch_setup arm64
dtc=$BUILD/scripts/dtc/dtc
[ -x "$dtc" ] || die "no dtc at $dtc: build the arm64 kernel first"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
qemu-system-aarch64 -machine "virt,dumpdtb=$tmp/virt.dtb" "$@" -nographic >/dev/null 2>&1 ||
	[ -s "$tmp/virt.dtb" ] || die "QEMU did not dump its virt device tree"
"$dtc" -q -I dtb -O dts -o "$tmp/virt.dts" "$tmp/virt.dtb"
grep -q 'enable-method = "psci"' "$tmp/virt.dts" || die "QEMU's virt tree has no PSCI CPUs"
{ echo '/include/ "virt.dts"'; cat "$TOP/configs/arm64-idle-states.dts"; } >"$tmp/idle.dts"
"$dtc" -q -I dts -O dtb -o "$out" "$tmp/idle.dts" ||
	die "dtc could not add configs/arm64-idle-states.dts to QEMU's tree"
