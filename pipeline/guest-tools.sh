#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-tools.sh ARCH ROOT TOOL...: the field's userspace tools for the
# guest, as Debian builds them: each TOOL's package and the libraries it
# depends on are downloaded (apt-get download, never installed) and
# unpacked under the cache, and TOOL is copied into the initramfs tree ROOT
# (/usr/bin) with every shared library it needs.
#   x86_64   the machine's own suite; the libraries ldd names
#   ppc64le, arm64  the machine's suite's ppc64el or arm64 packages through
#            a private apt root (pipeline/apt-root.sh); the libraries from
#            the ELF NEEDED entries, followed recursively
# TOOL idlebench (not x86_64: mkinitramfs.sh builds it there with the
# machine's gcc) is the project's benchmark program (tools/idlebench),
# built static with clang against that suite's libc6-dev of the arch.
# A tool that is not known, or a library that cannot be found, is an error.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch=$1 root=$2
shift 2
case $arch in
x86_64 | ppc64le | arm64) ;;
*) die "guest-tools: no Debian tools for $arch" ;;
esac

# tool -> package and path in it
pkg_of() {
	case $1 in
	cyclictest | hackbench) echo rt-tests ;;
	perf) echo linux-perf ;;
	cpupower) echo linux-cpupower ;;
	iperf3) echo iperf3 ;;
	ioping) echo ioping ;;
	# (gcc-dev: the libgcc-N-dev of the suite's gcc, resolved below)
	idlebench) [ "$arch" != x86_64 ] && echo libc6-dev && echo gcc-dev ||
		die "guest-tools: idlebench is built by mkinitramfs.sh for $arch" ;;
	*) die "guest-tools: no Debian package known for tool '$1'" ;;
	esac
}

# program TOOL: sets bin to TOOL in the unpacked tree $sys, copied into ROOT
program() {
	local d
	bin=
	for d in usr/bin usr/sbin bin sbin; do
		[ -x "$sys/$d/$1" ] && bin=$sys/$d/$1 && break
	done
	[ -n "$bin" ] || die "guest-tools: package $(pkg_of "$1") has no program $1"
	cp "$bin" "$root/usr/bin/$1"
}

pkgs=$(for t in "$@"; do pkg_of "$t"; done | sort -u)
if [ "$arch" != x86_64 ]; then
	log() { echo "guest-tools: $*"; }
	# the machine's own suite, as for x86_64, in a private root of its
	# packages for the guest's architecture (the mirror serves those of
	# its point releases)
	case $arch in
	ppc64le) a=ppc64el triplet=powerpc64le-linux-gnu ;;
	arm64) a=arm64 triplet=aarch64-linux-gnu ;;
	esac
	suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
	[ -n "$suite" ] || die "guest-tools: no VERSION_CODENAME in /etc/os-release"
	APTROOT=$CACHE/apt-$suite-$a
	. "$TOP/pipeline/apt-root.sh"
	apt_sources() { echo "deb [arch=$a signed-by=$1] $mirror $suite main"; }
	# lists older than what the mirror now serves give 404s: refresh them
	# when a download fails, and resolve again
	if [ "${GUEST_TOOLS_REFRESHED:-0}" = 1 ]; then rm -f "$APTROOT/updated"; fi
	apt_refresh
	if grep -qx gcc-dev <<<"$pkgs"; then
		v=$(apt-cache "${APT_OPTS[@]}" depends "gcc:$a" 2>/dev/null |
			sed -n "s/^ *Depends: gcc-\([0-9]*\):$a\$/\1/p" | head -n1)
		[ -n "$v" ] || die "guest-tools: no gcc version for $a (apt-cache depends gcc:$a)"
		pkgs=$(echo "$pkgs" | sed "s/^gcc-dev\$/libgcc-$v-dev/")
	fi
	# shellcheck disable=SC2046 # package names, one word each
	list=$(apt-cache "${APT_OPTS[@]}" depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		$(printf "%s:$a " $pkgs) 2>/dev/null |
		grep -E "^[a-z0-9].*:$a\$" | sort -u)
	[ -n "$list" ] || die "guest-tools: apt-cache knows none of: $pkgs ($a)"
	vers=$(for p in $list; do
		echo "$p=$(apt-cache "${APT_OPTS[@]}" policy "$p" | awk '/Candidate:/ { print $2 }')"
	done)
	grep -q '=(none)$' <<<"$vers" && die "guest-tools: no candidate for: $(echo "$vers" | grep '=(none)$' | tr '\n' ' ')"
	sys=$CACHE/pkg/guest-$arch-$(echo "$vers" | sha256sum | cut -c1-16)
	if [ ! -f "$sys/.done" ]; then
		echo "guest-tools: downloading $(echo "$list" | wc -w) $a packages for $*"
		rm -rf "$sys" "$sys.debs"
		mkdir -p "$sys.debs"
		# shellcheck disable=SC2086 # package=version words
		if ! (cd "$sys.debs" && apt-get "${APT_OPTS[@]}" download -qq $vers >/dev/null 2>&1); then
			rm -rf "$sys.debs"
			[ "${GUEST_TOOLS_REFRESHED:-0}" = 0 ] ||
				die "guest-tools: apt-get download failed for: ${vers//$'\n'/ }"
			GUEST_TOOLS_REFRESHED=1 exec "$0" "$arch" "$root" "$@"
		fi
		for d in "$sys.debs"/*.deb; do dpkg-deb -x "$d" "$sys"; done
		rm -rf "$sys.debs"
		touch "$sys/.done"
	fi
	dirs="lib/$triplet usr/lib/$triplet lib64 lib"
	# need FILE: copy FILE's NEEDED libraries into ROOT, recursively
	need() {
		local lib d found
		for lib in $(llvm-readelf-19 -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$root/lib/$triplet/$lib" ] && continue
			found=
			for d in $dirs; do
				[ -e "$sys/$d/$lib" ] && found=$sys/$d/$lib && break
			done
			[ -n "$found" ] || die "guest-tools: $(basename "$1") needs $lib, which no downloaded package has"
			cp -L "$found" "$root/lib/$triplet/$lib"
			need "$found"
		done
	}
	mkdir -p "$root/usr/bin" "$root/lib/$triplet" "$root/lib64"
	for t in "$@"; do
		if [ "$t" = idlebench ]; then
			clang-19 --target=$triplet --sysroot="$sys" -O2 -Wall -Werror -static \
				-fuse-ld=lld -o "$root/usr/bin/idlebench" "$TOP/tools/idlebench/idlebench.c" ||
				die "guest-tools: cannot build tools/idlebench against $sys"
			continue
		fi
		program "$t"
		need "$bin"
		interp=$(llvm-readelf-19 -l "$bin" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
		# (the package's link to it is absolute: follow it inside $sys)
		l=$sys$interp
		while [ -L "$l" ]; do
			case $(readlink "$l") in
			/*) l=$sys$(readlink "$l") ;;
			*) l=$(dirname "$l")/$(readlink "$l") ;;
			esac
		done
		[ -n "$interp" ] && [ -f "$l" ] || die "guest-tools: no loader $interp for $t"
		mkdir -p "$root$(dirname "$interp")"
		cp "$l" "$root$interp"
	done
	echo "guest-tools: $* (Debian $suite $a: $(echo "$vers" | grep -E "^($(echo $pkgs | sed "s/ /|/g")):" | tr '\n' ' '))"
	exit 0
fi

# the packages and every library package they depend on (recursively)
deps() {
	# shellcheck disable=SC2086 # package names
	apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances $pkgs 2>/dev/null |
		grep -E '^[a-z0-9]' | grep -E '^lib' | grep -vE -- '-(common|minimal|stdlib)$' | sort -u
}
list=$({ echo "$pkgs"; deps; } | sort -u)
[ -n "$list" ] || die "guest-tools: apt-cache knows none of: $pkgs"
# the versions apt would download: they key the unpacked tree
vers=$(for p in $list; do echo "$p=$(apt-cache policy "$p" | awk '/Candidate:/ { print $2 }')"; done)
grep -q '=(none)$' <<<"$vers" &&
	die "guest-tools: no candidate version for: $(echo "$vers" | grep '=(none)$' | tr '\n' ' ')"
sys=$CACHE/pkg/guest-x86_64-$(echo "$vers" | sha256sum | cut -c1-16)
if [ ! -f "$sys/.done" ]; then
	echo "guest-tools: downloading $(echo "$list" | wc -w) packages for $*"
	rm -rf "$sys" "$sys.debs"
	mkdir -p "$sys.debs"
	# shellcheck disable=SC2086 # package=version words
	(cd "$sys.debs" && apt-get download -qq $vers >/dev/null 2>&1) ||
		(cd "$sys.debs" && apt-get update -qq && apt-get download -qq $vers >/dev/null) ||
		die "guest-tools: apt-get download failed for: ${vers//$'\n'/ }"
	for d in "$sys.debs"/*.deb; do dpkg-deb -x "$d" "$sys"; done
	rm -rf "$sys.debs"
	touch "$sys/.done"
fi

libpath=$sys/lib/x86_64-linux-gnu:$sys/usr/lib/x86_64-linux-gnu
mkdir -p "$root/usr/bin" "$root/lib/x86_64-linux-gnu" "$root/lib64"
for t in "$@"; do
	program "$t"
	out=$(LD_LIBRARY_PATH=$libpath ldd "$bin") || die "guest-tools: ldd $bin failed"
	if grep -q 'not found' <<<"$out"; then
		die "guest-tools: $t needs libraries no downloaded package has: $(echo "$out" | grep 'not found' | tr -s ' \t\n' ' ')"
	fi
	for lib in $(echo "$out" | awk '$2 == "=>" { print $3 }'); do
		cp -L "$lib" "$root/lib/x86_64-linux-gnu/"
	done
	ld=$(echo "$out" | awk '$1 ~ /^\/.*ld-linux/ { print $1 }')
	[ -n "$ld" ] || die "guest-tools: no dynamic loader for $t"
	cp -L "$ld" "$root/lib64/"
done
echo "guest-tools: $* (Debian $(echo "$vers" | grep -E "^($(echo $pkgs | tr ' ' '|'))=" | tr '\n' ' '))"
