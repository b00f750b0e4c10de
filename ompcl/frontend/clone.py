"""Copying pycparser ASTs: a node -> an independent copy of its subtree.

``copy.deepcopy`` goes through the generic reduce protocol for each of the tens of thousands
of nodes a transform copies; this walks the nodes' ``__slots__`` directly (about ten times
faster). Lists are copied (qualifier and storage lists included, so editing a copy never
edits the original); strings and coordinates, which nothing mutates, are shared.
"""
from __future__ import annotations

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
