#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh DIR: apply the exported series in DIR (patches.sh bisect) to a
# copy of the pristine tree one patch at a time and build x86_64 after each
# (bzImage and modules, incremental builds in one build directory), so
# that every prefix is known to build (`make bisect`; a whole kernel more
# to build than `make check` has time for).  The configuration is the one
# kunit.py makes from drivers/cpuidle/.kunitconfig (with modules, see
# KUNIT_ARGS in lib.sh): another than the check's, so the series is built
# both ways.  A series that built once is not built again: the result is
# kept under the hash of the patches, the configuration and the toolchain.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
patches=$(ls "$dir"/*.patch | grep -v '/0000-')
n=$(echo "$patches" | wc -l)
# the configuration, as kunit.py makes it for the whole series
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
(cd "$TREE" && PATH="$TOP/scripts/kunit-qemu:$PATH" python3 tools/testing/kunit/kunit.py config \
	"${KUNIT_ARGS[@]}" --build_dir="$cfg" >"$cfg.log" 2>&1) ||
	{ cat "$cfg.log"; die "bisect: kunit.py config failed"; }
rm -f "$cfg.log"
# (the patches without the lines that change with every export)
stamp=$({ grep -hvE '^(From [0-9a-f]{40} |Date: )' $patches; cat "$cfg/.config"; } |
	sha256sum | cut -c1-16)-$RUSTVER
if [ "$(cat "$BISECT_BUILD/.rcpuidle-bisect" 2>/dev/null)" = "$stamp" ]; then
	echo "bisect: all $n prefixes of the series build for x86_64 (built before for this series, $stamp)"
	exit 0
fi
rm -rf "$BISECT_TREE" "$BISECT_BUILD"
mkdir -p "$(dirname "$BISECT_TREE")" "$BISECT_BUILD"
cp -al "$PRISTINE" "$BISECT_TREE"
bk=(make -C "$BISECT_TREE" O="$BISECT_BUILD" ARCH=x86_64 LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
i=0
t0=$(date +%s)
for p in $patches; do
	i=$((i + 1))
	# break the hard links to the pristine tree of the files it edits
	for f in $(grep -E '^\+\+\+ b/' "$p" | awk '{print $2}' | sed 's|^b/||' | sort -u); do
		if [ -f "$BISECT_TREE/$f" ]; then
			cp "$BISECT_TREE/$f" "$BISECT_TREE/$f.unlink" && mv "$BISECT_TREE/$f.unlink" "$BISECT_TREE/$f"
		fi
	done
	patch -s -p1 -d "$BISECT_TREE" --no-backup-if-mismatch <"$p" ||
		die "bisect: $(basename "$p") does not apply"
	# a patch that touches nothing an x86_64 build reads (documentation,
	# MAINTAINERS, the selftests, another arch's directory) leaves the
	# build of the prefix before it standing: it is not built again
	if ! grep -E '^\+\+\+ b/' "$p" | awk '{print $2}' | sed 's|^b/||' |
		grep -qvE '^(Documentation/|MAINTAINERS$|tools/testing/selftests/|arch/(arm|arm64|powerpc|riscv|s390|loongarch|mips)/)'; then
		echo "bisect: $i/$n $(basename "$p"): nothing the x86_64 build reads: as $((i - 1))/$n"
		continue
	fi
	cp "$cfg/.config" "$BISECT_BUILD/.config"
	log=$BISECT_BUILD/build-$i.log
	if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bk[@]}" -s olddefconfig >"$log" 2>&1 ||
		! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bk[@]}" -j"${JOBS:-3}" bzImage modules >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20
		die "bisect: the x86_64 build fails after patch $i/$n, $(basename "$p") (log: $log)"
	fi
	echo "bisect: $i/$n $(basename "$p"): builds ($(($(date +%s) - t0)) s)"
done
echo "$stamp" >"$BISECT_BUILD/.rcpuidle-bisect"
echo "bisect: all $n prefixes of the series build for x86_64"
