"""Dependences of a perfect loop nest: the accesses of its body (``c_ast``) -> direction
vectors between them, and whether a permutation of the nest's loops keeps every one.

The test is the classic separable one (ZIV / strong SIV per subscript): a subscript holds at
most one of the nest's loop variables, with the same integer coefficient in both accesses,
and the two accesses' invariant parts differ by a constant. Anything else is "unknown", which
forbids every reordering. Two different names are distinct objects only when both are
declared arrays; pointers and parameters may alias anything, unless the caller lets the test
assume two of a kernel's buffers distinct (``Assumptions``: the runtime checks them at launch).
``distribution_legal`` tests splitting one loop into a loop per part of its body.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ..ir import Affine, Sym, SymKind
from .builtins import MATH
from .ctypes_ import subscripts, walk
from .index import expr_symbol, form


@dataclass(frozen=True)
class Access:
    """One array reference of the body: name, subscript forms (None: not affine) and whether
    it writes."""

    name: str
    subs: tuple[Affine | None, ...]
    write: bool
    node: c_ast.ArrayRef


@dataclass(frozen=True)
class NestFacts:
    """What the dependence test knows of a nest body: its accesses, and why it knows too
    little (``why`` non-empty: no permutation is proven legal)."""

    accesses: tuple[Access, ...]
    why: str = ""


def loop_sym(var: str, k: int) -> Sym:
    return Sym(SymKind.INNER, var, k)


def body_locals(body: c_ast.Node) -> set[str]:
    """Names the body declares itself (new in each iteration)."""
    return {d.name for d in walk(body) if isinstance(d, c_ast.Decl) and d.name}


def _written(body: c_ast.Node) -> list[c_ast.Node]:
    out = []
    for n in walk(body):
        if isinstance(n, c_ast.Assignment):
            out.append(n.lvalue)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            out.append(n.expr)
    return out


def _unsupported(body: c_ast.Node, local: set[str]) -> str:
    """Why the body is beyond the test (a loop, a call, a pointer operation, a scalar written
    that lives on after an iteration), or ''."""
    for n in walk(body):
        if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Goto, c_ast.Label,
                          c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Switch,
                          c_ast.Pragma)):
            return f"its body holds a '{type(n).__name__.lower()}' statement"
        if isinstance(n, c_ast.FuncCall):
            name = getattr(n.name, "name", None)
            if name not in MATH:
                return f"its body calls '{name}'"
        pointer_cast = isinstance(n, c_ast.Cast) and any(
            isinstance(t, c_ast.PtrDecl) for t in walk(n.to_type))
        if isinstance(n, c_ast.StructRef) or pointer_cast or (
                isinstance(n, c_ast.UnaryOp) and n.op in ("&", "*")):
            return "its body uses pointers, casts or struct members"
    for lv in _written(body):
        if isinstance(lv, c_ast.ID) and lv.name not in local:
            return f"'{lv.name}' is written in every iteration"
        if not isinstance(lv, (c_ast.ID, c_ast.ArrayRef)):
            return "its body writes through an expression that is not an array element"
    return ""


def nest_facts(body: c_ast.Node, loop_vars: tuple[str, ...]) -> NestFacts:
    """The accesses of a perfect nest's innermost body, subscripts over the nest's loop
    symbols (``loop_vars``, outermost first)."""
    local = body_locals(body)
    why = _unsupported(body, local)
    written_names = {lv.name for lv in _written(body) if isinstance(lv, c_ast.ID)}
    variant = set(loop_vars) | written_names | local
    resolve, invariant = _resolvers(loop_vars, variant)
    writes = {id(lv) for lv in _written(body)}
    compound = {id(n.lvalue) for n in walk(body) if isinstance(n, c_ast.Assignment)
                and n.op != "="} | {id(n.expr) for n in walk(body) if isinstance(n, c_ast.UnaryOp)}
    out = []
    for n in _outer_refs(body):
        base, subs = subscripts(n)
        if not isinstance(base, c_ast.ID):
            why = why or "an array is reached through an expression"
            continue
        forms = tuple(form(s, resolve, invariant) for s in subs)
        out.append(Access(base.name, forms, id(n) in writes, n))
        if id(n) in compound:  # 'a[i] += x' reads the element too
            out.append(Access(base.name, forms, False, n))
    return NestFacts(tuple(out), why)


def _resolvers(loop_vars, variant: set[str]):
    """How subscripts see names: ``loop_vars`` as loop symbols (in order), the other
    ``variant`` names as unknown, everything else as an invariant variable."""
    syms = {v: Affine.of(loop_sym(v, k)) for k, v in enumerate(loop_vars)}

    def resolve(name: str) -> Affine | None:
        if name in syms:
            return syms[name]
        return None if name in variant else Affine.of(Sym(SymKind.VAR, name, name))

    def invariant(e: c_ast.Node) -> Sym | None:
        return expr_symbol(e, lambda n: n not in variant)
    return resolve, invariant


def _outer_refs(body: c_ast.Node) -> list[c_ast.ArrayRef]:
    """Array references that are not the name part of a longer reference."""
    inner = {id(n.name) for n in walk(body) if isinstance(n, c_ast.ArrayRef)}
    return [n for n in walk(body) if isinstance(n, c_ast.ArrayRef) and id(n) not in inner]


# -- distance vectors -------------------------------------------------------------------------

_ANY = "*"


def _distances(a: Access, b: Access, steps: tuple[int, ...]) -> list | None:
    """Per loop (with constant ``steps``), the distance in iterations from ``a``'s iteration
    to ``b``'s where both touch the same element (an int, or '*' for any), [] when they never
    do, None when unknown."""
    if len(a.subs) != len(b.subs):
        return None
    dist: list = [_ANY] * len(steps)
    for fa, fb in zip(a.subs, b.subs):
        if fa is None or fb is None:
            return None
        la, lb = fa.loop_syms(), fb.loop_syms()
        if la != lb or len(la) > 1 or any(s.kind != SymKind.INNER for s in la):
            return None
        rest = fa.without(la) - fb.without(lb)
        if not rest.is_const:
            return None
        if not la:
            if rest.const != 0:
                return []  # different constant elements: never the same
            continue
        (s,) = la
        ca, cb = fa.coef(s), fb.coef(s)
        if ca != cb or not ca.is_const or ca.const == 0:
            return None
        # a(x) = b(y): c*x + ka = c*y + kb  ->  y - x = (ka - kb) / c
        step = ca.const * steps[s.key]  # value distance per iteration
        if rest.const % step:
            return []  # never on the same element at iteration points
        d = rest.const // step
        if dist[s.key] not in (_ANY, d):
            return []
        dist[s.key] = d
    return dist


def _directions(dist: list) -> list[tuple[int, ...]]:
    """Every sign vector a distance vector stands for ('*': all three signs)."""
    choices = [(-1, 0, 1) if d == _ANY else ((d > 0) - (d < 0),) for d in dist]
    return list(itertools.product(*choices))


def _lex_ok(v: tuple[int, ...]) -> bool:
    """Lexicographically non-negative: the source runs first (or in the same iteration)."""
    for x in v:
        if x:
            return x > 0
    return True


def may_alias(a: str, b: str, is_array) -> bool:
    """Different names may be the same memory unless both are declared arrays."""
    return a == b or not (is_array(a) and is_array(b))


def _pair(a: Access, b: Access, is_array, assume) -> str | None:
    """None when two accesses need their distances tested (one array, one of them writes);
    '' when they cannot conflict (declared arrays, or a pair ``assume`` accepts, recorded as
    assumed); else why they may (two names of perhaps one memory)."""
    if not (a.write or b.write) or not may_alias(a.name, b.name, is_array):
        return ""
    if a.name == b.name:
        return None
    if assume is not None and assume.accepts(a.name, b.name):
        assume.pairs.add(tuple(sorted((a.name, b.name))))
        return ""
    return f"'{a.name}' and '{b.name}' may be the same memory"


@dataclass
class Assumptions:
    """Array pairs a transformation may assume distinct (``names``: the kernel's buffers,
    each its own argument, which the runtime checks at launch); ``pairs``: those it did."""

    names: frozenset[str]
    pairs: set[tuple[str, str]] = field(default_factory=set)

    def accepts(self, a: str, b: str) -> bool:
        return a in self.names and b in self.names


def permutation_legal(facts: NestFacts, perm: tuple[int, ...], steps: tuple[int, ...],
                      is_array, assume: Assumptions | None = None) -> str:
    """'' when running the loops (constant ``steps``) in order ``perm`` (new position -> old
    loop) keeps every dependence of the nest; else why not."""
    if facts.why:
        return facts.why
    acc = facts.accesses
    for i, a in enumerate(acc):
        for b in acc[i:]:
            why = _pair(a, b, is_array, assume)
            if why is not None:
                if why:
                    return why
                continue
            for x, y in ((a, b), (b, a)):
                dist = _distances(x, y, steps)
                if dist is None:
                    return f"the subscripts of '{a.name}' are beyond the dependence test"
                for v in _directions(dist) if dist else ():
                    if _lex_ok(v) and not _lex_ok(tuple(v[p] for p in perm)):
                        return (f"a dependence on '{a.name}' would run backwards")
    return ""


# -- loop distribution --------------------------------------------------------------------------

def _group_unsupported(stmts: list[c_ast.Node]) -> str:
    for st in stmts:
        for n in walk(st):
            if isinstance(n, (c_ast.Goto, c_ast.Label, c_ast.Break, c_ast.Continue,
                              c_ast.Return, c_ast.Switch, c_ast.Pragma, c_ast.While,
                              c_ast.DoWhile)):
                return f"its body holds a '{type(n).__name__.lower()}' statement"
            if isinstance(n, c_ast.FuncCall) and getattr(n.name, "name", None) not in MATH:
                return f"its body calls '{getattr(n.name, 'name', None)}'"
            if isinstance(n, c_ast.StructRef) or (isinstance(n, c_ast.UnaryOp)
                                                  and n.op in ("&", "*")):
                return "its body uses pointers or struct members"
        for lv in _written(st):
            if not isinstance(lv, (c_ast.ID, c_ast.ArrayRef)):
                return "its body writes through an expression that is not an array element"
    return ""


def _outer_distance(a: Access, b: Access, step: int) -> list | None:
    """``_distances`` in the distributed loop (symbol 0) alone: a subscript holding an inner
    loop's variable (any value, independently in each access) says nothing about it."""
    if len(a.subs) != len(b.subs):
        return None

    def outer_only(f: Affine | None) -> bool:
        return f is None or all(s.key == 0 for s in f.loop_syms())
    keep = [k for k, (fa, fb) in enumerate(zip(a.subs, b.subs))
            if outer_only(fa) and outer_only(fb)]
    return _distances(replace(a, subs=tuple(a.subs[k] for k in keep)),
                      replace(b, subs=tuple(b.subs[k] for k in keep)), (step,))


def _loop_defined(stmts: list[c_ast.Node], v: str) -> bool:
    """Every use of ``v`` in ``stmts`` is inside a loop whose init sets ``v`` without reading
    it (an inner loop's variable): its value on entry to the part does not matter, and the
    last part to set it leaves the value the whole loop leaves."""
    def ok(n: c_ast.Node) -> bool:
        if isinstance(n, c_ast.For) and assigns_anew(n.init, v):
            return True
        if isinstance(n, c_ast.ID) and n.name == v:
            return False
        return all(ok(c) for _, c in n.children())
    return all(ok(st) for st in stmts)


def assigns_anew(init: c_ast.Node | None, v: str) -> bool:
    """A loop init ``v = e`` where ``e`` does not read ``v``."""
    return (isinstance(init, c_ast.Assignment) and init.op == "="
            and isinstance(init.lvalue, c_ast.ID) and init.lvalue.name == v
            and v not in names_in(init.rvalue))


def names_in(node: c_ast.Node | None) -> set[str]:
    """The identifiers ``node`` mentions."""
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID)} if node is not None else set()


def written_names(node: c_ast.Node) -> set[str]:
    """The variables and arrays ``node`` assigns or increments."""
    out = set()
    for lv in _written(node):
        while isinstance(lv, c_ast.ArrayRef):
            lv = lv.name
        if isinstance(lv, c_ast.ID):
            out.add(lv.name)
    return out


def distribution_legal(groups: list[list[c_ast.Node]], var: str, step: int, is_array,
                       assume: Assumptions | None = None) -> str:
    """'' when the loop over ``var`` (constant ``step``) whose body is ``groups`` (statement
    lists, in order) can run as one loop per group, in order: no scalar written in one
    group is seen by another, no declaration in the body outside an inner loop, and no
    array dependence goes from a later group to an earlier one in a later iteration."""
    stmts = [st for g in groups for st in g]
    why = _group_unsupported(stmts)
    if why:
        return why
    if any(isinstance(st, c_ast.Decl) for st in stmts):
        return "its body declares a variable"
    written = {lv.name for lv in _written(c_ast.Compound(stmts)) if isinstance(lv, c_ast.ID)}
    if var in written:
        return f"its body writes '{var}'"
    seen = [set().union(*(names_in(st) for st in g)) for g in groups]
    free = []   # inner loops' variables: any value, independently in each access
    for v in sorted(written):
        parts = [g for g, names in zip(groups, seen) if v in names]
        if all(_loop_defined(g, v) for g in parts):
            free.append(v)
        elif len(parts) > 1:
            return f"'{v}' is written in one part of its body and used in another"
    variant = written | {var} | body_locals(c_ast.Compound(stmts))
    resolve, invariant = _resolvers((var, *free), variant)

    accesses = []
    for g in groups:
        body = c_ast.Compound(g)
        writes = {id(lv) for lv in _written(body)}
        mine = []
        for n in _outer_refs(body):
            base, subs = subscripts(n)
            if not isinstance(base, c_ast.ID):
                return "an array is reached through an expression"
            mine.append(Access(base.name, tuple(form(x, resolve, invariant) for x in subs),
                               id(n) in writes, n))
        accesses.append(mine)
    for p, early in enumerate(accesses):
        for late in accesses[p + 1:]:
            for a in early:
                for b in late:
                    why = _pair(a, b, is_array, assume)
                    if why is not None:
                        if why:
                            return why
                        continue
                    dist = _outer_distance(b, a, step)   # from the later group's access
                    if dist is None:
                        return f"the subscripts of '{a.name}' are beyond the dependence test"
                    if dist and (dist[0] == _ANY or dist[0] > 0):
                        return f"a dependence on '{a.name}' would run backwards"
    return ""
