"""Enumerators declared inside a function (``enum { N = 100 };`` in ``main``) as the constants
they are: the code ompcl generates outside the function (the region's host function, its
kernel) cannot name them, so the device version of a loop that uses one reads its value.

Consumes a loop's function and the variables the loop uses; produces the values of the
function's enumerators (those whose values are integer constant expressions) that can be
substituted (no variable the loop uses has a type that names them: its extent or its type is
printed in the generated code), and a copy of a loop with those names replaced by their
values.
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone_with
from ..ir import Var
from .ctypes_ import walk
from .loops import const_int


def function_enumerators(func: c_ast.FuncDef | None) -> dict[str, int]:
    """The enumerators declared in ``func``'s body with the values C gives them (those after
    one whose value is not an integer constant expression are left out)."""
    out: dict[str, int] = {}
    for e in walk(func.body) if func is not None else ():
        if not isinstance(e, c_ast.Enum) or e.values is None:
            continue
        value = -1
        for item in e.values.enumerators:
            if item.value is None:
                value += 1
            else:
                v = const_int(_with_values(item.value, out))
                if v is None:
                    break
                value = v
            out[item.name] = value
    return out


def substitutable(values: dict[str, int], used: list[Var]) -> dict[str, int]:
    """The enumerators no used variable's declared type names (an array of ``N`` elements
    keeps its loop on the host: its type is printed where ``N`` is unknown)."""
    named = set()
    for v in used:  # (an array's first dimension too: the host code bounds its extent by it)
        named |= {n.name for n in walk(v.decl)
                  if isinstance(n, c_ast.ID)} if v.decl is not None else set()
    return {k: x for k, x in values.items() if k not in named}


def with_values(loop: c_ast.Node, values: dict[str, int]) -> c_ast.Node:
    """A copy of ``loop`` with each enumerator of ``values`` as its value (the loop itself
    when it names none)."""
    if not values or not any(isinstance(n, c_ast.ID) and n.name in values for n in walk(loop)):
        return loop
    return _with_values(loop, values)


def _with_values(node: c_ast.Node, values: dict[str, int]) -> c_ast.Node:
    return clone_with(node, lambda n: c_ast.Constant("int", str(values[n.name]), n.coord)
                      if isinstance(n, c_ast.ID) and n.name in values else None)
