"""Atomics: ``#pragma omp atomic`` statements of a kernel body (captures too), GNU's atomic
builtins (``__sync_fetch_and_add(&a[k], v)``) and the updates of arrays the loop only updates
(a team's thread array its iterations share), -> calls of the device's atomic helpers
(``ompcl_atomic_add_double(&a[k], v)``; a capture's ``k = ompcl_atomic_fetch_add_int(&n, 1)``
returns the value before the update, ``..._add_fetch_...`` the one after); shared scalars
updated atomically are buffers in the kernel, so their uses become ``(*x)``.

Consumes a (renamed) body, the device names of the atomically updated scalars and the
OpenCL element type of each atomic target; produces the rewritten body and the set of
(operator, type) helpers it calls.
"""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from ..analysis.accesses import AtomicOp, atomic_form, capture_form, gnu_atomic, statement_atomic
from ..analysis.ctypes_ import TypeEnv, walk
from .addrspace import GLOBAL, origin, param_spaces
from .visitor import NodeTransformer

#: operator -> helper name part
OP_NAMES = {"+": "add", "-": "sub", "*": "mul", "/": "div", "&": "and", "|": "or", "^": "xor",
            "<<": "shl", ">>": "shr", "=": "write"}
#: the helpers that return a value: 'old+' the target's value before the update, 'new+' after
KEPT = ("old", "new")
OP_NAMES.update({k + op: (f"fetch_{w}" if k == "old" else f"{w}_fetch")
                 for op, w in list(OP_NAMES.items()) for k in KEPT})
ATOMIC_TYPES = {"int", "uint", "long", "ulong", "float", "double"}
WIDE = {"long", "ulong", "double"}  # their helpers need cl_khr_int64_base_atomics
INT64 = "cl_khr_int64_base_atomics"
#: where 64-bit atomics exist (OMPCL_NO_INT64: the runtime's test hook for a device without)
HAS_INT64 = f"#if defined({INT64}) && !defined(OMPCL_NO_INT64)"


def helper(op: str, cl: str) -> str:
    return f"ompcl_atomic_{OP_NAMES[op]}_{cl}"


#: helper name -> (operator, OpenCL type): every helper there is
_HELPERS = {helper(op, cl): (op, cl) for op in OP_NAMES for cl in ATOMIC_TYPES}


def helper_kind(name: str) -> tuple[str, str] | None:
    """(operator, OpenCL type) of the atomic helper named ``name``, else None."""
    return _HELPERS.get(name)


class _Atomics(NodeTransformer):
    def __init__(self, scalars: set[str], types: dict[str, str]):
        self.scalars, self.types = scalars, types
        self.used: set[tuple[str, str]] = set()

    def visit_ID(self, node: c_ast.ID) -> c_ast.Node:
        if node.name in self.scalars:
            return c_ast.UnaryOp("*", c_ast.ID(node.name, node.coord), node.coord)
        return node

    def visit_Compound(self, node: c_ast.Compound) -> c_ast.Compound:
        items, out, k = node.block_items or [], [], 0
        while k < len(items):
            item = items[k]
            kind = _kind(item)
            if kind in ("update", "write") and k + 1 < len(items):
                out.append(self.call(items[k + 1], kind))
                k += 2
                continue
            if kind == "capture" and k + 1 < len(items):
                out.append(self.rmw(capture_form(items[k + 1]), items[k + 1]))
                k += 2
                continue
            if isinstance(op := statement_atomic(item), AtomicOp):  # GNU's builtins
                out.append(self.rmw(op, item))
                k += 1
                continue
            if kind == "read" and k + 1 < len(items):  # a plain read of the shared value
                out.append(self.visit(items[k + 1]))
                k += 2
                continue
            new = self.visit(item)
            out.extend(new if isinstance(new, list) else [new] if new is not None else [])
            k += 1
        node.block_items = out
        return node

    def call(self, stmt: c_ast.Node, kind: str) -> c_ast.Node:
        target, op, value = atomic_form(stmt, kind)
        base = target
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        cl = self.types.get(getattr(base, "name", ""))
        if cl is None:  # a work-item's own variable: no other work-item sees it
            return self.visit(stmt)
        self.used.add((op, cl))
        target, value = self.visit(target), self.visit(value)
        return c_ast.FuncCall(c_ast.ID(helper(op, cl)), c_ast.ExprList(
            [c_ast.UnaryOp("&", target), value]), stmt.coord)

    def rmw(self, op: AtomicOp | None, stmt: c_ast.Node) -> c_ast.Node:
        """An update whose value is unused -> the update's helper call; a capture -> ``v = ``
        the call of the helper returning the value it keeps."""
        cl = self.cl_of(op.target) if op is not None else None
        if cl is None:  # a work-item's own variable: the statement as C has it
            return self.visit(stmt)
        call = self.helper_call(op, cl, stmt, op.var is not None)
        return call if op.var is None else c_ast.Assignment("=", self.visit(op.var), call,
                                                            stmt.coord)

    def visit_FuncCall(self, node: c_ast.FuncCall) -> c_ast.Node:
        """A GNU atomic builtin whose value is used -> the helper returning that value."""
        op = gnu_atomic(node)
        cl = self.cl_of(op.target) if isinstance(op, AtomicOp) else None
        return self.generic_visit(node) if cl is None else self.helper_call(op, cl, node, True)

    def cl_of(self, target: c_ast.Node) -> str | None:
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        return self.types.get(getattr(target, "name", ""))

    def helper_call(self, op: AtomicOp, cl: str, node: c_ast.Node, kept: bool) -> c_ast.Node:
        kind = (KEPT[op.new] + op.op) if kept else op.op
        self.used.add((kind, cl))
        return c_ast.FuncCall(c_ast.ID(helper(kind, cl)), c_ast.ExprList(
            [c_ast.UnaryOp("&", self.visit(op.target)), self.visit(op.value)]), node.coord)


class _Updates(NodeTransformer):
    """Updates of the named arrays' elements (``a[e] += v``, ``a[e]++``) -> helper calls."""

    def __init__(self, types: dict[str, str]):
        self.types = types
        self.used: set[tuple[str, str]] = set()

    def update(self, node: c_ast.Node) -> c_ast.Node:
        node = self.generic_visit(node)
        form = atomic_form(node, "update")
        if form is None or not isinstance(form[0], c_ast.ArrayRef):
            return node
        target, op, value = form
        base = target
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        cl = self.types.get(getattr(base, "name", ""))
        if cl is None:
            return node
        self.used.add((op, cl))
        return c_ast.FuncCall(c_ast.ID(helper(op, cl)), c_ast.ExprList(
            [c_ast.UnaryOp("&", target), value]), node.coord)

    visit_Assignment = visit_UnaryOp = update


def with_update_atomics(body: c_ast.Node, types: dict[str, str]
                        ) -> tuple[c_ast.Node, set[tuple[str, str]]]:
    """The body with every update of an element of the arrays in ``types`` (device name ->
    OpenCL element type; arrays the analysis proved only updated, see
    ``analysis.updates``) as an atomic helper call, and the helpers used."""
    if not types:
        return body, set()
    t = _Updates(types)
    return t.rewrite(body), t.used


def _kind(item: c_ast.Node) -> str | None:
    if not isinstance(item, c_ast.Pragma):
        return None
    words = item.string.split()
    if words[:2] != ["omp", "atomic"]:
        return None
    return next((w for w in ("compare", "capture", "update", "write", "read") if w in words[2:]),
                "update")


def with_atomics(body: c_ast.Compound, scalars: set[str], types: dict[str, str]
                 ) -> tuple[c_ast.Compound, set[tuple[str, str]]]:
    """The body with atomic statements as helper calls (``types``: device name of each
    shared atomic target -> its OpenCL element type), and the helpers used."""
    t = _Atomics(scalars, types)
    return t.rewrite(body), t.used


def wide_helpers(used: set[tuple[str, str]]) -> set[str]:
    """Names of the helpers among ``used`` that need 64-bit atomics."""
    return {helper(op, cl) for op, cl in used if cl in WIDE}


def mentioned(node: c_ast.Node) -> set[str]:
    """Every identifier ``node`` mentions (calls and uses)."""
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID)}


def callers_of(names: set[str], functions: list[c_ast.FuncDef]) -> set[str]:
    """The device functions that call one of ``names``, directly or through one another."""
    calls = {f.decl.name: mentioned(f) for f in functions}
    out: set[str] = set()
    while True:
        more = {f for f, m in calls.items() if f not in out and m & (names | out) - {f}}
        if not more:
            return out
        out |= more


def param_atomics(fns: list[tuple[c_ast.FuncDef, TypeEnv]], updated: set[tuple[str, str]],
                  origins: dict[str, c_ast.FuncDef], cl_type: Callable[[str], str]
                  ) -> tuple[list[tuple[c_ast.FuncDef, TypeEnv]], set[tuple[str, str]]]:
    """The device functions with the updates through their ``updated`` (function, parameter)
    pairs as atomic helper calls, in the versions where the parameter is ``__global`` (a
    work-item's own array needs none), and the helpers used (``cl_type``: the OpenCL
    spelling of a C element type)."""
    out, used = [], set()
    for f, fenv in fns:
        first = origins[origin(f.decl.name, origins)]
        spaces = param_spaces(f.decl.name, first)
        types = {}
        for p in first.decl.type.args.params if first.decl.type.args else []:
            if (first.decl.name, getattr(p, "name", None)) in updated and \
                    spaces.get(p.name) == GLOBAL:
                ct = fenv.ctype(p.type)
                if ct is not None:
                    types[p.name] = cl_type(ct.base)
        if types:
            body, helpers_used = with_update_atomics(f.body, types)
            used |= helpers_used
            f = c_ast.FuncDef(f.decl, f.param_decls, body, f.coord)
        out.append((f, fenv))
    return out, used


def guarded(text: str) -> str:
    """``text`` compiled only where the device has 64-bit atomics: elsewhere the kernels
    that need them do not exist, and their loops run on the host (kernel creation fails)."""
    return f"{HAS_INT64}\n{text}\n#endif"


def helpers(used: set[tuple[str, str]]) -> list[str]:
    """OpenCL definitions of the atomic helpers, as compare-and-swap loops (32-bit integer
    add and subtract use the built-ins); 64-bit ones only where the device has them."""
    out = [_helper(op, cl) for op, cl in sorted(used) if cl not in WIDE]
    wide = [_helper(op, cl) for op, cl in sorted(used) if cl in WIDE]
    if wide:
        out.append(guarded("\n".join([f"#pragma OPENCL EXTENSION {INT64} : enable"] + wide)))
    return out


def _helper(op: str, cl: str) -> str:
    name = helper(op, cl)
    kept, op = (op[:3], op[3:]) if op[:3] in KEPT else ("", op)
    wide = cl in WIDE
    bits = "long" if wide else "int"
    cas = "atom_cmpxchg" if wide else "atomic_cmpxchg"
    head = f"{cl if kept else 'void'} {name}(volatile __global {cl} *p, {cl} v)"
    if op in ("+", "-") and cl in ("int", "uint"):
        fn = "atomic_add" if op == "+" else "atomic_sub"
        if not kept:
            return f"{head} {{ {fn}(p, v); }}"
        return f"{head} {{ return {fn}(p, v){f' {op} v' if kept == 'new' else ''}; }}"
    to_bits = f"as_{bits}" if cl in ("float", "double") else f"({bits})"
    from_bits = f"as_{cl}" if cl in ("float", "double") else f"({cl})"
    new = "v" if op == "=" else f"cur {op} v"
    result = f"  return {from_bits}({'old' if kept == 'old' else 'upd'});\n" if kept else ""
    return (f"{head}\n{{\n"
            f"  {bits} old, upd;\n  do {{\n    {cl} cur = {from_bits}(*(volatile __global "
            f"{bits} *)p);\n    old = {to_bits}(cur);\n    upd = {to_bits}(({cl})({new}));\n"
            f"  }} while ({cas}((volatile __global {bits} *)p, old, upd) != old);\n{result}}}")
