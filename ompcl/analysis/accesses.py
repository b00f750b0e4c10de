"""Access analysis: a loop body -> ``BodyInfo`` (arrays with subscripts and their index forms,
scalars read and written, locals, calls, inner loops) plus every construct that blocks
offloading, as ``Reason`` s.

Names are resolved with C's block scopes. For index forms the scanner also follows each
scalar's single reaching definition in structured code: a body-local ``int k = i * M + j;`` or
a private ``k = i + n * j;`` assigned at block level stands for its value until it is written
again, the block ends, or a loop or switch around the use may write it. Guards (``if``,
``?:``, ``&&``, ``||``) on the way to an access become ``Constraint`` s of that access.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.pragma import is_omp_pragma
from ..ir import Affine, Constraint, Sym, SymKind, Var
from .ctypes_ import c_text, walk
from .index import constraints, expr_symbol, form
from .loops import NotCanonical, canonical_loop


@dataclass(frozen=True)
class RawAccess:
    """One subscripted use of an array (or pointer) that is not local to the body."""

    name: str
    write: bool
    read: bool
    subscripts: tuple[c_ast.Node, ...]
    loc: SourceLoc
    index: tuple[Affine | None, ...] = ()  # form of each subscript (empty without a scope)
    guards: tuple[Constraint, ...] = ()
    #: an element's address passed to a call (``f(n, &a[i][1])``): (callee, argument
    #: position, the form of every argument (None where it has none))
    call: tuple | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Atomic:
    """An ``omp atomic`` update or write of a shared scalar or array element."""

    stmt: c_ast.Node = field(compare=False, repr=False)
    target: str  # the scalar or array updated
    op: str  # '+', '-', '*', ... for updates; '=' for writes
    loc: SourceLoc | None = None


#: update operators OpenMP's atomic allows, and the compound assignments that spell them
_ATOMIC_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "&": "&", "|": "|", "^": "^",
               "<<": "<<", ">>": ">>"}


def atomic_form(stmt: c_ast.Node, kind: str) -> tuple[c_ast.Node, str, c_ast.Node | None] | None:
    """(target, operator, value) of an atomic statement of the given kind ('update',
    'write', 'read' (target is the value read)), or None when it has another form."""
    if kind == "update" and isinstance(stmt, c_ast.UnaryOp) and stmt.op in (
            "++", "--", "p++", "p--"):
        return stmt.expr, "+" if "+" in stmt.op else "-", c_ast.Constant("int", "1")
    if not isinstance(stmt, c_ast.Assignment):
        return None
    if kind == "update" and stmt.op[:-1] in _ATOMIC_OPS and stmt.op.endswith("="):
        return stmt.lvalue, stmt.op[:-1], stmt.rvalue
    if kind == "update" and stmt.op == "=" and isinstance(stmt.rvalue, c_ast.BinaryOp):
        e, target = stmt.rvalue, c_text(stmt.lvalue)
        if e.op in _ATOMIC_OPS and c_text(e.left) == target:
            return stmt.lvalue, e.op, e.right
        if e.op in ("+", "*", "&", "|", "^") and c_text(e.right) == target:
            return stmt.lvalue, e.op, e.left
    if kind == "write" and stmt.op == "=":
        return stmt.lvalue, "=", stmt.rvalue
    if kind == "read" and stmt.op == "=":
        return stmt.rvalue, "read", None
    return None


@dataclass(frozen=True)
class InnerLoop:
    """A canonical loop inside the body whose variable is an index symbol."""

    sym: Sym
    lb: Affine | None
    ub: Affine | None
    op: str
    loop: c_ast.For = field(compare=False, repr=False)


@dataclass(frozen=True)
class IndexScope:
    """What names mean at the top of a region's loop body."""

    dims: dict[str, Sym]  # loop variables of the region's nest
    scope: dict[str, Var]  # variables visible where the region starts
    enumerators: frozenset[str] = frozenset()


@dataclass(frozen=True)
class BodyInfo:
    """What a loop body (or a function body) touches."""

    accesses: tuple[RawAccess, ...]
    scalar_reads: frozenset[str]
    scalar_writes: frozenset[str]
    pointer_uses: frozenset[str]  # names used as whole arrays/pointers (call arguments)
    locals: frozenset[str]
    calls: tuple[tuple[str, c_ast.FuncCall], ...]
    inner_loops: tuple[c_ast.For, ...]
    problems: tuple[Reason, ...]
    local_decls: tuple[c_ast.Decl, ...] = field(default=())
    inner: tuple[InnerLoop, ...] = ()
    live_in: frozenset[str] = frozenset()  # outer names read before surely assigned
    assigned: frozenset[str] = frozenset()  # outer names surely assigned by the end
    atomics: tuple[Atomic, ...] = ()
    atomic_only: frozenset[str] = frozenset()  # shared scalars written only atomically


def arrays_written(node: c_ast.Node | None) -> set[str]:
    """Base names of the arrays (or pointers) whose elements ``node`` writes."""
    out: set[str] = set()
    for sub in walk(node) if node is not None else ():
        target = sub.lvalue if isinstance(sub, c_ast.Assignment) else sub.expr if isinstance(
            sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--") else None
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


def names_written(node: c_ast.Node | None) -> set[str]:
    """Names assigned, incremented or address-taken anywhere in ``node`` (by name)."""
    out: set[str] = set()
    if node is None:
        return out
    for sub in walk(node):
        target = None
        if isinstance(sub, c_ast.Assignment):
            target = sub.lvalue
        elif isinstance(sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--", "&"):
            target = sub.expr
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


_LOCAL = "local"


class _Scanner:
    def __init__(self, known_locals: set[str], index: IndexScope | None):
        self.index = index
        # name -> binding: ('local', decl id) | ('loop', Sym) | ('param', name)
        self.env: dict[str, tuple] = {n: ("param", n) for n in known_locals}
        self.defs: dict[tuple, Affine | None] = {}  # binding key -> current definition
        self.frames: list[set] = [set()]  # keys written per nested statement
        self.guards: list[Constraint] = []
        self.no_defs = 0  # inside a switch: labels make block-level definitions unsafe
        self.acc: list[RawAccess] = []
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.ptr_uses: set[str] = set()
        self.calls: list[tuple[str, c_ast.FuncCall]] = []
        self.loops: list[c_ast.For] = []
        self.inner: list[InnerLoop] = []
        self.problems: list[Reason] = []
        self.decls: list[c_ast.Decl] = []
        self.declared: set[str] = set(known_locals)
        self.assigned: set[str] = set()  # outer names surely assigned so far in the iteration
        self.live_in: set[str] = set()
        self.atomics: list[Atomic] = []
        self.passing: tuple | None = None  # the call an element address is passed to
        self.in_atomic = False
        self.plain_writes: set[str] = set()  # outer names written outside atomic statements

    def problem(self, node: c_ast.Node, id: str, msg: str) -> None:
        loc = SourceLoc.of(node)
        self.problems.append(Reason(id, f"{msg} (line {loc.line})", loc))

    # -- names, definitions and index forms -------------------------------------------------
    def is_local(self, name: str) -> bool:
        return name in self.env and self.env[name][0] != "loop"

    def own(self, name: str) -> bool:
        """Whether ``name`` is the body's own: a local, or the variable of a loop that is not
        an outer variable (the region's loops, a loop declaring its variable)."""
        b = self.env.get(name, ("",))
        return self.is_local(name) or b[0] == "loop" and not (len(b) > 2 and b[2])

    def key(self, name: str) -> tuple:
        b = self.env.get(name)
        return b if b is not None and b[0] != "loop" else ("outer", name)

    def note_write(self, name: str) -> None:
        key = self.key(name)
        for f in self.frames:
            f.add(key)
        self.defs.pop(key, None)

    def resolve(self, name: str) -> Affine | None:
        b = self.env.get(name)
        if b is not None and b[0] == "loop":
            return Affine.of(b[1])
        if b is not None:
            return self.defs.get(b)
        if self.index is None:
            return None
        if name in self.body_writes:
            return self.defs.get(("outer", name))
        if name in self.index.dims:
            return Affine.of(self.index.dims[name])
        v = self.index.scope.get(name)
        if v is not None and v.ctype.is_scalar and v.ctype.base not in ("float", "double"):
            return Affine.of(Sym(SymKind.VAR, name, id(v.decl), v))
        if name in self.index.enumerators:
            return Affine.of(Sym(SymKind.EXPR, name, name))
        return None

    def invariant_name(self, name: str) -> bool:
        if self.index is None or name in self.env or name in self.body_writes:
            return False
        return name in self.index.scope or name in self.index.enumerators

    def invariant_memory(self, name: str) -> bool:
        """A statically sized array the body does not write, in a body that writes through
        no pointer (which could alias it): its elements are loop-invariant."""
        v = self.index.scope.get(name) if self.index is not None else None
        if v is None or v.ctype.pointer or not v.ctype.dims or name in self.env:
            return False
        if name in self.body_arrays_written:
            return False
        return not any(self.index.scope[a].ctype.pointer for a in self.body_arrays_written
                       if a in self.index.scope)

    def invariant(self, e: c_ast.Node) -> Sym | None:
        if self.index is None:
            return None
        return expr_symbol(e, self.invariant_name, self.invariant_memory)

    def form(self, e: c_ast.Node) -> Affine | None:
        return form(e, self.resolve, self.invariant) if self.index is not None else None

    def facts(self, cond: c_ast.Node, positive: bool) -> list[Constraint]:
        if self.index is None:
            return []
        return constraints(cond, positive, self.resolve, self.invariant)

    @contextmanager
    def nested(self, writes_in: c_ast.Node | None = None):
        """A nested statement: its declarations end with it, and the definitions it writes
        (or, for a loop, that its body may write before a use) stop reaching after it."""
        env, saved = dict(self.env), dict(self.defs)
        if writes_in is not None:  # a loop: later iterations may see any write in it
            for name in names_written(writes_in):
                saved.pop(self.key(name), None)
                self.defs.pop(self.key(name), None)
        self.frames.append(set())
        try:
            yield
        finally:
            written = self.frames.pop()
            self.frames[-1] |= written
            self.env = env
            self.defs = {k: v for k, v in saved.items() if k not in written}

    @contextmanager
    def guarded(self, facts: list[Constraint]):
        self.guards += facts
        try:
            yield
        finally:
            del self.guards[len(self.guards) - len(facts):]

    # -- statements ----------------------------------------------------
    def stmt(self, n: c_ast.Node | None, depth: int = 0) -> None:
        if n is None:
            return
        meth = getattr(self, "s_" + type(n).__name__, None)
        if meth is not None:
            meth(n, depth)
        else:
            self.expr(n)

    def s_Compound(self, n, depth):
        with self.nested():
            items = n.block_items or []
            k = 0
            while k < len(items):
                kind = _atomic_kind(items[k])
                if kind is not None and k + 1 < len(items):
                    self.atomic(items[k], items[k + 1], kind, depth)
                    k += 2
                    continue
                self.block_item(items[k], depth)
                k += 1

    def atomic(self, pragma: c_ast.Pragma, stmt: c_ast.Node, kind: str, depth: int) -> None:
        """``#pragma omp atomic`` and its statement: updates and writes of shared data run
        as device atomics; other forms (capture) keep the loop on the host."""
        extra = atomic_order(pragma)
        if extra is not None:
            return self.problem(pragma, "atomic-order", f"contains '#pragma omp atomic "
                                f"{extra}', which ompcl's device atomics do not give")
        form_ = atomic_form(stmt, kind)
        if form_ is None or kind in ("capture", "compare"):
            return self.problem(pragma, "omp-construct", f"contains '#pragma omp atomic "
                                f"{kind}' of a form ompcl does not run on the device")
        target = form_[0]
        base = target
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        if not isinstance(base, c_ast.ID):
            return self.problem(pragma, "omp-construct", "contains '#pragma omp atomic' on "
                                f"'{c_text(target)}'")
        if kind != "read" and not self.is_local(base.name):
            self.atomics.append(Atomic(stmt, base.name, form_[1], SourceLoc.of(pragma)))
        self.in_atomic = kind != "read"
        try:
            self.block_item(stmt, depth)
        finally:
            self.in_atomic = False

    def block_item(self, item: c_ast.Node, depth: int) -> None:
        """A statement of a block; ``x = e;`` makes ``e`` (as it is now) x's definition."""
        defines = (self.index is not None and not self.no_defs
                   and isinstance(item, c_ast.Assignment) and item.op == "="
                   and isinstance(item.lvalue, c_ast.ID)
                   and self.env.get(item.lvalue.name, ("",))[0] != "loop")
        value = self.form(item.rvalue) if defines else None
        self.stmt(item, depth)
        if defines:
            self.defs[self.key(item.lvalue.name)] = value

    def s_Decl(self, n, depth):
        if isinstance(n.type, c_ast.FuncDecl):
            return self.problem(n, "body-declaration",
                                f"declares function '{n.name}' inside the loop")
        if "static" in (n.storage or []) or "extern" in (n.storage or []):
            return self.problem(n, "body-declaration", f"declares {n.storage[0]} variable "
                                f"'{n.name}' in the loop body")
        for sub in walk(n.type):
            if isinstance(sub, c_ast.ArrayDecl) and sub.dim is not None:
                self.expr(sub.dim)
        if n.init is not None:
            self.expr(n.init)
        key = (_LOCAL, id(n))
        self.env[n.name] = key
        self.declared.add(n.name)
        self.decls.append(n)
        if n.init is not None and not self.no_defs and _is_integer_scalar(n):
            self.defs[key] = self.form(n.init)

    def s_DeclList(self, n, depth):
        for d in n.decls:
            self.s_Decl(d, depth)

    def s_For(self, n, depth):
        self.loops.append(n)
        with self.nested(writes_in=n):
            self.stmt(n.init, depth + 1)
            # what the init declares is a definition only until the loop writes it
            for name in names_written(n.cond) | names_written(n.next) | names_written(n.stmt):
                self.defs.pop(self.key(name), None)
            sym = self.inner_loop(n)
            if sym is not None:  # an outer variable stays one for data sharing
                self.env[sym.name] = ("loop", sym, not self.is_local(sym.name))
            self.expr(n.cond)
            with self.maybe():
                self.stmt(n.stmt, depth + 1)
                self.expr(n.next)

    def inner_loop(self, n: c_ast.For) -> Sym | None:
        """The loop's index symbol, when it is canonical and its variable is not written in
        its body."""
        if self.index is None:
            return None
        try:
            d = canonical_loop(n)
        except NotCanonical:
            return None
        if d.var in names_written(n.stmt) or d.var in self.env and self.env[d.var][0] == "loop":
            return None
        sym = Sym(SymKind.INNER, d.var, id(n))
        self.inner.append(InnerLoop(sym, self.form(d.lb), self.form(d.ub), d.op, n))
        return sym

    def s_While(self, n, depth):
        with self.nested(writes_in=n):
            self.expr(n.cond)
            with self.guarded(self.facts(n.cond, True)), self.maybe():
                self.stmt(n.stmt, depth + 1)

    def s_DoWhile(self, n, depth):
        with self.nested(writes_in=n):
            self.stmt(n.stmt, depth + 1)
            self.expr(n.cond)

    def s_If(self, n, depth):
        self.expr(n.cond)
        before, after = set(self.assigned), None
        for branch, positive in ((n.iftrue, True), (n.iffalse, False)):
            self.assigned = set(before)
            with self.nested(), self.guarded(self.facts(n.cond, positive)):
                self.stmt(branch, depth)
            after = set(self.assigned) if after is None else after & self.assigned
        self.assigned = after  # surely assigned only if both branches assign

    def s_Switch(self, n, depth):
        self.expr(n.cond)
        self.no_defs += 1
        with self.nested(writes_in=n), self.maybe():
            self.stmt(n.stmt, depth + 1)
        self.no_defs -= 1

    def s_Case(self, n, depth):
        self.expr(n.expr)
        for s in n.stmts or []:
            self.stmt(s, depth)

    def s_Default(self, n, depth):
        for s in n.stmts or []:
            self.stmt(s, depth)

    def s_Break(self, n, depth):
        if depth == 0:
            self.problem(n, "control-flow", "'break' leaves the parallel loop")

    def s_Continue(self, n, depth):
        pass

    def s_EmptyStatement(self, n, depth):
        pass

    def s_Return(self, n, depth):
        self.problem(n, "return", "'return' inside the loop body")
        self.expr(n.expr)  # a function body's returned value is code too

    def s_Goto(self, n, depth):
        self.problem(n, "control-flow", "'goto' inside the loop body")

    def s_Label(self, n, depth):
        self.problem(n, "control-flow", "label inside the loop body")

    def s_Pragma(self, n, depth):
        if is_omp_pragma(n.string):
            word = " ".join(n.string.split()[1:3])
            if not word.startswith("simd"):
                self.problem(n, "omp-construct",
                             f"contains '#pragma {' '.join(n.string.split()[:2])}'")

    # -- expressions ---------------------------------------------------
    def expr(self, n: c_ast.Node | None, write: bool = False, read: bool = True) -> None:
        if n is None:
            return
        meth = getattr(self, "e_" + type(n).__name__, None)
        if meth is None:
            return self.problem(n, "unsupported-construct",
                                f"unsupported construct ({type(n).__name__})")
        meth(n, write, read)

    def e_ID(self, n, write, read):
        if write:
            self.note_write(n.name)
        if self.own(n.name):
            return
        if read and n.name not in self.assigned:
            self.live_in.add(n.name)
        if write:
            self.writes.add(n.name)
            if not self.in_atomic:
                self.plain_writes.add(n.name)
            if not read:
                self.assigned.add(n.name)
        if read:
            self.reads.add(n.name)

    @contextmanager
    def maybe(self):
        """Code that may not run: what it assigns is not surely assigned after it."""
        saved = set(self.assigned)
        try:
            yield
        finally:
            self.assigned = saved

    def e_Constant(self, n, write, read):
        if n.type == "string":
            self.problem(n, "string-literal", "string literal in the loop body")

    def e_ArrayRef(self, n, write, read):
        subs, call, self.passing = [], self.passing, None
        base = n
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        for s in subs:
            self.expr(s)
        if isinstance(base, c_ast.StructRef) and base.type == ".":
            for s in subs:  # an array member of a struct: the struct is accessed
                self.expr(s)
            return self.e_StructRef(base, write, read)
        if not isinstance(base, c_ast.ID):
            return self.problem(n, "pointer-op", f"subscripted expression '{c_text(base)}' is "
                                "not an array name")
        if self.is_local(base.name):
            return
        subs.reverse()
        index = tuple(self.form(s) for s in subs) if self.index is not None else ()
        self.acc.append(RawAccess(base.name, write, read, tuple(subs), SourceLoc.of(n), index,
                                  tuple(self.guards), call))

    def e_Assignment(self, n, write, read):
        if isinstance(n.lvalue, c_ast.ID):  # the value is computed before the name changes
            self.expr(n.rvalue)
            self.lvalue(n.lvalue, n.op != "=")
        else:
            self.lvalue(n.lvalue, n.op != "=")
            self.expr(n.rvalue)

    def lvalue(self, n, also_read: bool) -> None:
        if isinstance(n, (c_ast.ID, c_ast.ArrayRef)) or isinstance(
                n, c_ast.StructRef) and n.type == ".":
            self.expr(n, write=True, read=also_read)
        elif isinstance(n, c_ast.UnaryOp) and n.op == "*":
            self.e_UnaryOp(n, write=True, read=also_read)
        elif isinstance(n, c_ast.StructRef):
            self.problem(n, "struct-member", f"assignment through '{c_text(n)}'")
        else:
            self.problem(n, "pointer-op", f"assignment through '{c_text(n)}'")

    def e_UnaryOp(self, n, write, read):
        if n.op in ("++", "--", "p++", "p--"):
            return self.lvalue(n.expr, True)
        if n.op == "&":
            if isinstance(n.expr, c_ast.ID) and self.is_local(n.expr.name):
                self.note_write(n.expr.name)
                return
            return self.problem(n, "pointer-op", f"takes the address of '{c_text(n.expr)}'")
        if n.op == "*":  # *p is p[0], *(p + e) is p[e]
            ref = _as_subscript(n.expr)
            if ref is None:
                return self.problem(n, "pointer-op", f"dereferences pointer '{c_text(n.expr)}'")
            return self.e_ArrayRef(ref, write, read)
        if n.op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                return
            # only the operand's type matters, and element types are the same on the
            # device; a whole shared array is a pointer there, so its size would differ
            if isinstance(n.expr, c_ast.ID) and not self.is_local(n.expr.name):
                return self.problem(n, "array-passed",
                                    f"'sizeof' of shared array '{c_text(n.expr)}'")
            return
        self.expr(n.expr)

    def e_BinaryOp(self, n, write, read):
        self.expr(n.left)
        if n.op in ("&&", "||"):  # the right operand runs only where the left one decides
            with self.guarded(self.facts(n.left, n.op == "&&")), self.maybe():
                self.expr(n.right)
            return
        self.expr(n.right)

    def e_TernaryOp(self, n, write, read):
        self.expr(n.cond)
        with self.guarded(self.facts(n.cond, True)), self.maybe():
            self.expr(n.iftrue)
        with self.guarded(self.facts(n.cond, False)), self.maybe():
            self.expr(n.iffalse)

    def e_Cast(self, n, write, read):
        self.expr(n.expr)

    def e_ExprList(self, n, write, read):
        for e in n.exprs:
            self.expr(e)

    def e_InitList(self, n, write, read):
        for e in n.exprs:
            self.expr(e)

    def e_Typename(self, n, write, read):
        pass

    def e_StructRef(self, n, write, read):
        if n.type != ".":
            return self.problem(n, "struct-member", f"accesses struct member '{c_text(n)}' "
                                "through a pointer")
        # a member of a struct variable or array element: the struct is read or written
        # (a partial write: the rest of the element stays as it is)
        self.expr(n.name, write=write, read=read or write)

    def e_FuncCall(self, n, write, read):
        if not isinstance(n.name, c_ast.ID):
            return self.problem(n, "function-pointer",
                                f"calls through function pointer '{c_text(n.name)}'")
        self.calls.append((n.name.name, n))
        for arg in (n.args.exprs if n.args else []):
            if isinstance(arg, c_ast.ID) and not self.own(arg.name):
                self.ptr_uses.add(arg.name)
                self.reads.add(arg.name)
            elif isinstance(arg, c_ast.Constant) and arg.type == "string":
                continue  # the call itself decides (no device function takes a string)
            elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(
                    arg.expr, c_ast.ArrayRef):
                args = n.args.exprs
                self.passing = (n.name.name, args.index(arg), tuple(
                    self.form(a) if self.index is not None else None for a in args))
                self.expr(arg.expr, write=True, read=True)  # the callee may use the element
                self.passing = None
            elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(
                    arg.expr, c_ast.ID):
                self.expr(arg.expr, write=True, read=True)  # an out parameter: read, written
            else:
                self.expr(arg)

    def e_CompoundLiteral(self, n, write, read):
        self.problem(n, "unsupported-construct", "compound literal in the loop body")

    def e_Pragma(self, n, write, read):
        self.s_Pragma(n, 0)

    def __getattr__(self, name):  # statements used where expressions are expected
        if name.startswith("e_") and hasattr(type(self), "s_" + name[2:]):
            stmt = getattr(self, "s_" + name[2:])
            return lambda n, w, r: stmt(n, 1)
        raise AttributeError(name)


def _atomic_kind(item: c_ast.Node) -> str | None:
    """'update', 'write', 'read', 'capture' or 'compare' for an ``omp atomic`` directive,
    else None."""
    if not isinstance(item, c_ast.Pragma) or not is_omp_pragma(item.string):
        return None
    words = _atomic_words(item)
    if words is None:
        return None
    for w in ("compare", "capture", "update", "write", "read"):
        if w in words:
            return w
    return "update"


def _atomic_words(item: c_ast.Pragma) -> list[str] | None:
    words = item.string.replace("(", " ( ").replace(",", " ").split()
    return words[2:] if words[:2] == ["omp", "atomic"] else None


def atomic_order(item: c_ast.Pragma) -> str | None:
    """The clause of an ``omp atomic`` directive the device's atomics do not give: a memory
    order stronger than relaxed (the device helpers order nothing around them), or 'weak'
    and 'fail' (of 'compare'); None when there is none."""
    return next((w for w in _atomic_words(item) or ()
                 if w in ("seq_cst", "acq_rel", "release", "acquire", "weak", "fail")), None)


def _as_subscript(e: c_ast.Node) -> c_ast.ArrayRef | None:
    """The subscript form of a dereferenced pointer expression, or None."""
    if isinstance(e, c_ast.ID):
        return c_ast.ArrayRef(e, c_ast.Constant("int", "0"), e.coord)
    if isinstance(e, c_ast.BinaryOp) and e.op == "+":
        if isinstance(e.left, c_ast.ID):
            return c_ast.ArrayRef(e.left, e.right, e.coord)
        if isinstance(e.right, c_ast.ID):
            return c_ast.ArrayRef(e.right, e.left, e.coord)
    return None


def _is_integer_scalar(decl: c_ast.Decl) -> bool:
    t = decl.type
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return False
    # narrower types wrap: their value is not the defining expression's
    return not {"float", "double", "char", "short", "_Bool"} & set(t.type.names)


def scan_body(body: c_ast.Node, known_locals: set[str] = frozenset(),
              index: IndexScope | None = None) -> BodyInfo:
    """Collect accesses and problems of a statement; ``known_locals`` are private names.
    With an ``index`` scope, subscripts and guards also get their index forms."""
    s = _Scanner(set(known_locals), index)
    s.body_writes = names_written(body)
    s.body_arrays_written = arrays_written(body)
    for name, sym in (index.dims.items() if index is not None else ()):
        s.env[name] = ("loop", sym)
    s.stmt(body)
    return BodyInfo(tuple(s.acc), frozenset(s.reads), frozenset(s.writes),
                    frozenset(s.ptr_uses), frozenset(s.declared), tuple(s.calls), tuple(s.loops),
                    tuple(s.problems), tuple(s.decls), tuple(s.inner), frozenset(s.live_in),
                    frozenset(s.assigned), tuple(s.atomics),
                    frozenset({a.target for a in s.atomics} - s.plain_writes))
