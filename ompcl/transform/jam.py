"""Unroll-and-jam: a kernel body whose work is one sequential inner loop carrying a scalar
-> the body of ``JAM`` neighbouring iterations run together, their inner loops fused; or None.

In the blocked (CPU) shape a work-item runs its iterations one after the other. Where each
iteration is a dot product (``s = 0; for (k ...) s += M[i][k] * w[k]; y[i] = s;``), the
work-item waits on the latency of the chain through ``s``: every addition waits for the last,
and the memory system idles. Running ``JAM`` iterations at once, their statements before the
inner loop, then one inner loop doing each iteration's step in turn, then their statements
after it, gives ``JAM`` independent chains. Each iteration still performs its own operations
in its own order, so every result is bit for bit the same.

Sound because the kernel's iterations are independent (the loop is free of races: no iteration
reads what another writes), so any interleaving of their statements computes the same values;
the inner loop's header must be the same for every iteration (it mentions only its own
variables and names the body never writes) and nothing may leave the body early (no jump
statements). Each iteration's copy gets its own names for the scalars it declares or keeps
private (``s`` -> ``s__1``) and for the loop variable (``const int i__1 = i + step``).

Consumes a kernel spec (after 'reductions'; the blocked shape without tiles, reductions,
last-private values or private copies) and the innermost loop's constant step; produces the
jammed ``c_ast.Compound`` printed by the kernel template under ``OMPCL_BLOCKED``.
"""
from __future__ import annotations

from pycparser import c_ast

from ..analysis.accesses import names_written
from ..analysis.ctypes_ import renamed_type, walk
from ..analysis.dependence import names_in, written_names
from ..frontend.clone import clone
from ..ir import KernelSpec
from .visitor import NodeTransformer

#: iterations run together. Measured with ``ompcl bench kernels --shapes matvec,matmul`` (PoCL,
#: 2 cores): one at a time 1.67 / 5.74 ms, four 0.84 / 1.72 ms, eight 0.50 / 1.36 ms
JAM = 8
#: AST nodes of the inner loop's body at most: a larger body has chains enough of its own,
#: and eight copies of it would spill registers
MAX_NODES = 48

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)
_JUMPS = (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto, c_ast.Label)


class _Suffix(NodeTransformer):
    """Renames the identifiers in ``names`` (declarations too) to ``name__c``; member names
    (``p.s``) are left alone."""

    def __init__(self, names: set[str], c: int):
        self.names, self.c = names, c

    def visit_ID(self, node: c_ast.ID) -> c_ast.ID:
        if node.name in self.names:
            node.name = f"{node.name}__{self.c}"
        return node

    def visit_StructRef(self, node: c_ast.StructRef) -> c_ast.StructRef:
        node.name = self.visit(node.name)
        return node

    def visit_Decl(self, node: c_ast.Decl) -> c_ast.Decl:
        if node.name in self.names:
            node.name = f"{node.name}__{self.c}"
            node.type = renamed_type(node.type, node.name)
        if node.init is not None:
            node.init = self.visit(node.init)
        t = node.type
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
                t.dim = self.visit(t.dim)
            t = t.type
        return node


def jammed(spec: KernelSpec, step: int | None) -> c_ast.Compound | None:
    """The body of ``JAM`` iterations of ``spec`` with their inner loops fused (the first
    keeps the loop variable, copy ``c`` uses ``var__c``), or None where the shape does not
    apply or would not gain."""
    if (step is None or spec.reductions or spec.lastprivates or spec.copies or spec.tiled
            or not isinstance(spec.body, c_ast.Compound)):
        return None
    items = _flat(spec.body.block_items or [])
    declared = [st.name for st in items if isinstance(st, c_ast.Decl)]
    if len(declared) != len(set(declared)):
        return None  # a block spliced in redeclared a name
    loops = [k for k, st in enumerate(items) if isinstance(st, c_ast.For)]
    if len(loops) != 1 or any(isinstance(n, _JUMPS) for n in walk(spec.body)):
        return None
    f = loops[0]
    inner, pre, post = items[f], items[:f], items[f + 1:]
    if any(isinstance(n, _LOOPS) for st in pre + post for n in walk(st)):
        return None
    var = spec.dims[-1][0]
    header = [x for x in (inner.init, inner.cond, inner.next) if x is not None]
    counters = written_names(c_ast.Compound(header))
    counters |= {d.name for x in header if isinstance(x, c_ast.DeclList) for d in x.decls}
    if not _header_invariant(header, counters, spec, var) or counters & written_names(inner.stmt):
        return None
    own = ({d.name for d in spec.privates} | {st.name for st in pre + post
                                              if isinstance(st, c_ast.Decl)}) - counters
    if sum(1 for _ in walk(inner.stmt)) > MAX_NODES or not _carries_scalar(inner.stmt, own) \
            or _redeclares(inner.stmt, own | {var}):
        return None
    return _fuse(spec, pre, inner, post, own, counters, var, step)


def _flat(items: list) -> list:
    """``items`` with each block that holds a loop spliced in (the 'promote' pass wraps an
    inner loop and its scalar-replaced element in one)."""
    out = []
    for st in items:
        if isinstance(st, c_ast.Compound) and any(isinstance(n, _LOOPS) for n in walk(st)):
            out += _flat(st.block_items or [])
        else:
            out.append(st)
    return out


def _header_invariant(header: list[c_ast.Node], counters: set[str], spec: KernelSpec,
                      var: str) -> bool:
    """The inner loop's header reads only its counters, constants and names the body never
    writes or declares: no memory, no calls, not the outer loop's variable."""
    if any(isinstance(n, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)) or
           (isinstance(n, c_ast.UnaryOp) and n.op == "*") for x in header for n in walk(x)):
        return False
    declared = {n.name for n in walk(spec.body) if isinstance(n, c_ast.Decl)}
    others = set().union(*(names_in(x) for x in header)) - counters
    # (names_written: also the names whose address the body takes, which a callee may change)
    changed = written_names(spec.body) | names_written(spec.body) | declared | {var}
    changed |= {d.name for d in spec.privates}
    return not others & changed


def _carries_scalar(stmt: c_ast.Node, own: set[str]) -> bool:
    """True when the inner loop updates one of the iteration's own scalars from its last
    value (``s += e``, ``s = s * e``): a chain the jam makes independent."""
    for n in walk(stmt):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) \
                and n.lvalue.name in own:
            if n.op != "=" or n.lvalue.name in names_in(n.rvalue):
                return True
    return False


def _redeclares(stmt: c_ast.Node, names: set[str]) -> bool:
    return any(isinstance(n, c_ast.Decl) and n.name in names for n in walk(stmt))


def _fuse(spec: KernelSpec, pre: list, inner: c_ast.For, post: list, own: set[str],
          counters: set[str], var: str, step: int) -> c_ast.Compound:
    cl = spec.dims[-1][1]
    names = own | {var}
    out: list[c_ast.Node] = [clone(d) for d in spec.privates if d.name in counters]
    for c in range(1, JAM):
        value = c_ast.BinaryOp("+", c_ast.ID(var), c_ast.Constant("long", str(c * step)))
        out.append(_const_decl(f"{var}__{c}", cl, value))
    for c in range(JAM):
        out += [_copy(d, names, c) for d in spec.privates if d.name not in counters]
    for c in range(JAM):
        out += [_copy(st, names, c) for st in pre
                if not (isinstance(st, c_ast.Decl) and st.name in counters and c)]
    body = inner.stmt if isinstance(inner.stmt, c_ast.Compound) else c_ast.Compound([inner.stmt])
    steps = [_copy(body, names, c) for c in range(JAM)]
    out.append(c_ast.For(clone(inner.init), clone(inner.cond), clone(inner.next),
                         c_ast.Compound(steps), inner.coord))
    for c in range(JAM):
        out += [_copy(st, names, c) for st in post]
    return c_ast.Compound(out, spec.body.coord)


def _copy(node: c_ast.Node, names: set[str], c: int) -> c_ast.Node:
    return clone(node) if c == 0 else _Suffix(names, c).rewrite(node)


def _const_decl(name: str, cl: str, value: c_ast.Node) -> c_ast.Decl:
    t = c_ast.TypeDecl(name, ["const"], None, c_ast.IdentifierType([cl]))
    return c_ast.Decl(name, ["const"], [], [], [], t, c_ast.Cast(
        c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None,
                                                      c_ast.IdentifierType([cl]))), value), None)
