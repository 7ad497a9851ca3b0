#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patches.sh export DIR: write the project as a `git format-patch` series
#                        against vanilla 7.3 into DIR, with a cover letter.
# patches.sh verify:     export, `git am` it onto the pristine files, check
#                        the result is byte-identical to the grafted tree
#                        that `make check` builds and boots, and run
#                        checkpatch.pl --strict on every patch.
# patches.sh bisect:     build x86_64 after every patch of the series (one
#                        tree, incremental builds), so that it bisects.
#
# The series is kernel-patches/series: NAME|files per commit, NAME.msg its
# message, NAME.patch its edits to existing kernel files.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/graft.sh" >/dev/null
KP=$TOP/kernel-patches

# project path -> kernel path
kpath() { case "$1" in selftests/*) echo "tools/testing/$1" ;; *) echo "$1" ;; esac; }
# kernel path -> the project file with that content
content() {
	case "$1" in
	tools/testing/selftests/cpuidle*) echo "$TOP/${1#tools/testing/}" ;;
	*) echo "$TOP/$1" ;;
	esac
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
series=$(grep -vE '^\s*(#|$)' "$KP/series")
names=$(echo "$series" | cut -d'|' -f1)

# every project file in exactly one commit; every message, edit and name
# accounted for
want=$( (cd "$TOP" && {
	find rust drivers samples selftests -type f 2>/dev/null
	find Documentation/admin-guide -type f -name '*.rst' 2>/dev/null
} | grep -v '/target/' | while read -r f; do kpath "$f"; done) | sort)
listed=$(echo "$series" | cut -d'|' -f2 | tr ' ' '\n' | grep . | sort)
dups=$(echo "$listed" | uniq -d)
[ -z "$dups" ] || die "kernel-patches/series lists more than once: $dups"
missing=
for f in $want; do
	grep -qxF "$f" <<<"$listed" && continue
	d=$f
	while [ "$d" != . ] && ! grep -qxF "$d" <<<"$listed"; do d=$(dirname "$d"); done
	[ "$d" != . ] || missing="$missing $f"
done
[ -z "$missing" ] || die "kernel-patches/series misses:$missing"
for f in $listed; do
	[ -e "$(content "$f")" ] || die "kernel-patches/series lists $f, which the project lacks"
done
for n in $names; do
	[ -s "$KP/$n.msg" ] || die "kernel-patches/$n.msg (the commit message) is missing"
done
for f in "$KP"/*.patch "$KP"/*.msg; do
	[ -e "$f" ] || continue
	n=$(basename "$f"); n=${n%.*}
	grep -qxF "$n" <<<"$names" || die "kernel-patches/$(basename "$f") belongs to no commit of the series"
done

git_() { git -c user.name=rcpuidle -c user.email=rcpuidle@localhost -c commit.gpgsign=false "$@"; }
# the kernel files the series edits (from the NAME.patch files)
edited=$(cat "$KP"/*.patch | grep -E '^\+\+\+ ' | awk '{print $2}' | sed 's|^b/||' | sort -u)
mkrepo() { # DIR: pristine copies of every file the series edits
	mkdir -p "$1"
	for f in $edited; do
		mkdir -p "$1/$(dirname "$f")"
		cp "$PRISTINE/$f" "$1/$f"
	done
	git_ -C "$1" init -q
	git_ -C "$1" add -A
	git_ -C "$1" commit -q --allow-empty -m "Linux $KVER (files edited by rcpuidle)"
}

mkrepo "$work/src"
while IFS='|' read -r name files; do
	for f in $files; do
		mkdir -p "$work/src/$(dirname "$f")"
		src=$(content "$f")
		if [ -d "$src" ]; then
			mkdir -p "$work/src/$f" && cp -r "$src"/. "$work/src/$f/"
		else
			cp "$src" "$work/src/$f"
		fi
	done
	if [ -f "$KP/$name.patch" ]; then
		patch -s -p1 -d "$work/src" --no-backup-if-mismatch <"$KP/$name.patch" ||
			die "kernel-patches/$name.patch does not apply after the commits before it"
	fi
	git_ -C "$work/src" add -A
	git_ -C "$work/src" commit -q -s -F "$KP/$name.msg"
done <<<"$series"

out=${2:-$work/patches}
[ "$1" = export ] || out=$work/patches
rm -rf "$out"
mkdir -p "$out"
n=$(echo "$series" | wc -l)
git_ -C "$work/src" format-patch -q --cover-letter -o "$out" HEAD~"$n"
# the cover letter: subject and text from kernel-patches/cover-letter
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$KP/cover-letter" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split('\n', 2)
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', text[0]).replace('*** BLURB HERE ***', text[2].rstrip('\n'))
open(cover, 'w').write(s)
PY

case "$1" in
export)
	echo "patches: $n patches and a cover letter in $out (apply with git am to a Linux $KVER tree)"
	exit 0 ;;
verify)
	mkrepo "$work/am"
	# shellcheck disable=SC2046 # file names without blanks
	git_ -C "$work/am" am -q $(ls "$out"/*.patch | grep -v '/0000-') ||
		die "the series does not apply with git am"
	bad=0
	for f in $edited $listed; do
		if ! diff -r "$(readlink -f "$TREE/$f")" "$work/am/$f" >/dev/null 2>&1; then
			echo "patches: $f differs from the built tree"; bad=1
		fi
	done
	[ $bad = 0 ] || die "the series does not reproduce the built tree"
	echo "patches: $n patches apply with git am to pristine $KVER and reproduce the built tree"
	cp=$TREE/scripts/checkpatch.pl
	bad=0
	for p in $(ls "$out"/*.patch | grep -v '/0000-'); do
		ign=FILE_PATH_CHANGES
		# TRACE_EVENT()'s own layout (a line per macro argument, ending
		# in "(") is what every event header has: --strict objects to it
		grep -q '^+++ b/include/trace/events/' "$p" && ign=$ign,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT
		if ! "$cp" --no-tree --quiet --strict --ignore "$ign" "$p" >"$work/cp.log" 2>&1; then
			echo "patches: checkpatch --strict: $(basename "$p"):"; head -n 20 "$work/cp.log"; bad=1
		fi
	done
	[ $bad = 0 ] || die "checkpatch --strict complains about the series"
	echo "patches: checkpatch --strict clean on all $n patches"
	;;
bisect)
	"$TOP/scripts/bisect.sh" "$out" ;;
*) die "usage: patches.sh export DIR | verify | bisect" ;;
esac
