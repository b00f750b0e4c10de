"""Register promotion: a kernel spec and its region -> the same kernel with reused global
elements kept in private variables, the array pairs it assumed distinct and a remark per
array promoted (or, for an invariant element a loop updates, not).

Two cases, both on the bounds-checked body (every buffer element is an
``OMPCL_AT(T, k, site, ref)``, so buffer ``k`` and the element's text identify it):

* **Loop-invariant elements.** In a ``for`` loop of the body, an element whose subscripts the
  loop never changes, and that every iteration touches (not only under a guard), is loaded
  once before the loop and, when the loop writes it (an
  accumulator such as ``C[i][j] += A[i][k] * B[k][j]``), stored once after it. A written
  element must be the only element of its array the loop mentions; a read one, of an array
  the loop does not write. The load and store are guarded by the loop's first test, so a loop
  that runs no iteration touches no memory, as in the original.
* **Reused read-only elements.** In a block, an element of an array the whole region only
  reads, read two or more times with subscripts the block never changes, is loaded once before
  the first statement that reads it unconditionally.

The arrays written meanwhile must be other memory. For a loop, where two names might be one
array (pointers), the pair is added to the region's ``distinct`` pairs, which the runtime checks
when the kernel launches (the OpenMP loop runs when they overlap); a reused read is not worth
that: it needs the arrays known to be other (declared arrays, or a pair already checked).
Loops holding ``return`` or ``goto`` are left alone. Never mutates its input.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ..analysis.builtins import MATH
from ..analysis.ctypes_ import c_text, subscripts, walk
from ..analysis.loops import const_int, loop_start
from ..diagnostics import Remark, SourceLoc
from ..ir import KernelSpec, Mode, Region, Storage
from ..frontend.clone import clone
from .boundscheck import MACRO, unchecked
from .rename import device_name

#: element types kept in registers (and loaded as vectors): OpenCL's built-in scalars
SCALARS = frozenset({"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
                     "float", "double"})
#: calls without side effects (OpenCL built-ins a kernel body may hold)
PURE_CALLS = frozenset({v[0] for v in MATH.values()} | set(MATH) | {"min", "max"})
REG, TRIP = "ompcl_reg", "ompcl_trip"
_INCDEC = ("++", "--", "p++", "p--")


def at_parts(node: c_ast.Node) -> tuple[str, int, c_ast.Node] | None:
    """(element type, buffer index, element reference) of ``OMPCL_AT(T, k, site, ref)``."""
    ref = unchecked(node)
    if ref is node:
        return None
    t, k = node.args.exprs[0], node.args.exprs[1]
    if not (isinstance(t, c_ast.ID) and isinstance(k, c_ast.Constant)):
        return None
    return t.name, int(k.value), ref


@dataclass
class Occ:
    """One occurrence of a buffer element: the wrapper node, how it is used, and whether it
    runs every time the scanned statement does."""

    node: c_ast.FuncCall
    write: bool
    addr: bool
    cond: bool


@dataclass
class Facts:
    """What a statement does with buffers and variables."""

    elems: dict[tuple[int, str], list[Occ]] = field(default_factory=dict)
    bare: set[int] = field(default_factory=set)     # buffers mentioned other than by element
    assigned: set[str] = field(default_factory=set)  # variables written, declared or addressed
    jumps: bool = False                              # return, goto or a label

    def written(self) -> set[int]:
        return {k for (k, _), occ in self.elems.items()
                if any(o.write or o.addr for o in occ)} | self.bare

    def mentioned(self) -> set[int]:
        return {k for k, _ in self.elems} | self.bare


class Scan:
    """Collects ``Facts`` of a tree; ``names``: buffer device name -> index."""

    def __init__(self, names: dict[str, int]):
        self.names = names
        self.facts = Facts()

    def run(self, node: c_ast.Node) -> Facts:
        self._visit(node, False, None)
        return self.facts

    def _visit(self, node, cond: bool, role: str | None) -> None:
        f = self.facts
        parts = at_parts(node)
        if parts is not None:
            _, k, ref = parts
            f.elems.setdefault((k, c_text(ref)), []).append(
                Occ(node, role == "write", role == "addr", cond))
            base = ref
            while isinstance(base, c_ast.ArrayRef):
                self._visit(base.subscript, cond, None)
                base = base.name
            return
        if role is not None and isinstance(node, c_ast.ArrayRef):
            self._visit(node.name, cond, role)  # a[x] = ..: a is written, x only read
            self._visit(node.subscript, cond, None)
            return
        if role is not None and isinstance(node, c_ast.StructRef):
            self._visit(node.name, cond, role if node.type == "." else None)
            return
        if isinstance(node, c_ast.ID):
            if node.name in self.names:
                f.bare.add(self.names[node.name])
            if role in ("write", "addr"):
                f.assigned.add(node.name)
            return
        if isinstance(node, c_ast.Decl):
            if node.name:
                f.assigned.add(node.name)
                if node.name in self.names:  # a local hides a buffer: give up on it
                    f.bare.add(self.names[node.name])
        elif isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Label)):
            f.jumps = True
        elif isinstance(node, c_ast.FuncCall):
            if node.args is not None:
                for a in node.args.exprs:  # an array argument may be written by the callee
                    self._visit(a, cond, "addr" if isinstance(a, c_ast.ID) else None)
            return
        elif isinstance(node, c_ast.Assignment):
            self._visit(node.lvalue, cond, "write")
            self._visit(node.rvalue, cond, None)
            return
        elif isinstance(node, c_ast.UnaryOp) and node.op in _INCDEC + ("&",):
            self._visit(node.expr, cond, "addr" if node.op == "&" else "write")
            return
        for name, child in node.children():
            self._visit(child, cond or _conditional(node, name), None)


def _conditional(node: c_ast.Node, child: str) -> bool:
    """Whether ``child`` of ``node`` may run less often than ``node`` itself."""
    if isinstance(node, (c_ast.If, c_ast.TernaryOp)):
        return child != "cond"
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return child not in ("init", "cond")
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return child == "right"
    return False


def names_in(node: c_ast.Node) -> set[str]:
    """Every identifier ``node`` mentions."""
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID)}


def pure(node: c_ast.Node, memory: bool = False) -> bool:
    """No side effect (and, unless ``memory``, no buffer read)."""
    for n in walk(node):
        if isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp)
                                               and n.op in _INCDEC):
            return False
        if isinstance(n, c_ast.FuncCall):
            name = getattr(n.name, "name", None)
            if name == MACRO and memory:
                continue
            if name not in PURE_CALLS:
                return False
    return True


@dataclass
class _Kernel:
    """What promotion knows of one kernel while it rewrites it."""

    names: dict[str, int]                 # buffer device name -> index
    readonly: set[int]                    # buffers the whole region only reads
    next_id: int = 0
    promoted: dict[int, list[tuple[Occ, int, str]]] = field(default_factory=dict)
    needs: set[tuple[int, int]] = field(default_factory=set)   # buffer pairs assumed distinct
    #: pairs known distinct already (declared arrays, or assumed by an earlier pass)
    free: set[tuple[int, int]] = field(default_factory=set)
    missed: dict[int, tuple[Occ, str]] = field(default_factory=dict)

    def fresh(self, prefix: str) -> str:
        self.next_id += 1
        return f"{prefix}{self.next_id - 1}"


def _key_subscripts_ok(ref: c_ast.Node) -> bool:
    base, subs = subscripts(ref)
    return isinstance(base, c_ast.ID) and all(pure(x) for x in subs)


def _replace(root: c_ast.Node, nodes: set[int], name: str) -> None:
    """Replace the wrapper nodes whose ids are in ``nodes`` by ``name``, in place."""
    for n in list(walk(root)):
        for slot in n.__slots__:
            if slot in ("coord", "__weakref__"):
                continue
            v = getattr(n, slot, None)
            if isinstance(v, list):
                for i, item in enumerate(v):
                    if id(item) in nodes:
                        v[i] = c_ast.ID(name, item.coord)
            elif isinstance(v, c_ast.Node) and id(v) in nodes:
                setattr(n, slot, c_ast.ID(name, v.coord))


def local_decl(name: str, ctype: str, init: c_ast.Node | None, quals=()) -> c_ast.Decl:
    """``quals ctype name = init;``"""
    return c_ast.Decl(name, list(quals), [], [], [],
                      c_ast.TypeDecl(name, list(quals), None, c_ast.IdentifierType([ctype])),
                      init, None)


class _Promoter:
    def __init__(self, kern: _Kernel):
        self.k = kern

    # -- blocks: reused read-only elements ---------------------------------------------------
    def block(self, node: c_ast.Compound) -> None:
        items = node.block_items or []
        whole = Scan(self.k.names).run(node)
        scans = [Scan(self.k.names).run(s) for s in items]
        inserts: dict[int, list[c_ast.Decl]] = {}
        labelled = any(isinstance(s, (c_ast.Case, c_ast.Default, c_ast.Label)) for s in items)
        for key, occ in sorted(whole.elems.items()) if not labelled else ():
            k, _ = key
            if k not in self.k.readonly or k in whole.bare or any(o.write or o.addr
                                                                  for o in occ):
                continue
            if at_parts(occ[0].node)[0] not in SCALARS:
                continue
            ref = unchecked(occ[0].node)
            if not _key_subscripts_ok(ref) or _ids_of_subscripts(ref) & whole.assigned:
                continue
            first = next((i for i, s in enumerate(scans)
                          if any(not o.cond for o in s.elems.get(key, ()))), None)
            if first is None:
                continue
            later = [o for s in scans[first:] for o in s.elems.get(key, ())]
            if len(later) < 2:
                continue
            # the reads now happen before the writes between the first and the last: those
            # must be to memory known to be other (a reused read is not worth a launch-time
            # check that would send an aliased call to the host)
            last = max(i for i, s in enumerate(scans) if key in s.elems)
            if any((k, j) not in self.k.free
                   for j in _written_between(items, scans, first, last) if j != k):
                continue
            name = self.k.fresh(REG)
            t, _, _ = at_parts(occ[0].node)
            lead = next(o for o in scans[first].elems[key] if not o.cond)
            inserts.setdefault(first, []).append(local_decl(name, t, clone(lead.node)))
            _replace(node, {id(o.node) for o in later}, name)
            self._done(k, lead, len(later), "block")
        out = []
        for i, s in enumerate(items):
            out += inserts.get(i, [])
            out.append(s)
        node.block_items = [self.stmt(s) for s in out]

    # -- statements -------------------------------------------------------------------------
    def stmt(self, node: c_ast.Node) -> c_ast.Node:
        """``node`` promoted (in place); a loop that hoists elements comes back as a block."""
        if isinstance(node, c_ast.Compound):
            self.block(node)
            return node
        if isinstance(node, c_ast.For):
            return self.loop(node)
        for slot in ("stmt", "iftrue", "iffalse"):
            child = getattr(node, slot, None) if slot in node.__slots__ else None
            if child is not None:
                setattr(node, slot, self.stmt(child))
        if isinstance(node, (c_ast.Case, c_ast.Default)):
            node.stmts = [self.stmt(s) for s in node.stmts or []]
        return node

    # -- loops: invariant elements ----------------------------------------------------------
    def loop(self, node: c_ast.For) -> c_ast.Node:
        guard = _guard(node)
        facts = Scan(self.k.names).run(node)
        never = isinstance(guard, c_ast.Constant) and guard.value == "0"
        # where each element is read or written in every iteration (the loop's own test
        # aside): only those may move out of the loop (an element read under a guard may lie
        # outside what the original ever touches)
        body = Scan(self.k.names).run(node.stmt) if node.stmt is not None else None
        chosen = [] if guard is None or never or facts.jumps or body is None else \
            self._invariants(facts, body)
        out = self._hoist(node, guard, chosen) if chosen else node
        if node.stmt is not None:
            node.stmt = self.stmt(node.stmt)
        return out

    def _invariants(self, facts: Facts, body: Facts) -> list[tuple[str, list[Occ], bool]]:
        written, out = facts.written(), []
        for key, occ in sorted(facts.elems.items()):
            k, _ = key
            ref = unchecked(occ[0].node)
            if k in facts.bare or any(o.addr for o in occ) or not _key_subscripts_ok(ref):
                continue
            if all(o.cond for o in body.elems.get(key, ())):
                continue  # touched only in some iterations
            if at_parts(occ[0].node)[0] not in SCALARS:
                continue
            if _ids_of_subscripts(ref) & facts.assigned:
                continue
            same = [kk for kk in facts.elems if kk[0] == k]
            if any(o.write for o in occ):
                if len(same) > 1:
                    self.k.missed.setdefault(k, (occ[0], "the loop also uses other elements "
                                                 "of the array"))
                    continue
                others = facts.mentioned() - {k}
            else:
                if k in written:
                    continue
                others = written - {k}
            out.append((key, occ, any(o.write for o in occ)))
            self.k.needs |= {(k, j) for j in others}
        return out

    def _hoist(self, node: c_ast.For, guard: c_ast.Node, chosen) -> c_ast.Compound:
        """``{ const int trip = first test; loads; node; stores }`` (no test where the loop
        surely runs)."""
        always = isinstance(guard, c_ast.Constant)
        trip = None if always else self.k.fresh(TRIP)
        head = [] if always else [local_decl(trip, "int", guard, ("const",))]
        tail = []

        def when(stmt):
            return stmt if always else c_ast.If(c_ast.ID(trip), stmt, None)

        for (k, _), occ, writes in chosen:
            name = self.k.fresh(REG)
            t, _, _ = at_parts(occ[0].node)
            if always:
                head.append(local_decl(name, t, clone(occ[0].node)))
            else:
                head.append(local_decl(name, t, None))
                head.append(when(c_ast.Assignment("=", c_ast.ID(name), clone(occ[0].node))))
            if writes:
                tail.append(when(c_ast.Assignment("=", clone(occ[0].node), c_ast.ID(name))))
            _replace(node, {id(o.node) for o in occ}, name)
            self._done(k, occ[0], len(occ), "loop")
        return c_ast.Compound(head + [node] + tail, node.coord)

    def _done(self, k: int, occ: Occ, n: int, where: str) -> None:
        self.k.promoted.setdefault(k, []).append((occ, n, where))


def _written_between(items: list, scans: list[Facts], first: int, last: int) -> set[int]:
    """The buffers statements ``first`` .. ``last`` may write before the last one's reads: a
    last statement ``x = e`` or ``T x = e`` (``e`` without side effects) stores after it
    reads."""
    out = set()
    for f in scans[first:last]:
        out |= f.written()
    s = items[last]
    if isinstance(s, c_ast.Decl) and (s.init is None or pure(s.init, memory=True)):
        return out
    if isinstance(s, c_ast.Assignment) and pure(s.rvalue, memory=True) and pure(
            s.lvalue, memory=True):
        return out
    return out | scans[last].written()


def _ids_of_subscripts(ref: c_ast.Node) -> set[str]:
    return set().union(*(names_in(x) for x in subscripts(ref)[1]))


def _guard(node: c_ast.For) -> c_ast.Node | None:
    """The loop's first test as an expression evaluated before it (None: not known)."""
    init, cond = node.init, node.cond
    if cond is None:
        return c_ast.Constant("int", "1")
    if not pure(cond):
        return None
    if init is None:
        return clone(cond)
    start = loop_start(node)
    if start is None:
        return None
    var, lb = start
    if not pure(lb):
        return None
    out = clone(cond)
    for n in list(walk(out)):
        for slot in n.__slots__:
            v = getattr(n, slot, None) if slot not in ("coord", "__weakref__") else None
            if isinstance(v, c_ast.ID) and v.name == var:
                setattr(n, slot, clone(lb))
    if isinstance(out, c_ast.ID) and out.name == var:
        out = clone(lb)
    return _fold(out)


def _fold(e: c_ast.Node) -> c_ast.Node:
    """``a OP b`` of two integer literals as ``1`` or ``0``."""
    if isinstance(e, c_ast.BinaryOp) and e.op in ("<", "<=", ">", ">=", "==", "!="):
        a, b = const_int(e.left), const_int(e.right)
        if a is not None and b is not None:
            ok = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                  "!=": a != b}[e.op]
            return c_ast.Constant("int", "1" if ok else "0")
    return e


def promote_kernel(spec: KernelSpec, region: Region) -> tuple[KernelSpec, tuple, list[Remark]]:
    """The promoted kernel, the array-name pairs it assumes distinct, and its remarks."""
    names = {device_name(a.name): k for k, a in enumerate(region.arrays)}
    body = clone(spec.body)
    written = Scan(names).run(body).written()
    kern = _Kernel(names, {k for k, a in enumerate(region.arrays) if a.mode == Mode.READ} - written,
                   free=known_distinct(region))
    _Promoter(kern).block(body)
    if not kern.promoted:
        return spec, (), _remarks(spec, region, kern, ())
    pairs = assumed(region, kern.needs)
    return replace(spec, body=body), pairs, _remarks(spec, region, kern, pairs)


def known_distinct(region: Region) -> set[tuple[int, int]]:
    """Buffer pairs (both orders) that are other memory without a new check: two declared
    arrays, or a pair an earlier pass made the runtime check."""
    checked = {frozenset(p) for p in region.distinct}
    arrays = region.arrays
    return {(a, b) for a in range(len(arrays)) for b in range(len(arrays)) if a != b and (
        (_declared(arrays[a]) and _declared(arrays[b]))
        or frozenset((arrays[a].name, arrays[b].name)) in checked)}


def assumed(region: Region, needs: set[tuple[int, int]]) -> tuple[tuple[str, str], ...]:
    """The buffer pairs (indexes) a rewrite needs distinct, as name pairs, where the names
    might be one array (pointers: checked at launch)."""
    return tuple(sorted({tuple(sorted((region.arrays[a].name, region.arrays[b].name)))
                         for a, b in needs
                         if not (_declared(region.arrays[a]) and _declared(region.arrays[b]))}))


def assuming(name: str, pairs) -> str:
    """`` (assuming 'a' and 'b', .. are different memory, checked at launch)`` for ``name``."""
    others = sorted({b if a == name else a for a, b in pairs if name in (a, b)})
    if not others:
        return ""
    return (" (assuming " + ", ".join(f"'{name}' and '{o}'" for o in others)
            + " are different memory, checked at launch)")


def _declared(a) -> bool:
    """An array object of its own (not a pointer that could point into another)."""
    v = a.var
    return bool(v.ctype.dims) and not v.ctype.pointer and v.storage != Storage.PARAM


def site_loc(spec: KernelSpec, node: c_ast.FuncCall, region: Region) -> SourceLoc:
    """Where the user wrote the access a wrapper checks."""
    site = node.args.exprs[2]
    try:
        return spec.sites[int(site.value)].loc
    except (ValueError, IndexError, AttributeError):
        return spec.loc or region.loc


def _remarks(spec: KernelSpec, region: Region, kern: _Kernel, pairs) -> list[Remark]:
    out = []
    for k, found in sorted(kern.promoted.items()):
        name = region.arrays[k].name
        loops = [n for _, n, where in found if where == "loop"]
        blocks = [n for _, n, where in found if where == "block"]
        parts = []
        if loops:
            parts.append(f"{len(loops)} loop-invariant element{'s' * (len(loops) > 1)} "
                         f"({sum(loops)} access{'es' * (sum(loops) > 1)} per iteration)")
        if blocks:
            parts.append(f"{len(blocks)} reused element{'s' * (len(blocks) > 1)} "
                         f"({sum(blocks)} reads)")
        out.append(Remark(site_loc(spec, found[0][0].node, region),
                          f"array '{name}' in kernel '{spec.name}': " + " and ".join(parts)
                          + " kept in private registers" + assuming(name, pairs), "remark",
                          "promote"))
    for k, (occ, why) in sorted(kern.missed.items()):
        if k in kern.promoted:
            continue
        ref = c_text(unchecked(occ.node))
        out.append(Remark(site_loc(spec, occ.node, region), f"'{ref}' in kernel '{spec.name}' is "
                          f"loop-invariant but not kept in a register: {why}", "remark",
                          "promote-missed"))
    return out


__all__ = ["PURE_CALLS", "SCALARS", "Scan", "assumed", "assuming", "at_parts", "c_text",
           "known_distinct", "local_decl", "names_in", "promote_kernel", "pure", "site_loc"]
