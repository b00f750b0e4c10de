"""Pointers derived from arrays inside a loop body or a block in it (an inner loop's body):
``double *rA = &a[i * m];`` then ``rA[j]``, as base plus offset.

Consumes a candidate loop and the variables in scope; produces a copy of the loop in which
each such pointer is replaced by what it stands for (``rA[j]`` becomes ``a[(i * m) + (j)]``,
``*rA`` becomes ``a[i * m]``, ``row[j]`` of ``double *row = A[i]`` becomes ``A[i][j]``) and its
declaration is gone, or None when the loop has none or a use is anything else (the pointer
assigned again, its address taken, passed as a value). The device version of the loop is
that copy; its subscripts then say which elements each iteration touches, as the original's
do through the pointer. The host keeps the original loop.
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone_with
from ..ir import Var
from .accesses import names_written
from .ctypes_ import pointer_depth, walk

_PURE = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.Cast, c_ast.Typename,
         c_ast.TypeDecl, c_ast.IdentifierType, c_ast.ArrayRef)


def _target(init: c_ast.Node | None, scope: dict[str, Var]
            ) -> tuple[c_ast.Node, list[c_ast.Node]] | None:
    """(base, subscripts) of what a pointer's initial value designates: ``&A[s]..[t]``
    -> (A, [s, .., t]); ``A + e`` -> (A, [e]); ``A`` -> (A, [0]); ``A[i]`` of an array of
    rows -> (A, [i, 0]) (``A[i][j]`` of a rank-3 array -> (A, [i, j, 0])). The last subscript
    is where the pointer's own subscript adds."""
    zero = c_ast.Constant("int", "0")
    if isinstance(init, c_ast.Cast):
        return None
    if isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr,
                                                                       c_ast.ArrayRef):
        subs, base = [], init.expr
        while isinstance(base, c_ast.ArrayRef):
            subs.insert(0, base.subscript)
            base = base.name
        return (base, subs) if isinstance(base, c_ast.ID) else None
    if isinstance(init, c_ast.BinaryOp) and init.op == "+":
        for base, off in ((init.left, init.right), (init.right, init.left)):
            if isinstance(base, c_ast.ID) and _rank(base.name, scope) == 1:
                return base, [off]
        return None
    if isinstance(init, c_ast.ID) and _rank(init.name, scope) == 1:
        return init, [zero]
    if isinstance(init, c_ast.ArrayRef):  # a row: A[i] of rank 2, A[i][j] of rank 3, ...
        subs, base = [], init
        while isinstance(base, c_ast.ArrayRef):
            subs.insert(0, base.subscript)
            base = base.name
        if isinstance(base, c_ast.ID) and _rank(base.name, scope) == len(subs) + 1:
            return base, subs + [zero]
    return None


def _rank(name: str, scope: dict[str, Var]) -> int:
    v = scope.get(name)
    if v is None:
        return 0
    if v.ctype.base == "?":  # a pointer tree (``double **m``: m[i] is a row)
        depth = pointer_depth(getattr(v.decl, "type", None))[0]
        return depth if depth >= 2 else 0
    return len(v.ctype.dims) + (1 if v.ctype.pointer else 0)


def _plain_pointer(d: c_ast.Decl) -> bool:
    t = d.type
    return isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.TypeDecl) and \
        isinstance(t.type.type, c_ast.IdentifierType)


def _candidates(body: c_ast.Compound, scope: dict[str, Var], written: set[str]
                ) -> dict[str, tuple[c_ast.Decl, c_ast.Node, list[c_ast.Node]]]:
    """The body's top-level ``T *p = <array element address>;`` whose base and subscripts the
    loop does not change, and which nothing assigns again."""
    out = {}
    for item in body.block_items or []:
        if not (isinstance(item, c_ast.Decl) and item.name and _plain_pointer(item)):
            continue
        found = _target(item.init, scope)
        if found is None:
            continue
        base, subs = found
        names = {n.name for s in subs for n in walk(s) if isinstance(n, c_ast.ID)}
        if base.name in written or names & written or item.name in written or not all(
                isinstance(n, _PURE) for s in subs for n in walk(s)) or any(
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&", "*")
                for s in subs for n in walk(s)):
            continue
        out[item.name] = (item, base, subs)
    return out


class _Unsupported(Exception):
    """A use of a derived pointer other than a subscript or a dereference."""


def _rewrite(node, ptrs, drop: set[int]):
    """A copy of ``node`` with the derived pointers' uses replaced and their declarations
    made empty."""
    def replace(n: c_ast.Node) -> c_ast.Node | None:
        if id(n) in drop:
            return c_ast.EmptyStatement(n.coord)
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and \
                n.name.name in ptrs:
            _, base, subs = ptrs[n.name.name]
            last = c_ast.BinaryOp("+", subs[-1], _rewrite(n.subscript, ptrs, drop))
            return _element(base, subs[:-1] + [last], n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(
                n.expr, c_ast.ID) and n.expr.name in ptrs:
            _, base, subs = ptrs[n.expr.name]
            return _element(base, subs, n.coord)
        if isinstance(n, c_ast.ID) and n.name in ptrs:
            raise _Unsupported(n.name)
        return None
    return clone_with(node, replace)


def _element(base: c_ast.ID, subs: list[c_ast.Node], coord) -> c_ast.ArrayRef:
    out: c_ast.Node = c_ast.ID(base.name, base.coord)
    for s in subs:
        out = c_ast.ArrayRef(out, s, coord)
    return out


def _block(body: c_ast.Node, scope: dict[str, Var], written_outside: set[str]
           ) -> tuple[c_ast.Compound, dict] | None:
    """The first block of ``body`` (itself, then the blocks inside it, inner loops' bodies
    among them) declaring derived pointers, and those pointers: each block's pointers are
    declared again each time it is entered, so what the block itself writes is what may not
    change their base and subscripts; a name declared twice in the block is left alone."""
    for c in walk(body):
        if not isinstance(c, c_ast.Compound):
            continue
        ptrs = _candidates(c, scope, names_written(c) | written_outside)
        declared = [n.name for n in walk(c) if isinstance(n, c_ast.Decl)]
        ptrs = {k: v for k, v in ptrs.items() if declared.count(k) == 1}
        if ptrs:
            return c, ptrs
    return None


def substituted(loop: c_ast.For, scope: dict[str, Var]) -> c_ast.For | None:
    """The loop with its derived pointers replaced (see module), or None."""
    if not isinstance(loop.stmt, c_ast.Compound):
        return None
    done = 0
    while done < 16:  # one block at a time: the blocks of a copy are the copy's
        found = _block(loop.stmt, scope, set())
        if found is None:
            break
        block, ptrs = found
        drop = {id(d) for d, _, _ in ptrs.values()}
        try:
            loop = clone_with(loop, lambda n: _rewrite(n, ptrs, drop) if n is block else None)
        except _Unsupported:
            return None
        done += 1
    return loop if done else None
