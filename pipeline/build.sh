#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build.sh ARCH [TARGETS...]: graft, configure and build (incrementally).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1
shift
arch_setup "$arch"
"$TOP/pipeline/graft.sh"
"$TOP/pipeline/kconfig.sh" "$arch"
targets=("$@")
# (headers: the UAPI headers in $BUILD/usr/include, which the kselftests'
# nolibc programs are built against)
[ ${#targets[@]} -gt 0 ] || targets=("$(basename "$IMAGE")" modules headers)
[ "$arch" = ppc64le ] && targets=("${targets[@]/vmlinux/vmlinux}")
# x86_64 always builds through clippy, so a lint in project code fails the
# build, and `make run`, `make kernel` and `make check` share the objects;
# so does arm64, the only build of the PSCI driver
case $arch in x86_64 | arm64) KMAKE_EXTRA="CLIPPY=1 ${KMAKE_EXTRA:-}" ;; esac
echo "build: $arch: ${targets[*]} (in $BUILD)"
log=$BUILD/.rcpuidle-build.log
nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${KMAKE[@]}" -j"${JOBS:-3}" "${targets[@]}" ${KMAKE_EXTRA:-} >"$log" 2>&1 &
pid=$!
# a progress line every 30 s on a terminal (every 120 s into a log):
# elapsed time, objects built, the last one (the full output is in $log)
every=120
[ -t 1 ] && every=30
if [ "${RCPUIDLE_BUILD_PROGRESS:-1}" = 1 ]; then
	t0=$(date +%s)
	next=$((t0 + every))
	# (a short sleep, so that the end of the build is seen at once)
	while kill -0 $pid 2>/dev/null; do
		sleep 2 & wait $! || true
		[ "$(date +%s)" -ge $next ] && kill -0 $pid 2>/dev/null || continue
		next=$((next + every))
		last=$(grep -E '^  [A-Z]' "$log" | tail -n 1 | sed 's/^ *//' || true)
		echo "build: $arch: $(($(date +%s) - t0)) s, $(grep -cE '^  (CC|RUSTC|CLIPPY|LD|AR)' "$log") steps (last: ${last:-configuring})"
	done
fi
if ! wait $pid; then
	grep -E 'error|Error|warning:' "$log" | head -n 40
	tail -n 20 "$log"
	die "kernel build for $arch failed (full log: $log)"
fi
# warnings in project files are errors for us: C warnings name the file on
# the warning line, rustc/clippy on the "-->" line that follows it
links=$TREE/.rcpuidle-links
if [ -s "$links" ]; then
	hits=$( { grep -E ': warning:' "$log" || true; grep -A4 -E '^warning' "$log" | grep -E '^\s*-->' || true; } |
		grep -F -f <(sed "s|^|$TREE/|" "$links") || true)
	if [ -n "$hits" ]; then
		echo "$hits" | head -n 20
		die "the build of $arch warned about project code (log: $log)"
	fi
fi
