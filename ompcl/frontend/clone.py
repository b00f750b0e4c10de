"""Copying pycparser ASTs: a node -> an independent copy of its subtree.

``copy.deepcopy`` goes through the generic reduce protocol for each of the tens of thousands
of nodes a transform copies; this walks the nodes' ``__slots__`` directly (about ten times
faster). ``clone_with`` copies with some nodes replaced (a transform's rewritten copy of a
loop). Lists are copied (qualifier and storage lists included, so editing a copy never
edits the original); strings and coordinates, which nothing mutates, are shared.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from pycparser import c_ast

_UNSET = object()


@lru_cache(maxsize=None)
def _fields(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        for s in getattr(klass, "__slots__", ()):
            if s not in ("__weakref__", "__dict__") and s not in names:
                names.append(s)
    return tuple(names)


def clone(node):
    """An independent copy of ``node`` (a node, a list or tuple of nodes, or a leaf value)."""
    if isinstance(node, c_ast.Node):
        cls = type(node)
        new = cls.__new__(cls)
        for name in _fields(cls):
            value = getattr(node, name, _UNSET)
            if value is not _UNSET:
                setattr(new, name, value if name == "coord" else clone(value))
        return new
    if isinstance(node, list):
        return [clone(x) for x in node]
    if isinstance(node, tuple):
        return tuple(clone(x) for x in node)
    return node


def clone_with(node, replace: Callable[[c_ast.Node], "c_ast.Node | None"]):
    """A copy of ``node`` in which each node for which ``replace`` returns a node is that node
    instead (not copied, not visited); the rest copied as ``clone`` does."""
    if isinstance(node, c_ast.Node):
        new = replace(node)
        if new is not None:
            return new
        cls = type(node)
        new = cls.__new__(cls)
        for name in _fields(cls):
            value = getattr(node, name, _UNSET)
            if value is not _UNSET:
                setattr(new, name, value if name == "coord" else clone_with(value, replace))
        return new
    if isinstance(node, list):
        return [clone_with(x, replace) for x in node]
    if isinstance(node, tuple):
        return tuple(clone_with(x, replace) for x in node)
    return node

