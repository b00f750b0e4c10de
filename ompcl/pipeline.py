"""The translation pipeline: one C file -> kernel source + host source + remarks.

``PASSES`` is the whole compiler, in order: each pass takes the frozen ``Unit`` and returns a
new one with its product filled in. ``--dump-after NAME`` prints the unit after a pass, and in
debug mode (``--debug`` or ``OMPCL_CHECK_IR=1``) ``check_unit`` verifies the unit between
passes.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import Callable

from pycparser import c_ast

from .analysis.ctypes_ import TypeEnv, walk
from .analysis.layout import plan_layout
from .analysis.localtypes import lifted
from .analysis.placement import place
from .analysis.regions import analyze
from .analysis.residency import plan_residency
from .codegen import names as N
from .codegen.features import KernelFeatures, static_features
from .codegen.host import HostRegion, HostTeam, RelayoutInfo, generate_host
from .codegen import dumps as D
from .codegen.dumps import describe
from .codegen.kernel import generate_kernels
from .codegen.kernelspec import (atomic_targets, check_buffers, cl_type, global_param,
                                 host_interface, kernel_spec, view_decl, vla_views)
from .diagnostics import (CSyntaxError, OmpclError, PreprocessError, Reason, Remark, SourceLoc,
                          not_offloaded)
from .frontend.library import SourceLibrary
from .frontend.preprocess import CppOptions, host_compiler_accepts, read_source
from .frontend.program import Program, load_program
from .frontend.sourcemap import NO_MAP
from .kernelcheck import rejected
from .ir import HostInterface, KernelSpec, Region, ResidencyPlan, SpliceRange, Team
from .predict.model import resolve as resolve_model
from .predict.schema import STATIC
from .transform.addrspace import device_code
from .transform.atomics import param_atomics, with_atomics, with_update_atomics
from .transform.booleans import function_with_bool_conversions, kernel_with_bool_conversions
from .transform.boundscheck import bounds_checked
from .transform.callargs import with_global_args
from .transform.device import (DeviceCode, Function, device_functions, function_globals,
                               spelled_out)
from .transform.dynreorder import Variant, reorder_kernel
from .transform.indices import with_index_pointers
from .transform.interchange import interchange_region
from .transform.jam import jammed
from .transform.linearize import linearized
from .transform.narrowing import constant_step, fits_32_bits
from .transform.privatize import privatized
from .transform.promote import promote_kernel
from .transform.reductions import branchless, identity
from .transform.rename import device_name, renamed
from .transform.reorder import reordered_program
from .transform.tiling import tiles
from .transform.vectorize import vectorize_kernel
from .unitcheck import check_unit


def _knob(name: str) -> bool:
    """A transformation's switch: on unless the variable says ``0``/``off``/``no``."""
    return os.environ.get(name, "1").strip().lower() not in ("0", "off", "no", "false")


@dataclass(frozen=True)
class Options:
    """How to translate: preprocessor options, kernel embedding, what to dump and check."""

    cpp: CppOptions = field(default_factory=CppOptions)
    embed: bool = True
    kernel_file: str = ""  # read at run time when not embedded
    dump_after: str | None = None
    check: bool = field(default_factory=lambda: os.environ.get("OMPCL_CHECK_IR", "") == "1")
    sources: tuple[str, ...] = ()  # the program's other source files (for their functions)
    model: str = ""  # dispatch model compiled in: "" the default, "none", or a model file
    #: dynamic reordering's cost model compiled in: "" models/layout-cost.json, "none" (the
    #: runtime's defaults), or a file
    layout_cost: str = ""
    #: loop interchange inside kernels (``OMPCL_INTERCHANGE=0`` turns it off)
    interchange: bool = field(default_factory=lambda: _knob("OMPCL_INTERCHANGE"))
    #: global index reordering of static arrays (``OMPCL_REORDER=0`` turns it off)
    reorder: bool = field(default_factory=lambda: _knob("OMPCL_REORDER"))
    #: kernel variants over permuted device copies of arrays (``OMPCL_DYNREORDER=0`` off)
    dynreorder: bool = field(default_factory=lambda: _knob("OMPCL_DYNREORDER"))
    #: reused global elements kept in private variables (``OMPCL_PROMOTE=0`` off)
    promote: bool = field(default_factory=lambda: _knob("OMPCL_PROMOTE"))
    #: runs of neighbouring elements loaded and stored as vectors (``OMPCL_VECTORIZE=0`` off)
    vectorize: bool = field(default_factory=lambda: _knob("OMPCL_VECTORIZE"))
    #: ``sources`` and this file are the whole program (``ompcl build``): a global array no
    #: other source mentions is used only here
    whole_program: bool = False
    #: region id -> why its kernel is dropped (``kernelcheck``: a second translation)
    rejected: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Unit:
    """One file on its way through the pipeline; each pass fills in its product."""

    path: str
    options: Options = field(default_factory=Options)
    program: Program | None = None
    regions: tuple[Region, ...] = ()
    teams: tuple[Team, ...] = ()
    splices: dict[int, SpliceRange] = field(default_factory=dict)
    team_splices: dict[int, SpliceRange] = field(default_factory=dict)
    residency: ResidencyPlan = field(default_factory=lambda: ResidencyPlan({}))
    kernels: tuple[KernelSpec, ...] = ()
    interfaces: tuple[HostInterface, ...] = ()
    features: dict[int, KernelFeatures] = field(default_factory=dict)
    #: region id -> its reordered kernels (one per kernel shape that has one)
    variants: dict[int, tuple[Variant, ...]] = field(default_factory=dict)
    functions: tuple[Function, ...] = ()  # the functions kernels call, as device functions
    #: the OpenCL programs to print: the kernels', then the variants' (when there are any)
    programs: tuple[DeviceCode, ...] = ()
    kernel_source: str = ""
    variant_source: str = ""  # the reordered kernels: a program built when one is wanted
    layout: tuple = ()  # codegen.records.Layout entries of the kernel program
    host_source: str = ""
    remarks: tuple[Remark, ...] = ()
    passed_through: bool = False  # valid C ompcl cannot read: the host file is the input

    @property
    def offloaded(self) -> list[Region]:
        return [r for r in self.regions if r.offload]


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[Unit], Unit]
    dump: Callable[[Unit], str]


# -- the passes -------------------------------------------------------------------------------

def parse(u: Unit) -> Unit:
    """Preprocess with line markers, parse, bind each OpenMP directive to its statement. Valid
    C ompcl cannot read (GNU extensions, headers that insist on GNU C) is passed through."""
    try:
        prog = load_program(u.path, u.options.cpp)
        return replace(u, program=prog, remarks=u.remarks + prog.warnings)
    except (CSyntaxError, PreprocessError) as e:
        if not host_compiler_accepts(u.path, u.options.cpp):
            raise
        source = read_source(u.path)
        warn = Remark(e.loc or SourceLoc(u.path, 1, 1), f"ompcl cannot parse this file "
                      f"({e.message}); the host compiler accepts it, so all its loops stay on "
                      "OpenMP", "warning", "parse-fallback")
        prog = Program(u.path, source, c_ast.FileAST([]), [], [])
        return replace(u, program=prog, host_source=source, remarks=(warn,), passed_through=True)


def reorder(u: Unit) -> Unit:
    """Permute the dimensions of arrays (file scope or local) whose every use is visible and
    agrees on which dimension should vary fastest: the user's text and the tree both, so
    every later pass sees the program as if written that way. Ordering: before 'analyze' (extents,
    residency and host splicing all follow the new layout)."""
    if not u.options.reorder:
        return u
    prog = u.program
    pragmas = [n.string for n in walk(prog.ast) if isinstance(n, c_ast.Pragma)]
    plan = plan_layout(prog.ast, prog.path, prog.constructs, pragmas, u.options.sources,
                       u.options.whole_program, u.options.cpp)
    new, remarks = reordered_program(prog, plan, u.options.cpp)
    return replace(u, program=new, remarks=u.remarks + plan.remarks + remarks)


def indices(u: Unit) -> Unit:
    """Local pointers into one array, in functions without directives, as indices into it."""
    ast = with_index_pointers(u.program.ast)
    return u if ast is None else replace(u, program=replace(u.program, ast=ast))


def _dump_reorder(u: Unit) -> str:
    done = [m for m in u.remarks if m.id == "reorder"]
    return "\n".join([m.format() for m in done] + ([u.program.source] if done else []))


def analyze_regions(u: Unit) -> Unit:
    """Loops, accesses, calls, data sharing and extents: a verdict per region."""
    u = replace(u, program=lifted(u.program))  # function-local types at file scope, first
    result = analyze(u.program, SourceLibrary(u.path, u.options.cpp, u.options.sources))
    return replace(u, regions=result.regions, teams=result.teams,
                   remarks=u.remarks + result.remarks)


def place_regions(u: Unit) -> Unit:
    """Find each offloadable loop's text in the user's file; a loop whose text is a macro
    expansion stays on the host. Ordering: the last pass that may change a verdict."""
    why = dict(u.options.rejected)
    regions = tuple(replace(r, reasons=(Reason("kernel-build", f"the OpenCL C compiler "
                                               f"rejects its kernel: {why[r.id]}", r.loc),))
                    if r.id in why and r.offload else r for r in u.regions)
    placement = place(u.program, regions, u.teams)
    return replace(u, regions=placement.regions, splices=placement.ranges,
                   teams=placement.teams, team_splices=placement.team_ranges)


def plan(u: Unit) -> Unit:
    """Which regions leave their data on the device (needs the final verdicts)."""
    library = SourceLibrary(u.path, u.options.cpp, u.options.sources)
    return replace(u, residency=plan_residency(u.program, u.regions, u.teams, library))


def interchange(u: Unit) -> Unit:
    """Reorder perfect nests of inner loops in each kernel body so the loop walking the
    fastest-varying subscript runs innermost, where a dependence test proves it legal.
    Ordering: after 'place' (final verdicts), before 'outline' prints the bodies; the host
    keeps the user's loops."""
    if not u.options.interchange:
        return u
    regions, remarks = [], []
    for r in u.regions:
        if r.offload:
            r, found = interchange_region(r)
            remarks += found
        regions.append(r)
    return replace(u, regions=tuple(regions), remarks=u.remarks + tuple(remarks))


def outline(u: Unit) -> Unit:
    """Kernel specs (parameters as declarations, the loop's body as the user wrote it, array
    typedefs spelled out) and host interfaces. Ordering: after 'interchange'."""
    offload, env = u.offloaded, TypeEnv.of(u.program.ast)
    return replace(u, kernels=tuple(spelled_out(kernel_spec(r), env) for r in offload),
                   interfaces=tuple(host_interface(r) for r in offload))


def _map_kernels(u: Unit, fn) -> Unit:
    """``fn(spec, region) -> spec`` applied to every kernel."""
    return replace(u, kernels=tuple(fn(k, r) for k, r in zip(u.kernels, u.offloaded)))


def device(u: Unit) -> Unit:
    """Every function the kernels call as a device function: pointer parameters ``__global``,
    the globals it uses as extra parameters."""
    ast = u.program.ast
    return replace(u, functions=device_functions(u.offloaded, ast, TypeEnv.of(ast),
                                                 global_param)) if u.offloaded else u


def booleans(u: Unit) -> Unit:
    """Values stored into ``_Bool`` objects compared with zero, in kernels and device
    functions (C's conversion; the device holds ``_Bool`` as ``uchar``). Ordering: before
    'linearize' (subscripts as declared)."""
    env, fns = TypeEnv.of(u.program.ast), {f.decl.name: f.decl.type for f, _ in u.functions}
    u = _map_kernels(u, lambda k, r: kernel_with_bool_conversions(k, r, env, fns))
    return replace(u, functions=tuple((function_with_bool_conversions(f, fenv, fns), fenv)
                                      for f, fenv in u.functions))


def linearize(u: Unit) -> Unit:
    """Accesses to arrays seen through pointers to variable-length rows (and pointer trees)
    -> accesses to the flat buffer. Ordering: before 'rename' (views by the user's names)."""
    return _map_kernels(u, lambda k, r: replace(k, body=linearized(k.body, vla_views(r))))


def callargs(u: Unit) -> Unit:
    """Calls of functions that use globals pass those globals, in kernels and in device
    functions (whose versions take them as parameters, see 'device')."""
    extra = function_globals(u.offloaded)
    u = _map_kernels(u, lambda k, r: k if r.calls is None else replace(
        k, body=with_global_args(k.body, r.calls.function_globals)))
    return replace(u, functions=tuple((with_global_args(f, extra), fenv)
                                      for f, fenv in u.functions))


def rename(u: Unit) -> Unit:
    """Names that clash with OpenCL's get the ``ompcl_v_`` prefix, user functions the
    ``ompcl_f_`` one, in kernels (bodies and private declarations) and device functions."""
    names = {f for r in u.offloaded for f in r.functions}
    u = _map_kernels(u, lambda k, r: replace(k, body=renamed(k.body, names), privates=tuple(
        renamed(d, set()) for d in k.privates)))
    return replace(u, functions=tuple((renamed(f, names), fenv) for f, fenv in u.functions))


def _atomics(k, r):
    shared, types, updated = atomic_targets(r)
    body, used = with_atomics(k.body, shared, types)
    body, more = with_update_atomics(body, updated)
    return replace(k, body=body, atomics=frozenset(used | more))


def atomics(u: Unit) -> Unit:
    """``#pragma omp atomic`` statements and the updates of arrays the loop only updates ->
    calls of the device's atomic helpers; shared scalars become ``(*x)``. Ordering: after
    'rename' (the targets by their device names)."""
    return _map_kernels(u, _atomics)


def features(u: Unit) -> Unit:
    """The static features, counted on the kernels as they will run (before 'boundscheck':
    the checks are not the kernel's work)."""
    return replace(u, features={
        k.region_id: static_features(k, {device_name(a.name) for a in r.arrays},
                                     {device_name(v.name): v.name for v in r.scalars})
        for k, r in zip(u.kernels, u.offloaded)})


def _dump_features(u: Unit) -> str:
    return "\n".join(f"{k.name}: features {u.features[k.region_id].values}" for k in u.kernels)


def boundscheck(u: Unit) -> Unit:
    """Every buffer element access wrapped in ``OMPCL_AT(T, k, site, ref)`` (the plain access
    unless the program is built with ``OMPCL_BOUNDS_CHECK``), with its site."""
    def check(k, r):
        body, sites = bounds_checked(k.body, check_buffers(r))
        return replace(k, body=body, sites=sites)
    return _map_kernels(u, check)


def dynreorder(u: Unit) -> Unit:
    """A variant of each kernel that walks an array along another dimension than its last,
    over a device copy whose dimensions follow the loops (the runtime makes it, when its cost
    model says it pays, and keeps the host's layout). Ordering: after 'boundscheck' (the
    kernels as printed, bounds checks included), before 'addrspace' makes the programs."""
    if not u.options.dynreorder or not u.options.embed:  # (a kernel file holds one program)
        return u
    variants, remarks = {}, []
    for k, r in zip(u.kernels, u.offloaded):
        found, notes = reorder_kernel(k, r, view_decl)
        remarks += notes
        if found:
            variants[r.id] = found
    return replace(u, variants=variants, remarks=u.remarks + tuple(remarks))


def _each_kernel(u: Unit, fn) -> Unit:
    """``fn(spec, region) -> (spec, distinct pairs, remarks)`` applied to every kernel and
    every variant (the variants' remarks would repeat the kernel's: dropped); the pairs join
    the region's ``distinct`` (checked by the runtime at launch)."""
    kernels, remarks, pairs = [], [], {}
    for k, r in zip(u.kernels, u.offloaded):
        k, found, notes = fn(k, r)
        kernels.append(k)
        remarks += notes
        pairs.setdefault(r.id, set()).update(found)
    variants = {}
    for rid, found in u.variants.items():
        r = next(x for x in u.regions if x.id == rid)
        out = []
        for v in found:
            spec, more, _ = fn(v.spec, r)
            pairs[rid].update(more)
            out.append(replace(v, spec=spec))
        variants[rid] = tuple(out)
    regions = tuple(replace(r, distinct=tuple(sorted(set(r.distinct) | pairs[r.id])))
                    if pairs.get(r.id) else r for r in u.regions)
    return replace(u, kernels=tuple(kernels), variants=variants, regions=regions,
                   remarks=u.remarks + tuple(remarks))


def promote(u: Unit) -> Unit:
    """Keep global elements a kernel reuses in private variables: a loop-invariant element
    loaded before its loop (and stored after it when the loop updates it), a read-only element
    read several times loaded once. Ordering: after 'dynreorder' (variants are promoted too;
    their permuted subscripts are what is promoted), before 'vectorize'."""
    return _each_kernel(u, promote_kernel) if u.options.promote else u


def vectorize(u: Unit) -> Unit:
    """Neighbouring elements of one row loaded or stored together as an OpenCL vector
    (``vloadn``/``vstoren``). Ordering: after 'promote' (whose loads of a row's elements it
    merges), the last rewrite of kernel bodies before 'addrspace'."""
    return _each_kernel(u, vectorize_kernel) if u.options.vectorize else u


def addrspace(u: Unit) -> Unit:
    """The programs to print, the kernels' and the variants': each kernel calls the version
    of a device function whose pointer parameters are in the spaces of its arguments
    (``__private`` for a work-item's own arrays). Ordering: after the kernel rewrites
    ('vectorize' last), before the rewrites of a program's device functions."""
    if not u.kernels:
        return u
    specs = tuple(v.spec for _, found in sorted(u.variants.items()) for v in found)
    return replace(u, programs=tuple(device_code(s, u.functions)
                                     for s in (u.kernels, specs) if s))


def _map_programs(u: Unit, fn) -> Unit:
    """``fn(spec, region) -> spec`` applied to every kernel of every program."""
    by_id = {r.id: r for r in u.regions}
    return replace(u, programs=tuple(replace(c, kernels=tuple(
        fn(k, by_id[k.region_id]) for k in c.kernels)) for c in u.programs))


def callee_atomics(u: Unit) -> Unit:
    """Updates through a device function's pointer parameter that the analysis proved only
    updated -> atomic helper calls, in the versions where that parameter is ``__global``.
    Ordering: after 'addrspace' (which makes the versions)."""
    names = {f for r in u.offloaded for f in r.functions}
    updated = {(device_name(f, names), device_name(p)) for r in u.offloaded
               for f, p in r.updated_params}
    origins = {f.decl.name: f for f, _ in u.functions}
    out = []
    for c in u.programs:
        fns, used = param_atomics(list(c.functions), updated, origins, cl_type)
        out.append(replace(c, functions=tuple(fns), helpers=frozenset(used)))
    return replace(u, programs=tuple(out))


def privatize(u: Unit) -> Unit:
    """Small integer arrays a kernel only updates atomically get a private copy per work-item
    in the CPU shape, merged at its end. Ordering: after 'boundscheck' and 'atomics' (it
    finds the helper calls and sees through the checks)."""
    return _map_programs(u, privatized)


def narrowing(u: Unit) -> Unit:
    """Whether every loop counter and loop variable provably fits 32 bits (a GPU shape then
    counts with ``int``)."""
    return _map_programs(u, lambda k, r: replace(k, narrow=fits_32_bits(r.loops)))


def tiling(u: Unit) -> Unit:
    """Whether the blocked shape runs the two innermost loops in square tiles (an access
    transposed between them)."""
    return _map_programs(u, lambda k, r: replace(k, tiled=tiles(k.body, tuple(
        v for v, _ in k.dims))))


def reductions(u: Unit) -> Unit:
    """The value each reduction's partial results start from; a logical reduction's updates
    without their branch (``acc = acc && e`` as ``acc & (e != 0)`` where ``e`` only reads)."""
    return _map_programs(u, lambda k, r: replace(k, body=branchless(k.body, k.reductions),
                                                 identities=tuple(identity(op, cl)
                                                                  for _, cl, op in k.reductions)))


def jam(u: Unit) -> Unit:
    """Iterations whose work is a sequential inner loop carrying a scalar run ``JAM`` at a
    time in the blocked shape, their inner loops fused (independent chains). Ordering: after
    'reductions' and 'tiling' (it applies to kernels without either)."""
    return _map_programs(u, lambda k, r: replace(k, jam=jammed(k, constant_step(r.loops[-1]))))


def print_kernels(u: Unit) -> Unit:
    """The OpenCL program, printed from the preprocessed AST (macros expanded)."""
    if not u.programs:
        return u
    env = TypeEnv.of(u.program.ast)
    prog = generate_kernels(u.programs[0], list(u.regions), u.functions, u.program.ast, env, u.path)
    u = replace(u, kernel_source=prog.source, layout=prog.layout)
    if len(u.programs) == 1:
        return u
    # the variants are a program of their own, built only when one is wanted (they would
    # double the device compiler's work on every first run); it must lay out the structs
    # the host passes as the kernels' program does, else no variant
    variants = generate_kernels(u.programs[1], list(u.regions), u.functions, u.program.ast,
                                env, u.path)
    if variants.layout != prog.layout:
        return replace(u, variants={}, remarks=tuple(m for m in u.remarks
                                                     if m.id != "dynreorder"))
    return replace(u, variant_source=variants.source)


def splice_host(u: Unit) -> Unit:
    """The user's own text with offloaded loops outlined, and the remark for every loop."""
    to = u.program.source_map or NO_MAP   # locations in the user's files (includes inlined)
    hosted = [HostRegion(to.region(r), u.splices[r.id], i, u.features[r.id],  # the kernels
                         to.located(k.sites), _relayout(u, r), k.copies)  # as printed
              for r, i, k in zip(u.offloaded, u.interfaces, (u.programs or [u])[0].kernels)]
    by_id = {r.id: r for r in u.regions}
    teams = tuple(HostTeam(to.region(t), u.team_splices[t.id], tuple(
        h for h in hosted if h.region.team == t.id), tuple(by_id[k] for k in t.serial))
                  for t in u.teams if t.offload)
    model = resolve_model(u.options.model) if hosted else None
    host = generate_host(u.program, hosted, u.residency, u.kernel_source, u.options.embed,
                         u.options.kernel_file, teams, u.layout, model, u.options.layout_cost,
                         u.variant_source)
    verdicts = tuple(_verdict(r) for r in u.regions) + tuple(
        _team_verdict(t) for t in u.teams) + tuple(_unswitched(r) for r in u.regions
                                                 if r.offload and r.guards)
    remarks = tuple(sorted(u.remarks + verdicts, key=lambda m: (m.loc.line, m.loc.col)))
    return to.in_user_files(replace(u, host_source=host, remarks=remarks))


def _relayout(u: Unit, r: Region) -> RelayoutInfo | None:
    """What the host passes for a region's reordered variants: their names, the permuted
    arrays and the variants' accesses to them per work-item (the features of each variant on
    those buffers only), by kernel shape."""
    found = {v.shape: v for v in u.variants.get(r.id, ())}
    if not found:
        return None
    mem = STATIC.index("mem")
    scalars = {device_name(s.name): s.name for s in r.scalars}
    kernels, accesses, perms = {}, {}, {}
    for shape, v in found.items():
        f = static_features(v.spec, {device_name(a.name) for a in v.arrays}, scalars)
        kernels[shape] = v.spec.name
        accesses[shape] = f.c_exprs[mem] if f.c_exprs else repr(float(f.values[mem]))
        for a in v.arrays:
            perms.setdefault(a.buffer, (a, {}))[1][shape] = a.perm
    return RelayoutInfo(kernels, tuple(perms.values()), accesses)


def _team_verdict(t: Team) -> Remark:
    if t.offload:
        serial = (f", {len(t.serial)} {'stays' if len(t.serial) == 1 else 'stay'} on the "
                  f"host as a parallel loop of {'its' if len(t.serial) == 1 else 'their'} own; "
                  "the device path only when forced" if t.serial else "")
        loops = (f"{len(t.loops) - len(t.serial)} work-sharing loops offloaded{serial}"
                 if t.loops else "its work-sharing loops are in the functions it calls")
        return Remark(t.loc, f"parallel region runs as a team of one on the device path "
                      f"({loops})", "remark", "team-of-one")
    return Remark(t.loc, "parallel region not run on the device: " + "; ".join(
        x.message for x in t.reasons), "remark", "team-host")


def _unswitched(r: Region) -> Remark:
    guards = " || ".join(r.guards)
    return Remark(r.loc, f"loop versioned on '{guards}': the device runs it without the "
                  "statements under that guard when it is false, the original loop runs on the "
                  "host when it holds", "remark", "unswitch")


def _verdict(r: Region) -> Remark:
    if r.offload:
        return Remark(r.loc, f"loop offloaded to OpenCL as kernel '{N.kernel(r.id)}' "
                      f"({len(r.loops)}-D range, {len(r.arrays)} buffers)", "remark", "offloaded")
    return not_offloaded(r.loc, r.reasons)


_kernel_bodies = lambda u: D.kernel_bodies(u.kernels, u.program.ast)  # noqa: E731
_code = lambda u: D.code(u.kernels, u.functions, u.program.ast)  # noqa: E731
_programs = lambda u: D.programs(u.programs, u.program.ast)  # noqa: E731

PASSES: tuple[Pass, ...] = (
    Pass("parse", parse, lambda u: "\n".join(f"{b.directive.loc}: omp {b.directive.kind}"
                                             for b in u.program.constructs)),
    Pass("reorder", reorder, _dump_reorder),
    Pass("indices", indices, lambda u: D.indices(u.program.ast)),
    Pass("analyze", analyze_regions, lambda u: "\n".join(describe(r) for r in u.regions)),
    Pass("place", place_regions, lambda u: "\n".join(
        f"region {k}: bytes {r.start}..{r.end}" for k, r in u.splices.items())),
    Pass("residency", plan, lambda u: "\n".join(
        f"region {k}: {'keep data on the device' if v else 'sync host at exit'}"
        for k, v in sorted(u.residency.keep.items()))),
    Pass("interchange", interchange, lambda u: D.loop_bodies(u.offloaded)),
    Pass("outline", outline, lambda u: "\n".join(f"{k.name}: {len(k.params)} parameters"
                                              for k in u.kernels)),
    Pass("device", device, lambda u: D.functions(u.functions)),
    Pass("booleans", booleans, _kernel_bodies),
    Pass("linearize", linearize, _kernel_bodies),
    Pass("callargs", callargs, _code),
    Pass("rename", rename, _code),
    Pass("atomics", atomics, _kernel_bodies),
    Pass("features", features, _dump_features),
    Pass("boundscheck", boundscheck, _kernel_bodies),
    Pass("dynreorder", dynreorder, lambda u: D.variants(u.variants, u.program.ast)),
    Pass("promote", promote, _kernel_bodies),
    Pass("vectorize", vectorize, _kernel_bodies),
    Pass("addrspace", addrspace, _programs),
    Pass("callee-atomics", callee_atomics, _programs),
    Pass("privatize", privatize, _programs),
    Pass("narrowing", narrowing, lambda u: D.narrowing(u.programs)),
    Pass("tiling", tiling, lambda u: D.tiling(u.programs)),
    Pass("reductions", reductions, lambda u: D.reductions(u.programs, u.program.ast)),
    Pass("jam", jam, lambda u: D.jam(u.programs, u.program.ast)),
    Pass("kernels", print_kernels, lambda u: u.kernel_source + u.variant_source),
    Pass("host", splice_host, lambda u: u.host_source),
)
PASS_NAMES = tuple(p.name for p in PASSES)


def translate(path: str, options: Options | None = None) -> Unit:
    """Translate one OpenMP C file; raises OmpclError subclasses on bad input. Kernels the
    OpenCL C compiler rejects (``kernelcheck``) leave the device: their loops are
    translated again as host loops, the file's others keep their kernels."""
    u = _passes(Unit(path, options or Options()))
    bad = rejected(u.kernel_source) if u.kernel_source and not u.options.rejected else {}
    ids = {N.kernel(r.id): r.id for r in u.offloaded}
    if bad and set(bad) <= set(ids):
        u = _passes(Unit(path, replace(u.options, rejected=tuple(
            sorted((ids[k], m) for k, m in bad.items())))))
    return u


def _passes(u: Unit) -> Unit:
    for p in PASSES:
        try:
            prev, u = u, p.run(u)
        except OmpclError as e:   # in the lines of the user's files (includes inlined)
            raise (u.program and u.program.source_map or NO_MAP).error(e)
        if u.passed_through:
            return u
        if u.options.check:
            check_unit(prev, u, p.name, PASS_NAMES)
        if u.options.dump_after == p.name:
            print(f"/* ---- after {p.name} ---- */\n{p.dump(u)}", file=sys.stderr)
    return u


__all__ = ["Options", "PASSES", "PASS_NAMES", "Unit", "OmpclError", "translate"]
