#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rteo-subsets.sh [ALWAYS]: rteo's default mode with every subset of its
# rules, the rules of the mask ALWAYS (default 0: none; the 8 subsets of
# the three rules take seconds) always in force.  For each subset: the
# simulator's tuning set (energy regret; cpuidle-sim --rules) and every
# recorded trace replayed in the emulated world (evaluation/fidelity.py
# --cross-only, the model's parameters those of the boot that recorded the
# corpus, Documentation/evaluation/guest-idle.json and tickcost.json:
# rteo's interrupt wake-up latency over teo's,
# per table).  Prints, choosing on the tuning set only, the subsets that
# no other beats on both the tuning regret and the worst table's tuning
# wake-up ratio (the Pareto front), each with its held-out figures.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
always=$((${1:-0}))
nrules=3
all=$(((1 << nrules) - 1))
((always & ~all)) && { echo "rteo-subsets: ALWAYS must be a mask of rules 1-$nrules" >&2; exit 2; }

cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml"
sim=$CARGO_TARGET_DIR/release/cpuidle-sim
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

free=$((all & ~always))
n=0
for ((m = 0; m <= all; m++)); do
	((m & ~free)) && continue
	mask=$(printf '0x%x' $((m | always)))
	"$sim" --rules "$mask" --json "$tmp/$mask.json" >/dev/null
	python3 "$TOP/evaluation/fidelity.py" "$TOP/Documentation/evaluation" --sim "$sim" \
		--corpus "$TOP/tools/cpuidle-sim/corpus" --cross-only --cross-flags "--rules $mask" \
		>"$tmp/$mask.cross"
	n=$((n + 1))
done
echo "rteo-subsets: $n subsets (rules of $(printf '0x%x' $always) always in force)"
python3 - "$tmp" "$nrules" <<'PY'
import glob, json, os, sys
tmp, nrules = sys.argv[1], int(sys.argv[2])
rows = []
for f in sorted(glob.glob(tmp + "/*.json")):
    mask = os.path.basename(f)[:-5]
    s = json.load(open(f))
    c = json.load(open("%s/%s.cross" % (tmp, mask)))
    rat = {(r["table"], r["set"]): r["ratio"] for r in c["ratios"] if r["num"] == "rteo"}
    tables = sorted({t for t, _ in rat})
    if any(rat.get((t, st)) is None for t in tables for st in ("tuning", "heldout")):
        sys.exit("rteo-subsets: %s: a table without a wake-up ratio" % mask)
    rows.append(dict(mask=mask, rules="".join(str(i + 1) for i in range(nrules)
                                             if int(mask, 16) >> i & 1) or "-",
                     t=s["tuning"]["rteo"], h=s["heldout"]["rteo"],
                     tw=max(rat[(t, "tuning")] for t in tables),
                     hw=max(rat[(t, "heldout")] for t in tables)))
    teo = (s["tuning"]["teo"], s["heldout"]["teo"])
rows.sort(key=lambda r: (r["t"]["energy_regret"], r["tw"]))
front, best = [], float("inf")
for r in rows:
    if r["tw"] < best:
        front.append(r)
        best = r["tw"]
print("| rules | tuning regret | tuning wake-up, worst table | held-out regret | held-out too deep "
      "| held-out too shallow | held-out IRQ exit latency (us) | held-out wake-up, worst table |")
print("|---|---|---|---|---|---|---|---|")
for r in front:
    print("| %s | %.4f | %.3f | %.4f | %.4f | %.4f | %.2f | %.3f |" % (
        r["rules"], r["t"]["energy_regret"], r["tw"], r["h"]["energy_regret"],
        r["h"]["too_deep_per_entry"], r["h"]["too_shallow_per_entry"],
        r["h"]["irq_exit_latency_us"], r["hw"]))
print("| teo | %.4f | 1 | %.4f | %.4f | %.4f | %.2f | 1 |" % (
    teo[0]["energy_regret"], teo[1]["energy_regret"], teo[1]["too_deep_per_entry"],
    teo[1]["too_shallow_per_entry"], teo[1]["irq_exit_latency_us"]))
PY
