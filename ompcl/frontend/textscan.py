"""Text scanning on the user's original source: statement ends and pragma extents.

pycparser gives start coordinates only; splicing needs where a statement ends in the user's
own text (comments, strings and preprocessor lines are skipped while matching).
"""
from __future__ import annotations

import re

#: a C identifier: the one definition every stage that reads C text uses
IDENT = re.compile(r"[A-Za-z_]\w*")


class ScanError(Exception):
    """The statement's text could not be matched (unbalanced, or from a macro)."""


#: a line marker of preprocessed text (``match`` it at a line's start): ``# 12 "file.c" 2 3``,
#: its line, file as written and flags (`` 3``: a system header); every stage uses this one
MARKER = re.compile(r'#\s*(?:line\s+)?(\d+)\s+"((?:[^"\\]|\\.)*)"((?:[ \t]+\d+)*)')
#: a preprocessor conditional line, its directive
CONDITIONAL = re.compile(r"\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b")


def inactive_lines(source: str, preprocessed: str, path: str) -> frozenset[int]:
    """The lines of ``source`` (the file ``path``) in conditional branches the preprocessor
    skipped: a branch is live when any line of it (nested ones included) gave the
    preprocessed text a token. Empty when the preprocessed text says nothing of the file."""
    live, file, line = set(), None, 0
    for text in preprocessed.splitlines():
        m = MARKER.match(text)
        if m:
            file, line = m.group(2).replace('\\"', '"').replace("\\\\", "\\"), int(m.group(1))
            continue
        if file == path and text.strip():
            live.add(line)
        line += 1
    if not live:
        return frozenset()
    dead: set[int] = set()
    opened: list[int] = []  # the line of the directive that began each open branch

    def close(first: int, last: int) -> None:  # the branch between two directive lines
        if not any(n in live for n in range(first + 1, last)):
            dead.update(range(first + 1, last))

    for n, text in enumerate(source.splitlines(), 1):
        m = CONDITIONAL.match(text)
        if m is None:
            continue
        word = m.group(1)
        if word.startswith("if"):
            opened.append(n)
        elif opened and word == "endif":
            close(opened.pop(), n)
        elif opened:
            close(opened[-1], n)
            opened[-1] = n
    return frozenset(dead)


class Scanner:
    """Token-level view of one source text; the lines in ``inactive`` (branches of
    conditionals the preprocessor skipped) are skipped like comments."""

    def __init__(self, text: str, inactive: frozenset[int] = frozenset()):
        self.text = text
        self.starts = [0]
        for m in re.finditer("\n", text):
            self.starts.append(m.end())
        self._decls: list[int] | None = None
        self.inactive = inactive

    def declaration_starts(self) -> list[int]:
        """Offsets of the first token of every file-scope declaration or definition (after
        each top-level ';' or '}' and at the start), in order."""
        if self._decls is None:
            out, depth, p, fresh = [], 0, 0, True
            while True:
                tok, s, e = self.token(p)
                if not tok:
                    break
                if fresh and depth == 0:
                    out.append(s)
                fresh = False
                if tok in "({[" and len(tok) == 1:
                    depth += 1
                elif tok in ")}]" and len(tok) == 1:
                    depth -= 1
                    fresh = depth == 0 and tok == "}"
                elif tok == ";" and depth == 0:
                    fresh = True
                p = e
            self._decls = out
        return self._decls

    def declaration_start(self, offset: int) -> int:
        """Start of the file-scope declaration holding ``offset`` (storage class, return type
        and attributes included, on whatever lines they stand)."""
        starts = self.declaration_starts()
        best = 0
        for s in starts:
            if s > offset:
                break
            best = s
        return best

    def directive_line(self, p: int) -> str | None:
        """The preprocessor directive word of the line at ``p`` ('if', 'endif', ...), or None."""
        start = self.starts[self.line_of(p) - 1]
        m = re.match(r"\s*#\s*(\w+)", self.text[start:self.line_end(start)])
        return m.group(1) if m else None

    def offset(self, line: int, col: int) -> int:
        if not 1 <= line <= len(self.starts):
            raise ScanError(f"line {line} out of range")
        return self.starts[line - 1] + max(col - 1, 0)

    def line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def skip(self, p: int) -> int:
        """Skip whitespace, comments and preprocessor lines."""
        t = self.text
        while p < len(t):
            c = t[p]
            if c in " \t\r\n\f\v":
                p += 1
            elif t.startswith("//", p):
                p = t.find("\n", p)
                p = len(t) if p < 0 else p
            elif t.startswith("/*", p):
                e = t.find("*/", p + 2)
                if e < 0:
                    raise ScanError("unterminated comment")
                p = e + 2
            elif c == "\\" and t.startswith("\n", p + 1):
                p += 2
            elif c == "#" and t[self.starts[self.line_of(p) - 1]:p].strip() == "":
                p = self.line_end(p)
            elif self.inactive and (line := self.line_of(p)) in self.inactive:
                p = self.starts[line] if line < len(self.starts) else len(t)
            else:
                return p
        return p

    def line_end(self, p: int) -> int:
        """End of a (possibly continued) line starting at or before p."""
        t = self.text
        while True:
            e = t.find("\n", p)
            if e < 0:
                return len(t)
            if e > 0 and t[e - 1] == "\\":
                p = e + 1
                continue
            return e

    def token(self, p: int) -> tuple[str, int, int]:
        """(token text, start, end) of the next token at or after p."""
        p = self.skip(p)
        t = self.text
        if p >= len(t):
            return "", p, p
        m = IDENT.match(t, p)
        if m:
            return m.group(), p, m.end()
        if t[p] in "\"'":
            q = p + 1
            while q < len(t) and t[q] != t[p]:
                q += 2 if t[q] == "\\" else 1
            return t[p:q + 1], p, q + 1
        return t[p], p, p + 1

    def match(self, p: int, open_: str, close: str) -> int:
        """Given p at an opening bracket, return the offset after its partner."""
        depth = 0
        while True:
            tok, s, e = self.token(p)
            if not tok:
                raise ScanError(f"unbalanced '{open_}'")
            if tok == open_:
                depth += 1
            elif tok == close:
                depth -= 1
                if depth == 0:
                    return e
            p = e

    def statement_end(self, p: int) -> int:
        """Offset just after the C statement starting at p."""
        tok, s, e = self.token(p)
        if tok == "{":
            return self.match(s, "{", "}")
        if tok in ("for", "while", "switch"):
            return self.statement_end(self.match(self._paren(e), "(", ")"))
        if tok == "if":
            end = self.statement_end(self.match(self._paren(e), "(", ")"))
            nxt, _, ne = self.token(end)
            return self.statement_end(ne) if nxt == "else" else end
        if tok == "do":
            end = self.statement_end(e)
            w, _, we = self.token(end)
            if w != "while":
                raise ScanError("'do' without 'while'")
            end = self.match(self._paren(we), "(", ")")
            semi, _, se = self.token(end)
            return se
        depth = 0
        q = s
        while True:
            tok, s2, e2 = self.token(q)
            if not tok:
                raise ScanError("statement without ';'")
            if tok in "({[":
                depth += 1
            elif tok in ")}]":
                depth -= 1
            elif tok == ";" and depth == 0:
                return e2
            q = e2

    def _paren(self, p: int) -> int:
        tok, s, _ = self.token(p)
        if tok != "(":
            raise ScanError("expected '('")
        return s
