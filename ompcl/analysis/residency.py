"""Residency analysis: which offloaded regions may leave their data on the device.

Consumes the offloaded regions of a file (and, for the plan, the user's text); produces, per
region, whether the host code that runs after it (until the next offloaded region) provably
touches no array memory, and the loops that must make host copies valid when they exit. A
region whose successor is unknown ends with a host sync, so a missed fact costs a copy, never
a wrong answer.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..frontend.pragma import is_omp_pragma
from ..frontend.program import Program
from ..ir import Region, ResidencyPlan
from .builtins import is_math
from .ctypes_ import walk
from .hostaccess import plan_host
from .placement import loop_text

#: calls that cannot touch program memory (scalar results only)
_PURE_CALLS = {"omp_get_wtime", "omp_get_num_threads", "omp_get_max_threads",
               "omp_get_thread_num", "omp_in_parallel"}
_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


@dataclass(frozen=True)
class Residency:
    """``keep[id]``: region ``id`` leaves data on the device; ``loops``: loop statements to
    follow with a host sync (their bodies chain regions across iterations), each with the
    ids of the regions whose ``keep`` depends on it."""

    keep: dict[int, bool]
    loops: tuple[tuple[c_ast.Node, tuple[int, ...]], ...]


def scalar_only(node: c_ast.Node | None) -> bool:
    """True when a statement or expression reads and writes only scalars (no memory through
    arrays, pointers or struct members, no calls that could, no leaving the function)."""
    if node is None:
        return True
    for sub in walk(node):
        if isinstance(sub, c_ast.Pragma) and is_omp_pragma(sub.string):
            continue  # a directive line touches no memory; the statement it binds to is seen
        if isinstance(sub, (c_ast.ArrayRef, c_ast.StructRef, c_ast.Pragma, c_ast.Goto,
                            c_ast.Return, c_ast.Label)):
            return False
        if isinstance(sub, c_ast.UnaryOp) and sub.op in ("*", "&"):
            return False
        if isinstance(sub, c_ast.FuncCall):
            name = getattr(sub.name, "name", None)
            if not (is_math(name or "") or name in _PURE_CALLS):
                return False
    return True


def _after(items: list, start: int, offloaded: set[int]) -> bool | None:
    """From items[start:]: True at the next offloaded region, False at a statement that may
    touch memory, None when the block ends with only scalar statements."""
    for item in items[start:]:
        if id(item) in offloaded:
            return True
        if not scalar_only(item):
            return False
    return None


def _loop_header_scalar(loop: c_ast.Node) -> bool:
    parts = [loop.cond] + ([loop.init, loop.next] if isinstance(loop, c_ast.For) else [])
    return all(scalar_only(p) for p in parts)


def analyze_residency(regions: list[Region]) -> Residency:
    """Decide ``keep`` for each region (see module docstring)."""
    offloaded = {id(r.bound.pragma) for r in regions}
    keep: dict[int, bool] = {}
    loops: dict[int, tuple[c_ast.Node, list[int]]] = {}
    for r in regions:
        path = r.bound.path
        block = path[-1] if path else None
        items = block.block_items or [] if isinstance(block, c_ast.Compound) else []
        k = next((i for i, it in enumerate(items) if it is r.bound.stmt), None)
        verdict = _after(items, k + 1, offloaded) if k is not None else False
        if verdict is None:
            loop = path[-2] if len(path) >= 2 else None
            if isinstance(loop, _LOOPS) and loop.stmt is block and _loop_header_scalar(loop) \
                    and _after(items, 0, offloaded):
                loops.setdefault(id(loop), (loop, []))[1].append(r.id)
                verdict = True
        # a scalar the kernel updates in place lives in a buffer: host reads of it are plain
        # names, which the scan above does not see as memory
        keep[r.id] = bool(verdict) and not any(a.var.ctype.is_scalar for a in r.arrays)
    return Residency(keep, tuple((lp, tuple(ids)) for lp, ids in loops.values()))


def _block_local(v, func: c_ast.FuncDef) -> bool:
    """A local of an inner block: its memory is reused when the block ends, so no device copy
    of it may outlive the region (those of the function's own block go when it returns)."""
    if v.storage != "local" or v.decl is None:
        return False
    return not any(item is v.decl for item in func.body.block_items or [])


def plan_residency(prog: Program, regions: tuple[Region, ...], teams: tuple = (),
                   library=None) -> ResidencyPlan:
    """The residency of the offloaded regions, with the text range of each loop whose exit
    needs a host sync; regions whose loop text cannot be found lose their ``keep``. Regions
    of instrumented functions (``hostaccess``) keep their data on the device: the probes of
    the host code after them sync what it touches."""
    host = plan_host(prog, regions, teams, library)
    probed = {f.func.decl.name for f in host.functions}

    private = {t.id: {v.name for v in t.privates + t.firstprivates} for t in teams}

    def instrumented(r: Region) -> bool:
        return r.bound.func is not None and r.bound.func.decl.name in probed and (
            r.team is None or r.team in host.teams)

    offloaded = [r for r in regions if r.offload]
    res = analyze_residency([r for r in offloaded if not instrumented(r)])
    keep, syncs = dict(res.keep), []
    for r in offloaded:
        if instrumented(r):  # (a team's private copies live in its own block)
            keep[r.id] = not any(a.var.ctype.is_scalar or _block_local(a.var, r.bound.func)
                                 or a.var.name in private.get(r.team, ()) for a in r.arrays)
    scan = prog.scanner()
    for loop, ids in res.loops:
        rng = loop_text(prog, scan, loop)
        if rng is None:
            keep.update({i: False for i in ids})
        else:
            syncs.append(rng)
    return ResidencyPlan(keep, tuple(syncs), host)
