#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rteo-thresholds.sh: teo's three fixed fractions and its decay turned into
# knobs (an "aggressiveness knob"), swept in the simulator.  The experiment
# is Documentation/evaluation/tried/rteo-thresholds.patch, applied to a
# copy of this tree's files (the working tree's, uncommitted changes
# included; no history needed); it makes the default mode compare against
# per-cent thresholds, set with cpuidle-sim --thresholds A,M,T,D:
#   A  intercepts below the candidate, over the rest, above which a
#      shallower candidate is looked for (teo: 50)
#   M  the share of those intercepts at or above the shallower candidate
#      (teo: 50, a median)
#   T  tick intercepts over the total at or above which the tick stays for
#      a shallow state (teo: 2/3; 67 here)
#   D  the metrics' decay: each period keeps 1 - 2^-D of them (teo: 3)
# The grid: A, M and T together with teo's decay, and D alone with teo's
# fractions.
# For every setting of the grid: rteo's four held-out figures and the same
# on the tuning set (cpuidle-sim --json: the sets the targets of
# cpuidle-sim --check are on; teo and menu from the same run).  Prints the
# grid and three readings of it:
#   - chosen on the tuning set (the lowest tuning regret whose tuning too
#     deep and IRQ exit latency are at most teo's), then on the held-out set;
#   - the best on the held-out set itself, with hindsight, among the
#     settings that meet the held-out too-deep, too-shallow and latency
#     targets;
#   - the lowest held-out regret of any setting.
# A patch that no longer applies, a run that fails or lacks a figure fails
# the script.  host-tests.sh compares its output with
# Documentation/evaluation/thresholds.md.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=$CACHE/cargo-target-thresholds
patch=$TOP/Documentation/evaluation/tried/rteo-thresholds.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/src"
(cd "$TOP" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$tmp/src"
git -C "$tmp/src" apply "$patch"
cargo build --quiet --release --manifest-path "$tmp/src/tools/cpuidle-sim/Cargo.toml"
sim=$CARGO_TARGET_DIR/release/cpuidle-sim

settings=
for a in 40 45 50 55 60 67 75; do
	for m in 35 50 65 80; do
		for t in 33 67 90 101; do
			settings="$settings $a,$m,$t,3"
		done
	done
done
for d in 1 2 4 5 6; do
	settings="$settings 50,50,67,$d"
done
for x in $settings; do
	"$sim" --corpus "$tmp/src/tools/cpuidle-sim/corpus" \
		--thresholds "$x" --json "$tmp/$x.json" >/dev/null
done

python3 - "$tmp" <<'PY'
import glob, json, os, sys
tmp = sys.argv[1]
KEYS = ("energy_regret", "too_deep_per_entry", "too_shallow_per_entry", "irq_exit_latency_us")
# the reference of each target: teo's, menu's for too shallow
REF = {"energy_regret": "teo", "too_deep_per_entry": "teo", "too_shallow_per_entry": "menu",
       "irq_exit_latency_us": "teo"}
rows, ref = [], None
for f in glob.glob(tmp + "/*.json"):
    setting = tuple(int(x) for x in os.path.basename(f)[:-5].split(","))
    d = json.load(open(f))
    try:
        got = {(s, k): float(d[s]["rteo"][k]) for s in ("tuning", "heldout") for k in KEYS}
        r = {(s, k): float(d[s][REF[k]][k]) for s in ("tuning", "heldout") for k in KEYS}
    except (KeyError, TypeError, ValueError) as e:
        sys.exit("rteo-thresholds: %s: no %s" % (f, e))
    # teo and menu do not depend on rteo's thresholds
    if ref is not None and r != ref:
        sys.exit("rteo-thresholds: %s: teo's or menu's figures moved" % f)
    ref = r
    rows.append((setting, got))
rows.sort(key=lambda r: r[0])
if len(rows) != 7 * 4 * 4 + 5:
    sys.exit("rteo-thresholds: %d runs of %d" % (len(rows), 7 * 4 * 4 + 5))

def fmt(setting, g, s="heldout"):
    return ("A,M,T,D %s: regret %.4f (%.2f x teo), too deep %.5f, too shallow %.5f, "
            "IRQ exit latency %.2f us" % (
                ",".join(map(str, setting)), g[(s, KEYS[0])], g[(s, KEYS[0])] / ref[(s, KEYS[0])],
                g[(s, KEYS[1])], g[(s, KEYS[2])], g[(s, KEYS[3])]))

def within(g, s, keys):
    return all(g[(s, k)] <= ref[(s, k)] for k in keys)

print("rteo-thresholds: held-out set: teo's regret %.4f, too deep %.5f, IRQ exit latency %.2f us; "
      "menu's too shallow %.5f" % tuple(ref[("heldout", k)] for k in (KEYS[0], KEYS[1], KEYS[3], KEYS[2])))
print("| A | M | T | D | held-out regret | too deep | too shallow | IRQ exit latency (us) "
      "| tuning regret | too deep | IRQ exit latency (us) |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for setting, g in rows:
    print("| %d | %d | %d | %d | %.4f | %.5f | %.5f | %.2f | %.4f | %.5f | %.2f |" % (
        setting + tuple(g[("heldout", k)] for k in KEYS)
        + (g[("tuning", KEYS[0])], g[("tuning", KEYS[1])], g[("tuning", KEYS[3])])))
ok_t = [r for r in rows if within(r[1], "tuning", (KEYS[1], KEYS[3]))]
pick = min(ok_t, key=lambda r: r[1][("tuning", KEYS[0])])
print("chosen on the tuning set (%d of %d settings within teo's tuning too deep and latency): %s"
      % (len(ok_t), len(rows), fmt(*pick)))
ok_h = [r for r in rows if within(r[1], "heldout", KEYS[1:])]
best = min(ok_h, key=lambda r: r[1][("heldout", KEYS[0])])
print("best on the held-out set, with hindsight (%d settings meet its other three targets): %s"
      % (len(ok_h), fmt(*best)))
print("lowest held-out regret of any setting: %s"
      % fmt(*min(rows, key=lambda r: r[1][("heldout", KEYS[0])])))
PY
