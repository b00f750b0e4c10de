"""Loop interchange inside offloaded kernels: an offloadable ``Region`` -> the same region whose
kernel body has each perfect nest of inner loops reordered so that the loop moving most of its
accesses along their fastest-varying (last) subscript runs innermost, when
``analysis.dependence`` proves the new order legal; plus a remark per nest reordered or left.

On a CPU device each work-item runs its iterations' bodies in sequence and the device compiler
vectorises the innermost loop, so that loop should walk contiguous memory. The work-sharing
loops never move (they are the kernel's iteration space; the blocked and grid shapes both keep
their innermost one fastest). The input tree is never mutated: a reordered nest is new nodes
over copies.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..analysis.ctypes_ import walk
from ..analysis.dependence import (Assumptions, NestFacts, assigns_anew, distribution_legal,
                                   names_in, nest_facts, permutation_legal, written_names)
from ..analysis.index import int_constant
from ..analysis.loops import loop_start
from ..diagnostics import Remark, SourceLoc
from ..frontend.clone import clone
from ..ir import Affine, ArrayArg, Bound, Extent, LoopDim, Region, Storage, Sym, SymKind
from .visitor import NodeTransformer


@dataclass(frozen=True)
class Nest:
    """A perfect nest of canonical loops (outermost first) and its innermost body."""

    loops: tuple[c_ast.For, ...]
    vars: tuple[str, ...]
    steps: tuple[int, ...]
    body: c_ast.Node


def _init_var(f: c_ast.For) -> str | None:
    start = loop_start(f)
    return start[0] if start else None


def _step(f: c_ast.For, var: str) -> int | None:
    n = f.next
    if isinstance(n, c_ast.UnaryOp) and isinstance(n.expr, c_ast.ID) and n.expr.name == var:
        return {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(n.op)
    if (isinstance(n, c_ast.Assignment) and n.op in ("+=", "-=") and isinstance(n.lvalue, c_ast.ID)
            and n.lvalue.name == var and isinstance(n.rvalue, c_ast.Constant)):
        c = int_constant(n.rvalue)
        return None if not c else c if n.op == "+=" else -c
    return None


def _canonical(f: c_ast.For) -> tuple[str, int] | None:
    """(variable, constant step) of ``for (v = lb; v OP ub; v += c)``, else None."""
    var = _init_var(f)
    cond = f.cond
    if var is None or not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=")
                           and isinstance(cond.left, c_ast.ID) and cond.left.name == var):
        return None
    step = _step(f, var)
    return (var, step) if step else None


def _only_loop(stmt: c_ast.Node) -> c_ast.For | None:
    if isinstance(stmt, c_ast.Compound) and len(stmt.block_items or []) == 1:
        stmt = stmt.block_items[0]
    return stmt if isinstance(stmt, c_ast.For) else None


def nest_at(f: c_ast.For) -> Nest | None:
    """The perfect nest of canonical loops starting at ``f`` (None if ``f`` is not one)."""
    loops, vars_, steps = [], [], []
    while f is not None and (c := _canonical(f)) is not None and c[0] not in vars_:
        loops.append(f)
        vars_.append(c[0])
        steps.append(c[1])
        body = f.stmt
        f = _only_loop(f.stmt)
    if not loops:
        return None
    return Nest(tuple(loops), tuple(vars_), tuple(steps), body)


# -- which loop should be innermost -----------------------------------------------------------

def _fastest(subs: tuple, nloops: int) -> int | None:
    """The nest loop that moves an access fastest: in the last subscript holding any nest
    loop, the one with the smallest constant coefficient."""
    for f in reversed(subs):
        if f is None:
            return None
        loops = [s for s in f.loop_syms() if s.kind == SymKind.INNER]
        if loops:
            consts = [(abs(f.coef(s).const), s.key) for s in loops if f.coef(s).is_const]
            return min(consts)[1] if consts else None
    return None


def scores(facts: NestFacts, nloops: int) -> list[int]:
    """Per loop, how many accesses it moves along their fastest-varying subscript."""
    out = [0] * nloops
    for a in facts.accesses:
        k = _fastest(a.subs, nloops)
        if k is not None:
            out[k] += 1
    return out


def better_order(facts: NestFacts, nloops: int) -> tuple[int, ...] | None:
    """The order with the best loop moved innermost (others keep theirs), when it moves
    strictly more accesses along their last subscript than the current innermost loop."""
    s = scores(facts, nloops)
    best = max(range(nloops), key=lambda k: (s[k], k))
    if s[best] <= s[-1]:
        return None
    return tuple(k for k in range(nloops) if k != best) + (best,)


# -- legality beyond the body -----------------------------------------------------------------

def _bounds_ok(nest: Nest, facts: NestFacts) -> str:
    """'' when no loop's bounds or step depend on the nest's loops or on what its body
    writes."""
    written = {a.name for a in facts.accesses if a.write}
    for f in nest.loops:
        for part in (f.init, f.cond.right, f.next):
            for n in walk(part):
                if isinstance(n, c_ast.FuncCall):
                    return "a loop bound calls a function"
                if isinstance(n, c_ast.ID) and n.name in written:
                    return f"a loop bound reads '{n.name}', which the nest writes"
            rhs = part.rvalue if isinstance(part, c_ast.Assignment) else part
            if part is not f.next and any(isinstance(n, c_ast.ID) and n.name in nest.vars
                                          for n in walk(rhs)):
                return "a loop's bounds depend on another loop of the nest"
    return ""


def _path(root: c_ast.Node, target: c_ast.Node) -> list[c_ast.Node]:
    """The nodes from ``root`` down to ``target`` (empty if it is not there)."""
    if root is target:
        return [root]
    for _, child in root.children():
        p = _path(child, target)
        if p:
            return [root] + p
    return []


def _defines(f: c_ast.For, var: str) -> bool:
    """The loop's init gives ``var`` a value that does not read it (``i = 0``, not
    ``i = i``), or declares a new one."""
    if isinstance(f.init, c_ast.DeclList):
        return _init_var(f) == var
    return assigns_anew(f.init, var)


def _dead_after(root: c_ast.Node, nest: c_ast.For, owner: c_ast.For, var: str) -> bool:
    """True when the value ``var`` (the variable of loop ``owner`` of the nest) has after the
    nest is never read: every use outside the nest is inside a later loop that assigns it
    first."""
    if isinstance(owner.init, c_ast.DeclList):
        return True  # the loop's own variable, gone after it
    around = {id(n) for n in _path(root, nest)}

    def ok(node: c_ast.Node) -> bool:
        if node is nest:
            return True
        if isinstance(node, c_ast.ID) and node.name == var:
            return False
        if isinstance(node, c_ast.For) and id(node) not in around and _defines(node, var):
            return True
        return all(ok(c) for _, c in node.children())
    return ok(root)


# -- the rewrite ------------------------------------------------------------------------------

def reordered(nest: Nest, order: tuple[int, ...]) -> c_ast.For:
    """New loops in ``order`` (new position -> old loop) over a copy of the body."""
    inner = clone(nest.body)
    for k in reversed(order):
        f = nest.loops[k]
        if not isinstance(inner, c_ast.Compound):
            inner = c_ast.Compound([inner], inner.coord)
        inner = c_ast.For(clone(f.init), clone(f.cond), clone(f.next),
                          inner, f.coord)
    return inner


class _Interchange(NodeTransformer):
    def __init__(self, root: c_ast.Node, keep: set[str], is_array, buffers: frozenset[str]):
        self.root, self.keep, self.is_array = root, keep, is_array
        self.buffers = buffers          # the kernel's array arguments (checked at launch)
        self.assumed: set[tuple[str, str]] = set()
        self.remarks: list[Remark] = []

    def visit_For(self, node: c_ast.For):
        nest = nest_at(node)
        if nest is None:
            return self.generic_visit(node)
        if len(nest.loops) < 2:
            return self._distributed(node, nest) or self.generic_visit(node)
        facts = nest_facts(nest.body, nest.vars)
        order = better_order(facts, len(nest.vars))
        if order is None:
            return self.generic_visit(node)
        assume = Assumptions(self.buffers)
        why = self._why_not(nest, facts, order, assume)
        s = scores(facts, len(nest.vars))
        names = ", ".join(nest.vars[k] for k in order)
        head = (f"'{nest.vars[order[-1]]}' innermost moves {s[order[-1]]} of "
                f"{len(facts.accesses)} accesses along their last subscript")
        loc = SourceLoc.of(node)
        if why:
            self.remarks.append(Remark(loc, f"loop nest not interchanged: {head}, but {why}",
                                       "remark", "interchange-missed"))
            return self.generic_visit(node)
        self.assumed |= assume.pairs
        self.remarks.append(Remark(loc, f"loop nest interchanged to ({names}): {head}"
                                   + _assuming(assume.pairs), "remark", "interchange"))
        return reordered(nest, order)

    def _why_not(self, nest: Nest, facts: NestFacts, order: tuple[int, ...],
                 assume: Assumptions) -> str:
        why = (permutation_legal(facts, order, nest.steps, self.is_array, assume)
               or _bounds_ok(nest, facts))
        if why:
            return why
        for v, owner in zip(nest.vars, nest.loops):
            if v in self.keep or not _dead_after(self.root, nest.loops[0], owner, v):
                return f"the value of '{v}' after the nest is used"
        return ""

    def _distributed(self, node: c_ast.For, nest: Nest) -> c_ast.Compound | None:
        """The loop split into one loop per part of its body (each inner loop a part), when
        that lets a part's nest be interchanged and the split is legal; else None."""
        groups = _parts(node.stmt)
        if groups is None:
            return None
        mark, assumed = len(self.remarks), set(self.assumed)
        loops = [self.visit(c_ast.For(clone(node.init), clone(node.cond), clone(node.next),
                                      c_ast.Compound([clone(x) for x in g], node.coord),
                                      node.coord)) for g in groups]
        if not any(m.id == "interchange" for m in self.remarks[mark:]):
            self._undo(mark, assumed)
            return None
        assume = Assumptions(self.buffers)
        why = (distribution_legal(groups, nest.vars[0], nest.steps[0], self.is_array, assume)
               or _header_written(node))
        loc = SourceLoc.of(node)
        if why:
            self._undo(mark, assumed)
            self.remarks.append(Remark(
                loc, f"loop over '{nest.vars[0]}' not distributed (which would let an inner "
                f"nest be interchanged): {why}", "remark", "distribute-missed"))
            return None
        self.assumed |= assume.pairs
        self.remarks.insert(mark, Remark(
            loc, f"loop over '{nest.vars[0]}' distributed into {len(loops)} loops, so that an "
            f"inner nest can be interchanged" + _assuming(assume.pairs), "remark",
            "distribute"))
        return c_ast.Compound(loops, node.coord)

    def _undo(self, mark: int, assumed: set[tuple[str, str]]) -> None:
        """Forget what the trial split's nests gave: their remarks and assumptions."""
        del self.remarks[mark:]
        self.assumed = assumed


def _assuming(pairs) -> str:
    if not pairs:
        return ""
    return (" (assuming " + ", ".join(f"'{a}' and '{b}'" for a, b in sorted(pairs))
            + " are different memory, checked at launch)")


def _parts(body: c_ast.Node) -> list[list[c_ast.Node]] | None:
    """A loop body's parts for distribution: each inner loop on its own, the statements
    between loops together; None when there is nothing to split."""
    items = body.block_items if isinstance(body, c_ast.Compound) else None
    if not items or len(items) < 2 or not any(isinstance(x, c_ast.For) for x in items):
        return None
    groups: list[list[c_ast.Node]] = []
    for x in items:
        if isinstance(x, c_ast.For) or not groups or isinstance(groups[-1][-1], c_ast.For):
            groups.append([x])
        else:
            groups[-1].append(x)
    return groups if len(groups) > 1 else None


def _header_written(f: c_ast.For) -> str:
    """'' unless the loop's start, bound or step read a name its body writes (or the start
    reads the loop's own variable): each loop of the split evaluates them anew."""
    written = written_names(f.stmt)
    var = _init_var(f)
    start = f.init.rvalue if isinstance(f.init, c_ast.Assignment) else \
        f.init.decls[0].init if isinstance(f.init, c_ast.DeclList) else None
    if var in names_in(start):
        return f"the loop's start reads '{var}' itself"
    for part in (start, f.cond, f.next):
        for n in walk(part) if part is not None else ():
            if isinstance(n, c_ast.ID) and n.name in written:
                return f"a loop bound reads '{n.name}', which the loop writes"
    return ""


def _array_names(region: Region, body: c_ast.Node):
    """``is_array(name)``: every declaration of ``name`` the kernel may see is an array (not a
    pointer or parameter), so a different name is different memory."""
    local: dict[str, bool] = {}
    for d in walk(body):
        if isinstance(d, c_ast.Decl) and d.name:
            local[d.name] = local.get(d.name, True) and isinstance(d.type, c_ast.ArrayDecl)

    def is_array(name: str) -> bool:
        v = region.scope.get(name)
        outer = v is None or (bool(v.ctype.dims) and not v.ctype.pointer
                              and v.storage != Storage.PARAM)
        return outer and local.get(name, v is not None)
    return is_array


# -- the collapsed loops ----------------------------------------------------------------------

def _remap(e, perm: tuple[int, ...]):
    """A bound or form with every 'first' / 'last' symbol of old dimension ``perm[k]`` moved
    to dimension ``k`` (in 'mod' / 'div' payloads too)."""
    if e is None:
        return None
    if isinstance(e, Bound):
        return Bound(e.op, tuple(_remap(x, perm) for x in e.parts), _remap(e.coef, perm))
    new_of = {old: new for new, old in enumerate(perm)}
    out = Affine.constant(e.const)
    for mono, c in e.terms:
        term = Affine.constant(c)
        for sym in mono:
            term = term * Affine.of(_remap_sym(sym, new_of, perm))
        out = out + term
    return out


def _remap_sym(sym: Sym, new_of: dict[int, int], perm: tuple[int, ...]) -> Sym:
    if sym.kind in (SymKind.FIRST, SymKind.LAST, SymKind.DIM):
        return Sym(sym.kind, sym.name, new_of[int(sym.key)], sym.payload)
    if sym.kind in (SymKind.MOD, SymKind.DIV):
        form, c = sym.payload
        return Sym(sym.kind, sym.name, sym.key, (_remap(form, perm), c))
    return sym


def _remapped(a: ArrayArg, perm: tuple[int, ...]) -> ArrayArg:
    if a.extent is None:
        return a
    x = a.extent
    return replace(a, extent=Extent(_remap(x.lo, perm), _remap(x.hi, perm), x.row))


def _collapsed_order(region: Region) -> tuple[tuple[int, ...] | None, str, list[int]]:
    """The order of the collapsed loops with the one that moves most accesses along their
    last subscript innermost (None when the current one is as good), why it cannot be used
    (''), and the scores."""
    n = len(region.loops)
    if n < 2:
        return None, "", []
    facts = nest_facts(region.loops[-1].loop.stmt, tuple(d.var for d in region.loops))
    order = better_order(facts, n)
    s = scores(facts, n)
    if order is None:
        return None, "", s
    names = {d.var for d in region.loops}
    for d in region.loops:
        if any(isinstance(x, c_ast.ID) and x.name in names for part in (d.lb, d.ub, d.step)
               for x in walk(part)):
            return order, "the collapsed loops' bounds depend on each other", s
    if region.preconditions:
        return order, "the kernel runs under conditions on its loops' bounds", s
    return order, "", s


def _collapsed_loops(region: Region, order: tuple[int, ...]) -> tuple[LoopDim, ...]:
    """The collapsed loops in ``order``, each with a loop node over the next (the innermost
    over the body), as the kernel printer reads them."""
    fors = [d.loop for d in region.loops]
    nest = Nest(tuple(fors), tuple(d.var for d in region.loops), (), fors[-1].stmt)
    top = reordered(nest, order)
    out, f = [], top
    for k in order:
        out.append(replace(region.loops[k], loop=f))
        f = _only_loop(f.stmt)
    return tuple(out)


def permute_collapsed(region: Region) -> tuple[Region, tuple[Remark, ...]]:
    """Reorder the collapsed loops of a work-sharing loop so the innermost (the blocked
    shape's runs, the grid shape's ND-range dimension 0) walks the last subscript. Legal by
    the OpenMP contract (the collapsed iterations are independent), for rectangular loops."""
    order, why, s = _collapsed_order(region)
    if order is None:
        return region, ()
    v = region.loops[order[-1]].var
    head = (f"'{v}' innermost moves {s[order[-1]]} accesses along their last subscript "
            f"({s[-1]} for '{region.loops[-1].var}')")
    if why:
        return region, (Remark(region.loc, f"collapsed loops not reordered: {head}, but {why}",
                               "remark", "interchange-missed"),)
    names = ", ".join(region.loops[k].var for k in order)
    arrays = tuple(_remapped(a, order) for a in region.arrays)
    new = replace(region, loops=_collapsed_loops(region, order), arrays=arrays)
    return new, (Remark(region.loc, f"collapsed loops reordered to ({names}): {head}",
                        "remark", "interchange"),)


def interchange_region(region: Region) -> tuple[Region, tuple[Remark, ...]]:
    """The region with its collapsed loops and its kernel body's nests reordered, and a
    remark per nest considered."""
    region, first = permute_collapsed(region)
    region, rest = _interchange_body(region)
    return region, first + rest


def _interchange_body(region: Region) -> tuple[Region, tuple[Remark, ...]]:
    last = region.loops[-1]
    body = clone(last.loop.stmt)
    keep = {v.name for v in region.lastprivates} | {d.var for d in region.loops}
    buffers = frozenset(a.name for a in region.arrays if not a.var.ctype.is_scalar)
    t = _Interchange(body, keep, _array_names(region, body), buffers)
    new = t.visit(body)
    if not any(m.id == "interchange" for m in t.remarks):
        return region, tuple(t.remarks)
    loop = c_ast.For(last.loop.init, last.loop.cond, last.loop.next, new, last.loop.coord)
    distinct = tuple(sorted(set(region.distinct) | t.assumed))
    return replace(region, loops=region.loops[:-1] + (replace(last, loop=loop),),
                   distinct=distinct), tuple(t.remarks)
