"""Run-time check of thread-private scratch arrays: a slice of the loop that replays only its
control flow and addresses.

Consumes a loop body whose scratch arrays (a thread's own arrays, ``threadprivate`` or private
to a region) the static proof of ``analysis.scratch`` could not show written before read in
every iteration, the called functions' definitions and the types in scope. Produces an
``ir.ScratchCheck``: a copy of the body that keeps the statements deciding control flow and
addresses, drops the computation of values, and marks each access to memory that may be a
scratch array (``OMPCL_SC_W(lvalue)`` for a write, ``OMPCL_SC_R(lvalue)`` for a read), with such
copies of the called functions. The host runs it over every iteration before the device runs
the loop (``codegen.scratchcheck``): a read of an element that the same iteration has not
written first keeps the loop on the host.

The slice is exact when what it keeps depends only on loop variables, values fixed at entry
and arrays the loop does not write ("untainted"); values computed from anything else
(scratch, the loop's shared arrays, data read through pointers) are tainted, and a branch,
loop bound or scratch address that depends on them means no check: the loop stays on the host
with the reason (``NoCheck``). Every value the slice reads from memory goes through
``OMPCL_SC_IN`` (recorded), so the answer is reused while the entry values and the recorded
values stay the same.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ..ir import CType, ScratchCheck, Var
from .builtins import is_math
from .accesses import arrays_written, names_written
from .ctypes_ import TypeEnv, walk


class NoCheck(Exception):
    """The loop's scratch arrays cannot be checked at run time (the message says why)."""


@dataclass(frozen=True)
class _Ty:
    levels: int  # subscripts or dereferences still possible (0: a value)
    base: str
    record: bool = False


def _ty_of(ct: CType | None) -> _Ty | None:
    if ct is None or ct.base == "?":
        return None
    return _Ty(len(ct.dims) + int(ct.pointer), ct.base, ct.record)


_ACCESS = (c_ast.ArrayRef, c_ast.StructRef)
_SIDE = ("++", "--", "p++", "p--")


def _is_deref(e: c_ast.Node) -> bool:
    return isinstance(e, c_ast.UnaryOp) and e.op == "*"


def _call(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(list(args)))


class _Fn:
    """One function being sliced: its local names with their types, and which are tainted."""

    def __init__(self, types: dict[str, _Ty | None], tainted: set[str], region: bool,
                 arrays: set[str]):
        self.types, self.tainted, self.region, self.arrays = types, tainted, region, arrays
        self.returns_value = False


class _Slicer:
    def __init__(self, scratch: set[str], env: TypeEnv, globals_: dict[str, Var],
                 scope: dict[str, Var], written: set[str], lookup, tag: str):
        self.scratch, self.env, self.globals, self.scope = scratch, env, globals_, scope
        self.written, self.lookup, self.tag = written, lookup, tag
        self.clones: dict[tuple, tuple[str, bool, tuple[int, ...]]] = {}
        self.defs: list[c_ast.FuncDef] = []
        self.active: set[str] = set()
        self.inputs: set[str] = set()
        self.globals_read: set[str] = set()
        self.region_roots: set[str] = set()  # pointers of the enclosing function accessed
        self.fn: _Fn | None = None

    # -- names and types -------------------------------------------------------------------
    def kind(self, name: str) -> str:
        fn = self.fn
        if name in fn.types:
            return "local"
        if name in self.env.enumerators:
            return "const"
        if fn.region and name in self.scope and self.scope[name].storage in (
                "local", "param", "static") and name not in self.globals:
            return "input"  # the enclosing function's (a static one too): keyed by value
        if name in self.globals or (name in self.scope and self.scope[name].storage in (
                "global", "static")):
            return "global"
        raise NoCheck(f"'{name}' is not a variable the check can follow")

    def var_ty(self, name: str) -> _Ty | None:
        k = self.kind(name)
        if k == "local":
            return self.fn.types[name]
        if k == "const":
            return _Ty(0, "int")
        v = self.scope.get(name) if k == "input" else (self.globals.get(name) or
                                                         self.scope.get(name))
        return _ty_of(v.ctype) if v is not None else None

    def is_array_name(self, name: str) -> bool:
        """``name`` is an array object (its name is an address, not a variable read)."""
        k = self.kind(name)
        if k in ("const", "local"):
            return k == "local" and name in self.fn.arrays
        var = self.scope.get(name) if k == "input" else (self.globals.get(name) or
                                                         self.scope.get(name))
        return var is not None and bool(var.ctype.dims) and not var.ctype.pointer

    def field_ty(self, rec: str, fname: str) -> _Ty | None:
        struct = None
        if rec.startswith("struct "):
            struct = self.env.structs.get(rec[7:])
        elif rec in self.env.typedefs:
            t = self.env.typedefs[rec]
            struct = getattr(t, "type", None)
            if isinstance(struct, c_ast.Struct) and struct.decls is None:
                struct = self.env.structs.get(struct.name)
        for d in getattr(struct, "decls", None) or []:
            if d.name == fname:
                return _ty_of(self.env.ctype(d.type))
        return None

    def ty(self, e: c_ast.Node) -> _Ty:
        """The type of ``e`` as far as the slice needs it."""
        if isinstance(e, c_ast.ID):
            t = self.var_ty(e.name)
        elif isinstance(e, c_ast.ArrayRef) or _is_deref(e):
            inner = self.ty(e.name if isinstance(e, c_ast.ArrayRef) else e.expr)
            t = _Ty(inner.levels - 1, inner.base, inner.record) if inner.levels > 0 else None
        elif isinstance(e, c_ast.StructRef):
            inner = self.ty(e.name)
            ok = inner.levels == (1 if e.type == "->" else 0)
            t = self.field_ty(inner.base, e.field.name) if ok else None
        elif isinstance(e, c_ast.UnaryOp) and e.op == "&":
            inner = self.ty(e.expr)
            t = _Ty(inner.levels + 1, inner.base, inner.record)
        elif isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
            a, b = self.ty(e.left), self.ty(e.right)
            t = a if a.levels else b if b.levels and e.op == "+" else _Ty(0, "long")
            if a.levels and b.levels:
                t = _Ty(0, "long")  # a pointer difference
        elif isinstance(e, c_ast.Cast):
            t = _ty_of(self.env.ctype(e.to_type.type))
        elif isinstance(e, c_ast.TernaryOp):
            t = self.ty(e.iftrue)
        else:
            t = _Ty(0, "long")  # arithmetic, comparisons, constants, calls (scalars)
        if t is None:
            raise NoCheck("an expression of a type the check cannot follow")
        return t

    # -- memory accesses ---------------------------------------------------------------------
    def root(self, e: c_ast.Node) -> c_ast.Node:
        """The object an access chain starts from (an ID, or what a pointer comes from)."""
        while True:
            if isinstance(e, c_ast.ArrayRef):
                e = e.name
            elif isinstance(e, c_ast.StructRef):
                if e.type == "->":
                    return e  # the pointer read from a field
                e = e.name
            elif _is_deref(e) or isinstance(e, c_ast.Cast):
                e = e.expr
            elif isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
                e = e.left if self.ty(e.left).levels else e.right
            else:
                return e

    def is_read(self, e: c_ast.Node) -> bool:
        """``e`` in a value context reads memory: an element, a field, or a variable that is
        not an array (a pointer or scalar)."""
        if isinstance(e, c_ast.ID):
            return self.kind(e.name) != "const" and not self.is_array_name(e.name)
        if isinstance(e, _ACCESS) or _is_deref(e):
            t = self.ty(e)
            return t.levels == 0 or self._is_pointer_slot(e)
        return False

    def _is_pointer_slot(self, e: c_ast.Node) -> bool:
        # a field holding a pointer is a read; rows of arrays are addresses
        return isinstance(e, c_ast.StructRef) and self.ty(e).levels > 0

    def may_be_scratch(self, e: c_ast.Node) -> bool:
        r = self.root(e)
        if isinstance(r, c_ast.ID):
            if r.name in self.scratch:
                return True
            if self.fn.region and self.kind(r.name) == "input":
                self.region_roots.add(r.name)  # one of the loop's arrays: apart from scratch
                return False
            return not self.is_array_name(r.name)  # through a pointer: checked at run time
        return True

    def read_tainted(self, e: c_ast.Node) -> bool:
        """Whether the value an access ``e`` reads depends on what the loop computes."""
        if isinstance(e, c_ast.ID):
            k = self.kind(e.name)
            if k == "local":
                return e.name in self.fn.tainted
            if k in ("input", "const"):
                return False
            return e.name in self.written or e.name in self.scratch
        r = self.root(e)
        if not (isinstance(r, c_ast.ID) and self.kind(r.name) == "global" and
                self.is_array_name(r.name) and r.name not in self.written and
                r.name not in self.scratch):
            return True  # scratch, the loop's arrays, or through a pointer
        return self.index_tainted(e)

    def index_tainted(self, e: c_ast.Node) -> bool:
        """Whether the address of access chain ``e`` depends on what the loop computes."""
        if isinstance(e, c_ast.ID):
            return False if self.is_array_name(e.name) else self.tainted(e)
        if isinstance(e, c_ast.ArrayRef):
            return self.index_tainted(e.name) or self.tainted(e.subscript)
        if isinstance(e, c_ast.StructRef):
            return self.tainted(e.name) if e.type == "->" else self.index_tainted(e.name)
        if _is_deref(e):
            return self.tainted(e.expr)
        return self.tainted(e)

    # -- taint -------------------------------------------------------------------------------
    def tainted(self, e: c_ast.Node | None) -> bool:
        if e is None or isinstance(e, c_ast.Constant):
            return False
        if isinstance(e, c_ast.ID):
            if self.is_array_name(e.name):
                return False
            return self.read_tainted(e)
        if isinstance(e, _ACCESS) or _is_deref(e):
            return self.read_tainted(e) if self.is_read(e) else self.index_tainted(e)
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "sizeof":
                return False
            if e.op == "&":
                return self.index_tainted(e.expr)
            if e.op in _SIDE:
                raise NoCheck("an increment inside an expression")
            return self.tainted(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            return self.tainted(e.left) | self.tainted(e.right)
        if isinstance(e, c_ast.Cast):
            return self.tainted(e.expr)
        if isinstance(e, c_ast.TernaryOp):
            return self.tainted(e.cond) | self.tainted(e.iftrue) | self.tainted(e.iffalse)
        if isinstance(e, c_ast.FuncCall):
            return self.call_tainted(e)
        if isinstance(e, c_ast.Typename):
            return False
        raise NoCheck(f"a {type(e).__name__} expression")

    def call_tainted(self, e: c_ast.FuncCall) -> bool:
        name = getattr(e.name, "name", None)
        args = e.args.exprs if e.args is not None else []
        if isinstance(name, str) and is_math(name):
            return any([self.tainted(a) for a in args])
        if isinstance(name, str) and self.lookup(name) is not None:
            pattern = tuple(self.tainted(a) for a in args)
            if any(pattern) and self.scratch_free(name):
                return True  # a value computed from values: nothing to follow inside
            return not self.clone(name, pattern)[1]
        raise NoCheck(f"calls '{name}', which the check cannot follow")

    # -- functions ---------------------------------------------------------------------------
    def enter(self, body: c_ast.Node, types: dict[str, _Ty | None], tainted: set[str],
              region: bool, arrays: set[str] = frozenset()) -> _Fn:
        """Set up the function ``body`` belongs to: its locals' types, and their taint by a
        fixpoint over every assignment (flow-insensitive)."""
        fn = _Fn(dict(types), set(tainted), region, set(arrays))
        self.fn = fn
        declared: set[str] = set()
        sources: list[tuple[str, c_ast.Node]] = []
        for n in walk(body):
            if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl):
                if "static" in (n.storage or []) or "extern" in (n.storage or []):
                    raise NoCheck(f"the local variable '{n.name}' is static or extern")
                ct = self.env.ctype(n.type)
                if (n.name in declared or n.name in types) and fn.types.get(n.name) != _ty_of(ct):
                    # blocks may reuse a name (taint then merges them): with the same type
                    raise NoCheck(f"'{n.name}' is declared more than once with different types")
                declared.add(n.name)
                fn.types[n.name] = _ty_of(ct)
                if ct is None or ct.base == "?":
                    fn.tainted.add(n.name)
                elif ct.dims and not ct.pointer:
                    fn.arrays.add(n.name)
                if n.init is not None and not isinstance(n.init, c_ast.InitList):
                    sources.append((n.name, n.init))
            elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
                sources.append((n.lvalue.name, n.rvalue))
            elif isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ID):
                fn.tainted.add(n.expr.name)  # may change through the pointer
        fn.tainted |= fn.arrays  # their elements are data
        changed = True
        while changed:
            changed = False
            for name, rhs in sources:
                if name in fn.types and name not in fn.tainted and self.tainted(rhs):
                    fn.tainted.add(name)
                    changed = True
        return fn

    def clone(self, name: str, pattern: tuple[bool, ...]) -> tuple[str, bool, tuple[int, ...]]:
        """The slice of function ``name`` called with arguments tainted as ``pattern``: its
        name, whether its result is untainted, and the argument positions it keeps."""
        key = (name, pattern)
        if key in self.clones:
            return self.clones[key]
        if name in self.active:
            raise NoCheck(f"'{name}' is recursive")
        fdef = self.lookup(name)
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        decls = [p for p in params if isinstance(p, c_ast.Decl) and p.name]
        if len(decls) != len(pattern) or len(params) != len(decls) and not (
                len(params) == 1 and not decls):
            raise NoCheck(f"the call of '{name}' does not match its parameters")
        types, tainted = {}, set()
        for p, t in zip(decls, pattern):
            ct = self.env.ctype(p.type)
            if ct is not None and ct.dims and not ct.pointer:
                ct = CType(ct.base, ct.dims[1:], True, ct.const, ct.record)
            types[p.name] = _ty_of(ct)
            if t or types[p.name] is None:
                tainted.add(p.name)
        saved = self.fn
        self.active.add(name)
        try:
            fn = self.enter(fdef.body, types, tainted, False)
            rets = [n for n in walk(fdef.body) if isinstance(n, c_ast.Return)]
            clean = all(r.expr is None or not self.tainted(r.expr) for r in rets) and \
                not _returns_void(fdef)
            fn.returns_value = clean
            body = self.block(fdef.body)
            used = {n.name for n in walk(body) if isinstance(n, c_ast.ID)}
            keep = tuple(k for k, (p, t) in enumerate(zip(decls, pattern))
                         if not t and p.name in used)
            new = f"ompcl_sc{self.tag}_{name}_{''.join('1' if t else '0' for t in pattern)}"
            self.defs.append(_clone_def(fdef, new, [decls[k] for k in keep], clean, body))
        finally:
            self.active.discard(name)
            self.fn = saved
        self.clones[key] = (new, clean, keep)
        return self.clones[key]

    def scratch_free(self, name: str, seen: frozenset = frozenset()) -> bool:
        """Function ``name`` cannot touch a scratch array: it names none, takes no pointer
        and reads no global pointer, nor do the functions it calls."""
        fdef = self.lookup(name)
        if fdef is None or name in seen:
            return fdef is not None
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        for p in params:
            ct = self.env.ctype(p.type) if isinstance(p, c_ast.Decl) else None
            if isinstance(p, c_ast.Decl) and (ct is None or ct.pointer or ct.dims):
                return False
        for n in walk(fdef.body):
            if isinstance(n, c_ast.ID) and (n.name in self.scratch or (
                    (g := self.globals.get(n.name)) is not None and g.ctype.pointer)):
                return False
            if isinstance(n, c_ast.FuncCall):
                callee = getattr(n.name, "name", None)
                if not (isinstance(callee, str) and (is_math(callee) or self.scratch_free(
                        callee, seen | {name}))):
                    return False
        return True

    # -- the slice -------------------------------------------------------------------------
    def keep(self, e: c_ast.Node) -> c_ast.Node:
        """An untainted expression as the slice computes it: reads of memory recorded."""
        if e is None:
            return None
        if isinstance(e, c_ast.Constant) or isinstance(e, c_ast.Typename):
            return copy.deepcopy(e)
        if isinstance(e, c_ast.ID):
            k = self.kind(e.name)
            if k == "input":
                self.inputs.add(e.name)
            if k == "global" and not self.is_array_name(e.name):
                self.globals_read.add(e.name)
                return _call("OMPCL_SC_IN", copy.deepcopy(e))
            return copy.deepcopy(e)
        if isinstance(e, _ACCESS) or _is_deref(e):
            out = self.address(e)
            if self.is_read(e):
                r = self.root(e)
                if isinstance(r, c_ast.ID):
                    self.globals_read.add(r.name)
                return _call("OMPCL_SC_IN", out)
            return out
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "sizeof":
                return copy.deepcopy(e)
            if e.op == "&":
                return c_ast.UnaryOp("&", self.address(e.expr))
            return c_ast.UnaryOp(e.op, self.keep(e.expr))
        if isinstance(e, c_ast.BinaryOp):
            return c_ast.BinaryOp(e.op, self.keep(e.left), self.keep(e.right))
        if isinstance(e, c_ast.Cast):
            return c_ast.Cast(copy.deepcopy(e.to_type), self.keep(e.expr))
        if isinstance(e, c_ast.TernaryOp):
            return c_ast.TernaryOp(self.keep(e.cond), self.keep(e.iftrue), self.keep(e.iffalse))
        if isinstance(e, c_ast.FuncCall):
            return self.kept_call(e)
        raise NoCheck(f"a {type(e).__name__} expression")

    def address(self, e: c_ast.Node) -> c_ast.Node:
        """Access chain ``e`` as an lvalue whose address the slice can take."""
        if isinstance(e, c_ast.ID):
            return self.keep(e)  # an array's name, or a pointer variable read (recorded)
        if isinstance(e, c_ast.ArrayRef):
            return c_ast.ArrayRef(self.address(e.name), self.keep(e.subscript))
        if isinstance(e, c_ast.StructRef):
            inner = self.keep(e.name) if e.type == "->" else self.address(e.name)
            return c_ast.StructRef(inner, e.type, copy.deepcopy(e.field))
        if _is_deref(e):
            return c_ast.UnaryOp("*", self.keep(e.expr))
        return self.keep(e)

    def kept_call(self, e: c_ast.FuncCall) -> c_ast.Node:
        name = e.name.name
        args = e.args.exprs if e.args is not None else []
        if is_math(name):
            return c_ast.FuncCall(copy.deepcopy(e.name),
                                  c_ast.ExprList([self.keep(a) for a in args]))
        new, _, keep = self.clone(name, tuple(self.tainted(a) for a in args))
        return c_ast.FuncCall(c_ast.ID(new), c_ast.ExprList([self.keep(args[k]) for k in keep]))

    def reads(self, e: c_ast.Node | None) -> list[c_ast.Node]:
        """Statements marking the scratch reads (and running the calls) of evaluating ``e``,
        whose value the slice does not need."""
        if e is None or isinstance(e, (c_ast.Constant, c_ast.Typename)):
            return []
        if isinstance(e, c_ast.ID):
            return []
        if isinstance(e, _ACCESS) or _is_deref(e):
            out = self.index_reads(e)
            if self.is_read(e) and self.may_be_scratch(e):
                out.append(self.mark("OMPCL_SC_R", e))
            return out
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "sizeof":
                return []
            if e.op == "&":
                return self.index_reads(e.expr)
            if e.op in _SIDE:
                raise NoCheck("an increment inside an expression")
            return self.reads(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            if e.op in ("&&", "||") and not self.tainted(e.left):
                cond = self.keep(e.left)
                right = self.reads(e.right)
                if e.op == "||":
                    cond = c_ast.UnaryOp("!", cond)
                return self.reads(e.left) + ([c_ast.If(cond, c_ast.Compound(right), None)]
                                             if right else [])
            return self.reads(e.left) + self.reads(e.right)
        if isinstance(e, c_ast.Cast):
            return self.reads(e.expr)
        if isinstance(e, c_ast.TernaryOp):
            a, b = self.reads(e.iftrue), self.reads(e.iffalse)
            if not self.tainted(e.cond):
                return [c_ast.If(self.keep(e.cond), c_ast.Compound(a), c_ast.Compound(b))] \
                    if a or b else []
            return self.reads(e.cond) + a + b
        if isinstance(e, c_ast.FuncCall):
            return self.call_stmt(e)
        raise NoCheck(f"a {type(e).__name__} expression")

    def index_reads(self, e: c_ast.Node) -> list[c_ast.Node]:
        if isinstance(e, c_ast.ArrayRef):
            return self.index_reads(e.name) + self.reads(e.subscript)
        if isinstance(e, c_ast.StructRef):
            return self.reads(e.name) if e.type == "->" else self.index_reads(e.name)
        if _is_deref(e):
            return self.reads(e.expr)
        if isinstance(e, c_ast.ID):
            return []
        return self.reads(e)

    def mark(self, macro: str, e: c_ast.Node) -> c_ast.Node:
        if self.index_tainted(e):
            raise NoCheck("a scratch address depends on values the loop computes")
        return _call(macro, self.address(e))

    def call_stmt(self, e: c_ast.FuncCall) -> list[c_ast.Node]:
        name = getattr(e.name, "name", None)
        args = e.args.exprs if e.args is not None else []
        if isinstance(name, str) and is_math(name):
            return [s for a in args for s in self.reads(a)]
        if not (isinstance(name, str) and self.lookup(name) is not None):
            raise NoCheck(f"calls '{name}', which the check cannot follow")
        if self.scratch_free(name):  # its value is not needed: only its arguments' reads
            return [s for a in args for s in self.reads(a)]
        pattern = tuple(self.tainted(a) for a in args)
        new, _, keep = self.clone(name, pattern)
        pre = [s for k, a in enumerate(args) if k not in keep for s in self.reads(a)]
        return pre + [c_ast.FuncCall(c_ast.ID(new),
                                     c_ast.ExprList([self.keep(args[k]) for k in keep]))]

    def block(self, s: c_ast.Node) -> c_ast.Compound:
        out = self.stmt(s)
        return out[0] if len(out) == 1 and isinstance(out[0], c_ast.Compound) else \
            c_ast.Compound(out)

    def stmt(self, s: c_ast.Node | None) -> list[c_ast.Node]:
        if s is None or isinstance(s, (c_ast.EmptyStatement, c_ast.Pragma)):
            return []
        if isinstance(s, c_ast.Compound):
            return [c_ast.Compound([x for item in s.block_items or [] for x in self.stmt(item)])]
        if isinstance(s, c_ast.DeclList):
            return [x for d in s.decls for x in self.stmt(d)]
        if isinstance(s, c_ast.Decl):
            return self.decl(s)
        if isinstance(s, c_ast.Assignment):
            return self.assign(s)
        if isinstance(s, c_ast.UnaryOp) and s.op in _SIDE:
            return self.bump(s)
        if isinstance(s, c_ast.FuncCall):
            return self.call_stmt(s)
        if isinstance(s, c_ast.ExprList):
            return [x for e in s.exprs for x in self.stmt(e)]
        if isinstance(s, c_ast.If):
            self.control(s.cond)
            return [c_ast.If(self.keep(s.cond), self.block(s.iftrue),
                             self.block(s.iffalse) if s.iffalse is not None else None)]
        if isinstance(s, c_ast.For):
            self.control(s.cond)
            init = self.stmt(s.init) if s.init is not None else []
            nxt = self.stmt(s.next) if s.next is not None else []
            if any(not isinstance(x, (c_ast.Decl, c_ast.Assignment, c_ast.UnaryOp))
                   for x in init + nxt):
                raise NoCheck("a loop whose header the check cannot follow")
            head = c_ast.DeclList(init) if init and all(isinstance(x, c_ast.Decl) for x in init) \
                else _one(init)
            return [c_ast.For(head, self.keep(s.cond) if s.cond is not None else None,
                              _one(nxt), self.block(s.stmt))]
        if isinstance(s, c_ast.While):
            self.control(s.cond)
            return [c_ast.While(self.keep(s.cond), self.block(s.stmt))]
        if isinstance(s, c_ast.DoWhile):
            self.control(s.cond)
            return [c_ast.DoWhile(self.keep(s.cond), self.block(s.stmt))]
        if isinstance(s, c_ast.Switch):
            self.control(s.cond)
            return [c_ast.Switch(self.keep(s.cond), self.block(s.stmt))]
        if isinstance(s, c_ast.Case):
            return [c_ast.Case(copy.deepcopy(s.expr), [x for i in s.stmts or []
                                                       for x in self.stmt(i)])]
        if isinstance(s, c_ast.Default):
            return [c_ast.Default([x for i in s.stmts or [] for x in self.stmt(i)])]
        if isinstance(s, (c_ast.Break, c_ast.Continue)):
            return [copy.deepcopy(s)]
        if isinstance(s, c_ast.Return):
            if self.fn.region:
                raise NoCheck("a return inside the loop")
            if s.expr is not None and self.fn.returns_value:
                return [c_ast.Return(self.keep(s.expr))]
            return self.reads(s.expr) + [c_ast.Return(None)]
        if isinstance(s, (c_ast.TernaryOp, c_ast.BinaryOp, c_ast.Cast, c_ast.ID,
                          c_ast.Constant) + _ACCESS) or _is_deref(s):
            return self.reads(s)
        raise NoCheck(f"a {type(s).__name__} statement")

    def control(self, cond: c_ast.Node | None) -> None:
        if self.tainted(cond):
            raise NoCheck("a branch or loop bound depends on values the loop computes")

    def decl(self, d: c_ast.Decl) -> list[c_ast.Node]:
        if isinstance(d.type, c_ast.FuncDecl) or not d.name:
            return []
        init = d.init.exprs if isinstance(d.init, c_ast.InitList) else [d.init]
        pre = [s for e in init for s in self.reads(e)]
        if d.name in self.fn.arrays:
            out = copy.deepcopy(d)
            out.init = None
            _drop_const(out.type)
            return pre + [out]
        if d.name in self.fn.tainted:
            return pre
        if isinstance(d.init, c_ast.InitList):
            raise NoCheck(f"'{d.name}' has an initialiser list")
        out = copy.deepcopy(d)
        out.init = self.keep(d.init) if d.init is not None else None
        if out.init is None:
            _drop_const(out.type)
        return [out]

    def assign(self, s: c_ast.Assignment) -> list[c_ast.Node]:
        lv = s.lvalue
        if isinstance(lv, c_ast.ID):
            if self.kind(lv.name) != "local":
                raise NoCheck(f"assigns '{lv.name}', which the check cannot follow")
            if lv.name in self.fn.tainted:
                return self.reads(s.rvalue)
            return [c_ast.Assignment(s.op, copy.deepcopy(lv), self.keep(s.rvalue))]
        if not (isinstance(lv, _ACCESS) or _is_deref(lv)):
            raise NoCheck("an assignment the check cannot follow")
        out = self.reads(s.rvalue) + self.index_reads(lv)
        if s.op != "=" and self.may_be_scratch(lv):
            out.append(self.mark("OMPCL_SC_R", lv))
        if self.may_be_scratch(lv):
            out.append(self.mark("OMPCL_SC_W", lv))
        return out

    def bump(self, s: c_ast.UnaryOp) -> list[c_ast.Node]:
        e = s.expr
        if isinstance(e, c_ast.ID):
            if self.kind(e.name) != "local":
                raise NoCheck(f"assigns '{e.name}', which the check cannot follow")
            return [] if e.name in self.fn.tainted else [copy.deepcopy(s)]
        out = self.index_reads(e)
        if self.may_be_scratch(e):
            out += [self.mark("OMPCL_SC_R", e), self.mark("OMPCL_SC_W", e)]
        return out


def _escapes(name: str, ndims: int, bodies: list[c_ast.Node],
             skip: frozenset[int] = frozenset()) -> bool:
    """Whether a use of ``name`` (an array of ``ndims`` dimensions, or a scalar) in
    ``bodies``, outside the nodes ``skip``, lets code write it other than by name: its
    address or an element's taken, or the array (or a row of it) used as a pointer."""
    for body in bodies:
        elements: set[int] = set()  # the IDs that are the base of a full subscript chain
        for n in walk(body):
            if id(n) in skip:
                continue
            if isinstance(n, c_ast.UnaryOp) and n.op == "&" and _mentions_id(n.expr, name):
                return True
            if ndims and isinstance(n, c_ast.ArrayRef):
                base, depth = n, 0
                while isinstance(base, c_ast.ArrayRef):
                    base, depth = base.name, depth + 1
                if isinstance(base, c_ast.ID) and base.name == name and depth == ndims:
                    elements.add(id(base))
        if ndims and any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in elements
                         and id(n) not in skip for n in walk(body)):
            return True
    return False


def _reachable(body: c_ast.Node, lookup) -> list[c_ast.FuncDef]:
    """The definitions of the functions ``body`` calls, directly or not."""
    out: dict[str, c_ast.FuncDef] = {}
    todo = [body]
    while todo:
        for n in walk(todo.pop()):
            name = getattr(n.name, "name", None) if isinstance(n, c_ast.FuncCall) else None
            if isinstance(name, str) and name not in out and (f := lookup(name)) is not None:
                out[name] = f
                todo.append(f.body)
    return list(out.values())


def _mentions_id(e: c_ast.Node, name: str) -> bool:
    return any(isinstance(n, c_ast.ID) and n.name == name for n in walk(e))


def _one(items: list[c_ast.Node]) -> c_ast.Node | None:
    return None if not items else items[0] if len(items) == 1 else c_ast.ExprList(items)


def _returns_void(fdef: c_ast.FuncDef) -> bool:
    t = fdef.decl.type.type
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
        t.type.names == ["void"]


def _drop_const(t: c_ast.Node) -> None:
    """A kept declaration without initialiser (assigned later) must not stay const."""
    while t is not None:
        if isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl)) and t.quals:
            t.quals = [q for q in t.quals if q != "const"]
        t = getattr(t, "type", None)


def _clone_def(fdef: c_ast.FuncDef, name: str, params: list[c_ast.Decl], value: bool,
               body: c_ast.Compound) -> c_ast.FuncDef:
    decl = copy.deepcopy(fdef.decl)
    decl.name, decl.storage, decl.funcspec = name, ["static"], []
    ftype = decl.type
    ftype.args = c_ast.ParamList([copy.deepcopy(p) for p in params]) if params else \
        c_ast.ParamList([c_ast.Typename(None, [], None, c_ast.TypeDecl(
            None, [], None, c_ast.IdentifierType(["void"])))])
    if not value:
        ftype.type = c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(["void"]))
    t = ftype.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name
    return c_ast.FuncDef(decl, None, body)


def scratch_check(names: list[str], body: c_ast.Node, loop_vars: list[tuple[str, str]],
                  scope: dict[str, Var], env: TypeEnv, globals_: dict[str, Var],
                  assigned: set[str], lookup, tag: str, carried: set[str] = frozenset(),
                  enclosing: c_ast.Node | None = None) -> ScratchCheck:
    """The run-time check of scratch arrays ``names`` for loop ``body`` (raises NoCheck).
    ``loop_vars``: the nest's (variable, C type); ``assigned``: every name the body and its
    callees may write; ``tag``: makes the names of sliced functions unique in the file;
    ``carried``: variables whose value may flow between iterations (read before written,
    reductions): the slice does not know them; ``enclosing``: the body of the function
    holding the loop (where a pointer to a scratch array of its own could come from)."""
    sl = _Slicer(set(names), env, globals_, scope, assigned, lookup, tag)
    types: dict[str, _Ty | None] = {v: _Ty(0, t) for v, t in loop_vars}
    # scratch arrays of the enclosing function (private to the region, or static there):
    # the region function cannot name them, so the check holds its own, declared once (only
    # their addresses matter: the stamps tell the iterations apart)
    held = [scope[n] for n in sorted(names) if n in scope and n not in globals_ and
            scope[n].storage != "global"]
    for v in held:
        types[v.name] = _ty_of(v.ctype)
    own = []
    for name in sorted(names_written(body) | arrays_written(body)):
        v = scope.get(name)
        if v is not None and v.storage in ("local", "param") and name not in types:
            types[name] = _ty_of(v.ctype)
            own.append(v)
    sl.enter(body, types, {v.name for v in own if v.name in carried}, True,
             {v.name for v in own + held if v.ctype.dims and not v.ctype.pointer})
    sliced = sl.block(body)
    used = {n.name for n in walk(sliced) if isinstance(n, c_ast.ID)}
    own = [v for v in own if v.name in used]
    if not (sl.inputs - {v for v, _ in loop_vars} or sl.globals_read - set(names) or sl.defs):
        # nothing the static proof does not see: a run-time check would decline every time
        raise NoCheck("the scratch addresses depend only on the loop variables")
    arrays = []
    for name in sorted(names):
        v = globals_.get(name) or scope.get(name)
        if v is None or not v.ctype.dims or v.ctype.pointer:
            raise NoCheck(f"'{name}' is not an array the check can mark")
        arrays.append((name, v.ctype.base))
    bodies = [body] + [f.body for f in _reachable(body, lookup)]
    for g in sorted(sl.globals_read):
        v = globals_.get(g) or scope.get(g)
        if v is None or _escapes(g, 0 if v.ctype.pointer else len(v.ctype.dims), bodies):
            raise NoCheck(f"the address of '{g}' is taken, so the loop may change it")
    # the scratch trace of an iteration that mentions no loop variable is every iteration's
    uniform = not used & {v for v, _ in loop_vars}
    if held and sl.region_roots:  # the check cannot tell where the real arrays are
        inside = frozenset(id(n) for n in walk(body))
        for v in held:  # unless the function never lets a pointer at one outside the loop
            if enclosing is None or _escapes(v.name, len(v.ctype.dims), [enclosing], inside):
                raise NoCheck(f"a pointer the loop uses may point into '{v.name}'")
    return ScratchCheck(tuple(arrays), sliced, tuple(own), tuple(sl.defs),
                        tuple(sorted(sl.inputs - {v for v, _ in loop_vars})),
                        tuple(sorted(sl.globals_read - set(names))),
                        tuple(sorted(sl.region_roots)), uniform, tuple(held))
