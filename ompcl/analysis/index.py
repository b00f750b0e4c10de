"""Index forms: ``c_ast`` integer expressions -> ``Affine`` over region symbols, and guard
conditions -> ``Constraint`` s.

Names are resolved by the caller (``Resolver``), which knows each name's scope and definition
at the point of use: a loop variable becomes its loop symbol, a body-local scalar its
definition, an invariant variable visible at region entry a 'var' symbol. Anything else makes
the form unknown (None): never a symbol for a variable out of its scope.
"""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from ..ir import Affine, Constraint, Sym, SymKind
from .ctypes_ import c_text, walk

#: name -> its form at the point of use, or None when it has none
Resolver = Callable[[str], "Affine | None"]

_INT_CONSTANTS = ("int", "long int", "unsigned int", "unsigned long int", "long long int",
                  "unsigned long long int", "char")
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}
_INT_CASTS = {"int", "long", "short", "char", "unsigned", "signed", "size_t", "ptrdiff_t",
              "int32_t", "int64_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t"}


def int_constant(node: c_ast.Constant) -> int | None:
    """Value of an integer (or character) literal."""
    if node.type not in _INT_CONSTANTS:
        return None
    v = node.value
    if node.type == "char":
        body = v[1:-1]
        return ord(body) if len(body) == 1 else None
    s = v.rstrip("uUlL")
    try:
        if s[:2].lower() in ("0x", "0b"):
            return int(s, 0)
        return int(s, 8) if len(s) > 1 and s.startswith("0") else int(s)
    except ValueError:
        return None


def _cast_is_integer(n: c_ast.Cast) -> bool:
    t = n.to_type.type
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return False
    return all(w in _INT_CASTS or w == "long" for w in t.type.names)


def form(e: c_ast.Node | None, resolve: Resolver, invariant: Callable[[c_ast.Node], Sym | None]
         ) -> Affine | None:
    """Affine form of an integer expression, or None. ``invariant`` turns a non-affine
    sub-expression that is loop-invariant into an 'expr' symbol (or refuses it)."""
    if e is None:
        return None
    if isinstance(e, c_ast.ID):
        return resolve(e.name)
    if isinstance(e, c_ast.Constant):
        v = int_constant(e)
        return Affine.constant(v) if v is not None else None
    if isinstance(e, c_ast.Cast):
        return form(e.expr, resolve, invariant) if _cast_is_integer(e) else None
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        inner = form(e.expr, resolve, invariant)
        return -inner if inner is not None and e.op == "-" else inner
    if isinstance(e, c_ast.BinaryOp) and e.op in ("%", "/") and isinstance(
            e.right, c_ast.Constant) and (int_constant(e.right) or 0) > 0:
        a = form(e.left, resolve, invariant)
        if a is not None and a.loop_syms() and a.is_affine_in_loops():
            kind = SymKind.MOD if e.op == "%" else SymKind.DIV
            text = c_text(e)
            return Affine.of(Sym(kind, text, text, (a, int_constant(e.right))))
        return _opaque(e, invariant)
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*"):
        a, b = form(e.left, resolve, invariant), form(e.right, resolve, invariant)
        if a is None or b is None:
            return _opaque(e, invariant)
        if e.op == "+":
            return a + b
        if e.op == "-":
            return a - b
        if a.loop_syms() and b.loop_syms():
            return None  # i * j is not affine
        return a * b
    return _opaque(e, invariant)


def _opaque(e: c_ast.Node, invariant: Callable[[c_ast.Node], Sym | None]) -> Affine | None:
    sym = invariant(e)
    return Affine.of(sym) if sym is not None else None


def expr_symbol(e: c_ast.Node, is_invariant_name: Callable[[str], bool],
                invariant_memory: Callable[[str], bool] = lambda name: False) -> Sym | None:
    """An 'expr' symbol for an integer expression whose every name is loop-invariant, free of
    side effects, that reads memory only of arrays ``invariant_memory`` accepts; else None."""
    for sub in walk(e):
        if isinstance(sub, c_ast.ID) and not is_invariant_name(sub.name):
            return None
        if isinstance(sub, c_ast.ArrayRef):
            base = sub
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if not (isinstance(base, c_ast.ID) and invariant_memory(base.name)):
                return None
        if isinstance(sub, (c_ast.FuncCall, c_ast.StructRef, c_ast.Assignment)):
            return None
        if isinstance(sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--", "*", "&"):
            return None
        if isinstance(sub, c_ast.Constant) and sub.type not in _INT_CONSTANTS:
            return None
    text = c_text(e)
    return Sym(SymKind.EXPR, text, text, e)


def constraints(cond: c_ast.Node | None, positive: bool, resolve: Resolver,
                invariant: Callable[[c_ast.Node], Sym | None]) -> list[Constraint]:
    """The facts that hold where ``cond`` is true (``positive``) or false."""
    if cond is None:
        return []
    if isinstance(cond, c_ast.UnaryOp) and cond.op == "!":
        return constraints(cond.expr, not positive, resolve, invariant)
    if isinstance(cond, c_ast.BinaryOp):
        if cond.op in ("&&", "||"):
            if (cond.op == "&&") != positive:
                return []  # a negated conjunction is no conjunction
            return (constraints(cond.left, positive, resolve, invariant)
                    + constraints(cond.right, positive, resolve, invariant))
        if cond.op in _FLIP:
            a, b = form(cond.left, resolve, invariant), form(cond.right, resolve, invariant)
            op = cond.op if positive else _NEGATE[cond.op]
            if a is None or b is None:
                return []
            return [Constraint(a - b, op)]
    return []
