"""Bounds checking: a kernel body -> the same body with every access to a buffer wrapped in
``OMPCL_AT(T, k, site, ref)``, and the table of access sites.

The macro is the plain access unless the program is built with ``OMPCL_BOUNDS_CHECK``
defined (the runtime does so when the environment variable is set); then it checks the
element's index against the range the host mapped for buffer ``k`` and reports the first
violation with its site. Accesses inside device functions, and rows passed to them,
are not checked.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import SourceLoc
from ..analysis.builtins import ASSERT
from ..analysis.memcalls import literal_text as _literal
from .visitor import NodeTransformer

MACRO = "OMPCL_AT"
ASSERT_MACRO = "OMPCL_ASSERT_FAILED"


@dataclass(frozen=True)
class Site:
    """One checked access: which buffer, the user's array name, where it is; or a checked
    assert: buffer -1, the assertion's text, ``file:line: function`` (glibc's words)."""

    buffer: int
    array: str
    loc: SourceLoc | str


class _Wrapper(NodeTransformer):
    def __init__(self, buffers: dict[str, tuple[int, str, str, int]]):
        # device name -> (buffer index, OpenCL element type, user name, rank)
        self.buffers = buffers
        self.sites: list[Site] = []
        self.shadowed: list[set[str]] = [set()]  # names a block declares hide the buffers

    def visit_Compound(self, node: c_ast.Compound) -> c_ast.Compound:
        self.shadowed.append(set())
        try:
            return self.generic_visit(node)
        finally:
            self.shadowed.pop()

    def visit_For(self, node: c_ast.For) -> c_ast.For:
        self.shadowed.append(set())  # a declaration in the loop header is scoped to the loop
        try:
            return self.generic_visit(node)
        finally:
            self.shadowed.pop()

    def visit_Decl(self, node: c_ast.Decl) -> c_ast.Decl:
        out = self.generic_visit(node)  # the initialiser still sees the outer name
        if node.name:
            self.shadowed[-1].add(node.name)
        return out

    def visit_FuncCall(self, node: c_ast.FuncCall) -> c_ast.Node:
        """A failed assert (``analysis.memcalls``) -> ``OMPCL_ASSERT_FAILED(site)``, its site
        the assertion's text and where it is (buffer -1)."""
        if not (isinstance(node.name, c_ast.ID) and node.name.name == ASSERT):
            return self.generic_visit(node)
        text, where = (_literal(e.value) for e in node.args.exprs)
        self.sites.append(Site(-1, text, where))
        return c_ast.FuncCall(c_ast.ID(ASSERT_MACRO), c_ast.ExprList(
            [c_ast.Constant("int", str(len(self.sites) - 1))]), node.coord)

    def visit_ArrayRef(self, node: c_ast.ArrayRef) -> c_ast.Node:
        base, depth = node, 0
        while isinstance(base, c_ast.ArrayRef):
            base.subscript = self.visit(base.subscript)
            base, depth = base.name, depth + 1
        if not isinstance(base, c_ast.ID) or base.name not in self.buffers or any(
                base.name in names for names in self.shadowed):
            return node
        k, cl, user, rank = self.buffers[base.name]
        if depth != rank:
            return node  # a row (an argument pointing into the buffer), not an element
        self.sites.append(Site(k, user, SourceLoc.of(node)))
        args = [c_ast.ID(cl), c_ast.Constant("int", str(k)),
                c_ast.Constant("int", str(len(self.sites) - 1)), node]
        return c_ast.FuncCall(c_ast.ID(MACRO), c_ast.ExprList(args), node.coord)


def unchecked(node: c_ast.Node) -> c_ast.Node:
    """The access a bounds-check wrapper ``OMPCL_AT(T, k, site, ref)`` holds, or ``node``
    itself when it is none."""
    if (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID)
            and node.name.name == MACRO and node.args and len(node.args.exprs) == 4):
        return node.args.exprs[3]
    return node


def bounds_checked(body: c_ast.Compound, buffers: dict[str, tuple[int, str, str, int]]
                   ) -> tuple[c_ast.Compound, tuple[Site, ...]]:
    """A copy of ``body`` with buffer accesses wrapped, and their sites in site order."""
    w = _Wrapper(buffers)
    out = w.rewrite(body)
    return out, tuple(w.sites)
