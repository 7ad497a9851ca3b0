#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bisect.sh DIR: apply the exported series in DIR (patches.sh bisect) to a
# copy of the pristine tree one patch at a time and build x86_64 after each
# (bzImage and modules), so that every prefix is known to build.
#
# The prefixes build incrementally from a copy of the x86_64 check build
# (pipeline/build.sh x86_64, built first if it is not), in its configuration
# (KASAN, clippy and all): in a mount namespace of its own, a copy of the
# pristine tree with the whole series applied and the copy of the build are
# bind-mounted at the paths of the grafted tree and of the check build, so
# that every command line and dependency path is the one the check build
# recorded.  The whole series is the check build itself: its files must
# equal the grafted tree's, and are dated before the copied objects, so
# that a make of it has nothing to do.  The walk then goes down: undoing
# the last patch gives the prefix before it, and what the undone patch
# touched (newer than every object: patch -R writes it) is all that builds
# again.  Without mount namespaces (not root, no unshare) or with
# BISECT_SCRATCH=1, the prefixes build upwards from scratch instead, in the
# configuration kunit.py makes from drivers/cpuidle/.kunitconfig (a whole
# kernel more to build).
#
# A patch that touches nothing an x86_64 build reads (documentation,
# MAINTAINERS, the selftests, another arch's directory) leaves the build of
# the prefix it ends standing.  A series that built once is not built
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
# shellcheck disable=SC2034 # (passed by name to build_prefix)
CHECK_MAKE=("${KMAKE[@]}" CLIPPY=1)
# (does patch $1 touch anything the x86_64 build reads?)
builds_x86() {
	touched "$1" |
		grep -qvE '^(Documentation/|MAINTAINERS$|tools/testing/selftests/|arch/(arm|arm64|powerpc|riscv|s390|loongarch|mips)/)'
}
# (build the prefix of $4 patches: $1 is how to make, $2 the configuration,
# $3 the build, $5 the name of its last patch)
build_prefix() {
	local -n bref=$1
	local log=$3/build-$4.log
	cp "$2" "$3/.config"
	if ! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bref[@]}" -s olddefconfig >"$log" 2>&1 ||
		! nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${bref[@]}" -j"${JOBS:-3}" bzImage modules >>"$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -n 20
		cp "$log" "$CACHE/bisect-failed.log" 2>/dev/null || true
		die "bisect: the x86_64 build fails after patch $4/$n, $5 (log: $CACHE/bisect-failed.log)"
	fi
}
# (from scratch: the prefixes upwards, applying one patch after the other)
prefixes_up() {
	local i=0 t0 p
	t0=$(date +%s)
	for p in $patches; do
		i=$((i + 1))
		patch -s -p1 -d "$BISECT_TREE" --no-backup-if-mismatch <"$p" ||
			die "bisect: $(basename "$p") does not apply"
		if ! builds_x86 "$p"; then
			echo "bisect: $i/$n $(basename "$p"): nothing the x86_64 build reads: as $((i - 1))/$n"
			continue
		fi
		build_prefix "$1" "$2" "$3" $i "$(basename "$p")"
		echo "bisect: $i/$n $(basename "$p"): builds ($(($(date +%s) - t0)) s)"
	done
}
# (from the check build: the whole series, then downwards, undoing one
# patch after the other; the tree holds the whole series)
prefixes_down() {
	local i=$n t0 p q
	t0=$(date +%s)
	build_prefix "$1" "$2" "$3" $n "$(basename "$(echo "$patches" | tail -n 1)")"
	echo "bisect: $n/$n (the whole series): builds, as the check build ($(($(date +%s) - t0)) s)"
	for p in $(echo "$patches" | tac); do
		i=$((i - 1))
		[ $i -gt 0 ] || break
		patch -R -s -p1 -d "$BISECT_TREE" --no-backup-if-mismatch <"$p" ||
			die "bisect: $(basename "$p") does not undo"
		q=$(echo "$patches" | sed -n "${i}p")
		if ! builds_x86 "$p"; then
			echo "bisect: $i/$n $(basename "$q"): as $((i + 1))/$n ($(basename "$p") touches nothing the x86_64 build reads)"
			continue
		fi
		build_prefix "$1" "$2" "$3" $i "$(basename "$q")"
		echo "bisect: $i/$n $(basename "$q"): builds ($(($(date +%s) - t0)) s)"
	done
}

# inside the namespace (bisect.sh --inside DIR, from below): the copies at
# the check's paths, then the prefixes
if [ "${BISECT_INSIDE:-}" = 1 ]; then
	mount --bind "$BISECT_TREE" "$CHECK_TREE" && mount --bind "$BISECT_BUILD" "$CHECK_BUILD" ||
		die "bisect: cannot bind-mount the copies at the check's paths"
	# patch the tree at its own path (now the copy)
	BISECT_TREE=$CHECK_TREE
	prefixes_down CHECK_MAKE "$BISECT_CONFIG" "$CHECK_BUILD"
	exit 0
fi

# (tell RCPUIDLE_BISECT_COPIED, if set, that the check build is no longer
# read: pipeline/check-all.sh runs kunit.py and rustdoc in it then)
copied() { [ -z "${RCPUIDLE_BISECT_COPIED:-}" ] || touch "$RCPUIDLE_BISECT_COPIED"; }
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
# every file the series edits is its own copy: the pristine tree stays
# pristine
for f in $(touched $patches); do
	if [ -f "$BISECT_TREE/$f" ]; then
		cp "$BISECT_TREE/$f" "$BISECT_TREE/$f.unlink" && mv "$BISECT_TREE/$f.unlink" "$BISECT_TREE/$f"
	fi
done
if [ -n "$reuse" ]; then
	# the whole series, every file it touches as the check built it and
	# dated before the build's objects (the pristine tree's date)
	for p in $patches; do
		patch -s -p1 -d "$BISECT_TREE" --no-backup-if-mismatch <"$p" ||
			die "bisect: $(basename "$p") does not apply"
	done
	for f in $(touched $patches); do
		[ -e "$BISECT_TREE/$f" ] || continue
		[ "$f" = MAINTAINERS ] || cmp -s "$BISECT_TREE/$f" "$CHECK_TREE/$f" ||
			die "bisect: $f of the series differs from the grafted tree's, which the check built (patches.sh verify says where)"
		touch -r "$PRISTINE/Makefile" "$BISECT_TREE/$f"
	done
	echo "bisect: from a copy of the x86_64 check build ($CHECK_BUILD), in its configuration"
	cp -a "$CHECK_BUILD" "$BISECT_BUILD"
	copied
	BISECT_INSIDE=1 BISECT_CONFIG=$cfg/.config unshare -m --propagation private "$0" "$dir"
	rm -rf "$BISECT_BUILD"
else
	echo "bisect: from scratch, in kunit.py's configuration"
	copied
	mkdir -p "$BISECT_BUILD"
	# shellcheck disable=SC2034 # (passed by name to prefixes_up)
	bk=(make -C "$BISECT_TREE" O="$BISECT_BUILD" ARCH=x86_64 LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
	prefixes_up bk "$cfg/.config" "$BISECT_BUILD"
fi
echo "$stamp" >"$done_file"
echo "bisect: all $n prefixes of the series build for x86_64"
