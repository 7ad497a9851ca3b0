#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-all.sh ARCH...: make check.  The parts are the rows of
# pipeline/parts that ARCH... select; make runs them (pipeline/check.mk,
# make -k -j: each as soon as what it needs is done), each writes its
# result.json (pipeline/part.sh: status, counts, first failure, CPU and
# wall seconds), and pipeline/summary.py prints every part's output and
# the total from those files alone.  The boots take one of as many
# guest slots as there are CPUs (pipeline/check.sh).  The results stay in
# $RCPUIDLE_CACHE/check (PART.json, PART.log) until the next run.
#
# The run keeps to a budget: RCPUIDLE_CHECK_BUDGET seconds (default 5100,
# 85 min) from RCPUIDLE_CHECK_T0 (.ci/run sets it before the set-up) or
# from here; a part still running then is stopped and counted failed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
RCPUIDLE_CHECK_T0=${RCPUIDLE_CHECK_T0:-$(date +%s)}
export RCPUIDLE_CHECK_T0
res=$CACHE/check
rm -rf "$res"
mkdir -p "$res"
cpustat() { awk '/^cpu /{print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9; exit}' /proc/stat; }
cpu0=$(cpustat)
mkdir -p "$res/guest-slots"
RCPUIDLE_GUEST_SLOTS=$res/guest-slots \
	make -s -k -j -f "$TOP/pipeline/check.mk" RESULTS="$res" ARCHES="$*" >&2
# shellcheck disable=SC2046 # four numbers
python3 "$TOP/pipeline/summary.py" "$res" "$@" --cpu $cpu0 $(cpustat)
