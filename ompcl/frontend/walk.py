"""Pre-order traversal of pycparser subtrees, for the front end and the stages after it
(``analysis.ctypes_.walk`` is this one)."""
from __future__ import annotations

from pycparser import c_ast


def walk(node: c_ast.Node):
    """Pre-order traversal of a pycparser subtree (iterative: a recursive generator pays a
    frame per level of depth for every node)."""
    stack = [node]
    pop, push = stack.pop, stack.extend
    while stack:
        n = pop()
        yield n
        children = n.children()
        if children:
            push([c for _, c in reversed(children)])
