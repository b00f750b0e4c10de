"""Typed projections of a translated kernel (``ompcl.ir.KernelSpec``, its body a pycparser
tree) for tests: which global elements it reads and writes where, and which OpenCL vector
accesses it makes; asserted on instead of the printed kernel's text."""
from __future__ import annotations

from collections import Counter

from pycparser import c_ast

VECTOR_CALLS = ("vload", "vstore")


def _name(node: c_ast.Node) -> str:
    return getattr(node, "name", "") if isinstance(node, c_ast.ID) else ""


def _walk(node: c_ast.Node, under_vector: bool = False):
    """(node, whether it sits in a vload/vstore's arguments) for every node under ``node``."""
    yield node, under_vector
    inside = under_vector or (isinstance(node, c_ast.FuncCall)
                              and _name(node.name).startswith(VECTOR_CALLS))
    for _, child in node.children():
        yield from _walk(child, inside)


def _base(ref: c_ast.Node) -> str:
    while isinstance(ref, (c_ast.ArrayRef, c_ast.StructRef)):
        ref = ref.name
    return _name(ref)


def _element(call: c_ast.FuncCall) -> c_ast.Node:
    """The element of an ``OMPCL_AT(T, buffer, site, element)`` access."""
    return call.args.exprs[-1]


def is_access(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.FuncCall) and _name(node.name) == "OMPCL_AT"


def scalar_accesses(node: c_ast.Node) -> Counter:
    """Global element accesses made one element at a time under ``node``, by array name
    (the bounds-check guards of a vector access are not counted)."""
    return Counter(_base(_element(n)) for n, vec in _walk(node) if is_access(n) and not vec)


def vector_accesses(node: c_ast.Node) -> Counter:
    """(OpenCL vector function, array) of every vload/vstore under ``node``."""
    found = Counter()
    for n, _ in _walk(node):
        if isinstance(n, c_ast.FuncCall) and _name(n.name).startswith(VECTOR_CALLS):
            arrays = {_base(_element(a)) for a, _ in _walk(n.args) if is_access(a)}
            found.update((_name(n.name), a) for a in arrays)
    return found


def _sets(loop_: c_ast.For, var: str) -> bool:
    init = loop_.init
    if isinstance(init, c_ast.Assignment):
        return _name(init.lvalue) == var
    return isinstance(init, c_ast.DeclList) and any(d.name == var for d in init.decls)


def loop(node: c_ast.Node, var: str, nth: int = 0) -> c_ast.For:
    """The ``nth`` ``for`` loop under ``node`` (in source order) whose initialisation sets
    ``var``."""
    found = [n for n, _ in _walk(node) if isinstance(n, c_ast.For) and _sets(n, var)]
    assert len(found) > nth, f"no loop {nth} over '{var}'"
    return found[nth]


def subscripts(node: c_ast.Node, array: str) -> set[tuple[frozenset, ...]]:
    """Per access to ``array`` under ``node``: per subscript, the names it mentions (the
    order of the dimensions as the kernel indexes them)."""
    out = set()
    for n, _ in _walk(node):
        if is_access(n) and _base(_element(n)) == array:
            subs, ref = [], _element(n)
            while isinstance(ref, c_ast.ArrayRef):
                subs.append(frozenset(_name(m) for m, _ in _walk(ref.subscript) if _name(m)))
                ref = ref.name
            out.add(tuple(reversed(subs)))
    return out


def guarded(node: c_ast.Node, array: str) -> tuple[int, int]:
    """(accesses to ``array`` under an ``if``, all accesses to it) under ``node``."""
    under_if = 0
    for n, _ in _walk(node):
        if isinstance(n, c_ast.If):
            under_if += scalar_accesses(n.iftrue)[array]
    return under_if, scalar_accesses(node)[array]


def kernel(unit, name: str = "ompcl_k0"):
    """The kernel named ``name`` of a translated unit."""
    return next(k for k in unit.kernels if k.name == name)
