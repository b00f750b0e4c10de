"""Which statically allocated arrays want their dimensions permuted: a ``Program`` -> a
``LayoutPlan`` (array name -> permutation, and a remark per array considered).

Each use of an array inside a loop votes for the dimension that the innermost enclosing loop's
variable indexes: that dimension should vary fastest (come last). An array is reordered only
when every vote agrees on a dimension that is not already last, at least one voting use is in
an OpenMP work-sharing loop, and every use is visible and rewritable: the array is declared
once in this file (not in a header), at file scope or in a function, without an initialiser;
at file scope it is ``static`` or provably unused by the program's other sources; every use
is a full subscript (``a[e1]...[en]``, never its address, a row, ``sizeof`` or a pragma's
array section); and no other variable, parameter or member anywhere in the file has its name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from ..diagnostics import OmpclError, Remark, SourceLoc
from ..frontend.preprocess import preprocess
from ..frontend.siblings import note_read
from .ctypes_ import subscripts, walk


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


def _candidates(ast: c_ast.FileAST) -> tuple[dict[str, list[c_ast.Decl]], set[int]]:
    """Declarations by name, at any scope (parameters and struct members too), of the names
    that have an array of scalars of rank 2 or more among them that is not a parameter (an
    array parameter is a pointer to the caller's rows); and the ids of the file-scope
    ones."""
    out: dict[str, list[c_ast.Decl]] = {}
    for d in walk(ast):
        if isinstance(d, c_ast.Decl) and d.name and not isinstance(d.type, c_ast.FuncDecl):
            out.setdefault(d.name, []).append(d)
    top = {id(e) for e in ast.ext}
    params = {id(p) for n in walk(ast) if isinstance(n, c_ast.ParamList) for p in n.params}
    return {k: v for k, v in out.items()
            if any(rank(d) >= 2 and id(d) not in params for d in v)}, top


def loop_var(f: c_ast.For) -> str | None:
    """The variable a for loop's initialisation assigns or declares (None: another form)."""
    init = f.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    return None


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
        #: name -> (subscripts taken, outermost node) of every mention
        self.depths: dict[str, list[tuple[int, c_ast.Node]]] = {}

    def generic_visit(self, node: c_ast.Node) -> None:
        kernel = id(node) in self.kernels
        self.depth_in_kernel += kernel
        loop = isinstance(node, c_ast.For)
        if loop:
            self.loops.append(loop_var(node))
        self.parents.append(node)
        for _, child in node.children():
            self.visit(child)
        self.parents.pop()
        if loop:
            self.loops.pop()
        self.depth_in_kernel -= kernel

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
        _, subs = subscripts(full) if depth else (None, [])
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
             cpp, file_scope: bool) -> str:
    """'' when every use of ``name`` is in this file; else why not. Another source is read
    after preprocessing (a macro of a header it includes may spell the name)."""
    if "static" in (decl.storage or []) or not file_scope and "extern" not in (
            decl.storage or []):
        return ""
    if "extern" in (decl.storage or []):
        return "it is declared 'extern' (defined elsewhere)"
    if not whole_program:
        return "it is not 'static' and ompcl does not see the whole program"
    word = re.compile(rf"\b{re.escape(name)}\b")
    note_read()
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
    cands, top = _candidates(ast)
    params = {id(p) for n in walk(ast) if isinstance(n, c_ast.ParamList) for p in n.params}
    visitor = _Uses(set(cands), kernel_statements(constructs))
    visitor.visit(ast)
    perms, decls, remarks, uses = {}, {}, [], {}
    for name, ds in cands.items():
        decl = next(d for d in ds if rank(d) >= 2 and id(d) not in params)
        n = rank(decl)
        all_uses = visitor.uses[name]
        want, other = _wanted(all_uses, n)
        interested = want is not None and want != n - 1 or other is not None
        if not interested or not any(u.in_kernel and u.vote is not None for u in all_uses):
            continue
        why, where = _why_not(name, ds, decl, n, visitor, path, pragmas,
                              (others, whole_program and id(decl) in top, cpp, id(decl) in top),
                              other, want)
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
        return ("it is declared more than once (or another variable, parameter or member "
                "has its name)"), ds[0] if ds[0] is not decl else ds[1]
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
    for depth, node in visitor.depths.get(name, []):
        if depth != n:
            return f"a use takes {depth} of its {n} subscripts", node
        if str(node.coord.file) != path:
            return f"a use is in {node.coord.file}", node
    word = re.compile(rf"\b{re.escape(name)}\s*\[")
    if any(word.search(p) for p in pragmas):
        return "a directive names a section of it", decl
    return "", decl
