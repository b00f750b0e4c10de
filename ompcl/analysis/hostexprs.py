"""Host accesses of expressions: the memory one host statement's expressions may read or
write, as C text of an address and a byte count evaluated before the statement (part of
``analysis.hostaccess``).

Consumes a statement's expressions and the planner's scope and callee classification
(``hoststmts.Planner``); produces ``HostAccess`` records, the instrumented functions the
statement calls (to announce) and how many calls may enter instrumented code.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .ctypes_ import C_PRINTER
from . import libcalls
from .ctypes_ import walk
from .summaries import params_of, pointee, split_pointer, subst as _subst

READ, WRITE = 1, 2

_GEN = C_PRINTER


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


def call_name(call: c_ast.FuncCall) -> str | None:
    return call.name.name if isinstance(call.name, c_ast.ID) else None


# -- expressions -----------------------------------------------------------------------------

def free_names(nodes) -> set[str]:
    """The names an expression reads."""
    return {n.name for e in nodes for n in walk(e) if isinstance(n, c_ast.ID)}


def assigned(node: c_ast.Node) -> set[str]:
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


class Exprs:
    """Accesses of the expressions of one statement (``unstable``: names the statement may
    change, so that an address computed before it would not be the one it uses)."""

    def __init__(self, plan, unstable: set[str], exact: bool):
        # plan: the function's hoststmts.Planner (its scope, callees and summaries)
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
        name = call_name(e)
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
        if t.lo is not None and self.exact and all(self.simple(names[n]) for n in free_names(
                (t.lo, t.hi)) if n in names) and not (free_names((t.lo, t.hi)) - set(names)):
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

