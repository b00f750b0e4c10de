"""Parsing stage: preprocessed text -> pycparser ``FileAST``, syntax errors as diagnostics.

``parse_pruned`` parses what ``prune`` leaves of the system headers (the front end's default).
"""
from __future__ import annotations

import re

from pycparser import c_ast, c_parser

from ..diagnostics import CSyntaxError, SourceLoc
from .oldstyle import add_implicit_int, prototyped
from .prune import prune

_POS = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?:\s*(?P<msg>.*)$", re.S)


class _Parser(c_parser.CParser):
    """pycparser's parser, with every syntax error placed at the offending token."""

    def _parse_error(self, msg, coord):  # noqa: ANN001 - pycparser's signature
        if isinstance(coord, str) or coord is None:
            tok = self._peek()
            coord = self._tok_coord(tok) if tok is not None else coord
            if tok is not None:
                msg = f"{msg} near '{tok.value}'"
        raise c_parser.ParseError(f"{coord}: {msg}")


def parse(text: str, path: str) -> c_ast.FileAST:
    """Parse preprocessed C; coordinates follow the line markers into the user's files."""
    try:
        return _Parser().parse(text, path)
    except c_parser.ParseError as e:
        raise _syntax_error(str(e), path) from None


def parse_pruned(text: str, path: str) -> c_ast.FileAST:
    """Parse ``text`` without the system declarations it never names; the whole text when
    the pruned one does not parse (the pruning misjudged a declaration), so a syntax error
    is always reported as the full file has it. Old-style C gcc accepts (implicit ``int``,
    K&R definitions) is read as the prototyped C it means."""
    pruned = prune(text)
    if pruned is not text:
        try:
            return prototyped(parse(pruned, path))
        except CSyntaxError:
            pass
    try:
        return prototyped(parse(text, path))
    except CSyntaxError as e:
        modern = add_implicit_int(text)
        if modern == text:
            raise
        try:
            return prototyped(parse(modern, path))
        except CSyntaxError:
            raise e from None


def _syntax_error(msg: str, path: str) -> CSyntaxError:
    m = _POS.match(msg)
    if not m:
        file, _, rest = msg.partition(": ")
        return CSyntaxError(f"syntax error: {rest or msg}", SourceLoc(file or path, 1, 1))
    text = m["msg"]
    if text.startswith("before:"):
        text = f"syntax error before '{text[7:].strip()}'"
    else:
        text = f"syntax error: {text}"
    return CSyntaxError(text, SourceLoc(m["file"], int(m["line"]), int(m["col"] or 1)))
