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
# the clauses of each leaf construct (OpenMP 5.2); a combined or composite construct takes
# the union of its leaves' clauses
_PAR = ("if", "num_threads", "default", "copyin", "reduction", "proc_bind", "allocate", *_DATA)
_FOR = ("private", "firstprivate", "lastprivate", "reduction", "schedule", "collapse",
        "ordered", "nowait", "linear", "allocate", "order")
_SIMD = ("if", "safelen", "simdlen", "linear", "aligned", "nontemporal", "private",
         "lastprivate", "reduction", "collapse", "order")
_LEAVES: dict[str, tuple[str, ...]] = {
    "parallel": _PAR,
    "for": _FOR,
    "simd": _SIMD,
    "sections": ("private", "firstprivate", "lastprivate", "reduction", "allocate", "nowait"),
    "master": (),
    "masked": ("filter",),
    "loop": ("bind", "collapse", "order", "private", "lastprivate", "reduction"),
    "task": ("if", "final", "untied", "default", "mergeable", "private", "firstprivate",
             "shared", "in_reduction", "depend", "priority", "allocate", "affinity", "detach"),
    "taskloop": ("if", "shared", "private", "firstprivate", "lastprivate", "reduction",
                 "in_reduction", "default", "grainsize", "num_tasks", "collapse", "final",
                 "priority", "untied", "mergeable", "nogroup", "allocate"),
    "target": ("if", "device", "thread_limit", "private", "firstprivate", "in_reduction", "map",
               "is_device_ptr", "has_device_addr", "defaultmap", "nowait", "depend", "allocate",
               "uses_allocators"),
    "teams": ("num_teams", "thread_limit", "default", "private", "firstprivate", "shared",
              "reduction", "allocate"),
    "distribute": ("private", "firstprivate", "lastprivate", "collapse", "dist_schedule",
                   "allocate", "order"),
}
#: combined and composite constructs, as their leaves
_COMBINED = (
    "for simd", "taskloop simd", "distribute simd", "distribute parallel for",
    "distribute parallel for simd", "master taskloop", "master taskloop simd",
    "masked taskloop", "masked taskloop simd",
    *(f"parallel {x}" for x in ("for", "for simd", "sections", "master", "masked", "loop",
                                "master taskloop", "master taskloop simd", "masked taskloop",
                                "masked taskloop simd")),
    *(f"teams {x}" for x in ("distribute", "distribute simd", "distribute parallel for",
                             "distribute parallel for simd", "loop")),
    *(f"target {x}" for x in ("parallel", "parallel for", "parallel for simd", "parallel loop",
                              "simd", "teams", "teams distribute", "teams distribute simd",
                              "teams distribute parallel for",
                              "teams distribute parallel for simd", "teams loop")),
)
_MEMORY_ORDERS = ("seq_cst", "acq_rel", "release", "acquire", "relaxed")
#: the kinds of an atomic construct (at most one; 'compare' may come with 'capture')
ATOMIC_KINDS = ("read", "write", "update", "capture", "compare")


def _combined(kind: str) -> tuple[str, ...]:
    words = kind.split()
    clauses = dict.fromkeys(c for w in words for c in _LEAVES[w])
    if words[0] == "parallel" or "target" not in words and "parallel" in words:
        clauses.pop("nowait", None)  # the region's end is a barrier that cannot be dropped
    return tuple(clauses)


#: directive -> clauses allowed on it (OpenMP 5.2). The constructs ompcl does not translate
#: (tasking, target, teams, ...) are recognised so that programs using them translate, with
#: those constructs left to the host compiler.
DIRECTIVES: dict[str, tuple[str, ...]] = {
    **_LEAVES,
    **{k: _combined(k) for k in _COMBINED},
    "section": (),
    "single": ("private", "firstprivate", "copyprivate", "allocate", "nowait"),
    "scope": ("private", "firstprivate", "reduction", "allocate", "nowait"),
    "critical": ("hint",),
    "barrier": (),
    "taskwait": ("depend", "nowait"),
    "taskyield": (),
    "atomic": (*ATOMIC_KINDS, *_MEMORY_ORDERS, "hint", "fail", "weak"),
    "flush": ("seq_cst", "acq_rel", "release", "acquire"),
    "ordered": ("threads", "simd", "depend", "doacross"),
    "threadprivate": (),
    "declare simd": ("simdlen", "linear", "aligned", "uniform", "inbranch", "notinbranch"),
    "declare target": ("to", "enter", "link", "device_type", "indirect"),
    "begin declare target": ("to", "enter", "link", "device_type", "indirect"),
    "end declare target": (),
    "target data": ("if", "device", "map", "use_device_ptr", "use_device_addr"),
    "target enter data": ("if", "device", "map", "depend", "nowait"),
    "target exit data": ("if", "device", "map", "depend", "nowait"),
    "target update": ("if", "device", "to", "from", "depend", "nowait"),
    "taskgroup": ("task_reduction", "allocate"),
    "cancel": ("if", "parallel", "for", "sections", "taskgroup"),
    "cancellation point": ("parallel", "for", "sections", "taskgroup"),
    "scan": ("inclusive", "exclusive"),
    "nothing": (),
    "error": ("at", "severity", "message"),
    "allocate": ("allocator", "align"),
}
#: declarative and other directives whose clauses are kept as written, unchecked (their
#: grammar is C types and expressions ompcl never needs: the host compiler reads them)
RAW = {"declare reduction", "declare variant", "begin declare variant", "end declare variant",
       "declare mapper", "requires", "metadirective", "begin metadirective", "assume",
       "assumes", "begin assumes", "end assumes", "interop", "depobj", "dispatch"}
DIRECTIVES.update({k: () for k in RAW})
#: directives that do not apply to the statement after them
STANDALONE = {"barrier", "taskwait", "taskyield", "flush", "threadprivate", "cancel",
              "cancellation point", "declare simd", "declare target", "begin declare target",
              "end declare target", "target enter data", "target exit data", "target update",
              "scan", "nothing", "error", "allocate", *RAW - {"metadirective", "assume",
                                                              "dispatch"}}
#: constructs taking an optional parenthesised argument right after the name
_NAMED = {"critical", "flush", "threadprivate", "cancel", "cancellation point", "allocate",
          "declare target", "depobj"}
#: clauses whose argument is a list of identifiers (grammar)
_LIST_CLAUSES = {"private", "firstprivate", "lastprivate", "shared", "copyin", "copyprivate",
                 "uniform", "nontemporal", "is_device_ptr", "has_device_addr",
                 "use_device_ptr", "use_device_addr", "inclusive", "exclusive"}
#: data-sharing clauses: every name in them must be a declared variable
DATA_CLAUSES = frozenset({"private", "firstprivate", "lastprivate", "shared", "reduction",
                          "copyin", "copyprivate"})
_EXPR_CLAUSES = {"if", "num_threads", "final", "safelen", "simdlen", "priority", "hint",
                 "num_teams", "thread_limit", "grainsize", "num_tasks", "device", "filter",
                 "detach", "align", "allocator", "message"}
_BARE_CLAUSES = {"nowait", "untied", "mergeable", "inbranch", "notinbranch", "nogroup",
                 "threads", "simd", "weak", "parallel", "for", "sections", "taskgroup",
                 "indirect", *ATOMIC_KINDS, *_MEMORY_ORDERS}
#: clauses with a single keyword argument, and its choices
_KEYWORD_CLAUSES = {"default": ("shared", "none", "firstprivate", "private"),
                    "proc_bind": ("master", "close", "spread", "primary"),
                    "bind": ("teams", "parallel", "thread"),
                    "fail": ("seq_cst", "acquire", "relaxed"),
                    "device_type": ("host", "nohost", "any"),
                    "at": ("compilation", "execution"),
                    "severity": ("fatal", "warning")}
#: modifiers a clause's argument may start with (``name: ...``)
_MODIFIERS = {"lastprivate": ("conditional",), "grainsize": ("strict",),
              "num_tasks": ("strict",), "device": ("ancestor", "device_num"),
              "order": ("reproducible", "unconstrained"),
              "if": ("parallel", "simd", "task", "taskloop", "target", "teams", "cancel")}
#: every clause name the grammar knows (raw ones keep their text: linear, aligned, map, ...)
_KNOWN = set().union(*DIRECTIVES.values()) | {"reduction", "schedule", "collapse", "default",
                                              "proc_bind", "ordered"}
REDUCTION_OPS = ("+", "-", "*", "&", "|", "^", "&&", "||", "max", "min")
#: the identifier a ``declare reduction`` declares (its reductions stay on the host)
DECLARED_REDUCTION = re.compile(r"\s*omp\s+declare\s+reduction\s*\(\s*([A-Za-z_]\w*)")
SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")
#: modifiers of reduction clauses; only 'default' means what a plain reduction means
REDUCTION_MODIFIERS = ("default", "inscan", "task")

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
    def __init__(self, text: str, loc: SourceLoc, line_text: str | None,
                 reductions: frozenset[str] = frozenset()):
        self.text, self.loc, self.line_text = text, loc, line_text
        self.reductions = reductions
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
            args.append(Clause(kind.split()[0], self.paren_list(
                allow_expr=kind not in ("threadprivate", "allocate")), loc=self.where(name_tok)))
        if kind in RAW:  # kept as written: the host compiler reads it
            return Directive(kind, tuple(args), self.loc, self.text)
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
        if tok.kind != "id" or name not in _KNOWN:
            hint = difflib.get_close_matches(name, allowed, n=1)
            sugg = f"; did you mean '{hint[0]}'?" if hint else ""
            self.error(f"unknown clause '{name}' on '#pragma omp {kind}'{sugg}", tok)
        if name not in allowed:
            self.error(f"clause '{name}' is not valid on '#pragma omp {kind}'", tok)
        loc = self.where(tok)
        has_arg = self.peek() is not None and self.peek().text == "("
        if name in _BARE_CLAUSES or name == "ordered" and not has_arg:
            return Clause(name, loc=loc)
        if name == "ordered":
            return Clause(name, self.paren_list(allow_expr=True), loc=loc)
        if name in ("reduction", "in_reduction", "task_reduction"):
            return self.reduction(name, loc)
        if name == "schedule":
            return self.schedule(loc)
        if name in _KEYWORD_CLAUSES:
            return self.keyword_arg(name, loc)
        if name == "collapse":
            args = self.paren_list(allow_expr=True)
            if len(args) != 1 or not args[0].isdigit() or int(args[0]) < 1:
                self.error("collapse() needs a positive integer constant", tok)
            return Clause(name, args, loc=loc)
        if name in _LIST_CLAUSES or name in _EXPR_CLAUSES or name == "order":
            self.expect("(")
            mods = self.modifiers(name)
            if name == "order":
                word = self.next()
                if word.text != "concurrent":
                    self.error(f"invalid argument '{word.text}' to 'order' (expected "
                               "'concurrent')", word)
                args = (word.text,)
            elif name in _EXPR_CLAUSES:
                args = (self.expr_until(")"),)
            else:
                args = self.ident_list()
            self.expect(")")
            return Clause(name, args, loc=loc, modifiers=mods)
        # linear, aligned, map, depend, allocate, ...: the argument as written
        return Clause(name, (self.paren_expr(),), loc=loc)

    def modifiers(self, name: str) -> tuple[str, ...]:
        """The modifier words of a clause's argument (``if(parallel: ...)``), if any."""
        choices = _MODIFIERS.get(name, ())
        mods = []
        while self.peek() is not None and self.peek().text in choices:
            nxt = self.peek(1)
            words = [self.peek().text]
            if nxt is not None and nxt.kind == "id" and f"{words[0]} {nxt.text}" in DIRECTIVES:
                words.append(nxt.text)  # if(target data: ...)
            after = self.peek(len(words))
            if after is None or after.text != ":":
                break
            for _ in words:
                self.next()
            mods.append(" ".join(words))
            self.expect(":")
        return tuple(mods)

    def reduction(self, name: str, loc: SourceLoc) -> Clause:
        self.expect("(")
        mods = []
        if (self.peek() is not None and self.peek().text in REDUCTION_MODIFIERS
                and self.peek(1) is not None and self.peek(1).text == ","):
            mods.append(self.next().text)
            self.next()
        op_tok = self.next()
        op = op_tok.text
        if op not in REDUCTION_OPS and op not in self.reductions:
            self.error(f"unknown reduction operator '{op}' (expected one of "
                       f"{', '.join(REDUCTION_OPS)})", op_tok)
        self.expect(":")
        names = self.ident_list()
        self.expect(")")
        return Clause(name, names, op, loc, tuple(mods))

    def schedule(self, loc: SourceLoc) -> Clause:
        self.expect("(")
        kind_tok, mods = self.next(), []
        while kind_tok.text in ("monotonic", "nonmonotonic", "simd"):
            mods.append(kind_tok.text)
            if self.peek() is not None and self.peek().text == ",":
                self.next()
            else:
                self.expect(":")
            kind_tok = self.next()
        if kind_tok.text not in SCHEDULE_KINDS:
            self.error(f"unknown schedule kind '{kind_tok.text}'", kind_tok)
        args = [kind_tok.text]
        if self.peek() and self.peek().text == ",":
            self.next()
            args.append(self.expr_until(")"))
        self.expect(")")
        return Clause("schedule", tuple(args), loc=loc, modifiers=tuple(mods))

    def keyword_arg(self, name: str, loc: SourceLoc) -> Clause:
        choices = _KEYWORD_CLAUSES[name]
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
        for single in ("collapse", "schedule", "default", "num_threads", "ordered",
                       "nowait", "untied", "mergeable", "proc_bind", "final", "safelen",
                       "simdlen", "order", "bind", "hint", "fail", "filter", "num_teams",
                       "thread_limit", "grainsize", "num_tasks", "device", "priority"):
            found = [c for c in clauses if c.name == single]
            if len(found) > 1:
                raise PragmaSyntaxError(f"too many '{single}' clauses on '#pragma omp {kind}'",
                                        found[1].loc)
        # one 'if' per directive name it applies to
        ifs = [c for c in clauses if c.name == "if"]
        mods = [c.modifiers[:1] for c in ifs]
        for k, m in enumerate(mods):
            if m in mods[:k] or m == () and k > 0 or m != () and () in mods[:k]:
                raise PragmaSyntaxError(f"too many 'if' clauses on '#pragma omp {kind}'",
                                        ifs[k].loc)
        if kind == "atomic":
            self.check_atomic(clauses)

    def check_atomic(self, clauses: list[Clause]) -> None:
        kinds = [c for c in clauses if c.name in ATOMIC_KINDS]
        orders = [c for c in clauses if c.name in _MEMORY_ORDERS]
        names = {c.name for c in kinds}
        if len(kinds) > 1 and names != {"capture", "compare"} or len(kinds) > 2:
            raise PragmaSyntaxError("too many atomic clauses on '#pragma omp atomic' (at most "
                                    "one of read, write, update, capture, compare; or "
                                    "capture with compare)", kinds[-1].loc)
        if len(orders) > 1:
            raise PragmaSyntaxError("too many memory-order clauses on '#pragma omp atomic'",
                                    orders[1].loc)


_PREFIXES = {" ".join(k.split()[:n]) for k in DIRECTIVES for n in range(1, len(k.split()) + 1)}


def applies_to_statement(d: Directive) -> bool:
    """Whether the directive is a construct that applies to the statement after it (not a
    standalone directive such as ``barrier`` or ``ordered depend(...)``)."""
    return d.kind not in STANDALONE and not (
        d.kind == "ordered" and any(c.name in ("depend", "doacross") for c in d.clauses))


def is_omp_pragma(text: str) -> bool:
    """True for a pragma whose first word is ``omp``."""
    return text.strip().split(None, 1)[:1] == ["omp"]


def parse_directive(text: str, loc: SourceLoc, line_text: str | None = None,
                    reductions: frozenset[str] = frozenset()) -> Directive:
    """Parse the text after ``#pragma`` (``omp parallel for ...``) into a Directive
    (``reductions``: the identifiers the file's ``declare reduction`` directives declare)."""
    body = text.strip()
    if body.endswith("\\"):
        body = body[:-1]
    return _Parser(body, loc, line_text, reductions).directive()
