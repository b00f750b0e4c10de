"""Pruning stage: preprocessed text -> the same text without the system-header declarations
the file never names.

A preprocessed C file is mostly system headers (4,400 lines for a PolyBench kernel, of which
the user wrote 150); parsing them dominated ``ompcl cc``'s time. This stage splits the text
into top-level declarations, marks those that come from system headers (line-marker flag 3),
and keeps one only when it declares a name that the user's text, or a declaration already
kept, mentions: a backward closure over "declares" and "mentions" sets, repeated until
nothing changes (struct bodies may follow the typedefs that name them). What is left goes to
the parser compacted: each run of blank lines and line markers (dropped declarations leave
thousands: 4,300 of a PolyBench kernel's 4,400 lines) becomes one line marker naming the next
line's file and number, so every coordinate stays where it was and the lexer skips ~40% of
the parse's time.

The result is a program the analyses see the same way: every name the user's code uses
still resolves to the same declaration. The caller parses the full text if the pruned one
does not parse (a declaration this scan misjudged), so pruning can only cost time.

The split of each system header a user's file includes (the bulk of the text, and the same
in every file of a project that includes the same headers in the same order) is kept in the
cache directory (``cc-prune``, keyed by that header text's digest) and reused by the next file.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import re
import tempfile
from dataclasses import dataclass

_TOKEN = re.compile(r"""
    (?P<marker>^\#[^\n]*)                       # line marker or pragma: kept verbatim
  | (?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
  | (?P<id>[A-Za-z_]\w*)
  | (?P<punct>[{}()\[\];,=:*])
""", re.M | re.X)
_MARKER = re.compile(
    r'^#\s*(?:line\s+)?(?P<number>\d+)\s+"(?P<file>(?:\\.|[^"\\])*)"(?P<flags>[\d ]*)')
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
    return compact(_blank(text, [d for d, k in zip(decls, keep) if not k]))


def compact(text: str) -> str:
    """``text`` with each run of blank lines and line markers before a line replaced by one
    marker giving that line's file and number (none where the line follows on); directives
    other than line markers (``#pragma``) are lines like any other. A parse of the result
    places every node where a parse of ``text`` does."""
    out: list[str] = []
    file, line = "", 0          # where the next line of text is
    at = ("", -1)               # where the next line of out is
    for ln in text.split("\n"):
        head = ln.lstrip()
        if not head:
            line += 1
            continue
        if head.startswith("#"):
            m = _MARKER.match(head)
            if m:
                file, line = m["file"], int(m["number"])
                continue
        if at != (file, line):
            out.append(f'# {line} "{file}"')
        out.append(ln)
        line += 1
        at = (file, line)
    return "\n".join(out) + "\n"


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
    """Top-level declarations (``;``-terminated, or function definitions ending in ``}``);
    those of each system header a user's file includes from the cache when another file
    included the same text."""
    decls: list[_Decl] = []
    pos = 0
    for a, b in _system_blocks(text):
        part, open_ = _scan(text, pos, a)
        block = None if open_ else _block(text, a, b)
        if block is None:   # a declaration open across the #include: no shortcut
            return _scan(text, 0, len(text))[0]
        decls += part
        decls += block
        pos = b
    return decls + _scan(text, pos, len(text))[0]


def _scan(text: str, pos: int, endpos: int) -> tuple[list[_Decl], bool]:
    """The declarations in ``text[pos:endpos]``, and whether the last one was still open at
    ``endpos`` (it is then included, ending there)."""
    decls: list[_Decl] = []
    system = False
    toks: list[tuple[str, str]] = []   # (kind, value) of the current declaration
    start = None
    braces = parens = 0
    chunk_system = False
    for m in _TOKEN.finditer(text, pos, endpos):
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
        decls.append(_decl(start, endpos, False, toks))
    return decls, start is not None


# -- system headers, split once --------------------------------------------------------------
#: a system header's text shorter than this is scanned (a lookup costs about as much)
_BLOCK_MIN = 8_000
_MARKER_LINE = re.compile(r'^#\s*(?:line\s+)?\d+\s+"(?:\\.|[^"\\])*"(?P<flags>[\d ]*)[^\n]*$',
                          re.M)
_blocks: dict[str, list[tuple]] = {}


def _system_blocks(text: str) -> list[tuple[int, int]]:
    """The spans of system-header text a user's file includes: from the line marker that
    enters a system header from a user's file to the next marker that leaves system headers."""
    spans, start = [], None
    for m in _MARKER_LINE.finditer(text):
        flags = m["flags"].split()
        if start is None and "1" in flags and "3" in flags:
            start = m.start()
        elif start is not None and "3" not in flags:
            if m.start() - start >= _BLOCK_MIN:
                spans.append((start, m.start()))
            start = None
    return spans


def _block(text: str, a: int, b: int) -> list[_Decl] | None:
    """The declarations of ``text[a:b]``: from memory or the cache directory when a file
    that included the same text was split before; None when the text ends inside one."""
    key = hashlib.sha256(text[a:b].encode("utf-8", "surrogateescape")).hexdigest()
    rows = _blocks.get(key)
    path = None
    if rows is None:
        path = _block_file(key)
        rows = _load_block(path) if path else None
    if rows is None:
        decls, open_ = _scan(text, a, b)
        if open_:
            return None
        rows = [(d.start - a, d.end - a, d.system, tuple(d.declares), tuple(d.mentions))
                for d in decls]
        if path:
            _store_block(path, rows)
    _blocks[key] = rows
    return [_Decl(s + a, e + a, sy, set(d), set(m)) for s, e, sy, d, m in rows]


def _block_file(key: str) -> str | None:
    from ..runtime import cache_root
    root = cache_root()
    return None if root is None else os.path.join(root, "cc-prune", _BLOCK_VERSION, key[:2], key)


_BLOCK_VERSION = "1"


def _load_block(path: str) -> list[tuple] | None:
    try:
        with open(path, "rb") as fh:
            rows = marshal.loads(fh.read())   # (marshal.load reads a file in small pieces)
        return rows if isinstance(rows, list) else None
    except (OSError, EOFError, ValueError, TypeError):
        return None


def _store_block(path: str, rows: list[tuple]) -> None:
    """Written atomically (parallel builds); a cache that cannot be written is no error."""
    tmp = None
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            marshal.dump(rows, fh)
        os.replace(tmp, path)
    except OSError:
        if tmp and os.path.exists(tmp):
            os.unlink(tmp)


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
