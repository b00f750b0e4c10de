"""Variables of host code, as host-access analysis sees them (``analysis.hostaccess``).

Consumes declarations and the file's type environment; produces a ``Var`` per name (array,
pointer, scalar or other, and how many subscripts reach an element) and a ``Scope`` of nested
frames of them.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .ctypes_ import TypeEnv


@dataclass(frozen=True)
class Var:
    """kind: 'array' (a named object of known size: array or struct), 'pointer', 'scalar' or
    'other'; rank: subscripts that reach an element without loading a pointer; ``pointers``:
    that element may be a pointer (or a struct holding some) itself."""

    kind: str
    rank: int = 0
    pointers: bool = False


def classify_var(tnode: c_ast.Node, param: bool, env: TypeEnv) -> Var:
    node, dims = tnode, 0
    while isinstance(node, c_ast.ArrayDecl):
        dims += 1
        if dims == 1 and (param or node.dim is None):
            param = True  # an array parameter, or of unknown size: a pointer
        node = node.type
    if param and dims:
        return Var("pointer", dims)
    if isinstance(node, c_ast.PtrDecl):
        if dims:
            return Var("array", dims, True)  # an array of pointers: its elements
        inner, rank = node.type, 1
        while isinstance(inner, c_ast.ArrayDecl):
            rank += 1
            inner = inner.type
        return Var("pointer", rank, not _plain(inner, env))
    if isinstance(node, c_ast.TypeDecl):
        inner = node.type
        if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 and \
                inner.names[0] in env.typedefs:
            sub = classify_var(env.typedefs[inner.names[0]], False, env)
            if sub.kind == "pointer" and dims:
                return Var("array", dims, True)
            if sub.kind in ("array", "pointer"):
                return Var(sub.kind, sub.rank + dims, sub.pointers)
            return Var("array", dims, sub.kind != "scalar") if dims else sub
        if dims or isinstance(inner, (c_ast.Struct, c_ast.Union)):
            return Var("array", dims, isinstance(inner, (c_ast.Struct, c_ast.Union)))
        return Var("scalar")
    return Var("other")


def _plain(node: c_ast.Node, env: TypeEnv) -> bool:
    """A type that is a scalar (what a pointer to it points to holds no pointer)."""
    return isinstance(node, c_ast.TypeDecl) and classify_var(node, False, env).kind == "scalar"


class Scope:
    def __init__(self, env: TypeEnv, globals_: dict[str, Var]):
        self.env = env
        self.frames: list[dict[str, Var]] = [dict(globals_)]

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def declare(self, decl: c_ast.Decl, param: bool = False) -> None:
        if decl.name and not isinstance(decl.type, c_ast.FuncDecl):
            self.frames[-1][decl.name] = classify_var(decl.type, param, self.env)

    def is_global(self, name: str) -> bool:
        """``name`` means the file-scope object here (no local hides it)."""
        return name in self.frames[0] and not any(name in f for f in self.frames[1:])

    def get(self, name: str) -> Var:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return Var("other")


def file_globals(ast: c_ast.FileAST, env: TypeEnv) -> dict[str, Var]:
    out = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            out[ext.name] = classify_var(ext.type, False, env)
    return out
