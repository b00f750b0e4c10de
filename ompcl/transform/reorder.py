"""Global index reordering: a ``Program`` and its ``LayoutPlan`` -> the program with each planned
array's dimensions permuted in its declaration and in every use, in the user's text (which the
host output splices) and in the tree (from which kernels are printed).

Every rewrite is length-preserving (``a[k][j][i]`` -> ``a[i][k][j]``: the same bracket groups
in another order), so offsets, lines and columns of everything else stay where they were. The
rewritten text is preprocessed and parsed again and must give exactly the permuted tree;
otherwise nothing is rewritten. Never mutates its input.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from pycparser import c_ast

from ..analysis.ctypes_ import c_text
from ..analysis.layout import LayoutPlan, rank
from ..diagnostics import OmpclError, Remark, SourceLoc
from ..frontend.parse import parse_pruned
from ..frontend.preprocess import CppOptions, preprocess_text
from ..frontend.program import Program, rebuilt
from ..frontend.textscan import Scanner
from .visitor import NodeTransformer


class _Unmatched(Exception):
    """A use's text is not the plain ``name[..]..[..]`` the tree says."""


@dataclass(frozen=True)
class Edit:
    start: int
    end: int
    text: str


def _groups(src: str, p: int, n: int) -> tuple[list[str], list[str], int]:
    """From offset ``p`` (just after the name): the whitespace before each of ``n`` bracket
    groups, their inner texts, and the end offset."""
    spaces, inner = [], []
    for _ in range(n):
        q = p
        while q < len(src) and src[q] in " \t":
            q += 1
        if q >= len(src) or src[q] != "[":
            raise _Unmatched
        depth, e = 0, q
        while True:
            if e >= len(src) or src[e] in "\n\"'#" or src.startswith(("/*", "//"), e):
                raise _Unmatched
            depth += src[e] in "([{"
            depth -= src[e] in ")]}"
            if depth == 0:
                break
            e += 1
        spaces.append(src[p:q])
        inner.append(src[q + 1:e])
        p = e + 1
    return spaces, inner, p


def permuted_text(src: str, start: int, name: str, perm: tuple[int, ...]) -> Edit:
    """The edit that permutes the bracket groups after ``name`` at offset ``start``."""
    after = start + len(name)
    if src[start:after] != name or (after < len(src) and (src[after].isalnum()
                                                          or src[after] == "_")):
        raise _Unmatched
    spaces, inner, end = _groups(src, after, len(perm))
    text = name + "".join(f"{spaces[k]}[{inner[perm[k]]}]" for k in range(len(perm)))
    return Edit(start, end, text)


def _line_offsets(src: str, scan: Scanner, name: str, nodes: list[c_ast.Node]) -> list[int]:
    """Where each node's ``name[`` is in the text. Columns count the preprocessed line (a
    macro earlier on it moves them), so the k-th node of a line is the k-th ``name[`` of
    that line's text; a line with more or fewer of them fails."""
    by_line: dict[int, list[c_ast.Node]] = {}
    for n in nodes:
        by_line.setdefault(n.coord.line, []).append(n)
    word = re.compile(rf"(?<![\w.]){re.escape(name)}\s*\[")
    out = []
    for line, here in by_line.items():
        start = scan.starts[line - 1]
        end = src.find("\n", start)
        hits = [start + m.start() for m in word.finditer(src[start:end if end >= 0 else None])]
        if len(hits) != len(here):
            raise _Unmatched
        out += hits
    return out


def text_edits(prog: Program, plan: LayoutPlan) -> list[Edit]:
    """One edit per declaration and use of the planned arrays; raises _Unmatched."""
    src, scan = prog.source, prog.scanner()
    edits = []
    for name, perm in plan.perms.items():
        nodes = [plan.decls[name]] + [u.ref for u in plan.uses[name]]
        edits += [permuted_text(src, p, name, perm)
                  for p in _line_offsets(src, scan, name, nodes)]
    edits.sort(key=lambda e: e.start)
    if any(a.end > b.start for a, b in itertools.pairwise(edits)):
        raise _Unmatched  # a use inside another's subscript
    return edits


def apply(src: str, edits: list[Edit]) -> str:
    out, p = [], 0
    for e in edits:
        out += [src[p:e.start], e.text]
        p = e.end
    return "".join(out + [src[p:]])


class _Permute(NodeTransformer):
    def __init__(self, plan: LayoutPlan):
        self.perms = plan.perms
        self.depth = 0

    def visit_Decl(self, node: c_ast.Decl) -> c_ast.Decl:
        # a planned name has one declaration in the file: this one
        if node.name in self.perms and isinstance(node.type, c_ast.ArrayDecl):
            node.type = _permuted_decl(node.type, self.perms[node.name])
        return self.generic_visit(node)

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> c_ast.Node:
        subs, base = [], node
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base)
            base = base.name
        perm = self.perms.get(getattr(base, "name", None))
        if perm is None or len(subs) != len(perm):
            return self.generic_visit(node)
        subs = subs[::-1]  # outermost dimension first
        new = [self.visit(subs[perm[k]].subscript) for k in range(len(perm))]
        out = base
        for k, s in enumerate(new):
            out = c_ast.ArrayRef(out, s, subs[k].coord)
        return out


def _permuted_decl(t: c_ast.ArrayDecl, perm: tuple[int, ...]) -> c_ast.Node:
    dims, inner = [], t
    while isinstance(inner, c_ast.ArrayDecl):
        dims.append(inner)
        inner = inner.type
    for k in reversed(range(len(perm))):
        d = dims[perm[k]]
        inner = c_ast.ArrayDecl(inner, d.dim, d.dim_quals, d.coord)
    return inner


def _same(a: c_ast.Node, b: c_ast.Node) -> bool:
    return c_text(a) == c_text(b)


def reordered_program(prog: Program, plan: LayoutPlan, cpp: CppOptions
                      ) -> tuple[Program, tuple[Remark, ...]]:
    """The program with the plan's arrays permuted, and a remark per array; the program
    unchanged (with a remark) when the rewritten text does not mean the permuted tree."""
    if not plan.perms:
        return prog, ()
    try:
        edits = text_edits(prog, plan)
    except _Unmatched:
        return prog, _missed(plan, "a use's text is not a plain subscript in this file "
                             "(a macro, a comment or a line break inside it)")
    source = apply(prog.source, edits)
    ast = _Permute(plan).rewrite(prog.ast)
    try:
        text = preprocess_text(source, prog.path, cpp, prog.source_map)
        again = parse_pruned(text, prog.path)
    except OmpclError:
        return prog, _missed(plan, "the rewritten file does not parse")
    if not _same(again, ast):
        return prog, _missed(plan, "the rewritten file does not parse to the permuted program")
    return rebuilt(prog, source, ast, text), _done(plan, source)


def _spelled(source: str, decl: c_ast.Decl) -> str:
    """The declarator as the rewritten text spells it (``a[M][N]``)."""
    try:
        (p,) = _line_offsets(source, Scanner(source), decl.name, [decl])
        return source[p:_groups(source, p + len(decl.name), rank(decl))[2]]
    except _Unmatched:  # a use on the same line
        return decl.name


def _done(plan: LayoutPlan, source: str) -> tuple[Remark, ...]:
    out = []
    for name, perm in plan.perms.items():
        uses = plan.uses[name]
        voting = sum(u.vote is not None for u in uses)
        out.append(Remark(SourceLoc.of(plan.decls[name]), f"array '{name}' reordered to "
                          f"{_spelled(source, plan.decls[name])}: {voting} of its "
                          f"{len(uses)} uses walk dimension {perm[-1] + 1} in their innermost "
                          "loop, which now varies fastest", "remark", "reorder"))
    return tuple(out)


def _missed(plan: LayoutPlan, why: str) -> tuple[Remark, ...]:
    return tuple(Remark(SourceLoc.of(plan.decls[name]), f"array '{name}' not reordered: {why}",
                        "remark", "reorder-missed") for name in plan.perms)
