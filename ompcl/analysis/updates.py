"""Array updates: does a loop touch an array only by updating its elements (``a[e] += v``,
``a[e]++``, ``a[e] |= v`` ..., callees included)?

Consumes a loop body, an array's name and element type, and a way to find called functions;
produces ``Updates`` (the operator class, whether every order of the updates gives the same
values, the callee parameters they go through) or None when the array is used otherwise.
Iterations that only update an array can share one copy of it through device atomics: the
thread's array of a team of one then ends as the one thread leaves it, when the updates
commute exactly (integers always; floating point when every update adds the same constant,
so each element sees the same operations in any order).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from .accesses import atomic_form, names_written
from .ctypes_ import FLOATING, mentions, subscripts, walk
from .scratch import _names_in_callee, _params

#: compound assignment -> (operator class, sign of the value)
_OPS = {"+=": ("+", 1), "-=": ("+", -1), "|=": ("|", 1), "&=": ("&", 1), "^=": ("^", 1)}
_STEPS = {"++": 1, "p++": 1, "--": -1, "p--": -1}
Lookup = Callable[[str], "c_ast.FuncDef | None"]


@dataclass(frozen=True)
class Updates:
    """How a loop updates an array: ``op`` ('+' for += -= ++ --, '|', '&', '^'); ``exact``:
    any order of the updates gives the same values; ``params``: (function, parameter) pairs
    of callees that update it through a parameter."""

    op: str
    exact: bool
    params: tuple[tuple[str, str], ...] = ()
    #: the sums may be grouped in any way (an array reduction written by hand): a work-item
    #: may add its own updates apart before adding them in (``transform.privatize``)
    regroup: bool = False


class _NotUpdates(Exception):
    """The array is used in a way other than an update."""


class _Walk:
    def __init__(self, lookup: Lookup):
        self.lookup = lookup
        self.sites: list[tuple[str, float | None]] = []  # (operator class, signed constant)
        self.params: list[tuple[str, str]] = []

    def stmt(self, n: c_ast.Node | None, name: str, depth: int) -> None:
        """``n`` in statement position (its value, if any, is discarded)."""
        if n is None or not mentions(name, n):
            return
        if isinstance(n, c_ast.Compound):
            for item in n.block_items or []:
                self.stmt(item, name, depth)
        elif isinstance(n, c_ast.If):
            self.expr(n.cond, name, depth)
            self.stmt(n.iftrue, name, depth)
            self.stmt(n.iffalse, name, depth)
        elif isinstance(n, c_ast.For):
            for e in (n.init, n.cond, n.next):
                self.expr(e, name, depth)
            self.stmt(n.stmt, name, depth)
        elif isinstance(n, (c_ast.While, c_ast.DoWhile)):
            self.expr(n.cond, name, depth)
            self.stmt(n.stmt, name, depth)
        elif not self.update(n, name, depth):
            self.expr(n, name, depth)

    def update(self, n: c_ast.Node, name: str, depth: int) -> bool:
        """Record ``n`` if it is an update of an element of ``name``."""
        if isinstance(n, c_ast.Assignment) and n.op in _OPS:
            (op, sign), target, value = _OPS[n.op], n.lvalue, n.rvalue
        elif (spelled := _spelled_out(n)) is not None:  # a[e] = a[e] + v (NPB's norms)
            (op, sign), target, value = spelled
        elif isinstance(n, c_ast.UnaryOp) and n.op in _STEPS:
            op, sign, target, value = "+", _STEPS[n.op], n.expr, c_ast.Constant("int", "1")
        else:
            return False
        base, subs = subscripts(target)
        if not (isinstance(base, c_ast.ID) and base.name == name and subs):
            return False
        for e in subs + [value]:
            self.expr(e, name, depth)
        self.sites.append((op, _constant(value, sign)))
        return True

    def expr(self, e: c_ast.Node | None, name: str, depth: int) -> None:
        """``e`` anywhere else: only a call may receive the array."""
        if e is None or not mentions(name, e):
            return
        if isinstance(e, c_ast.FuncCall):
            return self.call(e, name, depth)
        if isinstance(e, c_ast.ID):  # the array itself as a value (read, moved, compared)
            raise _NotUpdates()
        for _, child in e.children():
            self.expr(child, name, depth)

    def call(self, e: c_ast.FuncCall, name: str, depth: int) -> None:
        args = e.args.exprs if e.args is not None else []
        mine = [k for k, a in enumerate(args) if mentions(name, a)]
        for k, a in enumerate(args):
            if k not in mine:
                self.expr(a, name, depth)
        if not mine:
            return self.expr(e.name, name, depth)
        fname = getattr(e.name, "name", None)
        fdef = self.lookup(fname) if isinstance(fname, str) else None
        if fdef is None or depth >= 3 or len(mine) != 1 or not (
                isinstance(args[mine[0]], c_ast.ID) and args[mine[0]].name == name):
            raise _NotUpdates()
        params = _params(fdef)
        if params is None or len(params) != len(args) or params[mine[0]] is None:
            raise _NotUpdates()
        p = params[mine[0]]
        if p in names_written(fdef.body) or any(isinstance(n, c_ast.Decl) and n.name == p
                                                 for n in walk(fdef.body)):
            raise _NotUpdates()  # the parameter is moved, or hidden by a local
        self.params.append((fname, p))
        self.stmt(fdef.body, p, depth + 1)


def _spelled_out(n: c_ast.Node) -> tuple[tuple[str, int], c_ast.Node, c_ast.Node] | None:
    """((operator class, sign), target, value) of ``x = x + v``, ``x = v + x``, ``x = x - v``
    (``|``, ``&``, ``^`` too) with ``x`` an element, as ``x += v`` would give (the forms of
    ``accesses.atomic_form``); else None."""
    if not (isinstance(n, c_ast.Assignment) and n.op == "=" and
            isinstance(n.lvalue, c_ast.ArrayRef)) or any(
            isinstance(x, (c_ast.FuncCall, c_ast.Assignment)) or isinstance(x, c_ast.UnaryOp)
            and x.op in ("++", "--", "p++", "p--") for x in walk(n.lvalue)):
        return None  # (an element whose address has side effects: once is not twice)
    form = atomic_form(n, "update")
    if form is None or form[1] + "=" not in _OPS:
        return None
    return _OPS[form[1] + "="], form[0], form[2]


def _constant(e: c_ast.Node, sign: int) -> float | None:
    """The signed value of a numeric constant (``1``, ``1.0``, ``-2.5``), else None."""
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        v = _constant(e.expr, 1)
        return None if v is None else sign * (-v if e.op == "-" else v)
    if isinstance(e, c_ast.Cast):
        return _constant(e.expr, sign)
    if isinstance(e, c_ast.Constant) and e.type in ("int", "double", "float", "long int",
                                                    "unsigned int"):
        try:
            text = e.value.rstrip("uUlLfF") if "x" not in e.value.lower() else e.value
            return sign * float(int(text, 0) if e.type != "double" and e.type != "float"
                                else float(text))
        except ValueError:
            return None
    return None


def array_updates(name: str, body: c_ast.Node, base: str, lookup: Lookup,
                  named: bool = False) -> Updates | None:
    """How ``body`` updates array ``name`` (element type ``base``), or None when it uses the
    array otherwise (a read, a plain write, a pointer passed on, a use in the subscript or
    value of its own update). ``named``: the array is a global, which callees may name."""
    if any(isinstance(n, c_ast.Decl) and n.name == name for n in walk(body)):
        return None
    if named and any(isinstance(n, c_ast.FuncCall) and _names_in_callee(n, name, lookup)
                     for n in walk(body)):
        return None
    w = _Walk(lookup)
    try:
        w.stmt(body, name, 0)
    except (_NotUpdates, RecursionError):
        return None
    ops = {op for op, _ in w.sites}
    if len(ops) != 1:
        return None
    (op,) = ops
    values = {v for _, v in w.sites}
    exact = base not in FLOATING or op == "+" and len(values) == 1 and None not in values
    return Updates(op, exact, tuple(dict.fromkeys(w.params)))
