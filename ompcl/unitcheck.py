"""Consistency checks of the pipeline's units between passes (debug mode: ``--debug`` or
``OMPCL_CHECK_IR=1``): verdicts, region ids, extents' names, splice ranges and kernels agree.

Consumes the units before and after a pass and the pass's name; raises
``InternalCheckError`` on a violation (an ompcl bug), else returns nothing.
"""
from __future__ import annotations

from .diagnostics import InternalCheckError
from .ir import SymKind


def check_unit(prev, u, after: str, pass_names: list[str]) -> None:
    """Invariants that must hold after pass ``after`` (``prev`` is the unit before it, both
    ``pipeline.Unit``); a violation is an ompcl bug."""
    done = pass_names[: pass_names.index(after) + 1]
    if "place" in done and after != "place":
        _expect([r.offload for r in prev.regions] == [r.offload for r in u.regions], after,
                "a pass after 'place' changed an offload verdict")
    ids = [r.id for r in u.regions]
    _expect(ids == sorted(set(ids)), after, "region ids are not unique and ordered")
    for r in u.regions:
        _expect(r.offload or bool(r.reasons), after, f"region {r.id} has no verdict")
        for a in r.arrays:
            for sym in _extent_syms(a.extent):
                _expect(sym.kind != SymKind.VAR or r.scope.get(sym.name) is sym.payload, after,
                        f"extent of '{a.name}' names '{sym.name}' out of its scope")
                _expect(sym.kind not in (SymKind.DIM, SymKind.INNER), after,
                        f"extent of '{a.name}' still names loop variable '{sym.name}'")
    if "place" in done:
        _expect(set(u.splices) == {r.id for r in u.offloaded}, after,
                "offloaded regions and splice ranges differ")
        _expect(set(u.team_splices) == {t.id for t in u.teams if t.offload}, after,
                "offloaded teams and splice ranges differ")
        for r in u.offloaded:
            _expect(r.context != "region" or u.teams[r.team].offload, after,
                    f"loop {r.id} is offloaded but its team is not")
    if "outline" in done:
        _expect([k.region_id for k in u.kernels] == [r.id for r in u.offloaded], after,
                "kernels and offloaded regions differ")


def _extent_syms(e) -> list:
    if e is None:
        return []
    out, todo = [], [e.lo, e.hi]
    while todo:
        b = todo.pop()
        if hasattr(b, "terms"):
            out += list(b.syms())
        else:
            todo += list(b.parts) + ([b.coef] if b.coef is not None else [])
    return out


def _expect(ok: bool, after: str, what: str) -> None:
    if not ok:
        raise InternalCheckError(f"internal check failed after pass '{after}': {what}")
