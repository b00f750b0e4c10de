"""Host generation: the user's source text with each offloaded loop spliced out.

Consumes the ``Program`` (original text), the offloaded ``Region`` s with their
``SpliceRange`` s, ``HostInterface`` s and feature values, the ``ResidencyPlan`` and the kernel
source; produces the ``<base>_host.c`` text: runtime prologue (kernel source, descriptors),
then the user's file where each offloaded loop is replaced by a call to an outlined function,
placed just before the enclosing function's declaration, that runs the kernel or the original
OpenMP loop verbatim. No verdict changes here: every decision was made by analysis.
The edits of instrumented functions come from ``hostprobes``, the splicing helpers from
``splice``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import re

from pycparser import c_ast

from ..analysis.ctypes_ import C_PRINTER
from ..analysis.ctypes_ import walk
from ..analysis.localtypes import call_cast, host_definitions, layout_checks
from ..analysis.members import bound_text, null_guard
from ..analysis.placement import function_line, serial_span
from ..diagnostics import SourceLoc
from ..frontend.program import Program
from ..frontend.textscan import Scanner
from ..ir import Clause, HostInterface, HostParam, Region, ResidencyPlan, SpliceRange, Team
from ..transform.reductions import combine
from . import names as N
from ..predict.export import c_source
from ..predict.model import LAYOUT_COST
from .features import KernelFeatures
from .hostloop import (NOWAIT, OMP_FOR, HostLoop, declaration as _decl, host_loop,
                       serial_directive)
from .scratchcheck import (check_functions, check_lines, iteration_point, range_bytes,
                           range_start)
from .kernel import combine_text
from .hostprobes import instrumentation, markers, object_table, probe_edits
from .splice import apply_edits, c_lines, c_string, indent_of, resume
from .templates import render

_GEN = C_PRINTER
_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3}
_MODES = {"r": "OMPCL_READ", "w": "OMPCL_WRITE", "rw": "OMPCL_READWRITE"}


@dataclass(frozen=True)
class HostTeam:
    """A team run as a team of one on the device path, with its offloaded loops."""

    team: Team
    splice: SpliceRange
    loops: tuple["HostRegion", ...]
    serial: tuple[Region, ...] = ()  # its loops that stay on the host


@dataclass(frozen=True)
class RelayoutInfo:
    """A region's kernel variants over permuted arrays (``transform.dynreorder``), by kernel
    shape ('blocked', 'grid'): their names; per permuted array, a ``Relayout`` and its
    permutation in each shape; a C expression for the accesses to them per work-item."""

    kernels: dict
    arrays: tuple
    accesses: dict


@dataclass(frozen=True)
class HostRegion:
    """One offloaded region as host generation needs it."""

    region: Region
    splice: SpliceRange
    interface: HostInterface
    features: KernelFeatures
    sites: tuple = ()  # the kernel's checked access sites (transform.boundscheck.Site)
    relayout: RelayoutInfo | None = None
    copies: tuple = ()  # the kernel's private copies (transform.privatize.Private)


def _local_decl(p: HostParam, init: str = "") -> str:
    """The outlined function's own copy of the caller's variable."""
    decl = p.var.decl
    text = _GEN.visit(c_ast.Decl(decl.name, list(decl.quals or []), [], [], [], decl.type, None,
                                 None))
    return text + (f" = {init}" if init else "") + ";"


def call_arg(p: HostParam) -> str:
    """What the call site passes for a parameter (through ``void *`` where the parameter
    names a copy of a type of the caller's function, ``analysis.localtypes``)."""
    ct = p.var.ctype
    return call_cast(p.decl, p.by_address, p.var.name, ct.is_array_like,
                     ct.is_scalar and not ct.record and ct.base != "?")


def copies_and_writebacks(iface: HostInterface) -> tuple[list[str], list[str]]:
    copies, writebacks = [], []
    for p in iface.params:
        ref = N.outer_ref(p.var.name)
        if p.role in ("lastprivate", "reduction", "linear"):
            copies.append(_local_decl(p, "" if p.role == "lastprivate" else f"*{ref}"))
            writebacks.append(f"*{ref} = {p.var.name};")
    return copies, writebacks


def _array_args(region: Region, relayout: RelayoutInfo | None = None) -> list[dict]:
    permuted = {x.buffer: (x, p) for x, p in relayout.arrays} if relayout else {}
    out = []
    for k, a in enumerate(region.arrays):
        lo, hi = N.extent(a.extent, a.var.ctype.dims)
        ptr = _tree_call(a) if a.tree else a.name
        if a.var.ctype.is_scalar:  # a scalar updated atomically: the variable itself
            ptr = N.outer_ref(a.name) if a.var.storage != "global" else f"&{a.name}"
        x, perms = permuted.get(k, (None, {}))
        out.append({"name": ptr, "lo": lo, "hi": hi, "ctype": a.var.ctype.base,
                    "mode": _MODES[a.mode], "k": k,
                    "layout": {"dims": [f"({d})" for d in x.dims],
                               "perms": [list(perms.get(s, ())) for s in ("blocked", "grid")]}
                    if x else None})
    return out


def _tree_call(a) -> str:
    """The staging block of a pointer tree, gathered by the runtime, as the kernel indexes
    it (``ir.Tree``): its address minus the rows below the lowest one the region touches."""
    t = a.tree
    los = ", ".join(f"(long)({N.bound(x)})" for x in t.los)
    return (f"ompcl_rt_tree(&ompcl_L, (const void *)({a.name}), {t.depth}, "
            f"(long)({N.bound(a.extent.lo)}), (long)({N.bound(a.extent.hi)}), "
            f"(const long[]){{{los}}}, (const long[]){{{', '.join(t.names)}}}, "
            f"sizeof({a.var.ctype.base}), {_MODES[a.mode]})")


def _hoists(region: Region) -> list[str]:
    """Host C computing the member chains the device version reads as variables
    (``analysis.members``), once each pointer on the way is known not to be null (else the
    original runs)."""
    out = []
    for v in region.hoists:
        d = v.decl
        text = _GEN.visit(d.init)
        checks = null_guard(d.init)
        if not checks:
            out.append(_decl(v, d.name, text))
            continue
        out.append(_decl(v, d.name, "0"))
        out.append(f"if ({checks}) {d.name} = {text}; else ompcl_rt_decline(&ompcl_L, "
                   f"\"a pointer on the way to a member is null\");")
    return out


def _tree_widths(region: Region) -> list[str]:
    """Host C declaring the row widths of each pointer tree the kernel indexes, from the
    bounds of its subscripts or (``Tree.objects``) the blocks its rows point into."""
    out = []
    for a in (a for a in region.arrays if a.tree):
        t = a.tree
        for k, (n, w) in enumerate(zip(t.names, t.widths)):
            if not (t.objects and t.objects[k]):
                out.append(f"long {n} = (long)({N.bound(w)});")
                continue
            los = ", ".join(f"(long)({N.bound(x)})" for x in t.los[:k]) or "0"
            esize = f"sizeof({a.var.ctype.base})" if k == t.depth - 2 else "sizeof(void *)"
            out.append(f"long {n} = ompcl_rt_tree_width(&ompcl_L, (const void *)({a.name}), "
                       f"{k + 1}, (long)({N.bound(a.extent.lo)}), (long)({N.bound(a.extent.hi)}"
                       f"), (const long[]){{{los}}}, (const long[]){{{', '.join(t.names[:k]) or '0'}"
                       f"}}, {esize});")
    return out


def _distinct_pairs(region: Region) -> list[tuple[int, int]]:
    """The array arguments (indexes) the kernel assumes are different memory."""
    index = {a.name: k for k, a in enumerate(region.arrays)}
    return [(index[a], index[b]) for a, b in region.distinct]


_LONG_MAX, _LONG_MIN = "0x7fffffffffffffffL", "(-0x7fffffffffffffffL - 1)"


def _inspections(region: Region) -> list[str]:
    """Host C computing each inspected extent (``ir.Inspection``): the host copies of the
    arrays its subscripts read made valid, then their minimum and maximum over every
    iteration (none: an empty range)."""
    if not region.inspections:
        return []
    out = []
    for x in region.inspections:
        if x.block:  # the object the pointer points into, found by the runtime
            out.append(f"long ompcl_ilo_{x.name}, ompcl_ihi_{x.name}; ompcl_rt_block(&ompcl_L, "
                       f"(const void *)({x.name}), sizeof(*({x.name})), &ompcl_ilo_{x.name}, "
                       f"&ompcl_ihi_{x.name});")
    inspected = [x for x in region.inspections if not x.block]
    if not inspected:
        return out
    for x in inspected:
        out.append(f"long ompcl_ilo_{x.name} = {_LONG_MAX}, ompcl_ihi_{x.name} = {_LONG_MIN};")
    arrays = {a.name: a for a in region.arrays}
    for name in sorted({r for x in inspected for r in x.reads}):
        a = arrays[name]
        lo, hi = N.extent(a.extent, a.var.ctype.dims)
        t = a.var.ctype.base
        out.append(f"if (({hi}) >= ({lo})) ompcl_rt_host_range({range_start(name, lo, t)}, "
                   f"(unsigned long)({range_bytes(lo, hi, t)}), OMPCL_READ);")
    total, point = iteration_point(region)
    out.append(f"{{ long ompcl_t; for (ompcl_t = 0; ompcl_t < {total}; ompcl_t++) {{")
    out += ["  " + line for line in point]
    for x in inspected:
        for e in x.subscripts:
            lo, hi = f"ompcl_ilo_{x.name}", f"ompcl_ihi_{x.name}"
            out.append(f"  {{ const long ompcl_x = (long)({_GEN.visit(e)}); if (ompcl_x < {lo}) "
                       f"{lo} = ompcl_x; if (ompcl_x > {hi}) {hi} = ompcl_x; }}")
    out.append("} }")
    return out


def region_function(hr: HostRegion, keep: bool) -> str:
    region = hr.region
    copies, writebacks = copies_and_writebacks(hr.interface)
    lastp = set(region.directive.names_in("lastprivate"))
    def bound(e: c_ast.Node) -> str:  # computed before the hoisted chains are
        return bound_text(_GEN.visit(e), region.hoists)
    dims = [{"k": k, "lb": bound(d.lb), "ub": bound(d.ub), "step": bound(d.step),
             "op": _OPS[d.op], "var": d.var, "last": d.var in lastp}
            for k, d in enumerate(region.loops)]
    reds = [{"name": r.name, "ctype": r.ctype,
             "combine": combine_text(_GEN, r.op, r.name, "ompcl_p[ompcl_k]")}
            for r in region.reductions]
    return render(
        "region.c.j2", id=region.id, loc=str(region.loc),
        directive=_comment(region.bound.directive.text),
        params=[_GEN.visit(p.decl) for p in hr.interface.params], copies=copies, dims=dims,
        arrays=_array_args(region, hr.relayout),
        relayout=hr.relayout,
        scalars=[{"name": v.name, "ctype": v.ctype.base, "record": v.ctype.record}
                 for v in region.scalars],
        reductions=reds,
        lastprivates=[{"name": v.name, "ctype": v.ctype.base} for v in region.lastprivates],
        slices=[{"k": p.k, "ctype": region.arrays[p.k].var.ctype.base}
                for p in hr.copies if p.sliced],
        keep=int(keep), writebacks=writebacks, features=list(hr.features.c_exprs),
        preconditions=list(region.preconditions),
        inspections=_hoists(region) + _inspections(region) + _tree_widths(region),
        distinct=_distinct_pairs(region),
        check=check_lines(region, _array_args(region)))


def layout_cost(path: str = "") -> list[str]:
    """The dynamic reordering cost model compiled into the program (``path``, by default
    ``models/layout-cost.json``: seconds saved per access, seconds per transposition and per
    byte); none (``path`` 'none', or no such file): the runtime's defaults."""
    if path == "none":
        return []
    try:
        c = json.loads(Path(path or LAYOUT_COST).read_text())["coefficients"]
        return [repr(float(c[k])) for k in ("gain_per_access", "seconds_per_copy",
                                             "seconds_per_byte")]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def _comment(text: str) -> str:
    return text.replace("*/", "* /")


_FOR_LINE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+omp[ \t]+for\b.*$", re.M)


def _team_threads(r: Region) -> tuple[bool, list[str]]:
    """How a team loop's own parallel region gets its threads: (one, copied): on the one
    thread itself (a loop updating a thread's array, several threads would update the one
    array at once, or whose callees use threadprivate data not visible here), else with
    the threadprivate data the loop or its callees use copied in from the team thread."""
    copied = sorted(set(r.threadprivates) - set(r.directive.names_in("private")))
    return bool(r.updated) or any(x not in r.scope for x in copied), copied


def folded(r: Region) -> tuple[Clause, ...]:
    """The reductions the analysis found in a loop written by hand (the thread's own scalars
    it only folds values into, ``analysis.threadloops``): its directive's reductions that
    the user's does not have."""
    given = r.bound.directive.clauses
    return tuple(c for c in r.directive.clause("reduction") if c not in given)


def team_fallback(hr: HostRegion, text: str) -> str:
    """A team's loop as its own parallel loop: the host path inside the team of one's device
    version (outside any parallel region, where 'omp for' would run on one thread). The
    thread's variables the loop privatised stay private; the threadprivate data it or its
    callees use is the team thread's (``_team_threads``)."""
    r = hr.region
    given = set(r.bound.directive.names_in("private"))
    # threadprivate variables stay the threads' own without a clause (one is an error)
    # (the region's own copies, a privatised file-scope array's too, shadow their originals
    # in the team of one)
    extra = [x for x in r.directive.names_in("private") if x not in given
             and r.scope.get(x) is not None
             and x not in r.threadprivates]  # a function's static threadprivate too
    one, copied = _team_threads(r)
    m = _FOR_LINE.search(text)
    par = "omp parallel for num_threads(1)" if one else "omp parallel for"
    line = NOWAIT.sub("", OMP_FOR.sub(par, m.group(0), count=1))
    clauses = (f" private({', '.join(extra)})" if extra else "") + (
        f" copyin({', '.join(copied)})" if copied and not one else "") + "".join(
        f" reduction({c.op}: {', '.join(c.args)})" for c in folded(r))
    if clauses:
        cont = line.rstrip().endswith("\\")
        line = line.rstrip().rstrip("\\").rstrip() + clauses + (" \\" if cont else "")
    return text[:m.start()] + line + text[m.end():]


def team_shared_call(hr: HostRegion, loop: HostLoop, text: str) -> str:
    """The team of one's host path of a loop with a shared host function: a parallel region
    of its own calling it (its 'omp for' shares the loop among the new threads)."""
    one, copied = _team_threads(hr.region)
    one = one or bool(folded(hr.region))  # the thread's scalars the loop folds into: its own
    clause = " num_threads(1)" if one else (f" copyin({', '.join(copied)})" if copied else "")
    named = "".join(f"(void){x}; " for x in loop.touched)  # the region's, as in the loop
    ind = indent_of(text)
    return (f"{ind}{named}\n" if named else "") + \
        f"#pragma omp parallel{clause}\n{ind}{loop.call(hr.region.id)}"


def _call(prog: Program, hr: HostRegion, text: str, scan: Scanner, host: str = "") -> str:
    """The device attempt replacing a loop, with the original loop (directive and all, or
    ``host``) as the host path in place; the lines after it keep their numbers."""
    args = ", ".join(call_arg(p) for p in hr.interface.params)
    rg, path, ind = hr.splice, c_string(prog.path), indent_of(text)
    return (f"{ind}{layout_checks(hr.interface.params)}"
            f"if (!{N.region_function(hr.region.id)}({args})) {{  /* else the OpenCL "
            f"device ran it */\n#line {scan.line_of(rg.start)} \"{path}\"\n{host or text}\n"
            f"{ind}ompcl_rt_end(&{N.descriptor(hr.region.id)}, 0); }}\n"
            f"{resume(scan, rg.end, path)}")


def _reopened(prog: Program, hr: HostRegion, text: str, scan: Scanner) -> str:
    """``_call`` for a loop whose directive stands in conditionals that also hold code above
    it (``SpliceRange.reopen``): those conditionals closed before it, opened again around
    the original text of its host path."""
    rg = hr.splice
    if not rg.reopen:
        return _call(prog, hr, text, scan)
    again = "\n".join(rg.reopen) + f'\n#line {scan.line_of(rg.start)} "{c_string(prog.path)}"\n'
    return "#endif\n" * len(rg.reopen) + _call(prog, hr, again + text, scan)


#: constructs whose directive line a team of one drops (the statement runs as plain code)
_DROPPED = {"single", "master", "masked", "barrier", "flush", "critical", "atomic", "sections",
            "section", "taskwait", "taskyield"}


def _dropped_pragmas(prog: Program, ht: HostTeam, scan: Scanner) -> list[tuple[int, int, str]]:
    """Edits commenting out the team-of-one directives inside a team (lines kept)."""
    inside = {id(n) for n in walk(ht.team.bound.stmt)}
    pragmas = [(b.directive, b.pragma) for b in prog.constructs] + [
        (d, p) for d, p, _ in prog.standalone]
    serial = _serial_spans(prog, ht, scan)
    out = []
    for d, p in pragmas:
        loc = SourceLoc.of(p)
        if id(p) not in inside or d.kind not in _DROPPED or loc.file != prog.path:
            continue
        start = scan.offset(loc.line, 1)
        end = scan.line_end(start)
        text = prog.source[start:end]
        if not text.lstrip().startswith("#"):
            continue  # from a macro (_Pragma): harmless in a team of one
        if any(hr.splice.start <= start < hr.splice.end for hr in ht.loops) or any(
                a <= start < b for a, b in serial):
            continue  # inside a loop the device attempt replaces (its host path keeps it) or
            # a loop a team of its own runs
        out.append((start, end, f"/* omp {d.kind}: a team of one runs it as plain code */"
                    + "\n" * text.count("\n")))
    return out


_IDEMPOTENT = {"max", "min", "&", "|", "&&", "||"}


def _team_wrappers(team: Team) -> tuple[list[str], list[str], list[str], list[str]]:
    """(outer, inner, inner-exit, outer-exit) lines giving the team of one its own copies of
    the region's private, firstprivate and reduction variables."""
    outer, inner, inner_exit, outer_exit = [], [], [], []
    for v in team.privates:
        inner += [_decl(v, v.name), f"(void){v.name};"]
    for v in team.firstprivates:
        copy_ = f"ompcl_fp_{v.name}"
        if v.ctype.is_array_like and not v.ctype.pointer:  # arrays are copied bytewise
            outer.append(f"{_decl(v, copy_)} __builtin_memcpy(&{copy_}, &{v.name}, "
                         f"sizeof {copy_});")
            inner.append(f"{_decl(v, v.name)} __builtin_memcpy(&{v.name}, &{copy_}, "
                         f"sizeof {copy_});")
        else:
            outer.append(_decl(v, copy_, v.name))
            inner.append(_decl(v, v.name, copy_))
    for r in team.reductions:
        saved = f"ompcl_red_{r.name}"
        # the private copy starts at the identity; for idempotent operators the original
        # value is one
        start = saved if r.op in _IDEMPOTENT else ("1" if r.op == "*" else "0")
        outer.append(f"{r.ctype} {saved} = {r.name};")
        inner.append(f"{r.ctype} {r.name} = {start};")
        merged = _GEN.visit(combine(r.op, c_ast.ID(saved), c_ast.ID(r.name)))
        inner_exit.append(f"{saved} = {merged};")
        outer_exit.append(f"{r.name} = {saved};")
    return outer, inner, inner_exit, outer_exit


def _serial_spans(prog: Program, ht: HostTeam, scan: Scanner) -> list[tuple[int, int]]:
    """The text of each loop of the team that stays on the host: (its directive's start, its
    statement's end)."""
    return [serial_span(prog, scan, r.bound.pragma) for r in ht.serial]


def _serial_edits(prog: Program, ht: HostTeam, scan: Scanner) -> list[tuple[int, int, str]]:
    """Edits making each loop of the team that stays on the host a ``parallel for`` of its own
    in the team of one (``hostloop.serial_directive``); its lines keep their numbers."""
    out = []
    for r, (start, _) in zip(ht.serial, _serial_spans(prog, ht, scan)):
        end = scan.line_end(start)  # continuation lines included
        text = prog.source[start:end]
        out.append((start, end, serial_directive(r, ht.team.bound, text)))
    return out


def _team_host(hr: HostRegion, text: str, shared: dict[int, HostLoop]) -> str:
    loop = shared.get(hr.region.id)
    return team_shared_call(hr, loop, text) if loop else team_fallback(hr, text)


def _shared_calls(prog: Program, ht: HostTeam, scan: Scanner, shared: dict[int, HostLoop]
                  ) -> list[tuple[int, int, str]]:
    """Edits putting the calls of the shared host functions in the original region."""
    path = c_string(prog.path)
    return [(hr.splice.start, hr.splice.end,
             f"{indent_of(src)}{shared[hr.region.id].region_call(hr.region.id)}\n"
             f"{resume(scan, hr.splice.end, path)}")
            for hr in ht.loops if hr.region.id in shared
            for src in [prog.source[hr.splice.start:hr.splice.end]]]


def team_text(prog: Program, ht: HostTeam, scan: Scanner,
              syncs: list[tuple[int, int]], plan=None,
              shared: dict[int, HostLoop] | None = None) -> str:
    """A team's replacement: its device version (the region's statement with its loops as
    calls and team-of-one directives dropped) and, for the host, the original region (its
    loops with a ``shared`` host function call it)."""
    src, rg, tid = prog.source, ht.splice, ht.team.id
    shared = shared or {}
    original = apply_edits(src[rg.start:rg.end], _shared_calls(prog, ht, scan, shared), rg.start)
    stmt = scan.skip(scan.line_end(rg.start))
    edits = [(hr.splice.start, hr.splice.end, _call(
        prog, hr, src[hr.splice.start:hr.splice.end], scan,
        _team_host(hr, src[hr.splice.start:hr.splice.end], shared))) for hr in ht.loops] + \
        _dropped_pragmas(prog, ht, scan) + _serial_edits(prog, ht, scan) + [
        e for s, t in syncs for e in ((s, s, "{ "), (t, t, " ompcl_rt_sync_host(); }"))] + \
        probe_edits(prog, plan, scan, tid)
    # (a directive that is the region's statement, '#pragma omp master' right after
    # '#pragma omp parallel', lies before it: the device text leaves it out anyway)
    device = apply_edits(src[stmt:rg.end], [e for e in edits if e[0] >= stmt], stmt)
    outer, inner, inner_exit, outer_exit = _team_wrappers(ht.team)
    path, desc = c_string(prog.path), f"&{N.team(tid)}"
    named = sorted({x for hr in ht.loops if hr.region.id in shared
                    for x in shared[hr.region.id].outer})
    lines = ["{ " + "".join(f"(void){x}; " for x in named) +
             "const int ompcl_outer = !OMPCL_IN_PARALLEL();",
             f"const int ompcl_team = ompcl_outer && ompcl_rt_team_begin({desc});",
             "if (ompcl_team) {  /* the parallel region run by a team of one thread */",
             "{ " + " ".join(outer), "{ " + " ".join(inner)] + _answers(ht.team) + [
             f'#line {scan.line_of(stmt)} "{path}"', device] + _answers(ht.team, undo=True) + [
             " ".join(inner_exit) + " }",
             " ".join(outer_exit) + " }", f"ompcl_rt_team_end({desc});", "} else {",
             f'#line {scan.line_of(rg.start)} "{path}"', original,
             f"if (ompcl_outer) ompcl_rt_team_end({desc});  /* times the host path */", "} }",
             resume(scan, rg.end, path)]
    return "\n".join(lines)


#: how the team of one answers a team query of its once-run code (``Team.queries``)
_ANSWER = {"omp_get_num_threads": "ompcl_team_threads", "omp_get_thread_num": "0"}


def _answers(team: Team, undo: bool = False) -> list[str]:
    """Lines making the team queries of the team of one's code answer as the host's team
    would (a macro over the region's text, which calls them only where one thread runs
    the code once), or, with ``undo``, ending that."""
    if not team.queries:
        return []
    if undo:
        return [f"#undef {q}" for q in team.queries]
    return ["const int ompcl_team_threads = omp_get_max_threads(); (void)ompcl_team_threads;"
            ] + [f"#define {q}() {_ANSWER[q]}" for q in team.queries]


def generate_host(prog: Program, regions: list[HostRegion], residency: ResidencyPlan,
                  kernel_source: str, embed: bool = True, kernel_file: str = "",
                  teams: tuple[HostTeam, ...] = (), layout: tuple = (),
                  model: dict | None = None, layout_model: str = "",
                  variant_source: str = "") -> str:
    """The spliced host source for the offloaded ``regions`` and ``teams`` (original text if
    none)."""
    hostplan = residency.host
    if not regions and not teams and not (hostplan and hostplan.functions):
        return prog.source
    src, scan = prog.source, prog.scanner()

    def within(s: int, t: HostTeam) -> bool:
        return t.splice.start <= s < t.splice.end

    # a sync after a loop inside a team belongs to its device version
    replace = [e for s, t in residency.syncs if not any(within(s, ht) for ht in teams)
               for e in ((s, s, "{ "), (t, t, " ompcl_rt_sync_host(); }"))]
    shared = {hr.region.id: loop for ht in teams for hr in ht.loops
              for loop in [host_loop(prog, hr, scan, ", ".join(
                  call_arg(p) for p in hr.interface.params), ht.team.bound)] if loop}
    replace += [(ht.splice.start, ht.splice.end, team_text(
        prog, ht, scan, [(s, t) for s, t in residency.syncs if within(s, ht)], hostplan,
        shared)) for ht in teams]
    inserts, func_lines = _lifted_types(prog, scan)
    sliced: list[str] = []  # functions of the scratch checks, after every declaration
    slices: dict[str, str] = {}  # their text (names made alike) -> the prefix defining it
    for hr in regions:
        rg = hr.splice
        text = src[rg.start:rg.end]
        if hr.region.context != "region":  # a team's loops are called from its device version
            replace.append((rg.start, rg.end, _reopened(prog, hr, text, scan)))
        fn = region_function(hr, residency.keep[hr.region.id])
        protos, defs = check_functions(hr.region)
        if defs:   # loops calling the same callees have the same slices: compiled once
            own = f"ompcl_sc{hr.region.id}_"
            canon = "\n".join(defs).replace(own, "ompcl_sc@_")
            first = slices.setdefault(canon, own)
            if first != own:
                fn, protos, defs = (fn.replace(own, first),
                                    [p.replace(own, first) for p in protos], [])
        loop = shared.get(hr.region.id)
        inserts.setdefault(rg.func_start, []).extend(
            protos + [fn] + ([loop.definition] if loop else []))
        sliced += defs
        func_lines[rg.func_start] = rg.func_line
    if hostplan is not None:
        replace += instrumentation(prog, hostplan)
    out = [apply_edits(src, replace + [(p, p, "\n".join(fns) + f'#line {func_lines[p]} '
                                        f'"{c_string(prog.path)}"\n')
                                       for p, fns in inserts.items()])]
    prologue = _prologue(prog, regions, teams, hostplan, kernel_source, embed, kernel_file,
                         model, layout_model, variant_source, layout)
    return prologue + "".join(out) + _epilogue(hostplan, sliced, layout)


def _lifted_types(prog: Program, scan: Scanner) -> tuple[dict[int, list[str]], dict[int, int]]:
    """The copies of each function's own types (``analysis.localtypes``), to insert before
    its declaration (the code outlined from it names them), and the line there."""
    at = [(scan.declaration_start(scan.offset(line, 1)), defs)
          for f, defs in host_definitions(prog.ast) if (line := function_line(prog, f))]
    return {k: list(defs) for k, defs in at}, {k: scan.line_of(k) for k, _ in at}


def _prologue(prog: Program, regions: list[HostRegion], teams: tuple[HostTeam, ...], hostplan,
              kernel_source: str, embed: bool, kernel_file: str, model: dict | None,
              layout_model: str, variant_source: str, layout: tuple) -> str:
    """The host file's runtime prologue: kernel source, model, descriptors of the regions
    and teams, the layout checks."""
    return render(
        "host_prologue.c.j2", file=c_string(prog.path), embed=embed, kernel_file=kernel_file,
        kernel_lines=c_lines(kernel_source),
        model=c_source(model, attributes="OMPCL_GLUE ") if model and (regions or teams) else "",
        variant_lines=c_lines(variant_source) if variant_source else [],
        predict="ompcl_model" if model else "0",
        regions=[{"id": hr.region.id, "file": c_string(hr.region.loc.file),
                  "line": hr.region.loc.line, "nfeatures": len(hr.features),
                  "features": [repr(float(v)) for v in hr.features],
                  "sites": [(s.buffer, c_string(s.array), c_string(str(s.loc)))
                            for s in hr.sites],
                  "variants": hr.relayout.kernels if hr.relayout else {}} for hr in regions],
        layout_cost=layout_cost(layout_model) if any(hr.relayout for hr in regions) else None,
        teams=[{"id": ht.team.id, "file": c_string(ht.team.loc.file), "line": ht.team.loc.line,
                "keep": int(bool(hostplan) and ht.team.id in hostplan.teams),
                # loops on one thread in the device version: those kept on the host, and
                # those updating a thread's array when the device declines them
                "serial": len(ht.team.serial) + sum(bool(h.region.updated) for h in ht.loops),
                "nloops": len(ht.team.loops) - len(ht.team.serial)} for ht in teams],
        layout=[e.host for e in layout],
        markers=markers(hostplan))


def _epilogue(hostplan, sliced: list[str], layout: tuple) -> str:
    """What follows the user's text: the markers of instrumented functions, the table of
    objects, the scratch checks' functions and the host's struct layout."""
    epilogue = "".join(f"\nconst char {N.marker(f.func.decl.name)} = 1;  /* instrumented */\n"
                       for f in (hostplan.functions if hostplan else ()) if f.marker)
    epilogue += object_table(hostplan.objects if hostplan else ())
    epilogue += "".join(f"\n{text}" for text in sliced)
    if layout:  # the host's struct layout, where every file-scope type is declared
        body = " ".join(f"out[{k}] = (long)({e.host});" for k, e in enumerate(layout))
        epilogue += f"\nstatic void ompcl_layout_host(long *out) {{ {body} }}\n"
    return epilogue
