#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh ARCH: build, boot in check mode, judge the console.
# The suites each arch must report are in configs/ARCH.tests.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1
arch_setup "$arch"
t0=$(date +%s)
# x86_64 builds through clippy, so a lint in project code fails the check
if [ "$arch" = x86_64 ]; then
	KMAKE_EXTRA="CLIPPY=1 ${KMAKE_EXTRA:-}" "$TOP/scripts/build.sh" "$arch" || exit 1
else
	"$TOP/scripts/build.sh" "$arch" || exit 1
fi
expect=() ksft=()
while read -r kind name; do
	case "$kind" in
	kunit) expect+=("$name") ;;
	kselftest) ksft+=("$name"); expect+=("$name") ;;
	esac
done < <(grep -vE '^\s*(#|$)' "$TOP/configs/$arch.tests")
logs=$CACHE/logs
mkdir -p "$logs"
initrd=$BUILD/rcpuidle-initramfs.cpio
"$TOP/scripts/mkinitramfs.sh" "$arch" "$initrd" "${ksft[@]}" || exit 1
echo "check: $arch: booting (TCG, 2 vCPUs; console log $logs/$arch-check.log)"
"$TOP/scripts/boot.sh" "$arch" check "$initrd" "$logs/$arch-check.log" "${BOOT_TIMEOUT:-1200}"
rc=$?
python3 "$TOP/scripts/ktap.py" "$logs/$arch-check.log" --arch "$arch" \
	--qemu-rc "$rc" --expect "${expect[@]}"
v=$?
echo "check: $arch: $(( $(date +%s) - t0 )) s"
exit $v
