#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh (make evaluation-docs): make Documentation/evaluation/'s outputs
# again from the current code and the stored corpus: the simulator's
# report, JSON, plots, bound and policy sweep (evaluation/sim.sh), then the
# three sweeps of the archived experiments (evaluation/rteo-sweep.sh).
# Documentation/evaluation/README says what each file is.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
doc=$TOP/Documentation/evaluation
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/evaluation/sim.sh" "$tmp"
for f in sim.md sim.json bound.md policy.md model.md sim-regret.png sim-rates.png sim-heldout.png; do
	cp "$tmp/$f" "$doc/$f"
done
for x in thresholds context decay; do
	"$TOP/evaluation/rteo-sweep.sh" "$x" >"$tmp/$x.md"
	mv "$tmp/$x.md" "$doc/$x.md"
done
echo "evaluation-docs: $(cd "$doc" && ls sim.md sim.json bound.md policy.md model.md sim-*.png thresholds.md context.md decay.md | tr '\n' ' ')made again in Documentation/evaluation/"
