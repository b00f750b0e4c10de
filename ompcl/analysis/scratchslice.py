"""The slice of the run-time scratch check (part of ``analysis.scratchcheck``): taint of
values, and the copy of a body (and of the functions it calls) that keeps control flow and
addresses and marks scratch accesses.

Consumes a ``scratchtypes.Slice`` and the statements of a loop body; produces the sliced
statements, and in the slice's ``Found`` the sliced functions and what the slice reads.
Raises ``NoCheck`` where the slice cannot be exact.
"""
from __future__ import annotations

import copy
from dataclasses import replace

from pycparser import c_ast

from ..ir import CType
from .builtins import is_math
from .ctypes_ import walk
from .scratchtypes import (ACCESS, SIDE, Fn, NoCheck, Slice, Ty, call_macro,
                           is_array_name, is_deref, is_read, kind, may_be_scratch, root, ty_of)


def read_tainted(sl: Slice, e: c_ast.Node) -> bool:
    """Whether the value an access ``e`` reads depends on what the loop computes."""
    if isinstance(e, c_ast.ID):
        k = kind(sl, e.name)
        if k == "local":
            return e.name in sl.fn.tainted
        if k in ("input", "const"):
            return False
        return e.name in sl.given.written or e.name in sl.given.scratch
    r = root(sl, e)
    if not (isinstance(r, c_ast.ID) and kind(sl, r.name) == "global" and
            is_array_name(sl, r.name) and r.name not in sl.given.written and
            r.name not in sl.given.scratch):
        return True  # scratch, the loop's arrays, or through a pointer
    return index_tainted(sl, e)


def index_tainted(sl: Slice, e: c_ast.Node) -> bool:
    """Whether the address of access chain ``e`` depends on what the loop computes."""
    if isinstance(e, c_ast.ID):
        return False if is_array_name(sl, e.name) else tainted(sl, e)
    if isinstance(e, c_ast.ArrayRef):
        return index_tainted(sl, e.name) or tainted(sl, e.subscript)
    if isinstance(e, c_ast.StructRef):
        return tainted(sl, e.name) if e.type == "->" else index_tainted(sl, e.name)
    if is_deref(e):
        return tainted(sl, e.expr)
    return tainted(sl, e)


# -- taint -------------------------------------------------------------------------------

def tainted(sl: Slice, e: c_ast.Node | None) -> bool:
    if e is None or isinstance(e, c_ast.Constant):
        return False
    if isinstance(e, c_ast.ID):
        if is_array_name(sl, e.name):
            return False
        return read_tainted(sl, e)
    if isinstance(e, ACCESS) or is_deref(e):
        return read_tainted(sl, e) if is_read(sl, e) else index_tainted(sl, e)
    if isinstance(e, c_ast.UnaryOp):
        if e.op == "sizeof":
            return False
        if e.op == "&":
            return index_tainted(sl, e.expr)
        if e.op in SIDE:
            raise NoCheck("an increment inside an expression")
        return tainted(sl, e.expr)
    if isinstance(e, c_ast.BinaryOp):
        return tainted(sl, e.left) | tainted(sl, e.right)
    if isinstance(e, c_ast.Cast):
        return tainted(sl, e.expr)
    if isinstance(e, c_ast.TernaryOp):
        return tainted(sl, e.cond) | tainted(sl, e.iftrue) | tainted(sl, e.iffalse)
    if isinstance(e, c_ast.FuncCall):
        return call_tainted(sl, e)
    if isinstance(e, c_ast.Typename):
        return False
    raise NoCheck(f"a {type(e).__name__} expression")


def call_tainted(sl: Slice, e: c_ast.FuncCall) -> bool:
    name = getattr(e.name, "name", None)
    args = e.args.exprs if e.args is not None else []
    if isinstance(name, str) and is_math(name):
        return any([tainted(sl, a) for a in args])
    if isinstance(name, str) and sl.given.lookup(name) is not None:
        pattern = tuple(tainted(sl, a) for a in args)
        if any(pattern) and scratch_free(sl, name):
            return True  # a value computed from values: nothing to follow inside
        return not clone(sl, name, pattern)[1]
    raise NoCheck(f"calls '{name}', which the check cannot follow")


# -- functions ---------------------------------------------------------------------------

def enter(sl: Slice, body: c_ast.Node, types: dict[str, Ty | None], taint: set[str],
          region: bool, arrays: set[str] = frozenset()) -> Slice:
    """The slice inside the function ``body`` belongs to: its locals' types, and their taint
    by a fixpoint over every assignment (flow-insensitive)."""
    fn = Fn(dict(types), set(taint), region, set(arrays))
    inner = replace(sl, fn=fn)
    sources = _locals(inner, body, types)
    fn.tainted.update(fn.arrays)  # their elements are data
    changed = True
    while changed:
        changed = False
        for name, rhs in sources:
            if name in fn.types and name not in fn.tainted and tainted(inner, rhs):
                fn.tainted.add(name)
                changed = True
    return inner


def _locals(sl: Slice, body: c_ast.Node, types: dict[str, Ty | None]
            ) -> list[tuple[str, c_ast.Node]]:
    """Declare the locals of ``body`` in ``sl.fn`` (the ones of unknown type tainted, arrays
    noted); returns every (name, value) assigned to a local."""
    fn = sl.fn
    declared: set[str] = set()
    sources: list[tuple[str, c_ast.Node]] = []
    for n in walk(body):
        if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl):
            if "static" in (n.storage or []) or "extern" in (n.storage or []):
                raise NoCheck(f"the local variable '{n.name}' is static or extern")
            ct = sl.given.env.ctype(n.type)
            if (n.name in declared or n.name in types) and fn.types.get(n.name) != ty_of(ct):
                # blocks may reuse a name (taint then merges them): with the same type
                raise NoCheck(f"'{n.name}' is declared more than once with different types")
            declared.add(n.name)
            fn.types[n.name] = ty_of(ct)
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
    return sources


def clone(sl: Slice, name: str, pattern: tuple[bool, ...]) -> tuple[str, bool, tuple[int, ...]]:
    """The slice of function ``name`` called with arguments tainted as ``pattern``: its
    name, whether its result is untainted, and the argument positions it keeps."""
    key = (name, pattern)
    if key in sl.found.clones:
        return sl.found.clones[key]
    if name in sl.found.active:
        raise NoCheck(f"'{name}' is recursive")
    fdef = sl.given.lookup(name)
    params = fdef.decl.type.args.params if fdef.decl.type.args else []
    decls = [p for p in params if isinstance(p, c_ast.Decl) and p.name]
    if len(decls) != len(pattern) or len(params) != len(decls) and not (
            len(params) == 1 and not decls):
        raise NoCheck(f"the call of '{name}' does not match its parameters")
    types, taint = _param_types(sl, decls, pattern)
    sl.found.active.add(name)
    try:
        inner = enter(sl, fdef.body, types, taint, False)
        rets = [n for n in walk(fdef.body) if isinstance(n, c_ast.Return)]
        clean = all(r.expr is None or not tainted(inner, r.expr) for r in rets) and \
            not _returns_void(fdef)
        inner = replace(inner, fn=replace(inner.fn, returns_value=clean))
        body = block(inner, fdef.body)
        used = {n.name for n in walk(body) if isinstance(n, c_ast.ID)}
        kept = tuple(k for k, (p, t) in enumerate(zip(decls, pattern))
                     if not t and p.name in used)
        new = f"ompcl_sc{sl.given.tag}_{name}_{''.join('1' if t else '0' for t in pattern)}"
        sl.found.defs.append(_clone_def(fdef, new, [decls[k] for k in kept], clean, body))
    finally:
        sl.found.active.discard(name)
    sl.found.clones[key] = (new, clean, kept)
    return sl.found.clones[key]


def _param_types(sl: Slice, decls: list[c_ast.Decl], pattern: tuple[bool, ...]
                 ) -> tuple[dict[str, Ty | None], set[str]]:
    """The types of a sliced function's parameters (an array parameter is a pointer) and the
    tainted ones (by the call's pattern, or of a type the slice cannot follow)."""
    types, taint = {}, set()
    for p, t in zip(decls, pattern):
        ct = sl.given.env.ctype(p.type)
        if ct is not None and ct.dims and not ct.pointer:
            ct = CType(ct.base, ct.dims[1:], True, ct.const, ct.record)
        types[p.name] = ty_of(ct)
        if t or types[p.name] is None:
            taint.add(p.name)
    return types, taint


def scratch_free(sl: Slice, name: str, seen: frozenset = frozenset()) -> bool:
    """Function ``name`` cannot touch a scratch array: it names none, takes no pointer
    and reads no global pointer, nor do the functions it calls."""
    fdef = sl.given.lookup(name)
    if fdef is None or name in seen:
        return fdef is not None
    params = fdef.decl.type.args.params if fdef.decl.type.args else []
    for p in params:
        ct = sl.given.env.ctype(p.type) if isinstance(p, c_ast.Decl) else None
        if isinstance(p, c_ast.Decl) and (ct is None or ct.pointer or ct.dims):
            return False
    for n in walk(fdef.body):
        if isinstance(n, c_ast.ID) and (n.name in sl.given.scratch or (
                (g := sl.given.globals.get(n.name)) is not None and g.ctype.pointer)):
            return False
        if isinstance(n, c_ast.FuncCall):
            callee = getattr(n.name, "name", None)
            if not (isinstance(callee, str) and (is_math(callee) or scratch_free(sl, 
                    callee, seen | {name}))):
                return False
    return True


# -- the slice -------------------------------------------------------------------------

def keep(sl: Slice, e: c_ast.Node) -> c_ast.Node:
    """An untainted expression as the slice computes it: reads of memory recorded."""
    if e is None:
        return None
    if isinstance(e, c_ast.Constant) or isinstance(e, c_ast.Typename):
        return copy.deepcopy(e)
    if isinstance(e, c_ast.ID):
        k = kind(sl, e.name)
        if k == "input":
            sl.found.inputs.add(e.name)
        if k == "global" and not is_array_name(sl, e.name):
            sl.found.globals_read.add(e.name)
            return call_macro("OMPCL_SC_IN", copy.deepcopy(e))
        return copy.deepcopy(e)
    if isinstance(e, ACCESS) or is_deref(e):
        out = address(sl, e)
        if is_read(sl, e):
            r = root(sl, e)
            if isinstance(r, c_ast.ID):
                sl.found.globals_read.add(r.name)
            return call_macro("OMPCL_SC_IN", out)
        return out
    if isinstance(e, c_ast.UnaryOp):
        if e.op == "sizeof":
            return copy.deepcopy(e)
        if e.op == "&":
            return c_ast.UnaryOp("&", address(sl, e.expr))
        return c_ast.UnaryOp(e.op, keep(sl, e.expr))
    if isinstance(e, c_ast.BinaryOp):
        return c_ast.BinaryOp(e.op, keep(sl, e.left), keep(sl, e.right))
    if isinstance(e, c_ast.Cast):
        return c_ast.Cast(copy.deepcopy(e.to_type), keep(sl, e.expr))
    if isinstance(e, c_ast.TernaryOp):
        return c_ast.TernaryOp(keep(sl, e.cond), keep(sl, e.iftrue), keep(sl, e.iffalse))
    if isinstance(e, c_ast.FuncCall):
        return keptcall_macro(sl, e)
    raise NoCheck(f"a {type(e).__name__} expression")


def address(sl: Slice, e: c_ast.Node) -> c_ast.Node:
    """Access chain ``e`` as an lvalue whose address the slice can take."""
    if isinstance(e, c_ast.ID):
        return keep(sl, e)  # an array's name, or a pointer variable read (recorded)
    if isinstance(e, c_ast.ArrayRef):
        return c_ast.ArrayRef(address(sl, e.name), keep(sl, e.subscript))
    if isinstance(e, c_ast.StructRef):
        inner = keep(sl, e.name) if e.type == "->" else address(sl, e.name)
        return c_ast.StructRef(inner, e.type, copy.deepcopy(e.field))
    if is_deref(e):
        return c_ast.UnaryOp("*", keep(sl, e.expr))
    return keep(sl, e)


def keptcall_macro(sl: Slice, e: c_ast.FuncCall) -> c_ast.Node:
    name = e.name.name
    args = e.args.exprs if e.args is not None else []
    if is_math(name):
        return c_ast.FuncCall(copy.deepcopy(e.name),
                              c_ast.ExprList([keep(sl, a) for a in args]))
    new, _, kept = clone(sl, name, tuple(tainted(sl, a) for a in args))
    return c_ast.FuncCall(c_ast.ID(new), c_ast.ExprList([keep(sl, args[k]) for k in kept]))


def reads(sl: Slice, e: c_ast.Node | None) -> list[c_ast.Node]:
    """Statements marking the scratch reads (and running the calls) of evaluating ``e``,
    whose value the slice does not need."""
    if e is None or isinstance(e, (c_ast.Constant, c_ast.Typename)):
        return []
    if isinstance(e, c_ast.ID):
        return []
    if isinstance(e, ACCESS) or is_deref(e):
        out = index_reads(sl, e)
        if is_read(sl, e) and may_be_scratch(sl, e):
            out.append(mark(sl, "OMPCL_SC_R", e))
        return out
    if isinstance(e, c_ast.UnaryOp):
        if e.op == "sizeof":
            return []
        if e.op == "&":
            return index_reads(sl, e.expr)
        if e.op in SIDE:
            raise NoCheck("an increment inside an expression")
        return reads(sl, e.expr)
    if isinstance(e, c_ast.BinaryOp):
        if e.op in ("&&", "||") and not tainted(sl, e.left):
            cond = keep(sl, e.left)
            right = reads(sl, e.right)
            if e.op == "||":
                cond = c_ast.UnaryOp("!", cond)
            return reads(sl, e.left) + ([c_ast.If(cond, c_ast.Compound(right), None)]
                                         if right else [])
        return reads(sl, e.left) + reads(sl, e.right)
    if isinstance(e, c_ast.Cast):
        return reads(sl, e.expr)
    if isinstance(e, c_ast.TernaryOp):
        a, b = reads(sl, e.iftrue), reads(sl, e.iffalse)
        if not tainted(sl, e.cond):
            return [c_ast.If(keep(sl, e.cond), c_ast.Compound(a), c_ast.Compound(b))] \
                if a or b else []
        return reads(sl, e.cond) + a + b
    if isinstance(e, c_ast.FuncCall):
        return call_stmt(sl, e)
    raise NoCheck(f"a {type(e).__name__} expression")


def index_reads(sl: Slice, e: c_ast.Node) -> list[c_ast.Node]:
    if isinstance(e, c_ast.ArrayRef):
        return index_reads(sl, e.name) + reads(sl, e.subscript)
    if isinstance(e, c_ast.StructRef):
        return reads(sl, e.name) if e.type == "->" else index_reads(sl, e.name)
    if is_deref(e):
        return reads(sl, e.expr)
    if isinstance(e, c_ast.ID):
        return []
    return reads(sl, e)


def mark(sl: Slice, macro: str, e: c_ast.Node) -> c_ast.Node:
    if index_tainted(sl, e):
        raise NoCheck("a scratch address depends on values the loop computes")
    return call_macro(macro, address(sl, e))


def call_stmt(sl: Slice, e: c_ast.FuncCall) -> list[c_ast.Node]:
    name = getattr(e.name, "name", None)
    args = e.args.exprs if e.args is not None else []
    if isinstance(name, str) and is_math(name):
        return [s for a in args for s in reads(sl, a)]
    if not (isinstance(name, str) and sl.given.lookup(name) is not None):
        raise NoCheck(f"calls '{name}', which the check cannot follow")
    if scratch_free(sl, name):  # its value is not needed: only its arguments' reads
        return [s for a in args for s in reads(sl, a)]
    pattern = tuple(tainted(sl, a) for a in args)
    new, _, kept = clone(sl, name, pattern)
    pre = [s for k, a in enumerate(args) if k not in kept for s in reads(sl, a)]
    return pre + [c_ast.FuncCall(c_ast.ID(new),
                                 c_ast.ExprList([keep(sl, args[k]) for k in kept]))]


def block(sl: Slice, s: c_ast.Node) -> c_ast.Compound:
    out = stmt(sl, s)
    return out[0] if len(out) == 1 and isinstance(out[0], c_ast.Compound) else \
        c_ast.Compound(out)


def stmt(sl: Slice, s: c_ast.Node | None) -> list[c_ast.Node]:
    if s is None or isinstance(s, (c_ast.EmptyStatement, c_ast.Pragma)):
        return []
    if isinstance(s, c_ast.Compound):
        return [c_ast.Compound([x for item in s.block_items or [] for x in stmt(sl, item)])]
    if isinstance(s, c_ast.DeclList):
        return [x for d in s.decls for x in stmt(sl, d)]
    if isinstance(s, c_ast.Decl):
        return decl(sl, s)
    if isinstance(s, c_ast.Assignment):
        return assign(sl, s)
    if isinstance(s, c_ast.UnaryOp) and s.op in SIDE:
        return bump(sl, s)
    if isinstance(s, c_ast.FuncCall):
        return call_stmt(sl, s)
    if isinstance(s, c_ast.ExprList):
        return [x for e in s.exprs for x in stmt(sl, e)]
    if isinstance(s, c_ast.If):
        control(sl, s.cond)
        return [c_ast.If(keep(sl, s.cond), block(sl, s.iftrue),
                         block(sl, s.iffalse) if s.iffalse is not None else None)]
    if isinstance(s, c_ast.For):
        control(sl, s.cond)
        init = stmt(sl, s.init) if s.init is not None else []
        nxt = stmt(sl, s.next) if s.next is not None else []
        if any(not isinstance(x, (c_ast.Decl, c_ast.Assignment, c_ast.UnaryOp))
               for x in init + nxt):
            raise NoCheck("a loop whose header the check cannot follow")
        head = c_ast.DeclList(init) if init and all(isinstance(x, c_ast.Decl) for x in init) \
            else _one(init)
        return [c_ast.For(head, keep(sl, s.cond) if s.cond is not None else None,
                          _one(nxt), block(sl, s.stmt))]
    if isinstance(s, c_ast.While):
        control(sl, s.cond)
        return [c_ast.While(keep(sl, s.cond), block(sl, s.stmt))]
    if isinstance(s, c_ast.DoWhile):
        control(sl, s.cond)
        return [c_ast.DoWhile(keep(sl, s.cond), block(sl, s.stmt))]
    if isinstance(s, c_ast.Switch):
        control(sl, s.cond)
        return [c_ast.Switch(keep(sl, s.cond), block(sl, s.stmt))]
    if isinstance(s, c_ast.Case):
        return [c_ast.Case(copy.deepcopy(s.expr), [x for i in s.stmts or []
                                                   for x in stmt(sl, i)])]
    if isinstance(s, c_ast.Default):
        return [c_ast.Default([x for i in s.stmts or [] for x in stmt(sl, i)])]
    if isinstance(s, (c_ast.Break, c_ast.Continue)):
        return [copy.deepcopy(s)]
    if isinstance(s, c_ast.Return):
        if sl.fn.region:
            raise NoCheck("a return inside the loop")
        if s.expr is not None and sl.fn.returns_value:
            return [c_ast.Return(keep(sl, s.expr))]
        return reads(sl, s.expr) + [c_ast.Return(None)]
    if isinstance(s, (c_ast.TernaryOp, c_ast.BinaryOp, c_ast.Cast, c_ast.ID,
                      c_ast.Constant) + ACCESS) or is_deref(s):
        return reads(sl, s)
    raise NoCheck(f"a {type(s).__name__} statement")


def control(sl: Slice, cond: c_ast.Node | None) -> None:
    if tainted(sl, cond):
        raise NoCheck("a branch or loop bound depends on values the loop computes")


def decl(sl: Slice, d: c_ast.Decl) -> list[c_ast.Node]:
    if isinstance(d.type, c_ast.FuncDecl) or not d.name:
        return []
    init = d.init.exprs if isinstance(d.init, c_ast.InitList) else [d.init]
    pre = [s for e in init for s in reads(sl, e)]
    if d.name in sl.fn.arrays:
        out = copy.deepcopy(d)
        out.init = None
        _drop_const(out.type)
        return pre + [out]
    if d.name in sl.fn.tainted:
        return pre
    if isinstance(d.init, c_ast.InitList):
        raise NoCheck(f"'{d.name}' has an initialiser list")
    out = copy.deepcopy(d)
    out.init = keep(sl, d.init) if d.init is not None else None
    if out.init is None:
        _drop_const(out.type)
    return [out]


def assign(sl: Slice, s: c_ast.Assignment) -> list[c_ast.Node]:
    lv = s.lvalue
    if isinstance(lv, c_ast.ID):
        if kind(sl, lv.name) != "local":
            raise NoCheck(f"assigns '{lv.name}', which the check cannot follow")
        if lv.name in sl.fn.tainted:
            return reads(sl, s.rvalue)
        return [c_ast.Assignment(s.op, copy.deepcopy(lv), keep(sl, s.rvalue))]
    if not (isinstance(lv, ACCESS) or is_deref(lv)):
        raise NoCheck("an assignment the check cannot follow")
    out = reads(sl, s.rvalue) + index_reads(sl, lv)
    if s.op != "=" and may_be_scratch(sl, lv):
        out.append(mark(sl, "OMPCL_SC_R", lv))
    if may_be_scratch(sl, lv):
        out.append(mark(sl, "OMPCL_SC_W", lv))
    return out


def bump(sl: Slice, s: c_ast.UnaryOp) -> list[c_ast.Node]:
    e = s.expr
    if isinstance(e, c_ast.ID):
        if kind(sl, e.name) != "local":
            raise NoCheck(f"assigns '{e.name}', which the check cannot follow")
        return [] if e.name in sl.fn.tainted else [copy.deepcopy(s)]
    out = index_reads(sl, e)
    if may_be_scratch(sl, e):
        out += [mark(sl, "OMPCL_SC_R", e), mark(sl, "OMPCL_SC_W", e)]
    return out


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
