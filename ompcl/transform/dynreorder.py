"""Dynamic index reordering: a kernel spec and its region -> a variant of the kernel that reads
and writes permuted copies of some arrays, and a remark per array considered.

A work-item of the CPU shape runs its iterations like a thread of the original loop: the
range loops outermost (dimension 0 of the range innermost of them), then the loops of the
body. An access is contiguous when the dimension its deepest loop walks is the array's last.
Where a kernel walks an array along another dimension (a line solver's ``u[k][j][i][m]`` with
``k`` in its inner loop), the variant indexes a copy whose dimensions are ordered by the depth
of the deepest loop that walks each (``u'[j][i][k][m]``); dimensions no loop walks keep their
place at the end. A second variant serves the grid shape (GPUs), where neighbouring
work-items take neighbouring iterations of the innermost range loop: there the one dimension
that loop's variable indexes goes last (``u'[k][j][m][i]``: coalesced accesses). The host
program keeps its layout: the runtime makes the permuted copy on
the device when the variant runs (a transposition kernel, skipped while the copy is current)
and transposes what the kernel wrote back, so every other region and the host see the
original. Whether the variant runs is decided at run time by a cost model
(``models/layout-cost.json``, fitted by ``python -m ompcl.bench.layout_cost``).

An array qualifies when it is statically sized (all dimensions constant, two or more), every
mention of it in the kernel body is a subscript chain (a full one, or a row whose trailing,
unsubscripted dimensions the permutation leaves in place) and never its address. Never
mutates its input.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..analysis.ctypes_ import subscripts
from ..analysis.layout import loop_var
from ..analysis.loops import CONSTANT_TEXT
from ..diagnostics import Remark
from ..ir import ArrayArg, KernelSpec, Region
from .boundscheck import unchecked
from .rename import device_name
from .visitor import NodeTransformer

_INF = 1 << 30


#: the kernel shapes a variant is made for (the runtime runs the one of its device's shape)
#: and the suffix of its name
SHAPES = {"blocked": "r", "grid": "g"}


@dataclass(frozen=True)
class Relayout:
    """One permuted array of a variant: its buffer index, dimensions (C constant
    expressions, original order) and ``perm`` (new position -> original dimension)."""

    name: str
    buffer: int
    dims: tuple[str, ...]
    perm: tuple[int, ...]
    ctype: str


@dataclass(frozen=True)
class Variant:
    """A reordered kernel of a region for one kernel shape and the arrays it permutes."""

    spec: KernelSpec
    arrays: tuple[Relayout, ...]
    shape: str = "blocked"


def variant_name(kernel: str, shape: str = "blocked") -> str:
    return kernel + SHAPES[shape]


#: one mention of an array: subscripts taken, whether its address is, and per subscript the
#: depths of the enclosing loops whose variables it mentions (range loops 0 .. n-1 outermost
#: first, then the body's loops)
Use = tuple[int, bool, list[frozenset[int]]]


class _Uses:
    """Every mention of each candidate array in a body (``Use``); names mentioned bare."""

    def __init__(self, names: set[str], range_vars: list[str]):
        self.names = names
        self.base = {v: d for d, v in enumerate(range_vars)}
        self.uses: dict[str, list[Use]] = {n: [] for n in names}
        self.bare: set[str] = set()

    def run(self, body: c_ast.Node) -> "_Uses":
        self._visit(body, dict(self.base), len(self.base), None)
        return self

    def _visit(self, node, loops: dict[str, int], depth: int, parent) -> None:
        if isinstance(node, c_ast.ArrayRef):
            base, subs = subscripts(node)
            if isinstance(base, c_ast.ID) and base.name in self.names:
                addr = isinstance(parent, c_ast.UnaryOp) and parent.op == "&"
                self.uses[base.name].append(
                    (len(subs), addr, [_depths(s, loops) for s in subs]))
                for s in subs:
                    self._visit(s, loops, depth, None)
                return
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            ref = unchecked(node.expr)  # &OMPCL_AT(.., a[..]): the address of a[..]
            if isinstance(ref, c_ast.ArrayRef):
                self._visit(ref, loops, depth, node)
                return
        if isinstance(node, c_ast.ID) and node.name in self.names:
            self.bare.add(node.name)
            return
        if isinstance(node, c_ast.For):
            var = loop_var(node)
            for part in (node.init, node.cond, node.next):
                if part is not None:
                    self._visit(part, loops, depth, node)
            inner = dict(loops)
            if var is not None:
                inner[var] = depth
            if node.stmt is not None:
                self._visit(node.stmt, inner, depth + 1, node)
            return
        for _, child in node.children():
            self._visit(child, loops, depth, node)


def _depths(sub: c_ast.Node, loops: dict[str, int]) -> frozenset[int]:
    return frozenset(loops[n.name] for n in _ids(sub) if n.name in loops)


def _ids(node: c_ast.Node):
    if isinstance(node, c_ast.ID):
        yield node
    for _, child in node.children():
        yield from _ids(child)


def permutation(nd: int, uses: list[Use]) -> tuple[int, ...]:
    """The blocked shape's order (a work-item runs its iterations like a thread): dimensions
    ordered by the depth of the deepest loop that walks each (a dimension no loop walks
    counts as deepest); ties keep their order."""
    key: list[int | None] = [None] * nd
    for _, _, depths in uses:
        for d, x in enumerate(depths):
            if x:
                key[d] = max(x) if key[d] is None else max(key[d], max(x))
    return tuple(sorted(range(nd), key=lambda d: (_INF if key[d] is None else key[d], d)))


def grid_permutation(nd: int, uses: list[Use], inner: int) -> tuple[int, ...] | None:
    """The grid shape's order (neighbouring work-items take neighbouring iterations of the
    innermost range loop, depth ``inner``): the one dimension that loop's variable indexes
    last, the others in their order; None when it indexes none or several."""
    walked = {d for _, _, depths in uses for d, x in enumerate(depths) if inner in x}
    if len(walked) != 1:
        return None
    last = walked.pop()
    return tuple(d for d in range(nd) if d != last) + (last,)


def _qualifies(a: ArrayArg) -> bool:
    t = a.var.ctype
    return (not t.pointer and not t.record and len(t.dims) >= 2
            and all(CONSTANT_TEXT.fullmatch(d) for d in t.dims))


def _unusable(a: ArrayArg, uses: _Uses) -> str:
    """Why no permuted copy of ``a`` can serve the kernel ('' when one can)."""
    name = device_name(a.name)
    if name in uses.bare:
        return "the kernel uses it other than through subscripts"
    nd = len(a.var.ctype.dims)
    if any(addr and n == nd for n, addr, _ in uses.uses[name]):
        return "the kernel takes the address of an element"
    if any(n > nd for n, _, _ in uses.uses[name]):
        return "a subscript chain is longer than its dimensions"
    return ""


def _order(a: ArrayArg, uses: _Uses, shape: str, inner: int
           ) -> tuple[tuple[int, ...] | None, str]:
    """The permutation for ``a`` in ``shape`` (None: none) and why not."""
    found = uses.uses[device_name(a.name)]
    nd = len(a.var.ctype.dims)
    perm = permutation(nd, found) if shape == "blocked" else grid_permutation(nd, found, inner)
    if perm is None or perm == tuple(range(nd)):
        return None, ""
    for n, _, _ in found:
        if any(perm[p] != p for p in range(n, nd)):
            return None, ("a row of it is used whose trailing dimensions the reordering "
                          "would move")
    return perm, ""


class _Permute(NodeTransformer):
    def __init__(self, perms: dict[str, tuple[int, ...]]):
        self.perms = perms

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> c_ast.Node:
        base, subs = subscripts(node)
        subs = [self.visit(s) for s in subs]
        if isinstance(base, c_ast.ID) and base.name in self.perms:
            perm = self.perms[base.name][:len(subs)]
            subs = [subs[p] for p in perm]
        else:
            base = self.visit(base)
        out = base
        for s in subs:
            out = c_ast.ArrayRef(out, s, node.coord)
        return out


def reorder_kernel(spec: KernelSpec, region: Region, view) -> tuple[tuple[Variant, ...],
                                                                    list[Remark]]:
    """The variants of ``spec``, one per kernel shape in which some array wants another
    order, and a remark per array and shape. ``view(name, cl, rows, k)`` builds a prologue
    view (the kernel printer's)."""
    cands = {device_name(a.name): (k, a) for k, a in enumerate(region.arrays)
             if _qualifies(a)}
    if not cands:
        return (), []
    uses = _Uses(set(cands), [v for v, _ in spec.dims]).run(spec.body)
    loc = spec.loc or region.loc
    remarks, variants, missed = [], [], {}
    for _, a in cands.values():
        why = _unusable(a, uses)
        if why:
            missed[a.name] = why
    for shape in SHAPES:
        perms, arrays = {}, []
        for name, (k, a) in cands.items():
            if a.name in missed:
                continue
            perm, why = _order(a, uses, shape, len(spec.dims) - 1)
            if perm is None:
                if why:
                    missed.setdefault(a.name, why)
                continue
            perms[name] = perm
            arrays.append(Relayout(a.name, k, a.var.ctype.dims, perm, a.var.ctype.base))
            remarks.append(_done(loc, a.name, perm, shape))
        if perms:
            variants.append(Variant(_permuted(spec, perms, cands, view, shape), tuple(arrays),
                                    shape))
    remarks += [Remark(loc, f"array '{n}' not reordered on the device: {why}", "remark",
                       "dynreorder-missed") for n, why in missed.items()]
    return tuple(variants), remarks


def _done(loc, name: str, perm: tuple[int, ...], shape: str) -> Remark:
    letters = _letters(len(perm))
    old = "".join(f"[{d}]" for d in letters)
    new = "".join(f"[{letters[p]}]" for p in perm)
    why = ("ordered by the loops that walk each dimension" if shape == "blocked" else
           "the dimension neighbouring work-items walk last")
    return Remark(loc, f"array '{name}' reordered on the device ({shape} shape): {name}{old} "
                  f"-> {name}{new} ({why}); the device makes the permuted copy when the cost "
                  "model says it pays", "remark", "dynreorder")


def _permuted(spec: KernelSpec, perms: dict[str, tuple[int, ...]], cands: dict, view,
              shape: str) -> KernelSpec:
    """``spec`` renamed, its views and accesses of the ``perms`` arrays permuted."""
    prologue = []
    for decl in spec.prologue:
        if decl.name in perms:
            k, a = cands[decl.name]
            dims = [a.var.ctype.dims[p] for p in perms[decl.name]]
            decl = view(decl.name, _cl(decl), tuple(dims[1:]), k)
        prologue.append(decl)
    return replace(spec, name=variant_name(spec.name, shape), prologue=tuple(prologue),
                   body=_Permute(perms).rewrite(spec.body))


def _letters(n: int) -> list[str]:
    return [f"d{k}" for k in range(n)]


def _cl(decl: c_ast.Decl) -> str:
    """The OpenCL element type of a prologue view."""
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return " ".join(t.type.names)


__all__ = ["SHAPES", "Relayout", "Variant", "grid_permutation", "permutation",
           "reorder_kernel", "variant_name"]
