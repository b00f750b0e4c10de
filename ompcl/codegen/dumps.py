"""What ``--dump-after NAME`` prints: each pass's product (regions, kernel bodies, device
functions, programs, the printing decisions) as text, one function per kind of product.

Consumes the typed values a pass leaves on the unit; produces text for the user to read (never
parsed back).
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.ctypes_ import C_PRINTER, TypeEnv, c_text, walk
from ..ir import KernelSpec, Region
from ..transform.device import DeviceCode, Function
from ..transform.indices import SUFFIX
from . import names as N
from .cprinter import OpenCLPrinter


def describe(r: Region) -> str:
    """A region as ``--dump-after analyze`` shows it."""
    head = f"{r.loc}: region {r.id}: " + ("offload" if r.offload else "host")
    parts = ["  loops: " + ", ".join(f"{d.var} = {c_text(d.lb)}; {d.var} {d.op} "
                                     f"{c_text(d.ub)}; step {c_text(d.step)}"
                                     for d in r.loops)]
    for a in r.arrays:
        lo, hi = N.extent(a.extent, a.var.ctype.dims)
        parts.append(f"  array {a.name} mode={a.mode} extent="
                     + ("whole" if a.extent is None else f"[{lo}, {hi}]"))
    parts += [f"  scalar {v.name}" for v in r.scalars]
    parts += [f"  reduction {x.op}:{x.name}" for x in r.reductions]
    parts += [f"  reason [{why.id}]: {why.message}" for why in r.reasons]
    return "\n".join([head] + parts)


def loop_bodies(regions: list[Region]) -> str:
    """Each kernel's loops (collapsed ones in their new order, extents), then its body."""
    return "\n".join(f"{describe(r)}\n{c_text(r.loops[-1].loop.stmt)}" for r in regions)


def kernel_bodies(kernels: tuple[KernelSpec, ...], ast: c_ast.FileAST) -> str:
    printer = OpenCLPrinter(TypeEnv.of(ast))
    return "\n".join(f"{k.name}:\n{printer.visit(k.body)}" for k in kernels)


def functions(fns: tuple[Function, ...]) -> str:
    return "\n".join(OpenCLPrinter(fenv).visit(f) for f, fenv in fns)


def code(kernels: tuple[KernelSpec, ...], fns: tuple[Function, ...], ast: c_ast.FileAST) -> str:
    """Kernel bodies, then device functions."""
    return "\n".join(filter(None, (kernel_bodies(kernels, ast), functions(fns))))


def variants(found: dict, ast: c_ast.FileAST) -> str:
    """Each region's reordered kernels (``transform.dynreorder.Variant``), by region id."""
    out = []
    for rid, vs in sorted(found.items()):
        for v in vs:
            arrays = ", ".join(f"{a.name} perm={list(a.perm)}" for a in v.arrays)
            out.append(f"region {rid}: kernel {v.spec.name} ({v.shape} shape): {arrays}")
            out.append(OpenCLPrinter(TypeEnv.of(ast)).visit(v.spec.body))
    return "\n".join(out)


def programs(progs: tuple[DeviceCode, ...], ast: c_ast.FileAST) -> str:
    """Each program's kernel bodies (with their private copies) and device functions."""
    env, out = TypeEnv.of(ast), []
    for c in progs:
        for k in c.kernels:
            copies = "".join(f" (private copy of {p.name}, merged by {p.merge})"
                             for p in k.copies)
            out.append(f"{k.name}:{copies}\n{OpenCLPrinter(env).visit(k.body)}")
        out.append(functions(c.functions))
    return "\n".join(filter(None, out))


def _facts(progs: tuple[DeviceCode, ...], fact) -> str:
    """``fact(spec) -> text`` of every kernel of every program that has one."""
    lines = ((k.name, fact(k)) for c in progs for k in c.kernels)
    return "\n".join(f"{name}: {text}" for name, text in lines if text)


def narrowing(progs: tuple[DeviceCode, ...]) -> str:
    return _facts(progs, lambda k: f"{'32' if k.narrow else '64'}-bit counters")


def tiling(progs: tuple[DeviceCode, ...]) -> str:
    return _facts(progs, lambda k: "tiles of the two innermost loops" if k.tiled
                  else "runs along the innermost loop")


def indices(ast: c_ast.FileAST) -> str:
    """The functions whose pointers became indices (``transform.indices``), as C."""
    return "\n".join(C_PRINTER.visit(f) for f in ast.ext if isinstance(f, c_ast.FuncDef)
                     and any(isinstance(n, c_ast.Decl) and (n.name or "").endswith(SUFFIX)
                             for n in walk(f)))


def jam(progs: tuple[DeviceCode, ...], ast: c_ast.FileAST) -> str:
    printer = OpenCLPrinter(TypeEnv.of(ast))
    return _facts(progs, lambda k: printer.visit(k.jam) if k.jam is not None
                  else "iterations one at a time")


def reductions(progs: tuple[DeviceCode, ...], ast: c_ast.FileAST) -> str:
    printer = OpenCLPrinter(TypeEnv.of(ast))
    return _facts(progs, lambda k: ", ".join(
        f"{op}:{name} from {printer.visit(x)}"
        for (name, _, op), x in zip(k.reductions, k.identities)))
