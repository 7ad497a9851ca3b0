# SPDX-License-Identifier: GPL-2.0
# Shared settings of the evaluation's shell scripts (sourced, not run), as
# evaluation/paths.py states them for its Python.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
# shellcheck disable=SC2034  # (verdict/verdict.sh's)
KUNIT_DIR=$(readlink -f "$CACHE/src/pristine")/tools/testing/kunit
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
# (Debian's python3: it has numpy and matplotlib)
PYTHON=/usr/bin/python3

# evpy MODULE ARGS...: python3 -m MODULE ARGS (evaluation, evaluation.NAME)
# from any directory
evpy() {
	PYTHONPATH="$TOP${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" -m "$@"
}
