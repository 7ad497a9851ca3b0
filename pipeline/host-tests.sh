#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests: cargo test of the pure Rust code the kernel shares, rustfmt
# of every project .rs file (kernel style), checkpatch of the C files,
# the verdicts' self-tests, the kit's config fragments.
# Prints "host: N passed, N failed, N skipped".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
p=0 f=0 s=0
for crate in "$TOP"/tools/rteo-core/Cargo.toml "$TOP"/tools/xcede-fuzz/Cargo.toml \
	"$TOP"/tools/psci-dt-fuzz/Cargo.toml; do
	[ -f "$crate" ] || continue
	out=$(cargo test --quiet --manifest-path "$crate" 2>&1)
	rc=$?
	echo "$out" | grep -E '^test result|FAILED|panicked' | sed 's/^/  /'
	while read -r np nf ni; do
		p=$((p + np)); f=$((f + nf)); s=$((s + ni))
	done < <(echo "$out" | sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p')
	[ $rc = 0 ] || { echo "host: cargo test failed for $crate"; f=$((f + 1)); }
	echo "host: cargo test $(basename "$(dirname "$crate")")"
done

# the pseries XCEDE parser under a fixed fuzzing budget (fixed seed, so a
# failure reproduces): no panic (bounds, overflow checks on), no broken
# invariant
fuzz=5000000
if cargo build --quiet --release --manifest-path "$TOP/tools/xcede-fuzz/Cargo.toml" 2>&1 &&
   out=$("$CARGO_TARGET_DIR/release/xcede-fuzz" $fuzz 24301 2>&1); then
	echo "host: $out"; p=$((p + 1))
else
	echo "host: xcede-fuzz failed: $out"; f=$((f + 1))
fi

# the PSCI idle-state parser on random node lists (fixed seed), each
# result against a separate restatement of the DT rules
if cargo build --quiet --release --manifest-path "$TOP/tools/psci-dt-fuzz/Cargo.toml" 2>&1 &&
   out=$("$CARGO_TARGET_DIR/release/psci-dt-fuzz" 2000000 24301 2>&1); then
	echo "host: $out"; p=$((p + 1))
else
	echo "host: psci-dt-fuzz failed: $out"; f=$((f + 1))
fi

# the simulator's differential tests: the kernel mechanisms it restates
# (poll limit, poll_idle()'s exit, above/below accounting, the tick path)
# against the tree's own C, over random tables, masks and idle periods
out=$(cargo test --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml" 2>&1)
rc=$?
echo "$out" | grep -E '^test result|FAILED|panicked' | sed 's/^/  /'
while read -r np nf ni; do
	p=$((p + np)); f=$((f + nf)); s=$((s + ni))
done < <(echo "$out" | sed -nE 's/^test result: [a-zA-Z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p')
[ $rc = 0 ] || { echo "host: cargo test failed for tools/cpuidle-sim"; f=$((f + 1)); }
echo "host: cargo test cpuidle-sim"

# the simulator's bar (tools/cpuidle-sim/README.md, "The bar"; about a
# second): rteo's parity mode must score as teo.c on every run of every
# set; rteo's documented targets on the held-out set (and the same on the
# tuning set) are shown and held to the committed bar-baseline.json: a
# target met there must stay met, none of rteo's values may get worse
sim=$CARGO_TARGET_DIR/release/cpuidle-sim
sim_base=$TOP/tools/cpuidle-sim/bar-baseline.json
if ! out=$(cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml" 2>&1); then
	echo "host: simulator build failed:"; echo "$out" | tail -n 12; f=$((f + 1))
elif out=$("$sim" check 2>&1); then
	echo "$out" | grep -E '^sim ' | sed 's/^/host: /'; p=$((p + 1))
else
	echo "host: simulator check failed:"; echo "$out" | grep -E '^(sim |cpuidle-sim: )' | sed 's/^/host: /'; f=$((f + 1))
fi
# the ratchet bites: the committed baseline with rteo's held-out values
# (and their bounds, so the outcomes stand) 2 % better than this run's
# must fail on each of them; a truncated baseline must fail as malformed
if [ -x "$sim" ] && [ -f "$sim_base" ]; then
	tmp=$(mktemp -d)
	python3 -c 'import json, sys
b = json.load(open(sys.argv[1]))
for t in b["heldout"].values():
    t["rteo"] *= 0.98
    t["reference_value"] *= 0.98
json.dump(b, open(sys.argv[2], "w"), indent=2)' "$sim_base" "$tmp/better.json"
	head -c 300 "$sim_base" >"$tmp/truncated.json"
	better=$("$sim" check --baseline "$tmp/better.json" 2>&1); rb=$?
	trunc=$("$sim" check --baseline "$tmp/truncated.json" 2>&1); rt=$?
	rm -rf "$tmp"
	nb=$(echo "$better" | grep -c '^sim ratchet: FAIL: held-out .*worse than the baseline')
	if [ $rb != 0 ] && [ "$nb" = 4 ] && [ $rt != 0 ] &&
	   grep -q '^sim ratchet: FAILED: .*malformed' <<<"$trunc"; then
		echo "host: simulator ratchet bites: a baseline 2 % better fails on its 4 held-out values, a truncated one as malformed"; p=$((p + 1))
	else
		echo "host: simulator ratchet does not bite (rc $rb, $nb of 4 values; truncated: rc $rt):"
		printf '%s\n%s\n' "$better" "$trunc" | grep -E '^sim ratchet' | sed 's/^/host: /'; f=$((f + 1))
	fi
else
	echo "host: simulator ratchet not tried (no binary or no $sim_base)"; f=$((f + 1))
fi

# prints_doc WHAT DOC HINT CMD...: a document rteo.rst quotes is what CMD
# prints today (HINT: what writes DOC), byte for byte.  A comparison that
# passed is kept under the hash of everything it can depend on: every
# file git tracks here (content and path), the pristine kernel tree's
# version, the toolchain and the command; the same inputs again (a
# second run of one commit) are not compared again.  Outside a git
# checkout (no list of the files) nothing is kept.
docs_cache=$CACHE/host-docs
inputs_key=
if files=$(cd "$TOP" && git ls-files -z 2>/dev/null | xargs -0 -r sha256sum) && [ -n "$files" ]; then
	inputs_key=$({
		echo "$files"
		readlink -f "$CACHE/src/pristine"
		rustc --version
		cargo --version
	} | sha256sum | cut -c1-32)
fi
prints_doc() {
	local what=$1 doc=$TOP/$2 hint=$3 out key=
	shift 3
	[ -z "$inputs_key" ] ||
		key=$(printf '%s\n' "$inputs_key" "${@#"$TOP"/}" | sha256sum | cut -c1-32)
	if [ -n "$key" ] && [ -f "$docs_cache/$key" ]; then
		echo "host: $what prints ${doc#"$TOP"/} (compared before for the same files and toolchain, $key)"
		p=$((p + 1))
		return
	fi
	if out=$("$@" 2>&1) && [ "$out" = "$(cat "$doc")" ]; then
		echo "host: $what prints ${doc#"$TOP"/}"; p=$((p + 1))
		[ -z "$key" ] || { mkdir -p "$docs_cache" && touch "$docs_cache/$key"; }
	else
		echo "host: $what differs from ${doc#"$TOP"/} or failed ($hint):"
		diff <(echo "$out") "$doc" | head -n 8 | sed 's/^/host: /'; f=$((f + 1))
	fi
}
# the energy model against the tables' target residencies, per table
prints_doc "cpuidle-sim model" Documentation/evaluation/model.md "make evaluation-docs writes it" \
	"$sim" model
# the in-guest benchmark logs kept (point 2's runs), per table, pooled
prints_doc "evaluation/bench-kept.sh" Documentation/evaluation/bench-kept.md "python3 -m evaluation docs writes it" \
	"$TOP/evaluation/bench-kept.sh"
# the headline of the stored recording (make record), per table, and the
# simulator held against the guest's own counts on it; headline.py fails
# (so does the comparison) where the known answer or the A/A control fails
rec_log=$TOP/evaluation/recordings/record-3834fea.log.xz
for x in json md; do
	doc=headline.json
	[ $x = json ] || doc=agreement.md
	prints_doc "evaluation/headline.py --$x" Documentation/evaluation/$doc \
		"evaluation/headline.py writes it" \
		env PYTHONPATH="$TOP" /usr/bin/python3 -m evaluation.headline "$rec_log" --$x --sim "$sim"
done

# rteo vs the kernel's teo.c: a fixed-seed subset (make parity runs more),
# then the mutants that prove the harness can fail
if out=$("$TOP/evaluation/parity.sh" --periods 400000 --seed 0x5eed0001 2>&1); then
	echo "host: $(echo "$out" | grep 'periods compared')"; p=$((p + 1))
else
	echo "$out" | tail -n 5; f=$((f + 1))
fi
# the streams must reach every line and branch edge of teo.c
if out=$("$TOP/evaluation/parity-coverage.sh" 400000 2>&1) &&
   grep -q 'Taken at least once:100.00%' <<<"$out" &&
   grep -q 'Lines executed:100.00%' <<<"$out"; then
	echo "host: parity streams cover teo.c: $(echo "$out" | grep -E '^(Lines|Taken)' | tr '\n' ' ')"; p=$((p + 1))
else
	echo "host: parity coverage of teo.c incomplete:"; echo "$out" | tail -n 6; f=$((f + 1))
fi
if out=$("$TOP/evaluation/parity.sh" --mutants 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | grep -v ': caught'; f=$((f + 1))
fi
# select() at most teo.c's instructions, both built as the kernel builds
if out=$("$TOP/evaluation/select-cost.sh" --check 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | tail -n 8; f=$((f + 1))
fi

# the Python tests (pytest, setup.cfg): the console and board verdicts
# against crafted logs (with the kernel's kunit_parser.py), the
# evaluation's programs against crafted inputs of known answers; then
# flake8 and mypy over the Python of pipeline/, evaluation/ and verdict/,
# and the shell of pipeline/ (the guest's /init included), evaluation/,
# verdict/, kit/ and the cpuidle selftests through shellcheck
out=$(cd "$TOP" && /usr/bin/python3 -m pytest -q -rf 2>&1)
np=$(echo "$out" | tail -n 1 | sed -nE 's/^(.*[^0-9])?([0-9]+) passed.*/\2/p')
nf=$(echo "$out" | tail -n 1 | grep -oE '[0-9]+ (failed|errors?)' | awk '{ n += $1 } END { print n }')
echo "host: pytest: $(echo "$out" | tail -n 1)"
[ -n "$np$nf" ] || { echo "$out" | tail -n 20; nf=1; }
echo "$out" | grep -E '^(FAILED|ERROR) ' | sed 's/^/host: /'
p=$((p + ${np:-0})); f=$((f + ${nf:-0}))
for lint in "flake8" "mypy" "shellcheck"; do
	case $lint in
	flake8) cmd=(flake8 pipeline evaluation verdict conftest.py) ;;
	mypy) cmd=(mypy) ;;
	shellcheck) mapfile -t sh < <(cd "$TOP" && find pipeline evaluation verdict kit \
		tools/testing/selftests/cpuidle -name '*.sh' | sort; echo pipeline/guest/timeout)
		cmd=(shellcheck "${sh[@]}") ;;
	esac
	if out=$(cd "$TOP" && "${cmd[@]}" 2>&1); then
		echo "host: $lint clean"; p=$((p + 1))
	else
		echo "host: $lint:"; echo "$out" | head -n 20 | sed 's/^/host: /'; f=$((f + 1))
	fi
done

# the kit's config fragments (make kit): each, merged onto its board's
# defconfig, survives olddefconfig (kconfig only, the three at once: some
# 20 s)
if [ -f "$CACHE/rust_lib_src" ]; then
	out=$("$TOP/kit/kit.sh" check-config x86_64 armv7 ppc64le arm64 2>&1)
	echo "$out" | sed 's/^/host: /'
	for a in x86_64 armv7 ppc64le arm64; do
		if grep -q "^kit: $a: ok: " <<<"$out"; then p=$((p + 1)); else f=$((f + 1)); fi
	done
	# a lab's "defconfig + kselftest" build: the collection's config
	# holds after make defconfig kselftest-merge (kconfig only)
	out=$("$TOP/kit/kit.sh" ksft-merge x86_64 arm64 2>&1)
	echo "$out" | sed 's/^/host: /'
	for a in x86_64 arm64; do
		if grep -q "^kit: ksft-merge $a: ok: " <<<"$out"; then p=$((p + 1)); else f=$((f + 1)); fi
	done
else
	echo "host: kit config fragments not checked (not set up: make setup)"; s=$((s + 1))
fi

# the kernel's rustfmt and checkpatch: from the grafted tree, or before
# the first graft from the pristine source setup extracted
tree=$(ls -d "$CACHE"/tree/linux-* 2>/dev/null | head -n1)
[ -n "$tree" ] || tree=$(readlink -f "$CACHE/src/pristine" 2>/dev/null)
cfg=${tree:+$tree/.rustfmt.toml}
[ -f "${cfg:-/nonexistent}" ] || cfg=
rs=$(cd "$TOP" && find rust drivers samples tools -name '*.rs' -not -path '*/target/*' 2>/dev/null)
if (cd "$TOP" && rustfmt --check --edition 2021 ${cfg:+--config-path "$cfg"} $rs >/dev/null 2>&1); then
	echo "host: rustfmt clean"; p=$((p + 1))
else
	echo "host: rustfmt differences:"; (cd "$TOP" && rustfmt --check --edition 2021 ${cfg:+--config-path "$cfg"} $rs | head -n 20); f=$((f + 1))
fi

if [ -n "$tree" ] && [ -x "$tree/scripts/checkpatch.pl" ]; then
	cfiles=$(cd "$TOP" && find rust/helpers drivers samples tools/testing/selftests/cpuidle -name '*.[ch]' 2>/dev/null)
	if (cd "$TOP" && "$tree/scripts/checkpatch.pl" --no-tree --quiet --terse --strict -f $cfiles); then
		echo "host: checkpatch clean ($(echo $cfiles | wc -w) C files)"; p=$((p + 1))
	else
		echo "host: checkpatch complaints"; f=$((f + 1))
	fi
else
	echo "host: checkpatch skipped (no kernel tree yet)"; s=$((s + 1))
fi
echo "host: $p passed, $f failed, $s skipped"
[ $f = 0 ]
