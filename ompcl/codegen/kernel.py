"""Kernel generation: offloadable ``Region``s -> one OpenCL program (source text) per file.

Each region becomes ``__kernel void ompcl_k<id>``: the (collapsed) parallel loops form the
ND-range (innermost loop on dimension 0, so consecutive work-items touch consecutive
elements); each work-item walks its iterations with a grid stride (ragged sizes need no
guard, and the runtime may launch fewer work-groups than iterations), and reductions
combine in local memory per work-group.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jinja2
from pycparser import c_ast

from ..analysis.builtins import MATH
from ..analysis.ctypes_ import TypeEnv, walk
from ..ir import ArrayArg, Region
from ..transform.rename import device_name, renamed
from .cprinter import OpenCLPrinter, cl_type, global_pointer_params

WORK_GROUP = 128
_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                          keep_trailing_newline=True, undefined=jinja2.StrictUndefined)

_IDENTITY = {"+": "0", "|": "0", "^": "0", "||": "0", "*": "1", "&&": "1"}
_LIMITS = {"char": ("CHAR_MIN", "CHAR_MAX"), "uchar": ("0", "UCHAR_MAX"),
           "short": ("SHRT_MIN", "SHRT_MAX"), "ushort": ("0", "USHRT_MAX"),
           "int": ("INT_MIN", "INT_MAX"), "uint": ("0", "UINT_MAX"),
           "long": ("LONG_MIN", "LONG_MAX"), "ulong": ("0", "ULONG_MAX"),
           "float": ("-INFINITY", "INFINITY"), "double": ("-INFINITY", "INFINITY")}


@dataclass(frozen=True)
class ReductionSpec:
    name: str
    cl: str
    op: str

    @property
    def identity(self) -> str:
        if self.op == "max":
            return _LIMITS[self.cl][0]
        if self.op == "min":
            return _LIMITS[self.cl][1]
        if self.op == "&":
            return f"~({self.cl})0"
        return _IDENTITY[self.op]

    def combine(self, a: str, b: str) -> str:
        return combine_expr(self.op, a, b)


def combine_expr(op: str, a: str, b: str) -> str:
    """C/OpenCL expression combining two partial reduction values."""
    if op == "max":
        return f"(({a}) > ({b}) ? ({a}) : ({b}))"
    if op == "min":
        return f"(({a}) < ({b}) ? ({a}) : ({b}))"
    if op in ("&&", "||"):
        return f"(({a}) {op} ({b}))"
    return f"({a}) {op} ({b})"


def array_view(a: ArrayArg, k: int) -> tuple[str, str]:
    """(kernel parameter text, prologue line making the user's name a typed view)."""
    cl = cl_type(a.var.ctype.base)
    name = device_name(a.name)
    rows = a.var.ctype.row_dims
    param = f"__global {cl} *ompcl_b{k}, const long ompcl_o{k}"
    if not rows:
        return param, f"__global {cl} *{name} = ompcl_b{k} + ompcl_o{k};"
    shape = "".join(f"[{d}]" for d in rows)
    return param, (f"__global {cl} (*{name}){shape} = (__global {cl} (*){shape})"
                   f"(ompcl_b{k} + ompcl_o{k});")


def _decl_text(printer: OpenCLPrinter, v) -> str:
    decl = renamed(v.decl, set())
    decl.init = None
    decl.storage = []
    decl.quals = [q for q in (decl.quals or []) if q != "const"]
    return printer.visit(decl)


def kernel_spec(region: Region, env: TypeEnv, functions: set[str]) -> dict:
    """Everything the kernel template needs for one region."""
    printer = OpenCLPrinter(env)
    params, prologue = [], []
    for k, a in enumerate(region.arrays):
        param, view = array_view(a, k)
        params.append(param)
        prologue.append(view)
    for v in region.scalars:
        params.append(f"{cl_type(v.ctype.base)} {device_name(v.name)}")
    n = len(region.loops)
    for k in range(n):
        params.append(f"const long ompcl_lb{k}, const long ompcl_st{k}, const long ompcl_n{k}")
    reds = [ReductionSpec(device_name(r.name), cl_type(r.ctype), r.op) for r in region.reductions]
    params += [f"__global {r.cl} *ompcl_r{j}" for j, r in enumerate(reds)]
    lps = [{"name": device_name(v.name), "cl": cl_type(v.ctype.base)} for v in region.lastprivates]
    params += [f"__global {lp['cl']} *ompcl_lp{j}" for j, lp in enumerate(lps)]
    privates = [_decl_text(printer, v) for v in region.privates + region.lastprivates]
    dims = [{"k": k, "dim": n - 1 - k, "var": device_name(d.var), "cl": cl_type(d.var_type)}
            for k, d in enumerate(region.loops)]
    body = renamed(region.loops[-1].loop.stmt, functions)
    if not isinstance(body, c_ast.Compound):
        body = c_ast.Compound([body])
    printer.indent_level = 4
    return {
        "name": f"ompcl_k{region.id}",
        "loc": str(region.loc),
        "directive": region.bound.directive.text.replace("*/", "* /"),
        "params": params,
        "prologue": prologue,
        "reductions": reds,
        "dims": dims,
        "last_guard": " && ".join(f"ompcl_g{k} == ompcl_n{k} - 1" for k in range(n)),
        "lastprivates": lps,
        "privates": privates,
        "body": printer.visit(body).rstrip("\n"),
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


def generate_kernels(regions: list[Region], ast: c_ast.FileAST, env: TypeEnv, source: str) -> str:
    """OpenCL C source with a kernel per offloadable region and the functions they call."""
    offload = [r for r in regions if r.offload]
    fnames = {f for r in offload for f in r.functions}
    order = [e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name in fnames]
    printer = OpenCLPrinter(env)
    device_fns = [renamed(global_pointer_params(fdef), fnames) for fdef in order]
    # prototypes first: a function may call one defined later in the file
    functions = [printer.visit(f.decl) + ";" for f in device_fns]
    functions += [printer.visit(f) for f in device_fns]
    kernels = [kernel_spec(r, env, fnames) for r in offload]
    used = set(_IDENT.findall("\n".join(functions) + "".join(
        k["body"] + "".join(k["prologue"] + k["params"] + k["privates"]) for k in kernels)))
    return _ENV.get_template("kernels.cl.j2").render(
        source=Path(source).name, fp64=_uses_double(offload, order, env), wg=WORK_GROUP,
        enums=_enums_used(ast, printer, used), functions=functions, kernels=kernels)


_IDENT = re.compile(r"[A-Za-z_]\w*")


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

