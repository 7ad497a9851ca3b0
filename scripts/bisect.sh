#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh DIR: apply the exported series in DIR (patches.sh bisect) to a
# copy of the pristine tree one patch at a time and build x86_64 after each
# (bzImage and modules, the release configuration of configs/, incremental
# builds in one build directory), so that every prefix is known to build.
# A series that built once is not built again: the result is kept under
# the hash of the patches, the configuration and the toolchain.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
patches=$(ls "$dir"/*.patch | grep -v '/0000-')
# the configuration: x86_64 without the debug profile, as kconfig.sh makes
# it for the grafted tree (its symbols are those of the whole series)
PROFILE=release arch_setup x86_64
"$TOP/scripts/kconfig.sh" x86_64 >/dev/null
final=$BUILD/.config
stamp=$(cat $patches "$final" | sha256sum | cut -c1-16)-$RUSTVER
btree=$CACHE/bisect/linux-$KVER
bbuild=$CACHE/build/bisect-x86_64-$KVER-rust$RUSTVER
n=$(echo "$patches" | wc -l)
if [ "$(cat "$bbuild/.rcpuidle-bisect" 2>/dev/null)" = "$stamp" ]; then
	echo "bisect: all $n prefixes of the series build for x86_64 (built before for this series, $stamp)"
	exit 0
fi
rm -rf "$btree" "$bbuild"
mkdir -p "$(dirname "$btree")" "$bbuild"
cp -al "$PRISTINE" "$btree"
bk=(make -C "$btree" O="$bbuild" ARCH=x86_64 LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
i=0
t0=$(date +%s)
for p in $patches; do
	i=$((i + 1))
	# break the hard links to the pristine tree of the files it edits
	for f in $(grep -E '^\+\+\+ b/' "$p" | awk '{print $2}' | sed 's|^b/||' | sort -u); do
		if [ -f "$btree/$f" ]; then
			cp "$btree/$f" "$btree/$f.unlink" && mv "$btree/$f.unlink" "$btree/$f"
		fi
	done
	patch -s -p1 -d "$btree" --no-backup-if-mismatch <"$p" || die "bisect: $(basename "$p") does not apply"
	cp "$final" "$bbuild/.config"
	log=$bbuild/build-$i.log
	if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bk[@]}" -s olddefconfig >"$log" 2>&1 ||
		! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bk[@]}" -j"${JOBS:-3}" bzImage modules >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20
		die "bisect: the x86_64 build fails after patch $i/$n, $(basename "$p") (log: $log)"
	fi
	echo "bisect: $i/$n $(basename "$p"): builds ($(($(date +%s) - t0)) s)"
done
echo "$stamp" >"$bbuild/.rcpuidle-bisect"
echo "bisect: all $n prefixes of the series build for x86_64"
