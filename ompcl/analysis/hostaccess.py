"""Host accesses: what memory the host code of a translated function may touch, statement by
statement, so that data can stay on the device across kernels, loops and calls.

Consumes the program, its offloaded regions and teams; produces a ``HostPlan``: the functions
whose host code is *instrumented* and, per function, a ``Probe`` before each host statement:
the memory it may read or write, as C expressions of an address and a byte count evaluated
just before the statement (a single element where its address is known then, a whole named
array where not, any memory where neither), and the instrumented function it calls, if any.

The runtime keeps every array where the last kernel left it; a probe makes the host copy of
what the statement touches valid first (a partial copy) and marks what it may write stale on
the device. A function is instrumented when it runs kernels or calls functions that may (its
callers then know the data may be on the device); it tells the runtime when it is entered
and left, and its callers announce calls to it, so that leaving it for a caller that is not
instrumented makes every host copy valid. A statement whose accesses cannot be described
gets an "any memory" probe: a missed fact costs copies, never a wrong answer. A function
whose statements cannot all be probed (text from macros, accesses in loop headers, switch
statements around kernels) is not instrumented: its regions keep the per-block residency of
``analysis.residency``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_generator

from ..frontend.program import Program
from ..frontend.siblings import ask, has_omp_directive, text_of
from ..frontend.textscan import IDENT, ScanError
from ..ir import Region, Team
from . import libcalls
from .builtins import is_math
from .ctypes_ import TypeEnv, walk
from .placement import balanced_start
from .summaries import NO_MEMORY as _NO_MEMORY, READS_ARGS as _READS_ARGS
from .summaries import FileScope, params_of, pointee, split_pointer, subst as _subst, summarize

READ, WRITE = 1, 2

_GEN = c_generator.CGenerator()


@dataclass(frozen=True)
class HostAccess:
    """Memory a host statement may touch: ``size`` bytes from ``addr`` (C expressions), or any
    memory (``addr`` None); with ``lo`` and ``hi``: elements [lo, hi) of ``size`` bytes from
    ``addr`` (a callee's range, evaluated before the call); ``object``: the whole object
    that the pointer ``addr`` points into, as the runtime knows the program's objects."""

    mode: int
    addr: str | None = None
    size: str = "0"
    lo: str | None = None
    hi: str | None = None
    object: bool = False  # the whole object ``addr`` points into (a pointer's value)


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


@dataclass(frozen=True)
class FunctionPlan:
    """An instrumented function: its body's braces (text offsets), probes and returns."""

    func: c_ast.FuncDef
    open: int
    close: int
    probes: tuple
    returns: tuple
    marker: bool  # visible to other files: defines the symbol that says it is instrumented


@dataclass(frozen=True)
class HostPlan:
    functions: tuple[FunctionPlan, ...] = ()
    externs: tuple[str, ...] = ()  # functions of other files whose markers are referenced
    not_instrumented: dict[str, str] = field(default_factory=dict)  # name -> why
    teams: frozenset = frozenset()  # teams whose device versions are probed too
    objects: tuple[str, ...] = ()  # file-scope arrays the runtime learns (host_object)

    def instrumented(self, name: str) -> bool:
        return any(f.func.decl.name == name for f in self.functions)


class NotProbed(Exception):
    """A function's host code cannot be probed (the message says why)."""


def _name(call: c_ast.FuncCall) -> str | None:
    return call.name.name if isinstance(call.name, c_ast.ID) else None


# -- variables -------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Var:
    """kind: 'array' (a named object of known size: array or struct), 'pointer', 'scalar' or
    'other'; rank: subscripts that reach an element without loading a pointer."""

    kind: str
    rank: int = 0


def _classify(tnode: c_ast.Node, param: bool, env: TypeEnv) -> _Var:
    node, dims = tnode, 0
    while isinstance(node, c_ast.ArrayDecl):
        dims += 1
        if dims == 1 and (param or node.dim is None):
            param = True  # an array parameter, or of unknown size: a pointer
        node = node.type
    if param and dims:
        return _Var("pointer", dims)
    if isinstance(node, c_ast.PtrDecl):
        if dims:
            return _Var("array", dims)  # an array of pointers: its elements
        inner, rank = node.type, 1
        while isinstance(inner, c_ast.ArrayDecl):
            rank += 1
            inner = inner.type
        return _Var("pointer", rank)
    if isinstance(node, c_ast.TypeDecl):
        inner = node.type
        if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 and \
                inner.names[0] in env.typedefs:
            sub = _classify(env.typedefs[inner.names[0]], False, env)
            if sub.kind == "pointer" and dims:
                return _Var("array", dims)
            if sub.kind in ("array", "pointer"):
                return _Var(sub.kind, sub.rank + dims)
            return _Var("array", dims) if dims else sub
        if dims or isinstance(inner, (c_ast.Struct, c_ast.Union)):
            return _Var("array", dims)
        return _Var("scalar")
    return _Var("other")


class _Scope:
    def __init__(self, env: TypeEnv, globals_: dict[str, _Var]):
        self.env = env
        self.frames: list[dict[str, _Var]] = [dict(globals_)]

    def push(self) -> None:
        self.frames.append({})

    def pop(self) -> None:
        self.frames.pop()

    def declare(self, decl: c_ast.Decl, param: bool = False) -> None:
        if decl.name and not isinstance(decl.type, c_ast.FuncDecl):
            self.frames[-1][decl.name] = _classify(decl.type, param, self.env)

    def is_global(self, name: str) -> bool:
        """``name`` means the file-scope object here (no local hides it)."""
        return name in self.frames[0] and not any(name in f for f in self.frames[1:])

    def get(self, name: str) -> _Var:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return _Var("other")


# -- expressions -----------------------------------------------------------------------------

def _free(nodes) -> set[str]:
    """The names an expression reads."""
    return {n.name for e in nodes for n in walk(e) if isinstance(n, c_ast.ID)}


def _assigned(node: c_ast.Node) -> set[str]:
    """Names a statement may assign (directly, or by passing their address)."""
    out = set()
    for n in walk(node):
        target = None
        if isinstance(n, c_ast.Assignment):
            target = n.lvalue
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            target = n.expr
        elif isinstance(n, c_ast.UnaryOp) and n.op == "&":
            target = n.expr  # its address may be used to change it
            while isinstance(target, (c_ast.ArrayRef, c_ast.StructRef)):
                target = target.name
        elif isinstance(n, c_ast.Decl):
            out.add(n.name)
        while isinstance(target, c_ast.StructRef) and target.type == ".":
            target = target.name  # s.x = ...: the variable s changes
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


class _Exprs:
    """Accesses of the expressions of one statement (``unstable``: names the statement may
    change, so that an address computed before it would not be the one it uses)."""

    def __init__(self, plan: "_Planner", unstable: set[str], exact: bool):
        self.p = plan
        self.unstable = unstable
        self.exact = exact
        self.out: list[HostAccess] = []
        self.announce: list[tuple[str, bool]] = []
        self.calls = 0

    def any(self, mode: int) -> None:
        self.out.append(HostAccess(mode))

    def simple(self, e: c_ast.Node) -> bool:
        """An expression of scalars only, none of which the statement changes."""
        for n in walk(e):
            if isinstance(n, c_ast.ID):
                if n.name in self.unstable or self.p.scope.get(n.name).kind not in (
                        "scalar", "other"):
                    return False
            elif not isinstance(n, (c_ast.Constant, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.Cast,
                                    c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType,
                                    c_ast.TernaryOp)):
                return False
            elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "*", "&",
                                                           "sizeof"):
                return False
        return True

    def whole(self, name: str, mode: int) -> None:
        v = self.p.scope.get(name)
        if v.kind == "array":
            self.out.append(HostAccess(mode, f"(const void *)&({name})", f"sizeof({name})"))
        elif v.kind == "pointer" and name not in self.unstable:
            self.pointee_object(name, mode)
        else:
            self.any(mode)

    def pointee_object(self, pointer: str, mode: int) -> None:
        """The object a pointer variable points into (C's pointer arithmetic stays there),
        found at run time among the program's known objects (else any memory)."""
        self.out.append(HostAccess(mode, f"(const void *)({pointer})", object=True))

    def lvalue(self, e: c_ast.Node, mode: int) -> None:
        """An object designated by ``e`` is read (mode READ) or written."""
        if isinstance(e, c_ast.ID):
            return  # a named scalar, or an array named as a whole (not an access)
        if isinstance(e, c_ast.ArrayRef):
            return self.array_ref(e, mode)
        if isinstance(e, c_ast.StructRef):
            return self.struct_ref(e, mode)
        if isinstance(e, c_ast.UnaryOp) and e.op == "*":
            self.expr(e.expr)
            if isinstance(e.expr, c_ast.ID) and self.exact and e.expr.name not in self.unstable:
                p = e.expr.name
                self.out.append(HostAccess(mode, f"(const void *)({p})", f"sizeof(*({p}))"))
            elif isinstance(e.expr, c_ast.ID) and e.expr.name not in self.unstable and \
                    self.p.scope.get(e.expr.name).kind == "pointer":
                self.pointee_object(e.expr.name, mode)
            else:
                self.any(mode)
            return
        if isinstance(e, c_ast.Cast):
            return self.lvalue(e.expr, mode)
        self.expr(e)
        self.any(mode)

    def array_ref(self, e: c_ast.ArrayRef, mode: int) -> None:
        subs, base = [], e
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        for s in subs:
            self.expr(s)
        if not isinstance(base, c_ast.ID):
            self.expr(base)
            return self.any(mode)
        v = self.p.scope.get(base.name)
        if v.kind not in ("array", "pointer") or len(subs) > v.rank:
            return self.any(mode)  # through a loaded pointer (p[i][j] of double **p)
        if self.exact and base.name not in self.unstable and all(self.simple(s) for s in subs):
            text = _GEN.visit(e)
            self.out.append(HostAccess(mode, f"(const void *)&({text})", f"sizeof({text})"))
        else:
            self.whole(base.name, mode)

    def struct_ref(self, e: c_ast.StructRef, mode: int) -> None:
        base = e.name
        if e.type == "->":
            self.expr(base)
            if isinstance(base, c_ast.ID) and self.exact and base.name not in self.unstable:
                self.out.append(HostAccess(mode, f"(const void *)({base.name})",
                                           f"sizeof(*({base.name}))"))
            elif isinstance(base, c_ast.ID) and base.name not in self.unstable and \
                    self.p.scope.get(base.name).kind == "pointer":
                self.pointee_object(base.name, mode)
            else:
                self.any(mode)
            return
        while isinstance(base, c_ast.StructRef) and base.type == ".":
            base = base.name
        if isinstance(base, c_ast.ID):
            return self.whole(base.name, mode)
        if isinstance(base, c_ast.ArrayRef):  # a[i].x: the element a[i]
            return self.array_ref(base, mode)
        self.lvalue(base, mode)

    def call(self, e: c_ast.FuncCall) -> None:
        args = e.args.exprs if e.args is not None else []
        name = _name(e)
        known = libcalls.buffers(name)
        if known is not None:
            return self.library(known, args)
        if name is None:
            self.expr(e.name)
        for a in args:
            self.expr(a)
        kind = self.p.callee(name)
        if kind not in ("pure", "reads"):  # calls that may enter instrumented code
            self.calls += 1
        if kind == "pure":
            return
        if kind == "reads":
            for a in args:
                self.pointed(a, READ)
            return
        if kind in ("instrumented", "extern"):
            self.announce.append((name, kind == "extern"))
            return
        found = self.p.summary(name) if name is not None else None  # else through a pointer
        if found is None:
            return self.any(READ | WRITE)
        summary, callee = found
        for t in summary.touches:
            self.bound(t, params_of(callee), args)

    def library(self, known: tuple, args: list) -> None:
        """A library call with known memory effects (``libcalls``): each buffer argument's
        ``count * sizeof(datatype)`` bytes where they can be computed before the statement,
        else the whole array it points into, else any memory; the other arguments are
        values."""
        buffers = {b.arg: b for b in known}
        for k, a in enumerate(args):
            if k in buffers:
                self.address(a)  # subscripts evaluated; the buffer itself is not a value
            else:
                self.expr(a)
        for b in known:
            if b.arg >= len(args):
                return self.any(READ | WRITE)
            mode = b.mode
            if b.inplace is not None and b.inplace < len(args) and \
                    libcalls.is_constant_pointer(args[b.inplace]):
                mode |= READ  # MPI_IN_PLACE: the receive buffer holds the input
            self.buffer(args[b.arg], mode, *(
                args[i] if i is not None and i < len(args) else None for i in (b.count, b.dtype)))

    def buffer(self, arg: c_ast.Node, mode: int, count, dtype) -> None:
        """A library call's buffer argument ``arg``: ``count`` elements of ``dtype``."""
        if libcalls.is_constant_pointer(arg):
            return  # MPI_IN_PLACE, MPI_STATUS_IGNORE, NULL
        bare = arg
        while isinstance(bare, c_ast.Cast):
            bare = bare.expr
        taken = bare.expr if isinstance(bare, c_ast.UnaryOp) and bare.op == "&" else None
        if isinstance(taken, c_ast.ID):  # &x: the variable itself (a status, a request)
            if self.p.scope.get(taken.name).kind != "scalar":  # no device copy of a scalar
                self.out.append(HostAccess(mode, f"(const void *)&({taken.name})",
                                           f"sizeof({taken.name})"))
            return
        base, stable = self.pointer_argument(arg)
        if base is None and taken is not None:
            base, stable = self.element_base(taken)
        size = libcalls.datatype_size(dtype) if dtype is not None else None
        if base is not None and stable and self.exact and size and self.simple(count):
            self.out.append(HostAccess(mode, f"(const void *)({_GEN.visit(arg)})",
                                       f"(size_t)({_GEN.visit(count)}) * {size}"))
        elif base is not None:
            self.whole(base, mode)
        else:
            self.any(mode)

    def element_base(self, e: c_ast.Node) -> tuple[str | None, bool]:
        """(the array or pointer variable, whether the address can be computed before the
        statement) of ``&e`` for an element or member ``e`` (``&a[i][j]``, ``&s.f``)."""
        subs = []
        while isinstance(e, c_ast.ArrayRef) or (isinstance(e, c_ast.StructRef)
                                                and e.type == "."):
            if isinstance(e, c_ast.ArrayRef):
                subs.append(e.subscript)
            e = e.name
        if not isinstance(e, c_ast.ID):
            return None, False
        v = self.p.scope.get(e.name)
        if v.kind not in ("array", "pointer") or len(subs) > v.rank:
            return None, False  # through a loaded pointer (p[i][j] of double **p)
        fixed = v.kind == "array" or e.name not in self.unstable  # (&a[i] "changes" a)
        return e.name, fixed and all(self.simple(x) for x in subs)

    def bound(self, t, params: list, args: list) -> None:
        """A callee's touch (``summaries.Touch``) at this call, its parameters bound to the
        arguments: a range where the arguments can be evaluated before the statement, the
        whole array they point into where not, any memory where neither."""
        names = {p.name: a for p, a in zip(params, args)}
        lo = hi = None
        if t.lo is not None and self.exact and all(self.simple(names[n]) for n in _free(
                (t.lo, t.hi)) if n in names) and not (_free((t.lo, t.hi)) - set(names)):
            lo, hi = _GEN.visit(_subst(t.lo, names)), _GEN.visit(_subst(t.hi, names))
        if t.glob is not None:
            v = self.p.scope.get(t.glob)
            if v.kind != "array" or not self.p.scope.is_global(t.glob):
                return self.any(t.mode)
            if lo is None:
                return self.whole(t.glob, t.mode)
            self.out.append(HostAccess(t.mode, f"(const void *)({t.glob})",
                                       f"sizeof(({t.glob})[0])", lo, hi))
            return
        if t.param >= len(args):
            return self.any(t.mode)
        arg = args[t.param]
        if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID) \
                and self.p.scope.get(arg.expr.name).kind == "scalar":
            return  # a scalar's address: no device copy is kept of a scalar
        base, stable = self.pointer_argument(arg)
        v = self.p.scope.get(base) if base else None
        elem = pointee(params[t.param])
        if lo is not None and stable and elem is not None:
            etype = _GEN.visit(c_ast.Typename(None, [], None, elem))
            self.out.append(HostAccess(t.mode, f"(const void *)({_GEN.visit(arg)})",
                                       f"sizeof({etype})", lo, hi))
        elif base is not None and v.kind in ("array", "pointer"):
            self.whole(base, t.mode)
        else:
            self.any(t.mode)

    def pointer_argument(self, arg: c_ast.Node) -> tuple[str | None, bool]:
        """(the array or pointer variable a pointer argument points into, whether its value
        can be computed before the statement): ``p``, ``p + e``, ``&p[e]``, a row ``a[i]`` of
        an array of arrays."""
        base, off = split_pointer(arg)
        subs: list = [] if off is None else [off]
        if base is None:
            row = arg
            while isinstance(row, c_ast.Cast):
                row = row.expr
            while isinstance(row, c_ast.ArrayRef):
                subs.append(row.subscript)
                row = row.name
            if not isinstance(row, c_ast.ID) or len(subs) >= self.p.scope.get(row.name).rank:
                return None, False
            base = row.name
        v = self.p.scope.get(base)
        if v.kind not in ("array", "pointer"):
            return None, False
        return base, base not in self.unstable and all(self.simple(x) for x in subs)

    def pointed(self, a: c_ast.Node, mode: int) -> None:
        """Memory a pointer argument of a library call points to: a named array (or a row of
        one) as a whole, a pointer variable's target as any memory; other arguments are
        values (their own accesses are counted as reads)."""
        while isinstance(a, c_ast.Cast):
            a = a.expr
        subs, base = 0, a
        while isinstance(base, c_ast.ArrayRef):
            subs += 1
            base = base.name
        if not isinstance(base, c_ast.ID) or self.p.file_pointer(base.name):
            return
        v = self.p.scope.get(base.name)
        if v.kind == "array" and subs < v.rank:
            self.whole(base.name, mode)
        elif v.kind == "pointer" and subs == 0:
            self.whole(base.name, mode)
        elif v.kind == "pointer" and subs < v.rank:
            self.any(mode)

    def expr(self, e: c_ast.Node | None) -> None:
        if e is None:
            return
        if isinstance(e, c_ast.Assignment):
            self.lvalue(e.lvalue, WRITE if e.op == "=" else READ | WRITE)
            return self.expr(e.rvalue)
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("++", "--", "p++", "p--"):
                return self.lvalue(e.expr, READ | WRITE)
            if e.op == "&":
                return self.address(e.expr)
            if e.op == "sizeof":
                return
            if e.op == "*":
                return self.lvalue(e, READ)
            return self.expr(e.expr)
        if isinstance(e, (c_ast.ArrayRef, c_ast.StructRef)):
            return self.lvalue(e, READ)
        if isinstance(e, c_ast.FuncCall):
            return self.call(e)
        if isinstance(e, (c_ast.ID, c_ast.Constant, c_ast.Typename)):
            return
        if isinstance(e, c_ast.InitList):
            for x in e.exprs:
                self.expr(x)
            return
        if isinstance(e, c_ast.CompoundLiteral):
            return self.expr(e.init)
        for _, child in e.children():
            self.expr(child)

    def address(self, e: c_ast.Node) -> None:
        """``&e``: nothing is accessed, but subscripts and pointers in ``e`` are evaluated."""
        while isinstance(e, (c_ast.ArrayRef, c_ast.StructRef)):
            if isinstance(e, c_ast.ArrayRef):
                self.expr(e.subscript)
            elif e.type == "->":
                return self.expr(e.name)
            e = e.name
        if not isinstance(e, c_ast.ID):
            self.expr(e)


# -- statements ------------------------------------------------------------------------------

class _Text:
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


class _Planner:
    """Probes for the statements of one function."""

    def __init__(self, prog: Program, env: TypeEnv, globals_: dict[str, _Var],
                 device: set[int], classify_call, text: "_Text", teams: dict | None = None,
                 summary=None):
        self.summary = summary or (lambda name: None)  # name -> (Summary, FuncDef) | None
        self.teams = teams or {}  # statement id -> Team
        self.team: int | None = None  # the team whose device version is being probed
        self.probed_teams: set[int] = set()
        self.prog = prog
        self.text = text
        self.scope = _Scope(env, globals_)
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
        for n in walk(node):
            if id(n) in self.device:
                return True
            if isinstance(n, c_ast.FuncCall) and self.callee(_name(n)) in (
                    "instrumented", "extern"):
                return True
        return False

    def probe(self, where: tuple[int, int, bool], exprs: list, exact: bool,
              unstable_in: c_ast.Node, sure: bool = False) -> None:
        """``sure``: the statement's calls run whenever it does (no loop, no conditional
        operator around them): only then may a call be announced, since an announcement
        that no call takes would be taken by the next instrumented function entered."""
        x = _Exprs(self, _assigned(unstable_in), exact)
        for e in exprs:
            x.expr(e)
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
        x = _Exprs(self, set(), False)
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


# -- the plan --------------------------------------------------------------------------------

def _globals(ast: c_ast.FileAST, env: TypeEnv) -> dict[str, _Var]:
    out = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl):
            out[ext.name] = _classify(ext.type, False, env)
    return out


def _grow(funcs: dict[str, c_ast.FuncDef], instrumented: set[str], classify,
          failed: dict[str, str]) -> None:
    """Add the functions that call instrumented ones (or may: in other files), to a fixpoint."""
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name not in instrumented and name not in failed and any(
                    isinstance(n, c_ast.FuncCall) and classify(_name(n) or "") in (
                        "instrumented", "extern") for n in walk(f.body)):
                instrumented.add(name)
                changed = True


def _pure_functions(funcs: dict[str, c_ast.FuncDef], instrumented: set[str]) -> set[str]:
    """This file's functions that touch no memory but their own scalars (no subscripts,
    member accesses or dereferences; calls only to such functions and the math library)."""
    pure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name in pure or name in instrumented:
                continue
            ok = True
            for n in walk(f.body):
                if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (
                        isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&")):
                    ok = False
                elif isinstance(n, c_ast.FuncCall):
                    callee = _name(n)
                    ok = callee is not None and (is_math(callee) or callee in pure or (
                        callee in _NO_MEMORY and callee not in ("exit", "abort")) or
                        libcalls.LIBRARY.get(callee, (None,)) == ())
                if not ok:
                    break
            if ok:
                pure.add(name)
                changed = True
    return pure


def _braces(text: _Text, f: c_ast.FuncDef) -> tuple[int, int]:
    """Offsets of a function body's braces."""
    open_ = text.offset(f.body)
    if text.prog.source[open_:open_ + 1] != "{":
        raise NotProbed("its body comes from a macro expansion")
    try:
        return open_, text.scan.match(open_, "{", "}") - 1
    except ScanError as e:
        raise NotProbed(str(e)) from None


def _visible(f: c_ast.FuncDef) -> bool:
    return "static" not in (f.decl.storage or [])


class _Externs:
    """Which functions of other files may be instrumented there: defined in one of the
    program's sources that holds an OpenMP directive (a text search; the linked markers
    decide at run time)."""

    def __init__(self, library):
        self.library = library
        self.cache: dict[str, bool] = {}

    def possible(self, name: str) -> bool:
        if self.library is None:
            return False
        if name not in self.cache:
            self.cache[name] = ask("defines-with-omp", self.library.candidates(), name)
        return self.cache[name]


def _own_scope(globals_: dict[str, _Var]) -> FileScope:
    """What this file's callers can say of its file-scope objects (``summaries.FileScope``):
    its arrays by name; its scalars never have a device copy."""
    return FileScope(frozenset(n for n, v in globals_.items() if v.kind == "array"),
                     frozenset(n for n, v in globals_.items() if v.kind == "scalar"))


def _other_scope(ast: c_ast.FileAST, env: TypeEnv) -> FileScope:
    """The same for another source without OpenMP directives: its arrays other files can name
    (not static); its scalars, and its static arrays whose address never leaves their
    subscripts (only that file's code reaches them, and it runs no kernel), are ignored."""
    names, ignored = set(), set()
    static = {e.name for e in ast.ext
              if isinstance(e, c_ast.Decl) and "static" in (e.storage or [])}
    for name, v in _globals(ast, env).items():
        if v.kind == "scalar":
            ignored.add(name)
        elif v.kind == "array" and name not in static:
            names.add(name)
        elif v.kind == "array" and not _escapes(ast, name):
            ignored.add(name)
    return FileScope(frozenset(names), frozenset(ignored))


def _escapes(ast: c_ast.FileAST, name: str) -> bool:
    """Whether a file-scope array's address may leave its own subscripts (a use of the
    name other than ``name[...]`` or ``sizeof``)."""
    bases, sized = set(), set()
    for n in walk(ast):
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID):
            bases.add(id(n.name))
        elif isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            sized |= {id(m) for m in walk(n.expr)}
    return any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in bases
               and id(n) not in sized for n in walk(ast))


class _Summaries:
    """Summaries (``analysis.summaries``) of the functions host code calls that are not
    instrumented: this file's, and those of the program's other sources that have no OpenMP
    directive (the library finds them)."""

    def __init__(self, funcs: dict, here: FileScope, instrumented: set[str], library, env):
        self.funcs, self.here, self.instrumented = funcs, here, instrumented
        self.library, self.env = library, env
        self.memo: dict[str, tuple | None] = {}
        self.scopes: dict[str, FileScope | None] = {}

    def find(self, name: str):
        if name in self.funcs:
            return None if name in self.instrumented else (self.funcs[name], self.here)
        if self.library is None:
            return None
        ext = self.library.find(name)
        if ext is None:
            return None
        if ext.path not in self.scopes:
            text = text_of(Path(ext.path)) or ""
            directives = has_omp_directive(text)
            self.scopes[ext.path] = None if directives else _other_scope(
                ext.ast, TypeEnv.of(ext.ast))
        scope = self.scopes[ext.path]
        return None if scope is None else (ext.fdef, scope)

    def __call__(self, name: str):
        """(summary, definition) of ``name``, or None: it may touch any memory."""
        if name not in self.memo:
            found = self.find(name)
            summary = summarize(found[0], found[1], self.find) if found else None
            self.memo[name] = (summary, found[0]) if summary is not None else None
        return self.memo[name]


def plan_host(prog: Program, regions: tuple[Region, ...], teams: tuple[Team, ...],
              library=None) -> HostPlan:
    """Instrument the functions that run kernels or call functions that may (see module)."""
    env = TypeEnv.of(prog.ast)
    funcs = {e.decl.name: e for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)}
    defined_here = {e.decl.name for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)}
    device = {id(r.bound.stmt) for r in regions if r.offload}
    team_of = {id(t.bound.stmt): t for t in teams if t.offload}
    device_funcs = {r.bound.func.decl.name for r in regions if r.offload and r.bound.func} | {
        t.bound.func.decl.name for t in teams if t.offload and t.bound.func}
    externs = _Externs(library)
    globals_ = _globals(prog.ast, env)
    here = _own_scope(globals_)
    text = _Text(prog)
    # functions other files may call that read or write arrays this file's kernels use: their
    # callers may announce them instead of syncing everything before each call
    kernel_arrays = {a.name for r in regions if r.offload for a in r.arrays
                     if a.var.storage == "global"}
    device_funcs |= {n for n, f in funcs.items() if _visible(f) and any(
        isinstance(x, c_ast.ID) and x.name in kernel_arrays for x in walk(f.body))}
    instrumented = set(device_funcs)
    why: dict[str, str] = {}
    used_externs: set[str] = set()
    pure: set[str] = set()

    def classify(name: str) -> str:
        if name in instrumented:
            return "instrumented"
        if name in pure:
            return "pure"
        if name not in defined_here and externs.possible(name):
            return "extern"
        return "unknown"

    plans: dict[str, FunctionPlan] = {}
    while True:
        _grow(funcs, instrumented, classify, why)
        pure = _pure_functions(funcs, instrumented)
        plans, failed, probed_teams = {}, None, set()
        summaries = _Summaries(funcs, here, instrumented, library, env)
        for name in [n for n in funcs if n in instrumented]:
            planner = _Planner(prog, env, globals_, device, classify, text, team_of, summaries)
            try:
                planner.function(funcs[name])
                open_, close = _braces(text, funcs[name])
            except NotProbed as e:
                why[name], failed = str(e), name
                break
            plans[name] = FunctionPlan(funcs[name], open_, close, tuple(planner.probes),
                                       tuple(planner.returns), _visible(funcs[name]))
            probed_teams |= planner.probed_teams
        if failed is None:
            break
        instrumented = set(device_funcs) - set(why)  # its callers assumed it: plan again
    for p in plans.values():
        used_externs |= {q.announce for q in p.probes if q.extern and q.announce}
        used_externs |= {g for q in p.probes for g in q.guards}
    ordered = tuple(plans[n] for n in funcs if n in plans)
    objects = _known_objects(prog) if ordered else ()
    return HostPlan(ordered, tuple(sorted(used_externs)), why, frozenset(probed_teams), objects)


def _known_objects(prog: Program) -> tuple[str, ...]:
    """The file-scope arrays of known size this file defines or declares (not thread-private:
    each thread has its own), for the runtime's table of objects."""
    tp = prog.threadprivate()
    return tuple(dict.fromkeys(
        e.name for e in prog.ast.ext if isinstance(e, c_ast.Decl) and e.name
        and isinstance(e.type, c_ast.ArrayDecl) and e.type.dim is not None
        and e.name not in tp and e.coord is not None and e.coord.file == prog.path))
