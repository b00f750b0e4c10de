"""Pointers walked by an inner loop's increment, as subscripts: Parboil's cutcp walks a lattice
row as ``pg = lattice + index; for (i = 0; i < n; i++, pg++) *pg += e;``. After ``k``
iterations of a loop whose variable starts at ``i0`` and steps by one, the pointer has
advanced ``k * c`` elements (its step ``c``), so ``*pg`` is ``pg[(i - i0) * c]`` and ``pg[j]``
is ``pg[(i - i0) * c + j]``; the loop then no longer moves the pointer, which the derived
pointers' pass (``analysis.derived``) turns into base plus offset.

Consumes a candidate loop; produces a copy in which every such inner loop is rewritten, or
None when it has none. An inner loop qualifies when its header is canonical with a step of
one, its increment is a comma list holding the variable's step, the pointers' steps (``p++``,
``++p``, ``p += c``, ``c`` a constant) and maybe other variables' steps (kept), the pointer
is only dereferenced or subscripted in the body, the pointer is set earlier in the same block
(each entry starts it afresh), its body neither assigns the pointer nor its variable nor the
start value's names, and nothing after it in its block names the pointer.
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from .accesses import names_written
from .ctypes_ import walk
from .loops import NotCanonical, canonical_loop, const_int


def walked(loop: c_ast.For) -> c_ast.For | None:
    """The loop with its inner loops' pointer walks as subscripts (see module), or None."""
    done = []

    def replace(n: c_ast.Node):
        if not isinstance(n, c_ast.Compound):
            return None
        items = list(n.block_items or [])
        changed = False
        for k, item in enumerate(items):
            new = _rewritten(item, items[:k], items[k + 1:]) if isinstance(
                item, c_ast.For) else None
            if new is not None:
                items[k], changed = new, True
        if not changed:
            return None
        done.append(True)
        return c_ast.Compound([clone_with(x, replace) for x in items], n.coord)
    new = clone_with(loop, replace)
    return new if done else None


def _rewritten(f: c_ast.For, earlier: list[c_ast.Node], later: list[c_ast.Node]
               ) -> c_ast.For | None:
    if not isinstance(f.next, c_ast.ExprList):
        return None
    try:
        dim = canonical_loop(c_ast.For(f.init, f.cond, f.next.exprs[0], f.stmt, f.coord))
    except NotCanonical:
        return None
    if const_int(dim.step) != 1:
        return None
    steps, rest = {}, []
    for e in f.next.exprs[1:]:
        found = _pointer_step(e)
        if found is not None and found[0] not in steps and found[0] != dim.var and \
                _only_dereferenced(found[0], f.stmt):
            steps[found[0]] = found[1]
        else:
            rest.append(e)  # another variable's step (dx += h) stays
    written = names_written(f.stmt) | names_written(c_ast.Compound([f.cond]))
    start = {n.name for n in walk(dim.lb) if isinstance(n, c_ast.ID)}
    if not steps or not set(steps) <= _defined(earlier) or \
            written & (set(steps) | {dim.var} | start) or any(
            isinstance(n, c_ast.ID) and n.name in steps for x in later for n in walk(x)) or any(
            isinstance(n, c_ast.ID) and n.name in steps for n in walk(f.cond)):
        return None
    moved = c_ast.BinaryOp("-", c_ast.ID(dim.var), clone(dim.lb))
    body = clone_with(f.stmt, lambda n: _use(n, steps, moved))
    step = c_ast.ExprList([f.next.exprs[0], *rest], f.next.coord) if rest else f.next.exprs[0]
    return c_ast.For(f.init, f.cond, step, body, f.coord)


def _only_dereferenced(name: str, body: c_ast.Node) -> bool:
    """Whether every mention of ``name`` in ``body`` is ``*name`` or ``name[..]`` (a pointer
    whose walk the subscripts can carry: nothing sees its value otherwise)."""
    uses = {id(n) for n in walk(body) if isinstance(n, c_ast.ID) and n.name == name}
    seen = {id(n.expr) for n in walk(body) if isinstance(n, c_ast.UnaryOp) and n.op == "*"} | {
        id(n.name) for n in walk(body) if isinstance(n, c_ast.ArrayRef)}
    return uses <= seen


def _defined(items: list[c_ast.Node]) -> set[str]:
    """The variables the block's items set from scratch (``T *p = e;``, ``p = e;``): the
    pointer starts afresh each time the block runs, so where the walk leaves it matters to
    nothing before its next definition."""
    out = set()
    for x in items:
        if isinstance(x, c_ast.Decl) and x.init is not None:
            out.add(x.name)
        elif isinstance(x, c_ast.Assignment) and x.op == "=" and isinstance(x.lvalue, c_ast.ID):
            out.add(x.lvalue.name)
    return out


def _pointer_step(e: c_ast.Node) -> tuple[str, int] | None:
    """(pointer, elements) of ``p++``, ``++p``, ``p += c``."""
    if isinstance(e, c_ast.UnaryOp) and e.op in ("p++", "++") and isinstance(e.expr, c_ast.ID):
        return e.expr.name, 1
    if isinstance(e, c_ast.Assignment) and e.op == "+=" and isinstance(e.lvalue, c_ast.ID):
        c = const_int(e.rvalue)
        return (e.lvalue.name, c) if c is not None and c > 0 else None
    return None


def _use(n: c_ast.Node, steps: dict[str, int], moved: c_ast.Node) -> c_ast.Node | None:
    """``*p`` -> ``p[moved * c]``, ``p[j]`` -> ``p[moved * c + j]``; other nodes as they are."""
    def at(name: str) -> c_ast.Node:
        return c_ast.BinaryOp("*", clone(moved), c_ast.Constant("int", str(steps[name])))
    if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and \
            n.expr.name in steps:
        return c_ast.ArrayRef(c_ast.ID(n.expr.name), at(n.expr.name), n.coord)
    if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and n.name.name in steps:
        sub = clone_with(n.subscript, lambda x: _use(x, steps, moved))
        return c_ast.ArrayRef(c_ast.ID(n.name.name), c_ast.BinaryOp("+", at(n.name.name), sub),
                              n.coord)
    return None
