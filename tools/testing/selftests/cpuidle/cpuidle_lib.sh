#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the cpuidle kselftests after ktap_helpers.sh: where a module
# is, what machine this is, and how a test gets the cpuidle driver to
# itself on a machine whose user already loaded one of the modules.

CPUIDLE_SYS=/sys/devices/system/cpu/cpuidle

# require_root: the test writes sysfs, debugfs or loads modules: as
# another user it skips as a whole, saying why, instead of failing
require_root() {
	[ "$(id -u)" = 0 ] && return 0
	ktap_skip_all "must be run as root"
	exit "$KSFT_SKIP"
}

# deep_usage CPU [LATENCY]: the entries (usage + rejected) of CPU's enabled
# states 1.. with an exit latency above LATENCY us (default 0), summed.  A
# rejected entry is one the governor chose and the driver refused or could
# not complete (QEMU's PSCI power-down never resumes through cpu_resume):
# what a governor or a latency limit chose is counted either way.
deep_usage() {
	sum=0
	for s in /sys/devices/system/cpu/cpu"$1"/cpuidle/state*; do
		[ -d "$s" ] || continue
		[ "${s##*state}" -gt 0 ] || continue
		[ "$(cat "$s/latency")" -gt "${2:-0}" ] || continue
		[ "$(cat "$s/disable")" = 0 ] || continue
		sum=$((sum + $(cat "$s/usage") + $(cat "$s/rejected")))
	done
	echo "$sum"
}

# have_states: a cpuidle driver is registered and CPU1 has states 1..
have_states() {
	[ "$(cat $CPUIDLE_SYS/current_driver)" != none ] &&
		[ -n "$(ls -d /sys/devices/system/cpu/cpu1/cpuidle/state[1-9]* 2>/dev/null)" ]
}

# cpuidle_module FILE: the path of module FILE (e.g. cpuidle-vstates.ko):
# in $RCPUIDLE_MODDIR if that is set; else in the running kernel's module
# tree (what modules_install wrote, compressed or not); else in
# /lib/modules itself (a flat directory, as minimal test initramfs have
# it).  Fails if none.
cpuidle_module() {
	if [ -n "${RCPUIDLE_MODDIR:-}" ]; then
		[ -f "$RCPUIDLE_MODDIR/$1" ] && echo "$RCPUIDLE_MODDIR/$1"
		return
	fi
	m=$(find "/lib/modules/$(uname -r)" -name "$1" -o -name "$1.xz" -o \
		-name "$1.zst" -o -name "$1.gz" 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=/lib/modules/$1
	[ -f "$m" ] && echo "$m"
}

# cpuidle_skip_no_module FILE: skip the whole test, FILE not being installed
cpuidle_skip_no_module() {
	ktap_skip_all "$1 is not installed" \
		"(\$RCPUIDLE_MODDIR, /lib/modules/$(uname -r) or /lib/modules)"
	exit "$KSFT_SKIP"
}

# cpuidle_platform: the machine as the drivers see it: "mvebu-DEVICE"
# where arch/arm/mach-mvebu registered a cpuidle-armada-* device,
# "pseries" on a pSeries LPAR (PowerVM, KVM or QEMU), "x86", or "other"
cpuidle_platform() {
	for d in /sys/bus/platform/devices/cpuidle-armada-*; do
		[ -e "$d" ] && { echo "mvebu-${d##*/cpuidle-}"; return; }
	done
	if grep -qi '^platform.*pseries' /proc/cpuinfo 2>/dev/null; then
		echo pseries
		return
	fi
	case "$(uname -m)" in
	x86_64 | i?86) echo x86 ;;
	*) echo other ;;
	esac
}

# cpuidle_no_driver_reason: why a test that must register its own
# cpuidle driver cannot run here, or nothing if no driver is registered
cpuidle_no_driver_reason() {
	drv=$(cat $CPUIDLE_SYS/current_driver)
	[ "$drv" = none ] && return
	echo "the $(cpuidle_platform) platform's cpuidle driver $drv is registered" \
		"(built in or loaded by another module); this test registers its own"
}

# cpuidle_take MODNAME: a board's user may have loaded one of the
# project's drivers (MODNAME, as /proc/modules names it) before running
# the tests, as the kit's README says.  If it is loaded, unload it so that
# the test can load it itself, and remember to load it again; fails if it
# cannot be unloaded.
CPUIDLE_TAKEN=
cpuidle_take() {
	grep -q "^$1 " /proc/modules || return 0
	rmmod "$1" || return 1
	CPUIDLE_TAKEN="$CPUIDLE_TAKEN $1"
	ktap_print_msg "unloaded $1 (loaded before the test); it is loaded again at the end"
}

# keep_states: when the test ends, also if it is killed or times out,
# every state's "disable" file gets back the value it has now (a test that
# disables states must not leave them disabled); not with cpuidle_borrow,
# whose driver is loaded afresh at the end
keep_states() {
	KEPT_STATES=$(for d in /sys/devices/system/cpu/cpu*/cpuidle/state*/disable; do
		[ -f "$d" ] && echo "$d $(cat "$d")"
	done)
	trap restore_states EXIT
	trap 'exit 1' INT TERM
}

restore_states() {
	echo "$KEPT_STATES" | while read -r kept_file kept_value; do
		[ -n "$kept_file" ] && echo "$kept_value" >"$kept_file" 2>/dev/null
	done
}

# cpuidle_borrow MODNAME: cpuidle_take for the rest of the test: the test
# is skipped if MODNAME cannot be unloaded, and loads it again on exit
cpuidle_borrow() {
	if ! cpuidle_take "$1"; then
		ktap_skip_all "$1 is loaded and cannot be unloaded"
		exit "$KSFT_SKIP"
	fi
	# shellcheck disable=SC2064  # ($1 now: the module to load again)
	trap "cpuidle_give_back || echo '# could not load $1 again'" EXIT
}

# cpuidle_skip_if_driver [WHAT]: skip the whole test (the reason prefixed
# with "WHAT: ") where a cpuidle driver is registered
cpuidle_skip_if_driver() {
	why=$(cpuidle_no_driver_reason)
	[ -z "$why" ] && return
	ktap_skip_all "${1:+$1: }$why"
	exit "$KSFT_SKIP"
}

# cpuidle_give_back: load what cpuidle_take unloaded, as modprobe does
# without parameters (or from the module's path, where modprobe cannot
# find it); fails if one cannot be loaded
cpuidle_give_back() {
	rc=0
	for n in $CPUIDLE_TAKEN; do
		modprobe "$n" 2>/dev/null && continue
		m=$(cpuidle_module "$(echo "$n" | tr _ -).ko") ||
			m=$(cpuidle_module "$n.ko")
		[ -n "$m" ] && insmod "$m" || rc=1
	done
	CPUIDLE_TAKEN=
	return $rc
}
