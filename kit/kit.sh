#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kit.sh ARCH [DIR]: what it takes to try the project on a board of ARCH
#   (x86_64, armv7, ppc64le or arm64) or in a lab, written to DIR (default
#   out/kit/ARCH):
#     kselftest-cpuidle.tar.gz  the kernel's own kselftest tarball of the
#                               cpuidle collection (make -C
#                               tools/testing/selftests TARGETS=cpuidle
#                               gen_tar, in the grafted tree), what
#                               KernelCI and LKFT consume as it is
#     patches/                  the series (patches.sh export; needs a git
#                               identity)
#     ARCH.config               the config fragment (kit/ARCH.config)
#     README.txt                build, boot, load, run, send the output to
#                               make verdict
#   The fragment is checked first (check-config below).
# kit.sh check-config ARCH...: each kit/ARCH.config merged with
#   merge_config.sh onto the board's defconfig survives olddefconfig: every
#   CONFIG_X=y or =m line of the fragment is set so, every "# CONFIG_X is
#   not set" line is unset.  Kconfig only (no build), the arches at once;
#   one line per arch, "kit: ARCH: ok: ..." or "kit: ARCH: FAIL: ...".
# kit.sh board-build ARCH: the board's own build, once (not part of make
#   check): a copy of vanilla 7.3 with the kit's series applied (the fixes
#   first), the board's defconfig with the fragment merged by
#   merge_config.sh, olddefconfig, then the kernel, its modules and (ARM)
#   device trees built as the README says; prints the options that matter
#   and the project's modules built.  Its own tree and build directory in
#   the cache.
# kit.sh tarball ARCH FILE: the kit's kselftest tarball alone, to FILE (the
#   check guests run it: pipeline/mkinitramfs.sh).
# kit.sh ksft-merge ARCH...: what a lab's "defconfig + kselftest" build
#   gets (x86_64, arm64): make defconfig kselftest-merge in the grafted
#   tree, every collection's config merged, kconfig only; every line of
#   the cpuidle collection's config must hold but those of the drivers
#   ARCH lacks (ksft_foreign).  A result is kept under the hash of what
#   it reads (every collection's config, the tree's version, rustc).
set -euo pipefail
. "$(dirname "$0")/../pipeline/lib.sh"

usage="usage: kit.sh ARCH [DIR] | kit.sh check-config ARCH... | kit.sh ksft-merge ARCH... | kit.sh board-build ARCH | kit.sh tarball ARCH FILE"

# board_setup ARCH: KARCH (lib.sh), the board's DEFCONFIG, FRAG
board_setup() {
	arch_setup "$1"
	case "$1" in
	x86_64)  DEFCONFIG=x86_64_defconfig ;;
	armv7)   DEFCONFIG=mvebu_v7_defconfig ;;
	ppc64le) DEFCONFIG=pseries_le_defconfig ;;
	arm64)   DEFCONFIG=defconfig ;;
	esac
	FRAG=$TOP/kit/$1.config
	[ -f "$FRAG" ] || die "no config fragment kit/$1.config"
}

# check_config ARCH: prints one "kit: ARCH: ..." line; fails if the
# fragment does not survive
check_config() {
	board_setup "$1"
	local o want=0 off=0 bad=() k v n=0 line
	# the fragment's own lines: =y, =m, "is not set", comments, blank
	while IFS= read -r line; do
		n=$((n + 1))
		case "$line" in
		'' | '# CONFIG_'*' is not set') ;;
		'# CONFIG_'*) die "kit/$1.config:$n: '$line' is neither a comment nor '# CONFIG_X is not set'" ;;
		'#'*) ;;
		CONFIG_*=y | CONFIG_*=m) ;;
		*) die "kit/$1.config:$n: '$line': only CONFIG_X=y, CONFIG_X=m and '# CONFIG_X is not set' lines" ;;
		esac
	done <"$FRAG"
	o=$(mktemp -d)
	local km=(make -s -C "$TREE" O="$o" ARCH="$KARCH" LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
	if ! { "${km[@]}" "$DEFCONFIG" &&
		"$TREE/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$FRAG" &&
		"${km[@]}" olddefconfig; } >"$o/log" 2>&1; then
		echo "kit: $1: FAIL: kconfig of $DEFCONFIG + kit/$1.config failed:"
		tail -n 15 "$o/log" | sed "s/^/kit: $1: /"
		rm -rf "$o"
		return 1
	fi
	while IFS='=' read -r k v; do
		want=$((want + 1))
		grep -qx "$k=$v" "$o/.config" ||
			bad+=("$k=$v is $(grep -E "^$k=|^# $k is not set" "$o/.config" || echo "absent, a dependency unmet")")
	done < <(grep -E '^CONFIG_[A-Za-z0-9_]+=[ym]$' "$FRAG")
	while read -r k; do
		off=$((off + 1))
		! grep -q "^$k=" "$o/.config" || bad+=("$k must be off but is $(grep "^$k=" "$o/.config")")
	done < <(sed -nE 's/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1/p' "$FRAG")
	rm -rf "$o"
	if [ ${#bad[@]} != 0 ]; then
		echo "kit: $1: FAIL: kit/$1.config does not survive olddefconfig on $DEFCONFIG: ${bad[*]}"
		return 1
	fi
	echo "kit: $1: ok: kit/$1.config survives olddefconfig on $DEFCONFIG ($want options set, $off off)"
}

readme_board() { # ARCH: sets the README's board, load and mods (readme's locals)
	case "$arch" in
	x86_64)
		board="an x86_64 machine.  No driver of the project replaces intel_idle or
acpi_idle there: the rteo governor runs over the machine's own driver"
		load="There is no driver module to load: rteo is built in and the machine's
driver stays.  Check with
     cat /sys/devices/system/cpu/cpuidle/current_driver    (intel_idle or acpi_idle)
     cat /sys/devices/system/cpu/cpuidle/current_governor  (rteo)"
		mods="rust_pm_qos_cpu.ko" ;;
	armv7)
		board="a Marvell Armada 370, XP or 38x board (the Rust mvebu v7 driver binds
the cpuidle-armada-* device arch/arm/mach-mvebu/pmsu.c registers)"
		load="Load the driver in place of the C one the fragment turns off:
     modprobe cpuidle-mvebu-v7-rs
     cat /sys/devices/system/cpu/cpuidle/current_driver    (armada_xp_idle, armada_370_idle or armada_38x_idle)
     cat /sys/devices/system/cpu/cpuidle/current_governor  (rteo)"
		mods="cpuidle-mvebu-v7-rs.ko rust_pm_qos_cpu.ko" ;;
	ppc64le)
		board="a POWER LPAR (PowerVM, or KVM's pseries; the Rust pseries driver, with
the extended CEDE states the firmware reports on POWER10 and later)"
		load="Load the driver in place of the C one the fragment turns off:
     modprobe cpuidle-pseries-rs
     cat /sys/devices/system/cpu/cpuidle/current_driver    (pseries_idle)
     cat /sys/devices/system/cpu/cpuidle/current_governor  (rteo)"
		mods="cpuidle-pseries-rs.ko rust_pm_qos_cpu.ko" ;;
	arm64)
		board="an arm64 machine whose device tree gives its CPUs PSCI idle states
(arm,idle-state nodes), in the flat layout (cpu-idle-states) or the
hierarchical one (power-domains, domain-idle-states) used in
platform-coordinated mode; not OS-initiated mode"
		load="There is no module to load: the Rust PSCI driver is built in and
registers at boot, one driver per CPU.  Check with
     cat /sys/devices/system/cpu/cpu0/cpuidle/driver/name  (psci_idle)
     cat /sys/devices/system/cpu/cpuidle/current_governor  (rteo)
   psci_idle.sh compares each CPU's states with the device tree and
   enters each state alone on cpu1 (power-down states must count usage on
   hardware); it also suspends the machine to idle for 2 s, woken by
   rtc0's alarm (CONFIG_SUSPEND; it skips that test without
   /sys/class/rtc/rtc0/wakealarm)"
		mods="rust_pm_qos_cpu.ko" ;;
	esac
}

readme() { # ARCH: README.txt
	local arch=$1 board load mods
	readme_board "$arch"
	cat <<EOF
rcpuidle kit for $arch
$(printf '%*s' $((17 + ${#arch})) '' | tr ' ' =)

For $board.

Made by 'make kit ARCH=$arch' from rcpuidle $(git -C "$TOP" describe --always --dirty 2>/dev/null || echo '(unknown commit)').

  patches/                  the series, against Linux 7.3 (the independent
                            fixes it needs in patches/fixes/, first; in
                            patches/generic/, the generic kselftests
                            alone, for a tree without the series)
  $(printf '%-26s' "$arch.config")the config fragment: Rust, cpuidle, the rteo
                            governor and the project's drivers on, the C
                            drivers they replace off, no test-only option
  kselftest-cpuidle.tar.gz  the cpuidle kselftests, as the kernel's
                            'make -C tools/testing/selftests TARGETS=cpuidle
                            gen_tar' packs them

1. Build.  In a Linux 7.3 tree (git), with a Rust toolchain the kernel
   accepts (make rustavailable):
     git am \$(ls patches/fixes/*.patch patches/*.patch | grep -v /0000-)
     make ARCH=$KARCH $DEFCONFIG
     scripts/kconfig/merge_config.sh -m .config /path/to/kit/$arch.config
     make ARCH=$KARCH olddefconfig
     make ARCH=$KARCH -j\$(nproc)    (LLVM=1 or a cross compiler as usual)
     make ARCH=$KARCH modules_install INSTALL_MOD_PATH=...
   Every option of the fragment stays as asked after olddefconfig
   ('make check' checks it); 'grep -E "RTEO|CPUIDLE" .config' shows them.
   A lab's "defconfig + kselftest" build (make defconfig kselftest-merge,
   every collection's config merged) gets the same from the collection's
   own config on x86_64 and arm64 ('make check' checks that too): Rust,
   rteo, the PM QoS sample, the platform's driver, fault injection.

2. Boot it with cpuidle.governor=rteo on the command line.

3. $load

4. Unpack the tarball and run the collection, keeping the runner's output:
     mkdir -p kselftest
     tar -C kselftest -xzf kselftest-cpuidle.tar.gz
     cd kselftest
     ./run_kselftest.sh -c cpuidle 2>&1 | tee cpuidle.log
   The tests find the modules ($mods) where
   modules_install put them, in /lib/modules/\$(uname -r) (or in
   RCPUIDLE_MODDIR, if set).  Those that load the driver themselves
   (with its parameters, or 20 times over) unload the one of step 3 first
   and load it again when they are done.

5. Send cpuidle.log (or the serial console's log, with printk's time
   stamps on, holding the runner's output) back to the project's tree:
     make verdict LOG=cpuidle.log ARCH=$arch
   It judges the output with the same fail-closed rules as 'make check':
   every test of the tarball's kselftest-list.txt must report, each must
   pass or skip as a whole with a reason; a failure, a missing result, a
   run cut short, results after the plan, a kernel splat or lost console
   messages are red.  One difference: in 'make check' only the tests its
   list allows may skip as a whole; on a board any may, with the reason in
   its output, since the platform tests skip on other platforms and the
   emulated-state tests skip without cpuidle-vstates.ko (not built here).

What the tests need
-------------------
- Root, and a shell with the usual tools (busybox is enough: find, awk,
  od, sleep); cpupower for cpupower.sh (Debian's linux-cpupower), which
  skips without it.  fail_nth.sh's helper, failnth, is in the tarball
  (static, built against the kernel's nolibc).
- The kernel command line: cpuidle.governor=rteo (rteo_boot.sh skips
  without a cpuidle.governor= there).
- Time: settings gives each test run_kselftest.sh's timeout of 1800 s;
  fail_nth.sh is the longest (up to CPUIDLE_FAILNTH_TOTAL, 1200 s, of
  faulted loads), so a job's timeout must cover the sum of the tests it
  runs, about an hour on a slow board.
- Each test reports its own result lines (KTAP); run_kselftest.sh prints
  one "ok N selftests: cpuidle: NAME" per test, which is what a lab
  records.
- What skips as a whole, and where: the generic tests need a cpuidle
  driver with states (a platform without one skips them); fail_nth.sh
  needs CONFIG_FAULT_INJECTION with its debugfs; psci_idle.sh runs on
  arm64 with the Rust PSCI driver; pseries_*.sh on pseries LPARs;
  mvebu_v7_module.sh on Armada 370/XP/38x; vstates_*.sh need
  cpuidle-vstates.ko, a test module this kit does not build; the tests
  that load a module skip if it is not installed.

In a lab
--------
The tarball is the kernel's own kselftest package, the kind KernelCI and
LKFT unpack on a device and run with run_kselftest.sh as in step 4.  With
tuxrun, for instance (not run here, so untested: the project runs these
tests in its own QEMU guests, 'make check'):
  tuxrun --device <device> --kernel <image> --modules modules.tar.xz \\
         --overlay kselftest-cpuidle.tar.gz /opt/kselftests/cpuidle \\
         --log-file-text cpuidle.log \\
         "cd /opt/kselftests/cpuidle && ./run_kselftest.sh -c cpuidle"
(with the modules installed as in step 1).  tuxrun's own kselftest-NAME
tests are a fixed list without cpuidle; an entry kselftest-cpuidle there
would take the tarball as --parameters KSELFTEST=<URL of the tarball>.
A KernelCI or LKFT kselftest job names the collection 'cpuidle' and
points its kselftest archive at the tarball.  The job's log goes to
'make verdict' as in step 5.
EOF
}

# make_tarball ARCH OUT: the kernel's own packing of the collection
# (gen_tar), built out of the tree, copied to OUT
make_tarball() {
	local o
	arch_setup "$1"
	o=$(mktemp -d)
	# (the UAPI headers of the arch's build, as the kernel's own
	# kselftest targets give them)
	[ -d "$BUILD/usr/include/asm" ] || die "no UAPI headers in $BUILD/usr/include: build the $1 kernel first"
	if ! make -C "$TREE/tools/testing/selftests" O="$o" ARCH="$KARCH" LLVM=-19 \
		KHDR_INCLUDES="-isystem $BUILD/usr/include" \
		TARGETS=cpuidle gen_tar >"$o/gen_tar.log" 2>&1; then
		tail -n 20 "$o/gen_tar.log"
		rm -rf "$o"
		die "make -C tools/testing/selftests TARGETS=cpuidle gen_tar failed"
	fi
	local t=$o/kselftest/kselftest_install/kselftest-packages/kselftest.tar.gz
	if [ ! -s "$t" ] || [ "$(tar -xOzf "$t" ./kselftest-list.txt | grep -c '^cpuidle:')" = 0 ]; then
		rm -rf "$o"
		die "gen_tar left no $t listing a cpuidle test"
	fi
	cp "$t" "$2"
	rm -rf "$o"
}

make_kit() {
	local arch=$1 dir=$2 n
	"$TOP/pipeline/graft.sh" >/dev/null
	check_config "$arch" || die "kit/$arch.config does not survive olddefconfig"
	board_setup "$arch"
	# written aside, moved into place whole: a failed run (no git identity
	# for the series, say) leaves no half kit
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	mkdir "$work/kit"
	make_tarball "$arch" "$work/kit/kselftest-cpuidle.tar.gz"
	n=$(tar -xOzf "$work/kit/kselftest-cpuidle.tar.gz" ./kselftest-list.txt | grep -c '^cpuidle:')
	"$TOP/pipeline/patches.sh" export "$work/kit/patches"
	cp "$FRAG" "$work/kit/$arch.config"
	readme "$arch" >"$work/kit/README.txt"
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	mv "$work/kit" "$dir"
	echo "kit: $arch: ${dir#"$TOP"/}/: kselftest-cpuidle.tar.gz ($n tests), patches/ ($(find "$dir/patches" -path '*/generic' -prune -o -name '*.patch' ! -name '0000-*' -print | wc -l) patches and their cover letters; the generic kselftests alone in generic/), $arch.config, README.txt"
}

board_build() {
	local arch=$1 kit=$TOP/out/kit/$1 t b p f targets
	make_kit "$arch" "$kit"
	board_setup "$arch"
	t=$CACHE/board/linux-$KVER-$arch b=$CACHE/build/board-$arch-$KVER
	rm -rf "$t" "$t.tmp"
	mkdir -p "$CACHE/board"
	cp -al "$PRISTINE" "$t.tmp"
	for p in $(ls "$kit"/patches/fixes/*.patch "$kit"/patches/*.patch | grep -v '/0000-'); do
		for f in $(grep -E '^\+\+\+ b/' "$p" | sed 's|^+++ b/||'); do
			[ ! -f "$t.tmp/$f" ] || { cp "$t.tmp/$f" "$t.tmp/$f.u" && mv "$t.tmp/$f.u" "$t.tmp/$f"; }
		done
		patch -s -p1 -d "$t.tmp" --no-backup-if-mismatch <"$p" || die "$(basename "$p") does not apply"
	done
	mv "$t.tmp" "$t"
	local km=(make -s -C "$t" O="$b" ARCH="$KARCH" LLVM=-19 RUST_LIB_SRC="$RUST_LIB_SRC")
	mkdir -p "$b"
	"${km[@]}" "$DEFCONFIG"
	"$t/scripts/kconfig/merge_config.sh" -m -O "$b" "$b/.config" "$FRAG" >/dev/null
	"${km[@]}" olddefconfig
	targets=("$(basename "$IMAGE")" modules)
	[ "$arch" != armv7 ] || targets+=(dtbs)
	echo "kit: $arch: building ${targets[*]} of $DEFCONFIG + kit/$arch.config in $b"
	local t0=$SECONDS
	nice -n "${RCPUIDLE_BUILD_NICE:-0}" "${km[@]}" -j"${JOBS:-3}" "${targets[@]}" >"$b/build.log" 2>&1 || {
		tail -n 20 "$b/build.log"
		die "the board build failed (log: $b/build.log)"
	}
	echo "kit: $arch: built in $((SECONDS - t0)) s: $(ls -la "$b/$IMAGE" | awk '{ print $5 }') bytes of $IMAGE"
	echo "kit: $arch: $(grep -cE '^CONFIG_[A-Z0-9_]+=[ym]' "$b/.config") options set; those of the fragment:" \
		"$(grep -E '^CONFIG_[A-Za-z0-9_]+=[ym]$' "$FRAG" | while IFS='=' read -r k v; do grep -qx "$k=$v" "$b/.config" && echo "$k=$v"; done | wc -l)" \
		"of $(grep -cE '^CONFIG_[A-Za-z0-9_]+=[ym]$' "$FRAG") =y/=m kept"
	echo "kit: $arch: the project's modules: $(cd "$b" && find . -name '*.ko' | grep -E 'cpuidle|pm_qos' | sort | tr '\n' ' ')"
	[ "$arch" != armv7 ] || echo "kit: $arch: Armada device trees: $(ls "$b"/arch/arm/boot/dts/marvell/armada-*.dtb 2>/dev/null | wc -l)"
}

# the options of the collection's config that ARCH has no Kconfig entry
# for (another arch's drivers and the C ones they replace)
ksft_foreign() {
	case $1 in
	x86_64) echo "PSERIES_CPUIDLE_RUST PSERIES_CPUIDLE ARM_MVEBU_V7_CPUIDLE_RUST ARM_MVEBU_V7_CPUIDLE ARM_PSCI_CPUIDLE_RUST ARM_PSCI_CPUIDLE" ;;
	arm64) echo "PSERIES_CPUIDLE_RUST PSERIES_CPUIDLE ARM_MVEBU_V7_CPUIDLE_RUST ARM_MVEBU_V7_CPUIDLE CPUIDLE_VSTATES" ;;
	*) die "ksft-merge: x86_64 or arm64, not $1" ;;
	esac
}

# ksft_merge ARCH: prints one "kit: ksft-merge ARCH: ..." line; fails
# if the collection's config does not hold
ksft_merge() {
	arch_setup "$1"
	local o=$CACHE/ksft-merge/$1 cfg=$TREE/tools/testing/selftests/cpuidle/config
	local key foreign line k want=0 bad=()
	foreign=" $(ksft_foreign "$1") "
	key=$({ cat "$TREE"/tools/testing/selftests/*/config; echo "$1 $KVER $RUSTVER"; } |
		sha256sum | cut -c1-16)
	if [ "$(cat "$o/.rcpuidle-key" 2>/dev/null)" != "$key" ]; then
		rm -rf "$o"
		mkdir -p "$o"
		"${KMAKE[@]}" O="$o" -s defconfig kselftest-merge >"$o.log" 2>&1 ||
			{ echo "kit: ksft-merge $1: FAIL: make defconfig kselftest-merge failed (log $o.log)"; return 1; }
		echo "$key" >"$o/.rcpuidle-key"
	fi
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=[ym]) k=${line%%=*} ;;
		'# CONFIG_'*' is not set') k=${line#\# }; k=${k%% *} ;;
		*) continue ;;
		esac
		case "$foreign" in *" ${k#CONFIG_} "*) continue ;; esac
		want=$((want + 1))
		case "$line" in
		'#'*) ! grep -qE "^$k=" "$o/.config" || bad+=("$k set") ;;
		*) grep -qx "$line" "$o/.config" || bad+=("$line: $(grep -E "^(# )?${k}[= ]" "$o/.config" || echo absent)") ;;
		esac
	done <"$cfg"
	if [ ${#bad[@]} -gt 0 ]; then
		echo "kit: ksft-merge $1: FAIL: ${bad[*]}"
		return 1
	fi
	echo "kit: ksft-merge $1: ok: the $want options of the cpuidle collection's config hold after make defconfig kselftest-merge ($(grep -cE '^CONFIG_' "$o/.config") options set)"
}

case "${1:-}" in
ksft-merge)
	shift
	[ $# -gt 0 ] || die "$usage"
	"$TOP/pipeline/graft.sh" >/dev/null
	rc=0
	for a in "$@"; do
		ksft_merge "$a" || rc=1
	done
	exit $rc ;;
board-build)
	[ $# = 2 ] || die "$usage"
	board_build "$2" ;;
check-config)
	shift
	[ $# -gt 0 ] || die "$usage"
	"$TOP/pipeline/graft.sh" >/dev/null
	# the arches at once (kconfig only reads the tree), printed in order
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	for a in "$@"; do
		(check_config "$a" >"$work/$a" 2>&1 && echo ok >"$work/$a.ok") &
	done
	wait
	rc=0
	for a in "$@"; do
		cat "$work/$a"
		[ -f "$work/$a.ok" ] || rc=1
	done
	exit $rc ;;
tarball)
	[ $# = 3 ] || die "$usage"
	"$TOP/pipeline/graft.sh" >/dev/null
	make_tarball "$2" "$3" ;;
x86_64 | armv7 | ppc64le | arm64)
	make_kit "$1" "${2:-$TOP/out/kit/$1}" ;;
*) die "$usage" ;;
esac
