"""Host statements: a probe before each host statement of one function (part of
``analysis.hostaccess``), placed in the user's text.

Consumes a function definition, the program's text, the statements the device versions replace
and a classification of callees; produces its ``Probe`` records and ``ReturnSite``s, or raises
``NotProbed`` where its statements cannot all be probed.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ..frontend.program import Program
from ..frontend.textscan import IDENT, ScanError
from . import libcalls
from .builtins import is_math
from .ctypes_ import TypeEnv, walk
from .hostexprs import HostAccess, Exprs, assigned, call_name
from .hostvars import Scope, Var
from .placement import balanced_start
from .summaries import NO_MEMORY as _NO_MEMORY, READS_ARGS as _READS_ARGS


@dataclass(frozen=True)
class Probe:
    """What runs before the host statement at ``start`` (text offset; it ends at ``end``): its
    accesses, and the instrumented function it calls (announced; ``extern``: defined in
    another file, announced if instrumented there). ``brace``: the statement is an unbraced
    body, so the probe and the statement need braces."""

    start: int
    end: int
    accesses: tuple[HostAccess, ...]
    announce: str | None = None
    extern: bool = False
    brace: bool = False
    guards: tuple[str, ...] = ()  # other files' functions called: sync unless instrumented
    team: int | None = None  # in the device version (team of one) of this team


class NotProbed(Exception):
    """A function's host code cannot be probed (the message says why)."""


# -- statements ------------------------------------------------------------------------------

class TextMap:
    """Where statements stand in the user's text (statement by statement from a block's
    brace, checked against the AST's coordinates)."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.scan = prog.scanner()

    def offset(self, node: c_ast.Node) -> int:
        c = node.coord
        if c is None or c.file != self.prog.path:
            raise NotProbed("its code comes from a header or a macro expansion")
        try:
            return self.scan.offset(c.line, c.column or 1)
        except ScanError as e:
            raise NotProbed(str(e)) from None

    def items(self, block: c_ast.Compound) -> dict[int, tuple[int, int]]:
        """(start, end) of every item of ``block``; the declarators of one declaration share
        its text; a directive item is its line."""
        src, scan = self.prog.source, self.scan
        try:
            p = self.offset(block)
            if src[p:p + 1] != "{":
                raise NotProbed("a block comes from a macro expansion")
            p += 1
            pending = [it for it in block.block_items or [] if not isinstance(it, c_ast.Pragma)]
            out = {}
            for it in block.block_items or []:
                if isinstance(it, c_ast.Pragma):
                    line = scan.offset(it.coord.line, 1)
                    out[id(it)] = (line, scan.line_end(line))
            while pending:
                s = scan.skip(p)
                if src[s:s + 1] in ("}", ""):
                    break
                e = scan.statement_end(s)
                while pending and s <= self.offset(pending[0]) < e:
                    out[id(pending.pop(0))] = (s, e)
                p = e
            if pending:
                raise NotProbed("its statements do not match the source text (macros or "
                                "preprocessor conditionals)")
            return out
        except ScanError as e:
            raise NotProbed(f"its statements do not match the source text ({e})") from None

    def body(self, owner: c_ast.Node, owner_start: int, body: c_ast.Node,
             after_else: bool = False) -> tuple[int, int]:
        """(start, end) of the unbraced body of an if / else / loop starting at owner_start."""
        scan = self.scan
        try:
            tok, s, e = scan.token(owner_start)
            if after_else:
                t_end = scan.statement_end(self.body(owner, owner_start, owner.iftrue)[0])
                tok, s, e = scan.token(t_end)
                if tok != "else":
                    raise NotProbed("an 'else' comes from a macro expansion")
                start = scan.skip(e)
            elif tok == "do":
                start = scan.skip(e)
            else:
                start = scan.skip(scan.match(scan._paren(e), "(", ")"))
            end = scan.statement_end(start)
        except ScanError as err:
            raise NotProbed(f"a statement does not match the source text ({err})") from None
        if not start <= self.offset(body) < end and not isinstance(body, c_ast.Compound):
            raise NotProbed("a statement does not match the source text")
        return start, end

    def after_label(self, where: tuple[int, int, bool]) -> tuple[int, int, bool]:
        """The statement after 'name :' at where[0]."""
        scan = self.scan
        try:
            _, _, e = scan.token(where[0])
            tok, _, e = scan.token(e)
            if tok != ":":
                raise NotProbed("a label comes from a macro expansion")
            start = scan.skip(e)
            return start, scan.statement_end(start), where[2]
        except ScanError as err:
            raise NotProbed(f"a label does not match the source text ({err})") from None

    def statement_range(self, node: c_ast.Node) -> tuple[int, int]:
        s = self.offset(node)
        try:
            return s, self.scan.statement_end(s)
        except ScanError as e:
            raise NotProbed(f"a statement does not match the source text ({e})") from None


@dataclass(frozen=True)
class ReturnSite:
    """A return statement's text: ``return`` at ``start``, its value between ``value`` and
    the ';' before ``end``."""

    node: c_ast.Return
    start: int
    value: int
    end: int
    void: bool = False  # in a function returning void (a value is a void expression)


def _touches(node: c_ast.Node | None) -> bool:
    """``node`` may read or write memory: an element, a member, a dereference, a call."""
    return node is not None and any(
        isinstance(n, (c_ast.ArrayRef, c_ast.StructRef, c_ast.FuncCall)) or
        isinstance(n, c_ast.UnaryOp) and n.op == "*" for n in walk(node))


def _is_comma(n: c_ast.ExprList, root: c_ast.Node) -> bool:
    """An expression list that is a comma expression, not a call's arguments."""
    return not any(isinstance(p, c_ast.FuncCall) and p.args is n for p in walk(root))


class Planner:
    """Probes for the statements of one function."""

    def __init__(self, prog: Program, env: TypeEnv, globals_: dict[str, Var],
                 device: set[int], classify_call, text: "TextMap", teams: dict | None = None,
                 summary=None):
        self.summary = summary or (lambda name: None)  # name -> (Summary, FuncDef) | None
        self.teams = teams or {}  # statement id -> Team
        self.team: int | None = None  # the team whose device version is being probed
        self.probed_teams: set[int] = set()
        self.prog = prog
        self.text = text
        self.scope = Scope(env, globals_)
        self.device = device  # ids of statements the device versions replace
        self.classify_call = classify_call
        self.probes: list[Probe] = []
        self.returns: list[ReturnSite] = []
        self.void = False

    def file_pointer(self, name: str) -> bool:
        return name in ("stdout", "stderr", "stdin")

    def callee(self, name: str | None) -> str:
        if name is None:
            return "unknown"
        if is_math(name) or name in _NO_MEMORY:
            return "pure"
        if name in libcalls.LIBRARY:
            return "library"
        if name in _READS_ARGS:
            return "reads"
        return self.classify_call(name)

    def active(self, node: c_ast.Node) -> bool:
        """The statement holds device work or calls into instrumented code."""
        return any(id(n) in self.device for n in walk(node)) or self.runs_kernels(node)

    def runs_kernels(self, node: c_ast.Node | None) -> bool:
        """``node`` holds a call that may run kernels."""
        return node is not None and any(
            isinstance(n, c_ast.FuncCall) and self.callee(call_name(n)) in (
                "instrumented", "extern") for n in walk(node))

    def points(self, a: c_ast.Node) -> bool:
        """An argument that may point to program memory (not a string literal, not a value
        of a scalar variable or an element: those a callee does not reach through)."""
        if isinstance(a, c_ast.Constant) or isinstance(a, c_ast.Cast) and \
                isinstance(a.expr, c_ast.Constant):
            return False
        if isinstance(a, c_ast.ID):
            return self.scope.get(a.name).kind != "scalar"
        if isinstance(a, (c_ast.ArrayRef, c_ast.BinaryOp)):  # an element's or sum's value
            return any(isinstance(n, c_ast.UnaryOp) and n.op == "&" for n in walk(a)) or (
                isinstance(a, c_ast.ArrayRef) and not self.element(a))
        return True

    def element(self, ref: c_ast.ArrayRef) -> bool:
        """``ref`` reaches an element of a scalar type (all the subscripts of its array, whose
        elements hold no pointers)."""
        subs, base = 0, ref
        while isinstance(base, c_ast.ArrayRef):
            subs, base = subs + 1, base.name
        var = self.scope.get(base.name) if isinstance(base, c_ast.ID) else None
        return var is not None and var.kind in ("array", "pointer") and not var.pointers and \
            subs == max(var.rank, 1)

    def after_call(self, e: c_ast.Node | None) -> bool:
        """Memory of ``e`` is read or written after a call in it that may run kernels, in
        an order C fixes: an assignment's store after its operands (``y[0] = f()``), the
        operands after the first of ``,``, ``&&``, ``||``, ``?:``, a callee's body after its
        arguments, an element after its subscript (``y[f()]``). (Elsewhere the order is the
        compiler's choice, and the probe's order one it may make.)"""
        for n in walk(e) if e is not None else ():
            if isinstance(n, c_ast.Assignment) and not isinstance(n.lvalue, c_ast.ID) and \
                    self.runs_kernels(n):  # a store to memory, not to a named scalar
                return True
            if isinstance(n, c_ast.ArrayRef) and self.runs_kernels(n.subscript) or \
                    isinstance(n, c_ast.StructRef) and self.runs_kernels(n.name) or \
                    isinstance(n, c_ast.UnaryOp) and n.op == "*" and self.runs_kernels(n.expr):
                return True  # an element of an index, member or pointer a call returns
            parts = (n.exprs if isinstance(n, c_ast.ExprList) and _is_comma(n, e) else
                     [n.left, n.right] if isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||")
                     else [n.cond, n.iftrue, n.iffalse] if isinstance(n, c_ast.TernaryOp) else [])
            if any(self.runs_kernels(a) and any(_touches(b) for b in parts[k + 1:])
                   for k, a in enumerate(parts)):
                return True
            if isinstance(n, c_ast.FuncCall) and self.callee(call_name(n)) not in (
                    "pure", "instrumented", "extern") and self.runs_kernels(n.args) and (
                    self.callee(call_name(n)) == "unknown" or any(
                        self.points(a) for a in n.args.exprs if not self.runs_kernels(a))):
                return True  # its body reads or writes memory its arguments point to
        return False

    def probe(self, where: tuple[int, int, bool], exprs: list, exact: bool,
              unstable_in: c_ast.Node, sure: bool = False) -> None:
        """``sure``: the statement's calls run whenever it does (no loop, no conditional
        operator around them): only then may a call be announced, since an announcement
        that no call takes would be taken by the next instrumented function entered."""
        x = Exprs(self, assigned(unstable_in), exact)
        for e in exprs:
            x.expr(e)
        if x.out and x.announce and any(self.after_call(e) for e in exprs):
            raise NotProbed("a statement reads or writes memory after a call in it that may "
                            "run kernels (the probe before it would come too early)")
        announce, extern = None, False
        if sure and len(x.announce) == 1 and x.calls == 1 and not any(
                _conditional(e) for e in exprs):  # else the callees sync on their own
            announce, extern = x.announce[0]
        accesses = tuple(dict.fromkeys(x.out))
        # other files' functions called unannounced: where not instrumented, nothing else
        # syncs for them
        guards = tuple(dict.fromkeys(n for n, ext in x.announce if ext and n != announce))
        if accesses or announce or guards:
            start, end, brace = where
            self.probes.append(Probe(start, end, accesses, announce, extern, brace, guards,
                                     self.team))

    def return_site(self, r: c_ast.Return) -> None:
        start = self.text.offset(r)
        src = self.prog.source
        if not src.startswith("return", start) or (src[start + 6:start + 7].isalnum()
                                                   or src[start + 6:start + 7] == "_"):
            raise NotProbed("a return statement comes from a macro expansion")
        _, end = self.text.statement_range(r)
        self.returns.append(ReturnSite(r, start, start + 6, end, self.void))

    def hoisted(self, stmt: c_ast.Node, where) -> None:
        """A statement without device work: all it may touch, probed once before it."""
        self.probe(where, [stmt], not _has_loop(stmt), stmt)
        for n in walk(stmt):
            if isinstance(n, c_ast.Return):
                self.return_site(n)

    def statement(self, s: c_ast.Node, where: tuple[int, int, bool]) -> None:
        """Probe one statement: conditionals and blocks statement by statement (a probe in a
        branch runs only when the branch does), loops around device work likewise, other
        loops and switches as a whole before them."""
        if id(s) in self.device or isinstance(s, c_ast.Pragma):
            return
        if id(s) in self.teams:
            return self.team_body(s, self.teams[id(s)])
        if isinstance(s, c_ast.Compound):
            return self.block(s)
        if isinstance(s, c_ast.Decl):
            self.scope.declare(s)
            return self.probe(where, [s.init] if s.init is not None else [], True, s, True)
        if isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.scope.declare(d)
            return self.hoisted(s, where)
        if isinstance(s, c_ast.If):
            self.probe(where, [s.cond], True, s.cond, True)
            self.branch(s, where[0], s.iftrue)
            if s.iffalse is not None:
                self.branch(s, where[0], s.iffalse, after_else=True)
            return
        if isinstance(s, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
            if not self.active(s):
                return self.hoisted(s, where)
            if isinstance(s, c_ast.Switch):
                raise NotProbed("a switch statement holds device work")
            return self.loop(s, where)
        if isinstance(s, c_ast.Label):  # probed after the label: a jump to it runs the probe
            return self.statement(s.stmt, self.text.after_label(where))
        if isinstance(s, c_ast.Return):
            self.return_site(s)
            return self.probe(where, [s.expr], True, s, True)
        if isinstance(s, (c_ast.Goto, c_ast.Break, c_ast.Continue, c_ast.EmptyStatement)):
            return
        return self.probe(where, [s], True, s, True)

    def team_body(self, s: c_ast.Node, team) -> None:
        """A parallel region run as a team of one: its statements probed in its device version
        (its host version, the original region, starts after a full sync); if they cannot
        be, its device version syncs everything at entry and exit."""
        if not isinstance(s, c_ast.Compound) or self.team is not None:
            return
        mark = len(self.probes)
        self.team = team.id
        try:
            self.block(s)
            self.probed_teams.add(team.id)
        except NotProbed:
            del self.probes[mark:]
        finally:
            self.team = None

    def branch(self, owner: c_ast.Node, owner_start: int, body: c_ast.Node,
               after_else: bool = False) -> None:
        if isinstance(body, c_ast.Compound):
            return self.block(body)
        start, end = self.text.body(owner, owner_start, body, after_else)
        self.statement(body, (start, end, True))

    def loop(self, s: c_ast.Node, where) -> None:
        header = [s.cond] + ([s.init, s.next] if isinstance(s, c_ast.For) else [])
        x = Exprs(self, set(), False)
        for e in header:
            if isinstance(e, c_ast.DeclList):
                for d in e.decls:
                    x.expr(d.init)
            else:
                x.expr(e)
        if x.out or x.announce or x.calls:
            raise NotProbed("a loop around device work reads memory or calls functions in "
                            "its header")
        self.scope.push()
        if isinstance(s, c_ast.For) and isinstance(s.init, c_ast.DeclList):
            for d in s.init.decls:
                self.scope.declare(d)
        self.branch(s, where[0], s.stmt)
        self.scope.pop()

    def block(self, b: c_ast.Compound) -> None:
        pos = self.text.items(b)
        self.scope.push()
        anchor, whole = None, False
        for item in b.block_items or []:
            start, end = pos[id(item)]
            if isinstance(item, c_ast.Pragma):
                anchor = start if anchor is None else anchor
                whole = whole or _binds_whole(item.string)
                continue
            if anchor is not None:  # a directive binds to this statement: probe above it
                try:
                    start = balanced_start(self.text.scan, anchor, start)
                except ScanError as e:
                    raise NotProbed(str(e)) from None
                anchor = None
            if id(item) in self.device:
                whole = False
                continue
            if id(item) in self.teams:
                whole = False
            if whole:  # its construct's inside takes no statements of ours
                self.hoisted(item, (start, end, False))
                whole = False
            else:
                self.statement(item, (start, end, False))
        self.scope.pop()

    def function(self, f: c_ast.FuncDef) -> None:
        if any(isinstance(n, c_ast.FuncDecl) for n in walk(f.decl.type.type)):
            raise NotProbed("it returns a function pointer")
        self.void = _returns_void(f)
        self.scope.push()
        args = f.decl.type.args
        for p in (args.params if args is not None else []):
            if isinstance(p, c_ast.Decl):
                self.scope.declare(p, param=True)
        self.block(f.body)
        self.scope.pop()


_WHOLE_OK = {"parallel", "single", "master", "masked", "critical", "ordered", "atomic",
             "barrier", "flush", "taskwait", "taskyield", "threadprivate"}


def _binds_whole(pragma: str) -> bool:
    """A directive whose statement must be probed as a whole: an OpenMP construct other than
    the ones whose inside may take statements (sections, tasks, loops ...)."""
    words = IDENT.findall(pragma)
    if len(words) < 2 or words[0] != "omp":
        return False
    kind = words[1]
    if kind == "parallel" and len(words) > 2 and words[2] in ("for", "sections", "loop",
                                                               "master", "masked"):
        return True
    return kind not in _WHOLE_OK


def _conditional(e: c_ast.Node | None) -> bool:
    """A call under a conditional operator (it may not run)."""
    if e is None:
        return False
    for n in walk(e):
        if isinstance(n, c_ast.TernaryOp) or (isinstance(n, c_ast.BinaryOp) and n.op in (
                "&&", "||")):
            if any(isinstance(m, c_ast.FuncCall) for m in walk(n)):
                return True
    return False


def _returns_void(f: c_ast.FuncDef) -> bool:
    t = f.decl.type.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
        t.type.names == ["void"]


def _has_loop(stmt: c_ast.Node) -> bool:
    return any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Goto))
               for n in walk(stmt))

