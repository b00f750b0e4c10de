"""Which statically allocated arrays want their dimensions permuted: a ``Program`` -> a
``LayoutPlan`` (array name -> permutation, and a remark per array considered).

Each use of an array inside a loop votes for the dimension that the innermost enclosing loop's
variable indexes: that dimension should vary fastest (come last). An array is reordered only
when every vote agrees on a dimension that is not already last, at least one voting use is in
an OpenMP work-sharing loop, and every use is visible and rewritable: the array is declared
once, at file scope of this file (not in a header), without an initialiser, is ``static`` or
provably unused by the program's other sources, and every use is a full subscript
(``a[e1]...[en]``, never its address, a row, ``sizeof`` or a pragma's array section), with no
other variable of the same name anywhere.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from ..diagnostics import OmpclError, Remark, SourceLoc
from ..frontend.preprocess import preprocess
from .ctypes_ import walk


@dataclass(frozen=True)
class Use:
    """A full subscript of an array: its outermost ``ArrayRef`` and the dimension it votes
    to be last (None: no vote)."""

    ref: c_ast.ArrayRef
    vote: int | None
    in_kernel: bool


@dataclass(frozen=True)
class LayoutPlan:
    """``perms[name]``: new position -> old dimension; ``decls[name]``: its declaration."""

    perms: dict[str, tuple[int, ...]] = field(default_factory=dict)
    decls: dict[str, c_ast.Decl] = field(default_factory=dict)
    uses: dict[str, tuple[Use, ...]] = field(default_factory=dict)
    remarks: tuple[Remark, ...] = ()


def rank(decl: c_ast.Decl) -> int:
    n, t = 0, decl.type
    while isinstance(t, c_ast.ArrayDecl):
        n, t = n + 1, t.type
    return n if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) else 0


def _candidates(ast: c_ast.FileAST) -> dict[str, list[c_ast.Decl]]:
    """File-scope object declarations by name (arrays of scalars of rank 2 or more, and any
    other declaration of those names)."""
    out: dict[str, list[c_ast.Decl]] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            out.setdefault(ext.name, []).append(ext)
    return {k: v for k, v in out.items() if any(rank(d) >= 2 for d in v)}


def _loop_var(f: c_ast.For) -> str | None:
    init = f.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    return None


def _subs(ref: c_ast.ArrayRef) -> tuple[c_ast.Node, list[c_ast.Node]]:
    subs = []
    while isinstance(ref, c_ast.ArrayRef):
        subs.append(ref.subscript)
        ref = ref.name
    return ref, subs[::-1]


def _vote(subs: list[c_ast.Node], var: str | None) -> int | None:
    if var is None:
        return None
    dims = [d for d, s in enumerate(subs)
            if any(isinstance(n, c_ast.ID) and n.name == var for n in walk(s))]
    return dims[0] if len(dims) == 1 else None


class _Uses(c_ast.NodeVisitor):
    """Every mention of the candidate names, with its context."""

    def __init__(self, names: set[str], kernels: set[int]):
        self.names, self.kernels = names, kernels
        self.loops: list[str | None] = []
        self.parents: list[c_ast.Node] = []
        self.depth_in_kernel = 0
        self.uses: dict[str, list[Use]] = {n: [] for n in names}
        self.bad: dict[str, tuple[c_ast.Node, str]] = {}
        self.shadows: dict[str, c_ast.Node] = {}
        #: name -> (subscripts taken, outermost node) of every mention
        self.depths: dict[str, list[tuple[int, c_ast.Node]]] = {}

    def generic_visit(self, node: c_ast.Node) -> None:
        kernel = id(node) in self.kernels
        self.depth_in_kernel += kernel
        loop = isinstance(node, c_ast.For)
        if loop:
            self.loops.append(_loop_var(node))
        self.parents.append(node)
        for _, child in node.children():
            self.visit(child)
        self.parents.pop()
        if loop:
            self.loops.pop()
        self.depth_in_kernel -= kernel

    def visit_Decl(self, node: c_ast.Decl) -> None:
        if node.name in self.names and self.parents and not isinstance(
                self.parents[-1], c_ast.FileAST):
            self.shadows.setdefault(node.name, node)
        self.generic_visit(node)

    def visit_ID(self, node: c_ast.ID) -> None:
        if node.name not in self.names:
            return
        chain = [node]
        for p in reversed(self.parents):
            if isinstance(p, c_ast.ArrayRef) and p.name is chain[-1]:
                chain.append(p)
            else:
                break
        self.found(node.name, chain, len(chain) - 1)

    def found(self, name: str, chain: list, depth: int) -> None:
        full = chain[-1]
        parent = self.parents[-depth - 1] if len(self.parents) > depth else None
        if isinstance(parent, c_ast.UnaryOp) and parent.op in ("&", "sizeof"):
            self.bad.setdefault(name, (full, "its size or address is taken"))
            return
        _, subs = _subs(full) if depth else (None, [])
        use = Use(full, _vote(subs, self.loops[-1] if self.loops else None),
                  self.depth_in_kernel > 0)
        self.uses[name].append(use)
        self.depths.setdefault(name, []).append((depth, full))


def _has_open_dim(decl: c_ast.Decl) -> bool:
    t = decl.type
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None:
            return True
        t = t.type
    return False


def kernel_statements(constructs) -> set[int]:
    """Ids of the statements of OpenMP work-sharing loops."""
    return {id(b.stmt) for b in constructs if b.directive.kind in ("for", "parallel for")}


def _visible(name: str, decl: c_ast.Decl, others: tuple[str, ...], whole_program: bool,
             cpp) -> str:
    """'' when every use of ``name`` is in this file; else why not. Another source is read
    after preprocessing (a macro of a header it includes may spell the name)."""
    if "static" in (decl.storage or []):
        return ""
    if "extern" in (decl.storage or []):
        return "it is declared 'extern' (defined elsewhere)"
    if not whole_program:
        return "it is not 'static' and ompcl does not see the whole program"
    word = re.compile(rf"\b{re.escape(name)}\b")
    for o in others:
        try:
            text = preprocess(o, cpp) if cpp is not None else Path(o).read_text()
        except (OmpclError, OSError):
            return f"{o} cannot be read"
        if word.search(text):
            return f"{o} uses it too"
    return ""


def want_first(uses: list[Use]) -> int:
    return next(u.vote for u in uses if u.vote is not None)


def _wanted(uses: list[Use], n: int) -> tuple[int | None, Use | None]:
    """The dimension every voting use wants last, or (None, a use that disagrees)."""
    votes = [u for u in uses if u.vote is not None]
    if not votes:
        return None, None
    first = votes[0].vote
    for u in votes:
        if u.vote != first:
            return None, u
    return first, None


def plan_layout(ast: c_ast.FileAST, path: str, constructs, pragmas: list[str],
                others: tuple[str, ...] = (), whole_program: bool = False,
                cpp=None) -> LayoutPlan:
    """The arrays to reorder and a remark for each one some use would like reordered."""
    cands = _candidates(ast)
    visitor = _Uses(set(cands), kernel_statements(constructs))
    visitor.visit(ast)
    perms, decls, remarks, uses = {}, {}, [], {}
    for name, ds in cands.items():
        decl = ds[-1]
        n = rank(decl)
        all_uses = visitor.uses[name]
        want, other = _wanted(all_uses, n)
        interested = want is not None and want != n - 1 or other is not None
        if not interested or not any(u.in_kernel and u.vote is not None for u in all_uses):
            continue
        why, where = _why_not(name, ds, decl, n, visitor, path, pragmas,
                              (others, whole_program, cpp), other, want)
        if why:
            remarks.append(Remark(SourceLoc.of(where), f"array '{name}' not reordered: {why}",
                                  "remark", "reorder-missed"))
            continue
        perm = tuple(d for d in range(n) if d != want) + (want,)
        perms[name], decls[name], uses[name] = perm, decl, tuple(all_uses)
    return LayoutPlan(perms, decls, uses, tuple(remarks))


def _why_not(name, ds, decl, n, visitor, path, pragmas, program, other,
             want) -> tuple[str, c_ast.Node]:
    if other is not None:
        return (f"its uses disagree on which dimension should vary fastest: this one walks "
                f"dimension {other.vote + 1} in its innermost loop, an earlier one dimension "
                f"{want_first(visitor.uses[name]) + 1}", other.ref)
    if len(ds) > 1:
        return "it is declared more than once", ds[0]
    if str(decl.coord.file) != path:
        return f"it is declared in {decl.coord.file}, which ompcl does not rewrite", decl
    if decl.init is not None:
        return "it has an initialiser", decl
    if _has_open_dim(decl):
        return "a dimension has no size", decl
    why = _visible(name, decl, *program)
    if why:
        return why, decl
    if name in visitor.bad:
        node, why = visitor.bad[name]
        return why, node
    if name in visitor.shadows:
        return "another variable has the same name", visitor.shadows[name]
    for depth, node in visitor.depths.get(name, []):
        if depth != n:
            return f"a use takes {depth} of its {n} subscripts", node
        if str(node.coord.file) != path:
            return f"a use is in {node.coord.file}", node
    word = re.compile(rf"\b{re.escape(name)}\s*\[")
    if any(word.search(p) for p in pragmas):
        return "a directive names a section of it", decl
    return "", decl
