#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: run the KUnit suites of the Rust cpuidle code the way kernel
# developers run KUnit, with the kernel's kunit.py and the .kunitconfig of
# drivers/cpuidle, on x86_64 under QEMU:
#
#   tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle
#
# (with modules added, KUNIT_ARGS in lib.sh).  It runs in the tree and build
# of scripts/bisect.sh (the series applied to the pristine source, built
# with this configuration), so that kunit.py finds its kernel built.  Fails
# unless kunit.py passes and its results hold every suite of the
# .kunitconfig with at least one test, none failed or skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ -f "$BISECT_BUILD/.rcpuidle-bisect" ] || "$TOP/scripts/patches.sh" bisect
json=$BISECT_BUILD/results.json
log=$BISECT_BUILD/kunit.log
rm -f "$json"
echo "kunit: kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle (in $BISECT_TREE)"
rc=0
# the wrapper in front of qemu-system-x86_64 turns kunit.py's KVM request
# into TCG (see scripts/kunit-qemu)
(cd "$BISECT_TREE" && PATH="$TOP/scripts/kunit-qemu:$PATH" nice -n "${RCPUIDLE_BUILD_NICE:-0}" \
	python3 tools/testing/kunit/kunit.py run "${KUNIT_ARGS[@]}" --build_dir="$BISECT_BUILD" \
	--jobs "${JOBS:-3}" --timeout "${KUNIT_TIMEOUT:-900}" --json="$json") >"$log" 2>&1 || rc=$?
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
