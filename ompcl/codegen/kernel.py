"""Kernel generation: ``KernelSpec`` s -> one OpenCL program (source text) per file.

Each spec becomes ``__kernel void ompcl_k<id>``: the (collapsed) parallel loops form the
ND-range (innermost loop on dimension 0, so consecutive work-items touch consecutive
elements); each work-item walks its iterations with a grid stride (ragged sizes need no
guard, and the runtime may launch fewer work-groups than iterations), and reductions
combine in local memory per work-group. Called user functions are printed as device
functions, after prototypes of all of them.
"""
from __future__ import annotations

import re
from pathlib import Path

from pycparser import c_ast, c_generator

from ..analysis.builtins import MATH
from ..analysis.ctypes_ import TypeEnv, walk
from ..ir import KernelSpec, Region
from ..transform.device import device_function
from ..transform.reductions import combine, identity
from ..transform.rename import renamed
from . import names as N
from .cprinter import OpenCLPrinter
from .templates import render

WORK_GROUP = 128
_IDENT = re.compile(r"[A-Za-z_]\w*")


def combine_text(printer: c_generator.CGenerator, op: str, a: str, b: str) -> str:
    """C text combining two partial reduction values (``a``, ``b`` are C expressions)."""
    return printer.visit(combine(op, c_ast.ID(a), c_ast.ID(b)))


def _kernel_view(spec: KernelSpec, env: TypeEnv) -> dict:
    """What the kernel template prints for one spec."""
    printer = OpenCLPrinter(env)
    printer.indent_level = 4
    n = len(spec.dims)
    reds = [{"name": name, "cl": cl, "identity": printer.visit(identity(op, cl)),
             "combine": (lambda a, b, op=op: combine_text(printer, op, a, b))}
            for name, cl, op in spec.reductions]
    return {
        "name": spec.name,
        "loc": str(spec.loc),
        "directive": spec.directive_text.replace("*/", "* /"),
        "params": [printer.visit(p) for p in spec.params],
        "prologue": [printer.visit(d) + ";" for d in spec.prologue],
        "reductions": reds,
        "dims": [{"k": k, "dim": n - 1 - k, "var": var, "cl": cl}
                 for k, (var, cl) in enumerate(spec.dims)],
        "last_guard": " && ".join(f"ompcl_g{k} == {N.loop_param(N.TRIPS, k)} - 1"
                                  for k in range(n)),
        "lastprivates": [{"name": name, "cl": cl} for name, cl in spec.lastprivates],
        "privates": [printer.visit(d) for d in spec.privates],
        "body": printer.visit(spec.body).rstrip("\n"),
    }


def _uses_double(regions: list[Region], fdefs: list[c_ast.FuncDef], env: TypeEnv) -> bool:
    """True when any kernel or device function computes in double precision."""
    for r in regions:
        types = [a.var.ctype.base for a in r.arrays] + [v.ctype.base for v in r.scalars]
        if "double" in types + [red.ctype for red in r.reductions]:
            return True
    for node in [r.loops[-1].loop.stmt for r in regions] + list(fdefs):
        for sub in walk(node):
            if isinstance(sub, c_ast.Constant) and sub.type == "double":
                return True
            if isinstance(sub, c_ast.IdentifierType) and env.scalar_of(sub.names) == "double":
                return True
            name = getattr(getattr(sub, "name", None), "name", None)
            if isinstance(sub, c_ast.FuncCall) and MATH.get(name, ("", None))[1] == "double":
                return True
    return False


def generate_kernels(specs: tuple[KernelSpec, ...], regions: list[Region], ast: c_ast.FileAST,
                     env: TypeEnv, source: str) -> str:
    """OpenCL C source with a kernel per spec and the functions they call."""
    offload = [r for r in regions if r.offload]
    fnames = {f for r in offload for f in r.functions}
    order = [e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name in fnames]
    printer = OpenCLPrinter(env)
    device_fns = [renamed(device_function(fdef), fnames) for fdef in order]
    # prototypes first: a function may call one defined later in the file
    functions = [printer.visit(f.decl) + ";" for f in device_fns]
    functions += [printer.visit(f) for f in device_fns]
    kernels = [_kernel_view(s, env) for s in specs]
    used = set(_IDENT.findall("\n".join(functions) + "".join(
        k["body"] + "".join(k["prologue"] + k["params"] + k["privates"]) for k in kernels)))
    check_types = sorted({_buffer_type(s, site.buffer) for s in specs for site in s.sites})
    return render("kernels.cl.j2", source=Path(source).name, check_types=check_types,
                  fp64=_uses_double(offload, order, env), wg=WORK_GROUP,
                  enums=_enums_used(ast, printer, used), functions=functions, kernels=kernels)


def _buffer_type(spec: KernelSpec, k: int) -> str:
    """OpenCL element type of buffer parameter ``k`` of a kernel."""
    decl = next(p for p in spec.params if p.name == N.buffer(k))
    return decl.type.type.type.names[0]


def _enums_used(ast: c_ast.FileAST, printer: OpenCLPrinter, used: set[str]) -> list[str]:
    """File-scope enum definitions whose enumerators the kernels mention."""
    out = []
    for ext in ast.ext:
        enum = _enum_of(ext)
        if enum is not None and enum.values is not None and any(
                e.name in used for e in enum.values.enumerators):
            decl = c_ast.Decl(None, [], [], [], [], enum, None, None)
            out.append(printer.visit(decl) + ";")
    return out


def _enum_of(ext: c_ast.Node) -> c_ast.Enum | None:
    t = getattr(ext, "type", None)
    while t is not None and not isinstance(t, c_ast.Enum):
        t = getattr(t, "type", None)
    return t
