"""Vector access: a kernel spec and its region -> the same kernel with runs of neighbouring
elements of one row loaded by ``vloadn`` and stored by ``vstoren`` (no new array pair assumed
distinct) and a remark per array.

Works on the bounds-checked body (``OMPCL_AT(T, k, site, ref)`` per element), within each
block:

* **Loads.** Declarations ``T x = a[..][c];`` (as register promotion makes them, or as the
  user wrote them) and assignments ``x = a[..][c];`` to variables, whose elements differ only in a constant last subscript ``c`` (or
  ``e + c``) are read by one vector load into ``Tn ompcl_vec``, each declaration taking its
  lane. Where the array is read-only in the whole region and the last dimension is a
  constant, the run need not be adjacent: the vector load goes where its first element was
  read (the row is in bounds there, so are its other elements, whose values nothing changes)
  provided no statement in between assigns a variable of the subscripts or writes an array
  not known to be other memory; otherwise the
  loads must follow each other. No load may assign a variable of the row's subscripts.
* **Stores.** Consecutive assignments ``a[..][c] = e;`` to neighbouring elements whose
  right-hand sides have no side effect and do not mention ``a`` become one ``vstoren`` of
  ``(Tn)(e0, .., en-1)``; the arrays they read must be known to be other memory than ``a``
  (declared arrays, or a pair an earlier pass has the runtime check at launch).

Runs are cut into vectors of 16, 8, 4, 3 and 2 lanes (5 elements: a ``vload4`` and a scalar).
Built-in scalar element types only. With bounds checks on, the first and the last element of
each vector access are checked. Never mutates its input.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ..analysis.loops import const_int, constant_text_value
from ..diagnostics import Remark
from ..frontend.clone import clone
from ..ir import KernelSpec, Mode, Region
from .boundscheck import unchecked
from .promote import (SCALARS, Scan, at_parts, c_text, known_distinct, local_decl, names_in,
                      pure, site_loc)
from .rename import device_name

WIDTHS = (16, 8, 4, 3, 2)
VEC = "ompcl_vec"


@dataclass(frozen=True)
class Elem:
    """An element ``row[base + c]`` of buffer ``k``: the row's and the base's text, ``c``."""

    k: int
    ctype: str
    row: str
    base: str
    c: int

    @property
    def key(self) -> tuple:
        return (self.k, self.ctype, self.row, self.base)


def element(node: c_ast.Node) -> Elem | None:
    """The ``Elem`` a wrapper ``OMPCL_AT(T, k, site, row[last])`` reads or writes."""
    parts = at_parts(node)
    if parts is None:
        return None
    t, k, ref = parts
    if t not in SCALARS or not isinstance(ref, c_ast.ArrayRef):
        return None
    last = ref.subscript
    base, c = "", const_int(last)
    if c is None and isinstance(last, c_ast.BinaryOp) and last.op in ("+", "-"):
        off = const_int(last.right)
        if off is not None:
            base, c = c_text(last.left), off if last.op == "+" else -off
    if c is None:
        return None
    return Elem(k, t, c_text(ref.name), base, c)


def _chunks(cs: list[int]) -> list[list[int]]:
    """Maximal runs of consecutive constants cut into vector widths (runs of one dropped)."""
    out, run = [], []
    for c in sorted(set(cs)):
        if run and c != run[-1] + 1:
            out += _cut(run)
            run = []
        run.append(c)
    return out + _cut(run)


def _cut(run: list[int]) -> list[list[int]]:
    out = []
    while len(run) >= 2:
        n = next(w for w in WIDTHS if w <= len(run))
        out.append(run[:n])
        run = run[n:]
    return out


def _lane(i: int) -> str:
    return "s" + "0123456789abcdef"[i]


def _vector_pointer(first: c_ast.Node, last: c_ast.Node) -> c_ast.Node:
    """``((void) last, &first)``: the first element's address, the last element checked."""
    check = c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
        None, [], None, c_ast.IdentifierType(["void"]))), clone(last))
    return c_ast.ExprList([check, c_ast.UnaryOp("&", clone(first))])


@dataclass
class _Kernel:
    names: dict[str, int]
    readonly: set[int]
    last_dim: dict[int, int | None]     # buffer -> its last dimension when a constant
    next_id: int = 0
    loads: dict[int, list[tuple[c_ast.Node, int]]] = field(default_factory=dict)
    stores: dict[int, list[tuple[c_ast.Node, int]]] = field(default_factory=dict)
    free: set[tuple[int, int]] = field(default_factory=set)   # pairs known distinct already

    def fresh(self) -> str:
        self.next_id += 1
        return f"{VEC}{self.next_id - 1}"


class _Vectorizer:
    def __init__(self, kern: _Kernel):
        self.k = kern

    def visit(self, node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Compound) and node.block_items:
            node.block_items = self._stores(self._loads(node.block_items))
        for _, child in node.children():
            self.visit(child)

    # -- loads --------------------------------------------------------------------------------
    def _loads(self, items: list) -> list:
        found: dict[tuple, list[tuple[int, Elem]]] = {}
        for i, s in enumerate(items):
            e = self._load(s)
            if e is not None:
                found.setdefault(e.key, []).append((i, e))
        before: dict[int, list] = {}
        for key, members in found.items():
            by_c = {}
            for i, e in members:
                by_c.setdefault(e.c, i)  # the first declaration of each element
            for chunk in _chunks(list(by_c)):
                pos = [by_c[c] for c in chunk]
                if not self._movable(items, key, pos):
                    continue
                name = self.k.fresh()
                n = len(chunk)
                first, last = _source(items[pos[0]]), _source(items[pos[-1]])
                call = c_ast.FuncCall(c_ast.ID(f"vload{n}"), c_ast.ExprList(
                    [c_ast.Constant("int", "0"), _vector_pointer(first, last)]))
                decl = local_decl(name, f"{key[1]}{n}", call)
                before.setdefault(min(pos), []).append(decl)
                self.k.loads.setdefault(key[0], []).append((first, n))
                for lane, i in enumerate(pos):
                    _set_source(items[i], c_ast.StructRef(c_ast.ID(name), ".",
                                                          c_ast.ID(_lane(lane))))
        out = []
        for i, s in enumerate(items):
            out += before.get(i, [])
            out.append(s)
        return out

    def _load(self, s) -> Elem | None:
        """The element ``T x = a[..][c];`` or ``x = a[..][c];`` (``x`` a variable) reads."""
        if isinstance(s, c_ast.Decl) and s.name and isinstance(s.type, c_ast.TypeDecl) and (
                s.init is not None):
            source = s.init
        elif isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(
                s.lvalue, c_ast.ID) and s.lvalue.name not in self.k.names:
            source = s.rvalue
        else:
            return None
        # (a subscript with a side effect would run once for the whole vector)
        return element(source) if pure(source, memory=True) else None

    def _movable(self, items: list, key: tuple, pos: list[int]) -> bool:
        """Whether the elements declared at ``pos`` may all be read where the first is."""
        lo, hi = min(pos), max(pos)
        subs = names_in(unchecked(_source(items[lo])))
        if {_target(items[i]) for i in pos} & subs:
            return False  # (x = a[x][0]: a member changes the row the next one reads)
        between = [i for i in range(lo, hi + 1) if i not in pos]
        if not between:
            return True
        k = key[0]
        dim = self.k.last_dim.get(k)
        if k not in self.k.readonly or dim is None or key[3]:
            return False
        cs = [element(_source(items[i])).c for i in pos]
        if min(cs) < 0 or max(cs) >= dim:
            return False
        for i in between:
            f = Scan(self.k.names).run(items[i])
            if f.assigned & subs or f.jumps:
                return False
            # the loads move before these writes: they must be to memory known to be other
            if any((k, j) not in self.k.free for j in f.written() if j != k):
                return False
        return True

    # -- stores -------------------------------------------------------------------------------
    def _stores(self, items: list) -> list:
        out, i = [], 0
        while i < len(items):
            run, passed, end = self._store_run(items, i)
            chunks = _chunks([e.c for _, e in run])
            if chunks:  # every right-hand side, and the declarations passed, move past
                k = run[0][1].k  # stores to the row: they must read memory known to be other
                if any((k, j) not in self.k.free for s in [x for x, _ in run] + passed
                       for j in Scan(self.k.names).run(s).mentioned() if j != k):
                    chunks = []
            if not chunks:
                out.append(items[i])
                i += 1
                continue
            by_c = {e.c: (s, e) for s, e in run}
            out += passed
            used = set()
            for chunk in chunks:
                used |= {id(by_c[c][0]) for c in chunk}
                out.append(self._vstore([by_c[c] for c in chunk]))
            out += [s for s, _ in run if id(s) not in used]
            i = end
        return out

    def _store_run(self, items: list, i: int):
        """The stores from ``i`` on to distinct elements of one row, the declarations between
        them that may move before them (no side effect, no mention of the row's array, no
        name an earlier store reads), and the index after the last store."""
        run, passed, seen, reads, end = [], [], set(), set(), i
        pending = []
        for idx in range(i, len(items)):
            s = items[idx]
            e = self._store(s)
            if e is not None and (not run or e.key == run[0][1].key) and e.c not in seen:
                run.append((s, e))
                seen.add(e.c)
                reads |= names_in(s.rvalue)
                passed += pending
                pending, end = [], idx + 1
                continue
            if run and isinstance(s, c_ast.Decl) and s.name and s.name not in reads and (
                    s.init is None or pure(s.init, memory=True)) and \
                    run[0][1].k not in Scan(self.k.names).run(s).mentioned():
                pending.append(s)
                continue
            break
        return run, passed, max(end, i + 1)

    def _store(self, s) -> Elem | None:
        if not (isinstance(s, c_ast.Assignment) and s.op == "="):
            return None
        e = element(s.lvalue)
        if e is None or not (pure(s.rvalue, memory=True) and pure(s.lvalue, memory=True)):
            return None
        f = Scan(self.k.names).run(s.rvalue)
        if e.k in f.mentioned():
            return None
        return e

    def _vstore(self, order: list[tuple[c_ast.Assignment, Elem]]) -> c_ast.FuncCall:
        """One ``vstoren`` of the stores ``order`` (by element, first to last)."""
        n = len(order)
        t = order[0][1].ctype
        # a vector literal ``(Tn)(e0, .., en-1)``: printed as a call of the parenthesised type
        # (a cast of a comma expression would be one lane's value, splatted)
        # (each lane converted as the assignment converted it: explicitly into integers)
        lanes = c_ast.FuncCall(c_ast.ID(f"({t}{n})"), c_ast.ExprList(
            [_converted(clone(s.rvalue), t) for s, _ in order]))
        first, last = order[0][0].lvalue, order[-1][0].lvalue
        self.k.stores.setdefault(order[0][1].k, []).append((first, n))
        return c_ast.FuncCall(c_ast.ID(f"vstore{n}"), c_ast.ExprList(
            [lanes, c_ast.Constant("int", "0"), _vector_pointer(first, last)]), order[0][0].coord)


def _source(s) -> c_ast.Node:
    """The element a load statement (declaration or assignment) reads."""
    return s.init if isinstance(s, c_ast.Decl) else s.rvalue


def _set_source(s, node: c_ast.Node) -> None:
    if isinstance(s, c_ast.Decl):
        s.init = node
    else:
        s.rvalue = node


def _target(s) -> str:
    return s.name if isinstance(s, c_ast.Decl) else s.lvalue.name


def _converted(e: c_ast.Node, t: str) -> c_ast.Node:
    if t in ("float", "double"):
        return e
    return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(
        None, [], None, c_ast.IdentifierType([t]))), e)


def _last_dims(spec: KernelSpec) -> dict[str, int]:
    """Buffer view name -> its last dimension, where the prologue's view declares a constant
    one (a variant's views are its permuted arrays')."""
    out = {}
    for decl in spec.prologue:
        t, dim = decl.type, None
        while not isinstance(t, c_ast.TypeDecl):
            if isinstance(t, c_ast.ArrayDecl):
                dim = t.dim
            t = t.type
        value = constant_text_value(c_text(dim)) if dim is not None else None
        if value is not None:
            out[decl.name] = value
    return out


def vectorize_kernel(spec: KernelSpec, region: Region) -> tuple[KernelSpec, tuple,
                                                                list[Remark]]:
    """The kernel with vector loads and stores, the array-name pairs it assumes distinct, and
    its remarks."""
    names = {device_name(a.name): k for k, a in enumerate(region.arrays)}
    body = clone(spec.body)
    written = Scan(names).run(body).written()
    dims = _last_dims(spec)
    kern = _Kernel(names, {k for k, a in enumerate(region.arrays) if a.mode == Mode.READ} - written,
                   {k: dims.get(n) for n, k in names.items()}, free=known_distinct(region))
    _Vectorizer(kern).visit(body)
    if not (kern.loads or kern.stores):
        return spec, (), []
    return replace(spec, body=body), (), _remarks(spec, region, kern)


def _remarks(spec: KernelSpec, region: Region, kern: _Kernel) -> list[Remark]:
    out = []
    for k in sorted(set(kern.loads) | set(kern.stores)):
        parts = []
        for what, found in (("load", kern.loads.get(k, [])), ("store", kern.stores.get(k, []))):
            if found:
                widths = ", ".join(f"{what}{n}" for _, n in found)
                parts.append(f"{len(found)} vector {what}{'s' * (len(found) > 1)} (v{widths}) "
                             f"for {sum(n for _, n in found)} scalar {what}s")
        loc = site_loc(spec, (kern.loads.get(k) or kern.stores.get(k))[0][0], region)
        name = region.arrays[k].name
        out.append(Remark(loc, f"array '{name}' in kernel '{spec.name}': " + "; ".join(parts),
                          "remark", "vectorize"))
    return out


__all__ = ["element", "vectorize_kernel"]
