"""Linearisation: accesses to arrays viewed through pointers to variable-length rows
(``double (*u)[n2][n1]``, which OpenCL C cannot declare) -> accesses to the flat buffer
(``u[(i3 * n2 + i2) * n1 + i1]``); rows (fewer subscripts) become pointer arithmetic."""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone
from .visitor import NodeTransformer


def row_dims(decl: c_ast.Decl) -> list[c_ast.Node]:
    """The dimension expressions below the outermost one of a pointer-to-rows declaration
    (or an array parameter)."""
    t = decl.type
    if isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    out = []
    while isinstance(t, c_ast.ArrayDecl):
        out.append(t.dim)
        t = t.type
    return out


def _mul(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    return c_ast.BinaryOp("*", a, clone(b))


class _Flat(NodeTransformer):
    def __init__(self, views: dict[str, list[c_ast.Node]]):
        self.views = views

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> c_ast.Node:
        subs, base = [], node
        while isinstance(base, c_ast.ArrayRef):
            subs.append(self.visit(base.subscript))
            base = base.name
        if not isinstance(base, c_ast.ID) or base.name not in self.views:
            node_copy = node
            for s, n in zip(subs, _chain(node)):
                n.subscript = s
            return node_copy
        subs.reverse()
        dims = self.views[base.name]
        flat = subs[0]
        for s, d in zip(subs[1:], dims):
            flat = c_ast.BinaryOp("+", _mul(flat, d), s)
        if len(subs) == len(dims) + 1:
            return c_ast.ArrayRef(c_ast.ID(base.name, base.coord), flat, node.coord)
        for d in dims[len(subs) - 1:]:  # a row: the address of its first element
            flat = _mul(flat, d)
        return c_ast.BinaryOp("+", c_ast.ID(base.name, base.coord), flat, node.coord)


def _chain(node: c_ast.ArrayRef) -> list[c_ast.ArrayRef]:
    out = []
    while isinstance(node, c_ast.ArrayRef):
        out.append(node)
        node = node.name
    return out


def linearized(body: c_ast.Node, views: dict[str, list[c_ast.Node]]) -> c_ast.Node:
    """A copy of ``body`` whose accesses to the ``views`` (name -> row dimensions) are flat."""
    return _Flat(views).rewrite(body) if views else body
