"""Reductions: an OpenMP reduction operator -> the expression combining two partial values,
and the identity each work-item starts from (as ``c_ast`` nodes; codegen prints them); and
a logical reduction's updates without their branch.

``acc = acc && e`` evaluates ``e`` only while ``acc`` holds: a branch per element, which keeps
the device compiler from vectorising the loop (gcc's OpenMP version does without it). Where
``e`` only reads (no assignment, step, call but the math built-ins and the bounds checker's
wrapper, and subscripts of variables and constants only: elements the loop's extents cover
whatever ``acc`` is), ``acc = acc & ((e) != 0)`` gives the same value.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.builtins import is_math
from ..analysis.ctypes_ import walk
from .boundscheck import MACRO
from .visitor import NodeTransformer

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


_READS = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl,
          c_ast.IdentifierType, c_ast.TernaryOp, c_ast.ExprList, c_ast.StructRef)


def _reads_only(e: c_ast.Node) -> bool:
    """Whether evaluating ``e`` only reads memory the loop's extents cover (see module)."""
    for n in walk(e):
        if isinstance(n, c_ast.UnaryOp):
            if n.op in ("++", "--", "p++", "p--", "&", "*"):
                return False
        elif isinstance(n, c_ast.ArrayRef):
            if any(isinstance(x, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.UnaryOp))
                   for x in walk(n.subscript)):
                return False
        elif isinstance(n, c_ast.FuncCall):
            name = n.name.name if isinstance(n.name, c_ast.ID) else ""
            if name != MACRO and not is_math(name):
                return False
        elif not isinstance(n, _READS):
            return False
    return True


class _Branchless(NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names  # reduction variable -> '&&' or '||'

    def visit_Assignment(self, n: c_ast.Assignment) -> c_ast.Node:
        v, op = n.lvalue, self.names.get(getattr(n.lvalue, "name", ""))
        r = n.rvalue
        if op is None or n.op != "=" or not isinstance(v, c_ast.ID) or not (
                isinstance(r, c_ast.BinaryOp) and r.op == op):
            return self.generic_visit(n)
        mine = [x for x in (r.left, r.right) if isinstance(x, c_ast.ID) and x.name == v.name]
        other = r.right if r.left in mine else r.left
        if not mine or not _reads_only(other) or any(
                isinstance(x, c_ast.ID) and x.name == v.name for x in walk(other)):
            return n
        test = c_ast.BinaryOp("!=", other, c_ast.Constant("int", "0"))
        return c_ast.Assignment("=", v, c_ast.BinaryOp("&" if op == "&&" else "|",
                                                      c_ast.ID(v.name), test), n.coord)


def branchless(body: c_ast.Node, reductions) -> c_ast.Node:
    """``body`` with the updates ``acc = acc && e`` (``||``) of its logical reductions
    (``(name, OpenCL type, operator)``) without their branch (see module)."""
    names = {name: op for name, _, op in reductions if op in ("&&", "||")}
    return _Branchless(names).rewrite(body) if names else body
