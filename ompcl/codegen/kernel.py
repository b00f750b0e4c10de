"""Kernel generation: ``KernelSpec`` s (and their ``Region`` s' loops) -> one OpenCL program
(source text) per file.

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

from dataclasses import dataclass, replace
from pathlib import Path

from pycparser import c_ast, c_generator

from ..analysis.builtins import MATH, is_math
from ..analysis.ctypes_ import TypeEnv, walk
from ..analysis.loops import const_int
from ..frontend.textscan import IDENT
from ..ir import KernelSpec, LoopDim, Region
from ..transform.addrspace import GLOBAL, pointer_params, specialise
from ..transform.atomics import guarded, helper, helpers, wide_helpers, with_update_atomics
from ..transform.callargs import with_global_args
from ..transform.device import device_function
from ..transform.narrowing import constant_step, constant_trip, fits_32_bits
from ..transform.reductions import combine, identity
from ..transform.rename import device_name, renamed
from ..transform.tiling import TILE, tiles
from . import names as N
from .cprinter import OpenCLPrinter
from .kernelspec import cl_type, global_param, view_decl
from .privatize import GUARD, Private, macro_definitions, privatized
from .records import Layout, layout_kernel, records
from .templates import render

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
        rows = region.arrays[p.k].var.ctype.row_dims
        mine = printer.visit(view_decl(view.name, p.cl, rows, p.k, copy=p.copy)) + ";"
        lines[p.k] = (
            f"#if {GUARD}\n  {p.cl} {p.copy}[{p.elements}];  /* updates of "
            f"'{region.arrays[p.k].name}' by this work-item, merged at its end */\n"
            f"  for (long ompcl_i = 0; ompcl_i < {p.elements}; ompcl_i++)\n"
            f"    {p.copy}[ompcl_i] = {p.identity};\n  {mine}\n#else\n  {lines[p.k]}\n#endif")
    return lines


def _kernel_view(spec: KernelSpec, region: Region, env: TypeEnv,
                 copies: tuple[Private, ...] = ()) -> dict:
    """What the kernel template prints for one spec."""
    printer = OpenCLPrinter(env)
    printer.indent_level = 4
    narrow = fits_32_bits(region.loops)
    reds = [{"name": name, "cl": cl, "identity": printer.visit(identity(op, cl)),
             "combine": (lambda a, b, op=op: combine_text(printer, op, a, b))}
            for name, cl, op in spec.reductions]
    dims = _dims_view(spec, region, narrow)
    return {
        "tiled": _tiled_view(spec, dims),
        "name": spec.name,
        "loc": str(spec.loc),
        "directive": spec.directive_text.replace("*/", "* /"),
        "params": [printer.visit(p) for p in spec.params],
        "prologue": _prologue(spec, region, printer, copies),
        "copies": [{"k": p.k, "array": p.copy, "elements": p.elements, "identity": p.identity,
                    "merge": helper(p.merge, p.cl)} for p in copies],
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
    """Where the blocked shape runs the two innermost loops in tiles (``tiles``): the tile
    edge, the tile counts and each outer counter's split of the linear tile index."""
    if not tiles(spec.body, tuple(var for var, _ in spec.dims)):
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


def _device_functions(offload: list[Region], ast: c_ast.FileAST, env: TypeEnv
                      ) -> list[tuple[c_ast.FuncDef, TypeEnv]]:
    """Every function the kernels call, as device functions (with the globals they use as
    extra parameters), each with the type environment of the file that defines it: this
    file's in file order, then those from other files of the program."""
    fnames = {f for r in offload for f in r.functions}
    extra: dict[str, tuple[str, ...]] = {}
    external, scope = {}, {}
    for r in offload:
        if r.calls is not None:
            extra.update(r.calls.function_globals)
            external.update(r.calls.external)
        scope.update(r.scope)
    local = [(e, env) for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name in fnames
             and e.decl.name not in external]
    others = [(x.fdef, TypeEnv.of(x.ast)) for x in external.values()]
    out = []
    for fdef, fenv in local + others:
        dev = device_function(fdef, [global_param(scope[g])
                                     for g in extra.get(fdef.decl.name, ())])
        out.append((renamed(with_global_args(dev, extra), fnames), fenv))
    return out


@dataclass(frozen=True)
class KernelProgram:
    """The OpenCL program of a file and the struct layout table both sides must agree on."""

    source: str
    layout: tuple[Layout, ...] = ()


def generate_kernels(specs: tuple[KernelSpec, ...], regions: list[Region], ast: c_ast.FileAST,
                     env: TypeEnv, source: str) -> KernelProgram:
    """OpenCL C source with a kernel per spec and the functions they call."""
    offload = [r for r in regions if r.offload]
    device_fns = _device_functions(offload, ast, env)
    order = [f for f, _ in device_fns]
    printer = OpenCLPrinter(env)
    # a private array passed to a function needs a version with a __private parameter
    envs = {f.decl.name: fenv for f, fenv in device_fns}
    bodies, clones = specialise([(s.body, {d.name for d in s.privates}) for s in specs],
                                {f.decl.name: f for f, _ in device_fns})
    specs = tuple(replace(s, body=b) for s, b in zip(specs, bodies))
    device_fns = [(c, envs[_origin(c.decl.name, envs)]) for c in clones]
    fnames = {f for r in offload for f in r.functions}
    updated = {(device_name(f, fnames), device_name(p)) for r in offload
               for f, p in r.updated_params}
    device_fns, callee_atomics = _with_param_atomics(device_fns, updated, {
        f.decl.name: f for f in order})
    # prototypes first: a function may call one defined later in the file
    protos = [OpenCLPrinter(fenv).visit(f.decl) + ";" for f, fenv in device_fns]
    defs_ = [OpenCLPrinter(fenv).visit(f) for f, fenv in device_fns]
    by_id = {r.id: r for r in offload}
    private = [privatized(s, by_id[s.region_id]) for s in specs]
    specs = tuple(s for s, _ in private)
    merges = {(p.merge, p.cl) for _, ps in private for p in ps}
    macros = {m for _, ps in private for p in ps for m in p.macros}
    atomics = {h for s in specs for h in s.atomics} | callee_atomics | merges
    wide = wide_helpers(atomics)
    wide |= _callers_of(wide, {f.decl.name: d for (f, _), d in zip(device_fns, defs_)})
    functions = [guarded(t) if f.decl.name in wide else t
                 for (f, _), t in list(zip(device_fns, protos)) + list(zip(device_fns, defs_))]
    kernels = [_kernel_view(s, by_id[s.region_id], env, ps) for s, (_, ps) in zip(specs, private)]
    for k in kernels:  # a kernel with 64-bit atomics exists only where the device has them
        k["int64"] = bool(set(IDENT.findall(k["body"])) & wide)
    used = set(IDENT.findall("\n".join(functions) + "".join(
        k["body"] + "".join(k["prologue"] + k["params"] + k["privates"]) for k in kernels)))
    check_types = sorted({_buffer_type(s, site.buffer) for s in specs for site in s.sites})
    defs, layout = records(ast, env, used)
    defs += helpers(atomics) + macro_definitions(macros)
    text = render("kernels.cl.j2", source=Path(source).name, check_types=check_types,
                  fp64=_uses_double(offload, order, env), wg=WORK_GROUP,
                  lanes=max([k["lanes"] for k in kernels], default=0),
                  enums=_enums_used(ast, printer, used), records=defs, functions=functions,
                  kernels=kernels, layout=layout_kernel(layout) if layout else "")
    return KernelProgram(text, tuple(layout))


def _with_param_atomics(fns: list[tuple[c_ast.FuncDef, TypeEnv]], updated: set[tuple[str, str]],
                        origins: dict[str, c_ast.FuncDef]
                        ) -> tuple[list[tuple[c_ast.FuncDef, TypeEnv]], set[tuple[str, str]]]:
    """The device functions with the updates through their ``updated`` (function, parameter)
    pairs as atomic helper calls, in the versions where the parameter is ``__global`` (a
    work-item's own array needs none), and the helpers used."""
    out, used = [], set()
    for f, fenv in fns:
        origin = origins[_origin(f.decl.name, origins)]
        spaces = _param_spaces(f.decl.name, origin)
        types = {}
        for p in origin.decl.type.args.params if origin.decl.type.args else []:
            if (origin.decl.name, getattr(p, "name", None)) in updated and \
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


def _callers_of(names: set[str], texts: dict[str, str]) -> set[str]:
    """The device functions (by printed text) that call one of ``names``, directly or
    through one another."""
    out: set[str] = set()
    while True:
        more = {f for f, t in texts.items() if f not in out and set(IDENT.findall(t)) &
                (names | out) - {f}}
        if not more:
            return out
        out |= more


def _param_spaces(name: str, origin: c_ast.FuncDef) -> dict[str, str]:
    """Address space of each pointer parameter of a device function version (clones of a
    function carry their spaces after its name, see ``transform.addrspace.clone_name``)."""
    ks = pointer_params(origin)
    spaces = name[len(origin.decl.name) + 1:] if name != origin.decl.name else GLOBAL * len(ks)
    params = origin.decl.type.args.params
    return {params[k].name: s for k, s in zip(ks, spaces)}


def _origin(name: str, envs: dict) -> str:
    """The function a clone was made from (clones add a suffix to its name)."""
    return name if name in envs else name.rsplit("_", 1)[0]


def _buffer_type(spec: KernelSpec, k: int) -> str:
    """OpenCL element type of buffer parameter ``k`` of a kernel."""
    decl = next(p for p in spec.params if p.name == N.buffer(k))
    return decl.type.type.type.names[0]  # a struct's one-word spelling too


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
