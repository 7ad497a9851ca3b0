#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Graft the project into a cached copy of the kernel tree:
#  * the tree is a hard-link copy of the pristine source (cheap);
#  * kernel-patches/*.patch (edits to existing kernel files, one per commit
#    of the series, in its order) are applied;
#  * every project file under rust/ drivers/ samples/ and the rst docs under
#    Documentation/admin-guide/ and the kselftests under
#    tools/testing/selftests/ is copied to its own path.
# Only a file whose content changes is written: the others keep their
# dates, so that builds stay incremental, also from a fresh clone (whose
# files are all new) or when one patch of the series changes.  Every
# build goes through here first (pipeline/build.sh).
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
# The patches applied last are kept, one file each, in $TREE/.rcpuidle-applied/.
# When they change, every file the old or the new ones touch is made again
# aside (pristine, then the new patches) and written only if it differs.
applied=$TREE/.rcpuidle-applied
if [ -f "$TREE/.rcpuidle-applied.patch" ]; then
	# a tree grafted by the single-file scheme of earlier versions
	echo "graft: a tree of an earlier scheme: creating it again"
	rm -rf "$TREE"
	exec "$0" "$@"
fi
if ! diff -rq "$TOP/kernel-patches" "$applied" --exclude='*.msg' \
	--exclude=series --exclude=cover-letter >/dev/null 2>&1; then
	new=$(ls "$TOP"/kernel-patches/*.patch 2>/dev/null | sort || true)
	old=$(ls "$applied"/*.patch 2>/dev/null || true)
	files=$( { [ -z "$new" ] || touched $new; [ -z "$old" ] || touched $old; } | sort -u)
	aside=$(mktemp -d)
	for f in $files; do
		if [ -f "$PRISTINE/$f" ]; then
			mkdir -p "$aside/$(dirname "$f")"
			cp "$PRISTINE/$f" "$aside/$f"
		fi
	done
	for p in $new; do
		patch -s -p1 -d "$aside" --no-backup-if-mismatch <"$p" ||
			{ rm -rf "$aside"; die "kernel-patches/$(basename "$p") does not apply to $KVER after the ones before it"; }
	done
	echo "graft: applying kernel-patches/"
	for f in $files; do
		# (a new copy, never a write through a hard link to the
		# pristine tree, nor a link back to it: its date would be
		# older than the objects built from the file's last content)
		if [ ! -e "$aside/$f" ]; then
			rm -f "$TREE/$f"
		elif ! cmp -s "$aside/$f" "$TREE/$f"; then
			mkdir -p "$(dirname "$TREE/$f")"
			cp "$aside/$f" "$TREE/$f.graft" && mv "$TREE/$f.graft" "$TREE/$f"
		fi
	done
	rm -rf "$aside" "$applied"
	mkdir -p "$applied"
	[ -z "$new" ] || cp $new "$applied/"
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
# drop the files that left the project
comm -23 <(sort "$manifest") "$cur" | while read -r f; do
	k=$TREE/$(kpath "$f")
	[ -e "$k" ] || [ -L "$k" ] || continue
	rm -f "$k" && echo "graft: removed $f"
done
while read -r f; do
	dst=$TREE/$(kpath "$f")
	# (a project file must not stand where the kernel has one; a link is
	# what earlier versions placed)
	if [ -e "$dst" ] && [ ! -L "$dst" ] && ! grep -qxF "$f" "$manifest"; then
		die "$f exists in the kernel tree: change it through kernel-patches/ instead"
	fi
	if [ -L "$dst" ] || ! cmp -s "$TOP/$f" "$dst"; then
		mkdir -p "$(dirname "$dst")"
		rm -f "$dst"
		cp "$TOP/$f" "$dst.graft" && mv "$dst.graft" "$dst"
	fi
done <"$cur"
mv "$cur" "$manifest"
