"""The program's other sources: a function called from an offloaded loop but defined in another
file of the same program is looked up there, so per-file builds (``ompcl cc``) still offload
NPB-style code whose helpers live in their own files.

Consumes the main file's path and preprocessor options; produces, on request, the definition of
a function from a sibling ``.c`` file (same directory, or the files named by
``OMPCL_SOURCES``), with that file's AST for its types and globals. Files are read only when
their text mentions the function, parsed once per process.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from ..diagnostics import OmpclError
from .parse import parse_pruned
from .preprocess import CppOptions, preprocess
from .siblings import ask, call_pattern, candidate_sources, note_read, text_of
from .textscan import CONDITIONAL
from .walk import walk


@dataclass(frozen=True)
class ExternalFunction:
    """A function definition found in another source file of the program."""

    name: str
    fdef: c_ast.FuncDef
    ast: c_ast.FileAST
    path: str


#: sibling files parsed in this process (``ompcl cc`` translates a command's sources in one
#: process, and NPB-style files call the same helpers): (path, options, size, mtime) -> AST
_FILES: dict[tuple, c_ast.FileAST | None] = {}


def _parsed_file(path: str, cpp: CppOptions) -> c_ast.FileAST | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    key = (path, repr(cpp), st.st_size, st.st_mtime_ns)
    if key not in _FILES:
        try:
            _FILES[key] = parse_pruned(preprocess(path, cpp), path)
        except OmpclError:
            _FILES[key] = None  # a file ompcl cannot read defines nothing for it
    return _FILES[key]


@dataclass
class SourceLibrary:
    """Lazily parsed sibling sources of one translation unit."""

    main: str
    cpp: CppOptions = field(default_factory=CppOptions)
    sources: tuple[str, ...] = ()  # the other sources of the same compiler command
    _parsed: dict[str, c_ast.FileAST | None] = field(default_factory=dict)
    #: why a definition found in other files is not used (``find``), by function name
    refused: dict[str, str] = field(default_factory=dict)

    def candidates(self) -> list[Path]:
        """The other source files of the program, in a stable order (``siblings``)."""
        return candidate_sources(self.main, tuple(self.cpp.include_dirs), self.sources)

    def _ast(self, path: Path) -> c_ast.FileAST | None:
        key = str(path)
        if key not in self._parsed:
            self._parsed[key] = _parsed_file(key, self.cpp)
        return self._parsed[key]

    def find(self, name: str) -> ExternalFunction | None:
        """The definition of ``name`` in another source of the program, or None: the one
        external definition among the command's other sources, else among the other
        candidates. None where it is not certain to be the one the program links: several
        files define it (an alternative implementation, not built), or, outside the command
        (compiled with the same flags as this file), its text stands in preprocessor
        conditionals (that file may be compiled with other macros than this one). A
        ``static`` function of another file is never this file's."""
        files = self.candidates()
        if not ask("mentions-call", files, name):
            return None
        note_read()   # a definition may be there: what it is depends on all the files
        pattern = call_pattern(name)
        found = []
        for path in files:
            text = text_of(path)
            if text is None or not pattern.search(text):
                continue
            ast = self._ast(path)
            found += [ExternalFunction(name, ext, ast, str(path))
                      for ext in (ast.ext if ast is not None else ())
                      if isinstance(ext, c_ast.FuncDef) and ext.decl.name == name
                      and "static" not in (ext.decl.storage or [])]
        found = list({os.path.realpath(f.path): f for f in found}.values())
        given = {os.path.realpath(x) for x in self.sources}
        mine = [f for f in found if os.path.realpath(f.path) in given]
        chosen = mine if mine else found
        if len(chosen) > 1:
            self.refused[name] = "defined in several files: " + ", ".join(
                sorted(Path(f.path).name for f in chosen))
        elif chosen and not mine and _conditional(chosen[0]):
            self.refused[name] = (f"defined in {Path(chosen[0].path).name} under preprocessor "
                                  "conditionals (that file may be built with other macros)")
        else:
            return chosen[0] if chosen else None
        return None


def _conditional(f: ExternalFunction) -> bool:
    """Whether the definition's lines, or an ``#if`` around them, are preprocessor
    conditionals of its file."""
    lines = [n.coord.line for n in walk(f.fdef) if getattr(n, "coord", None) is not None
             and n.coord.file == f.fdef.coord.file]
    text = text_of(Path(f.fdef.coord.file)) if lines else None
    if text is None:
        return True
    first, last, depth = min(lines), max(lines), 0
    for k, line in enumerate(text.splitlines(), 1):
        m = CONDITIONAL.match(line)
        if k > last:
            break
        if m and k >= first:
            return True
        if m:
            depth += {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}.get(m.group(1), 0)
    return depth > 0
