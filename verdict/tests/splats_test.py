# SPDX-License-Identifier: GPL-2.0
"""Self-tests of the console verdict's kernel reports: verdict/splats.txt,
derived by verdict/splats.py from the kernel's report-printing sites.

* The committed list is what the command derives from the pristine tree
  (so it is not typed by hand, and cannot go stale).
* A report of each family, in the shape 7.3 prints it, is matched by a
  pattern of that family (the file that prints it), and a console log that
  holds it is judged red by verdict/ktap.py, the report's first line named
  as the splat.  Several are shapes the hand-typed list of old missed (the
  hard lock-up detector, the RCU-tasks stall, SLUB's reports of any cache,
  kmemleak's warnings, refcount_t, list corruption, KFENCE, a workqueue
  lock-up).
* The derivation bites: take a family's site (its message, its stack dump)
  out of a copy of its source and the family's pattern goes.
"""
import difflib
import os
import re
import subprocess
import sys

import pytest

from evaluation import paths
from verdict import splats
from verdict.tests.verdict_test import KTAP, TESTS, console

SPLATS_TXT = os.path.join(paths.TOP, "verdict", "splats.txt")


def pristine():
    """The pristine kernel tree, or skip."""
    if not os.path.isfile(os.path.join(paths.PRISTINE, "kernel", "panic.c")):
        pytest.skip("no pristine kernel tree at %s (make setup extracts it)" % paths.PRISTINE)
    return paths.PRISTINE


def test_committed_list_is_the_derived_one():
    tree = pristine()
    r = subprocess.run([sys.executable, "-m", "verdict.splats", tree], cwd=paths.TOP,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(SPLATS_TXT) as f:
        committed = f.read()
    diff = list(difflib.unified_diff(committed.splitlines(), r.stdout.splitlines(),
                                     "verdict/splats.txt", "derived", lineterm="", n=0))
    assert not diff, ("verdict/splats.txt is not what `python3 -m verdict.splats %s` "
                      "derives; run it >verdict/splats.txt:\n%s" % (tree, "\n".join(diff[:40])))


def test_the_list_is_read():
    rows = splats.load_rows(SPLATS_TXT)
    assert len(rows) > 100
    assert splats.load(SPLATS_TXT) == [rx for _, rx, _ in rows]
    for family, rx, sites in rows:
        re.compile(rx)
        assert family and sites, rx


# (name, family, report): a report as 7.3 prints it, its first line the
# one that must be named; the family is the source file that prints it
REPORTS = [
    ("WARNING", "kernel/panic.c",
     ["WARNING: drivers/cpuidle/cpuidle.c:281 at cpuidle_enter_state+0x2e4/0x4b0, CPU#1: swapper/1/0",
      "Modules linked in: cpuidle_vstates",
      "CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Not tainted 7.3.4 #1 PREEMPTLAZY",
      "Call Trace:", " <TASK>", " cpuidle_enter+0x2d/0x40"]),
    ("BUG", "lib/bug.c",
     ["kernel BUG at drivers/cpuidle/governors/teo.c:412!",
      "Oops: invalid opcode: 0000 [#1] SMP NOPTI"]),
    ("x86 oops", "arch/x86/kernel/dumpstack.c",
     ["Oops: general protection fault, probably for non-canonical address "
      "0xdead000000000122: 0000 [#1] SMP NOPTI",
      "CPU: 0 UID: 0 PID: 95 Comm: sh Not tainted 7.3.4 #1 PREEMPTLAZY"]),
    ("x86 page fault", "arch/x86/mm/fault.c",
     ["BUG: kernel NULL pointer dereference, address: 0000000000000008",
      "#PF: supervisor read access in kernel mode",
      "#PF: error_code(0x0000) - not-present page"]),
    ("arm64 fault", "arch/arm64/mm/fault.c",
     ["Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008",
      "Mem abort info:", "  ESR = 0x0000000096000004"]),
    ("arm64 oops", "arch/arm64/kernel/traps.c",
     ["Internal error: Oops: 0000000096000004 [#1]  SMP",
      "Modules linked in: cpuidle_psci_rs"]),
    ("arm fault", "arch/arm/mm/fault.c",
     ["Unable to handle kernel NULL pointer dereference at virtual address 00000008 when read",
      "[00000008] *pgd=00000000"]),
    ("arm oops", "arch/arm/kernel/traps.c",
     ["Internal error: Oops: 17 [#1] SMP ARM", "Modules linked in: cpuidle_mvebu_v7_rs"]),
    ("powerpc fault", "arch/powerpc/mm/fault.c",
     ["BUG: Kernel NULL pointer dereference on read at 0x00000008",
      "Faulting instruction address: 0xc000000000123456"]),
    ("powerpc oops", "arch/powerpc/kernel/traps.c",
     ["Oops: Kernel access of bad area, sig: 11 [#1]",
      "LE PAGE_SIZE=64K MMU=Radix SMP NR_CPUS=2048 NUMA pSeries"]),
    ("KASAN", "mm/kasan/report.c",
     ["BUG: KASAN: slab-use-after-free in teo_update+0x1a4/0x3c0",
      "Read of size 8 at addr ffff888004a3c040 by task swapper/0/0"]),
    ("KFENCE", "mm/kfence/report.c",
     ["BUG: KFENCE: out-of-bounds read in teo_update+0x1a4/0x3c0", "",
      "Out-of-bounds read at 0x00000000b2b6ce5d (64B right of kfence-#12):"]),
    ("UBSAN", "lib/ubsan.c",
     ["UBSAN: array-index-out-of-bounds in drivers/cpuidle/governors/teo.c:291:13",
      "index 10 is out of range for type 'teo_bin [10]'"]),
    ("lockdep: circular locking", "kernel/locking/lockdep.c",
     ["WARNING: possible circular locking dependency detected",
      "7.3.4 #1 Not tainted", "------------------------------------------------------",
      "sh/95 is trying to acquire lock:"]),
    ("lockdep: inconsistent lock state", "kernel/locking/lockdep.c",
     ["WARNING: inconsistent lock state", "--------------------------------",
      "inconsistent {IN-HARDIRQ-W} -> {HARDIRQ-ON-W} usage."]),
    ("lockdep: suspicious RCU usage", "kernel/locking/lockdep.c",
     ["WARNING: suspicious RCU usage", "-----------------------------",
      "drivers/cpuidle/cpuidle.c:88 suspicious rcu_dereference_check() usage!"]),
    ("RCU stall", "kernel/rcu/tree_stall.h",
     ["rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
      "rcu: \t1-...!: (0 ticks this GP) idle=f3c/0/0x0 softirq=210/210 fqs=0",
      "rcu: \t(detected by 0, t=21002 jiffies, g=393, q=12 ncpus=2)"]),
    ("RCU self-detected stall", "kernel/rcu/tree_stall.h",
     ["rcu: INFO: rcu_sched self-detected stall on CPU",
      "rcu: \t0-....: (20999 ticks this GP) idle=b4c/1/0x4000000000000002 softirq=38/38 fqs=5250"]),
    ("RCU-tasks stall", "kernel/rcu/tasks.h",
     ["INFO: rcu_tasks detected stalls on tasks:",
      "00000000a1b2c3d4: .. nvcsw: 2/2 holdout: 1 idle_cpu: -1/0",
      "task:insmod          state:R  running task     stack:0     pid:95"]),
    ("soft lockup", "kernel/watchdog.c",
     ["watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [insmod:95]",
      "Modules linked in: cpuidle_vstates"]),
    ("hard lockup", "kernel/watchdog.c",
     ["watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 1",
      "Modules linked in: cpuidle_psci_rs"]),
    ("powerpc hard lockup", "arch/powerpc/kernel/watchdog.c",
     ["watchdog: CPU 2 self-detected hard LOCKUP @ snooze_loop+0x30/0x60",
      "watchdog: CPU 2 TB:2364571298, last heartbeat TB:2354283015 (20093ms ago)"]),
    ("workqueue lock-up", "kernel/workqueue.c",
     ["BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!",
      "Showing busy workqueues and worker pools:"]),
    ("hung task", "kernel/hung_task.c",
     ["INFO: task kworker/0:1:12 blocked for more than 122 seconds.",
      "      Not tainted 7.3.4 #1",
      "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message."]),
    ("SLUB: poison", "mm/slub.c",
     ["BUG kmalloc-64 (Not tainted): Poison overwritten",
      "-----------------------------------------------------------------------------"]),
    ("SLUB: padding", "mm/slub.c",
     ["BUG dentry (Tainted: G    B             ): Object padding overwritten",
      "-----------------------------------------------------------------------------"]),
    ("SLUB: redzone", "mm/slub.c",
     ["[Right Redzone overwritten] 0xffff888004a3c040-0xffff888004a3c047 @offset=64. "
      "First byte 0x0 instead of 0xcc",
      "BUG kmalloc-64 (Tainted: G    B   ): Object corrupt"]),
    ("kmemleak: leaks", "mm/kmemleak.c",
     ["kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)"]),
    ("kmemleak: warning", "mm/kmemleak.c",
     ["kmemleak: Found object by alias at 0xffff888004a3c000",
      "CPU: 0 UID: 0 PID: 95 Comm: sh Not tainted 7.3.4 #1 PREEMPTLAZY"]),
    ("bad page map", "mm/memory.c",
     ["BUG: Bad page map in process sh  pte:8000000004a3c067 pmd:04a3d067",
      "page: refcount:0 mapcount:-1 mapping:0000000000000000 index:0x0 pfn:0x4a3c"]),
    ("bad page state", "mm/page_alloc.c",
     ["BUG: Bad page state in process sh  pfn:04a3c",
      "page: refcount:0 mapcount:0 mapping:0000000000000000 index:0x0 pfn:0x4a3c"]),
    ("list_add corruption", "lib/list_debug.c",
     ["list_add corruption. prev->next should be next (ffff888004a3c010), but was "
      "ffff888004a3c020. (prev=ffff888004a3c030).",
      "------------[ cut here ]------------"]),
    ("list_del corruption", "lib/list_debug.c",
     ["list_del corruption, ffff888004a3c000->next is LIST_POISON1 (dead000000000100)"]),
    ("refcount", "lib/refcount.c",
     ["refcount_t: underflow; use-after-free.",
      "WARNING: lib/refcount.c:28 at refcount_warn_saturate+0xba/0x110, CPU#0: sh/95"]),
    ("scheduling while atomic", "kernel/sched/core.c",
     ["BUG: scheduling while atomic: swapper/0/0/0x00000002",
      "Modules linked in: cpuidle_vstates"]),
    ("sleeping in atomic context", "kernel/sched/core.c",
     ["BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580",
      "in_atomic(): 1, irqs_disabled(): 1, non_block: 0, pid: 0, name: swapper/1"]),
    ("spinlock", "kernel/locking/spinlock_debug.c",
     ["BUG: spinlock bad magic on CPU#0, swapper/0/1"]),
    ("panic", "kernel/panic.c",
     ["Kernel panic - not syncing: Fatal exception in interrupt",
      "---[ end Kernel panic - not syncing: Fatal exception in interrupt ]---"]),
    ("OOM killer", "mm/oom_kill.c",
     ["sh invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"]),
    ("sysfs duplicate", "fs/sysfs/dir.c",
     ["sysfs: cannot create duplicate filename '/devices/system/cpu/cpu0/cpuidle/state0'"]),
]


def ktap(kunit_dir, tmp_path, log):
    """verdict/ktap.py's run on the console LOG."""
    (tmp_path / "t.tests").write_text(TESTS)
    (tmp_path / "console.log").write_text(log)
    return subprocess.run([sys.executable, KTAP, str(tmp_path / "console.log"), "--arch", "test", "--tests",
                           str(tmp_path / "t.tests"), "--kunit-dir", kunit_dir], capture_output=True, text=True)


@pytest.mark.parametrize("name, family, report", REPORTS, ids=[r[0] for r in REPORTS])
def test_family(kunit_dir, tmp_path, name, family, report):
    """A pattern of the family matches the report, and the verdict is red."""
    rows = splats.load_rows(SPLATS_TXT)
    assert any(f == family for f, _, _ in rows), "no family %s in the list" % family
    mine = [rx for f, rx, _ in rows if f == family and re.search(rx, report[0])]
    assert mine, "no pattern of %s matches '%s'" % (family, report[0])
    log = console(extra="\n".join(report))
    r = ktap(kunit_dir, tmp_path, log)
    last = (r.stdout.strip().splitlines() or [""])[-1]
    assert r.returncode == 1 and last.startswith("test: ") and " 0 failed" not in last, r.stdout
    n = log.splitlines().index(report[0]) + 1
    want = "console splat at line %d: %s" % (n, report[0].strip())
    assert any(want in l for l in r.stdout.splitlines() if ": ERROR: " in l), r.stdout


# what fail_nth.sh's fault injection provokes by design: the injection's
# notice and stack, and the reports of the allocations that failed
# (splats.EXPECTED): green
FAULT_NOISE = [
    "FAULT_INJECTION: forcing a failure.",
    "name failslab, interval 1, probability 0, space 0, times -1",
    "CPU: 0 UID: 0 PID: 95 Comm: failnth Not tainted 7.3.4 #1 PREEMPTLAZY",
    "Call Trace:", " <TASK>", " dump_stack_lvl+0x5d/0x80", " should_fail_ex+0x1a1/0x1e0",
    "failnth: page allocation failure: order:0, mode:0xcc0(GFP_KERNEL), nodemask=(null)",
    "failnth: vmalloc error: size 8192, vm_struct allocation failed, mode:0xcc0(GFP_KERNEL), "
    "nodemask=(null)",
    "percpu: allocation failed, size=16 align=8 atomic=0, alloc from reserved chunk failed",
    "kmem_cache_create(rust_cache) failed with error -12",
    "Mem-Info:",
    "kobject: kobject_add_internal failed for state0 (error: -12 parent: cpuidle)",
    "kmemleak: Cannot allocate a scan area, scanning the full object",
    "warn_alloc: 7 callbacks suppressed",
]


def test_fault_injection_noise_is_green(kunit_dir, tmp_path):
    r = ktap(kunit_dir, tmp_path, console(extra="\n".join(FAULT_NOISE)))
    assert r.returncode == 0, r.stdout


# a tiny tree: a soft lock-up report (its message, then the stack), a
# report a macro forwards its format to, and a helper that dumps
FAKE = r'''
#define pr_fmt(fmt) "watchdog: " fmt

static void lockup_report(int cpu)
{
    if (!report_on)
        return;
    pr_emerg("BUG: soft lockup - CPU#%d stuck for %us!\n", cpu, 22);
    print_modules();
    dump_stack();
}

#define fake_warn(x...) do {    \
    pr_warn(x);        \
    dump_stack();        \
} while (0)

static void fake_scan(void *p)
{
    if (!p)
        fake_warn("Scanning an unknown object at 0x%08lx\n", (unsigned long)p);
}

static void fake_check(int v)
{
    if (v > 10) {
        pr_err("fake: value %d out of range, resetting\n", v);
        return;
    }
    pr_err("fake: corrupted state machine, state %d\n", v);
    WARN_ON(1);
}
'''


def derived(tree):
    return {rx for _, rx, _ in splats.derive(str(tree))}


def write(tree, rel, text):
    path = tree / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


LOCKUP = r"watchdog: BUG: soft lockup - CPU#-?\d+ stuck for \d+s!"
SCAN = r"Scanning an unknown object at 0x"
STATE = r"watchdog: fake: corrupted state machine, state"


def test_derivation_of_a_fake_tree(tmp_path):
    write(tmp_path, "kernel/fake.c", FAKE)
    got = derived(tmp_path)
    assert {LOCKUP, SCAN, STATE} <= got, got
    # a message in a branch that returns before the dump is no head
    assert not any("out of range" in rx for rx in got), got


@pytest.mark.parametrize("snippet, gone", [
    ("    print_modules();\n    dump_stack();\n", LOCKUP),  # the report's dumps
    ('    pr_emerg("BUG: soft lockup', LOCKUP),               # the report's message
    ("    dump_stack();        \\\n", SCAN),                  # the forwarding macro's dump
    ("    WARN_ON(1);\n", STATE),                              # the constant-true assertion
], ids=["stack dump", "message", "macro's dump", "WARN_ON(1)"])
def test_taking_a_site_out_takes_its_pattern(tmp_path, snippet, gone):
    start = FAKE.index(snippet)
    end = start + len(snippet) if snippet.endswith("\n") else FAKE.index("\n", start) + 1
    write(tmp_path, "kernel/fake.c", FAKE[:start] + FAKE[end:])
    got = derived(tmp_path)
    assert gone not in got, got
    assert {LOCKUP, SCAN, STATE} - {gone} <= got, got


def copy_without(tree, dest, rel, drop):
    """Copy TREE's REL into DEST, without the lines that hold DROP."""
    with open(os.path.join(tree, rel)) as f:
        text = f.read()
    kept = [l for l in text.splitlines(True) if drop is None or drop not in l]
    assert drop is None or len(kept) < len(text.splitlines(True)), drop
    write(dest, rel, "".join(kept))


@pytest.mark.parametrize("rels, drop, pattern", [
    # the RCU-tasks stall: its message
    (["kernel/rcu/tasks.h"], 'pr_err("INFO: rcu_tasks detected stalls on tasks:',
     r"INFO: rcu_tasks detected stalls on tasks:"),
    # the hard lock-up: its message
    (["kernel/watchdog.c"], "Watchdog detected hard LOCKUP on cpu",
     r"watchdog: CPU\d+: Watchdog detected hard LOCKUP on cpu"),
    # list corruption: the BUG() of the macro that reports it
    (["include/linux/bug.h", "lib/list_debug.c"], "\t\t\t\tBUG();",
     r"list_add corruption\. next is NULL\."),
    # SLUB: the stack dump (WARN_ON(1)) of object_err() and slab_err()
    (["mm/slub.c"], "\tWARN_ON(1);", r"BUG .* \(.*\):"),
], ids=["rcu-tasks stall", "hard lockup", "list corruption", "SLUB"])
def test_taking_a_pristine_site_out_takes_its_pattern(tmp_path, rels, drop, pattern):
    """REL copied from the pristine tree, whole and without the lines that
    hold DROP (in the first of RELS)."""
    tree = pristine()
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    for rel in rels:
        copy_without(tree, whole, rel, None)
        copy_without(tree, cut, rel, drop if rel == rels[0] else None)
    assert pattern in derived(whole)
    assert pattern not in derived(cut)


def test_the_command(tmp_path):
    write(tmp_path, "kernel/fake.c", FAKE)
    r = subprocess.run([sys.executable, os.path.join(paths.TOP, "verdict", "splats.py"),
                        str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("# Kernel reports, derived from the Linux unknown source")
    assert "\n## kernel/fake.c\n" in r.stdout, r.stdout
    assert "\n%s\tkernel/fake.c:8 lockup_report\n" % LOCKUP in r.stdout, r.stdout
    bad = subprocess.run([sys.executable, "-m", "verdict.splats", str(tmp_path / "nowhere")],
                         cwd=paths.TOP, capture_output=True, text=True)
    assert bad.returncode == 2 and "not a kernel tree" in bad.stderr
