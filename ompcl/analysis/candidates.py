"""Candidate search: a ``Program`` 's bound OpenMP constructs -> the work-sharing loops ompcl
may offload (``Candidate`` s) and the ``parallel`` regions that may run as a team of one
(``TeamCandidate`` s), and a ``Reason`` for each ``omp for`` loop that is neither.

A loop's context decides its data sharing: a ``parallel for`` (or a ``parallel`` region whose
only statement is one ``omp for``: clauses merged) shares what it does not privatise; an
``omp for`` in a larger region ('region') or orphaned in a function ('orphaned') sees the
variables of its thread as private.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import PragmaSyntaxError, Reason, SourceLoc
from ..frontend.program import Program
from ..ir import BoundDirective, Directive
from .linear import linear_steps, top_split

_PARALLEL_FOR = ("parallel for", "parallel for simd")
_FOR = ("for", "for simd")
_LOOP_CONSTRUCTS = {"for", "parallel for", "for simd", "parallel for simd", "simd"}
#: constructs ompcl leaves to OpenMP whole, the loops inside them included: devices, leagues
#: of teams, tasking loops and the 'loop' construct
_LEFT_TO_OPENMP = {"target", "teams", "distribute", "taskloop", "loop"}


#: device loop constructs that run every iteration once, in any order, as ``parallel for``
#: does: what the device translation gives them (the host version keeps the construct)
_DEVICE_LOOPS = {f"{pre}{loop}" for pre in ("target teams distribute ", "target ",
                                            "target teams ")
                 for loop in ("parallel for", "parallel for simd", "parallel loop")
                 } | {"target teams distribute", "target teams distribute simd",
                      "target teams loop"}
#: the same loops as the only statement of a ``target`` region
_IN_TARGET = {k[len("target "):] for k in _DEVICE_LOOPS} - {"teams"}
#: clauses of those constructs about where and how data and teams go on an accelerator
#: (the host version, and the runtime's coherence, give their meaning on either side)
_PLACEMENT = {"map", "device", "is_device_ptr", "has_device_addr", "defaultmap", "depend",
              "nowait", "num_teams", "thread_limit", "dist_schedule", "uses_allocators"}


def _left_to_openmp(kind: str) -> bool:
    return (not _LEFT_TO_OPENMP.isdisjoint(kind.split()) and kind != "target data"
            and kind not in _DEVICE_LOOPS)


def _as_parallel_for(outer: BoundDirective, inner: BoundDirective | None = None) -> Directive:
    """A device loop construct (or a ``target`` region and its one loop construct) as the
    ``parallel for`` whose meaning it has on shared memory; clauses of placement dropped,
    as is an ``if`` that only chooses the target (both sides give the same answer)."""
    clauses = tuple(c for b in (outer, inner) if b is not None for c in b.directive.clauses
                    if c.name not in _PLACEMENT
                    and not (c.name == "if" and c.modifiers == ("target",)))
    d = outer.directive
    return Directive("parallel for", clauses, d.loc, d.text)


def _mapped(target: Directive) -> set[str] | None:
    """The variables a ``target`` directive maps (None: every scalar, ``defaultmap(tofrom:
    scalar)``): on the host they are the originals, where the target's other scalars are
    firstprivate copies."""
    if any(("from" in a) and ("scalar" in a or ":" not in a)
           for c in target.clause("defaultmap") for a in c.args):
        return None
    out = set()
    for c in target.clause("map"):
        for arg in c.args:
            items = top_split(top_split(arg, ":")[-1], ",")
            out |= {m[1] for x in items if (m := re.match(r"\s*([A-Za-z_]\w*)", x))}
    return out


def _unmapped_results(target: BoundDirective, inner: BoundDirective) -> list[str]:
    """The scalars the loop construct of a ``target`` region writes back (reductions,
    lastprivates, linears) that the target does not map: firstprivate to the target, so the
    original (gcc's host fallback) leaves them as they were, which no kernel gives."""
    d = inner.directive
    steps = linear_steps(d)
    results = list(d.names_in("reduction")) + list(d.names_in("lastprivate")) + list(
        steps if isinstance(steps, dict) else ())
    mapped = _mapped(target.directive)
    return [] if mapped is None else [n for n in results if n not in mapped]


def _target_loop(b: BoundDirective, constructs: list[BoundDirective]) -> BoundDirective | None:
    """The device loop construct that is the only statement of ``target`` region ``b``."""
    stmt = b.stmt
    if isinstance(stmt, c_ast.Compound) and len(stmt.block_items or []) == 2:
        stmt = stmt.block_items[0]
    return next((c for c in constructs if c.pragma is stmt and c.directive.kind in _IN_TARGET
                 and isinstance(c.stmt, c_ast.For)), None)


@dataclass(frozen=True)
class Candidate:
    """A loop that may become a kernel: its directive (clauses merged) and loop.

    ``context``: 'parallel-for', 'region' (an ``omp for`` of team ``team``) or 'orphaned'.
    """

    bound: BoundDirective
    directive: Directive
    loop: c_ast.For
    context: str = "parallel-for"
    team: int | None = None


@dataclass(frozen=True)
class TeamCandidate:
    """A top-level ``parallel`` region (not a lone ``omp for``) and its work-sharing loops."""

    bound: BoundDirective
    loops: tuple[int, ...]  # indexes into CandidateScan.candidates


@dataclass(frozen=True)
class CandidateScan:
    """Loops and teams in source order, and the work-sharing loops that are not candidates."""

    candidates: tuple[Candidate, ...]
    teams: tuple[TeamCandidate, ...]
    skipped: tuple[tuple[SourceLoc, Reason], ...]


def _inside(inner: BoundDirective, outer: BoundDirective) -> bool:
    return any(n is outer.stmt for n in inner.path)


def _single_for(b: BoundDirective, constructs: list[BoundDirective]) -> BoundDirective | None:
    """The ``omp for`` that is the only statement of a ``parallel`` region, if any."""
    body = b.stmt
    if not isinstance(body, c_ast.Compound) or len(body.block_items or []) != 2:
        return None
    for c in constructs:
        if c.directive.kind in _FOR and c.pragma is body.block_items[0]:
            return c
    return None


def check_loop_constructs(prog: Program) -> None:
    """A loop construct must be followed by a ``for`` loop (an error, as gcc says)."""
    for b in prog.constructs:
        if b.directive.kind in _LOOP_CONSTRUCTS and not isinstance(b.stmt, c_ast.For):
            raise PragmaSyntaxError(f"'#pragma omp {b.directive.kind}' must be followed by a "
                                    "'for' loop", b.directive.loc)


def _merged(par: BoundDirective, inner: BoundDirective) -> Directive:
    clauses = par.directive.clauses + tuple(c for c in inner.directive.clauses
                                            if c.name != "nowait")
    return Directive("parallel for", clauses, par.directive.loc, par.directive.text)


def find_candidates(prog: Program) -> CandidateScan:
    """Work-sharing loops and teams ompcl may offload, and why other loops are not."""
    check_loop_constructs(prog)
    out: list[Candidate] = []
    teams: list[tuple[BoundDirective, list[int]]] = []
    skipped: list[tuple[SourceLoc, Reason]] = []
    consumed: set[int] = set()
    parallels = [b for b in prog.constructs if "parallel" in b.directive.kind.split()
                 or b.directive.kind in _DEVICE_LOOPS or b.directive.kind == "target"]
    left = [b for b in prog.constructs if _left_to_openmp(b.directive.kind)]
    targets = {id(b): t for b in prog.constructs if b.directive.kind == "target"
               and (t := _target_loop(b, prog.constructs)) is not None}
    unmapped = {id(b): lost for b in prog.constructs
                if id(b) in targets and (lost := _unmapped_results(b, targets[id(b)]))}
    targets = {k: t for k, t in targets.items() if k not in unmapped}
    left = [b for b in left if id(b) not in targets]
    consumed.update(id(t) for t in targets.values())
    for b in prog.constructs:
        kind, loc = b.directive.kind, b.directive.loc
        if id(b) in consumed:
            continue
        nested = [p for p in parallels if p is not b and _inside(b, p)]
        outer = next((p for p in left if p is not b and _inside(b, p)), None)
        if outer is None and not nested and (kind in _DEVICE_LOOPS or id(b) in targets):
            inner = targets.get(id(b))
            if isinstance(b.stmt, c_ast.For) or inner is not None:
                out.append(Candidate(b, _as_parallel_for(b, inner),
                                     inner.stmt if inner is not None else b.stmt))
            continue
        if outer is None and _left_to_openmp(kind):
            if isinstance(b.stmt, c_ast.For):
                skipped.append((loc, Reason("construct", f"'#pragma omp {kind}' is left to "
                                            "OpenMP", loc)))
            continue
        if outer is not None:  # its own remark, if it is a loop, and none for those inside
            if kind in _PARALLEL_FOR or kind in _FOR or _left_to_openmp(kind):
                why = f"; '{unmapped[id(outer)][0]}' is firstprivate to it (not mapped), so " \
                    "the loop's result for it is not written back" if id(outer) in unmapped \
                    else ""
                skipped.append((loc, Reason("construct", "inside '#pragma omp "
                                            f"{outer.directive.kind}', which is left to OpenMP"
                                            + why, loc)))
            continue
        if kind in _PARALLEL_FOR or kind == "parallel":
            if nested:
                if kind != "parallel":
                    skipped.append((loc, Reason("nested-parallel", "nested inside another "
                                                "parallel region", loc)))
                continue
            inner = _single_for(b, prog.constructs) if kind == "parallel" else None
            if inner is not None:
                consumed.add(id(inner))
                out.append(Candidate(b, _merged(b, inner), inner.stmt))
            elif kind == "parallel":
                teams.append((b, []))
            else:
                out.append(Candidate(b, b.directive, b.stmt))
        elif kind in _FOR and id(b) not in consumed:
            if len(nested) > 1 or any(p.directive.kind != "parallel" for p in nested):
                skipped.append((loc, Reason("nested-parallel", "nested inside another "
                                            "parallel region", loc)))
            elif nested:
                team = next(k for k, (t, _) in enumerate(teams) if t is nested[0])
                teams[team][1].append(len(out))
                out.append(Candidate(b, b.directive, b.stmt, "region", team))
            else:
                out.append(Candidate(b, b.directive, b.stmt, "orphaned"))
    return CandidateScan(tuple(out), tuple(TeamCandidate(t, tuple(ls)) for t, ls in teams),
                         tuple(skipped))
