"""Parsing stage: preprocessed text -> pycparser ``FileAST``, syntax errors as diagnostics.

``parse_pruned`` parses what ``prune`` leaves of the system headers (the front end's default).
"""
from __future__ import annotations

import re
from collections.abc import Callable

from pycparser import c_ast, c_parser

from ..diagnostics import CSyntaxError, Remark, SourceLoc
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
    """``parse_noted``'s tree."""
    return parse_noted(text, path)[0]


def parse_noted(text: str, path: str, set_aside: Callable[[], bool] = lambda: False
                ) -> tuple[c_ast.FileAST, list[Remark]]:
    """Parse ``text`` without the system declarations it never names; the whole text when
    the pruned one does not parse (the pruning misjudged a declaration), so a syntax error
    is always reported as the full file has it. Old-style C gcc accepts (implicit ``int``,
    K&R definitions) is read as the prototyped C it means; functions the parser cannot read
    are declared instead (``_without_unreadable_functions``, when ``set_aside()`` says so:
    for a file the host compiler accepts, asked only once nothing else reads it), a remark
    each."""
    notes: list[Remark] = []
    return _parse_pruned(text, path, notes, set_aside), notes


def _parse_pruned(text: str, path: str, notes: list[Remark], set_aside: Callable[[], bool]
                  ) -> c_ast.FileAST:
    pruned = prune(text)
    if pruned is not text:
        try:
            return prototyped(parse(pruned, path))
        except CSyntaxError:
            pass
    try:
        return prototyped(parse(text, path))
    except CSyntaxError as e:
        first = e
    for fix in (add_implicit_int, _imaginary, lambda t: _imaginary(add_implicit_int(t))):
        modern = fix(text)
        if modern != text:
            try:
                return prototyped(parse(modern, path))
            except CSyntaxError:
                pass
    if not set_aside():
        raise first
    return _without_unreadable_functions(_imaginary(add_implicit_int(text)), path, first,
                                         notes)


#: functions whose bodies may be set aside before a file counts as unreadable
MAX_SET_ASIDE = 16


def _without_unreadable_functions(text: str, path: str, first: CSyntaxError,
                                  notes: list[Remark]) -> c_ast.FileAST:
    """The file read with each function whose body the parser rejects (GNU C it does not
    know: ``typeof``, a statement expression as an operand) declared instead of defined:
    its loops stay on OpenMP and a call of it is a call of a function ompcl cannot see
    (not instrumented: the runtime brings host copies up to date before it), while the
    file's other functions are considered. ``first`` when the error is outside a function."""
    error, found = first, []
    for _ in range(MAX_SET_ASIDE):
        aside = _declared_only(text, error.loc)
        if aside is None:
            break
        text, name, directives = aside
        if directives:  # (a call of it, in a loop, says the function is not seen)
            found.append(Remark(error.loc, f"loop not offloaded: ompcl cannot parse function "
                                f"'{name}' ({error.message}): it is left as written, with "
                                f"its {directives} OpenMP directive(s)", "remark",
                                "function-fallback"))
        try:
            ast = prototyped(parse(text, path))
        except CSyntaxError as e:
            error = e
            continue
        notes.extend(found)
        return ast
    raise first


def _declared_only(text: str, loc: SourceLoc) -> tuple[str, str, int] | None:
    """``text`` with the body of the top-level function holding ``loc`` (a place in the
    user's files, through the line markers) replaced by ``;``, lines and markers kept, the
    function's name and the OpenMP directives the body held; None when ``loc`` is in no
    function body."""
    at = _offset_of(text, loc)
    if at is None:
        return None
    for start, end, before in _top_level_braces(text):
        if start <= at <= end:
            if before != ")":
                return None  # a struct's or an initialiser's braces, or K&R parameters
            body = text[start:end + 1]
            names = _CALLED.findall(text, max(0, start - 2000), start)
            # its line markers stay (a macro from a system header leaves some inside a
            # body): the lines after it keep their numbers
            kept = "".join("\n" + (seg if _MARKER.match(seg) else "")
                           for seg in body.split("\n")[1:])
            return (text[:start] + ";" + kept + text[end + 1:],
                    names[-1] if names else "?", len(_OMP.findall(body)))
    return None


_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")
_OMP = re.compile(r"^\s*#\s*pragma\s+omp\b", re.M)


_MARKER = re.compile(r'^#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"')


def _offset_of(text: str, loc: SourceLoc) -> int | None:
    """The offset in preprocessed ``text`` of the line ``loc`` names."""
    file, line, offset = None, 0, 0
    for raw in text.splitlines(keepends=True):
        m = _MARKER.match(raw)
        if m:
            file, line = m[2], int(m[1])
        else:
            if file == loc.file and line == loc.line and raw.strip():  # (a marker may
                return offset + max(0, min(loc.col - 1, len(raw) - 1))  # repeat a blank line)
            line += 1
        offset += len(raw)
    return None


def _top_level_braces(text: str):
    """(offset of '{', offset of its '}', the last other character before '{') of each brace
    pair at file scope; strings, characters and line markers skipped."""
    depth, k, n, start, before, last = 0, 0, len(text), 0, "", ""
    while k < n:
        c = text[k]
        if c in "\"'":
            k += 1
            while k < n and text[k] != c:
                k += 2 if text[k] == "\\" else 1
        elif c == "#" and (k == 0 or text[k - 1] == "\n"):
            k = text.find("\n", k)
            k = n if k < 0 else k
            continue
        elif c == "{":
            if depth == 0:
                start, before = k, last
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                yield start, k, before
        if not c.isspace():
            last = c
        k += 1


#: GNU imaginary constants (``1.0iF``: complex.h's ``I``), which pycparser cannot read
_IMAGINARY = re.compile(r"(?<![\w.])((?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
                        r"(?:[fFlL]?[iIjJ]|[iIjJ][fFlL]?)(?![\w.])")


def _imaginary(text: str) -> str:
    """``text`` with each imaginary constant as a call of an undeclared function (a loop
    using one stays on the host: no device function of that name), so the rest of the file
    is read."""
    return _IMAGINARY.sub(r"__ompcl_imaginary(\1)", text)


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
