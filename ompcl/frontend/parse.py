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
from .setaside import declared_only, readable_declaration, with_stand_ins

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

    def _parse_primary_expression(self):  # noqa: ANN202 - pycparser's signature
        # a GNU statement expression wherever an operand may be (``MAX(a, b) + 1``), not
        # only as a whole assignment expression, where pycparser reads one
        if self._peek_type() == "LPAREN" and self._peek_type(2) == "LBRACE":
            self._advance()
            block = self._parse_compound_statement()
            self._expect("RPAREN")
            return block
        return super()._parse_primary_expression()

    def _parse_assignment_expression(self):  # noqa: ANN202 - pycparser's signature
        # pycparser's own, without its reading of a leading statement expression as the
        # whole expression: the operand rule above reads it, operators may follow it
        expr = self._parse_conditional_expression()
        if self._is_assignment_op():
            op = self._advance().value
            return c_ast.Assignment(op, expr, self._parse_assignment_expression(), expr.coord)
        return expr


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
    """The file read with the GNU C the parser rejects in a function body as stand-ins
    (``setaside.with_stand_ins``: its loops that use them stay on OpenMP), and each function
    whose body the parser still rejects declared instead of defined:
    its loops stay on OpenMP and a call of it is a call of a function ompcl cannot see
    (not instrumented: the runtime brings host copies up to date before it), while the
    file's other functions are considered; likewise each file-scope declaration it rejects
    (``typeof``, range designators) made readable (``setaside``). ``first`` when nothing
    helps."""
    error, found = first, []
    for _ in range(MAX_SET_ASIDE):
        aside = with_stand_ins(text, error.loc)
        if aside is not None:
            text = aside
        elif (aside := declared_only(text, error.loc)) is not None:
            text, name, directives = aside
            if directives:  # (a call of it, in a loop, says the function is not seen)
                found.append(Remark(error.loc, f"loop not offloaded: ompcl cannot parse "
                                    f"function '{name}' ({error.message}): it is left as "
                                    f"written, with its {directives} OpenMP directive(s)",
                                    "remark", "function-fallback"))
        else:
            aside = readable_declaration(text, error.loc)
            if aside is None:
                break
            text, name = aside
            found.append(Remark(error.loc, f"ompcl cannot parse the declaration of '{name}' "
                                f"({error.message}): it is read without its initialiser or "
                                "as an opaque type, or not at all; loops that use it stay on "
                                "OpenMP", "warning", "declaration-fallback"))
        try:
            ast = prototyped(parse(text, path))
        except CSyntaxError as e:
            error = e
            continue
        notes.extend(found)
        return ast
    raise first


#: GNU imaginary constants (``1.0iF``: complex.h's ``I``), which pycparser cannot read
_IMAGINARY = re.compile(r"(?<![\w.])((?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?)"
                        r"(?:[fFlL]?[iIjJ]|[iIjJ][fFlL]?)(?![\w.])")


#: GNU's conditional with the middle operand left out (``x ?: y``)
_ELVIS = re.compile(r"\?(\s*):")


def _imaginary(text: str) -> str:
    """``text`` with each imaginary constant as a call of an undeclared function, and the
    missing middle operand of each ``x ?: y`` as another (a loop using one stays on the host:
    no device function of that name), so the rest of the function and the file is read."""
    return _ELVIS.sub(r"? __ompcl_elvis()\1:", _IMAGINARY.sub(r"__ompcl_imaginary(\1)", text))


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
