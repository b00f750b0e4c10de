"""Variable-length arrays declared in a loop body (``int8_t perm[n];``, each iteration's
scratch): the device version declares them with a fixed capacity.

Consumes a candidate loop and the variables in scope; produces a copy of the loop in which
every one-dimensional variable-length array of the body whose length is an expression of
integer variables the loop never writes (visible where the loop starts) is declared with
``CAPACITY`` elements, and the C conditions (the length between 1 and ``CAPACITY``, checked
when the loop starts: the original runs on the host otherwise); or None when the body has
no such array or another one. An iteration uses at most its length of the array in any
defined run of the original, so the capacity changes nothing the loop computes.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..frontend.clone import clone_with
from ..ir import Var
from .accesses import names_written
from .ctypes_ import FLOATING, c_text, walk

#: elements of each capped array (a work-item's private memory holds them)
CAPACITY = 512
_PURE = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl,
         c_ast.IdentifierType)


def _length_ok(dim: c_ast.Node, scope: dict[str, Var], written: set[str], local: set[str]
               ) -> bool:
    """A length the loop cannot change: integer variables of the enclosing scope the loop
    never writes, constants and arithmetic."""
    for n in walk(dim):
        if not isinstance(n, _PURE) or isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            return False
        if isinstance(n, c_ast.ID):
            v = scope.get(n.name)
            if n.name in written or n.name in local or v is None or not v.ctype.is_scalar or \
                    v.ctype.base in FLOATING or v.ctype.pointer:
                return False
    return True


def _vlas(body: c_ast.Node) -> list[c_ast.Decl]:
    """The body's declarations of arrays whose length is not a constant."""
    return [n for n in walk(body) if isinstance(n, c_ast.Decl) and isinstance(
        n.type, c_ast.ArrayDecl) and n.type.dim is not None and not isinstance(
            n.type.dim, c_ast.Constant)]


def capped(loop: c_ast.For, scope: dict[str, Var],
           constant: Callable[[c_ast.Node], bool]) -> tuple[c_ast.For, tuple[str, ...]] | None:
    """The loop with its body's variable-length arrays at ``CAPACITY`` elements and the
    conditions that keep that exact (see module), or None. ``constant(dim)``: whether an
    array length is a compile-time constant (those are left alone)."""
    decls = [d for d in _vlas(loop.stmt) if not constant(d.type.dim)]
    if not decls:
        return None
    written = names_written(loop.stmt) | names_written(loop.next)
    local = {n.name for n in walk(loop.stmt) if isinstance(n, c_ast.Decl) and n.name}
    if any(isinstance(d.type.type, c_ast.ArrayDecl) or d.init is not None or
           not _length_ok(d.type.dim, scope, written, local) for d in decls):
        return None
    dims = {id(d.type.dim) for d in decls}
    cap = c_ast.Constant("int", str(CAPACITY))
    copy = clone_with(loop, lambda n: cap if id(n) in dims else None)
    conds = tuple(dict.fromkeys(f"(long)({c_text(d.type.dim)}) >= 1 && (long)("
                                f"{c_text(d.type.dim)}) <= {CAPACITY}" for d in decls))
    return copy, conds
