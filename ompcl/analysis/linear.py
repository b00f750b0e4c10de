"""The ``linear`` clause of a loop directive: ``linear(j : s)`` makes ``j`` private, with the
value ``j0 + k * s`` at the start of logical iteration ``k`` (``j0`` its value before the
loop) and, after the loop, the value it has at the end of the sequentially last iteration.

Consumes a ``Directive``; produces, for each variable, its step as C text (an integer
constant or a variable's name), or why the device translation cannot give the clause its
meaning. OpenMP 4.5's ``linear(val(j) : s)`` and 5.2's ``linear(j : step(s), val)`` are read.
"""
from __future__ import annotations

import re

from pycparser import c_ast

from ..ir import Directive
from .ctypes_ import c_text, walk

_NAME = re.compile(r"^(?:val\s*\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))$")
_STEP = re.compile(r"^(?:step\s*\(\s*(.+?)\s*\)|([+-]?\d+|[A-Za-z_]\w*))$")


def top_split(text: str, sep: str) -> list[str]:
    """``text`` split at each ``sep`` outside parentheses and brackets (a clause's list)."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "([") - (ch in ")]")
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def _step(text: str) -> str | None:
    step = "1"
    for mod in (m.strip() for m in top_split(text, ",")):
        m = _STEP.match(mod)
        if mod == "val":
            continue
        if m is None:
            return None
        step = m[1] or m[2]
        if not re.match(r"^(?:[+-]?\d+|[A-Za-z_]\w*)$", step):
            return None
    return step


def linear_steps(d: Directive) -> dict[str, str] | str:
    """Each ``linear`` variable of ``d`` with its step, or why one cannot be given."""
    out: dict[str, str] = {}
    for c in d.clause("linear"):
        for arg in c.args:
            parts = top_split(arg, ":")
            step = _step(parts[1]) if len(parts) == 2 else "1" if len(parts) == 1 else None
            names = [_NAME.match(n.strip()) for n in top_split(parts[0], ",")]
            if step is None or not all(names):
                return f"its 'linear({arg})' clause (a ref/uval modifier or a step that is " \
                       "not a constant or a variable) is not honoured on the device"
            out.update({m[1] or m[2]: step for m in names})
    return out


#: statements that may skip the step (conservatively: anywhere in the body)
_JUMPS = (c_ast.Continue, c_ast.Goto, c_ast.Label, c_ast.Return)


def _steps_by(stmt: c_ast.Node, name: str) -> str | None:
    """The step text of ``name += s``, ``name = name + s``, ``name++``, ``++name`` (else
    None)."""
    if isinstance(stmt, c_ast.UnaryOp) and stmt.op in ("p++", "++") and \
            isinstance(stmt.expr, c_ast.ID) and stmt.expr.name == name:
        return "1"
    if not (isinstance(stmt, c_ast.Assignment) and isinstance(stmt.lvalue, c_ast.ID)
            and stmt.lvalue.name == name):
        return None
    rv = stmt.rvalue
    if stmt.op == "+=":
        return c_text(rv)
    if stmt.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op == "+" and \
            isinstance(rv.left, c_ast.ID) and rv.left.name == name:
        return c_text(rv.right)
    return None


def stepped_once(body: c_ast.Node, name: str, step: str) -> bool:
    """Whether the loop body updates ``name`` once, as a statement of its own that every
    iteration runs, by the clause's step, and writes it nowhere else: then gcc's linear
    variables (set at the start of each thread's chunk, then stepped by the body) and
    OpenMP's (set at the start of every iteration) have the same values."""
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    steps = [s for s in items if _steps_by(s, name) is not None]
    if len(steps) != 1 or _steps_by(steps[0], name).replace(" ", "") != step.lstrip("+"):
        return False
    return not any(n is not steps[0] and _writes(n, name) or isinstance(n, _JUMPS)
                   for n in walk(body))


def _writes(n: c_ast.Node, name: str) -> bool:
    target = n.lvalue if isinstance(n, c_ast.Assignment) else n.expr if isinstance(
        n, c_ast.UnaryOp) and n.op in ("p++", "++", "p--", "--", "&") else None
    return isinstance(target, c_ast.ID) and target.name == name
