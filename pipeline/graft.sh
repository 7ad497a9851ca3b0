#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Graft the project into a cached copy of the kernel tree:
#  * the tree is a hard-link copy of the pristine source (cheap);
#  * kernel-patches/*.patch (edits to existing kernel files, one per commit
#    of the series, in its order) are applied;
#    files they touch are un-hard-linked first so the pristine tree stays
#    pristine; when the patches change, the old set is reversed first;
#  * every project file under rust/ drivers/ samples/ and the rst docs under
#    Documentation/admin-guide/ and the kselftests under
#    tools/testing/selftests/ are symlinked at their own paths, so editing it in the repo is seen by kbuild (which follows links).
# Only what changed is touched, so incremental builds stay incremental.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mkdir -p "$CACHE/tree"
if [ ! -f "$TREE/.rcpuidle-tree" ]; then
	echo "graft: creating $TREE"
	rm -rf "$TREE"
	cp -al "$PRISTINE" "$TREE.tmp"
	mv "$TREE.tmp" "$TREE"
	touch "$TREE/.rcpuidle-tree"
fi

# --- edits to existing files ----------------------------------------------
# The patches applied last are kept, one file each, in $TREE/.rcpuidle-applied/;
# two of them may edit one file, so they are reverted in reverse order.
applied=$TREE/.rcpuidle-applied
legacy=$TREE/.rcpuidle-applied.patch
touched() { grep -hE '^\+\+\+ ' "$@" | awk '{print $2}' | sed 's|^b/||' | sort -u; }
same=1
if [ -f "$legacy" ] || ! diff -rq "$TOP/kernel-patches" "$applied" --exclude='*.msg' \
	--exclude=series --exclude=cover-letter >/dev/null 2>&1; then
	same=0
fi
if [ $same = 0 ]; then
	if [ -s "$legacy" ]; then
		# a tree grafted by the single-file scheme of earlier versions
		echo "graft: reverting previous kernel edits"
		patch -s -R -p1 -d "$TREE" --no-backup-if-mismatch <"$legacy" ||
			die "could not revert old edits; delete $TREE and retry"
		rm -f "$legacy"
	elif [ -d "$applied" ]; then
		echo "graft: reverting previous kernel edits"
		for p in $(ls "$applied"/*.patch 2>/dev/null | sort -r); do
			patch -s -R -p1 -d "$TREE" --no-backup-if-mismatch <"$p" ||
				die "could not revert $(basename "$p"); delete $TREE and retry"
		done
	fi
	rm -rf "$applied"
	mkdir -p "$applied"
	if ls "$TOP"/kernel-patches/*.patch >/dev/null 2>&1; then
		# break hard links to the pristine tree for every touched file
		for f in $(touched "$TOP"/kernel-patches/*.patch); do
			if [ -f "$TREE/$f" ]; then
				cp "$TREE/$f" "$TREE/$f.unlink" && mv "$TREE/$f.unlink" "$TREE/$f"
			fi
		done
		echo "graft: applying kernel-patches/"
		for p in $(ls "$TOP"/kernel-patches/*.patch | sort); do
			patch -s -p1 -d "$TREE" --no-backup-if-mismatch <"$p" ||
				die "kernel-patches/$(basename "$p") does not apply to $KVER after the ones before it"
			cp "$p" "$applied/"
		done
	fi
fi

# --- project files ---------------------------------------------------------
manifest=$TREE/.rcpuidle-links
touch "$manifest"
# project path -> path in the kernel tree: the same (a manifest written
# before the kselftests moved to tools/testing/ still names selftests/)
kpath() { case "$1" in selftests/*) echo "tools/testing/$1" ;; *) echo "$1" ;; esac; }
cur=$(mktemp)
(cd "$TOP" && {
	find rust drivers samples -type f \( -name '*.rs' -o -name '*.c' -o -name '*.h' -o -name 'Kconfig*' -o -name 'Makefile' \) 2>/dev/null
	find Documentation/admin-guide -type f -name '*.rst' 2>/dev/null
	find drivers -type f -name .kunitconfig 2>/dev/null
	find tools/testing/selftests -type f 2>/dev/null
} | sort) >"$cur"
# drop links to files that left the project
comm -23 <(sort "$manifest") "$cur" | while read -r f; do
	k=$TREE/$(kpath "$f")
	[ -L "$k" ] && rm -f "$k" && echo "graft: unlinked $f"
done
while read -r f; do
	dst=$TREE/$(kpath "$f")
	if [ -e "$dst" ] && [ ! -L "$dst" ]; then
		die "$f exists in the kernel tree: change it through kernel-patches/ instead"
	fi
	if [ "$(readlink "$dst" 2>/dev/null)" != "$TOP/$f" ]; then
		mkdir -p "$(dirname "$dst")"
		ln -sfn "$TOP/$f" "$dst"
	fi
done <"$cur"
mv "$cur" "$manifest"
