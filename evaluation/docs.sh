#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# docs.sh (make evaluation-docs): make Documentation/evaluation/'s outputs
# again from the current code and the stored corpus: the simulator's
# report, JSON, plots, bound, policy sweep, model and interrupt predictor
# (evaluation/sim.sh); and, from the kept recording, the most a predictor
# of interrupts per source could remove (evaluation/irq_bound.py); and the
# report of the in-guest benchmark logs kept (evaluation/bench-kept.sh).
# Documentation/evaluation/README says what each file is.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
doc=$TOP/Documentation/evaluation
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$TOP/evaluation/sim.sh" "$tmp"
for f in sim.md sim.json bound.md policy.md model.md irqpred.md sim-regret.png sim-rates.png sim-heldout.png; do
	cp "$tmp/$f" "$doc/$f"
done
/usr/bin/python3 "$TOP/evaluation/irq_bound.py" "$TOP/evaluation/recordings/record-3834fea.log.xz" \
	--sim "${CARGO_TARGET_DIR:-${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}/cargo-target}/release/cpuidle-sim" \
	>"$doc/irq-bound.md"
"$TOP/evaluation/bench-kept.sh" >"$doc/bench-kept.md"
echo "evaluation-docs: $(cd "$doc" && ls sim.md sim.json bound.md policy.md model.md irqpred.md irq-bound.md bench-kept.md sim-*.png | tr '\n' ' ')made again in Documentation/evaluation/"
