"""Unswitching on invariant guards: a loop that stays on the host only because of statements
under a guard it never changes (``if (timers_enabled) timer_start(3);``) is versioned on the
guard.

Consumes a candidate loop, the scalars in scope and what the loop and its callees may write;
produces the guarded statements worth taking out (each an ``if`` without ``else`` whose
condition reads only scalars nobody in the loop writes, and whose statement calls a
function) and, for a chosen subset, a copy of the loop without them. The device version is
that copy, run when every guard is false (a precondition the host checks when the loop
starts); when a guard holds, the original loop runs on the host. Nothing changes meaning:
with the guard false the original never runs the statements either.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from pycparser import c_ast

from ..frontend.clone import clone_with
from ..ir import Var
from .ctypes_ import walk

_SCALAR_NODES = (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.Cast,
                 c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType, c_ast.TernaryOp)


def invariant_guard(cond: c_ast.Node, scope: dict[str, Var], written: set[str]) -> bool:
    """A condition of scalar variables (and constants) that nothing in the loop writes: no
    memory reads, calls or side effects."""
    for n in walk(cond):
        if not isinstance(n, _SCALAR_NODES):
            return False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "*", "&"):
            return False
        if isinstance(n, c_ast.ID):
            v = scope.get(n.name)
            if v is None or not v.ctype.is_scalar or v.ctype.pointer or n.name in written:
                return False
    return True


def guarded_calls(body: c_ast.Node, scope: dict[str, Var], written: set[str]
                  ) -> list[c_ast.If]:
    """The loop's statements ``if (guard) S`` (no ``else``) with an invariant guard and a call
    in ``S``, outermost first."""
    out: list[c_ast.If] = []
    inside: set[int] = set()
    for n in walk(body):
        if id(n) in inside or not isinstance(n, c_ast.If) or n.iffalse is not None:
            continue
        if any(isinstance(x, c_ast.FuncCall) for x in walk(n.iftrue)) and \
                invariant_guard(n.cond, scope, written):
            out.append(n)
            inside |= {id(x) for x in walk(n.iftrue)}
    return out


def without(node, drop: set[int]):
    """A copy of ``node`` with the statements whose ids are in ``drop`` made empty."""
    return clone_with(node, lambda n: c_ast.EmptyStatement(n.coord) if id(n) in drop else None)


def choose(ifs: list[c_ast.If], works: Callable[[Iterable[c_ast.If]], bool]
           ) -> list[c_ast.If] | None:
    """The guarded statements to take out: all of them must make the loop offloadable
    (``works``); then each is put back while the loop stays offloadable, so that a guard
    whose statement the device can run does not keep the device version from running."""
    if not ifs or not works(ifs):
        return None
    chosen = list(ifs)
    for s in list(chosen):
        rest = [x for x in chosen if x is not s]
        if works(rest):
            chosen = rest
    return chosen
