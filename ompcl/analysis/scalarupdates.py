"""Scalar updates: does a loop touch a scalar only by folding values into it?

Consumes a loop body and a scalar's name; produces the reduction operator ('+', '*', '|', '&',
'^', 'max' or 'min') when every use of the scalar in the body is an update by that one
operator whose value does not mention the scalar, else None. The updates:

- ``s += v``, ``s -= v``, ``s *= v``, ``s |= v`` ..., ``s = s + v``, ``s = v * s`` ...,
  ``s++``, ``--s`` (in statement position: their values unused);
- ``if (v > m) m = v;`` (any of ``<``, ``<=``, ``>``, ``>=``, either side), ``m = fmax(m, v)``,
  ``m = m > v ? m : v`` (and the ``fmin``, ``MIN`` forms).

A thread's own scalar used so is a reduction written by hand: each thread folds its share of
the iterations into its copy and merges that after the loop (``analysis.threadloops``).
"""
from __future__ import annotations

from pycparser import c_ast

from .accesses import atomic_form
from .builtins import is_math
from .ctypes_ import c_text, mentions, walk

#: operator of an update -> the reduction operator it belongs to
OPERATOR_CLASS = {"+": "+", "-": "+", "*": "*", "|": "|", "&": "&", "^": "^"}
_MAX_CALLS = {"fmax": "max", "fmaxf": "max", "fmaxl": "max",
              "fmin": "min", "fminf": "min", "fminl": "min"}
#: comparison -> whether its true side is the larger operand's
_GREATER = {">": True, ">=": True, "<": False, "<=": False}


class _Other(Exception):
    """The scalar is used in a way other than an update."""


def _is(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _pure(e: c_ast.Node) -> bool:
    """``e`` has no side effect (its value may be computed twice, as ``if (v > m) m = v``
    does)."""
    for n in walk(e):
        if isinstance(n, c_ast.Assignment) or isinstance(n, c_ast.UnaryOp) and n.op in (
                "++", "--", "p++", "p--"):
            return False
        if isinstance(n, c_ast.FuncCall) and not (isinstance(n.name, c_ast.ID) and
                                                  is_math(n.name.name)):
            return False
    return True


def _chosen(cond: c_ast.Node, name: str, taken: c_ast.Node, other: c_ast.Node) -> str | None:
    """'max' or 'min' when ``cond ? taken : other`` picks the larger or the smaller of the
    scalar and one value (the comparison's operands, as written), else None."""
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _GREATER):
        return None
    left, right = cond.left, cond.right
    value = right if _is(left, name) else left if _is(right, name) else None
    if value is None or mentions(name, value) or not _pure(value):
        return None
    texts = (c_text(taken), c_text(other))
    if texts == (c_text(left), c_text(right)):
        return "max" if _GREATER[cond.op] else "min"
    if texts == (c_text(right), c_text(left)):
        return "min" if _GREATER[cond.op] else "max"
    return None


def _assigned(n: c_ast.Node, name: str) -> str | None:
    """The operator of ``name = ...`` as an update (a compound assignment, the operator
    spelled out, a max or min), else None."""
    form = atomic_form(n, "update")
    if form is not None and _is(form[0], name) and form[1] in OPERATOR_CLASS:
        return None if mentions(name, form[2]) else OPERATOR_CLASS[form[1]]
    if not (isinstance(n, c_ast.Assignment) and n.op == "=" and _is(n.lvalue, name)):
        return None
    e = n.rvalue
    if isinstance(e, c_ast.TernaryOp):
        return _chosen(e.cond, name, e.iftrue, e.iffalse)
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and \
            e.name.name in _MAX_CALLS and e.args is not None and len(e.args.exprs) == 2:
        a, b = e.args.exprs
        value = b if _is(a, name) else a if _is(b, name) else None
        if value is not None and not mentions(name, value):
            return _MAX_CALLS[e.name.name]
    return None


def _only(stmt: c_ast.Node | None) -> c_ast.Node | None:
    """The one statement of ``stmt`` (itself, or a block of one)."""
    while isinstance(stmt, c_ast.Compound) and len(stmt.block_items or []) == 1:
        stmt = stmt.block_items[0]
    return stmt


class _Walk:
    def __init__(self, name: str):
        self.name = name
        self.ops: set[str] = set()

    def stmt(self, n: c_ast.Node | None) -> None:
        """``n`` in statement position (its value, if any, is discarded)."""
        if n is None or not mentions(self.name, n):
            return
        if isinstance(n, c_ast.Compound):
            for item in n.block_items or []:
                self.stmt(item)
        elif isinstance(n, c_ast.If):
            if not self.guarded(n):
                self.expr(n.cond)
                self.stmt(n.iftrue)
                self.stmt(n.iffalse)
        elif isinstance(n, c_ast.For):
            self.expr(n.init), self.expr(n.cond), self.expr(n.next)
            self.stmt(n.stmt)
        elif isinstance(n, (c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            self.expr(n.cond)
            self.stmt(n.stmt)
        elif isinstance(n, (c_ast.Label, c_ast.Case, c_ast.Default)):
            for item in (n.stmts if not isinstance(n, c_ast.Label) else [n.stmt]) or []:
                self.stmt(item)
            if isinstance(n, c_ast.Case):
                self.expr(n.expr)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") and \
                _is(n.expr, self.name):
            self.ops.add("+")
        elif (op := _assigned(n, self.name)) is not None:
            self.ops.add(op)
        else:
            raise _Other()

    def guarded(self, n: c_ast.If) -> bool:
        """Record ``if (v > m) m = v;`` (or its variants) as a max or min."""
        then = _only(n.iftrue)
        if n.iffalse is not None or not (isinstance(then, c_ast.Assignment) and then.op == "="
                                         and _is(then.lvalue, self.name)):
            return False
        op = _chosen(n.cond, self.name, then.rvalue, c_ast.ID(self.name))
        if op is None:
            return False
        self.ops.add(op)
        return True

    def expr(self, e: c_ast.Node | None) -> None:
        if mentions(self.name, e):
            raise _Other()


def update_operator(name: str, body: c_ast.Node) -> str | None:
    """The one reduction operator by which ``body`` only updates scalar ``name``, else None
    (also when it declares another ``name``, or does not use it)."""
    if any(isinstance(n, c_ast.Decl) and n.name == name for n in walk(body)):
        return None
    w = _Walk(name)
    try:
        w.stmt(body)
    except (_Other, RecursionError):
        return None
    return next(iter(w.ops)) if len(w.ops) == 1 else None
