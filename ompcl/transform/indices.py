"""Pointers into one array as indices: a function's local pointers that only ever point into
one array (``low = &grid[k]``, ``high = low + 1``, in any branch) -> integer indices into it
(``low__i = k``, ``high__i = low__i + 1``; ``high->xs`` is ``grid[high__i].xs``).

Cross-section codes pick the element a lookup interpolates from in branches (XSBench's
``calculate_micro_xs``: ``low = &nuclide_grids[...]`` in each of three branches, then ``high =
low + 1``). A device function cannot hold pointers the analysis cannot follow; indices into
the parameter's array it can. The rewrite is exact: every value the pointer takes is the
array's address plus its index, and every use reads or writes through it.

A pointer qualifies when it is declared once in the function (one level, not a parameter),
every value given to it is ``&B[e]``, ``B + e``, ``B`` or such an expression of another
qualifying pointer of the same array ``B`` (a name the function never assigns), and every
other use is ``p->m``, ``*p`` or ``p[e]``. Functions that hold OpenMP directives are left as
they are (their loops are bound to their statements). The host keeps the user's text; only the
tree the analysis and the device code read changes.

Consumes the program's tree; produces a tree whose qualifying functions are rewritten copies.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.ctypes_ import walk
from ..analysis.dependence import written_names
from ..frontend.clone import clone, clone_with

SUFFIX = "__i"


def with_index_pointers(ast: c_ast.FileAST) -> c_ast.FileAST | None:
    """``ast`` with each function's qualifying pointers as indices; None when none
    qualifies."""
    ext, changed = [], False
    arrays = {e.name for e in ast.ext if isinstance(e, c_ast.Decl) and e.name and _array_like(e)}
    for e in ast.ext:
        new = _function(e, arrays) if isinstance(e, c_ast.FuncDef) else None
        changed |= new is not None
        ext.append(new if new is not None else e)
    return c_ast.FileAST(ext, ast.coord) if changed else None


def _pointer_decls(f: c_ast.FuncDef) -> dict[str, c_ast.Decl]:
    """The function's local one-level pointers declared once (by name)."""
    decls: dict[str, list[c_ast.Decl]] = {}
    for n in walk(f.body):
        if isinstance(n, c_ast.Decl) and n.name:
            decls.setdefault(n.name, []).append(n)
    params = {getattr(p, "name", None) for p in (f.decl.type.args.params
                                                 if f.decl.type.args else [])}
    return {k: v[0] for k, v in decls.items() if len(v) == 1 and k not in params
            and isinstance(v[0].type, c_ast.PtrDecl)
            and isinstance(v[0].type.type, c_ast.TypeDecl)}


def _origin(value: c_ast.Node | None) -> tuple[str, c_ast.Node] | None:
    """(name, offset) of a value ``&x[e]``, ``x + e``, ``x - e`` or ``x``."""
    zero = c_ast.Constant("int", "0")
    if isinstance(value, c_ast.Cast):
        return None
    if isinstance(value, c_ast.UnaryOp) and value.op == "&" and isinstance(
            value.expr, c_ast.ArrayRef) and isinstance(value.expr.name, c_ast.ID):
        return value.expr.name.name, value.expr.subscript
    if isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-"):
        inner = _origin(value.left)  # (grid + a) + b: the pointer leftmost
        if inner is None or isinstance(value.left, c_ast.BinaryOp) and value.left.op not in (
                "+", "-"):
            return None
        off = value.right if value.op == "+" else c_ast.UnaryOp("-", value.right)
        return inner[0], c_ast.BinaryOp("+", inner[1], off)
    if isinstance(value, c_ast.ID):
        return value.name, zero
    return None


def _definitions(f: c_ast.FuncDef, names: set[str]) -> dict[str, list[c_ast.Node]]:
    """Per pointer, the values given to it (declaration's and assignments')."""
    out: dict[str, list[c_ast.Node]] = {k: [] for k in names}
    for n in walk(f.body):
        if isinstance(n, c_ast.Decl) and n.name in names and n.init is not None:
            out[n.name].append(n.init)
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) and \
                n.lvalue.name in names:
            out[n.lvalue.name].append(n.rvalue if n.op == "=" else None)
    return out


def _uses_ok(f: c_ast.FuncDef, names: set[str]) -> set[str]:
    """The pointers whose every mention is a definition's target, ``p->m``, ``*p``,
    ``p[e]`` or the start of another one's value."""
    allowed: set[int] = set()
    for n in walk(f.body):
        if isinstance(n, c_ast.StructRef) and n.type == "->":
            allowed.add(id(n.name))
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":
            allowed.add(id(n.expr))
        elif isinstance(n, c_ast.ArrayRef):
            allowed.add(id(n.name))
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) and \
                n.lvalue.name in names:
            allowed.add(id(n.lvalue))
            allowed |= _value_ids(n.rvalue)
        elif isinstance(n, c_ast.Decl) and n.name in names and n.init is not None:
            allowed |= _value_ids(n.init)
    bad = {n.name for n in walk(f.body) if isinstance(n, c_ast.ID) and n.name in names
           and id(n) not in allowed}
    return names - bad


def _value_ids(value: c_ast.Node) -> set[int]:
    """The pointer operand of a value ``p``, ``p + e``, ``(p + e) - f``."""
    while isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-"):
        value = value.left
    return {id(value)} if isinstance(value, c_ast.ID) else set()


def _qualifying(f: c_ast.FuncDef, arrays: set[str]) -> dict[str, str]:
    """Pointer -> the array it points into, for the pointers that qualify (``arrays``: the
    names declared as arrays or pointers at file scope)."""
    decls = _pointer_decls(f)
    arrays = arrays | {n.name for n in walk(f.decl.type.args or c_ast.ParamList([]))
                       if isinstance(n, c_ast.Decl) and _array_like(n)}
    arrays |= {n.name for n in walk(f.body) if isinstance(n, c_ast.Decl) and _array_like(n)}
    names = _uses_ok(f, set(decls))
    written = written_names(f.body)
    while True:
        defs = _definitions(f, names)
        base: dict[str, str] = {}
        for p, values in defs.items():
            origins = [_origin(v) for v in values]
            if not values or any(o is None for o in origins):
                continue
            roots = {_root(o[0], defs, names) for o in origins}
            if len(roots) == 1 and None not in roots:
                b = roots.pop()
                if b not in written and b not in decls and b in arrays:
                    base[p] = b
        keep = set(base)
        if keep == names:
            return base
        names = _uses_ok(f, keep)


def _root(name: str, defs: dict[str, list], names: set[str], seen=()) -> str | None:
    """The array a value's name stands for: itself, or (a qualifying pointer) the array its
    own values start from."""
    if name not in names:
        return name
    if name in seen:
        return None
    roots = set()
    for v in defs.get(name, []):
        o = _origin(v)
        if o is None:
            return None
        roots.add(_root(o[0], defs, names, (*seen, name)))
    return roots.pop() if len(roots) == 1 else None


def _array_like(d: c_ast.Decl) -> bool:
    return isinstance(d.type, (c_ast.PtrDecl, c_ast.ArrayDecl))


def _function(f: c_ast.FuncDef, arrays: set[str]) -> c_ast.FuncDef | None:
    if any(isinstance(n, c_ast.Pragma) for n in walk(f)):
        return None
    base = _qualifying(f, arrays)
    declared = {n.name for n in walk(f) if isinstance(n, c_ast.Decl)}
    base = {p: b for p, b in base.items() if p + SUFFIX not in declared}
    if not base:
        return None
    return clone_with(f, lambda n: _rewritten(n, base))


def _index(p: str, coord) -> c_ast.ID:
    return c_ast.ID(p + SUFFIX, coord)


def _index_of(value: c_ast.Node, base: dict[str, str]) -> c_ast.Node:
    """The index a pointer value stands for."""
    name, off = _origin(value)
    off = clone_with(off, lambda n: _rewritten(n, base))
    if name in base:
        return c_ast.BinaryOp("+", _index(name, value.coord), off, value.coord)
    return off


def _rewritten(n: c_ast.Node, base: dict[str, str]) -> c_ast.Node | None:
    if isinstance(n, c_ast.Decl) and n.name in base:
        t = c_ast.TypeDecl(n.name + SUFFIX, [], None, c_ast.IdentifierType(["long"]))
        init = _index_of(n.init, base) if n.init is not None else None
        return c_ast.Decl(n.name + SUFFIX, [], [], [], [], t, init, None, n.coord)
    if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) and \
            n.lvalue.name in base:
        return c_ast.Assignment("=", _index(n.lvalue.name, n.coord),
                                _index_of(n.rvalue, base), n.coord)
    if isinstance(n, c_ast.StructRef) and n.type == "->" and isinstance(n.name, c_ast.ID) \
            and n.name.name in base:
        p = n.name.name
        return c_ast.StructRef(_element(base[p], _index(p, n.coord), n.coord), ".",
                               clone(n.field), n.coord)
    if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and \
            n.expr.name in base:
        return _element(base[n.expr.name], _index(n.expr.name, n.coord), n.coord)
    if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and \
            n.name.name in base:
        p = n.name.name
        sub = clone_with(n.subscript, lambda m: _rewritten(m, base))
        return _element(base[p], c_ast.BinaryOp("+", _index(p, n.coord), sub), n.coord)
    return None


def _element(array: str, index: c_ast.Node, coord) -> c_ast.ArrayRef:
    return c_ast.ArrayRef(c_ast.ID(array, coord), index, coord)
