#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# parity.sh [--periods N] [--seed S]: replay idle periods into the kernel's
#     teo.c and rteo's core (tools/cpuidle-parity) and compare every step.
# parity.sh --mutants [--periods N]: check that the harness can fail: each
#     mutant below (one changed comparison or constant in a scratch copy of
#     rteo_core.rs) must produce a mismatch.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

harness() { # SRC-ROOT ARGS...
	local root=$1
	shift
	cargo build --quiet --release --manifest-path "$root/tools/cpuidle-parity/Cargo.toml" || return 2
	"$CARGO_TARGET_DIR/release/cpuidle-parity" "$@"
}

if [ "${1:-}" != --mutants ]; then
	harness "$TOP" "$@"
	exit $?
fi
shift
periods=360000
[ "${1:-}" = --periods ] && periods=$2

# 'sed expression' lines; each changes one decision of the core.  Not
# listed: '3 * total_tick > 2 * total' -> '>=', which differs only when the
# decayed sums meet exactly; no run of the generators has produced that.
MUTANTS=(
	's/b.intercepts >= intercept_max/b.intercepts > intercept_max/'
	's/|| states\[constraint_idx\].exit_latency_ns > latency_req)/|| states[constraint_idx].exit_latency_ns >= latency_req)/'
	's/            if i < idx {/            if i <= idx {/'
	's/while constraint_idx > 0$/while constraint_idx > 1/'
	's/if measured_ns <= env.tick_nsec()/if measured_ns < env.tick_nsec()/'
	's/if m >= lat_ns {/if m > lat_ns {/'
	's/m -= lat_ns \/ 2;/m -= lat_ns;/'
	's/if s.target_residency_ns <= measured_ns {/if s.target_residency_ns < measured_ns {/'
	's/&& d > 2 \* tick_nsec/\&\& d >= 2 * tick_nsec/'
	's/^pub const DECAY_SHIFT: u32 = 3;/pub const DECAY_SHIFT: u32 = 2;/'
	's/let short = 2u32.wrapping_mul(self.short_idles) >= self.total;/let short = 2u32.wrapping_mul(self.short_idles) > self.total;/'
	's/let tight_qos = latency_req < LATENCY_THRESHOLD_NS;/let tight_qos = latency_req <= LATENCY_THRESHOLD_NS;/'
	's/target_residency_ns > delta_tick {/target_residency_ns >= delta_tick {/'
	's/&& i <= intercept_max_idx {/\&\& i < intercept_max_idx {/'
	's/(!env.states()\[idx\].polling \&\& duration_ns >= tick_nsec)/(!env.states()[idx].polling \&\& duration_ns > tick_nsec)/'
	's/if env.states()\[idx\].target_residency_ns > d {/if env.states()[idx].target_residency_ns >= d {/'
	's/self.sleep_length_ns.wrapping_sub(measured_ns) < lat_ns \/ 2/self.sleep_length_ns.wrapping_sub(measured_ns) <= lat_ns \/ 2/'
)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export CARGO_TARGET_DIR=$scratch/target
mkdir -p "$scratch/drivers/cpuidle/governors"
cp -r "$TOP/tools" "$scratch/"
rm -rf "$scratch"/tools/*/target
cp "$TOP/drivers/cpuidle/cpuidle_tables.rs" "$scratch/drivers/cpuidle/"
core=$scratch/drivers/cpuidle/governors/rteo_core.rs
caught=0 total=0 applied=0
for m in "${MUTANTS[@]}"; do
	total=$((total + 1))
	sed "$m" "$TOP/drivers/cpuidle/governors/rteo_core.rs" >"$core"
	if cmp -s "$core" "$TOP/drivers/cpuidle/governors/rteo_core.rs"; then
		echo "mutant $total: did not apply: $m"
		continue
	fi
	applied=$((applied + 1))
	out=$(harness "$scratch" --periods "$periods" 2>&1)
	if ! grep -qE 'periods compared' <<<"$out"; then
		echo "mutant $total: the harness did not run: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	elif grep -qE ', [1-9][0-9]* mismatches' <<<"$out"; then
		caught=$((caught + 1))
		echo "mutant $total: caught ($(echo "$out" | grep 'first mismatch' | cut -c1-90))"
	else
		echo "mutant $total: NOT caught: $m"
	fi
done
echo "parity mutants: $caught of $total caught ($applied applied)"
[ "$caught" = "$total" ]
