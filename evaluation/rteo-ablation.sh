#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rteo-ablation.sh [EPISODES [TABLE/CLASS]]: what each rule of rteo's
# default mode brings.  The simulator runs with every rule, then with each
# rule switched off in turn (cpuidle-sim --rules, the bits of the core's
# `rule` module, as the rteo.rules_off parameter leaves them in the kernel).
# Prints the headline of the tuning set (synthetic classes and tuning
# traces) for each, then the bar's four metrics on the held-out traces
# (tools/cpuidle-sim/README.md, "The bar"), with teo's and menu's, then
# the interrupt wake-up latency against teo's of every recorded trace
# replayed in the emulated world (evaluation/fidelity.py --cross-only, its
# model's parameters those of the boot that recorded the corpus:
# Documentation/evaluation/guest-idle.json and tickcost.json); or with
# TABLE/CLASS (e.g. mvebu-xp/periodic-timer) that trace's too-deep and
# too-shallow entries.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
episodes=${1:-12000}
only=${2:-}
# in the order of the bits (Documentation/admin-guide/pm/rteo.rst, "Default mode")
names=("1 polling cascade" "2 timed-out polling slices carried"
	"3 tight QoS does not skip the sleep length")
all=$(((1 << ${#names[@]}) - 1))

cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml"
sim=$CARGO_TARGET_DIR/release/cpuidle-sim

run() {
	if [ -n "$only" ]; then
		SIM_BREAKDOWN=1 "$sim" --episodes "$episodes" --rules "$2" 2>&1 >/dev/null |
			awk -v n="$1" -v t="${only%%/*}" -v c="${only#*/}" \
				'$1 == t && $2 == c && $3 == "rteo" { printf "| %s | %s | %s |\n", n, $5, $7; f = 1 }
				END { exit !f }' || { echo "rteo-ablation: no trace $only" >&2; exit 1; }
		return
	fi
	"$sim" --episodes "$episodes" --rules "$2" --json "$tmp/$2.json" |
		awk -F'|' -v n="$1" '$2 ~ /^ rteo / { printf "| %s |%s|%s|%s|%s|\n", n, $3, $4, $5, $7 }'
	echo "$1|$2" >>"$tmp/runs"
	python3 "$TOP/evaluation/fidelity.py" "$TOP/Documentation/evaluation" --sim "$sim" \
		--corpus "$TOP/tools/cpuidle-sim/corpus" --cross-only --cross-flags "--rules $2" \
		>"$tmp/$2.cross.json"
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "$only" ]; then
	echo "| rteo default mode, $only | too-deep entries | too-shallow entries |"
	echo "|---|---|---|"
else
	echo "| rteo default mode | energy regret | too deep /100 periods | too shallow /100 periods | exact % |"
	echo "|---|---|---|---|---|"
fi
run "all rules" "$all"
for i in "${!names[@]}"; do
	run "without ${names[$i]}" "$((all & ~(1 << i)))"
done
run "no rule (= teo)" 0
[ -n "$only" ] && exit 0
# the held-out set: what the bar holds rteo to
echo
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
keys = ("energy_regret", "too_deep_per_entry", "too_shallow_per_entry", "irq_exit_latency_us")
print("| held-out | energy regret | too deep per entry | too shallow per entry | IRQ exit latency (us) |")
print("|---|---|---|---|---|")
last = None
for line in open(tmp + "/runs"):
    name, mask = line.rstrip("\n").split("|")
    h = json.load(open("%s/%s.json" % (tmp, mask)))["heldout"]
    print("| rteo %s | %s |" % (name, " | ".join("%.4f" % h["rteo"][k] for k in keys)))
    last = h
for g in ("teo", "menu"):
    print("| %s | %s |" % (g, " | ".join("%.4f" % last[g][k] for k in keys)))
# the emulated world: the same traces under each governor
print()
cols = None
for line in open(tmp + "/runs"):
    name, mask = line.rstrip("\n").split("|")
    c = json.load(open("%s/%s.cross.json" % (tmp, mask)))
    rat = {(r["table"], r["set"]): r["ratio"] for r in c["ratios"] if r["num"] == "rteo"}
    if cols is None:
        cols = sorted(rat, key=lambda k: (k[1] != "heldout", k[0]))
        print("| wake-up latency, rteo/teo | %s |" % " | ".join("%s %s" % k for k in cols))
        print("|---|%s" % ("---|" * len(cols)))
    print("| rteo %s | %s |" % (name, " | ".join("%.3f" % rat[k] for k in cols)))
PY
