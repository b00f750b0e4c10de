"""Static tables in device code: a block-scope ``static const`` variable with a constant
initialiser (a lookup table in a loop body or a called function) -> whether the device may
hold it as a private copy.

Such a variable is never written and its value is fixed before the program starts, so each
call (each work-item) may have its own copy: the kernel printer drops ``static``
(``codegen.cprinter``; OpenCL C 1.2 has no static variables in functions), and the OpenCL
compiler keeps a copy that is only read in constant memory. A ``static`` variable that is
not ``const`` is state shared by every call: it keeps the loop on the host.
"""
from __future__ import annotations

from pycparser import c_ast

from .ctypes_ import walk

#: what a constant initialiser is built of (names in it: enumerators, as C insists)
_CONSTANT = (c_ast.Constant, c_ast.InitList, c_ast.NamedInitializer, c_ast.ID, c_ast.Cast,
             c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType, c_ast.BinaryOp,
             c_ast.TernaryOp, c_ast.ExprList)


def constant_table(decl: c_ast.Decl) -> bool:
    """``decl`` is a ``static const`` variable of a type without pointers, initialised with
    constants (no addresses, no calls)."""
    if "static" not in (decl.storage or []) or "const" not in (decl.quals or []) or \
            decl.init is None or isinstance(decl.type, c_ast.FuncDecl):
        return False
    if any(isinstance(t, c_ast.PtrDecl) for t in walk(decl.type)):
        return False
    return all(isinstance(n, _CONSTANT) or isinstance(n, c_ast.UnaryOp) and n.op in (
        "-", "+", "~", "!", "sizeof") for n in walk(decl.init))
