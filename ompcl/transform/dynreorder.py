"""Dynamic index reordering: a kernel spec and its region -> a variant of the kernel that reads
and writes permuted copies of some arrays, and a remark per array considered.

A work-item of the CPU shape runs its iterations like a thread of the original loop: the
range loops outermost (dimension 0 of the range innermost of them), then the loops of the
body. An access is contiguous when the dimension its deepest loop walks is the array's last.
Where a kernel walks an array along another dimension (a line solver's ``u[k][j][i][m]`` with
``k`` in its inner loop), the variant indexes a copy whose dimensions are ordered by the depth
of the deepest loop that walks each (``u'[j][i][k][m]``); dimensions no loop walks keep their
place at the end. The host program keeps its layout: the runtime makes the permuted copy on
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

import re
from dataclasses import dataclass, replace

from pycparser import c_ast

from ..analysis.ctypes_ import subscripts
from ..analysis.layout import loop_var
from ..diagnostics import Remark
from ..ir import ArrayArg, KernelSpec, Region
from .rename import device_name
from .visitor import NodeTransformer

_CONST = re.compile(r"[\d\s()+\-*/]+")
_INF = 1 << 30


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
    """The reordered kernel of a region and the arrays it permutes."""

    spec: KernelSpec
    arrays: tuple[Relayout, ...]


def variant_name(kernel: str) -> str:
    return kernel + "r"


class _Uses:
    """Every mention of each candidate array in a body: for each, the number of subscripts,
    whether its address is taken, and per subscript the depth of the deepest enclosing loop
    whose variable it mentions (None: no enclosing loop's)."""

    def __init__(self, names: set[str], range_vars: list[str]):
        self.names = names
        self.base = {v: d for d, v in enumerate(range_vars)}
        self.uses: dict[str, list[tuple[int, bool, list[int | None]]]] = {n: [] for n in names}
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
                    (len(subs), addr, [_deepest(s, loops) for s in subs]))
                for s in subs:
                    self._visit(s, loops, depth, None)
                return
        if isinstance(node, c_ast.UnaryOp) and node.op == "&":
            ref = _checked_ref(node.expr)  # &OMPCL_AT(.., a[..]): the address of a[..]
            if ref is not None:
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


def _checked_ref(node: c_ast.Node) -> c_ast.Node | None:
    """The access a bounds-check wrapper ``OMPCL_AT(T, k, site, ref)`` holds (or the node)."""
    if (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
            and node.name.name == "OMPCL_AT" and node.args is not None):
        return node.args.exprs[-1]
    return node if isinstance(node, c_ast.ArrayRef) else None


def _deepest(sub: c_ast.Node, loops: dict[str, int]) -> int | None:
    found = [loops[n.name] for n in _ids(sub) if n.name in loops]
    return max(found) if found else None


def _ids(node: c_ast.Node):
    if isinstance(node, c_ast.ID):
        yield node
    for _, child in node.children():
        yield from _ids(child)


def permutation(nd: int, uses: list[tuple[int, bool, list[int | None]]]) -> tuple[int, ...]:
    """Dimensions ordered by the depth of the deepest loop that walks each (a dimension no
    loop walks counts as deepest); ties keep their order."""
    key = [None] * nd
    for _, _, depths in uses:
        for d, x in enumerate(depths):
            if x is not None:
                key[d] = x if key[d] is None else max(key[d], x)
    return tuple(sorted(range(nd), key=lambda d: (_INF if key[d] is None else key[d], d)))


def _qualifies(a: ArrayArg) -> bool:
    t = a.var.ctype
    return (not t.pointer and not t.record and len(t.dims) >= 2
            and all(_CONST.fullmatch(d) for d in t.dims))


def _verdict(a: ArrayArg, uses: _Uses) -> tuple[tuple[int, ...] | None, str]:
    """The permutation for ``a`` (None: none) and why not."""
    name = device_name(a.name)
    if name in uses.bare:
        return None, "the kernel uses it other than through subscripts"
    found = uses.uses[name]
    nd = len(a.var.ctype.dims)
    if any(addr and n == nd for n, addr, _ in found):
        return None, "the kernel takes the address of an element"
    if any(n > nd for n, _, _ in found):
        return None, "a subscript chain is longer than its dimensions"
    perm = permutation(nd, found)
    if perm == tuple(range(nd)):
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


def reorder_kernel(spec: KernelSpec, region: Region, view) -> tuple[Variant | None,
                                                                    list[Remark]]:
    """The variant of ``spec`` (None when no array wants another order) and a remark per
    array that wanted one. ``view(name, cl, rows, k)`` builds a prologue view (the
    kernel printer's)."""
    cands = {device_name(a.name): (k, a) for k, a in enumerate(region.arrays)
             if _qualifies(a)}
    if not cands:
        return None, []
    uses = _Uses(set(cands), [v for v, _ in spec.dims]).run(spec.body)
    perms: dict[str, tuple[int, ...]] = {}
    remarks, arrays = [], []
    loc = spec.loc or region.loc
    for name, (k, a) in cands.items():
        perm, why = _verdict(a, uses)
        if perm is None:
            if why:
                remarks.append(Remark(loc, f"array '{a.name}' not reordered on the device: "
                                      f"{why}", "remark", "dynreorder-missed"))
            continue
        perms[name] = perm
        dims = a.var.ctype.dims
        arrays.append(Relayout(a.name, k, dims, perm, a.var.ctype.base))
        old = "".join(f"[{d}]" for d in _letters(len(dims)))
        new = "".join(f"[{_letters(len(dims))[p]}]" for p in perm)
        remarks.append(Remark(
            loc, f"array '{a.name}' reordered on the device: {a.name}{old} -> {a.name}{new} "
            "(ordered by the loops that walk each dimension); the device makes the permuted "
            "copy when the cost model says it pays", "remark", "dynreorder"))
    if not perms:
        return None, remarks
    prologue = []
    for decl in spec.prologue:
        if decl.name in perms:
            k, a = cands[decl.name]
            dims = [a.var.ctype.dims[p] for p in perms[decl.name]]
            decl = view(decl.name, _cl(decl), tuple(dims[1:]), k)
        prologue.append(decl)
    body = _Permute(perms).rewrite(spec.body)
    variant = replace(spec, name=variant_name(spec.name), prologue=tuple(prologue), body=body)
    return Variant(variant, tuple(arrays)), remarks


def _letters(n: int) -> list[str]:
    return [f"d{k}" for k in range(n)]


def _cl(decl: c_ast.Decl) -> str:
    """The OpenCL element type of a prologue view."""
    t = decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return " ".join(t.type.names)


__all__ = ["Relayout", "Variant", "permutation", "reorder_kernel", "variant_name"]
