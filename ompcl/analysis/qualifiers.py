"""Types the device cannot hold faithfully, in a loop, its callees and the variables they use
-> a ``data-type`` reason, or None.

- ``volatile`` objects: another thread, a signal handler or the hardware may change them while
  the loop runs, and the loop may wait for that (``while (!flag)``); a kernel works on a copy
  that nothing else changes.
- 128-bit integers: the front end reads ``__int128`` as ``long long volatile`` (``prelude.h``)
  so that the parser accepts it and this check keeps its loops on the host; the device has no
  128-bit arithmetic.

Consumes the loop body, the callees' definitions, the variables in scope and the file's type
environment.
"""
from __future__ import annotations

from pycparser import c_ast

from ..diagnostics import Reason
from ..ir import Var
from .ctypes_ import TypeEnv, walk


def _volatile(t: c_ast.Node | None, env: TypeEnv, depth: int = 0) -> bool:
    """True when the type ``t`` is, points to or holds something ``volatile``."""
    for n in walk(t) if t is not None and depth < 16 else ():
        if isinstance(n, (c_ast.TypeDecl, c_ast.PtrDecl)) and "volatile" in (n.quals or []):
            return True
        if isinstance(n, c_ast.IdentifierType) and len(n.names) == 1 \
                and n.names[0] in env.typedefs \
                and _volatile(env.typedefs[n.names[0]], env, depth + 1):
            return True
    return False


def _types(tree: c_ast.Node):
    """The types ``tree`` spells: its declarations', casts' and ``sizeof``s'."""
    for n in walk(tree):
        if isinstance(n, (c_ast.Decl, c_ast.Typename)):
            yield n.name, n.type


def volatile_reason(body: c_ast.Node, callees: list[c_ast.FuncDef], scope: dict[str, Var],
                    env: TypeEnv) -> Reason | None:
    trees = [body, *callees]
    names = {n.name for tree in trees for n in walk(tree) if isinstance(n, c_ast.ID)}
    spelled = [(name, t) for tree in trees for name, t in _types(tree)]
    spelled += [(name, getattr(scope[name].decl, "type", None)) for name in sorted(names)
                if name in scope]
    for name, t in spelled:
        if _volatile(t, env):
            what = f"'{name}'" if name else "a type it names"
            return Reason("data-type", f"{what} is volatile or a 128-bit integer (the device "
                          "would work on a copy, or on 64 bits)")
    return None
