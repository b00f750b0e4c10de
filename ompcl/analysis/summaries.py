"""Function summaries: the memory a called function may touch, in terms of its parameters.

Consumes a function definition (of the file being translated or of another source of the
program) and a way to find the functions it calls; produces a ``Summary``: for each pointer
parameter and each file-scope array, the elements it may read or write as a half-open range
``[lo, hi)`` of C expression trees over the parameters (a single element ``p[e]``, or the
range a counted loop ``for (i = L; i < H; i++)`` sweeps with ``p[i + c]``), or the whole
object when no range can be given; None when the function may touch memory that cannot be
named at a call (through pointers it loads or computes, unknown callees). A caller binds the
parameters to its arguments, so host code that calls ``norm(x, n)`` between two kernels makes
``x[0..n)`` valid on the host, not every array on the device.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from ..frontend.clone import clone_with
from . import libcalls
from .accesses import names_written
from .builtins import is_math
from .ctypes_ import walk
from .loops import NotCanonical, canonical_loop, const_int

READ, WRITE = 1, 2

#: library functions that touch no program memory (results and output only)
NO_MEMORY = {"omp_get_wtime", "omp_get_num_threads", "omp_get_max_threads",
             "omp_get_thread_num", "omp_in_parallel", "omp_get_num_procs",
             "omp_set_num_threads", "omp_get_wtick", "exit", "abort", "malloc", "calloc", "rand",
             "srand", "time", "clock", "sleep", "usleep", "putchar", "getchar", "fflush",
             "fclose", "fopen", "strlen", "strcmp", "strncmp", "atoi", "atol", "atof", "strtol",
             "strtod", "getenv", "sqrt", "__assert_fail", "__builtin_expect", "perror",
             "fputc", "putc", "gettimeofday", "clock_gettime"}
#: library functions that read (only) the memory their pointer arguments point to
READS_ARGS = {"printf", "fprintf", "puts", "fputs", "fwrite", "vprintf", "vfprintf"}

_MAX_DEPTH = 4


@dataclass(frozen=True)
class Touch:
    """Elements ``[lo, hi)`` of what parameter ``param`` points to (by index), or of the
    file-scope array ``glob``; ``lo`` None: the whole object. ``esize``: the element's type
    (a ``Typename``) the bounds count in, for a parameter."""

    mode: int
    param: int | None = None
    glob: str | None = None
    lo: c_ast.Node | None = None
    hi: c_ast.Node | None = None


@dataclass(frozen=True)
class Summary:
    touches: tuple[Touch, ...]


@dataclass(frozen=True)
class FileScope:
    """What a caller can say about a function's file: ``names``, its file-scope objects the
    caller names the same way; ``ignored``, those no device copy can ever hold (static arrays
    of a file without OpenMP directives whose address never leaves their uses)."""

    names: frozenset[str] = frozenset()
    ignored: frozenset[str] = frozenset()


Finder = Callable[[str], "tuple[c_ast.FuncDef, FileScope] | None"]


class _Unknown(Exception):
    """The function may touch memory that cannot be named at a call."""


def params_of(f: c_ast.FuncDef) -> list[c_ast.Decl]:
    args = f.decl.type.args
    if args is None:
        return []
    out = [p for p in args.params if isinstance(p, c_ast.Decl)]
    return [] if len(out) == 1 and out[0].name is None else out


def pointee(decl: c_ast.Decl) -> c_ast.Node | None:
    """The element type of a rank-1 pointer (or ``T p[]``) parameter, as a declarator
    without a name; None for anything else."""
    t = decl.type
    if isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        return _unnamed(t.type)
    return None


def _unnamed(t: c_ast.Node) -> c_ast.Node | None:
    """An element type (a scalar, struct, or an array of them: ``T p[][K]``'s rows) as a
    declarator without a name."""
    if isinstance(t, c_ast.TypeDecl) and isinstance(
            t.type, (c_ast.IdentifierType, c_ast.Struct, c_ast.Union)):
        return c_ast.TypeDecl(None, t.quals, None, t.type)
    if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
        inner = _unnamed(t.type)
        return None if inner is None else c_ast.ArrayDecl(inner, t.dim, t.dim_quals)
    return None


def _rank(t: c_ast.Node) -> int:
    return 1 + _rank(t.type) if isinstance(t, c_ast.ArrayDecl) else 0


def _counted(loop: c_ast.For, body_assigned: set[str]) -> tuple[str, c_ast.Node, c_ast.Node] | None:
    """(variable, L, H) of a canonical loop counting up by one from L while below H
    (``<= H``: H + 1) whose body does not assign its variable."""
    try:
        d = canonical_loop(loop)
    except NotCanonical:
        return None
    if d.op not in ("<", "<=") or const_int(d.step) != 1 or d.var in body_assigned:
        return None
    hi = d.ub if d.op == "<" else c_ast.BinaryOp("+", d.ub, c_ast.Constant("int", "1"))
    return d.var, d.lb, hi


class _Summarizer:
    def __init__(self, f: c_ast.FuncDef, scope: FileScope, find: Finder, depth: int):
        self.f = f
        self.params = params_of(f)
        self.index = {p.name: k for k, p in enumerate(self.params)}
        self.globals = scope.names
        self.ignored = scope.ignored
        self.find = find
        self.depth = depth
        assigned = names_written(f.body)
        #: parameters whose value is the caller's all through the body
        self.stable = {p.name for p in self.params if p.name not in assigned}
        decls = [n for n in walk(f.body) if isinstance(n, c_ast.Decl) and n.name]
        self.decls: dict[str, list[c_ast.Decl]] = {}
        for d in decls:
            self.decls.setdefault(d.name, []).append(d)
        self.locals = set(self.decls)
        #: local arrays: the function's own memory, new at each call (no device copy)
        self.own = {d.name for d in decls if isinstance(d.type, c_ast.ArrayDecl)
                    and "static" not in (d.storage or [])}
        self.touches: list[Touch] = []
        self.loops: list[tuple[str, c_ast.Node, c_ast.Node]] = []

    # -- what an expression may be ---------------------------------------------------------
    def invariant(self, e: c_ast.Node) -> bool:
        """An expression of stable scalar parameters and constants (a value a caller can
        compute before the call)."""
        for n in walk(e):
            if isinstance(n, c_ast.ID):
                if n.name not in self.stable or n.name in self.locals or \
                        pointee(self.params[self.index[n.name]]) is not None:
                    return False
            elif isinstance(n, c_ast.UnaryOp):
                if n.op in ("++", "--", "p++", "p--", "*", "&"):
                    return False
            elif not isinstance(n, (c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename,
                                    c_ast.TypeDecl, c_ast.IdentifierType, c_ast.TernaryOp)):
                return False
        return True

    def bounds(self, sub: c_ast.Node) -> tuple[c_ast.Node, c_ast.Node] | None:
        """[lo, hi) of a subscript over the loops around it, or None."""
        if self.invariant(sub):
            return sub, c_ast.BinaryOp("+", sub, c_ast.Constant("int", "1"))
        var, off, sign = None, None, "+"
        if isinstance(sub, c_ast.ID):
            var = sub.name
        elif isinstance(sub, c_ast.BinaryOp) and sub.op in ("+", "-"):
            if isinstance(sub.left, c_ast.ID) and self.invariant(sub.right):
                var, off, sign = sub.left.name, sub.right, sub.op
            elif sub.op == "+" and isinstance(sub.right, c_ast.ID) and self.invariant(sub.left):
                var, off = sub.right.name, sub.left
        for name, lo, hi in reversed(self.loops):
            if name == var:
                if not (self.invariant(lo) and self.invariant(hi)):
                    return None
                if off is None:
                    return lo, hi
                return c_ast.BinaryOp(sign, lo, off), c_ast.BinaryOp(sign, hi, off)
        return None

    # -- accesses --------------------------------------------------------------------------
    def touch(self, base: str, sub: c_ast.Node | None, mode: int) -> None:
        """``base[sub]`` (``sub`` None: the whole object) is accessed."""
        rng = self.bounds(sub) if sub is not None else None
        lo, hi = rng if rng else (None, None)
        if base in self.own or (base in self.ignored and base not in self.locals):
            return
        if base in self.index and base not in self.locals:
            if pointee(self.params[self.index[base]]) is None:
                raise _Unknown(f"'{base}' is not a pointer to elements")
            if base not in self.stable:
                lo = hi = None  # it moves inside its object
            self.touches.append(Touch(mode, param=self.index[base], lo=lo, hi=hi))
        elif base in self.globals and base not in self.locals:
            self.touches.append(Touch(mode, glob=base, lo=lo, hi=hi))
        else:
            raise _Unknown(f"memory through '{base}'")

    def lvalue(self, e: c_ast.Node, mode: int) -> None:
        if isinstance(e, c_ast.ID):
            return
        if isinstance(e, c_ast.ArrayRef):
            subs, base = [], e
            while isinstance(base, c_ast.ArrayRef):
                subs.insert(0, base.subscript)
                base = base.name
            for sub in subs:
                self.expr(sub)
            if not isinstance(base, c_ast.ID):
                raise _Unknown("a subscript of a computed pointer")
            name = base.name
            if name in self.index and name not in self.locals:
                elem = pointee(self.params[self.index[name]])
                if elem is None or len(subs) > 1 + _rank(elem):
                    raise _Unknown(f"'{name}' is not a pointer to elements")
            if name in self.own and len(subs) > min(_rank(d.type) for d in self.decls[name]):
                raise _Unknown(f"memory through the pointers in '{name}'")  # double *p[3]
            return self.touch(name, subs[0], mode)  # the element or row of the first
        if isinstance(e, c_ast.UnaryOp) and e.op == "*" and isinstance(e.expr, c_ast.ID):
            return self.touch(e.expr.name, c_ast.Constant("int", "0"), mode)
        if isinstance(e, c_ast.StructRef):
            if e.type == "->" and isinstance(e.name, c_ast.ID):
                return self.touch(e.name.name, c_ast.Constant("int", "0"), mode)
            if e.type == "->":  # p[k]->x, f()->x: through a pointer loaded or computed
                self.expr(e.name)
                raise _Unknown("memory through a loaded pointer")
            base = e.name
            while isinstance(base, c_ast.StructRef) and base.type == ".":
                base = base.name
            if isinstance(base, c_ast.ID):
                if base.name in self.locals or base.name in self.index:
                    return  # a local or by-value struct
                return self.touch(base.name, None, mode)
            return self.lvalue(base, mode)
        raise _Unknown("memory through a computed address")

    def call(self, e: c_ast.FuncCall) -> None:
        name = e.name.name if isinstance(e.name, c_ast.ID) else None
        args = e.args.exprs if e.args is not None else []
        if name is None:
            raise _Unknown("a call through a pointer")
        if is_math(name) or name in NO_MEMORY:
            for a in args:
                self.expr(a)
            return
        if name in READS_ARGS:
            for a in args:
                self.expr(a)
                self.argument_object(a, READ)
            return
        known = libcalls.buffers(name)
        if known is not None:
            return self.library(known, args)
        found = self.find(name) if self.depth < _MAX_DEPTH else None
        if found is None:
            raise _Unknown(f"a call to '{name}'")
        callee, callee_scope = found
        inner = summarize(callee, callee_scope, self.find, self.depth + 1)
        if inner is None:
            raise _Unknown(f"'{name}' may touch any memory")
        for a in args:
            self.expr(a)
        self.bind(inner, params_of(callee), args)

    def library(self, known: tuple, args: list) -> None:
        """A library call with known memory effects (``libcalls``): the whole object each
        buffer argument points into (a caller cannot count its elements here)."""
        buffers = {b.arg for b in known}
        for k, a in enumerate(args):
            if k not in buffers:
                self.expr(a)
        for b in known:
            if b.arg >= len(args):
                raise _Unknown("a library call with too few arguments")
            a = args[b.arg]
            while isinstance(a, c_ast.Cast):
                a = a.expr
            if isinstance(a, c_ast.Constant):
                continue  # MPI_IN_PLACE, MPI_STATUS_IGNORE, NULL
            if isinstance(a, c_ast.UnaryOp) and a.op == "&":
                a = a.expr
                if isinstance(a, c_ast.ID) and a.name in self.locals:
                    continue  # this function's own variable (a status, a request)
            while isinstance(a, c_ast.ArrayRef):
                self.expr(a.subscript)
                a = a.name
            if not isinstance(a, c_ast.ID):
                raise _Unknown("a library call's buffer argument")
            self.argument_object(a, b.mode)

    def argument_object(self, a: c_ast.Node, mode: int) -> None:
        """The object a pointer argument of a library call points to, whole."""
        while isinstance(a, c_ast.Cast):
            a = a.expr
        if isinstance(a, c_ast.ID) and (a.name in ("stdout", "stderr", "stdin")
                                        or self.stream(a.name)):
            return  # a stream: the C library's memory
        if isinstance(a, c_ast.ID) and a.name not in self.locals and (
                a.name in self.index or a.name in self.globals):
            if a.name in self.index and pointee(self.params[self.index[a.name]]) is None:
                return  # a scalar argument
            self.touch(a.name, None, mode)
        elif isinstance(a, c_ast.ID) and (a.name in self.own or a.name in self.ignored):
            return  # this function's own buffers
        elif not isinstance(a, (c_ast.Constant, c_ast.BinaryOp, c_ast.ArrayRef, c_ast.FuncCall,
                                c_ast.UnaryOp)):
            raise _Unknown("a library call's pointer argument")

    def bind(self, inner: Summary, params: list[c_ast.Decl], args: list) -> None:
        """A callee's touches in this function's terms."""
        names = {p.name: a for p, a in zip(params, args)}
        for t in inner.touches:
            if t.glob is not None:
                if t.glob not in self.globals:
                    raise _Unknown(f"'{t.glob}' of another file")
                self.touches.append(Touch(t.mode, glob=t.glob,
                                          lo=subst(t.lo, names), hi=subst(t.hi, names)))
                continue
            if t.param >= len(args):
                raise _Unknown("a call with too few arguments")
            if self.scalar_address(args[t.param]):
                continue  # a scalar's address: no device copy is kept of a scalar
            base, off = split_pointer(args[t.param])
            if base in self.own or (base in self.ignored and base not in self.locals):
                continue
            if base is None or base in self.locals:
                raise _Unknown("a pointer argument that is not a parameter or array")
            lo, hi = subst(t.lo, names), subst(t.hi, names)
            if lo is not None and not (self.invariant(lo) and self.invariant(hi)
                                       and (off is None or self.invariant(off))):
                lo = hi = None
            if lo is not None and off is not None:
                lo, hi = c_ast.BinaryOp("+", off, lo), c_ast.BinaryOp("+", off, hi)
            if base in self.index:
                if base not in self.stable:
                    lo = hi = None
                self.touches.append(Touch(t.mode, param=self.index[base], lo=lo, hi=hi))
            elif base in self.globals:
                self.touches.append(Touch(t.mode, glob=base, lo=lo, hi=hi))
            else:
                raise _Unknown("a pointer argument that is not a parameter or array")

    def stream(self, name: str) -> bool:
        """A local or parameter declared ``FILE *``."""
        decls = self.decls.get(name, []) + [p for p in self.params if p.name == name]
        return bool(decls) and all(
            isinstance(d.type, c_ast.PtrDecl) and isinstance(d.type.type, c_ast.TypeDecl)
            and isinstance(d.type.type.type, c_ast.IdentifierType)
            and d.type.type.type.names == ["FILE"] for d in decls)

    def scalar_address(self, a: c_ast.Node) -> bool:
        """``&x`` of a scalar: a local that is not an array, a parameter passed by value, or
        a file-scope scalar."""
        if not (isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ID)):
            return False
        name = a.expr.name
        if name in self.locals:
            return name not in self.own and not self.local_aggregate(name)
        if name in self.index:
            return pointee(self.params[self.index[name]]) is None and isinstance(
                self.params[self.index[name]].type, c_ast.TypeDecl) and isinstance(
                self.params[self.index[name]].type.type, c_ast.IdentifierType)
        return name in self.ignored

    def local_aggregate(self, name: str) -> bool:
        return any(isinstance(d.type, c_ast.TypeDecl) and isinstance(
            d.type.type, (c_ast.Struct, c_ast.Union)) or isinstance(d.type, c_ast.ArrayDecl)
            for d in self.decls.get(name, ()))

    # -- walking ---------------------------------------------------------------------------
    def expr(self, e: c_ast.Node | None) -> None:
        if e is None:
            return
        if isinstance(e, c_ast.Assignment):
            self.lvalue(e.lvalue, WRITE if e.op == "=" else READ | WRITE)
            return self.expr(e.rvalue)
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("++", "--", "p++", "p--"):
                return self.lvalue(e.expr, READ | WRITE)
            if e.op == "sizeof":
                return
            if e.op == "&":
                if isinstance(e.expr, c_ast.ID) and (e.expr.name in self.locals
                                                     or e.expr.name in self.index):
                    return  # a scalar of ours passed by address: a call's business
                raise _Unknown("an address taken")
            if e.op == "*":
                return self.lvalue(e, READ)
            return self.expr(e.expr)
        if isinstance(e, (c_ast.ArrayRef, c_ast.StructRef)):
            return self.lvalue(e, READ)
        if isinstance(e, c_ast.FuncCall):
            return self.call(e)
        for _, child in e.children():
            self.expr(child)

    def stmt(self, s: c_ast.Node | None) -> None:
        if s is None:
            return
        if isinstance(s, c_ast.For):
            self.stmt(s.init) if isinstance(s.init, c_ast.DeclList) else self.expr(s.init)
            self.expr(s.cond)
            self.expr(s.next)
            counted = _counted(s, names_written(s.stmt))
            if counted:
                self.loops.append(counted)
            self.stmt(s.stmt)
            if counted:
                self.loops.pop()
            return
        if isinstance(s, (c_ast.Compound,)):
            for item in s.block_items or []:
                self.stmt(item)
            return
        if isinstance(s, c_ast.Decl):
            if s.init is not None:
                self.expr(s.init)
            return
        if isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.stmt(d)
            return
        if isinstance(s, (c_ast.If, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Case,
                          c_ast.Default, c_ast.Label)):
            for _, child in s.children():
                if isinstance(child, (c_ast.Compound, c_ast.If, c_ast.For, c_ast.While,
                                      c_ast.DoWhile, c_ast.Switch, c_ast.Case, c_ast.Default,
                                      c_ast.Label, c_ast.Return, c_ast.Decl)) or \
                        _is_statement(child):
                    self.stmt(child)
                else:
                    self.expr(child)
            return
        if isinstance(s, c_ast.Return):
            return self.expr(s.expr)
        if isinstance(s, (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Goto,
                          c_ast.Pragma)):
            return
        if isinstance(s, c_ast.Typedef):
            return
        self.expr(s)


def _is_statement(n: c_ast.Node) -> bool:
    return isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.EmptyStatement, c_ast.Goto))


def split_pointer(a: c_ast.Node) -> tuple[str | None, c_ast.Node | None]:
    """(name, offset) of a pointer argument ``p``, ``p + e``, ``e + p``, ``&p[e]``; the name
    None for anything else."""
    while isinstance(a, c_ast.Cast):
        a = a.expr
    if isinstance(a, c_ast.ID):
        return a.name, None
    if isinstance(a, c_ast.BinaryOp) and a.op == "+":
        if isinstance(a.left, c_ast.ID):
            return a.left.name, a.right
        if isinstance(a.right, c_ast.ID):
            return a.right.name, a.left
    if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef) \
            and isinstance(a.expr.name, c_ast.ID):
        return a.expr.name.name, a.expr.subscript
    return None, None


def subst(e: c_ast.Node | None, names: dict[str, c_ast.Node]) -> c_ast.Node | None:
    """A copy of ``e`` with the named parameters replaced by the arguments' trees."""
    if e is None:
        return None
    return clone_with(e, lambda n: names.get(n.name) if isinstance(n, c_ast.ID) else None)


_busy: set[int] = set()


def summarize(f: c_ast.FuncDef, scope: FileScope, find: Finder,
              depth: int = 0) -> Summary | None:
    """The summary of ``f`` (see module); None when it may touch any memory."""
    key = id(f)
    if key in _busy:
        return None  # recursion
    _busy.add(key)
    try:
        s = _Summarizer(f, scope, find, depth)
        try:
            s.stmt(f.body)
        except _Unknown:
            return None
        return Summary(tuple(s.touches))
    finally:
        _busy.discard(key)
