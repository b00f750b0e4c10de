"""Device functions: a user function called from a kernel -> its copy as an OpenCL function
(pointer and array parameters in ``__global`` memory, no storage class or ``inline``, the
globals it uses as extra parameters); and ``DeviceCode``, one OpenCL program's kernels and
device functions as the lowering passes leave them for the printer."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from pycparser import c_ast

from ..analysis.ctypes_ import TypeEnv, walk
from ..analysis.memcalls import lowered_function
from ..frontend.clone import clone
from ..ir import KernelSpec, Region, Var

#: a device function and the type environment of the file that defines it
Function = tuple[c_ast.FuncDef, TypeEnv]


@dataclass(frozen=True)
class DeviceCode:
    """One OpenCL program before printing: its kernels, the device function versions they
    call (in print order) and the atomic helpers those functions call."""

    kernels: tuple[KernelSpec, ...]
    functions: tuple[Function, ...] = ()
    helpers: frozenset = frozenset()  # (operator, OpenCL type) called by device functions


def _array_typedef(n: c_ast.Node, env: TypeEnv):
    """(the node holding it, the TypeDecl, the typedef's array type) of a declaration whose
    type is a typedef name of an array type, under any pointers; None otherwise."""
    if not isinstance(n, (c_ast.Decl, c_ast.Typename)):
        return None
    holder, t = n, n.type  # the node whose .type is the TypeDecl (under any pointers)
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        holder, t = t, t.type
    names = getattr(getattr(t, "type", None), "names", None)
    target = env.typedefs.get(names[0]) if names and len(names) == 1 else None
    return (holder, t, target) if isinstance(t, c_ast.TypeDecl) and isinstance(
        target, c_ast.ArrayDecl) else None


def expand_array_typedefs(node: c_ast.Node, env: TypeEnv | None) -> None:
    """Declarations in ``node`` whose type is a typedef name of an array type, or a pointer to
    one (``real3 a``, ``real3 *p`` of ``typedef double real3[3]``), spelled out (``double
    a[3]``, ``double (*p)[3]``): the kernel program has no such typedef, and a pointer
    parameter's address space goes on its element type."""
    if env is None:
        return
    for n in walk(node):
        found = _array_typedef(n, env)
        if found is not None:
            holder, t, target = found
            spelled = clone(target)
            for sub in walk(spelled):
                if isinstance(sub, c_ast.TypeDecl):
                    sub.declname = t.declname
                    sub.quals = list(sub.quals or []) + list(t.quals or [])
            holder.type = spelled


def spelled_out(k: KernelSpec, env: TypeEnv) -> KernelSpec:
    """The kernel with declarations of array typedef types spelled out (``real3 dr`` ->
    ``double dr[3]``), in a copy of its body (the program's own tree stays as it is)."""
    if not any(_array_typedef(n, env) for root in (k.body, *k.privates) for n in walk(root)):
        return k
    body, privates = clone(k.body), tuple(clone(p) for p in k.privates)
    for n in (body, *privates):
        expand_array_typedefs(n, env)
    return replace(k, body=body, privates=privates)


def device_function(fdef: c_ast.FuncDef, extra: list[c_ast.Decl] = (),
                    env: TypeEnv | None = None) -> c_ast.FuncDef:
    """Copy of a function whose pointer/array parameters point to ``__global`` memory, with
    the ``extra`` parameters (the globals it uses) appended (``env``: the file's types, for
    array typedefs)."""
    out = clone(fdef)
    expand_array_typedefs(out, env)
    params = out.decl.type.args.params if out.decl.type.args else []
    for p in params:
        if not isinstance(p, c_ast.Decl):
            continue
        if isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl)):
            inner = p.type.type
            while not isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            inner.quals = list(inner.quals or []) + ["__global"]
    if extra:  # after the qualifiers above: the extra parameters carry their own
        plist = [p for p in params if not (isinstance(p, c_ast.Typename) and getattr(
            p.type.type, "names", None) == ["void"])]
        out.decl.type.args = c_ast.ParamList(plist + list(extra), fdef.coord)
    out.decl.storage = [s for s in (out.decl.storage or []) if s not in ("extern", "static")]
    out.decl.funcspec = [f for f in (out.decl.funcspec or []) if f != "inline"]
    return out


def function_globals(offload: list[Region]) -> dict[str, tuple[str, ...]]:
    """Function name -> the globals it uses (passed to its device version as parameters)."""
    extra: dict[str, tuple[str, ...]] = {}
    for r in offload:
        if r.calls is not None:
            extra.update(r.calls.function_globals)
    return extra


def device_functions(offload: list[Region], ast: c_ast.FileAST, env: TypeEnv,
                     param: Callable[[Var], c_ast.Decl]) -> tuple[Function, ...]:
    """Every function the kernels call, as a device function with a parameter (``param``)
    per global it uses, each with the type environment of the file that defines it: this
    file's in file order, then those from other files of the program."""
    fnames = {f for r in offload for f in r.functions}
    extra = function_globals(offload)
    external, scope = {}, {}
    for r in offload:
        if r.calls is not None:
            external.update(r.calls.external)
        scope.update(r.scope)
    local = [(lowered_function(e, ast, env), env) for e in ast.ext  # (memset ... as loops)
             if isinstance(e, c_ast.FuncDef) and e.decl.name in fnames
             and e.decl.name not in external]
    others = [(x.fdef, TypeEnv.of(x.ast)) for x in external.values()]
    return tuple((device_function(fdef, [param(scope[g]) for g in extra.get(fdef.decl.name, ())],
                                  fenv), fenv) for fdef, fenv in local + others)
