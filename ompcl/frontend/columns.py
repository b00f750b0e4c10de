"""Source columns: the parser's coordinates -> columns of the user's text.

The parser reads the preprocessed text, where a macro expansion (``N`` -> ``(1 << 20)``) or a
removed comment moves every later token of its line, so a coordinate's column is not the
user's: every stage that finds a statement in the user's text by its coordinate (host access
probes, diagnostics) would look in the wrong place. Consumes a parsed tree, the preprocessed
text, the file's path and its source; rewrites, in place, the column of every coordinate in
that file to the column of the same token in the source, aligning each line's tokens with the
source line's. A token of a macro expansion gets the column of the macro's name, so a
statement that starts in an expansion starts at the macro, and text checks (``{`` where a
block starts, ``return`` where a return statement does) see that the token is not there.
"""
from __future__ import annotations

import re
from difflib import SequenceMatcher

from pycparser import c_ast

from .textscan import MARKER

_TOKEN = re.compile(r"""[A-Za-z_]\w*|\.?\d(?:[eEpP][+-]|[\w.])*|"(?:[^"\\\n]|\\.)*"?"""
                    r"""|'(?:[^'\\\n]|\\.)*'?|\S""")


def preprocessed_lines(text: str, path: str) -> dict[int, str]:
    """The preprocessed text of each line of ``path``, as the parser counts lines (line
    markers set the next line; every other line counts one). A line given twice (the
    preprocessor went back) is left out: its coordinates are ambiguous."""
    out: dict[int, str] = {}
    twice: set[int] = set()
    file, line = None, 0
    for raw in text.split("\n"):
        m = MARKER.match(raw)
        if m:
            file, line = m.group(2), int(m.group(1))
            continue
        if file == path:
            if line in out:
                twice.add(line)
            out[line] = raw
        line += 1
    for n in twice:
        del out[n]
    return out


def _tokens(line: str, in_comment: bool) -> tuple[list[tuple[str, int]], bool]:
    """(token, 1-based column) of one line of C without its comments; whether a block
    comment is still open at its end."""
    out, p = [], 0
    while p < len(line):
        if in_comment:
            e = line.find("*/", p)
            if e < 0:
                return out, True
            p, in_comment = e + 2, False
            continue
        if line.startswith("//", p):
            break
        if line.startswith("/*", p):
            p, in_comment = p + 2, True
            continue
        if line[p].isspace():
            p += 1
            continue
        m = _TOKEN.match(line, p)
        out.append((m.group(), p + 1))
        p = m.end()
    return out, in_comment


def _line_map(pre: str, src_tokens: list[tuple[str, int]]) -> dict[int, int]:
    """Preprocessed column -> source column of one line (columns of tokens only)."""
    ptoks, _ = _tokens(pre, False)
    if [t for t, _ in ptoks] == [t for t, _ in src_tokens]:
        return {pc: sc for (_, pc), (_, sc) in zip(ptoks, src_tokens)}
    out: dict[int, int] = {}
    ops = SequenceMatcher(None, [t for t, _ in ptoks], [t for t, _ in src_tokens],
                          autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for k in range(i2 - i1):
                out[ptoks[i1 + k][1]] = src_tokens[j1 + k][1]
        elif j1 < len(src_tokens):  # an expansion: the macro's name (or the next token)
            for k in range(i1, i2):
                out[ptoks[k][1]] = src_tokens[j1][1]
    return out


def source_columns(ast: c_ast.FileAST, preprocessed: str, path: str, source: str) -> None:
    """Rewrite the columns of ``ast``'s coordinates in ``path`` to the source's (see module)."""
    pre = preprocessed_lines(preprocessed, path)
    maps: dict[int, dict[int, int]] = {}
    in_comment = False
    for n, text in enumerate(source.split("\n"), 1):
        toks, in_comment = _tokens(text, in_comment)
        if n in pre and pre[n] != text:
            maps[n] = _line_map(pre[n], toks)
    if not maps:
        return
    seen: set[int] = set()
    stack: list[c_ast.Node] = [ast]
    while stack:
        node = stack.pop()
        c = node.coord
        if c is not None and id(c) not in seen:
            seen.add(id(c))
            if c.file == path and c.line in maps and c.column:
                c.column = maps[c.line].get(c.column, c.column)
        stack.extend(child for _, child in node.children())
