"""Placement: offloadable ``Region`` s + the user's original text -> where each loop sits in
that text (``SpliceRange``), or the ``Reason`` it cannot be spliced (the loop then stays on
the host).

pycparser gives start coordinates only; the loop's end is found by statement matching on the
original text, and the outlined code goes before the start of the enclosing declaration.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.program import Program
from ..frontend.textscan import Scanner, ScanError
from ..ir import Region, SpliceRange, Team
from .ctypes_ import walk


@dataclass(frozen=True)
class Placement:
    """The regions and teams with their final verdicts, and the splice range of each
    offloaded one (a team's loops are spliced inside the team's device version)."""

    regions: tuple[Region, ...]
    ranges: dict[int, SpliceRange]
    teams: tuple[Team, ...] = ()
    team_ranges: dict[int, SpliceRange] = field(default_factory=dict)


def splice_range(prog: Program, region: Region | Team, scan: Scanner) -> SpliceRange | Reason:
    """The text range of a region or team, or the reason it cannot be spliced."""
    b = region.bound
    ploc, sloc = SourceLoc.of(b.pragma), SourceLoc.of(b.stmt)
    loc = region.loc
    if ploc.file != prog.path or sloc.file != prog.path:
        why = prog.not_inlined.get(ploc.file)
        return Reason("macro-expansion", f"the loop comes from {ploc.file}, an included file "
                      f"ompcl does not inline: {why}" if why else
                      "the loop comes from a header or a macro expansion", loc)
    line = prog.lines[ploc.line - 1] if ploc.line <= len(prog.lines) else ""
    if ("pragma" not in line or not line.lstrip().startswith("#")) and \
            not _MACRO_LINE.fullmatch(line.strip()):
        return Reason("macro-expansion", "the directive comes from a macro expansion (_Pragma)",
                      loc)
    try:
        start = scan.offset(ploc.line, 1)
        stmt = _stmt_offset(prog, scan, sloc, b.stmt)
        if scan.skip(scan.line_end(start)) != stmt:
            return Reason("splice-text", "the loop does not directly follow its directive in "
                          "the source text", loc)
        end = scan.statement_end(stmt)
        reopen: tuple[str, ...] = ()
        try:
            start, end = balanced(scan, start, end)
        except ScanError:
            if isinstance(region, Team) or region.context == "region":
                raise   # a team's text is copied whole: no split conditional in it
            reopen = reopened(scan, start, stmt, end)
    except ScanError as e:
        why = "macro-expansion" if "macro" in str(e) else "splice-text"
        return Reason(why, f"cannot find the loop's extent in the source text ({e})", loc)
    fline = function_line(prog, b.func)
    if fline is None:
        return Reason("macro-expansion", "the enclosing function is not in the main file", loc)
    # outlined code goes before the whole declaration: its storage class and return type may
    # stand on the lines above the name
    fstart = scan.declaration_start(scan.offset(fline, 1))
    return SpliceRange(start, end, fstart, scan.line_of(fstart), reopen)


#: a line that is one macro's use, whose expansion is the directive (``PRAGMA_OMP_FOR_SIMD``,
#: ``PRAGMA(omp parallel for)`` expanding to ``_Pragma``): the host keeps it as written
_MACRO_LINE = re.compile(r"[A-Za-z_]\w*\s*(\(.*\))?\s*(//.*|/\*.*\*/)?")

_OPENERS = ("if", "ifdef", "ifndef")
_ELSES = ("else", "elif", "elifdef", "elifndef")


def balanced_start(scan: Scanner, start: int, stmt: int, closed: bool = True) -> int:
    """The splice start moved up over the conditional lines that open what the lines between
    ``start`` and ``stmt`` close (``#ifdef _OPENMP`` / pragma / ``#endif`` / loop), so the
    spliced text keeps its preprocessor conditionals balanced; with ``closed``, a
    conditional that opens there and is not closed is a ScanError."""
    need, depth = 0, 0
    for line in range(scan.line_of(start), scan.line_of(stmt) + 1):
        off = scan.offset(line, 1)
        if not start <= off < stmt:
            continue
        word = scan.directive_line(off)
        if word in _OPENERS:
            depth += 1
        elif word == "endif":
            depth -= 1
        elif word in _ELSES and depth <= 0:
            need = max(need, 1 - depth)
        need = max(need, -depth)
    if closed and depth > need:
        raise ScanError("a preprocessor conditional opens between the directive and its loop")
    line = scan.line_of(start)
    while need > 0:
        line -= 1
        if line < 1:
            raise ScanError("unbalanced preprocessor conditional")
        word = _passable(scan, line, "the directive is inside a preprocessor conditional "
                         "that also holds other code")
        if word in _OPENERS:
            need -= 1
        elif word == "endif":
            need += 1
        start = scan.offset(line, 1)
    return start


def reopened(scan: Scanner, start: int, stmt: int, end: int) -> tuple[str, ...]:
    """The conditional lines to repeat before a region's text when its directive stands in
    conditionals that also hold code above it (Rodinia's ``#ifdef OPEN`` /
    ``omp_set_num_threads(4);`` / ``#pragma omp parallel for`` / ``#endif`` / loop): the
    splice closes them before the directive (the code above stays conditional) and its
    copies of the text open them again (outermost first). Only ``#endif`` lines may stand
    between the directive and its loop, and only code, blank lines, pragmas and whole
    conditionals between the directive and the lines opening what they close (no
    ``#define``, no ``#else`` of those): the conditions then mean the same at both places.
    ScanError otherwise."""
    need = 0
    for line in range(scan.line_of(start), scan.line_of(stmt)):
        word = scan.directive_line(scan.offset(line, 1))
        if word is not None and word != "endif" and word != "pragma":
            raise ScanError("a preprocessor conditional opens between the directive and its "
                            "loop")
        need += word == "endif"
    depth = 0
    for line in range(scan.line_of(stmt), scan.line_of(end) + 1):
        word = scan.directive_line(scan.offset(line, 1))
        depth += 1 if word in _OPENERS else -1 if word == "endif" else 0
        if depth < 0:
            raise ScanError("the loop ends outside the preprocessor conditional it starts in")
    if depth or not need:
        raise ScanError("unbalanced preprocessor conditional around the loop")
    openers: list[str] = []
    line, depth = scan.line_of(start), 0
    while len(openers) < need:
        line -= 1
        if line < 1:
            raise ScanError("unbalanced preprocessor conditional")
        off = scan.offset(line, 1)
        word = scan.directive_line(off)
        if word is None or word == "pragma" or line in scan.inactive:
            continue
        text = scan.text[off:scan.line_end(off)]
        if word in _OPENERS and depth == 0 and "__LINE__" not in text and \
                "__COUNTER__" not in text:
            openers.insert(0, text)
        elif word in _OPENERS and depth > 0:
            depth -= 1
        elif word == "endif":
            depth += 1
        elif not (word in _ELSES and depth > 0):
            raise ScanError("the directive is inside a preprocessor conditional that also "
                            f"holds other code and a '#{word}' line")
    return tuple(openers)


def _passable(scan: Scanner, line: int, why: str) -> str | None:
    """The conditional directive of a line a range may be widened over, None for a blank
    line or one of a skipped branch; ScanError for a line of code or another directive."""
    off = scan.offset(line, 1)
    word = scan.directive_line(off)
    if word in _OPENERS or word in _ELSES or word == "endif":
        return word
    if line in scan.inactive or word is None and scan.skip(off) > scan.line_end(off):
        return None
    raise ScanError(why)


def balanced(scan: Scanner, start: int, end: int) -> tuple[int, int]:
    """The range ``[start, end)`` widened to whole preprocessor conditionals: up over the
    lines opening what it closes (``#ifdef _OPENMP`` / pragma / ``#endif`` / loop), down
    over the lines closing what it opens (a region whose closing brace is in an ``#if``
    branch, with another branch after it), so that the text a splice removes, and the copy
    it makes, never splits a conditional. Only conditional lines, blank lines and skipped
    branches may be taken in; ScanError where other code stands in the way."""
    start = balanced_start(scan, start, end, closed=False)
    depth = 0
    for line in range(scan.line_of(start), scan.line_of(end) + 1):
        off = scan.offset(line, 1)
        if start <= off < end:
            word = scan.directive_line(off)
            depth += 1 if word in _OPENERS else -1 if word == "endif" else 0
    if depth <= 0:
        return start, end
    if scan.skip(end) <= scan.line_end(end) < len(scan.text):
        raise ScanError("the loop ends inside a preprocessor conditional, before other code "
                        "on its line")
    line = scan.line_of(end)
    while depth > 0:
        line += 1
        if line > len(scan.starts):
            raise ScanError("unterminated preprocessor conditional")
        word = _passable(scan, line, "the loop ends inside a preprocessor conditional that "
                         "also holds other code")
        depth += 1 if word in _OPENERS else -1 if word == "endif" else 0
        end = scan.line_end(scan.offset(line, 1))
    return start, end


def _stmt_offset(prog: Program, scan: Scanner, loc: SourceLoc, stmt: c_ast.Node) -> int:
    items = stmt.block_items or [] if isinstance(stmt, c_ast.Compound) else []
    if items and isinstance(items[0], c_ast.Pragma) and not prog.source.startswith(
            "{", scan.offset(loc.line, loc.col)):
        # a directive and its statement, the statement of the directive before them (no
        # braces in the text: the front end grouped them): the text starts at the innermost
        # statement, after the directive lines
        return _stmt_offset(prog, scan, SourceLoc.of(items[-1]), items[-1])
    want = "{" if isinstance(stmt, c_ast.Compound) else "for" if isinstance(
        stmt, c_ast.For) else None
    if want is None:  # another statement: trust the coordinates
        return scan.offset(loc.line, loc.col)
    off = scan.offset(loc.line, loc.col)
    if prog.source.startswith(want, off):
        return off
    line_start = scan.offset(loc.line, 1)
    line = prog.lines[loc.line - 1]
    if line.count(want) == 1:
        return line_start + line.index(want)
    raise ScanError("the loop comes from a macro expansion")


def function_line(prog: Program, func: c_ast.FuncDef | None) -> int | None:
    """First line of a function's declaration in the main file (its parameters excluded)."""
    if func is None:
        return None
    params = func.decl.type.args
    exclude = {id(n) for n in walk(params)} if params is not None else set()
    lines = [n.coord.line for n in walk(func.decl) if id(n) not in exclude
             and getattr(n, "coord", None) is not None and n.coord.file == prog.path]
    return min(lines) if lines else None


def place(prog: Program, regions: tuple[Region, ...], teams: tuple[Team, ...] = ()
          ) -> Placement:
    """Find every offloadable loop's and team's text; what cannot be found stays on the host,
    and so do a team none of whose loops runs on the device and the loops of a team that runs
    on the host (this is the last step that may change a verdict). A team's loops that stay on
    the host are its ``serial`` ones."""
    scan = prog.scanner()
    out, ranges = {}, {}
    for r in regions:
        if r.offload:
            rg = splice_range(prog, r, scan)
            if isinstance(rg, Reason):
                r = replace(r, reasons=(rg,))
            else:
                ranges[r.id] = rg
        out[r.id] = r
    placed, team_ranges = [], {}
    for t in teams:
        rg = splice_range(prog, t, scan) if t.offload else None
        serial = tuple(k for k in t.loops if not out[k].offload)
        why = list(t.reasons) + ([rg] if isinstance(rg, Reason) else []) + ([
            Reason("team-loop", f"its loop at line {out[k].loc.line} stays on the host "
                   f"({out[k].reasons[0].message})", t.loc) for k in serial]
            if t.loops and len(serial) == len(t.loops) else []) + [
            Reason("team-loop", f"its loop at line {out[k].loc.line} stays on the host and its "
                   "directive is not a line of this file (the team of one could not run it "
                   "with a team of its own)", t.loc)
            for k in serial if serial_span(prog, scan, out[k].bound.pragma) is None]
        if why:
            t = replace(t, reasons=tuple(dict.fromkeys(why)))
            for k in t.loops:
                if out[k].offload:
                    out[k] = replace(out[k], reasons=(Reason(
                        "team", f"its parallel region at line {t.loc.line} runs on the host "
                        f"({t.reasons[0].message})", out[k].loc),))
                    ranges.pop(k, None)
        else:
            t = replace(t, serial=serial)
            team_ranges[t.id] = rg
        placed.append(t)
    return Placement(tuple(out.values()), ranges, tuple(placed), team_ranges)


def serial_span(prog: Program, scan: Scanner, pragma: c_ast.Node) -> tuple[int, int] | None:
    """The text of a work-sharing loop from its directive ``pragma``, a ``#pragma omp for``
    line of the main file (not a macro's ``_Pragma``), to its statement's end; None where it
    cannot be found (its directive then cannot be rewritten in place)."""
    loc = SourceLoc.of(pragma)
    if loc.file != prog.path or not 1 <= loc.line <= len(prog.lines):
        return None
    words = prog.lines[loc.line - 1].replace("#", " ", 1).split()
    if words[:3] != ["pragma", "omp", "for"]:
        return None
    try:
        start = scan.offset(loc.line, 1)
        return start, scan.statement_end(scan.skip(scan.line_end(start)))
    except ScanError:
        return None


def loop_text(prog: Program, scan: Scanner, loop: c_ast.Node) -> tuple[int, int] | None:
    """Start and end offsets of a loop statement in the main file, or None."""
    loc = SourceLoc.of(loop)
    try:
        if loc.file != prog.path:
            return None
        start = scan.offset(loc.line, loc.col)
        if not prog.source.startswith(("for", "while", "do"), start):
            return None
        return start, scan.statement_end(start)
    except ScanError:
        return None
