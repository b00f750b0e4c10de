"""Front-end driver: a path -> ``Program``, the unit every later stage consumes."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from pycparser import c_ast

from ..diagnostics import OmpclError
from ..ir import BoundDirective, Directive
from .bind import bind_directives
from .columns import source_columns
from .includes import inline_includes
from .parse import parse_noted
from .preprocess import (CppOptions, compiler_divergence, host_compiler_accepts, preprocess,
                         read_source)
from .sourcemap import SourceMap, marker_name
from .textscan import Scanner, inactive_lines


@dataclass
class Program:
    """One translation unit: AST of the preprocessed file, its OpenMP constructs, its text."""

    path: str
    source: str
    ast: c_ast.FileAST
    constructs: list[BoundDirective]
    standalone: list[tuple[Directive, c_ast.Pragma, c_ast.FuncDef | None]]
    preprocessed: str = field(repr=False, default="")
    #: warnings of the binding: unknown directives ignored
    warnings: tuple = ()
    _inactive: frozenset[int] | None = field(default=None, repr=False, compare=False)
    #: (file, line) of the user's code that the host compiler reads otherwise (``__GNUC__``)
    diverging: frozenset = frozenset()
    #: the includes inlined into ``source`` (``includes``): the tree's coordinates are lines
    #: of ``source``, which this maps back to the user's files; None when there are none
    source_map: SourceMap | None = None
    #: included files with OpenMP loops left as includes (their loops stay on the host):
    #: the name line markers give each -> why
    not_inlined: dict[str, str] = field(default_factory=dict)

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    @property
    def inactive(self) -> frozenset[int]:
        """Lines of the source in conditional branches the preprocessor skipped."""
        if self._inactive is None:
            self._inactive = inactive_lines(self.source, self.preprocessed, self.path)
        return self._inactive

    def scanner(self) -> Scanner:
        """A scanner of the source that skips the branches the preprocessor skipped, so
        that braces are matched as the compiler matches them."""
        return Scanner(self.source, self.inactive)

    def threadprivate(self) -> set[str]:
        """Variables each thread has its own copy of: named in ``threadprivate`` directives,
        or declared ``_Thread_local`` (``__thread``) at file scope."""
        return {a for d, _, _ in self.standalone if d.kind == "threadprivate"
                for c in d.clauses for a in c.args} | {
            e.name for e in self.ast.ext if isinstance(e, c_ast.Decl) and e.name
            and "_Thread_local" in (e.storage or [])}


def _line_reader(main_path: str, main_source: str):
    main_lines = main_source.splitlines()

    @lru_cache(maxsize=64)
    def lines_for(file: str) -> tuple[str, ...] | None:
        if file == main_path:
            return tuple(main_lines)
        p = Path(file)
        try:
            return tuple(p.read_text(errors="replace").splitlines()) if p.is_file() else None
        except OSError:
            return None

    def line(file: str, lineno: int) -> str | None:
        lines = lines_for(file)
        if lines is None or not 1 <= lineno <= len(lines):
            return None
        return lines[lineno - 1]

    return line


def rebuilt(prog: Program, source: str, ast: c_ast.FileAST, preprocessed: str) -> Program:
    """The program with a rewritten text and tree (same file), its directives bound anew
    (the tree's coordinates stay those of the original text)."""
    constructs, standalone, warnings = bind_directives(ast, _line_reader(prog.path, source))
    return Program(prog.path, source, ast, constructs, standalone, preprocessed, warnings,
                   diverging=prog.diverging, source_map=prog.source_map,
                   not_inlined=prog.not_inlined)


def load_program(path: str, opts: CppOptions | None = None) -> Program:
    """Preprocess, parse and bind the OpenMP directives of one C file, with the included
    user sources that hold OpenMP loops inlined (``includes``)."""
    opts = CppOptions() if opts is None else opts
    source = read_source(path)
    text = preprocess(path, opts)
    diverging = compiler_divergence(path, opts, text)
    inlined, refused = inline_includes(path, source, text, opts)
    if inlined is None:
        return replace(_program(path, source, text, opts, diverging), not_inlined=refused)
    source, smap, text = inlined
    try:
        prog = _program(path, source, text, opts, _moved(diverging, smap), smap)
    except OmpclError as e:
        raise smap.error(e) from None
    return replace(prog, not_inlined=refused)


def _program(path: str, source: str, text: str, opts: CppOptions, diverging: frozenset,
             smap: SourceMap | None = None) -> Program:
    ast, notes = parse_noted(text, path, lambda: host_compiler_accepts(path, opts))
    source_columns(ast, text, path, source)
    constructs, standalone, warnings = bind_directives(ast, _line_reader(path, source))
    return Program(path, source, ast, constructs, standalone, text,
                   tuple(notes) + tuple(warnings), diverging=diverging, source_map=smap)


def _moved(lines: frozenset, smap: SourceMap) -> frozenset:
    """(file, line) pairs of the user's files (as line markers spell them) as the combined
    text's, where it has them."""
    out = set()
    for file, line in lines:
        at = smap.combined(file, line)
        out.add((file, line) if at is None else (marker_name(smap.path), at))
    return frozenset(out)
