"""Global arguments: calls to functions whose device versions take the globals they use as
parameters -> the same calls with those globals appended as arguments (a copy; coordinates
kept)."""
from __future__ import annotations

from pycparser import c_ast

from .visitor import NodeTransformer


class _Appender(NodeTransformer):
    def __init__(self, extra: dict[str, tuple[str, ...]]):
        self.extra = extra

    def visit_FuncCall(self, node: c_ast.FuncCall) -> c_ast.FuncCall:
        node = self.generic_visit(node)
        names = self.extra.get(getattr(node.name, "name", None), ())
        if names:
            args = list(node.args.exprs) if node.args is not None else []
            node.args = c_ast.ExprList(args + [c_ast.ID(g) for g in names], node.coord)
        return node


def with_global_args(node: c_ast.Node, extra: dict[str, tuple[str, ...]]) -> c_ast.Node:
    """A copy of ``node`` whose calls to the functions in ``extra`` pass their globals."""
    if not any(extra.values()):
        return node
    return _Appender(extra).rewrite(node)
