"""Extent analysis: the subscripts' index forms of one array -> the ``Extent`` (inclusive
element range) a region touches, as symbolic host-side bounds.

Each loop symbol ranges over its iterations (region dimensions between their first and last
values, inner loops between their bounds), narrowed by the guards on the way to the access
(``if (i > 0) ... a[i - 1]`` reads from ``a[0]``). An access whose first subscript has no
affine form, or names a symbol without a known range, makes the extent unknown.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..diagnostics import Reason
from ..ir import (Affine, Bound, BoundExpr, Constraint, Extent, Inspection, Storage, Sym,
                  SymKind, Var)
from .accesses import InnerLoop, RawAccess, names_written
from .ctypes_ import TypeEnv, c_text, is_constant_text, walk

Range = tuple[BoundExpr, BoundExpr]


def dim_range(k: int, var: str) -> Range:
    """Range of dimension ``k``'s variable: between its first and last iteration's values."""
    first, last = Affine.of(Sym(SymKind.FIRST, var, k)), Affine.of(Sym(SymKind.LAST, var, k))
    return Bound("min", (first, last)), Bound("max", (first, last))


def _sum(parts: list[BoundExpr]) -> BoundExpr:
    affine = [p for p in parts if isinstance(p, Affine)]
    rest = [p for p in parts if not isinstance(p, Affine)]
    total = Affine()
    for a in affine:
        total = total + a
    if not rest:
        return total
    return Bound("sum", tuple(rest) + ((total,) if total != Affine() else ()))


def _scaled(coef: Affine, b: BoundExpr) -> BoundExpr:
    if coef == Affine.constant(1):
        return b
    if isinstance(b, Affine):
        return coef * b
    return Bound("scale", (b,), coef)


def bounds(f: Affine, ranges: dict[Sym, Range]) -> Range | None:
    """Inclusive [lo, hi] of an affine form over the loop symbols' ranges; None when a loop
    symbol has no range."""
    lo: list[BoundExpr] = [f.without(f.loop_syms())]
    hi: list[BoundExpr] = [f.without(f.loop_syms())]
    for sym in sorted(f.loop_syms()):
        if sym not in ranges and sym.kind in (SymKind.MOD, SymKind.DIV):
            derived = _derived_range(sym, ranges)
            if derived is not None:
                ranges = {**ranges, sym: derived}
        if sym not in ranges:
            return None
        coef = f.coef(sym)
        vlo, vhi = ranges[sym]
        a, b = _scaled(coef, vlo), _scaled(coef, vhi)
        if coef.is_const:
            lo.append(a if coef.const >= 0 else b)
            hi.append(b if coef.const >= 0 else a)
        else:
            lo.append(Bound("min", (a, b)))
            hi.append(Bound("max", (a, b)))
    return _sum(lo), _sum(hi)


def _derived_range(sym: Sym, ranges: dict[Sym, Range]) -> Range | None:
    """The range of ``form % c`` or ``form / c`` (C's truncating division, c > 0) from the
    form's: division is monotone; a remainder lies within (-c, c), on the form's side of 0."""
    form_, c = sym.payload
    rng = bounds(form_, ranges)
    if rng is None:
        return None
    lo, hi = rng
    if sym.kind == SymKind.DIV:
        return Bound("div", (lo,), Affine.constant(c)), Bound("div", (hi,), Affine.constant(c))
    zero = Affine()
    return (Bound("max", (Affine.constant(-(c - 1)), Bound("min", (zero, lo)))),
            Bound("min", (Affine.constant(c - 1), Bound("max", (zero, hi)))))


def narrowed(ranges: dict[Sym, Range], facts: tuple[Constraint, ...],
             kinds: tuple[str, ...] = (SymKind.DIM, SymKind.INNER)) -> dict[Sym, Range]:
    """The ranges with each guard ``±v + r OP 0`` (``r`` invariant) applied to ``v``, for the
    symbols of the given kinds."""
    out = dict(ranges)
    for fact in dict.fromkeys(facts):
        loops = fact.form.loop_syms()
        if len(loops) != 1:
            continue
        (v,) = loops
        if v.kind not in kinds:
            continue
        coef = fact.form.coef(v)
        rest = fact.form.without(loops)
        if v not in out or coef.const not in (1, -1) or not coef.is_const:
            continue
        lo, hi = out[v]
        # coef*v + rest OP 0  ->  v OP' -rest/coef
        value = -rest if coef.const == 1 else rest
        op = fact.op if coef.const == 1 else {">=": "<=", ">": "<", "<=": ">=", "<": ">",
                                               "==": "==", "!=": "!="}[fact.op]
        if op in (">=", ">", "=="):
            lo = Bound("max", (lo, value + Affine.constant(1 if op == ">" else 0)))
        if op in ("<=", "<", "=="):
            hi = Bound("min", (hi, value - Affine.constant(1 if op == "<" else 0)))
        if op == "!=":  # excludes a value: it narrows the range only at an end
            lo, hi = Bound("skip_lo", (lo, value)), Bound("skip_hi", (hi, value))
        out[v] = (lo, hi)
    return out


def inner_ranges(inner: tuple[InnerLoop, ...], ranges: dict[Sym, Range]) -> dict[Sym, Range]:
    """Ranges of inner loop variables from their bounds (outer loops first)."""
    out = dict(ranges)
    for lp in inner:
        if lp.lb is None or lp.ub is None:
            continue
        lb, ub = bounds(lp.lb, out), bounds(lp.ub, out)
        if lb is None or ub is None:
            continue
        one = Affine.constant(1)
        if lp.op == "<":
            out[lp.sym] = (lb[0], _sum([ub[1], -one]))
        elif lp.op == "<=":
            out[lp.sym] = (lb[0], ub[1])
        elif lp.op == ">":
            out[lp.sym] = (_sum([ub[0], one]), lb[1])
        else:
            out[lp.sym] = (ub[0], lb[1])
    return out


def _fold(op: str, items: list[BoundExpr]) -> BoundExpr:
    unique = list(dict.fromkeys(items))
    return unique[0] if len(unique) == 1 else Bound(op, tuple(unique))


def array_extent(v: Var, accs: list[RawAccess], dims: dict[Sym, Range],
                 inner: tuple[InnerLoop, ...]) -> Extent | Reason:
    """The elements of ``v`` the accesses touch, or the reason they cannot be bounded."""
    los, his = [], []
    for a in accs:
        f = a.index[0] if a.index else None
        if f is None or not f.is_affine_in_loops():
            return Reason("array-extent", f"cannot derive the extent of '{v.name}': subscript "
                          f"'{c_text(a.subscripts[0])}' is not affine in the loop variables",
                          a.loc)
        # guards on the dimensions narrow the inner loops' bounds too
        ranges = inner_ranges(inner, narrowed(dims, a.guards, (SymKind.DIM,)))
        rng = bounds(f, narrowed(ranges, a.guards, (SymKind.INNER,)))
        if rng is None:
            return Reason("array-extent", f"cannot derive the extent of '{v.name}': an index "
                          f"variable in '{c_text(a.subscripts[0])}' has unknown bounds", a.loc)
        rng = _when_executed(f, ranges, dims, a.guards, rng)
        los.append(rng[0])
        his.append(rng[1])
    return Extent(_fold("min", los), _fold("max", his), v.ctype.row_dims)


def _when_executed(f: Affine, ranges: dict[Sym, Range], dims: dict[Sym, Range],
                   guards: tuple[Constraint, ...], rng: Range) -> Range:
    """``rng`` made empty at run time when the access never executes: a guard or an inner
    loop's bounds can leave a symbol's range empty (``lo > hi``). A lone symbol with a constant
    coefficient then gives an empty range by itself; a sum of several, or a coefficient known
    only at run time, would not (the min and max over inverted ends make up a range of indexes
    the program never touches), so those ends are taken only when every such symbol's range
    is ordered (``lo_if``/``hi_if``)."""
    syms = sorted(f.loop_syms())
    if len(syms) == 1 and f.coef(syms[0]).is_const:
        return rng
    final = narrowed(ranges, guards, (SymKind.INNER,))
    pairs: list[BoundExpr] = []
    for sym in syms:
        if sym in final and (sym not in dims or final[sym] != dims[sym]):
            pairs += final[sym]
    if not pairs:
        return rng
    return Bound("lo_if", (rng[0], *pairs)), Bound("hi_if", (rng[1], *pairs))


def _target(init: c_ast.Node | None) -> tuple[str, c_ast.Node | None] | None:
    """(array name, offset) of a pointer's initial value ``a``, ``a + e``, ``e + a`` or
    ``&a[e]``; the offset is None for ``a``."""
    if isinstance(init, c_ast.ID):
        return init.name, None
    if isinstance(init, c_ast.BinaryOp) and init.op == "+":
        for base, off in ((init.left, init.right), (init.right, init.left)):
            if isinstance(base, c_ast.ID):
                return base.name, off
    if isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(
            init.expr, c_ast.ArrayRef) and isinstance(init.expr.name, c_ast.ID):
        return init.expr.name.name, init.expr.subscript
    return None


def pointer_span(v: Var, scope: dict[str, Var], func: c_ast.Node | None, env: TypeEnv
                 ) -> Extent | None:
    """The extent of pointer ``v`` when it is declared pointing into a statically sized
    global array (``long *w = a + k``) and its function never changes it: the whole array,
    relative to where ``v`` points (an access outside the array is undefined behaviour in the
    original, so copying all of it is safe). None otherwise."""
    decl, ct = v.decl, v.ctype
    if func is None or not ct.pointer or ct.dims or not isinstance(decl, c_ast.Decl):
        return None
    target = _target(decl.init)
    arr = scope.get(target[0]) if target else None
    if arr is None or arr.storage != Storage.GLOBAL or arr.ctype.pointer \
            or len(arr.ctype.dims) != 1 \
            or arr.ctype.base != ct.base or not is_constant_text(arr.ctype.dims[0], env):
        return None
    if v.name in names_written(func) or any(isinstance(n, c_ast.Decl) and n.name == arr.name
                                            for n in walk(func)):
        return None  # the pointer moves, or a local hides the array
    start = c_ast.BinaryOp("-", c_ast.ID(arr.name), c_ast.ID(v.name))
    end = c_ast.BinaryOp("-", c_ast.BinaryOp("+", c_ast.ID(arr.name), c_ast.ID(
        f"({arr.ctype.dims[0]})")), c_ast.ID(v.name))
    lo, hi = (Affine.of(Sym(SymKind.EXPR, c_text(e), c_text(e), e)) for e in (start, end))
    return Extent(lo, hi - Affine.constant(1))


#: statements that may leave a loop's iteration (or an inner loop) early
JUMPS = (c_ast.Continue, c_ast.Break, c_ast.Return, c_ast.Goto, c_ast.Label)
_SIDE = ("++", "--", "p++", "p--", "&", "*", "sizeof")


def unconditional(body: c_ast.Node) -> set[int]:
    """Ids of the nodes every iteration of a loop with this body evaluates: statements of
    its top-level blocks and their expressions, outside branches, inner loops and the
    right sides of ``&&``, ``||`` and ``?:`` (nothing when the body can jump)."""
    if any(isinstance(n, JUMPS) for n in walk(body)):
        return set()
    out: set[int] = set()
    todo = [body]
    while todo:
        n = todo.pop()
        out.add(id(n))
        if isinstance(n, (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            continue
        if isinstance(n, c_ast.TernaryOp):
            todo.append(n.cond)
        elif isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||"):
            todo.append(n.left)
        else:
            todo += [child for _, child in n.children()]
    return out


def _pure(e: c_ast.Node, known: Callable[[str], bool]) -> bool:
    """An expression without side effects whose names all pass ``known``."""
    for n in walk(e):
        if isinstance(n, c_ast.ID) and not known(n.name):
            return False
        if isinstance(n, (c_ast.Assignment, c_ast.FuncCall, c_ast.StructRef, c_ast.Decl,
                          c_ast.CompoundLiteral)) or isinstance(n, c_ast.UnaryOp) and \
                n.op in _SIDE:
            return False
    return True


def inspected_extent(v: Var, accs: list[RawAccess], evaluated: set[int],
                     known: Callable[[str], bool], arrays: Callable[[str], bool]
                     ) -> tuple[Extent, Inspection] | None:
    """The extent of a one-subscript pointer whose subscripts the host can evaluate before
    the loop (each evaluated in every iteration, ``evaluated``; pure; names that ``known``
    accepts: loop variables and what the loop does not write; ``arrays``: which of them are
    arrays), as the range an ``Inspection`` computes at entry. None otherwise."""
    if not accs or not v.ctype.pointer or v.ctype.dims:
        return None
    subs = [a.subscripts[0] for a in accs]
    if any(len(a.subscripts) != 1 or id(a.subscripts[0]) not in evaluated or not _pure(
            a.subscripts[0], known) for a in accs):
        return None
    reads = sorted({n.name for x in subs for n in walk(x) if isinstance(n, c_ast.ID)
                    and arrays(n.name)})
    lo, hi = (Affine.of(Sym(SymKind.EXPR, f"ompcl_i{end}_{v.name}", f"ompcl_i{end}_{v.name}"))
              for end in ("lo", "hi"))
    return Extent(lo, hi), Inspection(v.name, tuple(subs), tuple(reads))


def block_extent(v: Var, accs: list[RawAccess]) -> tuple[Extent, Inspection] | None:
    """The extent of a pointer (``T *p``, or ``T (*p)[3]`` subscripted by row) as the object
    it points into, which the host finds at entry (``ompcl_ilo_p``/``ompcl_ihi_p`` in rows of
    ``sizeof(*p)``, an ``Inspection`` without subscripts). None for anything else."""
    ct = v.ctype
    if not accs or not ct.pointer or any(not 1 <= len(a.subscripts) <= len(ct.dims) + 1
                                         for a in accs):
        return None
    return object_extent(v)


def object_extent(v: Var) -> tuple[Extent, Inspection]:
    """The extent of pointer ``v`` as the whole object it points into (found at entry), in
    rows of its pointee."""
    lo, hi = (Affine.of(Sym(SymKind.EXPR, f"ompcl_i{end}_{v.name}", f"ompcl_i{end}_{v.name}"))
              for end in ("lo", "hi"))
    return Extent(lo, hi, v.ctype.dims if v.ctype.pointer else ()), \
        Inspection(v.name, (), (), block=True)


def flat_extent(v: Var, forms: list[tuple[Affine, Affine, RawAccess]], dims: dict[Sym, Range],
                inner: tuple[InnerLoop, ...]) -> Extent | Reason:
    """The elements of ``v`` (counted flat from its start) between the lowest of each access's
    first form and the highest of its second (an element passed to a call and what the callee
    reaches from it), over the loops' ranges narrowed by the access's guards."""
    los, his = [], []
    for lo_form, hi_form, a in forms:
        if not (lo_form.is_affine_in_loops() and hi_form.is_affine_in_loops()):
            return Reason("array-extent", f"cannot derive the extent of '{v.name}': the "
                          "elements a call reaches are not affine in the loop variables", a.loc)
        ranges = inner_ranges(inner, narrowed(dims, a.guards, (SymKind.DIM,)))
        ranges = narrowed(ranges, a.guards, (SymKind.INNER,))
        lo, hi = bounds(lo_form, ranges), bounds(hi_form, ranges)
        if lo is None or hi is None:
            return Reason("array-extent", f"cannot derive the extent of '{v.name}': an index "
                          "variable of an element passed to a call has unknown bounds", a.loc)
        los.append(lo[0])
        his.append(hi[1])
    return Extent(_fold("min", los), _fold("max", his))
