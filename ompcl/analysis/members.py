"""Loop-invariant member chains: a loop body's ``s->atoms->p[i][0]``, ``data.poles[k]``,
``s->boxes->nAtoms[b]``, ``params.poses[0][i]`` (a pointer element of an array member, its
subscript invariant) -> a copy of the loop in which each chain is a variable of the
region (``ompcl_m0_p[i][0]``), and those variables (``Var`` of storage ``GENERATED``, whose
declaration's initial value is the chain).

Consumes a candidate loop, the variables in scope and the file's types; produces the device
version of the loop and its hoisted chains, or None when it has none. A chain is hoisted when
its base is a variable the loop does not write, no member it names is assigned, incremented
or has its address taken in the loop or in a function the loop calls (by name: any struct's
member of that name), and its value is a pointer or an arithmetic scalar ompcl places on the
device. Its value is then the same in every iteration, so the region computes it once, at
entry, after checking each pointer it goes through is not null (``codegen.host``); the
arrays it points to then have extents like any pointer's (subscripts, or the heap block it
points into). The host keeps the original loop. Elements of local arrays of pointers read
with invariant subscripts (``d[2]`` of ``double *d[3]``) are hoisted the same way, and the
member chains in a pointer's row lengths (``double (*u)[g->ny]``) too, the pointer retyped
with their variables.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace as with_fields

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from ..ir import CType, Storage, Var
from .accesses import names_written, write_targets
from .accumulators import parents_of
from .ctypes_ import TypeEnv, c_text, renamed_type, walk
from .trees import tree_type


def chain(node: c_ast.Node) -> tuple[c_ast.ID, list[c_ast.StructRef]] | None:
    """The base variable and the member accesses, innermost first, of ``b.m1->m2...``."""
    refs = []
    while isinstance(node, c_ast.StructRef):
        refs.append(node)
        node = node.name
    return (node, refs[::-1]) if isinstance(node, c_ast.ID) and refs else None


def assigned_members(node: c_ast.Node) -> set[str]:
    """Members (by name) the code assigns, increments or takes the address of."""
    return {t.field.name for t in write_targets(node) if isinstance(t, c_ast.StructRef)}


def assigned_rows(node: c_ast.Node) -> set[str]:
    """Array members (by name) one of whose elements the code assigns, increments or takes
    the address of (``s.poses[k] = p``; through any member of that name: by name)."""
    return {t.name.field.name for t in write_targets(node)
            if isinstance(t, c_ast.ArrayRef) and isinstance(t.name, c_ast.StructRef)}


def resolve_typedefs(t: c_ast.Node | None, env: TypeEnv) -> c_ast.Node | None:
    """A type with a typedef name at its top replaced by the typedef's type."""
    seen = 0
    while isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
            len(t.type.names) == 1 and t.type.names[0] in env.typedefs and seen < 16:
        t, seen = env.typedefs[t.type.names[0]], seen + 1
    return t


def struct_members(t: c_ast.Node | None, env: TypeEnv) -> list[c_ast.Decl] | None:
    """The member declarations of a struct (or union) type (a TypeDecl of one, typedefs
    resolved)."""
    t = resolve_typedefs(t, env)
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, (c_ast.Struct, c_ast.Union)):
        return None
    s = t.type
    decls = s.decls if s.decls is not None else getattr(env.structs.get(s.name), "decls", None)
    return list(decls) if decls is not None else None


def member_type(base: c_ast.Node, ref: c_ast.StructRef, env: TypeEnv) -> c_ast.Node | None:
    """The declared type of ``base.field`` (``ref.type`` '.') or ``base->field`` ('->'),
    ``base`` being the type of the expression left of it."""
    t = resolve_typedefs(base, env)
    if ref.type == "->":
        if not isinstance(t, c_ast.PtrDecl):
            return None
        t = t.type
    for d in struct_members(t, env) or ():
        if isinstance(d, c_ast.Decl) and d.name == ref.field.name and d.bitsize is None:
            return d.type
    return None


def chain_type(base: Var, refs: list[c_ast.StructRef], env: TypeEnv) -> c_ast.Node | None:
    """The declared type of ``base`` followed through the member accesses ``refs``."""
    t = getattr(base.decl, "type", None)
    for ref in refs:
        t = member_type(t, ref, env) if t is not None else None
    return t


def null_guard(init: c_ast.Node) -> str:
    """C condition that the pointers a chain goes through (the bases of its ``->``) are not
    null; "" when it goes through none."""
    found = chain(init)
    return " && ".join(f"({c_text(r.name)})" for r in found[1] if r.type == "->") \
        if found else ""


def _variable(name: str, t: c_ast.Node, ct: CType, value: c_ast.Node) -> Var:
    """The region's variable ``name`` of declared type ``t`` holding ``value`` (a chain or
    an element), computed at entry."""
    decl = c_ast.Decl(name, [], [], [], [], renamed_type(t, name), clone(value), None)
    return Var(name, ct, Storage.GENERATED, decl)


def hoisted(loop: c_ast.For, scope: dict[str, Var], env: TypeEnv,
            callee_members: Callable[..., set[str]] = lambda body, of=None: set(),
            func: c_ast.FuncDef | None = None
            ) -> tuple[c_ast.For, dict[str, Var], dict[str, Var]] | None:
    """The loop with its invariant member chains replaced by variables (see module), those
    variables by name and the pointers retyped with them (``_retyped``: the region's scope
    takes them instead), or None when there are none. ``callee_members(body, of)``: the
    members the functions ``body`` calls assign, by ``of`` (``assigned_members`` by
    default, ``assigned_rows``). ``func``: the function holding the loop (its local arrays
    of pointers, its pointers to rows with member lengths)."""
    body = loop.stmt
    written = names_written(loop)
    banned = assigned_members(body) | callee_members(body)
    declared = {n.name for n in walk(body) if isinstance(n, c_ast.Decl)}
    names: dict[str, str] = {}  # chain text -> variable
    hoists: dict[str, Var] = {}
    replace: dict[int, str] = {}
    parents = {id(n.name) for n in walk(body) if isinstance(n, c_ast.StructRef)}
    rows = _Rows(body, written | declared, lambda: assigned_rows(body) | callee_members(
        body, assigned_rows))
    for n in walk(body):
        if not isinstance(n, c_ast.StructRef) or id(n) in parents:
            continue  # a chain is hoisted whole, from its outermost member
        found = chain(n)
        if found is None:
            continue
        base, refs = found
        var = scope.get(base.name)
        if var is None or base.name in written or base.name in declared or \
                any(r.field.name in banned for r in refs):
            continue
        t = chain_type(var, refs, env)
        ct = env.ctype(t) if t is not None else None
        if ct is None and tree_type(t, env):
            ct = CType("?")  # a pointer tree (``analysis.trees``)
        if isinstance(t, c_ast.ArrayDecl):  # an array member: one element of it
            n, t = rows.element(n, t)
            ct = env.ctype(t) if t is not None else None
        if ct is None or (ct.dims and not ct.pointer):
            continue  # an array member, or a type the device cannot hold
        text = c_text(n)
        if text not in names:
            names[text] = f"ompcl_m{len(names)}_{refs[-1].field.name}"
            hoists[names[text]] = _variable(names[text], t, ct, n)
        replace[id(n)] = names[text]
    arrays = {} if func is None else _pointer_arrays(body, scope, env, written | declared, func)
    for n in walk(body):  # elements of local arrays of pointers: d[2] of double *d[3]
        if not isinstance(n, c_ast.ArrayRef) or not isinstance(n.name, c_ast.ID) or \
                n.name.name not in arrays or not _invariant(n.subscript, written | declared):
            continue
        text, t = c_text(n), arrays[n.name.name]
        if text not in names:
            names[text] = f"ompcl_m{len(names)}_{n.name.name}"
            hoists[names[text]] = _variable(names[text], t, env.ctype(t), n)
        replace[id(n)] = names[text]
    retyped = {} if func is None else _retyped(
        body, scope, env, written | declared | names_written(func.body),
        banned | assigned_members(func.body) | callee_members(func.body), names, hoists)
    if not replace and not retyped:
        return None

    def swap(x: c_ast.Node) -> c_ast.Node | None:
        return c_ast.ID(replace[id(x)], x.coord) if id(x) in replace else None
    new = c_ast.For(loop.init, loop.cond, loop.next, clone_with(body, swap), loop.coord)
    return new, hoists, retyped


def bound_text(text: str, hoists: tuple[Var, ...] | list[Var]) -> str:
    """``text`` (C of a loop bound) with each hoisted chain's variable replaced by the chain,
    read only where the pointers on its way are not null (else 0: the region declines then),
    for the trip counts computed before the chains are."""
    for v in hoists:
        checks = null_guard(v.decl.init)
        value = f"({c_text(v.decl.init)})"
        text = re.sub(rf"\b{v.name}\b", f"(({checks}) ? {value} : 0)" if checks else value, text)
    return text


def _invariant(k: c_ast.Node, varying: set[str]) -> bool:
    """A subscript that is a constant or a variable the loop does not change."""
    return isinstance(k, c_ast.Constant) or isinstance(k, c_ast.ID) and k.name not in varying


def _pointer_arrays(body: c_ast.Node, scope: dict[str, Var], env: TypeEnv, varying: set[str],
                    func: c_ast.FuncDef) -> dict[str, c_ast.Node]:
    """The local arrays of pointers to scalars (``double *d[3]``) whose elements the loop may
    read as variables, each with its element type: no element assigned in the loop, and the
    array named in its function only by its elements (its address never taken nor passed
    on, so nothing else changes them)."""
    assigned = {w.name.name for w in write_targets(body)
                if isinstance(w, c_ast.ArrayRef) and isinstance(w.name, c_ast.ID)}
    named: dict[str, int] = {}
    for x in walk(func.body):  # +1 per mention, -1 per subscripted mention
        if isinstance(x, c_ast.ID):
            named[x.name] = named.get(x.name, 0) + 1
        elif isinstance(x, c_ast.ArrayRef) and isinstance(x.name, c_ast.ID):
            named[x.name.name] = named.get(x.name.name, 0) - 1
    out = {}
    for n in walk(body):
        base = n.name.name if isinstance(n, c_ast.ArrayRef) and \
            isinstance(n.name, c_ast.ID) else None
        var = scope.get(base) if base is not None else None
        t = getattr(var.decl, "type", None) if var is not None else None
        if var is None or var.storage != Storage.LOCAL or base in varying | assigned or \
                named.get(base) or not isinstance(t, c_ast.ArrayDecl) or \
                not isinstance(t.type, c_ast.PtrDecl):
            continue
        ct = env.ctype(t.type)
        if ct is not None and ct.pointer and not ct.dims and not ct.record:
            out[base] = t.type
    return out


def _retyped(body: c_ast.Node, scope: dict[str, Var], env: TypeEnv, varying: set[str],
             banned: set[str], names: dict[str, str], hoists: dict[str, Var]
             ) -> dict[str, Var]:
    """Pointers to variable-length rows the body uses whose row lengths are member chains
    (``double (*u)[g->ny][g->nz]``): each chain hoisted as an integer variable (into
    ``names`` and ``hoists``, as the body's chains), the pointer's type retold with them
    (``Var``s of the pointer's own storage, which the region's scope takes instead). C
    fixes the lengths where the pointer is declared: ``varying`` and ``banned`` cover the
    whole function (and its callees), so the members hold the same values at the loop."""
    out: dict[str, Var] = {}
    for name in sorted({n.name for n in walk(body) if isinstance(n, c_ast.ID)} - varying):
        var = scope.get(name)
        chains = _dim_chains(var)
        if not chains:
            continue
        new: dict[str, Var] = {}  # kept only where every chain of the pointer is hoisted
        texts = {}
        for n in chains:
            base, refs = chain(n)
            owner = scope.get(base.name)
            t = chain_type(owner, refs, env) if owner is not None else None
            ct = env.ctype(t) if t is not None else None
            if base.name in varying or any(r.field.name in banned for r in refs) or \
                    ct is None or not ct.is_scalar or ct.base in ("float", "double",
                                                                  "long double"):
                break
            text = c_text(n)
            if text in texts:
                continue
            texts[text] = names.get(text) or f"ompcl_m{len(names) + len(new)}_{refs[-1].field.name}"
            if text not in names:
                new[texts[text]] = _variable(texts[text], t, ct, n)
        else:
            names.update({c_text(v.decl.init): k for k, v in new.items()})
            hoists.update(new)
            out[name] = with_fields(var, ctype=with_fields(var.ctype, dims=tuple(
                _spelled(d, texts) for d in var.ctype.dims)))
    return out


def _dim_chains(var: Var | None) -> list[c_ast.StructRef]:
    """The member chains (outermost nodes) in the row lengths of a pointer to rows."""
    if var is None or not var.ctype.pointer or not var.ctype.dims:
        return []
    found, t = [], getattr(var.decl, "type", None)
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.TypeDecl)):
        if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
            inner = {id(n.name) for n in walk(t.dim) if isinstance(n, c_ast.StructRef)}
            found += [n for n in walk(t.dim) if isinstance(n, c_ast.StructRef)
                      and id(n) not in inner and chain(n) is not None]
        t = t.type
    return found


def _spelled(dim: str, texts: dict[str, str]) -> str:
    """``dim`` with each hoisted chain's text replaced by its variable (longest first)."""
    for text in sorted(texts, key=len, reverse=True):
        dim = dim.replace(text, texts[text])
    return dim


class _Rows:
    """Pointer elements of array members with an invariant subscript (``params.poses[0]``,
    an array of pointers in a global struct): hoisted as chains are, unless an element of a
    member of that name is assigned or has its address taken in the loop or a function it
    calls."""

    def __init__(self, body: c_ast.Node, varying: set[str], banned: Callable[[], set[str]]):
        self.parent = parents_of(body)
        self.varying, self._banned, self.banned = varying, banned, None

    def element(self, ref: c_ast.StructRef, t: c_ast.Node
                ) -> tuple[c_ast.Node, c_ast.Node | None]:
        """(``ref[k]``, its element type), or (ref, None) where it is not hoisted."""
        up = self.parent.get(id(ref))
        if not isinstance(up, c_ast.ArrayRef) or up.name is not ref or \
                not isinstance(getattr(t, "type", None), c_ast.PtrDecl) or \
                not _invariant(up.subscript, self.varying):
            return ref, None
        if self.banned is None:
            self.banned = self._banned()
        return (up, t.type) if ref.field.name not in self.banned else (ref, None)
