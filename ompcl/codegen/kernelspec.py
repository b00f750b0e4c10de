"""Kernel and host interfaces: an offloadable ``Region`` -> its ``KernelSpec`` (kernel
parameters and prologue as ``c_ast.Decl`` nodes with OpenCL qualifiers, per-work-item privates,
the loop's body as the user wrote it) and its ``HostInterface`` (the outlined host function's
parameters); and the facts of a region the kernel rewrites of ``transform`` take (views to
flatten, atomic targets, buffers to check), in the kernel's names and OpenCL types.

Both sides of the kernel's argument list are decided here, once per region: the host template
passes arguments in exactly the order of ``KernelSpec.params``.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.ctypes_ import SCALARS, c_text, renamed_type, walk
from ..analysis.linear import linear_steps
from ..analysis.loops import CONSTANT_TEXT
from ..frontend.clone import clone, clone_with
from ..ir import ArrayArg, HostInterface, HostParam, KernelSpec, Region, Var
from ..transform.linearize import row_dims
from ..transform.rename import device_name
from . import names as N


def cl_type(c_base: str) -> str:
    """OpenCL spelling of a normalised C scalar type, or of a struct type (a typedef name as
    it is, ``struct tag`` as the one-word alias the kernel program declares)."""
    if c_base in SCALARS:
        return SCALARS[c_base][0]
    return N.struct_alias(c_base) if c_base.startswith(("struct ", "union ")) else c_base


def _spelled(c_base: str) -> str:
    """``cl_type`` as the kernel program spells it where it is no type node: a typedef named
    like an OpenCL type (``complex``) renamed as the printer renames it."""
    cl = cl_type(c_base)
    return cl if c_base in SCALARS else device_name(cl)


def _type(name: str | None, cl: str, quals: list[str]) -> c_ast.TypeDecl:
    return c_ast.TypeDecl(name, list(quals), None, c_ast.IdentifierType([cl]))


def scalar_decl(name: str, cl: str, quals: tuple[str, ...] = ()) -> c_ast.Decl:
    """``quals cl name``"""
    return c_ast.Decl(name, list(quals), [], [], [], _type(name, cl, list(quals)), None, None)


def pointer_decl(name: str, cl: str, space: str = "__global") -> c_ast.Decl:
    """``space cl *name``"""
    return c_ast.Decl(name, [space], [], [], [], c_ast.PtrDecl([], _type(name, cl, [space])),
                      None, None)


def _rows(inner: c_ast.Node, rows: tuple[str, ...]) -> c_ast.Node:
    for dim in reversed(rows):
        inner = c_ast.ArrayDecl(inner, c_ast.ID(dim), [])
    return inner


def view_decl(name: str, cl: str, rows: tuple[str, ...], k: int,
              copy: str | None = None) -> c_ast.Decl:
    """``__global cl (*name)[rows] = (__global cl (*)[rows])(buffer + offset)``: the user's
    array name as a typed view of buffer ``k``; with ``copy``, the same view of that private
    array instead."""
    start = c_ast.ID(copy) if copy else \
        c_ast.BinaryOp("+", c_ast.ID(N.buffer(k)), c_ast.ID(N.offset(k)))
    space = [] if copy else ["__global"]
    if not rows:
        return c_ast.Decl(name, list(space), [], [], [],
                          c_ast.PtrDecl([], _type(name, cl, space)), start, None)
    cast_type = c_ast.PtrDecl([], _rows(_type(None, cl, space), rows))
    cast = c_ast.Cast(c_ast.Typename(None, list(space), None, cast_type), start)
    return c_ast.Decl(name, list(space), [], [], [],
                      c_ast.PtrDecl([], _rows(_type(name, cl, space), rows)), cast, None)


def global_param(v: Var) -> c_ast.Decl:
    """A device function's parameter for a global it uses: arrays as ``__global`` pointers to
    their rows, scalars by value."""
    name, cl = device_name(v.name), cl_type(v.ctype.base)
    if v.ctype.is_scalar:
        return scalar_decl(name, cl)
    rows = v.ctype.row_dims
    return c_ast.Decl(name, ["__global"], [], [], [],
                      c_ast.PtrDecl([], _rows(_type(name, cl, ["__global"]), rows)), None, None)


def is_vla(a: ArrayArg) -> bool:
    """An array seen through a pointer to variable-length rows (flat in the kernel)."""
    return a.var.ctype.pointer and not all(CONSTANT_TEXT.fullmatch(d)
                                           for d in a.var.ctype.row_dims)


def _array_params(a: ArrayArg, k: int) -> list[c_ast.Decl]:
    """Buffer, view offset, and the mapped range the bounds checker allows."""
    return [pointer_decl(N.buffer(k), cl_type(a.var.ctype.base)),
            scalar_decl(N.offset(k), "long", ("const",)),
            scalar_decl(N.checked_lo(k), "long", ("const",)),
            scalar_decl(N.checked_hi(k), "long", ("const",))]


def _private_decl(v: Var) -> c_ast.Decl:
    decl = clone(v.decl)
    decl.init = None
    decl.storage = []
    decl.quals = [q for q in (decl.quals or []) if q != "const"]
    for sub in walk(decl.type):
        if isinstance(sub, c_ast.TypeDecl):
            sub.quals = [q for q in (sub.quals or []) if q != "const"]
    return decl


def _private_decls(region: Region) -> tuple[c_ast.Decl, ...]:
    """Each iteration's own copies; a linear variable's starts at its value before the loop
    (the kernel parameter of its name, which the copy shadows) plus the logical iteration's
    number times the step (``analysis.linear``)."""
    steps = linear_steps(region.directive or region.bound.directive)
    steps = steps if isinstance(steps, dict) else {}
    out: list[c_ast.Decl] = []
    for v in region.privates + region.lastprivates:
        decl = _private_decl(v)
        if v.name in steps:
            start = N.linear_start(v.name)
            first = _private_decl(v)
            first.name, first.type, first.init = start, renamed_type(first.type, start), \
                c_ast.ID(v.name)
            step = steps[v.name]
            decl.init = c_ast.BinaryOp("+", c_ast.ID(start), c_ast.BinaryOp(
                "*", c_ast.ID("ompcl_g0"), c_ast.ID(step) if step[-1].isalpha() or
                step[-1] == "_" else c_ast.Constant("int", step)))
            out.append(first)
        out.append(decl)
    return tuple(out)


def vla_views(region: Region) -> dict[str, list[c_ast.Node]]:
    """User name -> row dimensions of each array the kernel sees flat (``is_vla``); member
    chains among them (``double (*u)[g->ny]``) read as the variables hoisted for them."""
    hoisted = {c_text(v.decl.init): v.name for v in region.hoists}

    def named(x: c_ast.Node) -> c_ast.Node | None:
        hit = isinstance(x, c_ast.StructRef) and hoisted.get(c_text(x))
        return c_ast.ID(hit, x.coord) if hit else None
    return {a.name: [c_ast.ID(n) for n in a.tree.names] if a.tree else
            [clone_with(d, named) for d in row_dims(a.var.decl)]
            for a in region.arrays if is_vla(a)}


def atomic_targets(region: Region) -> tuple[set[str], dict[str, str], dict[str, str]]:
    """Device names of the shared scalars (buffers in the kernel), device name -> OpenCL
    element type of every buffer, and of the arrays the loop only updates."""
    shared = {device_name(a.name) for a in region.arrays if a.var.ctype.is_scalar}
    types = {device_name(a.name): cl_type(a.var.ctype.base) for a in region.arrays}
    return shared, types, {device_name(n): types[device_name(n)] for n in region.updated}


def check_buffers(region: Region) -> dict[str, tuple[int, str, str, int]]:
    """Device name -> (buffer index, OpenCL element type, user name, subscripts of an
    element) of each buffer, as the bounds checker wraps their accesses."""
    return {device_name(a.name): (k, _spelled(a.var.ctype.base), a.name,
                                  1 if is_vla(a) else
                                  len(a.var.ctype.dims) + int(a.var.ctype.pointer))
            for k, a in enumerate(region.arrays)}


def kernel_spec(region: Region) -> KernelSpec:
    """The kernel of one offloadable region, its body as the user wrote it (the passes of
    ``transform`` lower it)."""
    params: list[c_ast.Decl] = []
    prologue: list[c_ast.Decl] = []
    views = vla_views(region)
    for k, a in enumerate(region.arrays):
        params += _array_params(a, k)
        prologue.append(view_decl(device_name(a.name), cl_type(a.var.ctype.base),
                                  () if a.name in views else a.var.ctype.row_dims, k))
    for v in region.scalars:
        params.append(scalar_decl(device_name(v.name), cl_type(v.ctype.base)))
    for k in range(len(region.loops)):
        params += [scalar_decl(N.loop_param(base, k), "long", ("const",))
                   for base in (N.LB, N.STEP, N.TRIPS)]
    reds = tuple((device_name(r.name), cl_type(r.ctype), r.op) for r in region.reductions)
    params += [pointer_decl(N.result(j), cl) for j, (_, cl, _) in enumerate(reds)]
    lps = tuple((device_name(v.name), cl_type(v.ctype.base)) for v in region.lastprivates)
    params += [pointer_decl(N.lastprivate(j), cl) for j, (_, cl) in enumerate(lps)]
    params.append(pointer_decl(N.CHECK_REPORT, "int"))
    body = region.loops[-1].loop.stmt
    if not isinstance(body, c_ast.Compound):
        body = c_ast.Compound([body], body.coord)
    d = region.bound.directive
    return KernelSpec(region.id, N.kernel(region.id), tuple(params), tuple(prologue),
                      _private_decls(region),
                      body, tuple((device_name(x.var), cl_type(x.var_type)) for x in region.loops),
                      reds, lps, tuple(region.functions), d.loc, d.text)


# -- the outlined host function ---------------------------------------------------------------

def _param(decl: c_ast.Decl, name: str, t: c_ast.Node) -> c_ast.Decl:
    return c_ast.Decl(name, list(decl.quals or []), [], [], [], t, None, None)


def host_interface(region: Region) -> HostInterface:
    """How each local variable the region's kernel needs reaches its outlined host function
    (privates stay with the original loop, which runs in place)."""
    d = region.directive
    lastp = set(d.names_in("lastprivate"))
    # linear: lastprivates whose value before the loop the kernel reads too
    linear = {v.name for v in region.lastprivates} & {v.name for v in region.scalars}
    # loop variables are private to the loop too (their value before it is never read)
    private = (set(d.names_in("private")) | {x.var for x in region.loops}) - lastp - linear
    reds = {r.name for r in region.reductions}  # the clause's and the flags (sharing.flag)
    params = []
    # scalars first: a pointer to variable-length rows names them in its type
    for v in sorted(region.locals_used, key=lambda v: not v.ctype.is_scalar):
        decl = v.decl
        scalar = v.ctype.is_scalar or v.ctype.base == "?" and not v.ctype.is_array_like
        shared = any(a.name == v.name and a.var.ctype.is_scalar for a in region.arrays)
        ref = c_ast.PtrDecl([], renamed_type(decl.type, N.outer_ref(v.name)))
        if v.name in private:
            continue
        elif shared:  # updated atomically by the kernel, in the caller's variable
            role, t = "shared", ref
        elif scalar and v.name in linear:
            role, t = "linear", ref
        elif scalar and v.name in lastp:
            role, t = "lastprivate", ref
        elif scalar and v.name in reds:
            role, t = "reduction", ref
        elif isinstance(decl.type, c_ast.ArrayDecl):  # arrays decay to pointers to rows
            t = renamed_type(decl.type, v.name)
            role, t = "array", c_ast.PtrDecl([], t.type)
        else:  # read-only scalars and pointers: by value, under their own names
            role, t = "value", renamed_type(decl.type, v.name)
        name = N.outer_ref(v.name) if role in ("lastprivate", "reduction", "shared", "linear") \
            else v.name
        params.append(HostParam(v, role, _param(decl, name, t)))
    return HostInterface(region.id, tuple(params))
