#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh ARCH [TARGETS...]: graft, configure and build (incrementally).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1
shift
arch_setup "$arch"
"$TOP/scripts/graft.sh"
"$TOP/scripts/kconfig.sh" "$arch"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("$(basename "$IMAGE")" modules)
[ "$arch" = ppc64le ] && targets=("${targets[@]/vmlinux/vmlinux}")
echo "build: $arch: ${targets[*]} (in $BUILD)"
log=$BUILD/.rcpuidle-build.log
if ! "${KMAKE[@]}" -j"${JOBS:-3}" "${targets[@]}" ${KMAKE_EXTRA:-} >"$log" 2>&1; then
	grep -E 'error|Error|warning:' "$log" | head -n 40
	tail -n 20 "$log"
	die "kernel build for $arch failed (full log: $log)"
fi
# warnings in project files are errors for us
if grep -E '^(warning|error)|warning:' "$log" | grep -vE '^\s*$' | grep -qE 'rcpuidle|cpuidle|pm_qos|rteo|vstates|mvebu|pseries'; then
	grep -E 'warning' "$log" | head -n 20
	die "the build of $arch warned about project code (log: $log)"
fi
