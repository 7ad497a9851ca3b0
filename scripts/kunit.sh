#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: run the KUnit suites of the Rust cpuidle code the way kernel
# developers run KUnit, with the kernel's kunit.py and the .kunitconfig of
# drivers/cpuidle, on x86_64 under QEMU, in the grafted tree:
#
#   tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle
#
# (kunit.py's own configuration and build directory, cached).  Fails unless
# kunit.py passes and its results hold every suite of the .kunitconfig
# with at least one test, none failed or skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$TOP/scripts/graft.sh" >/dev/null
kb=$CACHE/build/kunit-x86_64-$KVER-rust$RUSTVER
mkdir -p "$kb"
json=$kb/results.json
log=$kb/kunit.log
rm -f "$json"
echo "kunit: kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle (build in $kb)"
rc=0
# the wrapper in front of qemu-system-x86_64 turns kunit.py's KVM request
# into TCG (see scripts/kunit-qemu)
PATH="$TOP/scripts/kunit-qemu:$PATH" nice -n "${RCPUIDLE_BUILD_NICE:-0}" \
	python3 "$TREE/tools/testing/kunit/kunit.py" run --arch=x86_64 \
	--kunitconfig=drivers/cpuidle --build_dir="$kb" --jobs "${JOBS:-3}" \
	--timeout "${KUNIT_TIMEOUT:-900}" --make_options LLVM=-19 \
	--make_options RUST_LIB_SRC="$RUST_LIB_SRC" --json="$json" >"$log" 2>&1 || rc=$?
grep -E '^\[[0-9:]+\] (Testing complete|=+ .* =+$|\[(PASSED|FAILED|SKIPPED|CRASHED)\])' "$log" |
	sed 's/^\[[0-9:]*\] /kunit: /' | head -n 60 || true
[ "$rc" = 0 ] || { tail -n 30 "$log"; die "kunit.py run failed (rc $rc, log $log)"; }
python3 - "$json" <<'PY'
import json, sys
want = {'rust_cpuidle', 'rust_pm_qos', 'rteo_core'}
doc = json.load(open(sys.argv[1]))
counts = {}
def walk(g):
    for t in g.get('test_cases', []):
        counts.setdefault(g['name'], []).append(t['status'])
    for s in g.get('sub_groups', []):
        walk(s)
walk(doc)
p = sum(v.count('PASS') for v in counts.values())
f = sum(len(v) - v.count('PASS') - v.count('SKIP') for v in counts.values())
s = sum(v.count('SKIP') for v in counts.values())
bad = []
for name in sorted(want):
    if not counts.get(name):
        bad.append(f'suite {name} ran no test')
for name, v in sorted(counts.items()):
    if any(x != 'PASS' for x in v):
        bad.append(f'suite {name}: ' + ', '.join(sorted(set(x for x in v if x != 'PASS'))))
for b in bad:
    print('kunit: not ok:', b)
print(f'kunit: suites {", ".join(sorted(counts))}')
print(f'kunit.py: {p} passed, {max(f, len(bad))} failed, {s} skipped')
sys.exit(1 if bad or f else 0)
PY
