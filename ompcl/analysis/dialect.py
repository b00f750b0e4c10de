"""Code the host compiler reads otherwise: a loop's function and callees, and the lines of the
user's code that differ between ompcl's reading and the compiler's (``Program.diverging``)
-> a ``compiler-macros`` reason, or None.

ompcl reads a file with ``__GNUC__`` undefined (so that system headers stay within what the
parser knows); the host compiler defines it. Where the user's own code tests it
(``#ifdef __GNUC__``), the device version of a loop could compute what the other branch says.
A loop whose function or callees hold such a line, or whose file's declarations differ, stays
on the host.
"""
from __future__ import annotations

from pycparser import c_ast

from ..diagnostics import Reason
from .ctypes_ import walk


def _span(f: c_ast.FuncDef) -> tuple[str, int, int]:
    file = f.coord.file
    lines = [n.coord.line for n in walk(f) if getattr(n, "coord", None) is not None
             and n.coord.file == file]
    return file, min(lines), max(lines)


def dialect_reason(ast: c_ast.FileAST, diverging: frozenset, func: c_ast.FuncDef | None,
                   callees: list[c_ast.FuncDef]) -> Reason | None:
    if not diverging:
        return None
    spans = {id(f): _span(f) for f in ast.ext if isinstance(f, c_ast.FuncDef)}
    inside = {(file, line) for file, lo, hi in spans.values() for f2, line in diverging
              if f2 == file and lo <= line <= hi}
    mine = [_span(f) for f in [func, *callees] if f is not None]
    if diverging - inside or any(f2 == file and lo <= line <= hi for file, lo, hi in mine
                                 for f2, line in diverging):
        return Reason("compiler-macros", "its code reads otherwise under the host compiler's "
                      "predefined macros ('#ifdef __GNUC__', a target macro such as "
                      "'__AVX2__')")
    return None
