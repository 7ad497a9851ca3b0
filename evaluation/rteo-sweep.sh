#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rteo-sweep.sh EXPERIMENT: an experiment of Documentation/evaluation/tried/
# that makes part of rteo's default mode a knob, swept in the simulator.
# The experiment's patch is applied to a copy of this tree's files (the
# working tree's, uncommitted changes included; no history needed).
#
# thresholds  rteo-thresholds.patch: teo's three fixed fractions and its
#             decay (an "aggressiveness knob"), cpuidle-sim --thresholds
#             A,M,T,D:
#   A  intercepts below the candidate, over the rest, above which a
#      shallower candidate is looked for (teo: 50)
#   M  the share of those intercepts at or above the shallower candidate
#      (teo: 50, a median)
#   T  tick intercepts over the total at or above which the tick stays for
#      a shallow state (teo: 2/3; 67 here)
#   D  the metrics' decay under rule 4: each period keeps 1 - 2^-D of them
#      (rteo: 2; teo: 3)
#   The grid: A, M and T together with rteo's decay, and D alone with teo's
#   fractions.
# context     rteo-context.patch: teo's bins and median replaced, once the
#             sleep length is known, by counts of how the periods of the
#             same context ended, cpuidle-sim --context F,D,K:
#   F  the share of a context's periods, in per cent, that the state chosen
#      must have seen reach it
#   D  the decay of a context's counts (as teo's D)
#   K  the context: 0, the state the sleep length allows; 1, that and the
#      bin the period before ended in
#   The grid: every F, D and K together.
# decay       rteo-decay.patch: rule 4's shorter memory split in two,
#             cpuidle-sim --decay H,R:
#   H  the hits' decay: each period keeps 1 - 2^-H of them (rule 4: 2;
#      teo: 3)
#   R  the same for the intercepts and the other metrics (tick wake-ups,
#      tick intercepts, short idles)
#   The grid: every H and R from 1 to 6 (2,2 is rule 4 as landed, 3,3
#   teo's memory).
#
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
# Documentation/evaluation/EXPERIMENT.md.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"

exp=${1:-}
settings=
case $exp in
thresholds)
	knobs=A,M,T,D
	for a in 40 45 50 55 60 67 75; do
		for m in 35 50 65 80; do
			for t in 33 67 90 101; do
				settings="$settings $a,$m,$t,2"
			done
		done
	done
	for d in 1 3 4 5 6; do
		settings="$settings 50,50,67,$d"
	done
	;;
context)
	knobs=F,D,K
	for f in 50 55 58 60 62 64 66 70; do
		for d in 3 4 5 6; do
			for k in 0 1; do
				settings="$settings $f,$d,$k"
			done
		done
	done
	;;
decay)
	knobs=H,R
	for h in 1 2 3 4 5 6; do
		for r in 1 2 3 4 5 6; do
			settings="$settings $h,$r"
		done
	done
	;;
*)
	echo "usage: $0 thresholds|context|decay" >&2
	exit 2
	;;
esac
export CARGO_TARGET_DIR=$CACHE/cargo-target-$exp
patch=$TOP/Documentation/evaluation/tried/rteo-$exp.patch
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/src" "$tmp/runs"
(cd "$TOP" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$tmp/src"
git -C "$tmp/src" apply "$patch"
cargo build --quiet --release --manifest-path "$tmp/src/tools/cpuidle-sim/Cargo.toml"
sim=$CARGO_TARGET_DIR/release/cpuidle-sim

for x in $settings; do
	"$sim" --corpus "$tmp/src/tools/cpuidle-sim/corpus" \
		"--$exp" "$x" --json "$tmp/runs/$x.json" >/dev/null
done
# the patch at its defaults (context: off; decay: 2,2; rteo as landed), for the chosen
# setting's split by table
"$sim" --corpus "$tmp/src/tools/cpuidle-sim/corpus" --json "$tmp/landed.json" >/dev/null

python3 - "$tmp/runs" "$exp" "$knobs" "$(echo $settings | wc -w)" "$tmp/landed.json" <<'PY'
import glob, json, os, sys
runs, exp, knobs, planned = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
landed = json.load(open(sys.argv[5]))
KEYS = ("energy_regret", "too_deep_per_entry", "too_shallow_per_entry", "irq_exit_latency_us")
# the reference of each target: teo's, menu's for too shallow
REF = {"energy_regret": "teo", "too_deep_per_entry": "teo", "too_shallow_per_entry": "menu",
       "irq_exit_latency_us": "teo"}
rows, ref = [], None
for f in glob.glob(runs + "/*.json"):
    setting = tuple(int(x) for x in os.path.basename(f)[:-5].split(","))
    d = json.load(open(f))
    try:
        got = {(s, k): float(d[s]["rteo"][k]) for s in ("tuning", "heldout") for k in KEYS}
        r = {(s, k): float(d[s][REF[k]][k]) for s in ("tuning", "heldout") for k in KEYS}
    except (KeyError, TypeError, ValueError) as e:
        sys.exit("rteo-sweep: %s: no %s" % (f, e))
    # teo and menu do not depend on rteo's knobs
    if ref is not None and r != ref:
        sys.exit("rteo-sweep: %s: teo's or menu's figures moved" % f)
    ref = r
    rows.append((setting, got, d))
rows.sort(key=lambda r: r[0])
if len(rows) != planned:
    sys.exit("rteo-sweep: %d runs of %d" % (len(rows), planned))

def fmt(setting, g, s="heldout"):
    return ("%s %s: regret %.4f (%.2f x teo), too deep %.5f, too shallow %.5f, "
            "IRQ exit latency %.2f us" % (
                knobs, ",".join(map(str, setting)), g[(s, KEYS[0])],
                g[(s, KEYS[0])] / ref[(s, KEYS[0])],
                g[(s, KEYS[1])], g[(s, KEYS[2])], g[(s, KEYS[3])]))

def by_table(d):
    """Held-out energy regret per table, rteo's and teo's: the energy of the
    table's held-out runs over the oracle's, less one."""
    e = {}
    for r in d["per_table_class"]:
        if r["heldout"] and r["governor"] in ("rteo", "teo"):
            t = e.setdefault((r["table"], r["governor"]), [0.0, 0.0])
            t[0] += r["energy_mj"]
            t[1] += r["oracle_energy_mj"]
    return {k: v[0] / v[1] - 1 for k, v in e.items()}

def within(g, s, keys):
    return all(g[(s, k)] <= ref[(s, k)] for k in keys)

print("rteo-sweep %s: held-out set: teo's regret %.4f, too deep %.5f, IRQ exit latency %.2f us; "
      "menu's too shallow %.5f" % ((exp,) + tuple(ref[("heldout", k)]
                                                  for k in (KEYS[0], KEYS[1], KEYS[3], KEYS[2]))))
print("|" + "".join(" %s |" % k for k in knobs.split(","))
      + " held-out regret | too deep | too shallow | IRQ exit latency (us) "
      "| tuning regret | too deep | IRQ exit latency (us) |")
print("|" + "---|" * (len(knobs.split(",")) + 7))
for setting, g, _ in rows:
    print("|" + "".join(" %d |" % v for v in setting)
          + " %.4f | %.5f | %.5f | %.2f | %.4f | %.5f | %.2f |" % (
              tuple(g[("heldout", k)] for k in KEYS)
              + (g[("tuning", KEYS[0])], g[("tuning", KEYS[1])], g[("tuning", KEYS[3])])))
ok_t = [r for r in rows if within(r[1], "tuning", (KEYS[1], KEYS[3]))]
if ok_t:
    pick = min(ok_t, key=lambda r: r[1][("tuning", KEYS[0])])
    print("chosen on the tuning set (%d of %d settings within teo's tuning too deep and latency): %s"
          % (len(ok_t), len(rows), fmt(*pick[:2])))
    mine, was = by_table(pick[2]), by_table(landed)
    print("  its held-out regret by table (the patch at its defaults, teo): " + "; ".join(
        "%s %.4f (%.4f, %.4f)" % (t, mine[(t, "rteo")], was[(t, "rteo")], was[(t, "teo")])
        for t in sorted({t for t, _ in mine})))
else:
    print("chosen on the tuning set: none of %d settings is within teo's tuning too deep and latency"
          % len(rows))
ok_h = [r for r in rows if within(r[1], "heldout", KEYS[1:])]
if ok_h:
    best = min(ok_h, key=lambda r: r[1][("heldout", KEYS[0])])
    print("best on the held-out set, with hindsight (%d settings meet its other three targets): %s"
          % (len(ok_h), fmt(*best[:2])))
else:
    print("best on the held-out set, with hindsight: no setting meets its other three targets")
print("lowest held-out regret of any setting: %s"
      % fmt(*min(rows, key=lambda r: r[1][("heldout", KEYS[0])])[:2]))
PY
