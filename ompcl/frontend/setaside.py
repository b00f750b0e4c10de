"""Setting aside what the parser cannot read, in a file the host compiler accepts:
preprocessed text and the place of a syntax error -> the text made readable there, lines and
line markers kept (so every later coordinate still points into the user's files).

- In a function body: GNU C (statement expressions, ``asm`` statements, ``_Generic``,
  ``typeof``, ``__auto_type``) read as stand-ins (``with_stand_ins``; a declaration's
  ``typeof`` keeps its operand for ``analysis.typeofs``); failing that, the function
  declared instead of defined (``declared_only``).
- In a file-scope declaration (``readable_declaration``): a typedef becomes an opaque struct
  of the same name (a loop using a value of it stays on the host), another declaration loses
  its initialiser (the host keeps the original text and its value), else the declaration
  goes (a loop naming it stays on the host: the name does not resolve); a function whose
  declarator is unreadable (``static typeof(x) f(void) {...}``) goes whole (a loop calling
  it stays on the host).
"""
from __future__ import annotations

import re

from ..diagnostics import SourceLoc
from .textscan import IDENT, MARKER


#: GNU C inside a function body read as stand-ins (``with_stand_ins``): each a call of a
#: function no device has (a loop holding one stays on the host, its remark naming the
#: construct; in host code an unknown call, which may touch any memory), or for ``typeof``
#: and ``__auto_type`` an opaque type (``prelude.h``: a loop using a variable of it stays on
#: the host)
STMT_EXPR, ASM, GENERIC, TYPEOF = ("__ompcl_stmt_expr()", "__ompcl_asm()", "__ompcl_generic()",
                                   "__ompcl_typeof_t")
_GNU = re.compile(r"\b(?:(?P<typeof>typeof|__typeof__|__typeof)\s*\(|(?P<auto>__auto_type)\b|"
                  r"(?P<asm>asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__|goto|inline)\b)*"
                  r"\s*\(|(?P<generic>_Generic)\s*\()")


def with_stand_ins(text: str, loc: SourceLoc) -> str | None:
    """``text`` with GNU C the parser cannot read in the body of the function holding ``loc``
    replaced by stand-ins (``STMT_EXPR``, ``ASM``, ``GENERIC``, ``TYPEOF``), lines and line
    markers kept; None when the body has none or ``loc`` is in no function body."""
    found = _function_body(text, loc)
    if found is None:
        return None
    start, end = found
    body = text[start:end + 1]
    new = _stood_in(_case_ranges(body))
    return None if new == body else text[:start] + new + text[end + 1:]


#: GNU's case range (``case 'a' ... 'z':``), its ends without colons or semicolons
_CASE_RANGE = re.compile(r"\bcase\s+(?P<lo>[^:;?\n]+?)\s*\.\.\.\s*(?P<hi>[^:;?\n]+?)\s*:")
_MAX_LABELS = 256


def _case_ranges(body: str) -> str:
    """``body`` with GNU's case ranges written as the labels they stand for (``case 0:case
    1:...``, on the range's line), where both ends are integer or character constants and
    the range holds 1 to 256 values; others as they are (the function then falls back)."""
    code = {k for k, _, _ in _code(body)}
    out, done = [], 0
    for m in _CASE_RANGE.finditer(body):
        lo, hi = _constant(m["lo"]), _constant(m["hi"])
        if m.start() in code and lo is not None and hi is not None and \
                0 <= hi - lo < _MAX_LABELS:
            out += [body[done:m.start()], "".join(f"case {v}:" for v in range(lo, hi + 1))]
            done = m.end()
    return "".join(out) + body[done:]


_CHAR = re.compile(r"^'(\\(?:[0-7]{1,3}|x[0-9a-fA-F]{1,2}|[abfnrtv\\'\"?])|[^\\'])'$")
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}


def _constant(text: str) -> int | None:
    """The value of an integer constant (``-3``, ``0x1F``, ``10u``) or a character constant
    of the basic set (``'a'``, ``'\\n'``), else None."""
    t = text.strip()
    while t.startswith("(") and t.endswith(")"):
        t = t[1:-1].strip()
    sign = -1 if t.startswith("-") else 1
    t = t.lstrip("+-").strip()
    if (m := _CHAR.match(t)) is not None:
        c = m[1]
        v = ord(c) if len(c) == 1 else _ESCAPES.get(c[1], None)
        if v is None:
            v = int(c[2:], 16) if c[1] == "x" else int(c[1:], 8) if c[1].isdigit() else ord(c[1])
        return sign * v if v < 128 else None
    t = t.rstrip("uUlL")
    try:
        return sign * int(t, 0) if not (len(t) > 1 and t[0] == "0" and t[1].isdigit()) \
            else sign * int(t, 8)
    except ValueError:
        return None


def _function_body(text: str, loc: SourceLoc) -> tuple[int, int] | None:
    """(offset of '{', offset of '}') of the top-level function body holding ``loc``; None
    when ``loc`` is elsewhere (a struct's or an initialiser's braces, K&R parameters)."""
    at = _offset_of(text, loc)
    if at is None:
        return None
    for start, end, before in _top_level_braces(text):
        if start <= at <= end:
            return (start, end) if before == ")" else None
    return None


def _stood_in(body: str, statements: bool = True) -> str:
    """``body`` with its ``asm`` statements, ``_Generic`` selections, ``typeof(...)`` and
    ``__auto_type`` replaced by their stand-ins; where it has none (and ``statements``), its
    outermost statement expressions."""
    events = list(_code(body))
    code = {k for k, _, _ in events}
    closing, opened = {}, []
    for k, c, _ in events:
        if c in "([{":
            opened.append(k)
        elif c in ")]}" and opened:
            closing[opened.pop()] = k
    spans = []
    for m in _GNU.finditer(body):
        if m.start() not in code:
            continue  # in a string
        if m["auto"]:
            spans.append((m.start(), m.end(), _typed(body, m.start(), AUTO_TYPE)))
        elif m.end() - 1 in closing:
            end = closing[m.end() - 1]
            stand = _typed(body, m.start(), body[m.end():end]) if m["typeof"] else \
                ASM if m["asm"] else GENERIC
            spans.append((m.start(), end + 1, stand))
    # statement expressions only once nothing else is left: the parser reads them as
    # statements and assigned values, and then they are analysed as written
    for (k, c, _), (k2, c2, _) in zip(events, events[1:]) if not spans and statements \
            else ():
        if c == "(" and c2 == "{" and k in closing and k2 in closing and \
                not body[closing[k2] + 1:closing[k]].strip():
            spans.append((k, closing[k] + 1, STMT_EXPR))
    out, done = [], 0
    for a, b, stand in sorted(spans):
        if a >= done:  # the outermost of nested ones
            out += [body[done:a], stand, _blanked(body[a:b])]
            done = b
    return "".join(out) + body[done:]


#: the operand of ``__auto_type`` (``_typed``): the initialiser's type; and the call that
#: holds an operand in parentheses (a statement expression)
AUTO_TYPE, TYPEOF_CALL = "__ompcl_auto_type", "__ompcl_typeof"
#: words that may come between a declaration's start and its type
_SPECIFIERS = re.compile(r"(?:\b(?:const|volatile|static|register|auto|extern|restrict)\s*)*$")


def _typed(body: str, at: int, operand: str) -> str:
    """The stand-in of ``typeof(operand)`` (``AUTO_TYPE``: ``__auto_type``) at offset ``at``:
    at the start of a declaration, the opaque type with the operand kept as the alignment
    of the declaration (``_Alignas(operand) __ompcl_typeof_t x``, ``TYPEOF_CALL`` around an
    operand in parentheses: an attribute the parser reads and leaves out of the tree's
    children, whose type ``analysis.typeofs`` works out and declares ``x`` with); elsewhere
    (a cast, ``sizeof``) or when the operand spans lines or holds a comma, the opaque type
    alone."""
    before = _SPECIFIERS.sub("", body[max(0, at - 200):at].rstrip()).rstrip()
    if "\n" in operand or not (before[-1:] in ("", ";", "{", "}") or
                                re.search(r"\bfor\s*\($", before)):
        return TYPEOF
    inner = _stood_in(operand, statements=False)
    if any(c == "," and not d for _, c, d in _code(inner)):
        return TYPEOF  # typeof(a, b): an alignment takes no comma expression
    if inner.lstrip().startswith("("):  # ({ ... }) parses only as an argument or operand
        inner = f"{TYPEOF_CALL}({inner})"
    return f"_Alignas({inner}) {TYPEOF}"


def declared_only(text: str, loc: SourceLoc) -> tuple[str, str, int] | None:
    """``text`` with the body of the top-level function holding ``loc`` (a place in the
    user's files, through the line markers) replaced by ``;``, lines and markers kept, the
    function's name and the OpenMP directives the body held; None when ``loc`` is in no
    function body."""
    found = _function_body(text, loc)
    if found is None:
        return None
    start, end = found
    body = text[start:end + 1]
    names = _CALLED.findall(text, max(0, start - 2000), start)
    # its line markers stay (a macro from a system header leaves some inside a body): the
    # lines after it keep their numbers
    return (text[:start] + ";" + _blanked(body) + text[end + 1:],
            names[-1] if names else "?", len(_OMP.findall(body)))


_CALLED = re.compile(r"([A-Za-z_]\w*)\s*\(")
_OMP = re.compile(r"^\s*#\s*pragma\s+omp\b", re.M)


def _offset_of(text: str, loc: SourceLoc) -> int | None:
    """The offset in preprocessed ``text`` of the line ``loc`` names."""
    file, line, offset = None, 0, 0
    for raw in text.splitlines(keepends=True):
        m = MARKER.match(raw)
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
    start, before, last = 0, "", ""
    for k, c, depth in _code(text):
        if c == "{" and depth == 0:
            start, before = k, last
        elif c == "}" and depth == 0:
            yield start, k, before
        last = c


def _code(text: str):
    """(offset, character, nesting depth) of each non-space character outside strings,
    characters and marker lines: the depth of braces, brackets and parentheses around it
    (an opening one's outside it, a closing one's after it)."""
    depth, k, n = 0, 0, len(text)
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
        elif c in "([{":
            yield k, c, depth
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
            yield k, c, depth
        elif not c.isspace():
            yield k, c, depth
        k += 1


def _blanked(segment: str) -> str:
    """``segment`` with everything but its newlines and whole line markers removed."""
    return "\n".join(p if MARKER.match(p) else "" for p in segment.split("\n"))


def _file_scope(text: str):
    """(offset, character, depth) of each '(' '[' '{' ')' ']' '}' ';' '=' outside strings,
    characters and marker lines, with the nesting depth before it."""
    return ((k, c, d) for k, c, d in _code(text) if c in "([{)]};=")


def _declared_name(decl: str) -> str | None:
    """The name a declaration's text declares: its last identifier outside brackets and
    parentheses, before any initialiser (None for a declarator in parentheses)."""
    depth, last = 0, None
    for m in re.finditer(IDENT.pattern + r"|[()\[\]{}=]", decl):
        tok = m[0]
        if tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth -= 1
        elif tok == "=" and depth == 0:
            break
        elif depth == 0:
            last = tok
    return last


def readable_declaration(text: str, loc: SourceLoc) -> tuple[str, str] | None:
    """``text`` with the file-scope declaration holding ``loc`` made readable (see the
    module's docstring) and the name it declares; None where ``loc`` is not in one."""
    at = _offset_of(text, loc)
    if at is None:
        return None
    start, eq, end, brace, definition = 0, None, None, None, False
    for k, c, depth in _file_scope(text):
        if depth:
            continue
        if k < at and (c == ";" or c == "}"):
            start, eq = k + 1, None
        elif c == "=" and eq is None and k >= start:
            eq = k
        elif c == "{" and k >= at and brace is None:
            brace = k
        elif c == "}" and brace is not None:  # a function whose declarator is unreadable
            end, definition = k + 1, text[:brace].rstrip().endswith(")")
            if definition:
                break
        elif c == ";" and k >= at:
            end = k
            break
    if end is None:
        return None
    decl = text[start:end]
    plain = " ".join(p for p in decl.split("\n") if not MARKER.match(p))
    words = IDENT.findall(plain)
    name = _declared_name(plain[:plain.find("{")] if definition else plain)
    if not words or name is None:
        return None
    if definition:  # the whole definition goes: calls of it are calls of an unseen function
        new = _blanked(decl)
    elif words[0] == "typedef" or "typedef" in words[:3]:
        new = _blanked(decl) + f" typedef struct __ompcl_unreadable_{name} {name}"
    elif eq is not None and at > eq:
        new = text[start:eq] + _blanked(text[eq:end])
    else:
        new = _blanked(decl)
    return text[:start] + new + text[end:], name
