"""Placement: offloadable ``Region`` s + the user's original text -> where each loop sits in
that text (``SpliceRange``), or the ``Reason`` it cannot be spliced (the loop then stays on
the host).

pycparser gives start coordinates only; the loop's end is found by statement matching on the
original text, and the outlined code goes before the start of the enclosing declaration.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.program import Program
from ..frontend.textscan import Scanner, ScanError
from ..ir import Region, SpliceRange
from .ctypes_ import walk


@dataclass(frozen=True)
class Placement:
    """The regions with their final verdicts, and the splice range of each offloaded one."""

    regions: tuple[Region, ...]
    ranges: dict[int, SpliceRange]


def splice_range(prog: Program, region: Region, scan: Scanner) -> SpliceRange | Reason:
    """The text range of a region, or the reason it cannot be spliced."""
    b = region.bound
    ploc, sloc = SourceLoc.of(b.pragma), SourceLoc.of(b.stmt)
    loc = region.loc
    if ploc.file != prog.path or sloc.file != prog.path:
        return Reason("macro-expansion", "the loop comes from a header or a macro expansion", loc)
    line = prog.lines[ploc.line - 1] if ploc.line <= len(prog.lines) else ""
    if "pragma" not in line or not line.lstrip().startswith("#"):
        return Reason("macro-expansion", "the directive comes from a macro expansion (_Pragma)",
                      loc)
    try:
        start = scan.offset(ploc.line, 1)
        stmt = _stmt_offset(prog, scan, sloc, b.stmt)
        if scan.skip(scan.line_end(start)) != stmt:
            return Reason("splice-text", "the loop does not directly follow its directive in "
                          "the source text", loc)
        end = scan.statement_end(stmt)
    except ScanError as e:
        why = "macro-expansion" if "macro" in str(e) else "splice-text"
        return Reason(why, f"cannot find the loop's extent in the source text ({e})", loc)
    fline = function_line(prog, b.func)
    if fline is None:
        return Reason("macro-expansion", "the enclosing function is not in the main file", loc)
    return SpliceRange(start, end, scan.offset(fline, 1), fline)


def _stmt_offset(prog: Program, scan: Scanner, loc: SourceLoc, stmt: c_ast.Node) -> int:
    want = "{" if isinstance(stmt, c_ast.Compound) else "for"
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


def place(prog: Program, regions: tuple[Region, ...]) -> Placement:
    """Find every offloadable loop's text; a loop whose text cannot be found stays on the host
    (this is the last step that may change a verdict)."""
    scan = Scanner(prog.source)
    out, ranges = [], {}
    for r in regions:
        if r.offload:
            rg = splice_range(prog, r, scan)
            if isinstance(rg, Reason):
                r = replace(r, reasons=(rg,))
            else:
                ranges[r.id] = rg
        out.append(r)
    return Placement(tuple(out), ranges)


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
