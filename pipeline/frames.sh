#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# frames.sh ARCH: the stack frame of every function of the project's
# objects in ARCH's build (its modules, the Rust drivers and governor
# built in, the kernel crate with the project's abstractions and their
# KUnit cases) is at most the build's CONFIG_FRAME_WARN, the limit the
# compiler holds the kernel's C to (-Wframe-larger-than); rustc has no
# such warning.  Sizes by the kernel's scripts/checkstack.pl.
#
# Why: the pseries XCEDE planner and its KUnit cases had frames of 2 to
# 2.5 KiB; on a ppc64le kernel with 8 KiB stacks an interrupt at the
# bottom of that chain ran off the stack into the page below ("BUG: Bad
# page map" in a page table).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch_setup "$1"
case $1 in
x86_64) ca=x86_64 ;;
armv7) ca=arm ;;
ppc64le) ca=ppc64le ;;
arm64) ca=aarch64 ;;
esac
limit=$(sed -n 's/^CONFIG_FRAME_WARN=//p' "$BUILD/.config")
[ -n "$limit" ] && [ "$limit" -gt 0 ] || die "frames: no CONFIG_FRAME_WARN in $BUILD/.config"
cd "$BUILD"
# the project's Rust objects: the product's .rs files (graft.sh lists
# them) compiled to an object of the same name, their modules, and the
# kernel crate
objs=()
while read -r f; do
	case $f in
	rust/kernel/*) o=rust/kernel.o ;;
	drivers/*.rs | samples/*.rs) o=${f%.rs}.o ;;
	*) continue ;;
	esac
	[ -f "$o" ] && objs+=("$o")
done < <(grep -E '\.rs$' "$TREE/.rcpuidle-links")
mapfile -t kos < <(find drivers/cpuidle samples/rust -name '*.ko' 2>/dev/null)
# (an object a module is linked from is read in its .ko, not twice)
mapfile -t objs < <(printf '%s\n' "${objs[@]}" |
	grep -vxF -f <(cat drivers/cpuidle/*.mod samples/rust/*.mod 2>/dev/null; echo /) |
	cat - <(printf '%s\n' "${kos[@]}") | sort -u)
[ ${#objs[@]} -gt 0 ] || die "frames: no project object in $BUILD"
# (llvm-objdump writes ppc64's "stdu r1,-N(r1)" as "stdu 1, -N(1)", and
# x86's "sub $N,%rsp" with a tab and a comment: both as checkstack.pl reads them)
# shellcheck disable=SC2016 # (sed expressions, no shell ones)
report=$(llvm-objdump-19 -d "${objs[@]}" |
	sed -E 's/[ \t]+# imm = .*$//; s/stdu 1, -([0-9]+)\(1\)/stdu r1,-\1(r1)/; s/^(.*)sub[lq]?\t(\$0x[0-9a-f]+), ?%rsp$/\1sub    \2,%rsp/' |
	perl "$TREE/scripts/checkstack.pl" "$ca" 0)
n=$(grep -c . <<<"$report" || true)
[ "$n" -gt 0 ] || die "frames: checkstack.pl read no frame in ${#objs[@]} objects (objdump format?)"
over=$(awk -F: -v l="$limit" '$NF + 0 > l' <<<"$report")
top=$(sed -n 1p <<<"$report" | sed -E 's/.*[ \t]([^ \t]+) \[([^]]+)\]:([0-9]+)$/\1 (\2) \3/')
if [ -n "$over" ]; then
	echo "$over" | sed 's/^/frames: over the limit: /'
	die "frames: $1: $(echo "$over" | grep -c .) functions of the project have a frame above CONFIG_FRAME_WARN=$limit bytes"
fi
echo "frames: $1: $n frames in ${#objs[@]} objects, all within CONFIG_FRAME_WARN=$limit bytes (largest: $top)"
