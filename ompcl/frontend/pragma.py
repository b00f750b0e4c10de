"""OpenMP directive grammar: ``#pragma omp ...`` text -> ``Directive`` (OpenMP 3.1, plus 4.x names).

Errors are ``PragmaSyntaxError`` at the offending token; column positions are found in the
user's original line when it is available (``line_text``), else counted from the pragma.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from ..diagnostics import PragmaSyntaxError, PragmaSyntaxErrors, SourceLoc, UnknownDirective
from ..ir import Clause, Directive

_DATA = ("private", "firstprivate", "shared")
_PAR = ("if", "num_threads", "default", "copyin", "reduction", "proc_bind", *_DATA)
_FOR = ("private", "firstprivate", "lastprivate", "reduction", "schedule", "collapse",
        "ordered", "nowait")
_SIMD = ("safelen", "simdlen", "linear", "aligned", "private", "lastprivate", "reduction",
         "collapse")

#: directive -> clauses allowed on it (OpenMP 3.1; 4.x constructs are recognised so that
#: programs using them translate, with those constructs left to the host compiler).
DIRECTIVES: dict[str, tuple[str, ...]] = {
    "parallel": _PAR,
    "for": _FOR,
    "parallel for": tuple(dict.fromkeys(_PAR + _FOR).keys() - {"nowait"}),
    "sections": ("private", "firstprivate", "lastprivate", "reduction", "nowait"),
    "parallel sections": tuple(dict.fromkeys(_PAR + ("lastprivate",)).keys()),
    "section": (),
    "single": ("private", "firstprivate", "copyprivate", "nowait"),
    "master": (),
    "critical": (),
    "barrier": (),
    "taskwait": (),
    "taskyield": (),
    "atomic": (),
    "flush": (),
    "ordered": (),
    "threadprivate": (),
    "task": ("if", "final", "untied", "default", "mergeable", "private", "firstprivate",
             "shared", "depend", "priority"),
    "simd": _SIMD,
    "for simd": tuple(dict.fromkeys(_FOR + _SIMD).keys()),
    "parallel for simd": tuple(dict.fromkeys(_PAR + _FOR + _SIMD).keys() - {"nowait"}),
    "declare simd": ("simdlen", "linear", "aligned", "uniform", "inbranch", "notinbranch"),
    "taskgroup": (),
    "cancel": ("if",),
    "cancellation point": (),
}
#: constructs taking an optional parenthesised argument right after the name
_NAMED = {"critical", "flush", "threadprivate", "cancel", "cancellation point"}
_ATOMIC_KINDS = ("read", "write", "update", "capture", "seq_cst")
#: clauses whose argument is a list of identifiers (grammar)
_LIST_CLAUSES = {"private", "firstprivate", "lastprivate", "shared", "copyin", "copyprivate",
                 "uniform", "aligned", "linear", "depend"}
#: data-sharing clauses: every name in them must be a declared variable
DATA_CLAUSES = frozenset({"private", "firstprivate", "lastprivate", "shared", "reduction",
                          "copyin", "copyprivate"})
_EXPR_CLAUSES = {"if", "num_threads", "final", "safelen", "simdlen", "priority"}
_BARE_CLAUSES = {"nowait", "untied", "mergeable", "inbranch", "notinbranch", "seq_cst"}
REDUCTION_OPS = ("+", "-", "*", "&", "|", "^", "&&", "||", "max", "min")
SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")

_TOKEN = re.compile(r"\s*(?:(?P<id>[A-Za-z_]\w*)|(?P<num>\d[\w.]*)|(?P<op>&&|\|\||[^\s\w]))")


@dataclass
class _Tok:
    kind: str
    text: str
    pos: int


def _tokenize(text: str) -> list[_Tok]:
    toks, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            break
        kind = m.lastgroup or "op"
        toks.append(_Tok(kind, m.group(kind), m.start(kind)))
        pos = m.end()
    return toks


class _Parser:
    def __init__(self, text: str, loc: SourceLoc, line_text: str | None):
        self.text, self.loc, self.line_text = text, loc, line_text
        self.toks = _tokenize(text)
        self.i = 0

    # -- token helpers -------------------------------------------------
    def peek(self, k: int = 0) -> _Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def next(self) -> _Tok:
        tok = self.peek()
        if tok is None:
            self.error("unexpected end of directive", None)
        self.i += 1
        return tok

    def expect(self, text: str) -> _Tok:
        tok = self.peek()
        if tok is None or tok.text != text:
            got = f"'{tok.text}'" if tok else "end of directive"
            self.error(f"expected '{text}', found {got}", tok)
        return self.next()

    def where(self, tok: _Tok | None) -> SourceLoc:
        pos = tok.pos if tok else len(self.text)
        base = self.loc.col
        if self.line_text is not None and tok is not None:
            found = self._find_in_line(tok)
            if found is not None:
                before = self.line_text[:found]
                line = self.loc.line + before.count("\n")
                return SourceLoc(self.loc.file, line, found - (before.rfind("\n") + 1) + 1)
        # "#pragma " precedes the directive text in the user's line
        return SourceLoc(self.loc.file, self.loc.line, base + len("pragma ") + 1 + pos)

    def _find_in_line(self, tok: _Tok) -> int | None:
        assert self.line_text is not None
        start = self.line_text.find("omp")
        if start < 0:
            return None
        # match the k-th occurrence of this token text, as in the directive text
        nth = sum(1 for t in self.toks[: self.toks.index(tok)] if t.text == tok.text)
        word = re.escape(tok.text)
        pattern = rf"(?<![\w]){word}(?![\w])" if tok.kind != "op" else word
        hits = [m.start() for m in re.finditer(pattern, self.line_text[start:])]
        return start + hits[nth] if nth < len(hits) else None

    def error(self, msg: str, tok: _Tok | None) -> None:
        raise PragmaSyntaxError(msg, self.where(tok))

    # -- grammar -------------------------------------------------------
    def directive(self) -> Directive:
        omp = self.next()
        if omp.text != "omp":
            self.error("not an OpenMP directive", omp)
        kind, name_tok = self.directive_name()
        args: list[Clause] = []
        if kind in _NAMED and self.peek() and self.peek().text == "(":
            args.append(Clause(kind.split()[0], self.paren_list(allow_expr=kind != "threadprivate"),
                               loc=self.where(name_tok)))
        if kind == "atomic" and self.peek() and self.peek().text in _ATOMIC_KINDS:
            args.append(Clause(self.next().text))
        allowed = DIRECTIVES[kind]
        errors: list[PragmaSyntaxError] = []
        while self.peek() is not None:
            if self.peek().text == ",":
                self.next()
                continue
            start = self.i
            try:
                args.append(self.clause(kind, allowed))
            except PragmaSyntaxError as e:  # report every bad clause of the line
                errors.append(e)
                self.skip_clause(start)
        if errors:
            raise errors[0] if len(errors) == 1 else PragmaSyntaxErrors(errors)
        self.check_clauses(kind, args)
        return Directive(kind, tuple(args), self.loc, self.text)

    def skip_clause(self, start: int) -> None:
        """Past a bad clause: its name and its parenthesised arguments."""
        self.i = start + 1
        depth = 0
        while self.peek() is not None and (depth or self.peek().text == "("):
            depth += {"(": 1, ")": -1}.get(self.next().text, 0)

    def directive_name(self) -> tuple[str, _Tok]:
        first = self.peek()
        if first is None or first.kind != "id":
            self.error("expected an OpenMP directive name after 'omp'", first)
        words = [self.next().text]
        # longest match over multi-word directive names
        while self.peek() is not None and " ".join(words + [self.peek().text]) in _PREFIXES:
            words.append(self.next().text)
        kind = " ".join(words)
        if kind not in DIRECTIVES:
            hint = difflib.get_close_matches(kind, DIRECTIVES, n=1)
            sugg = f"; did you mean '{hint[0]}'?" if hint else ""
            raise UnknownDirective(f"unknown OpenMP directive '{kind}'{sugg}", self.where(first))
        return kind, first

    def clause(self, kind: str, allowed: tuple[str, ...]) -> Clause:
        tok = self.next()
        name = tok.text
        known = set().union(*DIRECTIVES.values()) | {"reduction", "schedule", "collapse",
                                                     "default", "proc_bind", "ordered"}
        if tok.kind != "id" or name not in known:
            hint = difflib.get_close_matches(name, allowed, n=1)
            sugg = f"; did you mean '{hint[0]}'?" if hint else ""
            self.error(f"unknown clause '{name}' on '#pragma omp {kind}'{sugg}", tok)
        if name not in allowed:
            self.error(f"clause '{name}' is not valid on '#pragma omp {kind}'", tok)
        loc = self.where(tok)
        if name in _BARE_CLAUSES:
            return Clause(name, loc=loc)
        if name == "ordered":
            has_arg = self.peek() is not None and self.peek().text == "("
            args = self.paren_list(allow_expr=True) if has_arg else ()
            return Clause(name, args, loc=loc)
        if name == "reduction":
            return self.reduction(loc)
        if name == "schedule":
            return self.schedule(loc)
        if name in ("default", "proc_bind"):
            return self.keyword_arg(name, loc)
        if name == "collapse":
            args = self.paren_list(allow_expr=True)
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
                self.error("collapse() needs a positive integer constant", tok)
            return Clause(name, args, loc=loc)
        if name in _EXPR_CLAUSES:
            return Clause(name, (self.paren_expr(),), loc=loc)
        return Clause(name, self.paren_list(allow_expr=False), loc=loc)

    def reduction(self, loc: SourceLoc) -> Clause:
        self.expect("(")
        op_tok = self.next()
        op = op_tok.text
        if op not in REDUCTION_OPS:
            self.error(f"unknown reduction operator '{op}' (expected one of "
                       f"{', '.join(REDUCTION_OPS)})", op_tok)
        self.expect(":")
        names = self.ident_list()
        self.expect(")")
        return Clause("reduction", names, op, loc)

    def schedule(self, loc: SourceLoc) -> Clause:
        self.expect("(")
        kind_tok = self.next()
        if kind_tok.text in ("monotonic", "nonmonotonic", "simd"):
            self.expect(":")
            kind_tok = self.next()
        if kind_tok.text not in SCHEDULE_KINDS:
            self.error(f"unknown schedule kind '{kind_tok.text}'", kind_tok)
        args = [kind_tok.text]
        if self.peek() and self.peek().text == ",":
            self.next()
            args.append(self.expr_until(")"))
        self.expect(")")
        return Clause("schedule", tuple(args), loc=loc)

    def keyword_arg(self, name: str, loc: SourceLoc) -> Clause:
        choices = {"default": ("shared", "none", "firstprivate", "private"),
                   "proc_bind": ("master", "close", "spread", "primary")}[name]
        self.expect("(")
        tok = self.next()
        if tok.text not in choices:
            self.error(f"invalid argument '{tok.text}' to '{name}' (expected "
                       f"{' or '.join(choices)})", tok)
        self.expect(")")
        return Clause(name, (tok.text,), loc=loc)

    def ident_list(self) -> tuple[str, ...]:
        names = []
        while True:
            tok = self.next()
            if tok.kind != "id":
                self.error(f"expected a variable name, found '{tok.text}'", tok)
            names.append(tok.text)
            if self.peek() and self.peek().text == "[":  # array section (4.x): keep base name
                self.expr_balanced("[", "]")
            if not (self.peek() and self.peek().text == ","):
                return tuple(names)
            self.next()

    def paren_list(self, allow_expr: bool) -> tuple[str, ...]:
        self.expect("(")
        if allow_expr:
            items = []
            while True:
                items.append(self.expr_until(",)"))
                if self.next().text == ")":
                    return tuple(items)
        names = self.ident_list()
        self.expect(")")
        return names

    def paren_expr(self) -> str:
        self.expect("(")
        text = self.expr_until(")")
        self.expect(")")
        return text

    def expr_until(self, stops: str) -> str:
        start_tok, depth, parts = self.peek(), 0, []
        while True:
            tok = self.peek()
            if tok is None:
                self.error("unbalanced parentheses in directive", start_tok)
            if depth == 0 and tok.text in stops:
                break
            depth += tok.text in "([" and 1 or 0
            depth -= tok.text in ")]" and 1 or 0
            parts.append(self.next())
        if not parts:
            self.error("expected an expression", tok)
        return self.text[parts[0].pos: parts[-1].pos + len(parts[-1].text)]

    def expr_balanced(self, open_: str, close: str) -> None:
        self.expect(open_)
        self.expr_until(close)
        self.expect(close)

    def check_clauses(self, kind: str, clauses: list[Clause]) -> None:
        for single in ("collapse", "schedule", "default", "num_threads", "if", "ordered",
                       "nowait", "untied", "mergeable", "proc_bind", "final"):
            found = [c for c in clauses if c.name == single]
            if len(found) > 1:
                raise PragmaSyntaxError(f"too many '{single}' clauses on '#pragma omp {kind}'",
                                        found[1].loc)


_PREFIXES = {" ".join(k.split()[:n]) for k in DIRECTIVES for n in range(1, len(k.split()) + 1)}


def is_omp_pragma(text: str) -> bool:
    """True for a pragma whose first word is ``omp``."""
    return text.strip().split(None, 1)[:1] == ["omp"]


def parse_directive(text: str, loc: SourceLoc, line_text: str | None = None) -> Directive:
    """Parse the text after ``#pragma`` (``omp parallel for ...``) into a Directive."""
    body = text.strip()
    if body.endswith("\\"):
        body = body[:-1]
    return _Parser(body, loc, line_text).directive()
