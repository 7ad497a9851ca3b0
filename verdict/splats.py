#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The console verdict's kernel reports, derived from the kernel's source.

Usage: python3 -m verdict.splats TREE   (or: python3 verdict/splats.py TREE)

Prints, by family (the file that prints them), a regular expression for
each message of TREE (a Linux tree) that heads a kernel report, with its
sites (FILE:LINE FUNCTION, "via" the dumping function if a helper prints it).
verdict/splats.txt, its output on the pristine 7.3.4 tree, holds ktap.py's
splats (load()); a host test derives it again: it cannot go stale.

The rule.  A report is what the kernel prints with a stack dump or a panic.
The dumps are the calls of DUMPS, assertions without a message of the
constant true (WARN_ON(1): "dump the stack here"), and the calls of the
units (functions, function-like macros) of a file that count as dumps there:
* a unit that calls a dump dumps; it counts as a dump in its file if it
  does so at the top level of its body, or prints a head of its own (a
  helper that BUG()s on an impossible value, printing nothing first, does
  not make its callers report printers); across files only DUMPS count;
* a dumping unit's head is every message it prints on the way to a dump
  (before it, not in a branch that returns, jumps or breaks out of the
  switch or loop that holds the dump), and what the units of its file it
  calls there print whenever they run (at their top level, to CALLEE_DEPTH);
* a message counts if printed at KERN_WARNING or above (pr_warn(), dev_err(),
  printk() with such a level or none), its format a string literal or
  string macro (a config-dependent one a wildcard);
* a unit whose head prints its own parameter as the format (kmemleak_warn(),
  CHECK_DATA_CORRUPTION()) passes the report on: the literal format of each
  call of it is a head;
* a macro whose body is a WARN(1, ...) with a literal format (REFCOUNT_WARN(),
  DEBUG_LOCKS_WARN_ON()) names a family of WARNING reports: the format is a
  head (a parameter a wildcard); a plain WARN()'s message is not (__warn()'s
  "WARNING:" heads its report);
* a title that the heads of TITLE_FAMILIES families or more start with
  ("BUG: ", "WARNING: ", "INFO: ") is a head of its own: a message titled so
  is a report, dump or not (mm's "BUG: Bad rss-counter state").

A head's expression matches its format's first line: the pr_fmt() prefix
kept, the KERN_ level dropped, a conversion a wildcard (a number for %d, %u,
%x), wildcards at the ends dropped; one with too little text of its own to
name a report (MIN_SCORE) is dropped.  The scan covers the generic code
(GENERIC) and the architectures the project boots (ARCHES, ARCH_DIRS).
Exceptions, each with its reason: REPORTERS (a dump the rule cannot see),
EXPECTED (a report that is no bug), HAND (reports without a dump).
"""
import bisect
import functools
import glob
import itertools
import os
import pathlib
import re
import sys
from typing import Callable, Dict, Optional, Tuple

# the architectures the project boots, and the core every build compiles:
# the generic code (fs/'s top level, the pseudo file systems, the driver core)
# and an architecture's own kernel (traps, faults, oops printers, mm, entry)
ARCHES = ("x86", "arm", "arm64", "powerpc")
GENERIC = ("init", "kernel", "mm", "lib", "ipc", "block", "security", "fs/*.c", "fs/sysfs",
           "fs/kernfs", "fs/proc", "drivers/base", "include/linux", "include/asm-generic")
ARCH_DIRS = ("kernel", "mm", "lib", "entry", "include")
# the dumps: stack printers (this CPU's, a task's, other CPUs', a saved one),
# the register dump, the module list (printed only in reports), the panics
# (check_panic_on_warn(): the detectors' panic_on_warn), __warn(), BUG(), oops printers
DUMPS = set("""dump_stack dump_stack_lvl show_stack show_regs __show_regs sched_show_task
dump_cpu_task trigger_all_cpu_backtrace trigger_allbutcpu_cpu_backtrace trigger_single_cpu_backtrace
trigger_cpumask_backtrace nmi_trigger_cpumask_backtrace stack_trace_print print_modules panic vpanic
nmi_panic check_panic_on_warn __warn warn_slowpath_fmt BUG die __die die_addr""".split())
# assertions without a message (a dump if they assert true), the WARN()s
# with one (their second argument: a report of its own, under "WARNING:")
ASSERTS = {"WARN_ON", "WARN_ON_ONCE", "BUG_ON"}
WARNS = {"WARN", "WARN_ONCE", "WARN_RATELIMIT", "WARN_TAINT", "WARN_TAINT_ONCE"}
TRUE = {"1", "true"}
# report printers whose callers dump: what they print whenever they run is
# a head.  lib/bug.c's report_bug() prints BUG()'s "kernel BUG at" line;
# the trap handler then calls die() (x86 through handle_bug()).
REPORTERS = {"report_bug": "lib/bug.c"}
# reports with a stack dump but no bug (no heads, no dump): an allocation
# failed, which the caller handles and the kselftests' fault injection
# (fail_nth.sh) provokes (ktap.py lets warn_alloc's rate limit pass too)
EXPECTED = {"warn_alloc": "mm/page_alloc.c",  # the page allocator's and vmalloc's
            "pcpu_alloc_noprof": "mm/percpu.c",  # "percpu: allocation failed, size=..."
            "alloc_cpumask_var_node": "lib/cpumask.c",  # "=> alloc_cpumask_var: failed!"
            "__kmem_cache_create_args": "mm/slab_common.c"}  # "kmem_cache_create(...) failed"
# reports the console carries without a stack dump: (family, regex, why)
HAND = [
    ("mm/oom_kill.c", r": Killed process \d+ \(", "the OOM killer's kill: its stack dump "
     "(dump_header()) is rate limited (oom_rs), so a kill may come without one"),
    ("mm/kmemleak.c", r"kmemleak: \d+ new suspected memory leaks", "kmemleak prints its leak "
     "reports (each with a backtrace) in debugfs; this pr_info() is all the console gets of them"),
    ("mm/kmemleak.c", r"kmemleak: .*\bdisabled\b", "kmemleak turned off (kmemleak_disable(), "
     "kmemleak_do_cleanup()): leaks after it go unreported"),
]
# the print functions: name -> (index of the format argument, level, uses
# pr_fmt()); level None: the format's KERN_ prefix (none: KERN_WARNING)
PRINTS: Dict[str, Tuple[int, Optional[int], bool]] = {}
for _sfx in ("", "_once", "_ratelimited", "_deferred", "_deferred_once"):
    PRINTS["printk" + _sfx] = (0, None, False)
    for _n, _lvl in enumerate(("emerg", "alert", "crit", "err", "warn", "notice", "info", "debug")):
        PRINTS["pr_" + _lvl + _sfx] = (0, _n, True)
        PRINTS["dev_" + _lvl + _sfx] = (1, _n, False)
WARN_LEVEL = 4  # KERN_WARNING: a message at this level or above counts
CALLEE_DEPTH = 2  # callees of callees of callees: the depth searched
# what a pattern needs of its own to name a report: 3 letters, and a score (its
# characters but blanks, typed numbers (%d, %x), pieces of text after the first)
# of MIN_SCORE if its line starts with the format's text, else MIN_SCORE_INNER
MIN_SCORE, MIN_SCORE_INNER, TITLE_FAMILIES = 8, 10, 4
STR = r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\''
LEX_RE = re.compile(r"/\*.*?\*/|//[^\n]*|" + STR, re.S)
TOKEN_RE = re.compile(STR + r"|[{};]")
ARGS_RE = re.compile(STR + r"|[()\[\]{},]")
CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
DIRECTIVE_RE = re.compile(r"^[^\S\n]*#(?:.*\\\n)*.*", re.M)
DEFINE_RE = re.compile(r"#\s*define\s+([A-Za-z_]\w*)(\(([^)]*)\))?(.*)", re.S)
STRING_MACRO_RE = re.compile(r'^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+'
                             r'((?:[A-Za-z_]\w*[ \t]+)?"(?:\\.|[^"\\\n])*"[^\n]*)$', re.M)
CASE_RE = re.compile(r"(?<![\w:?])(?:case\b[^;{}:]*|default\s*):(?!:)")
JUMP_RE = re.compile(r"\b(return|goto|break|continue)\b")
# a printf conversion, or a wildcard's mark (to_regex())
CONV_RE = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?(hh|h|ll|l|L|z|Z|t|j)?"
                     r"([diouxXcspe%])([A-Za-z]*)|\x00")
HEX = r"[0-9a-fA-F]+"
CONV_RX = {"d": r"-?\d+", "i": r"-?\d+", "u": r"\d+", "x": HEX, "X": HEX, "o": "[0-7]+",
           "c": ".", "s": ".*"}  # any other (%p and its extension's letters, %e): .*
KEYWORDS = set("""if for while switch return sizeof typeof __typeof__ defined do else case
_Generic __attribute__ asm __asm__ volatile __builtin_expect""".split())
# the attribute macros with arguments in a function's header (and __no_sanitize*)
ATTRS = set("""__printf __scanf __attribute__ __section __aligned __must_hold __acquires __releases
__cond_acquires __cond_releases __alloc_size __diagnose_as __counted_by __assume_aligned __weak
__must_check __releases_shared __acquires_shared __context_unsafe __must_not_hold __guarded_by""".split())
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b"}
# a constant-true assertion, a WARN(1, ...) (quick test first: the tree writes no blanks in them)
true_assert = lambda text: ("(1)" in text or "(true)" in text) and \
    bool(re.search(r"\b(?:WARN_ON|WARN_ON_ONCE|BUG_ON)\s*\(\s*(?:1|true)\s*\)", text))
true_warn = lambda text: ("(1," in text or "(true," in text) and \
    bool(re.search(r"\bWARN\w*\s*\(\s*(?:1|true)\s*,", text))
params_of = lambda pieces: [q[1] for q in pieces if isinstance(q, tuple) and q[0] == "param"]
# a function: an offset of TEXT -> its line (1 + the newlines before it, thanks to the -1)
lines = lambda text: functools.partial(bisect.bisect_left, [-1] + [m.start() for m in re.finditer("\n", text)])


def unescape(lit):
    """The text of a C string literal (with its quotes)."""
    esc = lambda e: chr(int(e, 8)) if e[0] in "01234567" else \
        chr(int(e[1:], 16) & 0xff) if e[0] == "x" and e[1:] else ESCAPES.get(e, e)
    return re.sub(r"\\([0-7]{1,3}|x[0-9a-fA-F]*|.)", lambda m: esc(m.group(1)), lit[1:-1], flags=re.S)


def pairs(text, chars):
    """The matched (open, close) pairs of CHARS ("{}", "()") in TEXT."""
    out, stack = [], []
    for m in re.finditer("[%s]" % re.escape(chars), text):
        if m.group(0) == chars[0]:
            stack.append(m.start())
        elif stack:
            out.append((stack.pop(), m.start()))
    return out


def call_args(text, start):
    """The arguments of the call whose '(' is at START; whether it closes."""
    args, depth, parens, pos, end = [], 0, 0, start + 1, None
    for m in ARGS_RE.finditer(text, start):
        t = m.group(0)
        depth += 1 if t in "([{" else -1 if t in ")]}" else 0
        parens += 1 if t == "(" else -1 if t == ")" else 0
        if t == ")" and parens == 0:
            end = m.start()
            break
        if t == "," and depth == 1:
            args.append(text[pos:m.start()].strip())
            pos = m.end()
    last = text[pos:end].strip()
    return (args + [last] if last or args else args), end is not None


class Unit:
    """A function or function-like macro: name, parameters (a function's
    their names), body (masked: its literals blanked), the body's line."""

    def __init__(self, name, params, body, line, macro):
        self.name, self.params, self.body, self.line, self.macro = name, params, body, line, macro
        self.masked = re.sub(STR, lambda m: '"' + " " * (len(m.group(0)) - 2) + '"', body)

    @functools.cached_property
    def blocks(self):
        """[(open, close, kind)]: the body, a {...} (not a do {...} while (0)
        nor a ({...})), a case (label to label); kind loop, switch, case, ""."""
        masked, real = self.masked, []
        for o, c in sorted(pairs(masked, "{}")):
            before = masked[max(0, o - 400):o].rstrip()
            kw = re.search(r"\b(do)$", before)
            if before.endswith("(") or kw and re.match(r"\s*while\s*\(\s*0\s*\)", masked[c + 1:c + 40]):
                continue
            if before.endswith(")"):  # the keyword before the '(' of that ')'
                i = next((po for po, pc in pairs(before, "()") if pc == len(before) - 1), 0)
                kw = re.search(r"\b(switch|for|while|if)\s*$", before[:i])
            kind = kw.group(1) if kw else ""
            real.append((o, c, "loop" if kind in ("do", "for", "while") else kind))
        opens = list(real)
        for o, c, kind in real:  # a switch's cases: the labels in its own block
            if kind == "switch":
                labels = [m.start() for m in CASE_RE.finditer(masked, o + 1, c)
                          if not any(o < io < m.start() < ic < c for io, ic, _ in real)]
                opens += [(lab, (labels + [c])[k + 1], "case") for k, lab in enumerate(labels)]
        return [(0, len(masked), "")] + sorted(opens, key=lambda x: (x[0], -x[1]))

    @functools.cached_property
    def events(self):
        """The body's calls in order: (offset, name, args, chain)."""
        out = []
        for m in CALL_RE.finditer(self.masked):
            if m.group(1) not in KEYWORDS:
                args, closed = call_args(self.body, m.end() - 1)
                out.append((m.start(), m.group(1), args if closed else [], self.chain(m.start())))
        return out

    def chain(self, off):
        """The blocks around offset OFF, innermost first (0, the body, last)."""
        return tuple(b for b in range(len(self.blocks) - 1, -1, -1)
                     if b == 0 or self.blocks[b][0] < off < self.blocks[b][1])

    def leads_to(self, p, d):
        """Whether event P comes on the way to event D: before it, not in a
        branch that returns, jumps, breaks out of a switch or loop holding D."""
        if p[0] >= d[0]:
            return False
        for b in p[3]:
            if b in d[3]:
                return True
            for m in JUMP_RE.finditer(self.masked, p[0], self.blocks[b][1]):
                if m.group(1) in ("return", "goto"):
                    return False
                kinds = ("loop", "switch") if m.group(1) == "break" else ("loop",)
                target = next((t for t in self.chain(m.start()) if self.blocks[t][2] in kinds), None)
                if target is not None and target in d[3]:
                    return False
        return True

    def lineno(self, off):
        return self.line + self.body.count("\n", 0, off)


class Source:
    """One file: its units (names: the first of each), string macros and
    pr_fmt(); the units that dump (roots), and count as dumps (local)."""

    def __init__(self, path, text):
        self.path, self.units, self.strings, self.pr_fmt, self.roots, self.local = path, [], {}, None, set(), set()
        text = LEX_RE.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'"
                          else re.sub(r"[^\n]", " ", m.group(0)), text)
        line_at = lines(text)
        for m in DIRECTIVE_RE.finditer(text):
            self.directive(" ".join(l.rstrip("\\") for l in m.group(0).split("\n")).strip(), line_at(m.start()))
        code = DIRECTIVE_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
        line_at = lines(code)
        depth, start, head_from = 0, 0, 0
        for m in TOKEN_RE.finditer(code):  # the functions: a top-level {...} after a header
            if m.group(0) == "{":
                start = m.start() if depth == 0 else start
                depth += 1
            elif m.group(0) == "}":
                if depth == 1:
                    self.function(code[head_from:start], code[start + 1:m.end() - 1], line_at(start))
                    head_from = m.end()
                depth = max(depth - 1, 0)
            elif m.group(0) == ";" and depth == 0:
                head_from = m.end()
        self.names = {u.name: u for u in reversed(self.units)}

    def directive(self, d, line):
        m = DEFINE_RE.match(d)
        if not m:
            return
        name, params, body = m.group(1), m.group(3), m.group(4).strip()
        if params is None:
            if re.match(r'(?:[A-Za-z_]\w*\s+)?"', body):
                # defined otherwise under another #if: a run-time choice
                self.strings[name] = body if self.strings.get(name, body) == body else "?"
            return
        # a GNU named variadic parameter (x...) is x, last
        plist = [p[:-3].strip() if p.endswith("...") and p != "..." else p
                 for p in (p.strip() for p in params.split(",")) if p]
        if name == "pr_fmt" and plist:
            self.pr_fmt = (plist[0], body)
        else:
            self.units.append(Unit(name, plist, body, line, True))

    def function(self, head, body, line):
        # a body after parameters (and attributes): not after = nor struct NAME
        if not re.search(r"\)\s*(?:[A-Za-z_]\w*)?$", head[-200:].rstrip()):
            return
        for m in CALL_RE.finditer(head):
            name = m.group(1)
            if not (name in KEYWORDS or name in ATTRS or name.startswith("__no_sanitize")):
                params = [re.findall(r"[A-Za-z_]\w*", a)[-1:] for a in call_args(head, m.end() - 1)[0]]
                self.units.append(Unit(name, [p[0] for p in params if p], body, line, False))
                return


def tree_files(tree):
    """The scanned files of TREE, sorted (paths relative to TREE)."""
    dirs = GENERIC + tuple("arch/%s/%s" % (a, d) for a in ARCHES for d in ARCH_DIRS)
    pats = [d if d.endswith(".c") else d + "/**/*.[ch]" for d in dirs]
    return sorted({f for p in pats for f in glob.glob(p, root_dir=tree, recursive=True)
                   if os.path.isfile(os.path.join(tree, f))})


def level(pieces):
    """A message's level, from its KERN_ prefix (dropped from PIECES)."""
    if not isinstance(pieces[0], str):
        return (99 if pieces[0][0] == "wild" else WARN_LEVEL), pieces  # 99: given at run time
    n = 2 if len(pieces) > 1 and isinstance(pieces[1], str) else 1
    text = "".join(pieces[:n])
    if not text.startswith("\001") or len(text) < 2:
        return WARN_LEVEL, pieces  # the default
    return (int(text[1]) if text[1].isdigit() else 99), [text[2:]] + pieces[n:]  # 99: KERN_CONT


class Deriver:
    """The derivation over one tree.  A file is parsed once it can matter:
    it names a dump (or asserts true), or a unit that forwards its format."""

    def __init__(self, tree):
        # path -> text, of the files not parsed yet
        self.texts = {f: pathlib.Path(tree, f).read_text(errors="replace") for f in tree_files(tree)}
        self.strings = {}  # the headers' string macros (KERN_ERR, CUT_HERE...)
        for m in STRING_MACRO_RE.finditer("\n".join(t for p, t in self.texts.items() if p.startswith("include/"))):
            body = re.sub(r"/\*.*?\*/|//.*", "", m.group(2)).strip()
            if self.strings.setdefault(m.group(1), body) != body:
                self.strings[m.group(1)] = "?"
        self.sources, self.by_name = [], {}
        # regex -> its sites {(path, line, function)}; unit -> its parameters printed as a format
        self.heads, self.forwards = {}, {}
        self.parse_mentioning(DUMPS, True)
        for src in self.sources:  # a file's units that dump, and that count as dumps
            size = None
            while size != (len(src.roots), len(src.local)):
                size = (len(src.roots), len(src.local))
                for u in src.units:
                    if u.name in DUMPS or u.name in EXPECTED or u.name in src.local or \
                            not (any(n in u.body for n in DUMPS | src.local) or true_assert(u.masked)):
                        continue
                    dumps, _, found = self.collect(src, u)
                    if dumps:
                        src.roots.add(u.name)
                        if found or any(u.events[d][3] == (0,) for d in dumps):
                            src.local.add(u.name)

    def parse_mentioning(self, names, asserts=False):
        """Parse the files left that call one of NAMES (or, if ASSERTS, assert true)."""
        rx = re.compile(r"\b(?:%s)\s*\(" % "|".join(map(re.escape, names)))
        for path, text in sorted(self.texts.items()):
            if any(n in text for n in names) and rx.search(text) or \
                    asserts and (true_assert(text) or true_warn(text)):
                self.sources.append(Source(path, self.texts.pop(path)))
                for u in self.sources[-1].units:
                    self.by_name.setdefault(u.name, []).append(u)

    def fmt_template(self, unit, src, expr, use_pr_fmt, depth=0):
        """The format expression EXPR of a print in UNIT as pieces: text,
        ("param", index) or ("wild",); None if it is no format we can read."""
        if use_pr_fmt and src.pr_fmt is not None:
            p, body = src.pr_fmt
            expr = re.sub(r"\b%s\b" % re.escape(p), lambda m: "(" + expr + ")", body)
        pieces = []
        for t in re.findall(r'"(?:\\.|[^"\\\n])*"|[A-Za-z_]\w*(?:\s*\([^()]*\))?|\S', expr):
            name = re.match(r"[A-Za-z_]\w*", t)
            name = name.group(0) if name else ""
            body = src.strings.get(name) or self.strings.get(name)
            if t.startswith('"'):
                pieces.append(unescape(t))
            elif name and name in unit.params:
                pieces.append(("param", unit.params.index(name)))
            elif body:  # a string macro ("?": defined otherwise elsewhere)
                sub = None if body == "?" or depth > 8 else self.fmt_template(unit, src, body, False, depth + 1)
                pieces += sub if sub is not None else [("wild",)]
            elif name == "__VA_ARGS__" and unit.params[-1:] == ["..."]:
                pieces.append(("param", len(unit.params) - 1))
            elif name or t == "#":
                pieces.append(("wild",))
            elif t not in "()":
                return None
        return pieces if any(isinstance(p, str) or p[0] == "param" for p in pieces) else None

    def prints(self, unit, src, name, args):
        """What a call of NAME prints at KERN_WARNING or above (pieces), or None."""
        spec = PRINTS.get(name)
        pieces = self.fmt_template(unit, src, args[spec[0]], spec[2]) if spec and len(args) > spec[0] else None
        if spec is None or pieces is None:
            return None
        if spec[1] is None and isinstance(pieces[0], str) and pieces[0].startswith("%s") and len(args) > spec[0] + 1:
            # printk("%s...", lvl, ...): the level is the first argument
            lvl = self.fmt_template(unit, src, args[spec[0] + 1], False)
            if lvl is None or not isinstance(lvl[0], str):
                return None
            pieces = [lvl[0], pieces[0][2:]] + pieces[1:]
        lvl, pieces = level(pieces) if spec[1] is None else (spec[1], pieces)
        return pieces if lvl <= WARN_LEVEL else None

    def add(self, pieces, site):
        rx = to_regex(pieces) if pieces else None
        if rx is not None:
            self.heads.setdefault(rx, set()).add(site)

    def callee(self, src, name, dumping=False):
        """The unit of SRC a call of NAME runs, if it is no dump there (or if DUMPING)."""
        return None if name in DUMPS or name in EXPECTED or name in src.local and not dumping else src.names.get(name)

    def callee_prints(self, src, unit, depth, seen, dumping=False):
        """The messages UNIT prints whenever it runs (at its top level), and
        the units of SRC it calls there (dumps too if DUMPING), to DEPTH."""
        if unit in seen or depth < 0:
            return
        seen.add(unit)
        for off, name, args, chain in unit.events:
            if chain == (0,):
                pieces, sub = self.prints(unit, src, name, args), self.callee(src, name, dumping)
                if pieces is not None:
                    yield unit, off, pieces
                elif sub is not None:
                    yield from self.callee_prints(src, sub, depth - 1, seen, dumping)

    def collect(self, src, unit):
        """UNIT's dumps (indexes of its events), the events on the way to
        them, its head: (unit, offset, pieces, via: the callee's call)."""
        events, found = unit.events, []
        dumps = [i for i, (_, name, args, _) in enumerate(events)
                 if (bool(args) and args[0] in TRUE if name in ASSERTS else name in DUMPS or name in src.local)]
        way = {i for d in dumps for i in range(d) if unit.leads_to(events[i], events[d])}
        for i in sorted(way - set(dumps)):
            off, name, args, _ = events[i]
            pieces, sub = self.prints(unit, src, name, args), self.callee(src, name)
            if pieces is not None:
                found.append((unit, off, pieces, None))
            elif sub is not None:
                found += [(u, o, p, off) for u, o, p in self.callee_prints(src, sub, CALLEE_DEPTH, {unit})]
        return dumps, way, found

    def heads_of(self, src, unit):
        dumps, way, found = self.collect(src, unit)
        fwd = self.forwards.setdefault(unit, set())
        for u, o, pieces, via in found:
            if params_of(pieces):  # a format made of a parameter: its callers' are the heads
                fwd.update(params_of(pieces) if u is unit else ())
            else:
                site = u.name if via is None else "%s (via %d %s)" % (u.name, unit.lineno(via), unit.name)
                self.add(pieces, (src.path, u.lineno(o), site))
        for i in sorted(way | set(dumps)):
            self.forwarded_call(src, unit, unit.events[i], fwd)

    def forwarded_call(self, src, unit, event, fwd):
        """A call of a unit that forwards a format: a literal one is a head;
        a parameter of UNIT makes UNIT forward it (FWD)."""
        off, name, args, _ = event
        for callee in self.by_name.get(name, ()):
            for i in sorted(self.forwards.get(callee, ())):
                pieces = self.fmt_template(unit, src, args[i], False) if i < len(args) else None
                if pieces is None:
                    continue
                lvl, pieces = level(pieces)
                if lvl <= WARN_LEVEL:
                    fwd.update(params_of(pieces))
                    self.add(pieces, (src.path, unit.lineno(off), unit.name))

    def derive(self):
        for _ in range(4):  # forwarding reaches its callers in rounds
            before = sum(map(len, self.forwards.values()))
            for src in self.sources:
                for u in src.units:
                    if u.name in EXPECTED:
                        continue
                    if u.name in src.roots or u.name in DUMPS:
                        self.heads_of(src, u)
                    if REPORTERS.get(u.name) == src.path:
                        for c, o, pieces in self.callee_prints(src, u, CALLEE_DEPTH, set(), True):
                            self.add(pieces, (src.path, c.lineno(o), c.name))
            if sum(map(len, self.forwards.values())) == before:
                break
        fwd_names = {u.name for u, v in self.forwards.items() if v}
        self.parse_mentioning(fwd_names)
        for src in self.sources:
            for u in src.units:
                warns = u.macro and true_warn(u.masked)
                if not (warns or any(n in u.body for n in fwd_names)):
                    continue
                for e in u.events:
                    if warns and e[1] in WARNS and len(e[2]) > 1 and e[2][0] in TRUE:
                        # a macro whose body is a WARN*(1, ...) with a literal format
                        self.add(self.fmt_template(u, src, e[2][1], False), (src.path, u.lineno(e[0]), u.name))
                    if e[1] in fwd_names:
                        self.forwarded_call(src, u, e, set())
        return self.heads


# S in a regular expression (a tab, splats.txt's separator, as \x09)
literal: Callable[[str], str] = lambda s: re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group(0)),
                                                 re.sub(r"[.^$*+?{}\[\]\\|()]", r"\\\g<0>", s))


def conv_regex(m):
    """The regular expression of a printf conversion (CONV_RE's match M)."""
    flags, width, _, _, conv, ext = m.groups()
    if conv not in CONV_RX:
        return "%" + literal(ext) if conv == "%" else ".*"
    pad = " *" if width and conv not in "cs" and "0" not in flags and "-" not in flags else ""
    return pad + (r"(0[xX])?" if conv in "xX" and "#" in flags else "") + CONV_RX[conv] + literal(ext)


def to_regex(pieces):
    """The regular expression of a head's first line, or None (too little text)."""
    text = "".join(p.replace("\x00", "") if isinstance(p, str) else "\x00" for p in pieces)
    first = next((l for l in text.split("\n") if l.strip()), "")
    parts, pos = [], 0  # ("lit", text) and ("rx", regex); "\x00" a wildcard
    for m in CONV_RE.finditer(first):
        parts += [("lit", first[pos:m.start()]), ("rx", ".*" if m.group(0) == "\x00" else conv_regex(m))]
        pos = m.end()
    parts = [p for p in parts + [("lit", first[pos:])] if p[1]]
    # wildcards and blanks at the ends say nothing; a line that does not
    # start with the format's own text needs more of it
    keep = [i for i, (k, s) in enumerate(parts) if k == "lit" and s.strip()]
    if not keep:
        return None
    anchored, parts = keep[0] == 0, parts[keep[0]:keep[-1] + 1]
    parts[0] = ("lit", parts[0][1].lstrip())
    parts[-1] = ("lit", parts[-1][1].rstrip())
    lits = "".join(s for k, s in parts if k == "lit")
    numbers = sum(k == "rx" and s.endswith((r"\d+", HEX)) for k, s in parts)
    score = len("".join(lits.split())) + numbers + sum(k == "lit" for k, _ in parts) - 1
    if sum(c.isalpha() for c in lits) < 3 or score < (MIN_SCORE if anchored else MIN_SCORE_INNER):
        return None
    rx = [literal(s) if k == "lit" else s for k, s in parts]
    return "".join(r for i, r in enumerate(rx) if not (r == ".*" and i and rx[i - 1] == ".*"))


def derive(tree):
    """The derived list, [(family, regex, [sites])], with the titles and HAND."""
    rows, titles = {}, {}
    for rx, sites in Deriver(tree).derive().items():
        rows[(min(sites)[0], rx)] = ["%s:%d %s" % s for s in sorted(sites)]
        m = re.match(r"([A-Z][A-Za-z]+): ", rx)
        if m:
            titles.setdefault(m.group(1), set()).update(site[0] for site in sites)
    rows.update((("titles", r"\b%s: " % t), ["title of " + f for f in sorted(fams)])
                for t, fams in titles.items() if len(fams) >= TITLE_FAMILIES)
    rows.update(((fam, rx), ["by hand: " + why]) for fam, rx, why in HAND)
    return [(f, rx, sites) for (f, rx), sites in sorted(rows.items())]


def render(tree):
    """splats.txt's text for TREE."""
    makefile = pathlib.Path(tree, "Makefile")
    head = makefile.read_text()[:2000] if makefile.is_file() else ""
    version = ".".join(n for _, n in re.findall(r"^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d*)", head, re.M) if n)
    rows = derive(tree)
    out = ["# Kernel reports, derived from the Linux %s source by" % (version or "unknown"),
           "#   python3 -m verdict.splats TREE >verdict/splats.txt",
           "# (the rule: verdict/splats.py's docstring).  Generated: do not edit.",
           "# A family (## FILE) holds the messages FILE prints at the head of a",
           "# report, a line per message: REGEX<TAB>SITE[<TAB>SITE...], a SITE",
           "# FILE:LINE FUNCTION, \"(via LINE CALLER)\" if FUNCTION prints it in",
           "# CALLER's report.  verdict/ktap.py's splats are the REGEXes.",
           "# %d families, %d patterns" % (len({f for f, _, _ in rows}), len(rows))]
    for fam, group in itertools.groupby(rows, key=lambda r: r[0]):
        out += ["", "## " + fam] + ["\t".join([rx] + sites) for _, rx, sites in group]
    return "\n".join(out) + "\n"


def load_rows(path):
    """The rows of a splats.txt: [(family, regex, [sites])]."""
    rows, family = [], None
    for line in pathlib.Path(path).read_text().split("\n"):
        if line.startswith("## "):
            family = line[3:]
        elif line and not line.startswith("#"):
            rows.append((family, line.split("\t")[0], line.split("\t")[1:]))
    return rows


# the regexes of a splats.txt (verdict/ktap.py's splats)
load = lambda path: [rx for _, rx, _ in load_rows(path)]


def main(argv):
    if argv[1:] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    usage = len(argv) != 2 or argv[1].startswith("-")
    if usage or not os.path.isdir(os.path.join(argv[1], "kernel")):
        print(__doc__.split("\n\n")[1] if usage else "splats: %s is not a kernel tree (no kernel/)" % argv[1],
              file=sys.stderr)
        return 2
    sys.stdout.write(render(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
