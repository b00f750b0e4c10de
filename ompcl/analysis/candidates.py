"""Candidate search: a ``Program`` 's bound OpenMP constructs -> the work-sharing loops ompcl
may offload (``Candidate`` s) and the ``parallel`` regions that may run as a team of one
(``TeamCandidate`` s), and a ``Reason`` for each ``omp for`` loop that is neither.

A loop's context decides its data sharing: a ``parallel for`` (or a ``parallel`` region whose
only statement is one ``omp for``: clauses merged) shares what it does not privatise; an
``omp for`` in a larger region ('region') or orphaned in a function ('orphaned') sees the
variables of its thread as private.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import PragmaSyntaxError, Reason, SourceLoc
from ..frontend.program import Program
from ..ir import BoundDirective, Directive

_PARALLEL_FOR = ("parallel for", "parallel for simd")
_FOR = ("for", "for simd")
_LOOP_CONSTRUCTS = {"for", "parallel for", "for simd", "parallel for simd", "simd"}
#: constructs ompcl leaves to OpenMP whole, the loops inside them included: devices, leagues
#: of teams, tasking loops and the 'loop' construct
_LEFT_TO_OPENMP = {"target", "teams", "distribute", "taskloop", "loop"}


def _left_to_openmp(kind: str) -> bool:
    return not _LEFT_TO_OPENMP.isdisjoint(kind.split()) and kind != "target data"


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
    parallels = [b for b in prog.constructs if "parallel" in b.directive.kind.split()]
    left = [b for b in prog.constructs if _left_to_openmp(b.directive.kind)]
    for b in prog.constructs:
        kind, loc = b.directive.kind, b.directive.loc
        nested = [p for p in parallels if p is not b and _inside(b, p)]
        outer = next((p for p in left if p is not b and _inside(b, p)), None)
        if outer is None and _left_to_openmp(kind):
            if isinstance(b.stmt, c_ast.For):
                skipped.append((loc, Reason("construct", f"'#pragma omp {kind}' is left to "
                                            "OpenMP", loc)))
            continue
        if outer is not None:  # its own remark, if it is a loop, and none for those inside
            if kind in _PARALLEL_FOR or kind in _FOR or _left_to_openmp(kind):
                skipped.append((loc, Reason("construct", "inside '#pragma omp "
                                            f"{outer.directive.kind}', which is left to OpenMP",
                                            loc)))
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
