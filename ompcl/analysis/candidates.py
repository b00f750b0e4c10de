"""Candidate search: a ``Program`` 's bound OpenMP constructs -> the work-sharing loops ompcl
may offload (``Candidate`` s, clauses of ``parallel`` + ``for`` merged), and a ``Reason`` for
each ``omp for`` loop that is not one.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import PragmaSyntaxError, Reason, SourceLoc
from ..frontend.program import Program
from ..ir import BoundDirective, Directive

_PARALLEL_FOR = ("parallel for", "parallel for simd")
_LOOP_CONSTRUCTS = {"for", "parallel for", "for simd", "parallel for simd", "simd"}


@dataclass(frozen=True)
class Candidate:
    """A construct that may become a kernel: its directive (clauses merged) and loop."""

    bound: BoundDirective
    directive: Directive
    loop: c_ast.For


@dataclass(frozen=True)
class CandidateScan:
    """The candidates in source order, and the work-sharing loops that are not candidates."""

    candidates: tuple[Candidate, ...]
    skipped: tuple[tuple[SourceLoc, Reason], ...]


def _inside(inner: BoundDirective, outer: BoundDirective) -> bool:
    return any(n is outer.stmt for n in inner.path)


def _single_for(b: BoundDirective, constructs: list[BoundDirective]) -> BoundDirective | None:
    """The ``omp for`` that is the only statement of a ``parallel`` region, if any."""
    body = b.stmt
    if not isinstance(body, c_ast.Compound) or len(body.block_items or []) != 2:
        return None
    for c in constructs:
        if c.directive.kind in ("for", "for simd") and c.pragma is body.block_items[0]:
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
    """Work-sharing loops ompcl may offload, and why other ``omp for`` loops are not."""
    check_loop_constructs(prog)
    out: list[Candidate] = []
    skipped: list[tuple[SourceLoc, Reason]] = []
    consumed: set[int] = set()
    parallels = [b for b in prog.constructs if b.directive.kind.startswith("parallel")]
    for b in prog.constructs:
        kind, loc = b.directive.kind, b.directive.loc
        nested = [p for p in parallels if p is not b and _inside(b, p)]
        if kind in _PARALLEL_FOR or kind == "parallel":
            if nested:
                if kind != "parallel":
                    skipped.append((loc, Reason("nested-parallel", "nested inside another "
                                                "parallel region", loc)))
                continue
            if kind == "parallel":
                inner = _single_for(b, prog.constructs)
                if inner is not None:
                    consumed.add(id(inner))
                    out.append(Candidate(b, _merged(b, inner), inner.stmt))
            else:
                out.append(Candidate(b, b.directive, b.stmt))
        elif kind in ("for", "for simd") and id(b) not in consumed:
            if any(p.directive.kind == "parallel" for p in nested):
                why = Reason("for-in-region", "'#pragma omp for' is inside a parallel region "
                             "with other statements (only 'parallel for' and single-loop parallel "
                             "regions are offloaded)", loc)
            else:
                why = Reason("orphaned-for", "orphaned '#pragma omp for' (its parallel region "
                             "is in a caller)", loc)
            skipped.append((loc, why))
    return CandidateScan(tuple(out), tuple(skipped))
