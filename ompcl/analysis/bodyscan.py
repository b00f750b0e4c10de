"""The body scan of access analysis (``analysis.accesses``): one walk over a loop body (or a
function body) that resolves names with C's block scopes, follows block-level definitions of
scalars into index forms, and records guards, accesses, calls, atomics and problems.

Consumes a statement, the names private to it and (for index forms) an ``IndexScope``;
produces an ``accesses.BodyInfo``. The walk is functions over a ``Scan``: what names mean
(``Names``), what is found (``Uses``, ``Parts``) and where the walk is (``Flow``).
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..diagnostics import SourceLoc
from ..frontend.pragma import is_omp_pragma
from ..ir import Sym, SymKind
from .accesses import (AtomicOp, BodyInfo, IndexScope, InnerLoop, RawAccess, arrays_written,
                       gnu_atomic, names_written, statement_atomic)
from .atomicscan import (atomic_kind, builtin_atomic, expression_atomic, order_problems,
                         pragma_atomic)
from .builtins import is_stand_in
from .ctypes_ import c_text, pointer_depth, walk
from .loops import NotCanonical, canonical_loop
from .statics import constant_table
from .scanstate import (Flow, Names, Parts, Scan, Uses, binding_key, facts, guarded,
                        index_form, is_local, maybe, nested, note_write, own, problem)

_LOCAL = "local"


def scan_body(body: c_ast.Node, known_locals: set[str] = frozenset(),
              index: IndexScope | None = None) -> BodyInfo:
    """Collect accesses and problems of a statement; ``known_locals`` are private names.
    With an ``index`` scope, subscripts and guards also get their index forms."""
    env: dict[str, tuple] = {n: ("param", n) for n in known_locals}
    for name, sym in (index.dims.items() if index is not None else ()):
        env[name] = ("loop", sym)
    sc = Scan(index, names_written(body), arrays_written(body), Names(env), Uses(),
              Parts(set(known_locals)), Flow())
    stmt(sc, body)
    order_problems(sc)
    u, p = sc.uses, sc.parts
    return BodyInfo(tuple(u.acc), frozenset(u.reads), frozenset(u.writes),
                    frozenset(u.ptr_uses), frozenset(p.declared), tuple(p.calls), tuple(p.loops),
                    tuple(p.problems), tuple(p.decls), tuple(p.inner), frozenset(u.live_in),
                    frozenset(sc.flow.assigned), tuple(u.atomics),
                    frozenset({a.target for a in u.atomics} - u.plain_writes))


# -- statements ----------------------------------------------------

def stmt(sc: Scan, n: c_ast.Node | None, depth: int = 0) -> None:
    if n is None:
        return
    if sc.index is not None and isinstance(op := statement_atomic(n), AtomicOp):
        return atomic_walk(sc, builtin_atomic(sc, n, op), depth)  # a GNU atomic builtin
    meth = _STATEMENTS.get(type(n))
    if meth is not None:
        meth(sc, n, depth)
    else:
        expr(sc, n)


def stmt_compound(sc: Scan, n, depth):
    with nested(sc):
        items = n.block_items or []
        k = 0
        while k < len(items):
            kind = atomic_kind(items[k])
            if kind is not None and k + 1 < len(items):
                atomic_walk(sc, pragma_atomic(sc, items[k], items[k + 1], kind), depth)
                k += 2
                continue
            block_item(sc, items[k], depth)
            k += 1


def atomic_walk(sc: Scan, found, depth: int) -> None:
    """The statement of an atomic construct or builtin (``atomicscan``), its writes atomic,
    then the variable a capture assigns (a plain write)."""
    if found is None:
        return
    item, var, atomic = found
    sc.flow.in_atomic = atomic
    try:
        block_item(sc, item, depth)
    finally:
        sc.flow.in_atomic = False
    if var is not None:
        lvalue(sc, var, False)


def block_item(sc: Scan, item: c_ast.Node, depth: int) -> None:
    """A statement of a block; ``x = e;`` makes ``e`` (as it is now) x's definition."""
    defines = (sc.index is not None and not sc.flow.no_defs
               and isinstance(item, c_ast.Assignment) and item.op == "="
               and isinstance(item.lvalue, c_ast.ID)
               and sc.names.env.get(item.lvalue.name, ("",))[0] != "loop")
    value = index_form(sc, item.rvalue) if defines else None
    stmt(sc, item, depth)
    if defines:
        sc.names.defs[binding_key(sc, item.lvalue.name)] = value


def stmt_decl(sc: Scan, n, depth):
    if isinstance(n.type, c_ast.FuncDecl):
        return problem(sc, n, "body-declaration",
                            f"declares function '{n.name}' inside the loop")
    if ("static" in (n.storage or []) and not constant_table(n)) or "extern" in (
            n.storage or []):
        return problem(sc, n, "body-declaration", f"declares {n.storage[0]} variable "
                            f"'{n.name}' in the loop body")
    for sub in walk(n.type):
        if isinstance(sub, c_ast.ArrayDecl) and sub.dim is not None:
            expr(sc, sub.dim)
    if sc.index is not None and isinstance(op := gnu_atomic(n.init), AtomicOp):
        atomic_walk(sc, builtin_atomic(sc, n.init, op), depth)  # T v = f(&x, e);
    elif n.init is not None:
        expr(sc, n.init)
    key = (_LOCAL, id(n))
    sc.names.env[n.name] = key
    sc.parts.declared.add(n.name)
    sc.parts.decls.append(n)
    if n.init is not None and not sc.flow.no_defs and _is_integer_scalar(n):
        sc.names.defs[key] = index_form(sc, n.init)


def stmt_decl_list(sc: Scan, n, depth):
    for d in n.decls:
        stmt_decl(sc, d, depth)


def stmt_for(sc: Scan, n, depth):
    sc.parts.loops.append(n)
    with nested(sc, writes_in=n):
        stmt(sc, n.init, depth + 1)
        # what the init declares is a definition only until the loop writes it
        for name in names_written(n):
            sc.names.defs.pop(binding_key(sc, name), None)
        sym = inner_loop(sc, n)
        if sym is not None:  # an outer variable stays one for data sharing
            sc.names.env[sym.name] = ("loop", sym, not is_local(sc, sym.name))
        expr(sc, n.cond)
        with maybe(sc):
            stmt(sc, n.stmt, depth + 1)
            expr(sc, n.next)


def inner_loop(sc: Scan, n: c_ast.For) -> Sym | None:
    """The loop's index symbol, when it is canonical and its variable is not written in
    its body."""
    if sc.index is None:
        return None
    try:
        d = canonical_loop(n)
    except NotCanonical:
        return None
    if d.var in names_written(n.stmt) or d.var in sc.names.env and sc.names.env[d.var][0] == "loop":
        return None
    sym = Sym(SymKind.INNER, d.var, id(n))
    sc.parts.inner.append(InnerLoop(sym, index_form(sc, d.lb), index_form(sc, d.ub), d.op, n))
    return sym


def stmt_while(sc: Scan, n, depth):
    with nested(sc, writes_in=n):
        expr(sc, n.cond)
        with guarded(sc, facts(sc, n.cond, True)), maybe(sc):
            stmt(sc, n.stmt, depth + 1)


def stmt_do_while(sc: Scan, n, depth):
    with nested(sc, writes_in=n):
        stmt(sc, n.stmt, depth + 1)
        expr(sc, n.cond)


def stmt_if(sc: Scan, n, depth):
    expr(sc, n.cond)
    before, after = set(sc.flow.assigned), None
    for branch, positive in ((n.iftrue, True), (n.iffalse, False)):
        sc.flow.assigned = set(before)
        with nested(sc), guarded(sc, facts(sc, n.cond, positive)):
            stmt(sc, branch, depth)
        after = set(sc.flow.assigned) if after is None else after & sc.flow.assigned
    sc.flow.assigned = after  # surely assigned only if both branches assign


def stmt_switch(sc: Scan, n, depth):
    expr(sc, n.cond)
    sc.flow.no_defs += 1
    with nested(sc, writes_in=n), maybe(sc):
        stmt(sc, n.stmt, depth + 1)
    sc.flow.no_defs -= 1


def stmt_case(sc: Scan, n, depth):
    expr(sc, n.expr)
    for s in n.stmts or []:
        stmt(sc, s, depth)


def stmt_default(sc: Scan, n, depth):
    for s in n.stmts or []:
        stmt(sc, s, depth)


def stmt_break(sc: Scan, n, depth):
    if depth == 0:
        problem(sc, n, "control-flow", "'break' leaves the parallel loop")


def stmt_continue(sc: Scan, n, depth):
    pass


def stmt_empty_statement(sc: Scan, n, depth):
    pass


def stmt_return(sc: Scan, n, depth):
    problem(sc, n, "return", "'return' inside the loop body")
    expr(sc, n.expr)  # a function body's returned value is code too


def stmt_goto(sc: Scan, n, depth):
    problem(sc, n, "control-flow", "'goto' inside the loop body")


def stmt_label(sc: Scan, n, depth):
    problem(sc, n, "control-flow", "label inside the loop body")


def stmt_pragma(sc: Scan, n, depth):
    if is_omp_pragma(n.string):
        word = " ".join(n.string.split()[1:3])
        if not word.startswith("simd"):
            problem(sc, n, "omp-construct",
                         f"contains '#pragma {' '.join(n.string.split()[:2])}'")


# -- expressions ---------------------------------------------------

def expr(sc: Scan, n: c_ast.Node | None, write: bool = False, read: bool = True) -> None:
    if n is None:
        return
    meth = _EXPRESSIONS.get(type(n))
    if meth is not None:
        return meth(sc, n, write, read)
    as_stmt = _STATEMENTS.get(type(n))  # statements used where expressions are expected
    if as_stmt is None:
        return problem(sc, n, "unsupported-construct",
                       f"unsupported construct ({type(n).__name__})")
    as_stmt(sc, n, 1)


def expr_id(sc: Scan, n, write, read):
    if write:
        note_write(sc, n.name)
    if own(sc, n.name):
        return
    if read and n.name not in sc.flow.assigned:
        sc.uses.live_in.add(n.name)
    if write:
        sc.uses.writes.add(n.name)
        if not sc.flow.in_atomic:
            sc.uses.plain_writes.add(n.name)
        if not read:
            sc.flow.assigned.add(n.name)
    if read:
        sc.uses.reads.add(n.name)


def expr_constant(sc: Scan, n, write, read):
    if n.type == "string":
        problem(sc, n, "string-literal", "string literal in the loop body")


def expr_array_ref(sc: Scan, n, write, read):
    subs, call, sc.flow.passing = [], sc.flow.passing, None
    base = n
    while isinstance(base, c_ast.ArrayRef):
        subs.append(base.subscript)
        base = base.name
    for s in subs:
        expr(sc, s)
    if isinstance(base, c_ast.StructRef) and base.type == ".":
        for s in subs:  # an array member of a struct: the struct is accessed
            expr(sc, s)
        return expr_struct_ref(sc, base, write, read)
    if isinstance(base, c_ast.Constant) and base.type == "string" and not write:
        return None  # "ACGT"[k]: read from the device's own copy of the literal
    if not isinstance(base, c_ast.ID):
        return problem(sc, n, "pointer-op", f"subscripted expression '{c_text(base)}' is "
                            "not an array name")
    if is_local(sc, base.name):
        return
    subs.reverse()
    index = tuple(index_form(sc, s) for s in subs) if sc.index is not None else ()
    sc.uses.acc.append(RawAccess(base.name, write, read, tuple(subs), SourceLoc.of(n), index,
                              tuple(sc.names.guards), call))


def expr_assignment(sc: Scan, n, write, read):
    if isinstance(n.lvalue, c_ast.ID):  # the value is computed before the name changes
        expr(sc, n.rvalue)
        lvalue(sc, n.lvalue, n.op != "=")
    else:
        lvalue(sc, n.lvalue, n.op != "=")
        expr(sc, n.rvalue)


def lvalue(sc: Scan, n, also_read: bool) -> None:
    if isinstance(n, (c_ast.ID, c_ast.ArrayRef)) or isinstance(
            n, c_ast.StructRef) and n.type == ".":
        expr(sc, n, write=True, read=also_read)
    elif isinstance(n, c_ast.UnaryOp) and n.op == "*":
        expr_unary_op(sc, n, write=True, read=also_read)
    elif isinstance(n, c_ast.StructRef):
        problem(sc, n, "struct-member", f"assignment through '{c_text(n)}'")
    else:
        problem(sc, n, "pointer-op", f"assignment through '{c_text(n)}'")


def expr_unary_op(sc: Scan, n, write, read):
    if n.op in ("++", "--", "p++", "p--"):
        return lvalue(sc, n.expr, True)
    if n.op == "&":
        if isinstance(n.expr, c_ast.ID) and is_local(sc, n.expr.name):
            note_write(sc, n.expr.name)
            return
        return problem(sc, n, "pointer-op", f"takes the address of '{c_text(n.expr)}'")
    if n.op == "*":  # *p is p[0], *(p + e) is p[e]
        ref = _as_subscript(n.expr)
        if ref is None:
            return problem(sc, n, "pointer-op", f"dereferences pointer '{c_text(n.expr)}'")
        return expr_array_ref(sc, ref, write, read)
    if n.op == "sizeof":
        if isinstance(n.expr, c_ast.Typename):
            return
        # only the operand's type matters, and element types are the same on the
        # device; a whole shared array is a pointer there, so its size would differ
        if isinstance(n.expr, c_ast.ID) and not is_local(sc, n.expr.name):
            return problem(sc, n, "array-passed",
                                f"'sizeof' of shared array '{c_text(n.expr)}'")
        return
    expr(sc, n.expr)


def expr_binary_op(sc: Scan, n, write, read):
    expr(sc, n.left)
    if n.op in ("&&", "||"):  # the right operand runs only where the left one decides
        with guarded(sc, facts(sc, n.left, n.op == "&&")), maybe(sc):
            expr(sc, n.right)
        return
    expr(sc, n.right)


def expr_ternary_op(sc: Scan, n, write, read):
    expr(sc, n.cond)
    with guarded(sc, facts(sc, n.cond, True)), maybe(sc):
        expr(sc, n.iftrue)
    with guarded(sc, facts(sc, n.cond, False)), maybe(sc):
        expr(sc, n.iffalse)


def expr_cast(sc: Scan, n, write, read):
    expr(sc, n.expr)


def expr_expr_list(sc: Scan, n, write, read):
    for e in n.exprs:
        expr(sc, e)


def expr_init_list(sc: Scan, n, write, read):
    for e in n.exprs:
        expr(sc, e)


def expr_typename(sc: Scan, n, write, read):
    pass


def expr_struct_ref(sc: Scan, n, write, read):
    if n.type != ".":
        return problem(sc, n, "struct-member", f"accesses struct member '{c_text(n)}' "
                            "through a pointer")
    # a member of a struct variable or array element: the struct is read or written
    # (a partial write: the rest of the element stays as it is)
    expr(sc, n.name, write=write, read=read or write)


def expr_func_call(sc: Scan, n, write, read):
    if isinstance(n.name, c_ast.FuncCall) and isinstance(n.name.name, c_ast.ID) and \
            is_stand_in(n.name.name.name):
        expr(sc, n.name, write=False, read=True)  # _Generic(...)(x): the stand-in says why
        for arg in (n.args.exprs if n.args else []):
            expr(sc, arg, write=False, read=True)
        return None
    if not isinstance(n.name, c_ast.ID):
        return problem(sc, n, "function-pointer",
                            f"calls through function pointer '{c_text(n.name)}'")
    if (op := gnu_atomic(n)) is not None:
        expression_atomic(sc, n, op)
    else:
        sc.parts.calls.append((n.name.name, n))
    for arg in (n.args.exprs if n.args else []):
        if isinstance(arg, c_ast.ID) and not own(sc, arg.name):
            sc.uses.ptr_uses.add(arg.name)
            expr_id(sc, arg, write=False, read=True)  # a value read (live in if not set)
        elif isinstance(arg, c_ast.Constant) and arg.type == "string":
            continue  # the call itself decides (no device function takes a string)
        elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(
                arg.expr, c_ast.ArrayRef) or _tree_row(sc, arg):
            args = n.args.exprs
            sc.flow.passing = (n.name.name, args.index(arg), tuple(
                index_form(sc, a) if sc.index is not None else None for a in args))
            # the callee may use the element (or the row) and what follows it
            expr(sc, arg.expr if isinstance(arg, c_ast.UnaryOp) else arg, write=True,
                 read=True)
            sc.flow.passing = None
        elif isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(
                arg.expr, c_ast.ID):
            expr(sc, arg.expr, write=True, read=True)  # an out parameter: read, written
        else:
            expr(sc, arg)


def _tree_row(sc: Scan, arg: c_ast.Node) -> bool:
    """A row of a pointer tree passed as an argument (``rowsum(a[i], m)`` of ``double **a``):
    recorded with the call, as an element's address is, for the callee's span."""
    if not isinstance(arg, c_ast.ArrayRef) or sc.index is None:
        return False
    base, subs = arg, 0
    while isinstance(base, c_ast.ArrayRef):
        base, subs = base.name, subs + 1
    v = sc.index.scope.get(base.name) if isinstance(base, c_ast.ID) else None
    if v is None or v.ctype.base != "?" or own(sc, base.name):
        return False
    return subs < pointer_depth(getattr(v.decl, "type", None))[0]  # a row, not an element


def expr_compound_literal(sc: Scan, n, write, read):
    """``(T){...}`` of a scalar or struct type ``T`` (FT's ``dcmplx_mul2``): a value built of
    its initialisers; an array literal (a pointer to an unnamed object) is not translated."""
    if write or not isinstance(n.type.type, c_ast.TypeDecl):
        return problem(sc, n, "unsupported-construct", "compound literal of an array type "
                       "in the loop body" if not write else "compound literal written")
    expr(sc, n.init)


def expr_named_initializer(sc: Scan, n, write, read):
    for d in n.name:  # a designator's subscript ([2] = ...); an ID is a member's name
        if not isinstance(d, c_ast.ID):  # (pycparser spells [k] and .k alike)
            expr(sc, d)
    expr(sc, n.expr)


def expr_pragma(sc: Scan, n, write, read):
    stmt_pragma(sc, n, 0)


_STATEMENTS: dict[type, Callable] = {
    c_ast.Compound: stmt_compound,
    c_ast.Decl: stmt_decl,
    c_ast.DeclList: stmt_decl_list,
    c_ast.For: stmt_for,
    c_ast.While: stmt_while,
    c_ast.DoWhile: stmt_do_while,
    c_ast.If: stmt_if,
    c_ast.Switch: stmt_switch,
    c_ast.Case: stmt_case,
    c_ast.Default: stmt_default,
    c_ast.Break: stmt_break,
    c_ast.Continue: stmt_continue,
    c_ast.EmptyStatement: stmt_empty_statement,
    c_ast.Return: stmt_return,
    c_ast.Goto: stmt_goto,
    c_ast.Label: stmt_label,
    c_ast.Pragma: stmt_pragma,
}

_EXPRESSIONS: dict[type, Callable] = {
    c_ast.ID: expr_id,
    c_ast.Constant: expr_constant,
    c_ast.ArrayRef: expr_array_ref,
    c_ast.Assignment: expr_assignment,
    c_ast.UnaryOp: expr_unary_op,
    c_ast.BinaryOp: expr_binary_op,
    c_ast.TernaryOp: expr_ternary_op,
    c_ast.Cast: expr_cast,
    c_ast.ExprList: expr_expr_list,
    c_ast.InitList: expr_init_list,
    c_ast.Typename: expr_typename,
    c_ast.StructRef: expr_struct_ref,
    c_ast.FuncCall: expr_func_call,
    c_ast.CompoundLiteral: expr_compound_literal,
    c_ast.NamedInitializer: expr_named_initializer,
    c_ast.Pragma: expr_pragma,
}


def _as_subscript(e: c_ast.Node) -> c_ast.ArrayRef | None:
    """The subscript form of a dereferenced pointer expression, or None."""
    if _is_array_name(e):
        return c_ast.ArrayRef(e, c_ast.Constant("int", "0"), e.coord)
    if isinstance(e, c_ast.BinaryOp) and e.op == "+":
        if _is_array_name(e.left):
            return c_ast.ArrayRef(e.left, e.right, e.coord)
        if _is_array_name(e.right):
            return c_ast.ArrayRef(e.right, e.left, e.coord)
    return None


def _is_array_name(e: c_ast.Node) -> bool:
    """A name, or a string literal (an array of its own)."""
    return isinstance(e, c_ast.ID) or isinstance(e, c_ast.Constant) and e.type == "string"


def _is_integer_scalar(decl: c_ast.Decl) -> bool:
    t = decl.type
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        return False
    # narrower types wrap: their value is not the defining expression's
    return not {"float", "double", "char", "short", "_Bool"} & set(t.type.names)
