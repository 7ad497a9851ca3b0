#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# patches.sh export DIR: write the project as `git format-patch` series
#                        against vanilla 7.3, each with a cover letter and
#                        the To:/Cc: scripts/get_maintainer.pl gives: the
#                        independent fixes into DIR/fixes/, and the main
#                        series, which depends on them, into DIR.
# patches.sh verify:     export, `git am` both onto the pristine files, check
#                        the result is byte-identical to the grafted tree
#                        that `make check` builds and boots, and run
#                        checkpatch.pl --strict on every patch.
# patches.sh generic DIR: the generic kselftests alone (those that need no
#                        driver of the project: the part of the cpuidle
#                        kselftest Makefile and README before their
#                        "The Rust drivers" line, and the files that part
#                        names) as one patch against vanilla 7.3, message
#                        kernel-patches/generic-selftests.msg, into DIR
#                        (verify checks it too)
# patches.sh bisect:     build x86_64 after every patch of the two series,
#                        the fixes first (one tree, incremental builds), so
#                        that it bisects.
#
# The series is kernel-patches/series: NAME|files per commit, NAME.msg its
# message, NAME.patch its edits to existing kernel files; the commits above
# its "---" line are the fixes, kernel-patches/fixes-cover-letter.msg their
# cover letter.
#
# The patches are the exporter's: their author and Signed-off-by: are the
# git identity seen from the repository, in git's own order (git var
# GIT_AUTHOR_IDENT: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL in the
# environment over user.name and user.email in git config), and so is the
# M: line of the MAINTAINERS entries the series adds
# (kernel-patches/15-maintainers.patch has "M:<tab>@GIT_IDENTITY@" there,
# which the export replaces).  Without an identity, export stops.
# Every patch of the three series (the fixes, the main series, the
# generic kselftests) is addressed To: and Cc: as
# scripts/get_maintainer.pl gives, and each cover letter to their union.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in
export | generic) [ -n "${2:-}" ] || die "usage: patches.sh export DIR | generic DIR | verify | bisect" ;;
verify | bisect) ;;
*) die "usage: patches.sh export DIR | generic DIR | verify | bisect" ;;
esac
# the author identity as git itself resolves it ("NAME <EMAIL> TIME TZ");
# git var fails when it has none
ident_name='' ident_email=
if ident=$(git -C "$TOP" var GIT_AUTHOR_IDENT 2>/dev/null); then
	ident=${ident% * *}
	ident_name=${ident% <*}
	ident_email=${ident##*<}
	ident_email=${ident_email%>}
fi
if [ -z "$ident_name" ] || [ -z "$ident_email" ]; then
	[ "$1" != export ] && [ "$1" != generic ] || die "no git identity: the patches' author, their Signed-off-by: and the M: line of the MAINTAINERS entries they add are yours, as git var GIT_AUTHOR_IDENT gives them (GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, or git config user.name and user.email), and git has none; set one (git config --global user.name 'Your Name'; git config --global user.email you@example.org) and run make patches again"
	# verify and bisect only: a throwaway identity for the temporary
	# repository they export into and then delete; it is never written
	# anywhere else
	ident_name="Throwaway Verify Identity"
	ident_email="no-git-identity@verify.invalid"
fi
"$TOP/pipeline/graft.sh" >/dev/null
KP=$TOP/kernel-patches

# kernel path -> the project file with that content (the project's files
# sit at their kernel paths)
content() { echo "$TOP/$1"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lines=$(grep -vE '^\s*(#|$)' "$KP/series")
[ "$(grep -cx -- '---' <<<"$lines" || true)" -le 1 ] ||
	die "kernel-patches/series has more than one '---' line"
series=$(grep -vx -- '---' <<<"$lines")
names=$(echo "$series" | cut -d'|' -f1)
n=$(echo "$series" | wc -l)
# the fixes: the commits above the "---" line
nfix=0
if grep -qx -- '---' <<<"$lines"; then
	nfix=$(sed '/^---$/,$d' <<<"$lines" | grep -c . || true)
fi
nmain=$((n - nfix))
[ "$nmain" -gt 0 ] || die "kernel-patches/series has no commit after the fixes"
FIXCOVER=$KP/fixes-cover-letter.msg
[ "$nfix" = 0 ] || [ -s "$FIXCOVER" ] ||
	die "kernel-patches/fixes-cover-letter.msg (the fixes' cover letter) is missing"

# every project file in exactly one commit; every message, edit and name
# accounted for
want=$( (cd "$TOP" && {
	find rust drivers samples tools/testing/selftests -type f 2>/dev/null
	find Documentation/admin-guide -type f -name '*.rst' 2>/dev/null
} | grep -v '/target/') | sort)
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
for name in $names; do
	[ -s "$KP/$name.msg" ] || die "kernel-patches/$name.msg (the commit message) is missing"
done
for f in "$KP"/*.patch "$KP"/*.msg; do
	[ -e "$f" ] || continue
	[ "$f" != "$FIXCOVER" ] && [ "$f" != "$KP/generic-selftests.msg" ] || continue
	b=$(basename "$f"); b=${b%.*}
	grep -qxF "$b" <<<"$names" || die "kernel-patches/$(basename "$f") belongs to no commit of the series"
done

# the cover letter names every patch of the main series by its subject
# (a subject may be wrapped across lines there)
[ -s "$KP/cover-letter" ] || die "kernel-patches/cover-letter (the main series' cover letter) is missing"
for name in $(echo "$names" | tail -n "$nmain"); do
	subj=$(head -n 1 "$KP/$name.msg")
	tr -s ' \t\n' '   ' <"$KP/cover-letter" | grep -qF -- "$subj" ||
		die "kernel-patches/cover-letter does not name the patch \"$subj\" ($name)"
done

# git in the temporary repositories: the identity above and none of the
# user's own configuration (format.*, am.*, hooks), so that the patches
# differ from one exporter to another by the identity only
git_() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		GIT_AUTHOR_NAME=$ident_name GIT_AUTHOR_EMAIL=$ident_email \
		GIT_COMMITTER_NAME=$ident_name GIT_COMMITTER_EMAIL=$ident_email \
		git -c init.defaultBranch=master -c commit.gpgsign=false "$@"
}
# ident_subst FILE: the one substitution of the export, every line
# "M:<tab>@GIT_IDENTITY@" of FILE made "M:<tab>NAME <EMAIL>"
ident_subst() {
	IDENT="$ident_name <$ident_email>" python3 -c '
import os, sys
f = sys.argv[1]
s = open(f, "rb").read()
t = s.replace(b"\nM:\t@GIT_IDENTITY@\n", b"\nM:\t" + os.environb[b"IDENT"] + b"\n")
if t != s:
    open(f, "wb").write(t)
' "$1"
}
# the kernel files the series edits (from the NAME.patch files)
edited=$(touched "$KP"/*.patch)
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
		for f in $(touched "$KP/$name.patch"); do
			[ ! -f "$work/src/$f" ] || ident_subst "$work/src/$f"
		done
	fi
	git_ -C "$work/src" add -A
	git_ -C "$work/src" commit -q -s -F "$KP/$name.msg"
done <<<"$series"
if left=$(cd "$work/src" && grep -rlF --exclude-dir=.git '@GIT_IDENTITY@' .); then
	die "@GIT_IDENTITY@ is left in the series outside an M: line: $left"
fi

# MAINTAINERS covers what the series adds: every file the series adds is
# matched by an F: line that the series adds (matched as
# scripts/get_maintainer.pl matches them), and every F: line it adds
# matches a file, of the series or of Linux itself
if ! out=$(cd "$work/src" && git_ ls-files | python3 -c '
import glob, os, re, sys
kp, pristine, listed = sys.argv[1], sys.argv[2], sys.argv[3].split()
tracked = sys.stdin.read().split()
new = sorted(f for f in tracked
             if any(f == l or f.startswith(l.rstrip("/") + "/") for l in listed))
pats = []
for name in sorted(os.listdir(kp)):
    if name.endswith(".patch"):
        text = open(os.path.join(kp, name)).read()
        if "\n+++ b/MAINTAINERS" in "\n" + text:
            pats += re.findall(r"^\+F:\t(\S+)$", text, re.M)

def matches(f, pat):
    rx = pat.replace(".", "\\.").replace("*", ".*").replace("?", ".")
    if not re.match(rx, f):
        return False
    return pat.endswith("/") or f.count("/") == pat.count("/")

bad = []
for f in new:
    if not any(matches(f, p) for p in pats):
        bad.append("no F: line the series adds to MAINTAINERS covers %s, a file it adds" % f)
for p in pats:
    if not any(matches(f, p) for f in new) and not glob.glob(os.path.join(pristine, p)):
        bad.append("the series adds F:\t%s to MAINTAINERS, which matches no file" % p)
print("\n".join(bad))
sys.exit(1 if bad else 0)
' "$KP" "$PRISTINE" "$listed"); then
	die "kernel-patches: MAINTAINERS and the files the series adds differ:
$out"
fi

# cover COVER TEXT: the cover letter's subject and text from TEXT (subject,
# blank line, text)
cover() {
	python3 -c '
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read().split("\n", 2)
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", text[0]).replace("*** BLURB HERE ***", text[2].rstrip("\n"))
open(cover, "w").write(s)
' "$1" "$2"
}
# recipients DIR: every patch in DIR addressed To: its maintainers and Cc:
# its reviewers and lists, as the kernel's scripts/get_maintainer.pl gives
# them (from GM_MAINTAINERS, if set, rather than 7.3's MAINTAINERS), and
# whoever a Cc: line of its message names, never the exporter; the cover
# letter to their union
recipients() {
	local p gm=(perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats --no-s
		${GM_MAINTAINERS:+--mpath "$GM_MAINTAINERS"})
	for p in $(ls "$1"/*.patch | grep -v '/0000-'); do
		(cd "$PRISTINE" && "${gm[@]}" --m --no-r --no-l "$p") >"$p.to" &&
			(cd "$PRISTINE" && "${gm[@]}" --no-m --r --l "$p") >"$p.cc" ||
			die "scripts/get_maintainer.pl fails on $(basename "$p")"
	done
	GM_SELF=$ident_email python3 -c '
import email.utils, glob, os, sys
d = sys.argv[1]

def people(lines):
    out = []
    for line in lines:
        name, addr = email.utils.parseaddr(line.strip())
        if addr and addr.lower() != os.environ["GM_SELF"].lower():
            out.append((name, addr))
    return out

def uniq(ps, drop=()):
    seen, out = {a.lower() for _, a in drop}, []
    for name, addr in ps:
        if addr.lower() not in seen:
            seen.add(addr.lower())
            out.append((name, addr))
    return out

def header(key, ps):
    # as git format-patch writes its own: RFC 2047 names, one a line
    return key + ": " + ",\n    ".join(email.utils.formataddr(p, charset="utf-8") for p in ps)

def address(path, to, cc):
    s = open(path, encoding="utf-8").read()
    head, sep, rest = s.partition("\nSubject: ")
    h = [header("To", to)] if to else []
    h += [header("Cc", cc)] if cc else []
    open(path, "w", encoding="utf-8").write(head + "\n" + "\n".join(h) + sep + rest)

all_to, all_cc = [], []
for p in sorted(glob.glob(os.path.join(d, "*.patch"))):
    if os.path.basename(p).startswith("0000-"):
        continue
    to = uniq(people(open(p + ".to", encoding="utf-8")))
    msg = open(p, encoding="utf-8").read().split("\n---\n", 1)[0]
    cc = people(open(p + ".cc", encoding="utf-8"))
    cc += people(l[4:] for l in msg.split("\n") if l.startswith("Cc: "))
    cc = uniq(cc, to)
    address(p, to, cc)
    all_to += to
    all_cc += cc
    os.remove(p + ".to")
    os.remove(p + ".cc")
all_to = uniq(all_to)
for c in glob.glob(os.path.join(d, "0000-*.patch")):
    address(c, all_to, uniq(all_cc, all_to))
' "$1"
}

# generic DIR: the generic kselftests' patch into DIR (see the top)
KST=tools/testing/selftests/cpuidle
GENMARK_MK='# The Rust drivers'
GENMARK_MD='## The Rust drivers'
# gen_cut FILE MARK: FILE up to the line that starts with MARK, without the
# blank lines before it (fails if FILE has no such line)
gen_cut() {
	grep -q "^$2" "$1" || die "$1 has no '$2' line to cut the generic part at"
	sed "/^$2/,\$d" "$1" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
}
generic() {
	local g=$work/gen f files
	mkdir -p "$g/$KST"
	gen_cut "$TOP/$KST/Makefile" "$GENMARK_MK" >"$g/$KST/Makefile"
	printf '\ninclude ../lib.mk\n' >>"$g/$KST/Makefile"
	gen_cut "$TOP/$KST/README.md" "$GENMARK_MD" >"$g/$KST/README.md"
	# the collection's config up to its Rust part; the programs and files
	# the generic Makefile names
	files=$(sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$g/$KST/Makefile" |
		sed -nE 's/^TEST_(PROGS|FILES) *:?= *//p' | tr -s ' \t' '\n' | grep -v '^README.md$' | grep .)
	gen_cut "$TOP/$KST/config" "$GENMARK_MK" >"$g/$KST/config"
	for f in $files; do
		[ -f "$TOP/$KST/$f" ] || die "the generic Makefile names $f, which $KST lacks"
		cp -p "$TOP/$KST/$f" "$g/$KST/$f"
	done
	# the collection in the selftests' TARGETS (the main series' edit),
	# and in the cpuidle framework's MAINTAINERS entry
	mkdir -p "$g/tools/testing/selftests"
	cp "$PRISTINE/tools/testing/selftests/Makefile" "$g/tools/testing/selftests/Makefile"
	cp "$PRISTINE/MAINTAINERS" "$g/MAINTAINERS"
	git_ -C "$g" init -q
	git_ -C "$g" add tools/testing/selftests/Makefile MAINTAINERS
	git_ -C "$g" commit -q -m "Linux $KVER (the files the patch edits)"
	patch -s -p1 -d "$g" --no-backup-if-mismatch <"$KP/12-selftests-cpuidle.patch" ||
		die "kernel-patches/12-selftests-cpuidle.patch does not apply to the selftests Makefile"
	python3 -c '
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
i = lines.index("CPU IDLE TIME MANAGEMENT FRAMEWORK")
j = i
while lines[j + 1]:
    j += 1
fs = [k for k in range(i, j + 1) if lines[k].startswith("F:\t")]
new = "F:\ttools/testing/selftests/cpuidle/"
at = next((k for k in fs if lines[k] > new), fs[-1] + 1)
lines.insert(at, new)
open(p, "w").write("\n".join(lines))
' "$g/MAINTAINERS" || die "cannot add the collection to the cpuidle MAINTAINERS entry"
	git_ -C "$g" add -A
	git_ -C "$g" commit -q -s -F "$KP/generic-selftests.msg"
	rm -rf "$1"
	mkdir -p "$1"
	git_ -C "$g" format-patch -q -o "$1" HEAD~1
	GM_MAINTAINERS=$g/MAINTAINERS recipients "$1"
}

out=$work/patches
if [ "$1" = generic ]; then
	generic "$2"
	echo "patches: the generic kselftests ($(for p in "$2"/*.patch; do basename "$p"; done)) in $2, against Linux $KVER; author, Signed-off-by: $ident_name <$ident_email>"
	exit 0
fi
[ "$1" != export ] || out=$2
rm -rf "$out"
mkdir -p "$out"
# the main series, which depends on the fixes
git_ -C "$work/src" format-patch -q --cover-letter -o "$out" HEAD~"$nmain"
cover "$(ls "$out"/0000-*.patch)" "$KP/cover-letter"
# addressed from MAINTAINERS as the series leaves it, so that a patch
# reaches the maintainers of the entries it adds files to (the exporter,
# M: of the entries the series adds, is left out)
GM_MAINTAINERS=$work/src/MAINTAINERS recipients "$out"
# the fixes, addressed to their maintainers
if [ "$nfix" -gt 0 ]; then
	git_ -C "$work/src" format-patch -q --cover-letter -o "$out/fixes" HEAD~"$n"..HEAD~"$nmain"
	cover "$(ls "$out"/fixes/0000-*.patch)" "$FIXCOVER"
	recipients "$out/fixes"
fi
# the patches of both, the fixes first
all_patches() {
	if [ "$nfix" -gt 0 ]; then ls "$out"/fixes/*.patch | grep -v '/0000-'; fi
	ls "$out"/*.patch | grep -v '/0000-'
}
who="$ident_name <$ident_email>"

case "$1" in
export)
	generic "$out/generic"
	echo "patches: the generic kselftests alone, against Linux $KVER, in $out/generic"
	echo "patches: $nfix fixes and a cover letter in $out/fixes, $nmain patches that depend on them and a cover letter in $out (git am both to a Linux $KVER tree, the fixes first); author, Signed-off-by: and MAINTAINERS M: $who"
	;;
verify)
	mkrepo "$work/am"
	# shellcheck disable=SC2046 # file names without blanks
	git_ -C "$work/am" am -q $(all_patches) ||
		die "the series does not apply with git am"
	bad=0
	for f in $edited $listed; do
		built=$(readlink -f "$TREE/$f")
		if [ -f "$built" ] && grep -qF '@GIT_IDENTITY@' "$built"; then
			# the built tree has the placeholder where the series
			# has the identity: compare after that substitution
			cp "$built" "$work/built"
			ident_subst "$work/built"
			built=$work/built
		fi
		if ! diff -r "$built" "$work/am/$f" >/dev/null 2>&1; then
			echo "patches: $f differs from the built tree"; bad=1
		fi
	done
	[ $bad = 0 ] || die "the series does not reproduce the built tree"
	echo "patches: $nfix fixes and $nmain patches apply with git am to pristine $KVER and reproduce the built tree (MAINTAINERS M: $who)"
	cp=$TREE/scripts/checkpatch.pl
	bad=0
	generic "$work/generic"
	for p in $(all_patches) $(ls "$work"/generic/*.patch); do
		# (no kernel history here to look the Fixes: ids up in: they
		# were checked against the upstream history when written)
		ign=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
		# TRACE_EVENT()'s own layout (a line per macro argument, ending
		# in "(") is what every event header has: --strict objects to it
		grep -q '^+++ b/include/trace/events/' "$p" && ign=$ign,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT
		if ! "$cp" --no-tree --quiet --strict --ignore "$ign" "$p" >"$work/cp.log" 2>&1; then
			echo "patches: checkpatch --strict: ${p#"$out"/}:"; head -n 20 "$work/cp.log"; bad=1
		fi
	done
	[ $bad = 0 ] || die "checkpatch --strict complains about the series"
	echo "patches: checkpatch --strict clean on all $n patches and the generic kselftests' patch"
	;;
bisect)
	# every prefix of the two series, the fixes first, one directory
	git_ -C "$work/src" format-patch -q -o "$work/all" HEAD~"$n"
	"$TOP/pipeline/bisect.sh" "$work/all" ;;
esac
