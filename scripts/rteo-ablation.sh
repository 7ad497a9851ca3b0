#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rteo-ablation.sh [EPISODES]: what each rule of rteo's default mode brings.
# For every rule, a copy of the decision core with that one rule switched
# off (its mode check replaced by `false`) goes through the simulator; the
# table printed has the headline of the whole corpus for each.  Works on a
# scratch copy of the sources: the tree is not touched.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=$CACHE/cargo-target-ablation
episodes=${1:-12000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in governors/rteo/src governors/rteo/Cargo.toml governors/rteo/Cargo.lock \
	drivers/cpuidle/governors/rteo_core.rs drivers/cpuidle/cpuidle_tables.rs \
	tools/cpuidle-sim tools/cpuidle-parity/shim tools/kernel_src.rs; do
	mkdir -p "$work/$(dirname "$p")"
	cp -r "$TOP/$p" "$work/$p"
done
rm -rf "$work/tools/cpuidle-sim/target"
core=$work/drivers/cpuidle/governors/rteo_core.rs
cp "$core" "$work/rteo_core.orig"

# Each rule: its name, the text that switches it on (exactly once in the
# core) and what it becomes with the rule off.
cat >"$work/rules.py" <<'EOF'
import sys
D = "if self.mode == Mode::Default\n                && "
RULES = [
    ("1 polling cascade",
     "if self.mode == Mode::Default && self.poll_timeouts >= 2 {", "if false {"),
    ("2 long tick wake-ups",
     "if self.mode == Mode::Default && self.tick_woke_long_idle(tick_nsec) {", "if false {"),
    ("3 tick kept for a timer state",
     D + "duration_ns == self.sleep_length_ns", "if false && duration_ns == self.sleep_length_ns"),
    ("4 tick cuts are not intercepts",
     D + "self.sleep_length_ns != KTIME_MAX", "if false && self.sleep_length_ns != KTIME_MAX"),
    ("5 intercepts weighed against the timer's state",
     D + "2u32.wrapping_mul(idx_intercept_sum) > self.total.wrapping_sub(idx_hit_sum)\n            {\n                let sl",
     "if false && 2u32.wrapping_mul(idx_intercept_sum) > self.total.wrapping_sub(idx_hit_sum)\n            {\n                let sl"),
    ("6 likeliest state",
     D + "2u32.wrapping_mul(idx_intercept_sum) > self.total.wrapping_sub(idx_hit_sum)\n            {\n                idx = self.likeliest_state",
     "if false && 2u32.wrapping_mul(idx_intercept_sum) > self.total.wrapping_sub(idx_hit_sum)\n            {\n                idx = self.likeliest_state"),
    ("7 timed-out polling slices carried",
     "if self.mode == Mode::Default && poll_timed_out {", "if false && poll_timed_out {"),
    ("8 tight QoS does not skip the sleep length",
     "&& self.mode == Mode::Parity))", "))"),
    ("9 deepest allowed state stops the tick",
     "&& (self.mode == Mode::Parity || idx < constraint_idx)", "&& true"),
    ("9 (state 0) deepest allowed state stops the tick",
     "let stop_tick = self.mode == Mode::Default", "let stop_tick = false"),
]
if sys.argv[1] == "count":
    print(len(RULES))
    sys.exit(0)
name, on, off = RULES[int(sys.argv[1])]
if sys.argv[2] == "name":
    print(name)
    sys.exit(0)
p = sys.argv[2]
s = open(p).read()
if s.count(on) != 1:
    sys.exit(f"rteo-ablation: rule {name!r}: its switch is not in the core once")
open(p, "w").write(s.replace(on, off))
EOF

run() {
	cargo build --quiet --release --manifest-path "$work/tools/cpuidle-sim/Cargo.toml" \
		2>"$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
	"$CARGO_TARGET_DIR/release/cpuidle-sim" --episodes "$episodes" --corpus "$TOP/tools/cpuidle-sim/corpus" |
		awk -F'|' -v n="$1" '$2 ~ /^ rteo / { printf "| %s |%s|%s|%s|%s|\n", n, $3, $4, $5, $7 }'
}

echo "| rteo default mode | energy regret | too deep /100 periods | too shallow /100 periods | exact % |"
echo "|---|---|---|---|---|"
run "all rules"
n=$(python3 "$work/rules.py" count)
for ((i = 0; i < n; i++)); do
	python3 "$work/rules.py" "$i" "$core"
	run "without $(python3 "$work/rules.py" "$i" name)"
	cp "$work/rteo_core.orig" "$core"
done
