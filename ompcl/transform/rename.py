"""Renaming: copies of C subtrees whose identifiers avoid OpenCL reserved names, and whose user
functions carry the device prefix.

A pure transform: the input tree is never mutated; new nodes keep source coordinates.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.accesses import is_gnu_atomic
from ..analysis.builtins import MATH
from .visitor import NodeTransformer

#: OpenCL's vector type names (``float4``, ``uchar16`` ...)
_VECTORS = frozenset(f"{t}{n}" for t in ("char", "uchar", "short", "ushort", "int", "uint",
                                         "long", "ulong", "float", "double", "half", "bool")
                     for n in (2, 3, 4, 8, 16))
RESERVED = {
    "kernel", "global", "local", "constant", "private", "read_only", "write_only", "read_write",
    "uniform", "pipe", "half", "bool", "uchar", "ushort", "uint", "ulong", "size_t", "ptrdiff_t",
    "intptr_t", "uintptr_t", "image1d_t", "image2d_t", "image3d_t", "sampler_t", "event_t",
    "true", "false", "quad", "complex", "imaginary", "vec_type_hint", "work_group_size_hint",
}


def needs_rename(name: str) -> bool:
    """True for user names that clash with OpenCL C keywords or types."""
    return name in RESERVED or name in _VECTORS or name.startswith("__")


def device_name(name: str, functions: set[str] = frozenset()) -> str:
    """The name a user variable or function has in kernel code."""
    if name in functions:
        return f"ompcl_f_{name}"
    return f"ompcl_v_{name}" if needs_rename(name) else name


class _Renamer(NodeTransformer):
    def __init__(self, functions: set[str]):
        self.functions = functions

    def visit_ID(self, node: c_ast.ID) -> c_ast.ID:
        node.name = device_name(node.name, self.functions)
        return node

    def visit_FuncCall(self, node: c_ast.FuncCall) -> c_ast.FuncCall:
        name = getattr(node.name, "name", None)
        if name in MATH or name and is_gnu_atomic(name):  # library calls keep their C names
            if node.args is not None:
                node.args = self.visit(node.args)
            return node
        return self.generic_visit(node)

    def visit_TypeDecl(self, node: c_ast.TypeDecl) -> c_ast.TypeDecl:
        if node.declname:
            node.declname = device_name(node.declname)
        return self.generic_visit(node)

    def visit_Decl(self, node: c_ast.Decl) -> c_ast.Decl:
        if node.name:
            node.name = device_name(node.name, self.functions if isinstance(
                node.type, c_ast.FuncDecl) else set())
        return self.generic_visit(node)

    def visit_FuncDecl(self, node: c_ast.FuncDecl) -> c_ast.FuncDecl:
        if node.args:
            node.args = self.visit(node.args)
        t = node.type
        while not isinstance(t, c_ast.TypeDecl):
            t = t.type
        if t.declname in self.functions:
            t.declname = device_name(t.declname, self.functions)
        return node


def renamed(node: c_ast.Node, functions: set[str]) -> c_ast.Node:
    """A deep copy of ``node`` with user functions and clashing names renamed."""
    return _Renamer(functions).rewrite(node)
