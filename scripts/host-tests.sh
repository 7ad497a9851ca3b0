#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests: cargo test of the pure Rust code the kernel shares, rustfmt
# of every project .rs file (kernel style), checkpatch of the C files.
# Prints "host: N passed, N failed, N skipped".
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${RCPUIDLE_CACHE:-$HOME/.cache/rcpuidle}
export PATH="$HOME/.cargo/bin:$PATH"
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$CACHE/cargo-target}
p=0 f=0 s=0
for crate in "$TOP"/governors/*/Cargo.toml "$TOP"/tools/xcede-fuzz/Cargo.toml; do
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

# the simulator's regression bar over the tuning set (under a second):
# rteo's default mode must not lose to teo on energy regret, the too-deep
# or the too-shallow rate; rteo's parity mode must score as teo.  The
# held-out traces are shown against the targets, never failing.
if cargo build --quiet --release --manifest-path "$TOP/tools/cpuidle-sim/Cargo.toml" 2>&1 &&
   out=$("$CARGO_TARGET_DIR/release/cpuidle-sim" --check 2>&1); then
	echo "$out" | grep -E '^sim (check|heldout)' | sed 's/^/host: /'; p=$((p + 1))
else
	echo "host: simulator check failed:"; echo "$out" | tail -n 12; f=$((f + 1))
fi

# rteo vs the kernel's teo.c: a fixed-seed subset (make parity runs more),
# then the mutants that prove the harness can fail
if out=$("$TOP/scripts/parity.sh" --periods 400000 --seed 0x5eed0001 2>&1); then
	echo "host: $(echo "$out" | grep 'periods compared')"; p=$((p + 1))
else
	echo "$out" | tail -n 5; f=$((f + 1))
fi
# the streams must reach every line and branch edge of teo.c
if out=$("$TOP/scripts/parity-coverage.sh" 400000 2>&1) &&
   echo "$out" | grep -q 'Taken at least once:100.00%' &&
   echo "$out" | grep -q 'Lines executed:100.00%'; then
	echo "host: parity streams cover teo.c: $(echo "$out" | grep -E '^(Lines|Taken)' | tr '\n' ' ')"; p=$((p + 1))
else
	echo "host: parity coverage of teo.c incomplete:"; echo "$out" | tail -n 6; f=$((f + 1))
fi
if out=$("$TOP/scripts/parity.sh" --mutants 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | grep -v ': caught'; f=$((f + 1))
fi

# the console verdict against crafted logs: a clean one green, each
# failure shape red for its reason (with the kernel's kunit_parser.py)
kunit_dir=$(readlink -f "$CACHE/src/pristine")/tools/testing/kunit
if out=$(python3 "$TOP/tools/verdict-tests/verdict_test.py" "$kunit_dir" 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | grep -v '^ok '; f=$((f + 1))
fi

# the guest benchmark report against crafted logs of known data (Debian's
# python3 has its numpy and matplotlib)
if out=$(/usr/bin/python3 "$TOP/tools/bench-report-tests/bench_report_test.py" 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | grep -v '^ok '; f=$((f + 1))
fi

# the seeds' report against crafted logs: the seeds' directions shown,
# contradicted or not shown, an incomplete run non-zero
if out=$(/usr/bin/python3 "$TOP/tools/seeds-report-tests/seeds_report_test.py" 2>&1); then
	echo "host: $(echo "$out" | tail -n 1)"; p=$((p + 1))
else
	echo "$out" | grep -v '^ok '; f=$((f + 1))
fi

# the kernel's rustfmt and checkpatch: from the grafted tree, or before
# the first graft from the pristine source setup extracted
tree=$(ls -d "$CACHE"/tree/linux-* 2>/dev/null | head -n1)
[ -n "$tree" ] || tree=$(readlink -f "$CACHE/src/pristine" 2>/dev/null)
cfg=${tree:+$tree/.rustfmt.toml}
[ -f "${cfg:-/nonexistent}" ] || cfg=
rs=$(cd "$TOP" && find rust drivers samples governors tools -name '*.rs' -not -path '*/target/*' 2>/dev/null)
if (cd "$TOP" && rustfmt --check --edition 2021 ${cfg:+--config-path "$cfg"} $rs >/dev/null 2>&1); then
	echo "host: rustfmt clean"; p=$((p + 1))
else
	echo "host: rustfmt differences:"; (cd "$TOP" && rustfmt --check --edition 2021 ${cfg:+--config-path "$cfg"} $rs | head -n 20); f=$((f + 1))
fi

if [ -n "$tree" ] && [ -x "$tree/scripts/checkpatch.pl" ]; then
	cfiles=$(cd "$TOP" && find rust/helpers drivers samples tools/failnth -name '*.[ch]' 2>/dev/null)
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
