"""Pointer trees: a region's accesses to a pointer-to-pointer array (``double **m``, the rows
``malloc``'d one by one; ``double ***u``) -> the ``ArrayArg`` of a staging block the kernel
indexes as rows of fixed width (``ir.Tree``), with the variables that hold the widths, or
the reason it cannot be one.

The kernel never follows the host's pointers. At entry the runtime gathers the leaf rows the
region touches into one block (``ompcl_rt_tree``), checking that every pointer it follows and
every row it copies lies inside the process's writable memory, that written rows do not
overlap each other or the region's other arrays; after the launch it scatters written rows
back. So every access must give all the tree's subscripts, or pass a row or an element's
address to a function whose span is known (which widens the rows gathered); the region must
not assign the tree's pointers or pass the tree itself to a function. A level whose
subscripts are all affine in the loop variables, with bounds known at entry, gathers what
they reach; one with a subscript that is not (k-means' ``partial[tid][index][j]``, an index
computed in the body) takes its extent from the allocations at entry: the root's rows from
the block the root points into (``extents.object_extent``), a level below from the blocks its
rows point into (``Tree.objects``, ``ompcl_rt_tree_width``: each row to its block's end, rows
sharing a block at one stride no further than the next; else the host runs the loop).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pycparser import c_ast

from ..diagnostics import Reason
from ..ir import Affine, Bound, BoundExpr, CType, Extent, Storage, Tree, Var
from .accesses import BodyInfo, RawAccess, passings
from .ctypes_ import TypeEnv, pointer_depth
from .extents import array_extent, object_extent

#: the deepest pointer tree gathered (``T ***``)
MAX_DEPTH = 3


def tree_type(t: c_ast.Node | None, env: TypeEnv) -> tuple[str, int] | None:
    """(element type, pointer depth) of a type ``T **`` or ``T ***`` whose element type is
    an arithmetic scalar (typedefs resolved); None otherwise."""
    depth, t = pointer_depth(t)
    if not 2 <= depth <= MAX_DEPTH or not isinstance(t, c_ast.TypeDecl):
        return None
    ct = env.ctype(t)
    if ct is None or not ct.is_scalar or ct.record:
        return None
    return ct.base, depth


def width_name(name: str, level: int) -> str:
    """The generated variable holding the width of a tree's level (1 = below the root)."""
    return f"ompcl_tw{level}_{name}"


def tree_arg(v: Var, accs: list[RawAccess], info: BodyInfo, passed: str, ptr_use: bool,
             env: TypeEnv, dims: dict, span: Callable[[Var, RawAccess], tuple | None]
             = lambda v, a: None
             ) -> tuple[Var, Extent, Tree, list[Var], list] | Reason | None:
    """The kernel's view of pointer tree ``v`` (its row-pointer ``Var``, the extent of its
    root's rows, the ``Tree``, the width variables, the inspections finding the root's
    block) or the reason the region cannot gather it; None when ``v`` is no pointer tree.
    ``span(view, access)``: the offsets a callee reaches from a row or element the loop
    passes it (``sharing.call_span``)."""
    found = tree_type(getattr(v.decl, "type", None), env)
    if found is None:
        return None
    base, depth = found
    names = tuple(width_name(v.name, k) for k in range(1, depth))
    view = Var(v.name, CType(base, names, True), v.storage, v.decl)
    element = Var(v.name, CType(base), v.storage, v.decl)
    calls = {id(a): span(element, a) for a in accs if a.call is not None}
    covered = bool(calls) and None not in calls.values() and len(calls) == passings(v.name, info)
    accs = _with_spans(accs, depth, calls) if covered else accs
    why = _unfit(v, accs, info, "" if covered else passed, ptr_use, depth)
    if why is not None:
        return Reason("data-type", f"pointer tree '{v.name}' {why}",
                      accs[0].loc if accs else None)
    levels, objects, looks = [], [], []
    for k in range(depth):
        if any(f is None or not f.is_affine_in_loops() for a in accs for f in a.index[k:k + 1]):
            if k == 0:
                ext, look = object_extent(Var(v.name, CType("?", (), True), v.storage, v.decl))
                looks.append(look)
            else:
                ext = Extent(Affine.constant(0), Affine.constant(-1))
            levels.append(ext)
            objects.append(True)
            continue
        ext = array_extent(v, [replace(a, index=a.index[k:], subscripts=a.subscripts[k:])
                               for a in accs], dims, info.inner)
        if isinstance(ext, Reason):
            return Reason("data-type", f"pointer tree '{v.name}': {ext.message}", ext.loc)
        levels.append(ext)
        objects.append(False)
    widths = tuple(_plus_one(e.hi) for e in levels[1:])
    tree = Tree(depth, names, widths, tuple(e.lo for e in levels[1:]), tuple(objects[1:]))
    width_vars = [Var(n, CType("long"), Storage.GENERATED, _long_decl(n)) for n in names]
    return view, Extent(levels[0].lo, levels[0].hi, names), tree, width_vars, looks


def _with_spans(accs: list[RawAccess], depth: int, spans: dict) -> list[RawAccess]:
    """The accesses with each row or element passed to a function (``a.call``) replaced by
    the two ends of what the callee reaches from it (``spans``, by access), as full-depth
    accesses."""
    out = []
    for a in accs:
        if a.call is None or len(a.subscripts) not in (depth - 1, depth):
            out.append(a)
            continue
        start = a.index[depth - 1] if len(a.subscripts) == depth else Affine()
        subs = a.subscripts + ((a.subscripts[-1],) if len(a.subscripts) < depth else ())
        for end in spans[id(a)]:
            form = None if start is None else start + end
            out.append(replace(a, index=a.index[:depth - 1] + (form,), subscripts=subs,
                               call=None))
    return out


def _unfit(v: Var, accs: list[RawAccess], info: BodyInfo, passed: str, ptr_use: bool,
           depth: int) -> str | None:
    """Why the region's uses of tree ``v`` keep it from being gathered, or None."""
    if passed or ptr_use:
        return "is passed to a function"
    if v.name in info.scalar_writes:
        return "is assigned in the loop"
    if not accs:
        return "is used without subscripts"
    for a in accs:
        if a.call is not None:
            return "has an element's address passed to a function"
        if len(a.subscripts) != depth:
            return f"is used with {len(a.subscripts)} of its {depth} subscripts"
    return None


def _plus_one(b: BoundExpr) -> BoundExpr:
    one = Affine.constant(1)
    return b + one if isinstance(b, Affine) else Bound("sum", (b, one))


def _long_decl(name: str) -> c_ast.Decl:
    return c_ast.Decl(name, [], [], [], [], c_ast.TypeDecl(name, [], None,
                                                          c_ast.IdentifierType(["long"])),
                      None, None)

