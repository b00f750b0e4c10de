"""Static code features of a kernel (after Grewe et al.): operation and memory-access counts,
counted per work-item on the kernel's (renamed, transformed) body.

Consumes a ``KernelSpec``, the device names of its buffers and its scalar parameters (device
name -> the host variable passed for it); produces ``KernelFeatures``: the values of
``predict.schema.STATIC`` and, when an inner loop's trip count is known only at run time, C
expressions that compute them when the region starts.

Counted: ``comp`` (arithmetic, comparisons and calls; a math function as 8), ``mem`` (accesses
to global buffers), ``localmem`` (accesses to local memory: the work-group tree of each
reduction, one store and one load per work-item), ``coalesced`` (global accesses whose last
subscript steps by one with work-item dimension 0 and whose other subscripts do not involve
it), ``atomic`` (atomic updates), ``branches`` (conditionals and inner loops). An inner loop
weighs its body by its trip count: a constant, else the count computed from the region's
scalars at run time (``ompcl_trip``), else ``UNKNOWN_TRIP``.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..analysis.builtins import is_math
from ..analysis.ctypes_ import c_text
from ..analysis.index import expr_symbol, form
from ..analysis.loops import loop_start
from ..frontend.clone import clone
from ..ir import Affine, KernelSpec, Sym, SymKind
from ..predict.schema import STATIC

UNKNOWN_TRIP = 16
_COMPUTE_OPS = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==",
                "!=", "&&", "||"}
_TRIP_OPS = {"<": 0, "<=": 1, ">": 2, ">=": 3}

#: a weight: a constant factor times run-time trip counts (their C expressions, sorted)
Weight = tuple[float, tuple[str, ...]]


@dataclass(frozen=True)
class KernelFeatures:
    """Static features of one kernel: values (run-time trip counts as ``UNKNOWN_TRIP``) and,
    when some count depends on run-time values, one C expression per feature."""

    values: tuple[float, ...]
    c_exprs: tuple[str, ...] = ()

    def __iter__(self):
        return iter(self.values)

    def __len__(self) -> int:
        return len(self.values)


def _literal(node: c_ast.Node | None) -> int | None:
    if isinstance(node, c_ast.Constant) and node.type == "int":
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        v = _literal(node.expr)
        return None if v is None else -v
    return None


def _loop_parts(loop: c_ast.For) -> tuple[str, c_ast.Node, c_ast.Node, int, int] | None:
    """(variable, lower bound, upper bound, step, comparison code) of a canonical loop."""
    cond, nxt = loop.cond, loop.next
    start = loop_start(loop)
    if start is None:
        return None
    var, lb = start
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _TRIP_OPS
            and isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        return None
    step = None
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and (
            nxt.expr.name == var):
        step = {"p++": 1, "++": 1, "p--": -1, "--": -1}.get(nxt.op)
    elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and (
            nxt.lvalue.name == var) and nxt.op in ("+=", "-="):
        k = _literal(nxt.rvalue)
        step = None if k is None else (k if nxt.op == "+=" else -k)
    if not step:
        return None
    return var, lb, cond.right, step, _TRIP_OPS[cond.op]


class _Counter:
    def __init__(self, arrays: set[str], dims: list[str], scalars: dict[str, str]):
        self.arrays = arrays
        self.scalars = scalars
        self.syms = {v: Sym(SymKind.DIM, v, k) for k, v in enumerate(dims)}
        self.dim0 = self.syms[dims[-1]]
        self.counts: dict[str, dict[tuple[str, ...], float]] = {n: {} for n in STATIC}

    def add(self, name: str, w: Weight, amount: float = 1.0) -> None:
        terms = self.counts[name]
        terms[w[1]] = terms.get(w[1], 0.0) + w[0] * amount

    def form(self, e: c_ast.Node) -> Affine | None:
        def resolve(name: str) -> Affine:
            return Affine.of(self.syms.get(name) or Sym(SymKind.VAR, name, name))
        return form(e, resolve, lambda n: expr_symbol(n, lambda x: x not in self.syms))

    def coalesced(self, subs: list[c_ast.Node]) -> bool:
        """Last subscript steps by one with dimension 0, the others do not involve it."""
        forms = [self.form(s) for s in subs]
        if any(f is None for f in forms):
            return False
        return forms[0].coef(self.dim0) == Affine.constant(1) and all(
            f.coef(self.dim0) == Affine() for f in forms[1:])

    def host_expr(self, e: c_ast.Node) -> str | None:
        """``e`` as host C over the region's scalars, or None if it reads anything else."""
        e = clone(e)
        for n in _walk(e):
            if isinstance(n, c_ast.ID):
                if n.name not in self.scalars:
                    return None
                n.name = self.scalars[n.name]
            elif not isinstance(n, (c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp,
                                    c_ast.Cast, c_ast.TypeDecl, c_ast.IdentifierType,
                                    c_ast.Typename)):
                return None
        return c_text(e)

    def trip(self, loop: c_ast.For) -> Weight:
        parts = _loop_parts(loop)
        if parts is None:
            return float(UNKNOWN_TRIP), ()
        _, lb, ub, step, op = parts
        a, b = _literal(lb), _literal(ub)
        if a is not None and b is not None:
            n = {0: (b - a + step - 1) // step if b > a else 0,
                 1: (b - a) // step + 1 if b >= a else 0,
                 2: (a - b - step - 1) // -step if a > b else 0,
                 3: (a - b) // -step + 1 if a >= b else 0}[op]
            return float(max(n, 1)), ()
        lo, hi = self.host_expr(lb), self.host_expr(ub)
        if lo is None or hi is None or (step > 0) != (op < 2):
            return float(UNKNOWN_TRIP), ()
        return 1.0, (f"(double)ompcl_trip((long)({lo}), (long)({hi}), {step}L, {op})",)

    def count(self, node: c_ast.Node, w: Weight) -> None:
        if isinstance(node, c_ast.For):
            self.add("branches", w)
            f, syms = self.trip(node)
            inner = (w[0] * f, tuple(sorted(w[1] + syms)))
            for part, weight in ((node.init, w), (node.cond, inner), (node.next, inner)):
                if part is not None:
                    self.count(part, weight)
            return self.count(node.stmt, inner)
        if isinstance(node, (c_ast.BinaryOp, c_ast.Assignment)) and (
                getattr(node, "op", "").rstrip("=") in _COMPUTE_OPS):
            self.add("comp", w)
        if isinstance(node, c_ast.FuncCall):
            name = getattr(node.name, "name", "")
            if name.startswith("ompcl_atomic_"):
                self.add("atomic", w)
            else:
                self.add("comp", w, 8 if is_math(name) else 1)
        if isinstance(node, (c_ast.If, c_ast.TernaryOp, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            self.add("branches", w)
        if isinstance(node, c_ast.ArrayRef):
            base, subs = node, []
            while isinstance(base, c_ast.ArrayRef):
                subs.append(base.subscript)
                base = base.name
            if isinstance(base, c_ast.ID) and base.name in self.arrays:
                self.add("mem", w)
                if self.coalesced(subs):
                    self.add("coalesced", w)
            for s in subs:
                self.count(s, w)
            return
        for _, child in node.children():
            self.count(child, w)


def _walk(node: c_ast.Node):
    yield node
    for _, child in node.children():
        yield from _walk(child)


def _value(terms: dict[tuple[str, ...], float]) -> float:
    return sum(a * UNKNOWN_TRIP ** len(syms) for syms, a in terms.items())


def _c_expr(terms: dict[tuple[str, ...], float]) -> str:
    parts = [repr(float(a)) if not syms else f"{float(a)!r} * " + " * ".join(syms)
             for syms, a in sorted(terms.items()) if a]
    return " + ".join(parts) if parts else "0.0"


def static_features(spec: KernelSpec, arrays: set[str],
                    scalars: dict[str, str] | None = None) -> KernelFeatures:
    """Per-work-item counts of one kernel, in schema order; ``scalars`` maps the kernel's
    scalar parameters to the host variables passed for them (for run-time trip counts)."""
    c = _Counter(arrays, [name for name, _ in spec.dims], dict(scalars or {}))
    c.count(spec.body, (1.0, ()))
    for _ in spec.reductions:  # the work-group tree: a store and a load per work-item
        c.add("localmem", (1.0, ()), 2.0)
    values = tuple(_value(c.counts[n]) for n in STATIC)
    symbolic = any(syms for n in STATIC for syms in c.counts[n])
    return KernelFeatures(values, tuple(_c_expr(c.counts[n]) for n in STATIC)
                          if symbolic else ())
