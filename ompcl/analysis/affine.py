"""Affine subscripts: ``c_ast`` expression -> ``Affine`` over loop variables (or None)."""
from __future__ import annotations

from pycparser import c_ast

from ..ir import Affine
from .ctypes_ import c_text, walk


def _mul(a: str, b: str) -> str:
    if a == "0" or b == "0":
        return "0"
    if a == "1":
        return b
    if b == "1":
        return a
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        return str(int(a) * int(b))
    return f"({a})*({b})"


def _add(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        return str(int(a) + int(b))
    return f"({a})+({b})"


def _neg(a: str) -> str:
    return _mul("-1", a)


class _Lin:
    def __init__(self, coefs: dict[str, str] | None = None, const: str = "0"):
        self.coefs = {k: v for k, v in (coefs or {}).items() if v != "0"}
        self.const = const

    def plus(self, o: "_Lin", sign: int = 1) -> "_Lin":
        c = dict(self.coefs)
        for k, v in o.coefs.items():
            c[k] = _add(c.get(k, "0"), v if sign > 0 else _neg(v))
        return _Lin(c, _add(self.const, o.const if sign > 0 else _neg(o.const)))

    def scale(self, s: str) -> "_Lin":
        return _Lin({k: _mul(s, v) for k, v in self.coefs.items()}, _mul(s, self.const))

    def freeze(self) -> Affine:
        return Affine(tuple(sorted(self.coefs.items())), self.const)


def affine(expr: c_ast.Node, index_vars: set[str], variant: set[str]) -> Affine | None:
    """Affine form of ``expr`` in ``index_vars``; other names must not be in ``variant``."""
    lin = _lin(expr, index_vars, variant)
    return lin.freeze() if lin is not None else None


def _invariant_text(expr: c_ast.Node, index_vars: set[str], variant: set[str]) -> str | None:
    for sub in walk(expr):
        if isinstance(sub, c_ast.ID) and (sub.name in index_vars or sub.name in variant):
            return None
        if isinstance(sub, (c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef, c_ast.Assignment)):
            return None
        if isinstance(sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--", "*", "&"):
            return None
    return c_text(expr)


def _lin(e: c_ast.Node, iv: set[str], variant: set[str]) -> _Lin | None:
    if isinstance(e, c_ast.ID) and e.name in iv:
        return _Lin({e.name: "1"})
    if isinstance(e, c_ast.Constant) and e.type in ("int", "long int", "unsigned int"):
        v = e.value.rstrip("uUlL")
        try:
            return _Lin(const=str(int(v, 0)))
        except ValueError:
            return _Lin(const=c_text(e))
    if isinstance(e, c_ast.Cast):
        return _lin(e.expr, iv, variant)
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        inner = _lin(e.expr, iv, variant)
        return inner.scale("-1") if inner is not None and e.op == "-" else inner
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        a, b = _lin(e.left, iv, variant), _lin(e.right, iv, variant)
        return a.plus(b, 1 if e.op == "+" else -1) if a is not None and b is not None else None
    if isinstance(e, c_ast.BinaryOp) and e.op == "*":
        a, b = _lin(e.left, iv, variant), _lin(e.right, iv, variant)
        if a is None or b is None:
            return None
        if not a.coefs:
            return b.scale(a.const)
        if not b.coefs:
            return a.scale(b.const)
        return None
    text = _invariant_text(e, iv, variant)
    return _Lin(const=f"({text})") if text is not None else None
