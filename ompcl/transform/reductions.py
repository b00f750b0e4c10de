"""Reductions: an OpenMP reduction operator -> the expression combining two partial values,
and the identity each work-item starts from (as ``c_ast`` nodes; codegen prints them)."""
from __future__ import annotations

from pycparser import c_ast

_IDENTITY = {"+": "0", "|": "0", "^": "0", "||": "0", "*": "1", "&&": "1"}
_LIMITS = {"char": ("CHAR_MIN", "CHAR_MAX"), "uchar": ("0", "UCHAR_MAX"),
           "short": ("SHRT_MIN", "SHRT_MAX"), "ushort": ("0", "USHRT_MAX"),
           "int": ("INT_MIN", "INT_MAX"), "uint": ("0", "UINT_MAX"),
           "long": ("LONG_MIN", "LONG_MAX"), "ulong": ("0", "ULONG_MAX"),
           "float": ("-INFINITY", "INFINITY"), "double": ("-INFINITY", "INFINITY")}


def identity(op: str, cl_type: str) -> c_ast.Node:
    """The value a partial result starts from (OpenCL spelling of the limits)."""
    if op == "max":
        return c_ast.ID(_LIMITS[cl_type][0])
    if op == "min":
        return c_ast.ID(_LIMITS[cl_type][1])
    if op == "&":
        return c_ast.UnaryOp("~", c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType([cl_type]))), c_ast.Constant("int", "0")))
    return c_ast.Constant("int", _IDENTITY[op])


def combine(op: str, a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    """The expression combining partial values ``a`` and ``b``."""
    if op in ("max", "min"):
        return c_ast.TernaryOp(c_ast.BinaryOp(">" if op == "max" else "<", a, b), a, b)
    return c_ast.BinaryOp(op, a, b)
