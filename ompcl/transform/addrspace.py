"""Address spaces of pointer arguments: device functions whose pointer parameters receive
private arrays (a work-item's own arrays) are cloned with those parameters in ``__private``
memory; call sites call the clone for their arguments' spaces.

Consumes kernel bodies (with the names of their private arrays) and the device functions
(every pointer parameter ``__global``); produces the rewritten bodies and the clones needed,
the all-``__global`` version keeping the function's name (``device_code``: a program's
``DeviceCode``).
"""
from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from ..frontend.clone import clone
from ..ir import KernelSpec
from .device import DeviceCode, Function
from .visitor import NodeTransformer

GLOBAL, PRIVATE = "g", "p"


def pointer_params(fdef: c_ast.FuncDef) -> list[int]:
    """Indexes of a function's pointer (or array) parameters."""
    params = fdef.decl.type.args.params if fdef.decl.type.args else []
    return [k for k, p in enumerate(params) if isinstance(p, c_ast.Decl)
            and isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))]


def clone_name(name: str, spaces: tuple[str, ...]) -> str:
    return name if PRIVATE not in spaces else f"{name}_{''.join(spaces)}"


def param_spaces(name: str, first: c_ast.FuncDef) -> dict[str, str]:
    """Address space of each pointer parameter of a device function version (clones of a
    function carry their spaces after its name, see ``clone_name``)."""
    ks = pointer_params(first)
    spaces = name[len(first.decl.name) + 1:] if name != first.decl.name else GLOBAL * len(ks)
    params = first.decl.type.args.params
    return {params[k].name: s for k, s in zip(ks, spaces)}


def origin(name: str, functions: dict) -> str:
    """The function a clone was made from (clones add a suffix to its name)."""
    return name if name in functions else name.rsplit("_", 1)[0]


class _Calls(NodeTransformer):
    """Renames calls by the spaces of their pointer arguments; records what is needed."""

    def __init__(self, fdefs: dict[str, c_ast.FuncDef], private: set[str],
                 param_spaces: dict[str, str], arrays: set[str] = frozenset()):
        self.fdefs, self.private = fdefs, private
        self.param_spaces = dict(param_spaces)  # pointers (parameters, locals) -> space
        self.arrays = arrays  # the kernel's buffers (global)
        self.needed: list[tuple[str, tuple[str, ...]]] = []

    def space(self, arg: c_ast.Node) -> str:
        """Where a pointer expression points: the space of the array or pointer it is
        derived from (``&a[k]``, a row ``a[k]``, ``p + k``, a cast)."""
        while True:
            if isinstance(arg, c_ast.TernaryOp):  # one space if both choices have it
                a, b = self.space(arg.iftrue), self.space(arg.iffalse)
                return a if a == b else GLOBAL
            if isinstance(arg, c_ast.ArrayRef):
                arg = arg.name
            elif isinstance(arg, c_ast.UnaryOp):
                arg = arg.expr
            elif isinstance(arg, c_ast.Cast):
                arg = arg.expr
            elif isinstance(arg, c_ast.BinaryOp):
                arg = arg.left if self._pointerish(arg.left) else arg.right
            else:
                break
        name = getattr(arg, "name", None)
        if name in self.param_spaces:
            return self.param_spaces[name]
        return PRIVATE if name in self.private else GLOBAL

    def _pointerish(self, e: c_ast.Node) -> bool:
        while isinstance(e, (c_ast.ArrayRef, c_ast.Cast)):
            e = e.name if isinstance(e, c_ast.ArrayRef) else e.expr
        return isinstance(e, c_ast.ID) and (e.name in self.param_spaces or e.name in self.private
                                            or e.name in self.arrays)

    def visit_Decl(self, node: c_ast.Decl) -> c_ast.Decl:
        """A local pointer points where its initial value does (qualified when global)."""
        node = self.generic_visit(node)
        if isinstance(node.type, c_ast.PtrDecl) and node.init is not None and node.name:
            space = self.space(node.init)
            self.param_spaces[node.name] = space
            if space == GLOBAL:
                inner = node.type.type
                while not isinstance(inner, c_ast.TypeDecl):
                    inner = inner.type
                inner.quals = list(inner.quals or []) + ["__global"]
        return node

    def visit_FuncCall(self, node: c_ast.FuncCall) -> c_ast.FuncCall:
        node = self.generic_visit(node)
        name = getattr(node.name, "name", None)
        if name not in self.fdefs:
            return node
        args = node.args.exprs if node.args is not None else []
        spaces = tuple(self.space(args[k]) if k < len(args) else GLOBAL
                       for k in pointer_params(self.fdefs[name]))
        self.needed.append((name, spaces))
        node.name = c_ast.ID(clone_name(name, spaces), node.name.coord)
        return node


def _locals(body: c_ast.Node) -> set[str]:
    """Names declared in a body (a work-item's own memory), pointers aside (they point to
    wherever their value comes from)."""
    return {n.name for n in _walk(body) if isinstance(n, c_ast.Decl) and n.name
            and not isinstance(n.type, c_ast.PtrDecl)}


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


def _clone(fdef: c_ast.FuncDef, spaces: tuple[str, ...]) -> c_ast.FuncDef:
    out = clone(fdef)
    out.decl.name = clone_name(fdef.decl.name, spaces)
    t = out.decl.type.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = out.decl.name
    params = out.decl.type.args.params
    for k, space in zip(pointer_params(fdef), spaces):
        if space == PRIVATE:
            inner = params[k].type
            while not isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            inner.quals = [q for q in inner.quals if q != "__global"]
            params[k].quals = [q for q in params[k].quals if q != "__global"]
    return out


def specialise(bodies: list[tuple[c_ast.Node, set[str], set[str]]],
               fdefs: dict[str, c_ast.FuncDef]
               ) -> tuple[list[c_ast.Node], list[c_ast.FuncDef]]:
    """Kernel bodies (with their private array names and the pointers to their buffers) ->
    rewritten bodies, and every device function version they need (in first-needed order,
    callees before callers not implied)."""
    out_bodies, todo = [], []
    for body, private, buffers in bodies:
        calls = _Calls(fdefs, private | _locals(body), {b: GLOBAL for b in buffers})
        out_bodies.append(calls.rewrite(body))
        todo += calls.needed
    done: dict[tuple[str, tuple[str, ...]], c_ast.FuncDef] = {}
    while todo:
        name, spaces = todo.pop(0)
        if (name, spaces) in done:
            continue
        fdef = fdefs[name]
        params = fdef.decl.type.args.params
        pspaces = {params[k].name: s for k, s in zip(pointer_params(fdef), spaces)}
        scalars = {p.name for p in params if isinstance(p, c_ast.Decl) and p.name not in pspaces}
        calls = _Calls(fdefs, _locals(fdef.body) | scalars, pspaces)
        clone = _clone(fdef, spaces)
        clone.body = calls.rewrite(fdef.body)
        done[(name, spaces)] = clone
        todo += calls.needed
    return out_bodies, list(done.values())


def device_code(specs: tuple[KernelSpec, ...], functions: tuple[Function, ...]) -> DeviceCode:
    """One program's kernels calling the versions of the device ``functions`` their
    arguments' spaces need, and those versions (each with its function's type environment)."""
    envs = {f.decl.name: fenv for f, fenv in functions}
    bodies, clones = specialise([(s.body, {d.name for d in s.privates}, {
        d.name for d in s.prologue if isinstance(d.type, c_ast.PtrDecl)}) for s in specs],
                                {f.decl.name: f for f, _ in functions})
    return DeviceCode(tuple(replace(s, body=b) for s, b in zip(specs, bodies)),
                      tuple((c, envs[origin(c.decl.name, envs)]) for c in clones))
