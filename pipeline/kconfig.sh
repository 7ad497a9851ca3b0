#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kconfig.sh ARCH: produce $BUILD/.config = tinyconfig + configs/ fragments,
# then check that every option the fragments ask for really is set (a
# dependency Kconfig silently dropped is an error, not a surprise).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch_setup "$1"

# later fragments override earlier ones: an arch may opt out of a debug option
frags=("$TOP/configs/common.config")
if [ "$PROFILE" = debug ]; then
	frags+=("$TOP/configs/debug.config")
	# an arch's own debug options (x86_64: sanitizers, fault injection)
	[ -f "$TOP/configs/$1-debug.config" ] && frags+=("$TOP/configs/$1-debug.config")
elif [ "$PROFILE" = bench ]; then
	frags+=("$TOP/configs/bench.config")
else
	die "unknown PROFILE '$PROFILE' (debug or bench)"
fi
frags+=("$TOP/configs/$1.config" "$TOP/configs/project.config")
# RCPUIDLE_KCONFIG_FRAGS: fragments instead of project.config (the last
# word on every option they name: kit/generic-c.sh)
if [ -n "${RCPUIDLE_KCONFIG_FRAGS:-}" ]; then
	unset 'frags[-1]'
	# shellcheck disable=SC2206 # file names without blanks
	frags+=($RCPUIDLE_KCONFIG_FRAGS)
fi
applied=("$TREE"/.rcpuidle-applied/*.patch)
[ -e "${applied[0]}" ] || applied=()
stamp=$(cat "${frags[@]}" "${applied[@]}" | sha256sum | cut -c1-16)
if [ -f "$BUILD/.config" ] && [ "$(cat "$BUILD/.rcpuidle-config" 2>/dev/null)" = "$stamp" ]; then
	exit 0
fi
mkdir -p "$BUILD"
echo "kconfig: $1 ($PROFILE)"
"${KMAKE[@]}" -s tinyconfig >/dev/null
# armv7 tinyconfig is a no-MMU (V7M) kernel; the MMU and multiplatform
# choice must be made before the v7 options become visible.
if [ "$1" = armv7 ]; then
	"$TREE/scripts/config" --file "$BUILD/.config" -e MMU -e ARCH_MULTIPLATFORM
	"${KMAKE[@]}" -s olddefconfig >/dev/null
fi
for _ in 1 2; do
	# two passes: options revealed by the first pass get set by the second
	for f in "${frags[@]}"; do
		{ grep -E '^CONFIG_' "$f" || true; } | while IFS='=' read -r k v; do
			case "$v" in
			y) "$TREE/scripts/config" --file "$BUILD/.config" -e "${k#CONFIG_}" ;;
			m) "$TREE/scripts/config" --file "$BUILD/.config" -m "${k#CONFIG_}" ;;
			n) "$TREE/scripts/config" --file "$BUILD/.config" -d "${k#CONFIG_}" ;;
			*) "$TREE/scripts/config" --file "$BUILD/.config" --set-val "${k#CONFIG_}" "$v" ;;
			esac
		done
	done
	"${KMAKE[@]}" -s olddefconfig >/dev/null
done
bad=0
declare -A want from
for f in "${frags[@]}"; do
	while IFS='=' read -r k v; do
		want[$k]=$v
		from[$k]=$(basename "$f")
	done < <(grep -E '^CONFIG_' "$f" || true)
done
for k in "${!want[@]}"; do
	v=${want[$k]}
	if [ "$v" = n ]; then
		grep -q "^$k=" "$BUILD/.config" && { echo "kconfig: $k is set, ${from[$k]} wants it off"; bad=1; }
	elif ! grep -qx "$k=$v" "$BUILD/.config"; then
		echo "kconfig: $k=$v requested by ${from[$k]} but not set (unmet dependency?)"
		bad=1
	fi
done
[ $bad = 0 ] || die "kernel configuration for $1 is incomplete"
echo "$stamp" >"$BUILD/.rcpuidle-config"
