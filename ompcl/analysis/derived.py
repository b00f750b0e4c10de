"""Pointers derived from arrays inside a loop body or a block in it (an inner loop's body):
``double *rA = &a[i * m];`` then ``rA[j]``, as base plus offset; also a private pointer
assigned so (``rA = &rv[first_i];``, lavaMD) and used only after that in its block.

Consumes a candidate loop and the variables in scope; produces a copy of the loop in which
each such pointer is replaced by what it stands for (``rA[j]`` becomes ``a[(i * m) + (j)]``,
``*rA`` becomes ``a[i * m]``, ``p->m`` of ``p = &a[k]`` becomes ``a[k].m``, ``row[j]`` of
``double *row = A[i]`` becomes ``A[i][j]``; ``q = p + 1`` after it is ``a[k + 1]``) and its
declaration is gone (a use of its value, such as an argument, is ``&a[k]``, or ``a`` itself),
or None when the loop has none or a use is anything else (the pointer assigned again, its
address taken). The device version of the loop is
that copy; its subscripts then say which elements each iteration touches, as the original's
do through the pointer. The host keeps the original loop.
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from ..ir import Var
from .accesses import names_written
from .ctypes_ import pointer_depth, walk
from .walks import walked

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


def _from_derived(init: c_ast.Node | None, known: dict
                  ) -> tuple[c_ast.Node, list[c_ast.Node]] | None:
    """(base, subscripts) of a pointer derived from an earlier one of the block: ``p + e``,
    ``&p[e]`` or ``p`` of ``p = &a[k]`` designate ``a[k + e]``, ``a[k]``."""
    off = None
    if isinstance(init, c_ast.BinaryOp) and init.op in ("+", "-") and \
            isinstance(init.left, c_ast.ID) and init.left.name in known:
        p, off = init.left.name, init.right if init.op == "+" else c_ast.UnaryOp(
            "-", init.right)
    elif isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(
            init.expr, c_ast.ArrayRef) and isinstance(init.expr.name, c_ast.ID) and \
            init.expr.name.name in known:
        p, off = init.expr.name.name, init.expr.subscript
    elif isinstance(init, c_ast.ID) and init.name in known:
        p = init.name
    else:
        return None
    _, base, subs, dims = known[p]
    if dims:
        return None
    last = subs[-1] if off is None else c_ast.BinaryOp("+", subs[-1], off)
    return base, subs[:-1] + [last]


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
    if isinstance(item, c_ast.Decl) and item.name and (_plain_pointer(item) or view_dims(
            item.type) is not None):
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
        dims = view_dims(item.type) if isinstance(item, c_ast.Decl) else None
        found = _view_target(value, dims, item.type, scope) if dims else (
            _from_derived(value, out) or _target(value, scope))
        if found is None:
            continue
        base, subs = found
        dims = dims or []
        parts = [n for s in subs + dims for n in walk(s)]  # what the offset and rows read
        if _fields(subs + dims) & _written_fields(loop or body):
            continue  # a member the offset reads (lat->nx) may be written through another name
        names = {n.name for n in parts if isinstance(n, c_ast.ID)}
        changed = written | names_written(c_ast.Compound(items[k + 1:]))
        if isinstance(item, c_ast.Decl):
            changed |= names_written(body)
        if base.name in changed or names & changed or name in changed or not all(
                isinstance(n, _PURE) for n in parts) or any(
                isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&", "*")
                for n in parts):
            continue
        out[name] = (item, base, subs, dims)
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
        view = _view_element(n, ptrs, drop)
        if view is not None:
            return view
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and \
                n.name.name in ptrs and not ptrs[n.name.name][3]:
            _, base, subs, _ = ptrs[n.name.name]
            last = c_ast.BinaryOp("+", subs[-1], _rewrite(n.subscript, ptrs, drop))
            return _element(base, subs[:-1] + [last], n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(
                n.expr, c_ast.ID) and n.expr.name in ptrs and not ptrs[n.expr.name][3]:
            _, base, subs, _ = ptrs[n.expr.name]
            return _element(base, subs, n.coord)
        if isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(
                n.name, c_ast.ID) and n.name.name in ptrs and not ptrs[n.name.name][3]:
            _, base, subs, _ = ptrs[n.name.name]  # p->m of p = &a[k] is a[k].m
            return c_ast.StructRef(_element(base, subs, n.coord), ".", clone(n.field), n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(
                n.expr, c_ast.ID) and n.expr.name in ptrs:
            raise _Unsupported(n.expr.name)  # the pointer's own address
        if isinstance(n, c_ast.ID) and n.name in ptrs:
            _, base, subs, dims = ptrs[n.name]
            if dims:
                raise _Unsupported(n.name)
            if len(subs) == 1 and isinstance(subs[0], c_ast.Constant) and subs[0].value == "0":
                return clone(base)  # its value, passed on: the array itself
            return c_ast.UnaryOp("&", _element(base, subs, n.coord), n.coord)
        return None
    return clone_with(node, replace)


def view_dims(t: c_ast.Node) -> list[c_ast.Node] | None:
    """The row dimensions of a pointer to (variable-length) rows, ``T (*p)[n][m]`` ->
    [n, m]; else None."""
    if not isinstance(t, c_ast.PtrDecl) or not isinstance(t.type, c_ast.ArrayDecl):
        return None
    dims, t = [], t.type
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None:
            return None
        dims.append(t.dim)
        t = t.type
    ok = isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)
    return dims if ok else None


def _view_target(init: c_ast.Node | None, dims: list[c_ast.Node], t: c_ast.Node,
                 scope: dict[str, Var]) -> tuple[c_ast.Node, list[c_ast.Node]] | None:
    """(base, [offset]) of a view of a flat array as rows, ``(T (*)[n])a`` or ``(T
    (*)[n])(a + e)``: ``a`` a one-dimensional array of the rows' element type ``T``."""
    if not (isinstance(init, c_ast.Cast) and view_dims(init.to_type.type) is not None):
        return None
    inner = init.expr
    while isinstance(inner, c_ast.Cast) and view_dims(inner.to_type.type) is not None:
        inner = inner.expr
    found = _target(inner, scope) if not isinstance(inner, c_ast.ArrayRef) else None
    if found is None or len(found[1]) != 1:
        return None
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    v = scope.get(found[0].name)
    if v is None or " ".join(t.type.names) != v.ctype.base:
        return None  # other elements: the view reinterprets the bytes
    return found


def _view_element(n: c_ast.Node, ptrs: dict, drop: set[int]) -> c_ast.Node | None:
    """``p[a][b]`` of a view ``T (*p)[m]`` as ``base[off + a * m + b]``: exactly as many
    subscripts as the view has levels; None when ``n`` is not such an element."""
    subs, ref = [], n
    while isinstance(ref, c_ast.ArrayRef):
        subs.insert(0, ref.subscript)
        ref = ref.name
    if not (isinstance(ref, c_ast.ID) and ref.name in ptrs and ptrs[ref.name][3]):
        return None
    _, base, (off,), dims = ptrs[ref.name]
    if len(subs) != len(dims) + 1:
        raise _Unsupported(ref.name)  # a row used as a pointer
    flat = _rewrite(subs[0], ptrs, drop)
    for d, s in zip(dims, subs[1:]):
        flat = c_ast.BinaryOp("+", c_ast.BinaryOp("*", flat, clone(d)), _rewrite(s, ptrs, drop))
    return c_ast.ArrayRef(c_ast.ID(base.name, base.coord), c_ast.BinaryOp("+", clone(off), flat),
                          n.coord)


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
        # a pointer assigned in the block is private to it, or declared (without a value)
        # by the block itself: that declaration goes too
        bare = {n.name: n for n in c.block_items or [] if isinstance(n, c_ast.Decl)
                and n.init is None and n.name in ptrs}
        ptrs = {k: v for k, v in ptrs.items() if declared.count(k) == (
            (1 if k in bare else 0) if isinstance(v[0], c_ast.Assignment) else 1)}
        if ptrs:
            return c, ptrs, {id(d) for k, d in bare.items() if k in ptrs}
    return None


def substituted(loop: c_ast.For, scope: dict[str, Var], private: frozenset[str] = frozenset()
                ) -> c_ast.For | None:
    """The loop with its derived pointers replaced (see module), or None (``private``: the
    variables the directive makes private to each iteration)."""
    if not isinstance(loop.stmt, c_ast.Compound):
        return None
    moved = walked(loop)
    loop, done = moved or loop, int(moved is not None)
    while done < 16:  # one block at a time: the blocks of a copy are the copy's
        found = _block(loop.stmt, scope, set(), loop.stmt, private)
        if found is None:
            break
        block, ptrs, bare = found
        drop = {id(d) for d, _, _, _ in ptrs.values()} | bare
        try:
            loop = clone_with(loop, lambda n: _rewrite(n, ptrs, drop) if n is block else None)
        except _Unsupported:
            return None
        done += 1
    return loop if done else None
