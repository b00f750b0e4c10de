"""Type puns of array elements read in a loop body: SPEC's and Parboil's lbm keep each cell's
flags as an ``unsigned int`` in a slot of the ``double`` (or ``float``) grid and test them as
``*(unsigned int *)(void *)&grid[i + FLAGS]`` (``MAGIC_CAST``).

Consumes a candidate loop and the variables in scope; produces a copy in which each such read
is ``ompcl_bits_<T>_<S>(element)``, or None when the loop has none. ``T`` is an integer type
no wider than the element's type ``S``: the kernel program reads the element's bits
(``as_uint``, ``as_ulong``) and keeps the low ``sizeof(T)`` bytes, which are the bytes at the
element's address on a little-endian host and device (both are: x86, Arm, GPUs). A pun that
is written (``*(T *)&x = v``) is left alone (its loop stays on the host).
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone_with
from ..ir import Var
from .ctypes_ import SCALARS, TypeEnv, walk

#: integer spellings a pun may read, and element types it may read them from
READS = {"int", "unsigned int", "long", "unsigned long", "short", "unsigned short",
         "char", "signed char", "unsigned char"}
FROM = {"float", "double", "int", "unsigned int", "long", "unsigned long"}


def bits_name(t: str, s: str) -> str:
    """The kernel program's macro reading an ``s`` element's low bytes as a ``t``."""
    return f"ompcl_bits_{SCALARS[t][0]}_{SCALARS[s][0]}"


def punned(loop: c_ast.For, scope: dict[str, Var], env: TypeEnv) -> c_ast.For | None:
    """The loop with its type-punned element reads as bit reads (see module), or None."""
    done = []
    written = {id(n.lvalue) for n in walk(loop) if isinstance(n, c_ast.Assignment)} | {
        id(n.expr) for n in walk(loop) if isinstance(n, c_ast.UnaryOp) and n.op in (
            "++", "--", "p++", "p--", "&")}

    def replace(n: c_ast.Node):
        if id(n) in written or not (isinstance(n, c_ast.UnaryOp) and n.op == "*"):
            return None
        found = _pun(n.expr, scope, env)
        if found is None:
            return None
        done.append(True)
        t, s, element = found
        return c_ast.FuncCall(c_ast.ID(bits_name(t, s), n.coord),
                              c_ast.ExprList([clone_with(element, replace)]), n.coord)
    new = clone_with(loop, replace)
    return new if done else None


def _pun(e: c_ast.Node, scope: dict[str, Var], env: TypeEnv
         ) -> tuple[str, str, c_ast.ArrayRef] | None:
    """(T, S, element) of ``(T *)(void *)&element`` or ``(T *)&element``."""
    if not isinstance(e, c_ast.Cast):
        return None
    t = _pointee(e.to_type, env)
    inner = e.expr
    while isinstance(inner, c_ast.Cast) and _pointee(inner.to_type, env) == "void":
        inner = inner.expr
    if t not in READS or not (isinstance(inner, c_ast.UnaryOp) and inner.op == "&"):
        return None
    element, base = inner.expr, inner.expr
    while isinstance(base, c_ast.ArrayRef):
        base = base.name
    v = scope.get(base.name) if isinstance(base, c_ast.ID) else None
    if v is None or element is base or v.ctype.base not in FROM or \
            SCALARS[t][1] > SCALARS[v.ctype.base][1]:
        return None
    return t, v.ctype.base, element


def _pointee(tn: c_ast.Node, env: TypeEnv) -> str | None:
    """The scalar spelling ``T`` of a type name ``T *`` ("void" for ``void *``)."""
    t = getattr(tn, "type", None)
    if not isinstance(t, c_ast.PtrDecl) or not isinstance(t.type, c_ast.TypeDecl) or \
            not isinstance(t.type.type, c_ast.IdentifierType):
        return None
    names = t.type.type.names
    return "void" if names == ["void"] else env.scalar_of(names)
