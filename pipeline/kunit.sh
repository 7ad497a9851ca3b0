#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kunit.sh: run the KUnit suites of the Rust cpuidle code the way kernel
# developers run KUnit, with the kernel's kunit.py and the .kunitconfig of
# drivers/cpuidle, on x86_64 under QEMU:
#
#   tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle
#
# (with modules added, KUNIT_ARGS in lib.sh).  It runs in the grafted tree
# and the x86_64 build of the check (pipeline/build.sh x86_64), whose
# configuration holds every option kunit.py asks for: kunit.py then finds
# its .config and kernel as they are and only boots the kernel (with that
# build's CLIPPY=1, so that no Rust object is built again).  Fails unless
# kunit.py passes and its results hold every suite of the .kunitconfig
# with at least one test, none failed or skipped.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
arch_setup x86_64
[ -f "$BUILD/.config" ] || "$TOP/pipeline/build.sh" x86_64
# what kunit.py would make of its arguments (its last_used_kunitconfig):
# the build's .config must hold all of it, or kunit.py would throw that
# .config away and build a kernel of its own in the check's build
cfg=$(mktemp -d)
trap 'rm -rf "$cfg"' EXIT
(cd "$TREE" && PATH="$TOP/pipeline/kunit-qemu:$PATH" python3 tools/testing/kunit/kunit.py config \
	"${KUNIT_ARGS[@]}" --build_dir="$cfg" >"$cfg/log" 2>&1) ||
	{ cat "$cfg/log"; die "kunit: kunit.py config failed"; }
if ! miss=$(python3 - "$TREE/tools/testing/kunit" "$cfg/last_used_kunitconfig" "$BUILD/.config" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import kunit_config
want, have = (kunit_config.parse_file(p) for p in sys.argv[2:4])
if not want.is_subset_of(have):
    got = {e.name: e.value for e in have.as_entries()}
    print(" ".join("CONFIG_%s=%s" % (e.name, e.value) for e in want.as_entries()
                   if got.get(e.name, "n") != e.value))
    sys.exit(1)
PY
); then
	die "kunit: the x86_64 build's .config lacks what kunit.py asks for: $miss"
fi
cp "$cfg/last_used_kunitconfig" "$BUILD/last_used_kunitconfig"
json=$BUILD/kunit-results.json
log=$BUILD/kunit.log
rm -f "$json"
echo "kunit: kunit.py run --arch=x86_64 --kunitconfig=drivers/cpuidle (in $TREE, build $BUILD)"
rc=0
# the wrapper in front of qemu-system-x86_64 turns kunit.py's KVM request
# into TCG (see pipeline/kunit-qemu)
(cd "$TREE" && PATH="$TOP/pipeline/kunit-qemu:$PATH" nice -n "${RCPUIDLE_BUILD_NICE:-0}" \
	python3 tools/testing/kunit/kunit.py run "${KUNIT_ARGS[@]}" --make_options CLIPPY=1 \
	--build_dir="$BUILD" --jobs "${JOBS:-3}" --timeout "${KUNIT_TIMEOUT:-900}" --json="$json") >"$log" 2>&1 || rc=$?
# the suites and anything that did not pass (the cases are in $log)
grep -E '^\[[0-9:]+\] (Testing complete|=+ .* =+$|\[(FAILED|SKIPPED|CRASHED)\])' "$log" |
	sed 's/^\[[0-9:]*\] /kunit: /' | head -n 60 || true
[ "$rc" = 0 ] || { tail -n 30 "$log"; die "kunit.py run failed (rc $rc, log $log)"; }
python3 - "$json" <<'PY'
import json, sys
want = {'rust_kernel_percpu', 'rust_kernel_cpuhp', 'rust_cpuidle', 'rust_cpuidle_governor', 'rust_pm_qos', 'rteo_core'}
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
