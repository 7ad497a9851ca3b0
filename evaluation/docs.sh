#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh (make evaluation-docs): make Documentation/evaluation/'s outputs
# again from the current code and the stored corpus: the simulator's
# report, JSON, plots, bound, policy sweep and model (evaluation/sim.sh).
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
echo "evaluation-docs: $(cd "$doc" && ls sim.md sim.json bound.md policy.md model.md sim-*.png | tr '\n' ' ')made again in Documentation/evaluation/"
