#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rustdoc.sh: `make rustfmtcheck` and `make rustdoc` of the grafted tree
# in the x86_64 build of the check (built first if it is not); fails on
# any rustfmt difference and on any rustdoc warning.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch_setup x86_64
kb=$BUILD
[ -f "$kb/.config" ] || "$TOP/pipeline/build.sh" x86_64
# (with the check build's CLIPPY=1: a make rustdoc without it leaves 13
# Rust objects that the next build makes again, some 70 CPU-s)
mk=("${KMAKE[@]}" CLIPPY=1)
log=$kb/rustdoc.log
if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${mk[@]}" rustfmtcheck >"$log" 2>&1; then
	head -n 30 "$log"
	die "make rustfmtcheck found differences"
fi
echo "rustdoc: make rustfmtcheck: clean"
if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${mk[@]}" -j"${JOBS:-3}" rustdoc >"$log" 2>&1; then
	grep -E 'error|warning' "$log" | head -n 30
	die "make rustdoc failed (log: $log)"
fi
if grep -E '^(warning|error)' "$log" >/dev/null; then
	grep -E -A6 '^(warning|error)' "$log" | head -n 40
	die "make rustdoc warned (log: $log)"
fi
echo "rustdoc: make rustdoc: no warnings ($(find "$kb/Documentation/output/rust/rustdoc/kernel" -name '*.html' -path '*cpuidle*' | wc -l) pages of kernel::cpuidle)"
