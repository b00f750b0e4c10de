"""Kernel printing: a ``DeviceCode`` (the kernels and device functions as the lowering passes
of ``transform`` leave them, see ``pipeline.PASSES``) and its ``Region`` s' loops -> one OpenCL
program (source text). Every rewrite and decision is a pass before this; it only prints.

Each spec becomes ``__kernel void ompcl_k<id>`` in two shapes, chosen when the runtime builds
the program for a device (``-DOMPCL_BLOCKED`` on CPU devices, see ``size_launch`` in the
runtime):
- blocked (CPU devices): work-item ``w`` of a 1-D range runs the ``w``-th contiguous chunk of
  the collapsed iteration space, in runs along the innermost loop whose variable steps by
  its constant step, so the device compiler vectorises each run like the host compiler
  vectorises the original loop; reductions write one partial result per work-item. Where an
  access is transposed between the two innermost collapsed loops (``transform.tiling``),
  the chunk is a contiguous range of square tiles of those two loops instead, each tile in
  runs along the innermost loop.
- grid (GPUs): the collapsed loops form the ND-range (innermost loop on dimension 0, so
  consecutive work-items touch consecutive elements), each work-item walking its iterations
  with a grid stride (ragged sizes need no guard, and the runtime may launch fewer
  work-groups than iterations), with 32-bit counters where the loops' constant bounds prove
  they fit; reductions combine in local memory per work-group.
Called user functions are printed as device functions, after prototypes of all of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast, c_generator

from ..analysis.builtins import MATH, is_math
from ..analysis.ctypes_ import SCALARS, TypeEnv, walk
from ..analysis.loops import const_int
from ..frontend.clone import clone
from ..ir import KernelSpec, LoopDim, Region
from ..transform.boundscheck import ASSERT_MACRO
from ..transform.atomics import (callers_of, guarded, helper, helpers, mentioned,
                                 wide_helpers)
from ..transform.device import DeviceCode, Function
from ..transform.jam import JAM
from ..transform.narrowing import constant_step, constant_trip
from ..transform.privatize import GUARD, Private, macro_definitions
from ..transform.reductions import combine
from ..transform.rename import device_name
from ..transform.tiling import TILE
from . import names as N
from .cprinter import OpenCLPrinter, printed_names
from .kernelspec import view_decl
from .records import Layout, layout_kernel, records
from .templates import render

CL_SCALARS = {v[0] for v in SCALARS.values()}

WORK_GROUP = 128
#: most accumulators per floating-point reduction and work-item in the blocked shape (the
#: runtime's OMPCL_LANES picks how many of them run, up to this)
LANES = 8
#: the largest loop body (in syntax tree nodes) printed once per lane
LANE_BODY_NODES = 120


def combine_text(printer: c_generator.CGenerator, op: str, a: str, b: str) -> str:
    """C text combining two partial reduction values (``a``, ``b`` are C expressions)."""
    return printer.visit(combine(op, c_ast.ID(a), c_ast.ID(b)))


def _split(k: int, trips: list[str]) -> str:
    """C text of counter ``k`` of the collapsed loops (iteration counts ``trips``) at linear
    iteration ``ompcl_q``: ``(q / (n[k+1] * ... * n[last])) % n[k]``, without the parts that
    do nothing."""
    inner = trips[k + 1:]
    q = "ompcl_q"
    if inner:
        q = f"{q} / {inner[0]}" if len(inner) == 1 else f"{q} / ({' * '.join(inner)})"
    if k == 0:
        return q
    return f"({q}) % {trips[k]}" if inner else f"{q} % {trips[k]}"


def _loop_terms(loop: LoopDim, k: int) -> tuple[str, str, str]:
    """Lower bound, step and iteration count of collapsed loop ``k`` as the kernel prints
    them: literals where they are integer constant expressions (the device compiler then
    divides by constants and knows each run's length), else the launch's parameters; the
    host passes the same values either way."""
    lb, st, trips = const_int(loop.lb), constant_step(loop), constant_trip(loop)
    params = (N.loop_param(b, k) for b in (N.LB, N.STEP, N.TRIPS))
    return tuple(p if v is None else f"{v}L" for v, p in zip((lb, st, trips), params))


def _int(term: str) -> str:
    """A loop term (``_loop_terms``) as a 32-bit ``int``: literals lose their ``L``."""
    return term[:-1] if term.endswith("L") else f"(int){term}"


def _increment(var: str, cl: str, step: int | None, st: str) -> str:
    """The loop variable's step to the next iteration of a run: by its constant step (an
    induction variable the device compiler recognises), else by the run-time step."""
    if step is None:
        return f"{var} += ({cl}){st}"
    return {1: f"{var}++", -1: f"{var}--"}.get(step, f"{var} {'+-'[step < 0]}= {abs(step)}")


def _dims_view(spec: KernelSpec, region: Region, narrow: bool) -> list[dict]:
    """Per collapsed loop: counter, ND-range dimension, the loop variable's value and, in the
    blocked shape, where a run starts and the constant (else run-time) step of its variable."""
    n = len(spec.dims)
    terms = [_loop_terms(loop, k) for k, loop in enumerate(region.loops)]
    out = []
    for k, ((var, cl), loop) in enumerate(zip(spec.dims, region.loops)):
        lb, st, trips = terms[k]
        step = constant_step(loop)
        value = gvalue = f"({cl})({lb} + ompcl_g{k} * {st})"
        gtrips = trips
        if narrow:  # every term provably fits: 32-bit arithmetic throughout
            gvalue = f"({cl})({_int(lb)} + ompcl_g{k} * {_int(st)})"
            gtrips = _int(trips)
        out.append({"k": k, "dim": n - 1 - k, "var": var, "cl": cl, "inner": k == n - 1,
                    "trips": trips, "split": _split(k, [t[2] for t in terms]), "value": value,
                    "next": _increment(var, cl, step, st), "gvalue": gvalue,
                    "gtrips": gtrips})
    return out


def _prologue(spec: KernelSpec, region: Region, printer: OpenCLPrinter,
              copies: tuple[Private, ...]) -> list[str]:
    """The views of the array arguments; an array with a private copy is, in the CPU shape,
    a view of that copy (zeroed first) instead."""
    lines = [printer.visit(d) + ";" for d in spec.prologue]
    for p in copies:
        view = spec.prologue[p.k]
        if p.sliced:
            lines[p.k] = _slice_view(p, view, region, printer, lines[p.k])
            continue
        rows = region.arrays[p.k].var.ctype.row_dims
        mine = printer.visit(view_decl(view.name, p.cl, rows, p.k, copy=p.copy)) + ";"
        lines[p.k] = (
            f"#if {GUARD}\n  {p.cl} {p.copy}[{p.elements}];  /* updates of "
            f"'{region.arrays[p.k].name}' by this work-item, merged at its end */\n"
            f"  for (long ompcl_i = 0; ompcl_i < {p.elements}; ompcl_i++)\n"
            f"    {p.copy}[ompcl_i] = {p.identity};\n  {mine}\n#else\n  {lines[p.k]}\n#endif")
    return lines


def _slice_view(p: Private, view: c_ast.Decl, region: Region, printer: OpenCLPrinter,
                plain: str) -> str:
    """A slice copy's view: the work-item's slice of the copies' buffer (shifted by the low
    end of the mapped range, which the slice starts at), zeroed first, when the launch has
    slices; else the user's buffer."""
    mine = clone(view)
    cast = mine.init if isinstance(mine.init, c_ast.Cast) else None
    start = cast.expr if cast else mine.init
    slice_ = c_ast.BinaryOp("-", c_ast.BinaryOp("+", c_ast.ID(p.copy), c_ast.BinaryOp(
        "*", c_ast.FuncCall(c_ast.ID("get_global_id"), c_ast.ExprList([c_ast.Constant(
            "int", "0")])), c_ast.ID(p.length))), c_ast.ID(N.checked_lo(p.k)))
    chosen = c_ast.TernaryOp(c_ast.ID(p.length), slice_, start)
    if cast:
        cast.expr = chosen
    else:
        mine.init = chosen
    return (f"#if {GUARD}  /* updates of '{region.arrays[p.k].name}' by this work-item in its "
            f"slice (when the launch has slices), merged at its end */\n"
            f"  {printer.visit(mine)};\n"
            f"  for (long ompcl_i = 0; ompcl_i < {p.length}; ompcl_i++)\n"
            f"    {p.copy}[get_global_id(0) * {p.length} + ompcl_i] = {p.identity};\n"
            f"#else\n  {plain}\n#endif")


def _copy_params(spec: KernelSpec, printer: OpenCLPrinter) -> list[str]:
    """The kernel's parameters: the slice copies' two before the last (the check report)."""
    params = [printer.visit(p) for p in spec.params]
    extra = [f"__global {p.cl} *{p.copy}, const long {p.length}"
             for p in spec.copies if p.sliced]
    return params[:-1] + extra + params[-1:]


def _kernel_view(spec: KernelSpec, region: Region, env: TypeEnv) -> dict:
    """What the kernel template prints for one spec."""
    printer = OpenCLPrinter(env)
    printer.indent_level = 4
    narrow, copies = spec.narrow, spec.copies
    reds = [{"name": name, "cl": cl, "identity": printer.visit(start),
             "combine": (lambda a, b, op=op: combine_text(printer, op, a, b))}
            for (name, cl, op), start in zip(spec.reductions, spec.identities)]
    dims = _dims_view(spec, region, narrow)
    return {
        "tiled": _tiled_view(spec, dims),
        "name": spec.name,
        "loc": str(spec.loc),
        "directive": spec.directive_text.replace("*/", "* /"),
        "params": _copy_params(spec, printer),
        "prologue": _prologue(spec, region, printer, copies),
        "copies": [{"k": p.k, "array": p.copy, "elements": p.elements, "identity": p.identity,
                    "merge": helper(p.merge, p.cl), "length": p.length, "cl": p.cl}
                   for p in copies],
        "reductions": reds,
        "lanes": _lanes(spec, copies) if reds else 0,
        "dims": dims,
        "inner": dims[-1],
        "total": " * ".join(d["trips"] for d in dims),
        "narrow": narrow,
        "counter": "int" if narrow else "long",
        "last_guard": " && ".join(f"ompcl_g{d['k']} == {d['trips']} - 1" for d in dims),
        "lastprivates": [{"name": name, "cl": cl} for name, cl in spec.lastprivates],
        "privates": [printer.visit(d) for d in spec.privates],
        "jam": spec.jam is not None and {"factor": JAM, "next": ", ".join([dims[-1]["next"]] * JAM),
                                         "body": printer.visit(spec.jam).rstrip("\n")},
        "body": printer.visit(spec.body).rstrip("\n"),
    }


def _lane_safe(name: str) -> bool:
    """A call a lane may make: the math library, or a macro of ompcl's (``OMPCL_AT``)."""
    return is_math(name) or name.startswith("OMPCL_")


def _lanes(spec: KernelSpec, copies: tuple[Private, ...]) -> int:
    """Accumulators per reduction and work-item in the blocked shape: ``LANES`` for a
    floating-point reduction over a small body without loops, else 0 (none). A floating-point
    reduction is one chain of dependent operations the device compiler may not reorder (it
    runs at the operation's latency, not the memory's speed); OpenMP leaves the order free,
    so each of the lanes runs every ``OMPCL_LANES``-th iteration of a run with its own
    accumulators, combined at the work-item's end. Integer reductions the compiler
    vectorises itself."""
    if not any(cl in ("float", "double") for _, cl, _ in spec.reductions):
        return 0
    if spec.lastprivates or copies:
        return 0
    nodes = list(walk(spec.body))
    if len(nodes) > LANE_BODY_NODES or any(
            isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Goto, c_ast.Label))
            or isinstance(n, c_ast.FuncCall) and not _lane_safe(getattr(n.name, "name", ""))
            or isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.ArrayDecl)
            for n in nodes):
        return 0  # (a called function's loops and arrays would run in every lane: NPB EP's
        # do_batch holds a 1 MB array, eight times over the work-item's stack)
    return LANES


def _tiled_view(spec: KernelSpec, dims: list[dict]) -> dict | None:
    """Where the blocked shape runs the two innermost loops in tiles (``spec.tiled``): the
    tile edge, the tile counts and each outer counter's split of the linear tile index."""
    if not spec.tiled:
        return None
    row, col = dims[-2], dims[-1]
    counts = [f"({d['trips']} + {TILE - 1}) / {TILE}" for d in (row, col)]
    trips = [d["trips"] for d in dims[:-2]] + ["ompcl_nt0", "ompcl_nt1"]
    return {"edge": TILE, "row": row, "col": col, "counts": counts,
            "outer": [{"k": d["k"], "split": _split(d["k"], trips)} for d in dims[:-2]],
            "total": " * ".join(trips), "row_split": _split(row["k"], trips),
            "col_split": _split(col["k"], trips)}


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


@dataclass(frozen=True)
class KernelProgram:
    """The OpenCL program of a file and the struct layout table both sides must agree on."""

    source: str
    layout: tuple[Layout, ...] = ()


def generate_kernels(code: DeviceCode, regions: list[Region], functions: tuple[Function, ...],
                     ast: c_ast.FileAST, env: TypeEnv, source: str) -> KernelProgram:
    """OpenCL C source of one program: a kernel per spec of ``code`` and the device functions
    they call (``functions``: every device function before address-space versions, for the
    program's precision)."""
    offload = [r for r in regions if r.offload]
    by_id = {r.id: r for r in offload}
    specs = code.kernels
    atomics, macros, wide = _atomic_helpers(code)
    # prototypes first: a function may call one defined later in the file
    protos = [(f, OpenCLPrinter(fenv).visit(f.decl) + ";") for f, fenv in code.functions]
    defs_ = [(f, OpenCLPrinter(fenv).visit(f)) for f, fenv in code.functions]
    functions_text = [guarded(t) if f.decl.name in wide else t for f, t in protos + defs_]
    kernels = [_kernel_view(s, by_id[s.region_id], env) for s in specs]
    for k, s in zip(kernels, specs):  # a kernel with 64-bit atomics (its copies' merges
        k["int64"] = bool(mentioned(s.body) & wide  # too) exists only where the device has them
                          | wide_helpers({(p.merge, p.cl) for p in s.copies}))
    used = _used_names(code, env, offload)
    check_types = sorted({_buffer_type(s, site.buffer) for s in specs for site in s.sites
                          if site.buffer >= 0})
    defs, layout = records(ast, env, used)
    defs += helpers(atomics) + macro_definitions(macros) + _bit_reads(used)
    defs += [_ASSERT_REPORT] if any(t.buffer < 0 for s in specs for t in s.sites) else []
    text = render("kernels.cl.j2", source=Path(source).name, check_types=check_types,
                  fp64=_uses_double(offload, [f for f, _ in functions], env), wg=WORK_GROUP,
                  lanes=max([k["lanes"] for k in kernels], default=0),
                  enums=_enums_used(ast, OpenCLPrinter(env), used), records=defs,
                  functions=functions_text, kernels=kernels,
                  layout=layout_kernel(layout) if layout else "")
    return KernelProgram(text, tuple(layout))


#: a failed assert's report (``transform.boundscheck``): the first failure's site, for the
#: host (``check_report`` in ompcl_rt_launch.c prints glibc's message and aborts, as the
#: original does); the work-item stops where no barrier follows (the CPU shape)
_ASSERT_REPORT = f"""void ompcl_assert_report(__global int *err, int site)
{{
  if (atomic_cmpxchg((volatile __global int *)err, 0, 1) == 0)
    err[1] = site;
}}
#ifdef OMPCL_BLOCKED
#define {ASSERT_MACRO}(site) do {{ ompcl_assert_report({N.CHECK_REPORT}, site); return; }} while (0)
#else
#define {ASSERT_MACRO}(site) ompcl_assert_report({N.CHECK_REPORT}, site)
#endif"""


def _bit_reads(used: set[str]) -> list[str]:
    """The ``ompcl_bits_<T>_<S>`` macros the kernels call (``analysis.puns``): an ``S``
    element's bits as an unsigned integer of its size, cut to ``T`` (its low bytes)."""
    out = []
    for name in sorted(n for n in used if n.startswith("ompcl_bits_")):
        t, s = name[len("ompcl_bits_"):].split("_")
        u, bits = ("ulong", 64) if s in ("double", "long", "ulong") else ("uint", 32)
        out.append(f"#ifdef __ENDIAN_LITTLE__  /* the bytes at the element's address */\n"
                   f"#define {name}(x) (({t})as_{u}(x))\n#else\n#define {name}(x) "
                   f"(({t})(as_{u}(x) >> ({bits} - 8 * sizeof({t}))))\n#endif")
    return out


def _atomic_helpers(code: DeviceCode) -> tuple[set, set, set[str]]:
    """The atomic helpers the program calls (merges of private copies too), the
    ``OMPCL_PRIV_*`` macros, and the helpers and device functions that need 64-bit atomics."""
    merges = {(p.merge, p.cl) for s in code.kernels for p in s.copies}
    macros = {m for s in code.kernels for p in s.copies for m in p.macros}
    atomics = {h for s in code.kernels for h in s.atomics} | code.helpers | merges
    wide = wide_helpers(atomics)
    wide |= callers_of(wide, [f for f, _ in code.functions])
    return atomics, macros, wide


def _used_names(code: DeviceCode, env: TypeEnv, offload: list[Region]) -> set[str]:
    """Every identifier the program's functions and kernels print (the user's names of the
    arrays with private copies too: their comments name them)."""
    by_id = {r.id: r for r in offload}
    used = set()
    for f, fenv in code.functions:
        used |= printed_names(f, fenv)
    for s in code.kernels:
        for node in (s.body, *s.prologue, *s.params, *s.privates):
            used |= printed_names(node, env)
        used |= {by_id[s.region_id].arrays[p.k].name for p in s.copies}
    return used


def _buffer_type(spec: KernelSpec, k: int) -> str:
    """OpenCL element type of buffer parameter ``k`` of a kernel."""
    decl = next(p for p in spec.params if p.name == N.buffer(k))
    name = decl.type.type.type.names[0]  # a struct's one-word spelling too
    return name if name in CL_SCALARS else device_name(name)  # as the printer spells it


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
