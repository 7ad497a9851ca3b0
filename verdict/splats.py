#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The console verdict's kernel reports, derived from the kernel's source.

Usage: python3 -m verdict.splats TREE   (or: python3 verdict/splats.py TREE)

Scans TREE (a Linux source tree) for the places that print a kernel report
and prints, grouped by family (the source file that prints them), a regular
expression for each message that heads a report, with its sites
(FILE:LINE FUNCTION, "via" the dumping function for a message a helper
prints).  verdict/splats.txt is this command's output on the pristine 7.3.4
tree; verdict/ktap.py's splats are its expressions (load()), and a host
test derives the list again and compares, so the list is not typed by hand
and cannot go stale.

The rule.  A report is what the kernel prints together with a stack dump
or a panic.  The dumps are the calls of DUMPS (the stack, register and
module-list printers, the panics, WARN()'s __warn(), BUG(), the oops
printers), assertions without a message whose condition is the constant
true (WARN_ON(1): "dump the stack here"), and the calls of the units
(functions, function-like macros) of the same file that count as dumps:

* a unit that calls a dump dumps; it counts as a dump for the other units
  of its file if it does so at the top level of its body, or if it prints a
  head of its own (a helper that BUG()s on an impossible value, printing
  nothing first, does not make its callers report printers);  a dump in
  another file counts only if it is in DUMPS;

* the head of a dumping unit's report is every message it prints on the
  way to a dump: before it, and not in a branch that returns, jumps or
  breaks out of the switch or loop that holds the dump; and the messages
  its file's units it calls there print whenever they run (at the top
  level of their body, to CALLEE_DEPTH);

* a message counts if it is printed at KERN_WARNING or above (pr_warn(),
  pr_err(), ... dev_warn(), ..., printk() with such a level or none: the
  default level is KERN_WARNING), with a format that is a string literal
  or a string macro (config-dependent macros a wildcard);

* a unit whose head prints its own parameter as the format
  (kmemleak_warn(), CHECK_DATA_CORRUPTION()) passes the report on: the
  literal format of each call of it is a head;

* a macro whose body is a WARN(1, ...) with a literal format
  (REFCOUNT_WARN(), DEBUG_LOCKS_WARN_ON()) names a family of WARNING
  reports: that format is a head (a parameter spliced in, a wildcard);
  a plain WARN()'s message is not (its report is headed by __warn()'s
  "WARNING:");

* a title that the heads of TITLE_FAMILIES families or more start with
  ("BUG: ", "WARNING: ", "INFO: ") is a pattern of its own: a message
  titled so is a report, dump or not (mm's "BUG: Bad rss-counter state",
  a driver's report).

A head's format becomes a regular expression for its text up to its
first newline: the pr_fmt() prefix kept, the KERN_ level dropped, each
conversion (%d, %s, %pS...) a wildcard (a number for %d, %u, %x),
wildcards at the ends dropped; a pattern with too little text of its own
to name a report (MIN_SCORE) is dropped.  The scan covers the generic code (GENERIC) and
the four architectures the project boots (ARCHES, their ARCH_DIRS).  The
exceptions, each with its reason: REPORTERS (a dump the rule cannot see),
EXPECTED (a report that is no bug), HAND (reports without a dump).
"""
import os
import re
import sys
from typing import Dict, Optional, Tuple

# the four architectures the project boots, and the generic code: the
# core directories every build of theirs compiles, whatever its drivers,
# file systems and networking (fs/'s own top level and the pseudo file
# systems every boot mounts, the driver core)
ARCHES = ("x86", "arm", "arm64", "powerpc")
GENERIC = ("init", "kernel", "mm", "lib", "ipc", "block", "security",
           "fs/*.c", "fs/sysfs", "fs/kernfs", "fs/proc", "drivers/base",
           "include/linux", "include/asm-generic")
# an architecture's own kernel: its traps, faults and oops printers, its
# memory management, entry code and headers (not its platforms and boards,
# KVM, crypto, BPF JIT, perf events, boot code)
ARCH_DIRS = ("kernel", "mm", "lib", "entry", "include")

# the dumps: functions that print a stack (this CPU's, a task's, other
# CPUs', a saved one), the register dump, the module list (printed only in
# reports), the panics (check_panic_on_warn(): the panic_on_warn panic the
# detectors' reports end with), WARN()'s printer, BUG(), and the
# architectures' oops printers
DUMPS = {
    "dump_stack", "dump_stack_lvl", "show_stack", "show_regs", "__show_regs",
    "sched_show_task", "dump_cpu_task", "trigger_all_cpu_backtrace",
    "trigger_allbutcpu_cpu_backtrace", "trigger_single_cpu_backtrace",
    "trigger_cpumask_backtrace", "nmi_trigger_cpumask_backtrace",
    "stack_trace_print", "print_modules", "panic", "vpanic", "nmi_panic",
    "check_panic_on_warn", "__warn", "warn_slowpath_fmt", "BUG", "die",
    "__die", "die_addr",
}
# assertions without a message: a dump when their condition is the
# constant true (the author's "dump the stack here"); a WARN() with a
# message of its own is a report of its own, headed by __warn()'s WARNING:
ASSERTS = {"WARN_ON", "WARN_ON_ONCE", "BUG_ON"}
# the WARN()s with a message (the format their second argument)
WARNS = {"WARN", "WARN_ONCE", "WARN_RATELIMIT", "WARN_TAINT", "WARN_TAINT_ONCE"}
TRUE = {"1", "true"}

# report printers whose dump their callers do (so the rule cannot see it):
# what they print whenever they run is a head.  lib/bug.c's report_bug()
# prints BUG()'s "kernel BUG at" line; the architecture's trap handler then
# calls die() (x86 through handle_bug(), arm64, arm and powerpc directly).
REPORTERS = {"report_bug": "lib/bug.c"}

# the expected reports: printed with a stack dump, but no bug, so no
# splats (the function's heads are left out, and it is no dump).  They
# report an allocation that failed: the caller handles the failure, and
# the kselftests' fault injection (fail_nth.sh: failslab, fail_page_alloc)
# provokes them by design (ktap.py lets warn_alloc's rate limit pass too)
EXPECTED = {
    "warn_alloc": "mm/page_alloc.c",  # the page allocator's and vmalloc's
    "pcpu_alloc_noprof": "mm/percpu.c",  # "percpu: allocation failed, size=..."
    "alloc_cpumask_var_node": "lib/cpumask.c",  # "=> alloc_cpumask_var: failed!"
    "__kmem_cache_create_args": "mm/slab_common.c",  # "kmem_cache_create(...) failed"
}

# families added by hand: reports the console carries without a stack
# dump of their own, (family, regex, why)
HAND = [
    ("mm/oom_kill.c", r": Killed process \d+ \(",
     "the OOM killer's kill: its stack dump (dump_header()) is rate limited "
     "(oom_rs), so a kill may come without one"),
    ("mm/kmemleak.c", r"kmemleak: \d+ new suspected memory leaks",
     "kmemleak prints its leak reports (each with a backtrace) in debugfs; "
     "this pr_info() is all the console gets of them"),
    ("mm/kmemleak.c", r"kmemleak: .*\bdisabled\b",
     "kmemleak turned off (kmemleak_disable(), kmemleak_do_cleanup()): "
     "leaks after it go unreported"),
]

# the print functions: name -> (index of the format argument, level, uses
# pr_fmt()); level None: from the format's KERN_ prefix (none: the default
# level, KERN_WARNING)
PRINTS: Dict[str, Tuple[int, Optional[int], bool]] = {}
for _lvl, _n in (("emerg", 0), ("alert", 1), ("crit", 2), ("err", 3), ("warn", 4),
                 ("warning", 4), ("info", 6), ("notice", 5), ("debug", 7)):
    for _sfx in ("", "_once", "_ratelimited", "_deferred", "_deferred_once"):
        PRINTS["pr_" + _lvl + _sfx] = (0, _n, True)
        PRINTS["dev_" + _lvl + _sfx] = (1, _n, False)
for _p in ("printk", "printk_once", "printk_ratelimited", "printk_deferred",
           "printk_deferred_once"):
    PRINTS[_p] = (0, None, False)
PRINTS.pop("dev_warning")
WARN_LEVEL = 4  # KERN_WARNING: a message at this level or above counts
CALLEE_DEPTH = 2  # callees of callees of callees: the depth searched
# what a pattern needs of its own to name a report: 3 letters, and a score
# of this much (its characters, blanks aside, its typed numbers (%d, %x),
# its pieces of text after the first) if its line starts with the format's
# own text (MIN_SCORE), or not (MIN_SCORE_INNER)
MIN_SCORE = 8
MIN_SCORE_INNER = 10
TITLE_FAMILIES = 4  # see Deriver.titled()

# the lexer: comments, string and character literals, preprocessor lines
LEX_RE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
TOKEN_RE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[{};]')
PAREN_RE = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[()]')
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
DEFINE_RE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?(.*)", re.S)
TRUE_ASSERT_RE = re.compile(r"\b(?:WARN_ON|WARN_ON_ONCE|BUG_ON)\s*\(\s*(?:1|true)\s*\)")
TRUE_WARN_RE = re.compile(r"\bWARN\w*\s*\(\s*(?:1|true)\s*,")
STRING_MACRO_RE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+'
                             r'((?:[A-Za-z_]\w*[ \t]+)?"(?:\\.|[^"\\\n])*"[^\n]*)$', re.M)
CASE_RE = re.compile(r"(?<![\w:?])(?:case\b[^;{}:]*|default\s*):(?!:)")
JUMP_RE = re.compile(r"\b(return|goto|break|continue)\b")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "typeof",
            "__typeof__", "defined", "do", "else", "case", "_Generic",
            "__attribute__", "asm", "__asm__", "volatile", "__builtin_expect"}
# attribute macros that take arguments in a function's header
ATTRS_RE = re.compile(r"^(__printf|__scanf|__attribute__|__section|__aligned|__must_hold|"
                      r"__acquires|__releases|__cond_acquires|__cond_releases|__alloc_size|"
                      r"__no_sanitize\w*|__diagnose_as|__counted_by|__assume_aligned|"
                      r"__malloc|__nocfi|__weak|__init|__ref|__cold|__noreturn|"
                      r"__visible|noinline|notrace|asmlinkage|__no_kcsan|"
                      r"__no_profile|__must_check|__releases_shared|__acquires_shared|"
                      r"__context_unsafe|__must_not_hold|__cond_lock|__guarded_by)$")
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'",
           "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "?": "?"}
CONV_RE = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|z|Z|t|j)?"
                     r"([diouxXcspe%])([A-Za-z]*)")


def unescape(lit):
    """The text of a C string literal (with its quotes)."""
    out, s, i = [], lit[1:-1], 0
    while i < len(s):
        c = s[i]
        if c != "\\" or i + 1 == len(s):
            out.append(c)
            i += 1
            continue
        n = s[i + 1]
        m = re.match(r"[0-7]{1,3}", s[i + 1:])
        if m:
            out.append(chr(int(m.group(0), 8)))
            i += 1 + len(m.group(0))
        elif n == "x":
            m = re.match(r"[0-9a-fA-F]+", s[i + 2:])
            out.append(chr(int(m.group(0), 16) & 0xff) if m else "x")
            i += 2 + (len(m.group(0)) if m else 0)
        else:
            out.append(ESCAPES.get(n, n))
            i += 2
    return "".join(out)


def split_args(text):
    """The top-level comma-separated arguments of TEXT (a call's inside)."""
    args, depth, cur, pos = [], 0, [], 0
    for m in re.finditer(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|[()\[\]{},]', text):
        t = m.group(0)
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        elif t == "," and depth == 0:
            cur.append(text[pos:m.start()])
            args.append("".join(cur).strip())
            cur, pos = [], m.end()
    cur.append(text[pos:])
    last = "".join(cur).strip()
    if last or args:
        args.append(last)
    return args


def close_paren(text, start):
    """The index of the ')' closing the '(' at START, or -1."""
    depth = 0
    for m in PAREN_RE.finditer(text, start):
        t = m.group(0)
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            if depth == 0:
                return m.start()
    return -1


def has_true_assert(text):
    """Whether TEXT holds a WARN_ON(1) or the like (the scanned tree writes
    them all without blanks inside the parentheses: a quick test first)."""
    return ("(1)" in text or "(true)" in text) and TRUE_ASSERT_RE.search(text) is not None


def has_true_warn(text):
    """Whether TEXT holds a WARN(1, ...) or the like."""
    return ("(1," in text or "(true," in text) and TRUE_WARN_RE.search(text) is not None


class Unit:
    """A function or a function-like macro: its name, file, first line,
    parameters (a macro's; a function's names), and its body's text."""

    def __init__(self, name, path, line, params, body, body_line, macro):
        self.name, self.path, self.line = name, path, line
        self.params, self.body, self.body_line = params, body, body_line
        self.macro = macro
        self._masked = None
        self._events = None

    @property
    def masked(self):
        """The body, its string and character literals blanked."""
        if self._masked is None:
            self._masked = re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                                  lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', self.body)
        return self._masked

    def mentions(self, names):
        """Whether the body may call one of NAMES (a quick test)."""
        return any(n in self.body for n in names)

    @property
    def true_assert(self):
        """Whether the body holds an assertion of the constant true."""
        return has_true_assert(self.masked)

    def events(self):
        """The calls of the body in order: (offset, name, args, chain),
        chain the blocks around the call, innermost first (0 the body).
        A block is a {...} (not a do {...} while (0) nor a ({...})), or a
        switch's case: from its label to the next."""
        if self._events is not None:
            return self._events
        masked = self.masked
        pairs, stack = [], []
        for m in re.finditer(r"[{}]", masked):
            if m.group(0) == "{":
                stack.append(m.start())
            elif stack:
                pairs.append((stack.pop(), m.start()))
        real = []  # (open, close, kind)
        for o, c in sorted(pairs):
            before = masked[max(0, o - 40):o].rstrip()
            if before.endswith("(") or (re.search(r"\bdo$", before) and
                                        re.match(r"\s*while\s*\(\s*0\s*\)", masked[c + 1:c + 40])):
                continue
            kind = "do" if re.search(r"\bdo$", before) else ""
            if before.endswith(")"):
                i, depth = len(before) - 1, 0
                while i >= 0:
                    depth += {")": 1, "(": -1}.get(before[i], 0)
                    if depth == 0:
                        break
                    i -= 1
                if i < 0:  # the header is longer: look further back
                    head = masked[max(0, o - 400):o].rstrip()
                    i, depth = len(head) - 1, 0
                    while i >= 0:
                        depth += {")": 1, "(": -1}.get(head[i], 0)
                        if depth == 0:
                            break
                        i -= 1
                    before = head
                kw = re.search(r"\b(switch|for|while|if)\s*$", before[:max(i, 0)])
                kind = kw.group(1) if kw else ""
            real.append((o, c, kind))
        opens = [(o, c, "loop" if k in ("for", "while", "do") else k) for o, c, k in real]
        # the cases of each switch: labels in the switch's block itself
        for o, c, kind in real:
            if kind != "switch":
                continue
            inner = [(io, ic) for io, ic, _ in real if o < io and ic < c]
            labels = [m.start() for m in CASE_RE.finditer(masked, o + 1, c)
                      if not any(io < m.start() < ic for io, ic in inner)]
            for k, lab in enumerate(labels):
                opens.append((lab, labels[k + 1] if k + 1 < len(labels) else c, "case"))
        opens.sort(key=lambda x: (x[0], -x[1]))
        blocks = {0: (0, len(masked), -1, "")}
        stack = [0]
        for o, c, kind in opens:
            while len(stack) > 1 and blocks[stack[-1]][1] <= o:
                stack.pop()
            bid = len(blocks)
            blocks[bid] = (o, c, stack[-1], kind)
            stack.append(bid)
        self.blocks = blocks
        events = []
        for m in CALL_RE.finditer(masked):
            if m.group(1) in KEYWORDS:
                continue
            end = close_paren(self.body, m.end() - 1)
            args = split_args(self.body[m.end():end]) if end > 0 else []
            events.append((m.start(), m.group(1), args, self.chain(m.start())))
        self._events = events
        return events

    def chain(self, off):
        """The blocks around offset OFF, innermost first."""
        inner = 0
        for bid, (o, c, _, _) in self.blocks.items():
            if o < off < c and o >= self.blocks[inner][0]:
                inner = bid
        chain = []
        while inner != -1:
            chain.append(inner)
            inner = self.blocks[inner][2]
        return tuple(chain)

    def leads_to(self, p, d):
        """Whether event P (a print, a call) comes on the way to event D:
        before it, and not in a branch that leaves before D's block: that
        returns, jumps, or breaks out of (continues) a switch or a loop
        that holds D."""
        if p[0] >= d[0]:
            return False
        for b in p[3]:
            if b in d[3]:
                return True
            for m in JUMP_RE.finditer(self.masked, p[0], self.blocks[b][1]):
                if m.group(1) in ("return", "goto"):
                    return False
                kinds = ("loop", "switch") if m.group(1) == "break" else ("loop",)
                target = next((t for t in self.chain(m.start()) if self.blocks[t][3] in kinds), None)
                if target is not None and target in d[3]:
                    return False
        return True

    def lineno(self, off):
        return self.body_line + self.body.count("\n", 0, off)


class Source:
    """One file: its units, string macros and pr_fmt()."""

    def __init__(self, path, text):
        self.path = path
        self.units = []
        self.strings = {}   # NAME -> string expression (object-like macros)
        self.pr_fmt = None  # (param, expression)
        self.names = None   # name -> unit
        text = LEX_RE.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'"
                          else re.sub(r"[^\n]", " ", m.group(0)), text)
        # preprocessor lines (with their continuations) out of the code
        code = []
        lines = text.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i]
            if not line.lstrip().startswith("#"):
                code.append(line)
                i += 1
                continue
            first, directive = i, [line]
            while directive[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                directive.append(lines[i])
            i += 1
            code += [""] * len(directive)
            self.directive(" ".join(l.rstrip("\\") for l in directive).strip(), first + 1)
        self.functions("\n".join(code))

    def directive(self, d, line):
        m = DEFINE_RE.match(d)
        if not m:
            return
        name, params, body = m.group(1), m.group(3), m.group(4).strip()
        if params is None:
            if body.startswith('"') or re.match(r"^[A-Za-z_]\w*\s+\"", body):
                # defined otherwise under another #if: a run-time choice
                self.strings[name] = body if self.strings.get(name, body) == body else "?"
            return
        plist = [p.strip() for p in params.split(",") if p.strip()]
        # a GNU named variadic parameter (x...) is x, last
        plist = [p[:-3].strip() if p.endswith("...") and p != "..." else p for p in plist]
        if name == "pr_fmt" and plist:
            self.pr_fmt = (plist[0], body)
            return
        self.units.append(Unit(name, self.path, line, plist, body, line, True))

    def line_at(self, code, off):
        """The line of offset OFF of CODE (offsets asked in order)."""
        if off < self._at[0]:
            self._at = (0, 1)
        pos, line = self._at
        line += code.count("\n", pos, off)
        self._at = (off, line)
        return line

    def functions(self, code):
        self._at = (0, 1)
        depth, start, head_from = 0, 0, 0
        for m in TOKEN_RE.finditer(code):
            t = m.group(0)
            if t == "{":
                if depth == 0:
                    start = m.start()
                depth += 1
            elif t == "}":
                depth -= 1
                if depth == 0:
                    self.function(code, head_from, start, m.end())
                    head_from = m.end()
                depth = max(depth, 0)
            elif t == ";" and depth == 0:
                head_from = m.end()

    def function(self, code, head_from, start, end):
        head = code[head_from:start]
        tail = head[-200:].rstrip()
        # a function's body follows its parameters (and attributes), not
        # an = (an initializer) nor struct, union or enum NAME
        if not tail.endswith(")") and not re.search(r"\)\s*[A-Za-z_]\w*$", tail):
            return
        name, params = None, []
        for m in CALL_RE.finditer(head):
            if m.group(1) in KEYWORDS or ATTRS_RE.match(m.group(1)):
                continue
            close = close_paren(head, m.end() - 1)
            name = m.group(1)
            params = [re.findall(r"[A-Za-z_]\w*", a)[-1:] for a in
                      split_args(head[m.end():close if close > 0 else len(head)])]
            break
        if name is None:
            return
        hline = self.line_at(code, head_from + len(head) - len(head.lstrip()))
        line = self.line_at(code, start)
        self.units.append(Unit(name, self.path, hline, [p[0] for p in params if p],
                               code[start + 1:end - 1], line, False))


def tree_files(tree):
    """The scanned files of TREE, sorted (paths relative to TREE)."""
    out = []
    dirs = list(GENERIC) + ["arch/%s/%s" % (a, d) for a in ARCHES for d in ARCH_DIRS]
    for d in dirs:
        if d.endswith("/*.c"):
            base = os.path.join(tree, d[:-4])
            if os.path.isdir(base):
                out += [os.path.join(d[:-4], f) for f in os.listdir(base)
                        if f.endswith(".c") and os.path.isfile(os.path.join(base, f))]
            continue
        for root, subdirs, files in os.walk(os.path.join(tree, d)):
            rel = os.path.relpath(root, tree)
            out += [os.path.join(rel, f) for f in files if f.endswith((".c", ".h"))]
    return sorted(set(p.replace(os.sep, "/") for p in out))


class Head:
    """A report's head: a format's regular expression and its sites."""

    def __init__(self, regex):
        self.regex = regex
        self.sites = set()  # (path, line, function)


class Deriver:
    """The derivation over one tree.  A file is parsed only once it can
    matter: it names a dump (or holds a constant-true assertion), or calls
    a unit that forwards its format."""

    def __init__(self, tree):
        self.tree = tree
        self.texts = {}     # path -> text, of the files not parsed yet
        for rel in tree_files(tree):
            with open(os.path.join(tree, rel), errors="replace") as f:
                self.texts[rel] = f.read()
        # the string macros of the headers (KERN_ERR, CUT_HERE...)
        self.strings = {}
        for path in sorted(self.texts):
            if path.startswith("include/"):
                for m in STRING_MACRO_RE.finditer(self.texts[path]):
                    body = re.sub(r"/\*.*?\*/|//.*", "", m.group(2)).strip()
                    old = self.strings.setdefault(m.group(1), body)
                    if old != body:
                        self.strings[m.group(1)] = "?"
        self.sources = []
        self.source = {}          # path -> Source
        self.by_name = {}
        self.local = {}           # path -> the units of a file that are dumps there
        self.roots = {}           # path -> the units of a file that dump
        self.heads = {}           # regex -> Head
        self.forwards = {}        # unit -> indexes of its forwarded parameters
        self.parse_mentioning(set(DUMPS), True)
        self.dumpers()

    def parse_mentioning(self, names, asserts=False):
        """Parse the files not parsed yet that call one of NAMES (or hold a
        constant-true assertion, if ASSERTS)."""
        new = []
        rx = re.compile(r"\b(?:%s)\s*\(" % "|".join(sorted(map(re.escape, names)))) if names else None
        for path in sorted(self.texts):
            text = self.texts[path]
            if (rx is not None and any(n in text for n in names) and rx.search(text)) \
                    or (asserts and (has_true_assert(text) or has_true_warn(text))):
                new.append(self.parse_file(path))
        self.sources.sort(key=lambda s: s.path)
        return new

    def parse_file(self, path):
        src = Source(path, self.texts.pop(path))
        self.sources.append(src)
        self.source[path] = src
        self.local[path] = set()
        self.roots[path] = set()
        for u in src.units:
            self.by_name.setdefault(u.name, []).append(u)
        return src

    # -- which units dump
    def dump_call(self, name, args, local):
        """Whether a call of NAME (ARGS) is a dump, LOCAL the dumping units
        of the caller's file."""
        if name in ASSERTS:
            return bool(args) and args[0] in TRUE
        return name in DUMPS or name in local

    def dumpers(self):
        """Per file, the units that dump (self.roots) and those that count
        as a dump for the others (self.local): a unit that dumps at the top
        level of its body, or prints a head of its own.  (A helper that
        dumps on one odd path, and prints nothing first, does not make its
        callers report printers.)"""
        for src in self.sources:
            local, roots = self.local[src.path], self.roots[src.path]
            changed = True
            while changed:
                changed = False
                for u in src.units:
                    if u.name in DUMPS or u.name in EXPECTED or u.name in local:
                        continue
                    if not (u.mentions(DUMPS | local) or u.true_assert):
                        continue
                    dumps, found = self.collect(src, u)
                    if not dumps:
                        continue
                    if u.name not in roots:
                        roots.add(u.name)
                        changed = True
                    if found or any(u.events()[d][3] == (0,) for d in dumps):
                        local.add(u.name)
                        changed = True

    # -- formats
    def fmt_template(self, unit, src, expr, use_pr_fmt, depth=0):
        """The format expression EXPR of a print in UNIT as a list of
        pieces: text, or ('param', index), or ('wild',); and its level
        (None: no KERN_ prefix).  None if it is not a format we can read."""
        if use_pr_fmt and src.pr_fmt is not None:
            p, body = src.pr_fmt
            expr = re.sub(r"\b%s\b" % re.escape(p), lambda m: "(" + expr + ")", body)
        pieces = []
        toks = re.findall(r'"(?:\\.|[^"\\\n])*"|[A-Za-z_]\w*(?:\s*\([^()]*\))?|\S', expr)
        for t in toks:
            if t.startswith('"'):
                pieces.append(unescape(t))
            elif t in "()":
                continue
            elif re.match(r"[A-Za-z_]", t):
                ident = re.match(r"[A-Za-z_]\w*", t).group(0)
                if ident in unit.params:
                    pieces.append(("param", unit.params.index(ident)))
                elif ident in src.strings or ident in self.strings:
                    body = src.strings.get(ident) or self.strings[ident]
                    sub = None if body == "?" or depth > 8 else \
                        self.fmt_template(unit, src, body, False, depth + 1)
                    pieces += sub if sub is not None else [("wild",)]
                elif ident == "__VA_ARGS__" and unit.params and unit.params[-1] == "...":
                    pieces.append(("param", len(unit.params) - 1))
                else:
                    pieces.append(("wild",))
            elif t == "#":
                pieces.append(("wild",))
            else:
                return None
        if not any(isinstance(p, str) or p[0] == "param" for p in pieces):
            return None
        return pieces

    def level(self, pieces, fixed):
        """The level of a message: FIXED, or the KERN_ prefix of PIECES."""
        if fixed is not None:
            return fixed, pieces
        text = "".join(p for p in pieces[:2] if isinstance(p, str))
        if isinstance(pieces[0], str) and text.startswith("\001") and len(text) > 1:
            c = text[1]
            rest = list(pieces)
            # strip the prefix from the pieces
            skip = 2
            out = []
            for p in rest:
                if skip and isinstance(p, str):
                    n = min(skip, len(p))
                    p, skip = p[n:], skip - n
                    if not p:
                        continue
                out.append(p)
            if c.isdigit():
                return int(c), out
            return 99, out  # KERN_CONT and the like
        if pieces and not isinstance(pieces[0], str) and pieces[0][0] == "wild":
            return 99, pieces  # a level given at run time
        return WARN_LEVEL, pieces  # the default level: KERN_WARNING

    def prints(self, unit, src, off, name, args):
        """A print event: (pieces, level) or None."""
        spec = PRINTS.get(name)
        if spec is None or len(args) <= spec[0]:
            return None
        pieces = self.fmt_template(unit, src, args[spec[0]], spec[2])
        if pieces is None:
            return None
        if spec[1] is None and isinstance(pieces[0], str) and pieces[0].startswith("%s") \
                and len(args) > spec[0] + 1:
            # printk("%s...", lvl, ...): the level is the first argument
            lvl = self.fmt_template(unit, src, args[spec[0] + 1], False)
            if lvl is None or not isinstance(lvl[0], str):
                return None
            pieces = [lvl[0], pieces[0][2:]] + pieces[1:]
        lvl, pieces = self.level(pieces, spec[1])
        return (pieces, lvl) if lvl <= WARN_LEVEL else None

    def add(self, pieces, site):
        """Add a head: PIECES with no parameter left (a parameter a
        wildcard)."""
        rx = to_regex(pieces)
        if rx is None:
            return
        h = self.heads.setdefault(rx, Head(rx))
        h.sites.add(site)

    # -- the heads of one dumping unit
    def unit_of(self, src, name):
        """The unit NAME of SRC (its first), or None."""
        if src.names is None:
            src.names = {}
            for u in src.units:
                src.names.setdefault(u.name, u)
        return src.names.get(name)

    def callee(self, src, name, dumping=False):
        """The unit of SRC a call of NAME runs, if it is no dump there (or
        if DUMPING)."""
        if name in DUMPS or name in EXPECTED or name in self.local[src.path] and not dumping:
            return None
        return self.unit_of(src, name)

    def callee_prints(self, src, callee, depth, seen, out, dumping=False):
        """The messages CALLEE (of SRC) prints whenever it runs (at the top
        level of its body), its own and those of the units of SRC it calls
        there (those that dump too, if DUMPING), to DEPTH."""
        if callee in seen or depth < 0:
            return
        seen.add(callee)
        for off, name, args, chain in callee.events():
            if chain != (0,):
                continue
            p = self.prints(callee, src, off, name, args)
            if p:
                out.append((callee, off, p[0]))
                continue
            sub = self.callee(src, name, dumping)
            if sub is not None:
                self.callee_prints(src, sub, depth - 1, seen, out, dumping)

    def collect(self, src, unit):
        """The dumps of UNIT (indexes of its events) and its head: the
        messages on the way to them, (unit, offset, pieces, via), via the
        offset of the call of a callee that prints it, or None."""
        local = self.local[src.path]
        events = unit.events()
        dumps = [i for i, e in enumerate(events) if self.dump_call(e[1], e[2], local)]
        head = set()
        for d in dumps:
            head.update(i for i in range(d) if unit.leads_to(events[i], events[d]))
        found = []
        for i in sorted(head - set(dumps)):
            off, name, args, _ = events[i]
            p = self.prints(unit, src, off, name, args)
            if p:
                found.append((unit, off, p[0], None))
                continue
            sub = self.callee(src, name)
            if sub is not None:
                out = []
                self.callee_prints(src, sub, CALLEE_DEPTH, {unit}, out)
                found += [(u, o, pieces, off) for u, o, pieces in out]
        return dumps, found

    def heads_of(self, src, unit):
        dumps, found = self.collect(src, unit)
        fwd = self.forwards.setdefault(unit, set())
        for u, o, pieces, via in found:
            params = [q[1] for q in pieces if not isinstance(q, str) and q[0] == "param"]
            if params:
                # a format made of a parameter: its callers' formats are
                # the heads (forwarded_call())
                if u is unit:
                    fwd.update(params)
                continue
            site = u.name if via is None else "%s (via %d %s)" % (u.name, unit.lineno(via), unit.name)
            self.add(pieces, (src.path, u.lineno(o), site))
        events = unit.events()
        calls = set(dumps)
        for d in dumps:
            calls.update(i for i in range(d) if unit.leads_to(events[i], events[d]))
        for i in sorted(calls):
            off, name, args, _ = events[i]
            self.forwarded_call(src, unit, off, name, args, fwd)

    def forwarded_call(self, src, unit, off, name, args, fwd=None):
        """A call of a unit that forwards a format argument: the literal
        format is a head; a parameter of UNIT makes UNIT forward it."""
        for callee in self.by_name.get(name, ()):
            for i in sorted(self.forwards.get(callee, ())):
                if len(args) <= i:
                    continue
                expr = args[i]
                pieces = self.fmt_template(unit, src, expr, False)
                if pieces is None:
                    continue
                lvl, pieces = self.level(pieces, None)
                if lvl > WARN_LEVEL:
                    continue
                params = [q[1] for q in pieces if not isinstance(q, str) and q[0] == "param"]
                if params and fwd is not None:
                    fwd.update(params)
                if any(isinstance(q, str) for q in pieces):
                    self.add(pieces, (src.path, unit.lineno(off), unit.name))

    def warn_families(self, src, unit):
        """A macro whose body is a WARN* with a literal format."""
        for off, name, args, _ in unit.events():
            if name in WARNS and len(args) > 1 and args[0] in TRUE:
                pieces = self.fmt_template(unit, src, args[1], False)
                if pieces and any(isinstance(q, str) for q in pieces):
                    self.add(pieces, (src.path, unit.lineno(off), unit.name))

    def derive(self):
        for _ in range(4):  # forwarding reaches its callers in rounds
            before = {u: set(v) for u, v in self.forwards.items()}
            for src in self.sources:
                for u in src.units:
                    if u.name in EXPECTED:
                        continue
                    if u.name in self.roots[src.path] or u.name in DUMPS:
                        self.heads_of(src, u)
                    if u.name in REPORTERS and src.path == REPORTERS[u.name]:
                        found = []
                        self.callee_prints(src, u, CALLEE_DEPTH, set(), found, True)
                        for c, o, pieces in found:
                            self.add(pieces, (src.path, c.lineno(o), c.name))
            if self.forwards == before:
                break
        fwd_names = {u.name for u, v in self.forwards.items() if v}
        self.parse_mentioning(fwd_names)
        for src in self.sources:
            for u in src.units:
                if u.macro and has_true_warn(u.masked):
                    self.warn_families(src, u)
                if u.mentions(fwd_names):
                    for off, n, args, _ in u.events():
                        if n in fwd_names:
                            self.forwarded_call(src, u, off, n, args)
        return self.heads

    def titled(self):
        """The titles: a title ("BUG: ") that the heads of TITLE_FAMILIES
        families or more start with names a report wherever it starts a
        message, dump or not (mm's "BUG: Bad rss-counter state", a driver's
        report): the title is a head of its own.  Returns {regex: [the
        families whose heads start with it]}."""
        families: Dict[str, set] = {}
        for rx, h in self.heads.items():
            m = re.match(r"([A-Z][A-Za-z]+): ", rx)
            if m:
                families.setdefault(m.group(1), set()).update(site[0] for site in h.sites)
        return {r"\b%s: " % t: sorted(f) for t, f in families.items() if len(f) >= TITLE_FAMILIES}


def conv_regex(m):
    """The regular expression of a printf conversion (CONV_RE's match M)."""
    flags, width, _, _, conv, ext = m.groups()
    pad = " *" if width and "0" not in flags and "-" not in flags else ""
    if conv == "%":
        return "%" + literal(ext)
    if conv in "di":
        rx = pad + r"-?\d+"
    elif conv == "u":
        rx = pad + r"\d+"
    elif conv in "xX":
        rx = pad + (r"(0[xX])?" if "#" in flags else "") + r"[0-9a-fA-F]+"
    elif conv == "o":
        rx = pad + r"[0-7]+"
    elif conv == "c":
        rx = "."
    elif conv == "s":
        rx = ".*"
    else:  # %p and its extension's letters, %e
        return ".*"
    return rx + literal(ext)


NUMBER_WILDS = (r"\d+", r"[0-9a-fA-F]+")


def literal(s):
    """S in a regular expression: its regex metacharacters escaped, a tab
    written as \\t (a tab separates the fields of splats.txt)."""
    s = re.sub(r"[.^$*+?{}\[\]\\|()]", lambda m: "\\" + m.group(0), s)
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group(0)), s)


def to_regex(pieces):
    """The regular expression of a head's first line (None if it has too
    little text of its own to name a report)."""
    fmt = []
    for p in pieces:
        if isinstance(p, str):
            fmt.append(p.replace("\x00", ""))
        else:
            fmt.append("\x00")  # a wildcard: a parameter, a run-time string
    text = "".join(fmt)
    first = next((l for l in text.split("\n") if l.strip()), "")
    out, pos = [], 0
    for m in CONV_RE.finditer(first):
        out.append(("lit", first[pos:m.start()]))
        out.append(("rx", conv_regex(m)))
        pos = m.end()
    out.append(("lit", first[pos:]))
    parts = []
    for kind, s in out:
        if kind == "rx":
            parts.append(("rx", s))
            continue
        for i, chunk in enumerate(s.split("\x00")):
            if i:
                parts.append(("rx", ".*"))
            if chunk:
                parts.append(("lit", chunk))
    # wildcards and blanks at the ends say nothing; a line that does not
    # start with the format's own text needs more of it
    anchored = bool(parts) and parts[0][0] == "lit" and parts[0][1].strip() != ""
    while parts and (parts[0][0] == "rx" or not parts[0][1].strip()):
        parts.pop(0)
    while parts and (parts[-1][0] == "rx" or not parts[-1][1].strip()):
        parts.pop()
    if not parts:
        return None
    parts[0] = ("lit", parts[0][1].lstrip())
    parts[-1] = ("lit", parts[-1][1].rstrip())
    lits = "".join(s for k, s in parts if k == "lit")
    numbers = sum(1 for k, s in parts if k == "rx" and s.endswith(NUMBER_WILDS))
    chunks = sum(1 for k, s in parts if k == "lit")
    score = len("".join(lits.split())) + numbers + chunks - 1
    if sum(c.isalpha() for c in lits) < 3 or score < (MIN_SCORE if anchored else MIN_SCORE_INNER):
        return None
    rx = []
    for k, s in parts:
        if k == "rx":
            if not (s == ".*" and rx and rx[-1] == ".*"):
                rx.append(s)
        else:
            rx.append(literal(s))
    return "".join(rx)


def derive(tree):
    """The derived list: [(family, regex, [sites])], sorted, the titles
    and HAND included."""
    d = Deriver(tree)
    heads = d.derive()
    rows = {}
    for rx, fams in d.titled().items():
        rows[("titles", rx)] = ["title of " + f for f in fams]
    for rx, h in heads.items():
        sites = sorted(h.sites)
        rows[(sites[0][0], rx)] = ["%s:%d %s" % s for s in sites]
    for fam, rx, why in HAND:
        rows[(fam, rx)] = ["by hand: " + why]
    return [(f, rx, sites) for (f, rx), sites in sorted(rows.items())]


def kernel_version(tree):
    """TREE's version, from its Makefile."""
    try:
        with open(os.path.join(tree, "Makefile")) as f:
            head = f.read(2000)
    except OSError:
        return "unknown"
    v = dict(re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d*)", head, re.M))
    return ".".join(v[k] for k in ("VERSION", "PATCHLEVEL", "SUBLEVEL") if v.get(k)) or "unknown"


def render(tree):
    """splats.txt's text for TREE."""
    rows = derive(tree)
    fams = sorted({f for f, _, _ in rows})
    out = ["# Kernel reports, derived from the Linux %s source by" % kernel_version(tree),
           "#   python3 -m verdict.splats TREE >verdict/splats.txt",
           "# (the rule: verdict/splats.py's docstring).  Generated: do not edit.",
           "# A family (## FILE) holds the messages FILE prints at the head of a",
           "# report, a line per message: REGEX<TAB>SITE[<TAB>SITE...], a SITE",
           "# FILE:LINE FUNCTION, \"(via LINE CALLER)\" if FUNCTION prints it in",
           "# CALLER's report.  verdict/ktap.py's splats are the REGEXes.",
           "# %d families, %d patterns" % (len(fams), len(rows))]
    for fam in fams:
        out.append("")
        out.append("## " + fam)
        for f, rx, sites in rows:
            if f == fam:
                out.append("\t".join([rx] + sites))
    return "\n".join(out) + "\n"


def load_rows(path):
    """The rows of a splats.txt: [(family, regex, [sites])]."""
    rows, family = [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                family = line[3:]
            elif line and not line.startswith("#"):
                fields = line.split("\t")
                rows.append((family, fields[0], fields[1:]))
    return rows


def load(path):
    """The regexes of a splats.txt (verdict/ktap.py's splats)."""
    return [rx for _, rx, _ in load_rows(path)]


def main(argv):
    if len(argv) == 2 and argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    if not os.path.isdir(os.path.join(argv[1], "kernel")):
        print("splats: %s is not a kernel tree (no kernel/)" % argv[1], file=sys.stderr)
        return 2
    sys.stdout.write(render(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
