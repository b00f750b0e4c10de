"""Inlining calls whose interface the device cannot take: a function given a pointer tree
(k-means' ``find_nearest_point(feature[i], nfeatures, clusters, nclusters)`` with
``float **pts``) or an array of variable-length rows (``double a[][m]``) runs in the loop's
body instead, where its accesses are the loop's own (``pts[i]`` is ``clusters[i]``).

Consumes a candidate loop, the variables in scope there and a function lookup; produces a
copy of the loop whose statements ``f(...);``, ``x = f(...);`` and ``T x = f(...);`` calling
such a function are its body in a block, or None when there are none. A callee is inlined
when it is small, not recursive, has no ``static`` locals, labels or ``goto``, and returns
only by its last statement. Its locals and the parameters it assigns become fresh
variables of the block; the other parameters are replaced by their arguments where those
cannot change while it runs (constants, the caller's locals, pointer values), else they
are copied too. A free name of the callee (a global) that the loop's scope binds to
something else keeps the call as it is. The device version of the loop is that copy; the
host keeps the original loop.
"""
from __future__ import annotations

import itertools

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from ..ir import Storage, Var
from .accesses import names_written
from .ctypes_ import free_names, pointer_depth, renamed_type, walk
from .derived import view_dims

#: the largest callee inlined, in AST nodes
MAX_NODES = 400
_counter = itertools.count()


def inlined(loop: c_ast.For, scope: dict[str, Var], lookup) -> c_ast.For | None:
    """The loop with its calls of functions taking pointer trees inlined (see module)."""
    if not isinstance(loop.stmt, c_ast.Compound):  # a body of one statement, as a block
        loop = c_ast.For(loop.init, loop.cond, loop.next,
                         c_ast.Compound([loop.stmt], loop.stmt.coord), loop.coord)
    done = []

    def replace(n: c_ast.Node):
        if not isinstance(n, c_ast.Compound):
            return None
        news = [_inline_item(item, scope, lookup) for item in n.block_items or []]
        if all(x is None for x in news):
            return None
        done.append(True)
        items = []
        for item, new in zip(n.block_items, news):
            items.extend(new if new is not None else [clone_with(item, replace)])
        return c_ast.Compound(items, n.coord)
    new = clone_with(loop, replace)
    return new if done else None


def _call_of(item: c_ast.Node):
    """(call, how) of a block item that is a call statement: how is None (``f(...);``), an
    lvalue (``x = f(...);``) or a declaration (``T x = f(...);``)."""
    if isinstance(item, c_ast.FuncCall):
        return item, None
    if isinstance(item, c_ast.Assignment) and item.op == "=" and \
            isinstance(item.rvalue, c_ast.FuncCall):
        return item.rvalue, item.lvalue
    if isinstance(item, c_ast.Decl) and isinstance(item.init, c_ast.FuncCall) and \
            isinstance(item.type, c_ast.TypeDecl):
        return item.init, item
    return None, None


def _inline_item(item: c_ast.Node, scope: dict[str, Var], lookup) -> list | None:
    call, how = _call_of(item)
    if call is None or not isinstance(call.name, c_ast.ID):
        return None
    fdef = lookup(call.name.name)
    params = _param_decls(fdef) if fdef is not None else None
    args = call.args.exprs if call.args else []
    if params is None or len(params) != len(args) or not (
            _wants_inlining(fdef) or any(_referenced(a, p, fdef) for p, a in zip(params, args))) \
            or not _inlinable(fdef, scope):
        return None
    tag = f"_ompcl{next(_counter)}"
    body = fdef.body.block_items or []
    ret = body[-1] if body and isinstance(body[-1], c_ast.Return) else None
    locals_ = {n.name for n in walk(fdef.body) if isinstance(n, c_ast.Decl) and n.name}
    if locals_ & {p.name for p in params}:
        return None  # a block of the callee hides a parameter
    written = names_written(fdef.body) | _addressed(fdef.body)
    subst: dict[str, c_ast.Node] = {}
    copies: list[c_ast.Node] = []
    outer = written - locals_ - {p.name for p in params}  # globals the callee assigns
    addressed = [_addressed(a) for a in args]
    for k, (p, a) in enumerate(zip(params, args)):
        # names another argument passes the address of: the callee may assign them
        pointed = set().union(*(x for j, x in enumerate(addressed) if j != k))
        if p.name in written or not _stable(a, p, scope, outer | pointed):
            copy = clone(p)
            copy.init = clone(a)
            _rename_decl(copy, p.name + tag)
            copies.append(copy)
            subst[p.name] = c_ast.ID(p.name + tag)
        else:
            subst[p.name] = a
    subst.update({name: c_ast.ID(name + tag) for name in locals_})
    stmts = [_renamed(s, subst, tag) for s in (body[:-1] if ret is not None else body)]
    value = _renamed(ret.expr, subst, tag) if ret is not None and ret.expr is not None else None
    if isinstance(how, c_ast.Decl):
        decl = clone(how)
        decl.init = None
        decl.quals = [q for q in decl.quals or [] if q != "const"]
        decl.type.quals = [q for q in decl.type.quals or [] if q != "const"]
        tail = [c_ast.Assignment("=", c_ast.ID(how.name), value)] if value is not None else []
        return [decl, c_ast.Compound(copies + stmts + tail, item.coord)]
    if how is not None:
        if value is None:
            return None
        return [c_ast.Compound(copies + stmts + [c_ast.Assignment("=", clone(how), value)],
                               item.coord)]
    return [c_ast.Compound(copies + stmts, item.coord)]


def _addressed(node: c_ast.Node) -> set[str]:
    """The names whose address ``node`` takes (``&x``)."""
    return {x for n in walk(node) if (x := _address_of(n))}


def _address_of(e: c_ast.Node) -> str | None:
    """``x`` of an argument ``&x`` or ``&x[i]...``: the callee reads and writes ``x`` (or its
    element) through its parameter (cfd's ``compute_velocity(&density, &momentum,
    &velocity)``, C's references; graph500's ``get_v0_from_edge(&IJ[k])``)."""
    target = _target(e)
    while isinstance(target, c_ast.ArrayRef):
        target = target.name
    return target.name if isinstance(target, c_ast.ID) else None


def _referenced(arg: c_ast.Node, param: c_ast.Decl, fdef: c_ast.FuncDef) -> bool:
    """The callee takes ``arg`` as a reference: ``&x``, or ``&x[i]`` to a parameter it only
    dereferences (``p->m``, ``*p``; one it indexes or offsets is a derived pointer, which
    device functions take)."""
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ID):
        return True
    if _target(arg) is None:
        return False
    uses = [n for n in walk(fdef.body) if isinstance(n, c_ast.ID) and n.name == param.name]
    deref = {id(n.name) for n in walk(fdef.body) if isinstance(n, c_ast.StructRef)
             and n.type == "->"} | {id(n.expr) for n in walk(fdef.body)
                                    if isinstance(n, c_ast.UnaryOp) and n.op == "*"}
    return bool(uses) and all(id(u) in deref for u in uses)


def _target(e: c_ast.Node | None) -> c_ast.Node | None:
    """The object ``x`` or ``x[i]...`` an argument ``&x`` or ``&x[i]...`` points to, its
    subscripts free of side effects; else None."""
    if not (isinstance(e, c_ast.UnaryOp) and e.op == "&"):
        return None
    node = e.expr
    while isinstance(node, c_ast.ArrayRef):
        if _effects(node.subscript):
            return None
        node = node.name
    return e.expr if isinstance(node, c_ast.ID) else None


def _wants_inlining(fdef: c_ast.FuncDef) -> bool:
    """A callee with a parameter the device cannot take: a pointer to pointers, or an array
    of variable-length rows; or a local view of such rows (``double (*u)[ny] = (double
    (*)[ny])u_;``) or a local pointer into a parameter's array (XSBench's ``low =
    &grid[idx]; high = low + 1;``), which the loop's body turns into subscripts of the
    array (``derived``)."""
    if any(isinstance(d, c_ast.Decl) and any(not isinstance(x, c_ast.Constant) for x in (
            view_dims(d.type) or [])) for d in walk(fdef.body)):
        return True
    if _points_into_parameter(fdef):
        return True
    for p in _param_decls(fdef) or []:
        if pointer_depth(p.type)[0] >= 2:
            return True
        t = p.type
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(t, c_ast.ArrayDecl) and t is not p.type and t.dim is not None and \
                    not isinstance(t.dim, c_ast.Constant):
                return True
            t = t.type
    return False


def _points_into_parameter(fdef: c_ast.FuncDef) -> bool:
    """A local pointer set to the address of an element of a pointer parameter's array, or
    to the parameter plus an offset."""
    params = {p.name for p in _param_decls(fdef) or []
              if isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))}
    for n in walk(fdef.body):
        value = n.init if isinstance(n, c_ast.Decl) else n.rvalue if isinstance(
            n, c_ast.Assignment) and n.op == "=" and isinstance(n.lvalue, c_ast.ID) else None
        if isinstance(value, c_ast.UnaryOp) and value.op == "&":
            value = value.expr
            while isinstance(value, c_ast.ArrayRef):
                value = value.name
        elif isinstance(value, c_ast.BinaryOp) and value.op == "+":
            value = value.left
        else:
            continue
        if isinstance(value, c_ast.ID) and value.name in params:
            return True
    return False


def _inlinable(fdef: c_ast.FuncDef, scope: dict[str, Var]) -> bool:
    nodes = list(walk(fdef.body))
    if len(nodes) > MAX_NODES:
        return False
    name = fdef.decl.name
    if any(isinstance(n, (c_ast.Goto, c_ast.Label, c_ast.Pragma)) for n in nodes) or any(
            isinstance(n, c_ast.FuncCall) and getattr(n.name, "name", None) == name
            for n in nodes) or any(isinstance(n, c_ast.Decl) and "static" in (n.storage or [])
                                   for n in nodes):
        return False
    returns = [n for n in nodes if isinstance(n, c_ast.Return)]
    items = fdef.body.block_items or []
    if returns and (len(returns) > 1 or not items or items[-1] is not returns[0]):
        return False
    params = {p.name for p in _param_decls(fdef) or []}
    for free in free_names(fdef.body) - params:
        v = scope.get(free)
        if v is not None and v.storage not in (Storage.GLOBAL, Storage.STATIC):
            return False  # the loop's scope hides the global the callee means
    return True


def _param_decls(fdef: c_ast.FuncDef) -> list[c_ast.Decl] | None:
    args = fdef.decl.type.args
    if args is None:
        return []
    out = []
    for p in args.params:
        if isinstance(p, c_ast.Typename) and len(args.params) == 1:
            return []  # (void)
        if not isinstance(p, c_ast.Decl) or not p.name:
            return None
        out.append(p)
    return out


def _stable(arg: c_ast.Node, param: c_ast.Decl, scope: dict[str, Var], written: set[str]
            ) -> bool:
    """Whether ``arg`` has the same value wherever the callee reads the parameter: a
    constant, a local of the caller the callee cannot name, or (a pointer parameter) a
    pointer value made of such names, subscripts and offsets, none of which it assigns."""
    names = [n for n in walk(arg) if isinstance(n, c_ast.ID)]
    if _effects(arg):
        return False
    if any(n.name in written for n in names):
        return False
    if isinstance(arg, c_ast.Constant):
        return True
    if isinstance(arg, c_ast.ID):
        v = scope.get(arg.name)
        return v is not None and v.storage in (Storage.LOCAL, Storage.PARAM) or \
            isinstance(param.type, (c_ast.PtrDecl, c_ast.ArrayDecl))
    return isinstance(param.type, (c_ast.PtrDecl, c_ast.ArrayDecl))


def _effects(e: c_ast.Node) -> bool:
    """Whether evaluating ``e`` may change something (a call, an assignment, a step)."""
    return any(isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) or isinstance(
        n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") for n in walk(e))


def _rename_decl(decl: c_ast.Decl, name: str) -> None:
    decl.name = name
    decl.type = renamed_type(decl.type, name)


def _renamed(node: c_ast.Node, subst: dict[str, c_ast.Node], tag: str) -> c_ast.Node:
    """A copy of the callee's ``node`` with its parameters replaced (``subst``) and its
    locals renamed (declarations too)."""
    def replace(n: c_ast.Node):
        # a parameter given &x (&x[i]): p->m is x.m, *p is x (the callee works on x itself)
        if isinstance(n, c_ast.StructRef) and n.type == "->" and \
                isinstance(n.name, c_ast.ID) and _target(subst.get(n.name.name)):
            return c_ast.StructRef(clone(_target(subst[n.name.name])), ".",
                                   clone(n.field), n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and \
                _target(subst.get(n.expr.name)):
            return clone(_target(subst[n.expr.name]))
        if isinstance(n, c_ast.ID) and n.name in subst:
            s = subst[n.name]
            return clone(s)
        if isinstance(n, c_ast.Decl) and n.name and n.name + tag in {
                getattr(s, "name", None) for s in subst.values()}:
            d = clone_with(n, replace_inner)
            _rename_decl(d, n.name + tag)
            return d
        return None

    def replace_inner(n: c_ast.Node):
        return None if isinstance(n, c_ast.Decl) else replace(n)
    return clone_with(node, replace)
