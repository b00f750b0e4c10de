"""The rewriting base of every transform: a ``NodeTransformer`` over pycparser trees.

``visit_<Class>`` methods return a replacement node, ``None`` to delete the node from a list
field (or clear a single field), or a list to splice several nodes into a list field. New
nodes that carry no coordinates inherit the coordinates of the node they replace, so
diagnostics and line markers keep pointing into the user's file.
"""
from __future__ import annotations


from pycparser import c_ast

from ..frontend.clone import clone


class NodeTransformer:
    """Rewrites a tree in place; call ``rewrite`` for a transformed copy."""

    def visit(self, node: c_ast.Node):
        meth = getattr(self, "visit_" + type(node).__name__, self.generic_visit)
        out = meth(node)
        for new in (out if isinstance(out, list) else [out]):
            if isinstance(new, c_ast.Node) and new is not node:
                _inherit_coord(new, node)
        return out

    def generic_visit(self, node: c_ast.Node) -> c_ast.Node:
        for name in node.__slots__:
            if name in ("coord", "__weakref__"):
                continue
            value = getattr(node, name, None)
            if isinstance(value, list):
                setattr(node, name, self._visit_list(value))
            elif isinstance(value, c_ast.Node):
                setattr(node, name, self.visit(value))
        return node

    def _visit_list(self, items: list) -> list:
        out = []
        for item in items:
            if not isinstance(item, c_ast.Node):
                out.append(item)
                continue
            new = self.visit(item)
            if isinstance(new, list):
                out.extend(new)
            elif new is not None:
                out.append(new)
        return out

    def rewrite(self, node: c_ast.Node) -> c_ast.Node:
        """A transformed deep copy of ``node``; the input is never mutated."""
        return self.visit(clone(node))


def _inherit_coord(new: c_ast.Node, old: c_ast.Node) -> None:
    if getattr(new, "coord", None) is None and getattr(old, "coord", None) is not None:
        new.coord = old.coord
