"""Static code features of a kernel (after Grewe et al.): operation and memory-access counts.

Consumes the loop nest and its ``BodyInfo``; produces ``(name, value)`` pairs. Inner loops weigh
their body by the trip count when it is a literal, else by ``UNKNOWN_TRIP``.
"""
from __future__ import annotations

from pycparser import c_ast

from .affine import affine
from .builtins import is_math

UNKNOWN_TRIP = 16
_COMPUTE_OPS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==",
                "!=", "&&", "||"}


def _trip(loop: c_ast.For) -> int:
    try:
        lb = int(loop.init.decls[0].init.value if isinstance(loop.init, c_ast.DeclList)
                 else loop.init.rvalue.value)
        ub = int(loop.cond.right.value)
        return max(abs(ub - lb), 1)
    except (AttributeError, ValueError, TypeError):
        return UNKNOWN_TRIP


def _weighted(node: c_ast.Node, weight: int, counts: dict[str, float], arrays: set[str],
              dim0: str, pvars: set[str]) -> None:
    if isinstance(node, c_ast.For):
        for part in (node.init, node.cond, node.next):
            if part is not None:
                _weighted(part, weight, counts, arrays, dim0, pvars)
        _weighted(node.stmt, weight * _trip(node), counts, arrays, dim0, pvars)
        return
    if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)) and (
            getattr(node, "op", "").rstrip("=") in _COMPUTE_OPS):
        counts["comp"] += weight
    if isinstance(node, c_ast.FuncCall):
        counts["comp"] += weight * (8 if is_math(getattr(node.name, "name", "")) else 1)
    if isinstance(node, (c_ast.If, c_ast.TernaryOp, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        counts["branches"] += weight
    if isinstance(node, c_ast.ArrayRef):
        base, subs = node, []
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        if isinstance(base, c_ast.ID) and base.name in arrays:
            counts["mem"] += weight
            last = affine(subs[0], pvars, set())
            if last is not None and last.coef(dim0) == "1" and all(
                    affine(s, pvars, set()) is not None and affine(s, pvars, set()).coef(dim0)
                    is None for s in subs[1:]):
                counts["coalesced"] += weight
        for s in subs:
            _weighted(s, weight, counts, arrays, dim0, pvars)
        return
    for _, child in node.children():
        _weighted(child, weight, counts, arrays, dim0, pvars)


def static_features(loops, info, arrays) -> tuple[tuple[str, float], ...]:
    """Per-work-item counts: comp, mem, coalesced, branches, and the derived ratios."""
    counts = {"comp": 0.0, "mem": 0.0, "coalesced": 0.0, "branches": 0.0}
    names = {a.name for a in arrays}
    pvars = {d.var for d in loops}
    _weighted(loops[-1].loop.stmt, 1, counts, names, loops[-1].var, pvars)
    mem = max(counts["mem"], 1.0)
    counts["coalesced_ratio"] = counts["coalesced"] / mem
    counts["comp_mem_ratio"] = counts["comp"] / mem
    counts["dims"] = float(len(loops))
    return tuple(sorted(counts.items()))

