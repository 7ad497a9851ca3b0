# SPDX-License-Identifier: GPL-2.0
"""Self-tests of evaluation/guest/record.sh's trace reader on a crafted
trace, run as the guest runs it: the awk program of record.sh (cut out of
the script, as it stands) under busybox awk, the guest's awk.

Each check holds only if the REC lines say what the events say: the sleep
length, the entry, the duration and the state of each completed entry, the
miss, the time from the sleep-length event to the entry, and the wake-up
source (the first interrupt served on that CPU between entering the state
and leaving it, from the CPU column: the interrupt events have no cpu_id;
`-` where none was).  Run by pytest (one test per check).  RECORD_SH=PATH tests another
copy (a mutant).
"""
import os
import re
import shutil
import subprocess

import pytest

from evaluation import paths
from evaluation.tests import selftest_checks

SCRIPT = os.environ.get("RECORD_SH", os.path.join(paths.TOP, "evaluation", "guest", "record.sh"))
BUSYBOX = shutil.which("busybox") or "/bin/busybox"


def ev(cpu, t, text):
    return "          <idle>-0       [%03d] d..1.   %s: %s" % (cpu, t, text)


TRACE = [
    # CPU1: a sleep length of 5 ms, state 2 entered 10 us later; CPU0's
    # timer is not CPU1's; a device interrupt, then the local timer, both
    # in the state: the device woke it
    ev(1, "100.000000", "cpu_idle_sleep_length: cpu_id=1 sleep_length=5000000 delta_next=4000000"),
    ev(1, "100.000010", "cpu_idle: state=2 cpu_id=1"),
    ev(0, "100.000500", "local_timer_entry: vector=236"),
    ev(1, "100.001000", "irq_handler_entry: irq=11 name=virtio0"),
    ev(1, "100.001100", "local_timer_entry: vector=236"),
    ev(1, "100.001200", "cpu_idle: state=4294967295 cpu_id=1"),
    ev(1, "100.001201", "cpu_idle_miss: cpu_id=1 state=2 type=above"),
    # CPU1: a polling state left without an interrupt; the timer after
    # the exit is not its source
    ev(1, "100.002000", "cpu_idle_sleep_length: cpu_id=1 sleep_length=3000000 delta_next=3000000"),
    ev(1, "100.002010", "cpu_idle: state=0 cpu_id=1"),
    ev(1, "100.002500", "cpu_idle: state=4294967295 cpu_id=1"),
    ev(1, "100.002600", "local_timer_entry: vector=236"),
    # CPU0: an IPI, then irq_work, then the timer: the IPI woke it
    ev(0, "100.003000", "cpu_idle_sleep_length: cpu_id=0 sleep_length=800000 delta_next=800000"),
    ev(0, "100.003020", "cpu_idle: state=1 cpu_id=0"),
    ev(0, "100.003300", "reschedule_entry: vector=253"),
    ev(0, "100.003301", "irq_work_entry: vector=246"),
    ev(0, "100.003400", "cpu_idle: state=4294967295 cpu_id=0"),
    # CPU0: the local timer
    ev(0, "100.004000", "cpu_idle_sleep_length: cpu_id=0 sleep_length=900000 delta_next=900000"),
    ev(0, "100.004005", "cpu_idle: state=1 cpu_id=0"),
    ev(0, "100.004905", "local_timer_entry: vector=236"),
    ev(0, "100.004920", "cpu_idle: state=4294967295 cpu_id=0"),
    # CPU0: an entry with no sleep-length event before it is not recorded
    ev(0, "100.006000", "cpu_idle: state=1 cpu_id=0"),
    ev(0, "100.006100", "call_function_single_entry: vector=251"),
    ev(0, "100.006200", "cpu_idle: state=4294967295 cpu_id=0"),
]


def program(path):
    with open(path) as f:
        s = f.read()
    m = re.search(r"awk -v pre=\"REC \$name \$g \$run\" -v max=\"\$max\" '(.*?)' \$T/trace", s, re.S)
    return m.group(1) if m else None


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The runs the checks read: record_awk's locals."""
    prog = program(SCRIPT)
    out = ""
    if prog is not None:
        tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), "record-awk-test.%d" % os.getpid())
        with open(tmp, "w") as f:
            f.write("\n".join(TRACE) + "\n")
        p = subprocess.run([BUSYBOX, "awk", "-v", "pre=REC t g w", "-v", "max=10", prog, tmp],
                           capture_output=True, text=True)
        os.unlink(tmp)
        out = p.stdout + p.stderr
    lines = sorted(l.split()[4:] for l in out.splitlines() if l.startswith("REC "))
    on_failure = out
    return locals()


CHECKS = [
    ("the awk program is found in record.sh", lambda prog: prog is not None),
    ("four completed entries with a sleep length, none other", lambda lines: len(lines) == 4),
    ("a device interrupt in the state: irqN, above", lambda lines:
     ["1", "100000010", "5000", "1190", "4000", "2", "above", "10", "irq11"] in lines),
    ("a polling state left without an interrupt: -", lambda lines:
     ["1", "100002010", "3000", "490", "3000", "0", "-", "10", "-"] in lines),
    ("the first interrupt wins: an IPI before irq_work", lambda lines:
     ["0", "100003020", "800", "380", "800", "1", "-", "20", "ipi"] in lines),
    ("the local timer: timer", lambda lines:
     ["0", "100004005", "900", "915", "900", "1", "-", "5", "timer"] in lines),
]


@pytest.mark.parametrize("name, check", CHECKS, ids=[n for n, _ in CHECKS])
def test_record_awk(runs, name, check):
    assert selftest_checks.holds(check, runs), runs["on_failure"]
