"""Pointers derived from arrays inside a loop body or a block in it (an inner loop's body):
``double *rA = &a[i * m];`` then ``rA[j]``, as base plus offset; also a private pointer
assigned so (``rA = &rv[first_i];``, lavaMD) and used only after that in its block.

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
         c_ast.TypeDecl, c_ast.IdentifierType, c_ast.ArrayRef, c_ast.StructRef)


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


def _definition(item: c_ast.Node, loop: c_ast.Node, later: list[c_ast.Node],
                private: frozenset[str], scope: dict[str, Var]
                ) -> tuple[str, c_ast.Node] | None:
    """(pointer, value) of a block item ``T *p = value;``, or of ``p = value;`` where ``p`` is
    a plain pointer private to each iteration (in ``private``, or declared in ``loop``)
    that nothing else in the loop assigns and only the items after it (``later``) use."""
    if isinstance(item, c_ast.Decl) and item.name and _plain_pointer(item):
        return item.name, item.init
    if not (isinstance(item, c_ast.Assignment) and item.op == "=" and
            isinstance(item.lvalue, c_ast.ID)):
        return None
    name = item.lvalue.name
    v = scope.get(name)
    declared = [n for n in walk(loop) if isinstance(n, c_ast.Decl) and n.name == name]
    if len(declared) > 1 or not declared and (name not in private or v is None or not (
            isinstance(v.decl, c_ast.Decl) and _plain_pointer(v.decl))) or \
            declared and not _plain_pointer(declared[0]):
        return None
    uses = sum(1 for n in walk(loop) if isinstance(n, c_ast.ID) and n.name == name)
    after = sum(1 for x in later for n in walk(x) if isinstance(n, c_ast.ID) and n.name == name)
    if uses != after + 1 or name in names_written(c_ast.Compound(later)):
        return None
    return name, item.rvalue


def _candidates(body: c_ast.Compound, scope: dict[str, Var], written: set[str],
                loop: c_ast.Node | None = None, private: frozenset[str] = frozenset()
                ) -> dict[str, tuple[c_ast.Node, c_ast.Node, list[c_ast.Node]]]:
    """The body's top-level ``T *p = <array element address>;`` (or ``p = ...;``, see
    ``_definition``) whose base and subscripts nothing after it in the block or outside
    the block (``written``) changes, and which nothing assigns again."""
    out = {}
    items = body.block_items or []
    for k, item in enumerate(items):
        found = _definition(item, loop or body, items[k + 1:], private, scope)
        if found is None:
            continue
        name, value = found
        found = _target(value, scope)
        if found is None:
            continue
        base, subs = found
        names = {n.name for s in subs for n in walk(s) if isinstance(n, c_ast.ID)}
        if _fields(subs) & _written_fields(loop or body):
            continue  # a member the offset reads (lat->nx) may be written through another name
        changed = written | names_written(c_ast.Compound(items[k + 1:]))
        if isinstance(item, c_ast.Decl):
            changed |= names_written(body)
        if base.name in changed or names & changed or name in changed or not all(
                isinstance(n, _PURE) for s in subs for n in walk(s)) or any(
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&", "*")
                for s in subs for n in walk(s)):
            continue
        out[name] = (item, base, subs)
    return out


def _fields(subs: list[c_ast.Node]) -> set[str]:
    return {n.field.name for s in subs for n in walk(s) if isinstance(n, c_ast.StructRef)}


def _written_fields(node: c_ast.Node) -> set[str]:
    """The member names the code assigns or steps (``x.f = ..``, ``p->f++``), whatever the
    struct."""
    out = set()
    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr if isinstance(
            n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
        while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
            if isinstance(target, c_ast.StructRef):
                out.add(target.field.name)
            target = target.name
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


def _block(body: c_ast.Node, scope: dict[str, Var], written_outside: set[str],
           loop: c_ast.Node | None = None, private: frozenset[str] = frozenset()
           ) -> tuple[c_ast.Compound, dict] | None:
    """The first block of ``body`` (itself, then the blocks inside it, inner loops' bodies
    among them) declaring derived pointers, and those pointers: each block's pointers are
    declared again each time it is entered, so what the block itself writes is what may not
    change their base and subscripts; a name declared twice in the block is left alone."""
    for c in walk(body):
        if not isinstance(c, c_ast.Compound):
            continue
        ptrs = _candidates(c, scope, written_outside, loop, private)
        declared = [n.name for n in walk(c) if isinstance(n, c_ast.Decl)]
        ptrs = {k: v for k, v in ptrs.items() if declared.count(k) == (
            0 if isinstance(v[0], c_ast.Assignment) else 1)}
        if ptrs:
            return c, ptrs
    return None


def substituted(loop: c_ast.For, scope: dict[str, Var], private: frozenset[str] = frozenset()
                ) -> c_ast.For | None:
    """The loop with its derived pointers replaced (see module), or None (``private``: the
    variables the directive makes private to each iteration)."""
    if not isinstance(loop.stmt, c_ast.Compound):
        return None
    done = 0
    while done < 16:  # one block at a time: the blocks of a copy are the copy's
        found = _block(loop.stmt, scope, set(), loop.stmt, private)
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
