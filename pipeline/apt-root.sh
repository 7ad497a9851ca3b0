# SPDX-License-Identifier: GPL-2.0
# A private apt root under the cache for downloads from trixie and
# trixie-backports (amd64, ppc64el, armhf, arm64), never installed: the system's
# own apt state is not changed.  Sourced by setup.sh and guest-tools.sh,
# with CACHE set and die() and log() defined.
# shellcheck shell=bash

# (another root: set APTROOT before sourcing, redefine apt_sources after)
APTROOT=${APTROOT:-$CACHE/apt}
mirror=
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	mirror=$(awk '/^URIs:/ && $2 ~ /debian\/?$/ && $2 !~ /security/ {print $2; exit}' "$f")
	[ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
	mirror=$(awk '$1=="deb" && $0 !~ /security/ {for(i=2;i<=NF;i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || die "no Debian mirror URI in the machine's apt sources"

APT_OPTS=(-o "Dir::State=$APTROOT" -o "Dir::State::Lists=$APTROOT/lists"
	-o "Dir::State::status=$APTROOT/status" -o "Dir::Cache=$APTROOT/cache"
	-o "Dir::Etc::SourceList=$APTROOT/sources.list"
	-o "Dir::Etc::SourceParts=$APTROOT/none"
	-o "Dir::Etc::Preferences=$APTROOT/preferences"
	-o "Dir::Etc::PreferencesParts=$APTROOT/none"
	-o "APT::Architectures::=amd64" -o "APT::Architectures::=ppc64el"
	-o "APT::Architectures::=armhf" -o "APT::Architectures::=arm64"
	-o "Debug::NoLocking=1"
	-o "APT::Sandbox::User=root")

# apt_sources KEYRING: the root's sources.list
apt_sources() {
	echo "deb [arch=amd64 signed-by=$1] $mirror trixie-backports main"
	echo "deb [arch=amd64,ppc64el,armhf,arm64 signed-by=$1] $mirror trixie main"
}

apt_refresh() {
	mkdir -p "$APTROOT/lists/partial" "$APTROOT/cache/archives/partial" \
		"$APTROOT/none" "$APTROOT/debs"
	touch "$APTROOT/status"
	apt_sources /usr/share/keyrings/debian-archive-keyring.gpg >"$APTROOT/sources.list.new"
	# (lists fetched for other sources, e.g. before an architecture was
	# added, are refreshed at once)
	cmp -s "$APTROOT/sources.list.new" "$APTROOT/sources.list" || rm -f "$APTROOT/updated"
	mv "$APTROOT/sources.list.new" "$APTROOT/sources.list"
	cat >"$APTROOT/preferences" <<EOT
Package: *
Pin: release a=trixie-backports
Pin-Priority: 100
EOT
	if [ ! -f "$APTROOT/updated" ] ||
	   [ -n "$(find "$APTROOT/updated" -mmin +1440)" ]; then
		log "refreshing package lists of $APTROOT from $mirror"
		apt-get "${APT_OPTS[@]}" update -qq >/dev/null 2>&1 ||
			die "apt-get update of the private root $APTROOT failed"
		touch "$APTROOT/updated"
	fi
}

# fetch PKG[:ARCH] VERSION-PATTERN DEST: download + dpkg-deb -x into DEST
fetch() {
	local pkg=$1 pat=$2 dest=$3 ver deb
	[ -f "$dest/.done" ] && return 0
	apt_refresh
	ver=$(apt-cache "${APT_OPTS[@]}" madison "$pkg" 2>/dev/null |
		awk -F'|' '{gsub(/ /,"",$2); print $2}' | grep -E "$pat" | head -n1)
	[ -n "$ver" ] || die "package $pkg matching '$pat' not found in trixie/trixie-backports (apt-get download $pkg)"
	log "downloading $pkg=$ver"
	(cd "$APTROOT/debs" && apt-get "${APT_OPTS[@]}" download -qq "$pkg=$ver" >/dev/null 2>&1) ||
		die "apt-get download $pkg=$ver failed"
	deb=$(ls -t "$APTROOT"/debs/"${pkg%%:*}"_*.deb | grep -F "_${ver//:/%3a}_" | head -n1)
	[ -n "$deb" ] || deb=$(ls -t "$APTROOT"/debs/"${pkg%%:*}"_*.deb | head -n1)
	rm -rf "$dest"
	mkdir -p "$dest"
	dpkg-deb -x "$deb" "$dest"
	echo "$ver" >"$dest/.done"
}

