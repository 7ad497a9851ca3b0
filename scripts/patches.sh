#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patches.sh export DIR: write the project as a `git format-patch` series
#                        against vanilla 7.3 into DIR.
# patches.sh verify:     export, `git am` it onto the pristine files, and
#                        check the result is byte-identical to the grafted
#                        tree that `make check` builds and boots.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/graft.sh" >/dev/null

# project path -> kernel path
kpath() { case "$1" in selftests/*) echo "tools/testing/$1" ;; *) echo "$1" ;; esac; }
# kernel path -> file with the content the series must produce: the
# project's own kselftests, else the grafted tree's file (an edited one
# such as tools/testing/selftests/Makefile, or a link to a project file)
content() {
	case "$1" in
	tools/testing/selftests/*)
		if [ -e "$TOP/${1#tools/testing/}" ]; then
			echo "$TOP/${1#tools/testing/}"
			return
		fi ;;
	esac
	readlink -f "$TREE/$1"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
series=$(grep -vE '^\s*(#|$)' "$TOP/kernel-patches/series")

# every project file and edited file must be in the series
want=$( (cd "$TOP" && find rust drivers samples selftests -type f 2>/dev/null | grep -v '/target/' | while read -r f; do kpath "$f"; done
	grep -E '^\+\+\+ ' "$TOP"/kernel-patches/*.patch | awk '{print $2}' | sed 's|^b/||') | sort -u)
listed=$(echo "$series" | cut -d'|' -f2 | tr ' ' '\n' | grep . | sort -u)
missing=
for f in $want; do
	echo "$listed" | grep -qxF "$f" && continue
	echo "$listed" | grep -qxF "$(dirname "$f")" && continue
	missing="$missing $f"
done
[ -z "$missing" ] || die "kernel-patches/series misses:$missing"

git_() { git -c user.name=rcpuidle -c user.email=rcpuidle@localhost -c commit.gpgsign=false "$@"; }
mkrepo() { # DIR: pristine copies of every file the series touches
	mkdir -p "$1"
	for f in $listed; do
		if [ -e "$PRISTINE/$f" ]; then
			mkdir -p "$1/$(dirname "$f")"
			cp -r "$PRISTINE/$f" "$1/$f"
		fi
	done
	git_ -C "$1" init -q
	git_ -C "$1" add -A
	git_ -C "$1" commit -q --allow-empty -m "Linux $KVER (files touched by rcpuidle)"
}

mkrepo "$work/src"
while IFS='|' read -r subject files; do
	for f in $files; do
		mkdir -p "$work/src/$(dirname "$f")"
		src=$(content "$f")
		if [ -d "$src" ]; then
			mkdir -p "$work/src/$f" && cp -r "$src"/. "$work/src/$f/"
		else
			cp "$src" "$work/src/$f"
		fi
	done
	git_ -C "$work/src" add -A
	git_ -C "$work/src" commit -q -s -m "$subject" -m "Part of rcpuidle: Rust cpuidle support for Linux $KVER."
done <<<"$series"

out=${2:-$work/patches}
rm -rf "$out"
mkdir -p "$out"
git_ -C "$work/src" format-patch -q -o "$out" HEAD~"$(echo "$series" | wc -l)"
n=$(ls "$out"/*.patch | wc -l)

if [ "$1" = export ]; then
	echo "patches: $n patches in $out (apply with git am to a Linux $KVER tree)"
	exit 0
fi

mkrepo "$work/am"
git_ -C "$work/am" am -q "$out"/*.patch || die "the series does not apply with git am"
bad=0
for f in $listed; do
	src=$(content "$f")
	if ! diff -r "$src" "$work/am/$f" >/dev/null 2>&1; then
		echo "patches: $f differs from the built tree"; bad=1
	fi
done
[ $bad = 0 ] || die "the series does not reproduce the built tree"
echo "patches: $n patches apply with git am to pristine $KVER and reproduce the built tree"
