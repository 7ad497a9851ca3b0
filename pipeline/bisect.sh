#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh DIR: apply the exported series in DIR (patches.sh bisect) to a
# copy of the pristine tree one patch at a time and build x86_64 after each
# (bzImage and modules), so that every prefix is known to build.
#
# The prefixes build incrementally from a copy of the x86_64 check build
# (pipeline/build.sh x86_64, built first if it is not), in its configuration
# (KASAN, clippy and all): in a mount namespace of its own, the copy of the
# pristine tree and the copy of the build are bind-mounted at the paths of
# the grafted tree and of the check build, so that every command line and
# dependency path is the one the check build recorded, and only what a
# prefix changes is built again.  Every file the series edits is made newer
# than the copied objects first, so that its prefix's version of it is
# what gets built; a file the series adds is absent from a prefix, and so
# from its Makefiles.  Without mount namespaces (not root, no unshare) or
# with BISECT_SCRATCH=1, the prefixes build from scratch instead, in the
# configuration kunit.py makes from drivers/cpuidle/.kunitconfig (a whole
# kernel more to build).
#
# A patch that touches nothing an x86_64 build reads (documentation,
# MAINTAINERS, the selftests, another arch's directory) leaves the build of
# the prefix before it standing.  A series that built once is not built
# again: the result is kept under the hash of the patches, the
# configuration and the toolchain.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$1
patches=$(ls "$dir"/*.patch | grep -v '/0000-')
n=$(echo "$patches" | wc -l)
arch_setup x86_64
# (the make of the check build: pipeline/build.sh)
CHECK_TREE=$TREE CHECK_BUILD=$BUILD
CHECK_MAKE=("${KMAKE[@]}" CLIPPY=1)
# (the files a patch touches)
touched() { grep -hE '^\+\+\+ b/' "$@" | awk '{print $2}' | sed 's|^b/||' | sort -u; }
# (the prefixes: the patch, its build, the line it prints; $1 is how to
# make, $2 the configuration to build each prefix in, $3 the build)
prefixes() {
	local mk=$1 config=$2 build=$3 i=0 t0 p log
	local -n mkref=$mk
	t0=$(date +%s)
	for p in $patches; do
		i=$((i + 1))
		patch -s -p1 -d "$BISECT_TREE" --no-backup-if-mismatch <"$p" ||
			die "bisect: $(basename "$p") does not apply"
		if ! touched "$p" |
			grep -qvE '^(Documentation/|MAINTAINERS$|tools/testing/selftests/|arch/(arm|arm64|powerpc|riscv|s390|loongarch|mips)/)'; then
			echo "bisect: $i/$n $(basename "$p"): nothing the x86_64 build reads: as $((i - 1))/$n"
			continue
		fi
		cp "$config" "$build/.config"
		log=$build/build-$i.log
		if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${mkref[@]}" -s olddefconfig >"$log" 2>&1 ||
			! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${mkref[@]}" -j"${JOBS:-3}" bzImage modules >>"$log" 2>&1; then
			grep -E 'error|Error' "$log" | head -n 20
			cp "$log" "$CACHE/bisect-failed.log" 2>/dev/null || true
			die "bisect: the x86_64 build fails after patch $i/$n, $(basename "$p") (log: $CACHE/bisect-failed.log)"
		fi
		echo "bisect: $i/$n $(basename "$p"): builds ($(($(date +%s) - t0)) s)"
	done
}

# inside the namespace (bisect.sh --inside DIR, from below): the copies at
# the check's paths, then the prefixes
if [ "${BISECT_INSIDE:-}" = 1 ]; then
	mount --bind "$BISECT_TREE" "$CHECK_TREE" && mount --bind "$BISECT_BUILD" "$CHECK_BUILD" ||
		die "bisect: cannot bind-mount the copies at the check's paths"
	# patch the tree at its own path (now the copy)
	BISECT_TREE=$CHECK_TREE
	prefixes CHECK_MAKE "$BISECT_CONFIG" "$CHECK_BUILD"
	exit 0
fi

reuse=
if [ -z "${BISECT_SCRATCH:-}" ] && unshare -m --propagation private true 2>/dev/null; then
	reuse=1
	[ -f "$CHECK_BUILD/vmlinux" ] || "$TOP/pipeline/build.sh" x86_64
	cfg=$(mktemp -d)
	cp "$CHECK_BUILD/.config" "$cfg/.config"
else
	# the configuration, as kunit.py makes it for the whole series
	cfg=$(mktemp -d)
	(cd "$TREE" && PATH="$TOP/pipeline/kunit-qemu:$PATH" python3 tools/testing/kunit/kunit.py config \
		"${KUNIT_ARGS[@]}" --build_dir="$cfg" >"$cfg.log" 2>&1) ||
		{ cat "$cfg.log"; die "bisect: kunit.py config failed"; }
	rm -f "$cfg.log"
fi
trap 'rm -rf "$cfg"' EXIT
# (the patches without the lines that change with every export)
stamp=$({ grep -hvE '^(From [0-9a-f]{40} |Date: )' $patches; cat "$cfg/.config"; } |
	sha256sum | cut -c1-16)-$RUSTVER
done_file=$CACHE/bisect/.rcpuidle-bisect
if [ "$(cat "$done_file" 2>/dev/null)" = "$stamp" ]; then
	echo "bisect: all $n prefixes of the series build for x86_64 (built before for this series, $stamp)"
	exit 0
fi
rm -rf "$BISECT_TREE" "$BISECT_BUILD" "$done_file"
mkdir -p "$(dirname "$BISECT_TREE")" "$(dirname "$BISECT_BUILD")"
cp -al "$PRISTINE" "$BISECT_TREE"
# every file the series edits is its own copy (the pristine tree stays
# pristine) and, for the incremental builds, newer than any object
for f in $(touched $patches); do
	if [ -f "$BISECT_TREE/$f" ]; then
		cp "$BISECT_TREE/$f" "$BISECT_TREE/$f.unlink" && mv "$BISECT_TREE/$f.unlink" "$BISECT_TREE/$f"
		touch "$BISECT_TREE/$f"
	fi
done
if [ -n "$reuse" ]; then
	echo "bisect: from a copy of the x86_64 check build ($CHECK_BUILD), in its configuration"
	cp -a "$CHECK_BUILD" "$BISECT_BUILD"
	BISECT_INSIDE=1 BISECT_CONFIG=$cfg/.config unshare -m --propagation private "$0" "$dir"
	rm -rf "$BISECT_BUILD"
else
	echo "bisect: from scratch, in kunit.py's configuration"
	mkdir -p "$BISECT_BUILD"
	bk=(make -C "$BISECT_TREE" O="$BISECT_BUILD" ARCH=x86_64 LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
	prefixes bk "$cfg/.config" "$BISECT_BUILD"
fi
echo "$stamp" >"$done_file"
echo "bisect: all $n prefixes of the series build for x86_64"
