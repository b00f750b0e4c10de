"""Pruning stage: preprocessed text -> the same text without the system-header declarations
the file never names.

A preprocessed C file is mostly system headers (4,400 lines for a PolyBench kernel, of which
the user wrote 150); parsing them dominated ``ompcl cc``'s time. This stage splits the text
into top-level declarations, marks those that come from system headers (line-marker flag 3),
and keeps one only when it declares a name that the user's text, or a declaration already
kept, mentions: a backward closure over "declares" and "mentions" sets, repeated until
nothing changes (struct bodies may follow the typedefs that name them). Dropped declarations
leave their newlines and line markers, so every coordinate stays where it was.

The result is a program the analyses see the same way: every name the user's code uses
still resolves to the same declaration. The caller parses the full text if the pruned one
does not parse (a declaration this scan misjudged), so pruning can only cost time.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"""
    (?P<marker>^\#[^\n]*)                       # line marker or pragma: kept verbatim
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<punct>[{}()\[\];,=:*])
""", re.M | re.X)
_MARKER = re.compile(r'^#\s*(?:line\s+)?\d+\s+"(?P<file>(?:\\.|[^"\\])*)"(?P<flags>[\d ]*)')
_KEYWORDS = frozenset("""
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Bool _Complex _Noreturn _Static_assert _Alignas
    _Alignof _Atomic _Thread_local __restrict __inline __const __signed __volatile
""".split())
_TAGS = frozenset(("struct", "union", "enum"))
_QUALIFIERS = frozenset(("const", "restrict", "volatile", "__restrict", "__const"))
_DECLARATOR_END = frozenset("(;,=[:")


@dataclass
class _Decl:
    """One top-level declaration: its text span, where it comes from, what it names."""

    start: int
    end: int
    system: bool
    declares: set[str]
    mentions: set[str]


def prune(text: str) -> str:
    """``text`` without the system-header declarations nothing in the user's code needs."""
    decls = _split(text)
    if not any(d.system for d in decls):
        return text
    keep = [not d.system or not d.declares for d in decls]
    wanted: set[str] = set()
    for d, k in zip(decls, keep):
        if k:
            wanted |= d.mentions
    changed = True
    while changed:
        changed = False
        for i in range(len(decls) - 1, -1, -1):
            if not keep[i] and decls[i].declares & wanted:
                keep[i] = changed = True
                wanted |= decls[i].mentions
    return _blank(text, [d for d, k in zip(decls, keep) if not k])


def _blank(text: str, dropped: list[_Decl]) -> str:
    """Replace each dropped span by its newlines and line markers."""
    out: list[str] = []
    pos = 0
    for d in dropped:
        out.append(text[pos:d.start])
        out.append("\n".join(line if line.startswith("#") else ""
                             for line in text[d.start:d.end].split("\n")))
        pos = d.end
    out.append(text[pos:])
    return "".join(out)


def _split(text: str) -> list[_Decl]:
    """Top-level declarations (``;``-terminated, or function definitions ending in ``}``)."""
    decls: list[_Decl] = []
    system = False
    toks: list[tuple[str, str]] = []   # (kind, value) of the current declaration
    start = None
    braces = parens = 0
    chunk_system = False
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "marker":
            mk = _MARKER.match(m.group())
            if mk:
                system = "3" in mk["flags"].split()
            continue
        if kind == "str":
            continue
        value = m.group()
        if start is None:
            start, chunk_system, toks = m.start(), system, []
        chunk_system = chunk_system and system
        toks.append((kind, value))
        if value == "{":
            braces += 1
        elif value == "}":
            braces -= 1
        elif value == "(":
            parens += 1
        elif value == ")":
            parens -= 1
        if braces or parens:
            continue
        if value == ";" or (value == "}" and _is_function_body(toks)):
            decls.append(_decl(start, m.end(), chunk_system, toks))
            start = None
    if start is not None:
        decls.append(_decl(start, len(text), False, toks))
    return decls


def _is_function_body(toks: list[tuple[str, str]]) -> bool:
    """Does the brace group that just closed follow a parameter list (a definition)?"""
    depth = 0
    for i in range(len(toks) - 1, -1, -1):
        v = toks[i][1]
        if v == "}":
            depth += 1
        elif v == "{":
            depth -= 1
            if depth == 0:
                return i > 0 and toks[i - 1][1] == ")"
    return False


def _decl(start: int, end: int, system: bool, toks: list[tuple[str, str]]) -> _Decl:
    declares: set[str] = set()
    mentions: set[str] = set()
    braces = parens = 0
    enum_body: list[int] = []          # brace depths at which an enum body opened
    for i, (kind, v) in enumerate(toks):
        nxt = toks[i + 1][1] if i + 1 < len(toks) else ""
        if kind == "id" and v not in _KEYWORDS:
            mentions.add(v)
            if _declares(toks, i, braces, parens, nxt, enum_body):
                declares.add(v)
        if v == "{":
            braces += 1
            if _opens_enum(toks, i):
                enum_body.append(braces)
        elif v == "}":
            if enum_body and enum_body[-1] == braces:
                enum_body.pop()
            braces -= 1
        elif v == "(":
            parens += 1
        elif v == ")":
            parens -= 1
    return _Decl(start, end, system, declares, mentions - declares)


def _declares(toks, i: int, braces: int, parens: int, nxt: str, enum_body: list[int]) -> bool:
    """Is identifier ``toks[i]`` a name this declaration introduces?"""
    prev = toks[i - 1][1] if i else ""
    if prev in _TAGS:
        return nxt == "{"                          # struct tag { ... }
    if enum_body and enum_body[-1] == braces:
        return nxt in ("=", ",", "}")             # enumerator
    if braces:
        return False                               # a member, or inside a body
    if parens == 0:
        return nxt in _DECLARATOR_END              # int name(...), T name;
    return nxt in (")", "(", "[") and _after_pointer_paren(toks, i)   # (*name)(...)


def _after_pointer_paren(toks, i: int) -> bool:
    """Is ``toks[i]`` preceded by ``(`` and one or more ``*`` (and qualifiers)?"""
    stars = 0
    j = i - 1
    while j >= 0 and (toks[j][1] == "*" or toks[j][1] in _QUALIFIERS):
        stars += toks[j][1] == "*"
        j -= 1
    return stars > 0 and j >= 0 and toks[j][1] == "("


def _opens_enum(toks, i: int) -> bool:
    j = i - 1
    if j >= 0 and toks[j][0] == "id" and toks[j][1] not in _KEYWORDS:
        j -= 1
    return j >= 0 and toks[j][1] == "enum"
