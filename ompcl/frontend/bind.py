"""Bind pass: OpenMP ``Pragma`` siblings in the AST -> ``BoundDirective`` per construct.

pycparser keeps ``#pragma`` lines as statements of their own; each OpenMP construct
applies to the statement that follows it, so this pass pairs them up.
"""
from __future__ import annotations

from pycparser import c_ast

from ..diagnostics import OmpclError, PragmaSyntaxError, Remark, SourceLoc, UnknownDirective
from ..ir import BoundDirective, Directive
from .pragma import DECLARED_REDUCTION, applies_to_statement, is_omp_pragma, parse_directive
from .walk import walk


def pragma_loc(pragma: c_ast.Pragma, lines_of) -> tuple[SourceLoc, str | None]:
    """Location of the ``#`` of a pragma in the user's file, and that line's text."""
    loc = SourceLoc.of(pragma)
    line = lines_of(loc.file, loc.line)
    if line is not None and "pragma" in line:
        text, nxt = line, loc.line + 1
        while text.endswith("\\") and (more := lines_of(loc.file, nxt)) is not None:
            text, nxt = text + "\n" + more, nxt + 1  # continuation lines, kept for columns
        return SourceLoc(loc.file, loc.line, line.index("#") + 1 if "#" in line else 1), text
    return SourceLoc(loc.file, loc.line, 1), None


class _Binder(c_ast.NodeVisitor):
    def __init__(self, lines_of):
        self.lines_of = lines_of
        self.bound: list[BoundDirective] = []
        self.standalone: list[tuple[Directive, c_ast.Pragma, c_ast.FuncDef | None]] = []
        self.func: c_ast.FuncDef | None = None
        self.path: list[c_ast.Node] = []
        self.ignored: list[Remark] = []
        self.reductions: frozenset[str] = frozenset()  # of the file's 'declare reduction's

    def parse(self, pragma: c_ast.Pragma) -> Directive | None:
        """The directive, or None for an unknown one (ignored with a warning, as gcc's
        -Wunknown-pragmas does)."""
        loc, line = pragma_loc(pragma, self.lines_of)
        try:
            return parse_directive(pragma.string, loc, line, self.reductions)
        except UnknownDirective as e:
            text = " ".join(pragma.string.split()[:2])
            self.ignored.append(Remark(e.loc or loc, f"ignoring '#pragma {text}': {e.message}",
                                       "warning", "unknown-pragma"))
            return None

    def visit_FileAST(self, node: c_ast.FileAST) -> None:
        self.reductions = frozenset(
            m[1] for n in walk(node) if isinstance(n, c_ast.Pragma)
            and (m := DECLARED_REDUCTION.match(n.string or "")))
        for ext in node.ext:
            if isinstance(ext, c_ast.Pragma) and is_omp_pragma(ext.string):
                d = self.parse(ext)
                if d is not None:
                    self.standalone.append((d, ext, None))
            else:
                self.visit(ext)

    def visit_FuncDef(self, node: c_ast.FuncDef) -> None:
        self.func = node
        self.generic_visit(node)
        self.func = None

    def generic_visit(self, node: c_ast.Node) -> None:
        self.path.append(node)
        if isinstance(node, c_ast.Compound):
            self._bind_items(node.block_items or [])
        for _, child in node.children():
            self.visit(child)
        self.path.pop()

    def _construct(self, item: c_ast.Node) -> bool:
        """Whether ``item`` is a directive that applies to the next statement (a construct,
        not a standalone directive)."""
        if not (isinstance(item, c_ast.Pragma) and is_omp_pragma(item.string)):
            return False
        try:
            return applies_to_statement(parse_directive(item.string, SourceLoc.of(item),
                                                        reductions=self.reductions))
        except OmpclError:  # unknown or invalid: reported when it is bound
            return False

    def _nest(self, items: list[c_ast.Node]) -> None:
        """A construct followed by another construct applies to the second one with its
        statement, as gcc reads it (``#pragma omp parallel`` / ``#pragma omp atomic`` /
        ``k++;``): the inner directive and its statement become one compound statement,
        innermost first, so that every construct is followed by a statement."""
        k = len(items) - 2
        while k >= 0:
            if self._construct(items[k]) and self._construct(items[k + 1]) \
                    and k + 2 < len(items) and not isinstance(items[k + 2], c_ast.Pragma):
                items[k + 1:k + 3] = [c_ast.Compound(items[k + 1:k + 3],
                                                     coord=items[k + 1].coord)]
            k -= 1

    def _bind_items(self, items: list[c_ast.Node]) -> None:
        self._nest(items)
        for k, item in enumerate(items):
            if not (isinstance(item, c_ast.Pragma) and is_omp_pragma(item.string)):
                continue
            d = self.parse(item)
            if d is None:
                continue
            if not applies_to_statement(d):
                self.standalone.append((d, item, self.func))
                continue
            nxt = items[k + 1] if k + 1 < len(items) else None
            if nxt is None or isinstance(nxt, c_ast.Pragma):
                raise PragmaSyntaxError(
                    f"'#pragma omp {d.kind}' must be followed by a statement", d.loc)
            self.bound.append(BoundDirective(d, nxt, self.func, item, tuple(self.path)))


def bind_directives(ast: c_ast.FileAST, lines_of):
    """Return (bound constructs in source order, standalone directives, warnings for the
    unknown directives ignored)."""
    binder = _Binder(lines_of)
    binder.visit(ast)
    # outer blocks are bound before inner ones; report constructs in source order
    bound = sorted(binder.bound, key=lambda b: _position(b.pragma))
    return bound, binder.standalone, tuple(binder.ignored)


def _position(node: c_ast.Node) -> tuple[str, int, int]:
    loc = SourceLoc.of(node)
    return (loc.file, loc.line, loc.col)
