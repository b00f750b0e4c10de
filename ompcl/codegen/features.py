"""Static code features of a kernel (after Grewe et al.): operation and memory-access counts,
counted per work-item on the kernel's (renamed, transformed) body.

Consumes a ``KernelSpec`` and the device names of its buffers; produces the values of
``predict.schema.STATIC``. Inner loops weigh their body by the trip count when it is a
literal, else by ``UNKNOWN_TRIP``.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.builtins import is_math
from ..analysis.index import expr_symbol, form
from ..ir import Affine, KernelSpec, Sym
from ..predict.schema import ordered

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


class _Counter:
    def __init__(self, arrays: set[str], dims: list[str]):
        self.arrays = arrays
        self.syms = {v: Sym("dim", v, k) for k, v in enumerate(dims)}
        self.dim0 = self.syms[dims[-1]]
        self.counts = {"comp": 0.0, "mem": 0.0, "coalesced": 0.0, "branches": 0.0}

    def form(self, e: c_ast.Node) -> Affine | None:
        def resolve(name: str) -> Affine:
            return Affine.of(self.syms.get(name) or Sym("var", name, name))
        return form(e, resolve, lambda n: expr_symbol(n, lambda x: x not in self.syms))

    def coalesced(self, subs: list[c_ast.Node]) -> bool:
        """Last subscript steps by one with dimension 0, the others do not involve it."""
        forms = [self.form(s) for s in subs]
        if any(f is None for f in forms):
            return False
        return forms[0].coef(self.dim0) == Affine.constant(1) and all(
            f.coef(self.dim0) == Affine() for f in forms[1:])

    def count(self, node: c_ast.Node, weight: int) -> None:
        if isinstance(node, c_ast.For):
            for part in (node.init, node.cond, node.next):
                if part is not None:
                    self.count(part, weight)
            return self.count(node.stmt, weight * _trip(node))
        if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)) and (
                getattr(node, "op", "").rstrip("=") in _COMPUTE_OPS):
            self.counts["comp"] += weight
        if isinstance(node, c_ast.FuncCall):
            self.counts["comp"] += weight * (8 if is_math(getattr(node.name, "name", "")) else 1)
        if isinstance(node, (c_ast.If, c_ast.TernaryOp, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            self.counts["branches"] += weight
        if isinstance(node, c_ast.ArrayRef):
            base, subs = node, []
            while isinstance(base, c_ast.ArrayRef):
                subs.append(base.subscript)
                base = base.name
            if isinstance(base, c_ast.ID) and base.name in self.arrays:
                self.counts["mem"] += weight
                if self.coalesced(subs):
                    self.counts["coalesced"] += weight
            for s in subs:
                self.count(s, weight)
            return
        for _, child in node.children():
            self.count(child, weight)


def static_features(spec: KernelSpec, arrays: set[str]) -> tuple[float, ...]:
    """Per-work-item counts and ratios of one kernel, in schema order."""
    c = _Counter(arrays, [name for name, _ in spec.dims])
    c.count(spec.body, 1)
    counts = dict(c.counts)
    mem = max(counts["mem"], 1.0)
    counts["coalesced_ratio"] = counts["coalesced"] / mem
    counts["comp_mem_ratio"] = counts["comp"] / mem
    counts["dims"] = float(len(spec.dims))
    return ordered(counts)
