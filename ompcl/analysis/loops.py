"""Loop analysis: ``c_ast.For`` -> canonical ``LoopDim`` (or the reason it is not canonical)."""
from __future__ import annotations

import re

from pycparser import c_ast

from ..ir import LoopDim

_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}


class NotCanonical(Exception):
    """The loop is not in OpenMP canonical form (message says why)."""


def _init(node: c_ast.Node) -> tuple[str, c_ast.Node, bool]:
    if isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID):
        return node.lvalue.name, node.rvalue, False
    if isinstance(node, c_ast.DeclList) and len(node.decls) == 1 and node.decls[0].init is not None:
        return node.decls[0].name, node.decls[0].init, True
    if isinstance(node, c_ast.Decl) and node.init is not None:
        return node.name, node.init, True
    raise NotCanonical("loop initialisation is not 'var = lb'")


def _cond(node: c_ast.Node, var: str) -> tuple[str, c_ast.Node]:
    if not isinstance(node, c_ast.BinaryOp) or node.op not in _FLIP and node.op != "!=":
        raise NotCanonical("loop test is not 'var < | <= | > | >= | != bound'")
    if isinstance(node.left, c_ast.ID) and node.left.name == var:
        return node.op, node.right
    if isinstance(node.right, c_ast.ID) and node.right.name == var:
        return _FLIP.get(node.op, node.op), node.left
    raise NotCanonical(f"loop test does not compare the loop variable '{var}'")


def _is_var(node: c_ast.Node, var: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == var


def _step(node: c_ast.Node, var: str) -> c_ast.Node:
    one = c_ast.Constant("int", "1")
    if isinstance(node, c_ast.UnaryOp) and _is_var(node.expr, var):
        if node.op in ("p++", "++"):
            return one
        if node.op in ("p--", "--"):
            return c_ast.UnaryOp("-", one)
    if isinstance(node, c_ast.Assignment) and _is_var(node.lvalue, var):
        if node.op == "+=":
            return node.rvalue
        if node.op == "-=":
            return c_ast.UnaryOp("-", node.rvalue)
        rv = node.rvalue
        if node.op == "=" and isinstance(rv, c_ast.BinaryOp) and rv.op in "+-":
            if _is_var(rv.left, var):
                return rv.right if rv.op == "+" else c_ast.UnaryOp("-", rv.right)
            if rv.op == "+" and _is_var(rv.right, var):
                return rv.left
    raise NotCanonical(f"loop increment is not '{var}++', '{var}--', '{var} += c' or '{var} -= c'")


def loop_start(loop: c_ast.For) -> tuple[str, c_ast.Node] | None:
    """(variable, initial value) of ``for (v = e; ..)`` or ``for (T v = e; ..)``; None for
    another initialisation."""
    init = loop.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init:
        return init.decls[0].name, init.decls[0].init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue,
                                                                             c_ast.ID):
        return init.lvalue.name, init.rvalue
    return None


#: the text of a dimension made of integer literals and + - * / (a constant the C compiler
#: folds)
CONSTANT_TEXT = re.compile(r"[\d\s()+\-*/]+")


def constant_text_value(text: str) -> int | None:
    """The value of a ``CONSTANT_TEXT`` dimension as C computes it (``/`` truncates), else
    None."""
    if not CONSTANT_TEXT.fullmatch(text):
        return None
    try:
        return int(eval(text.replace("/", "//"), {"__builtins__": {}}))  # noqa: S307
    except (ArithmeticError, SyntaxError):
        return None


def const_int(node: c_ast.Node) -> int | None:
    """Value of an integer constant expression made of literals and + - *, else None."""
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long int", "unsigned int"):
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = const_int(node.expr)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a, b = const_int(node.left), const_int(node.right)
        if a is None or b is None:
            return None
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    return None


def canonical_loop(loop: c_ast.For, var_type: str | None = None) -> LoopDim:
    """Recognise ``for (v = lb; v OP ub; v += step)``; raise NotCanonical otherwise."""
    if loop.init is None or loop.cond is None or loop.next is None:
        raise NotCanonical("loop has an empty initialisation, test or increment")
    var, lb, declares = _init(loop.init)
    op, ub = _cond(loop.cond, var)
    step = _step(loop.next, var)
    if isinstance(step, c_ast.Constant) and step.value in ("0",):
        raise NotCanonical("loop step is zero")
    value = const_int(step)
    if value == 0:
        raise NotCanonical("loop step is zero")
    if op == "!=":  # OpenMP 5.0: with a step of 1 (-1) the loop runs as with '<' ('>')
        if value not in (1, -1):
            raise NotCanonical("a loop test 'var != bound' needs a step of 1 or -1")
        op = "<" if value == 1 else ">"
    negative = value < 0 if value is not None else isinstance(step, c_ast.UnaryOp) and step.op == "-"
    if negative != (op in (">", ">=")):
        raise NotCanonical("loop test and increment go in opposite directions")
    return LoopDim(var, var_type or "int", lb, ub, op, step, loop, declares)


def loop_nest(loop: c_ast.For, depth: int) -> list[c_ast.For]:
    """The ``depth`` perfectly nested loops starting at ``loop`` (for ``collapse``)."""
    nest = [loop]
    while len(nest) < depth:
        body = nest[-1].stmt
        while isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
            body = body.block_items[0]
        if not isinstance(body, c_ast.For):
            raise NotCanonical(f"collapse({depth}) needs {depth} perfectly nested loops")
        nest.append(body)
    return nest
