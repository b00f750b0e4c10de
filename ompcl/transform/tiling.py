"""Tiling: a kernel body and its collapsed loop variables -> whether the blocked (CPU) shape
runs the two innermost collapsed loops in square tiles instead of rows.

A transposed access (one that strides along the innermost loop, its variable in an outer
subscript or scaled in the last, and runs along the next loop out, that variable alone and
unscaled in the last subscript: ``b[j][i]`` under ``for i, for j``) touches a new cache line
in every iteration of a row, and the next row the neighbouring element of each of those lines.
In rows of 1024 the lines are gone before the next row comes back for them; in tiles of
``TILE`` x ``TILE`` iterations a line is used by every row of the tile while it is cached.
Tiling reorders iterations only within a work-item; the kernels' iterations are independent
(the grid shape runs them in any order too), so the choice affects speed and, in a floating
point reduction, the order of a work-item's partial sum (which OpenMP leaves open as well).
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.ctypes_ import c_text, mentions, subscripts, walk
from ..analysis.index import form
from ..ir import Affine, Sym, SymKind

#: tile edge in iterations. Measured on PoCL (2 cores here), a 1024x1024 double transpose
#: over 64 work-items: rows 3.3 ms, tiles 8x64 1.65, 16x64 1.56, 32x32 1.53, 64x64 1.52;
#: at 1000x1000 (no power-of-two stride) rows 0.69, 32x32 0.38 (best), 64x64 0.49; float and
#: 2048x2048 alike. 32 rows of doubles fill four cache lines per strided column.
TILE = 32


def _accesses(body: c_ast.Node) -> list[list[c_ast.Node]]:
    """The subscript lists of every array access chain in ``body`` (nested ones too)."""
    inner = set()
    out = []
    for node in walk(body):
        if isinstance(node, c_ast.ArrayRef) and id(node) not in inner:
            _, subs = subscripts(node)
            sub = node.name
            while isinstance(sub, c_ast.ArrayRef):  # the chain's own links are not accesses
                inner.add(id(sub))
                sub = sub.name
            out.append(subs)
    return out


def _unit_coefficient(e: c_ast.Node, var: str, syms: dict[str, Sym]) -> bool:
    """True when ``e`` is ``+-var`` plus terms free of it (an affine form, other names taken
    as invariant)."""
    def resolve(name: str) -> Affine:
        return Affine.of(syms.get(name) or Sym(SymKind.VAR, name, name))

    def invariant(x: c_ast.Node) -> Sym | None:
        if any(mentions(v, x) for v in syms):
            return None
        return Sym(SymKind.EXPR, c_text(x), c_text(x))

    f = form(e, resolve, invariant)
    if f is None:
        return False
    s = syms[var]
    c = f.coef(s)
    return c.is_const and c.const in (1, -1) and all(m.count(s) <= 1 for m, _ in f.terms)


def _contiguous(subs: list[c_ast.Node], var: str, syms: dict[str, Sym]) -> bool:
    """Consecutive values of ``var`` touch neighbouring elements."""
    return not any(mentions(var, s) for s in subs[:-1]) and _unit_coefficient(
        subs[-1], var, syms)


def tiles(body: c_ast.Node, dims: tuple[str, ...]) -> bool:
    """True when some access of the kernel ``body`` (collapsed loop variables ``dims``,
    outermost first, by their device names) is transposed between the two innermost loops."""
    if len(dims) < 2:
        return False
    inner, outer = dims[-1], dims[-2]
    syms = {v: Sym(SymKind.DIM, v, k) for k, v in enumerate(dims)}
    for subs in _accesses(body):
        if not subs or not any(mentions(inner, s) for s in subs):
            continue
        if not _contiguous(subs, inner, syms) and _contiguous(subs, outer, syms):
            return True
    return False
