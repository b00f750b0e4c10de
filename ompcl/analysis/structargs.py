"""Struct arguments the device cannot hold, split into their members: a loop body's
``calculate_macro_xs(xs, mat, E, input, data)``, where ``SimulationData data`` holds pointers
and its callees only read ``data.poles[k]``, ``data.max_num_poles``, ... -> a call of a copy
of the function taking those members (``calculate_macro_xs__ompcl_s(xs, mat, E, input,
data.num_nucs, data.mats, ...)``), each member a parameter of the copy (``data__poles``); its
own calls that pass the struct on call copies of theirs.

Consumes a candidate loop, the variables in scope, the file's types and a lookup of function
definitions; produces the loop with those calls and the copies (``ExternalFunction``s, so the
calls analysis and the device code generator find them as functions of another file), or None
when no call passes such a struct. A parameter is split when every use of it in its function
is a member read (``p.m``, ``p->m``, a member's elements, never an assignment to a member or
its address) or passes it on to a function whose parameter is split too, and each member it
reads is a scalar or a pointer. The members' values at the call are then what the function
reads, so the copy does what the function does. The host keeps the original calls.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from ..frontend.library import ExternalFunction
from ..ir import Var
from .ctypes_ import TypeEnv, renamed_type, walk
from .members import assigned_members, chain, chain_type, member_type, resolve_typedefs

SUFFIX = "__ompcl_s"


def _params(fdef: c_ast.FuncDef) -> list[c_ast.Node]:
    args = fdef.decl.type.args
    return list(args.params) if args is not None else []


def _struct_param(p: c_ast.Node, env: TypeEnv) -> bool:
    """A parameter of struct type (or pointer to one) the device cannot hold."""
    return isinstance(p, c_ast.Decl) and _struct_type(p.type, env)


def _struct_type(t: c_ast.Node | None, env: TypeEnv) -> bool:
    """A struct type (or pointer to one) the device cannot hold."""
    if t is None or env.ctype(t) is not None:
        return False
    t = resolve_typedefs(t.type if isinstance(t, c_ast.PtrDecl) else t, env)
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.Struct)


Path = tuple[str, ...]  # members followed from a split parameter: ('tab', 'values')


def _step(t: c_ast.Node | None, field: str, env: TypeEnv) -> tuple[c_ast.Node | None, str]:
    """The type of member ``field`` of a value of type ``t``, and the operator reaching it."""
    arrow = "->" if isinstance(t, c_ast.PtrDecl) else "."
    return member_type(t, c_ast.StructRef(c_ast.ID("x"), arrow, c_ast.ID(field)), env), arrow


def path_type(t: c_ast.Node | None, path: Path, env: TypeEnv) -> c_ast.Node | None:
    for f in path:
        t = _step(t, f, env)[0] if t is not None else None
    return t


def follow(base: c_ast.Node, t: c_ast.Node | None, path: Path, env: TypeEnv) -> c_ast.Node:
    """``base`` (of type ``t``) followed through ``path``: ``base.tab->values``."""
    out = clone(base)
    for f in path:
        t, arrow = _step(t, f, env)
        out = c_ast.StructRef(out, arrow, c_ast.ID(f), base.coord)
    return out


def _designated(a: c_ast.Node) -> c_ast.Node:
    """The struct (or pointer to one) an argument designates: ``&s`` -> ``s``, ``*p`` ->
    ``p`` (its members are reached from there as from the argument)."""
    return a.expr if isinstance(a, c_ast.UnaryOp) and a.op in ("&", "*") else a


def _param_name(p: str, path: Path) -> str:
    return "__".join((p,) + path)


class _Splitter:
    """Copies of functions with struct parameters split into members (memoised)."""

    def __init__(self, env: TypeEnv, lookup: Callable[[str], c_ast.FuncDef | None]):
        self.env, self.lookup = env, lookup
        self.done: dict[str, tuple[str, dict[int, list[Path]]] | None] = {}
        self.copies: dict[str, c_ast.FuncDef] = {}

    def split(self, name: str) -> tuple[str, dict[int, list[Path]]] | None:
        """(copy's name, split parameter index -> member paths in order) of ``name``."""
        if name in self.done:
            return self.done[name]
        self.done[name] = None  # recursion through a split parameter is not split
        fdef = self.lookup(name)
        if fdef is None:
            return None
        params = _params(fdef)
        split = {k: p for k, p in enumerate(params) if _struct_param(p, self.env)}
        if not split:
            return None
        members = {k: self._paths(fdef, p) for k, p in split.items()}
        if any(m is None for m in members.values()):
            return None
        out = (name + SUFFIX, {k: m for k, m in members.items()})
        self.done[name] = out
        self.copies[out[0]] = self._copy(fdef, out[0], out[1], params)
        return out

    def _uses(self, body: c_ast.Node, p: str) -> dict[int, Path] | None:
        """Each outermost member chain rooted at ``p`` (by id) and its path; None when ``p``
        is used otherwise than through member reads and whole as a call argument."""
        inner = {id(n.name) for n in walk(body) if isinstance(n, c_ast.StructRef)}
        out, roots = {}, set()
        for n in walk(body):
            if isinstance(n, c_ast.Decl) and n.name == p:
                return None  # a local hides it
            if isinstance(n, c_ast.StructRef) and id(n) not in inner:
                found = chain(n)
                if found and found[0].name == p:
                    out[id(n)] = tuple(r.field.name for r in found[1])
                    roots.add(id(found[0]))
        if assigned_members(body) & {f for path in out.values() for f in path}:
            return None  # a member assigned (by name: any struct's)
        args = {id(_designated(a)) for n in walk(body) if isinstance(n, c_ast.FuncCall)
                and n.args for a in n.args.exprs}
        if any(isinstance(n, c_ast.ID) and n.name == p and id(n) not in roots
               and id(n) not in args for n in walk(body)):
            return None
        return out

    def _paths(self, fdef: c_ast.FuncDef, p: c_ast.Decl) -> list[Path] | None:
        """The member paths of parameter ``p`` the function reads, or None."""
        uses = self._uses(fdef.body, p.name)
        if uses is None:
            return None
        paths: set[Path] = set()
        as_args: dict[int, tuple[str, int]] = {}
        for n in walk(fdef.body):
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.args:
                for j, a in enumerate(n.args.exprs):
                    as_args[id(_designated(a))] = (n.name.name, j)
        whole = [n for n in walk(fdef.body) if isinstance(n, c_ast.ID) and n.name == p.name
                 and id(n) in as_args]
        for key, path in [(id(n), ()) for n in whole] + list(uses.items()):
            t = path_type(p.type, path, self.env)
            if path and self._held(t):
                paths.add(path)
                continue
            if key not in as_args or not _struct_type(t, self.env):
                return None  # a struct used otherwise than passed on
            callee = self.split(as_args[key][0])
            if callee is None or as_args[key][1] not in callee[1]:
                return None
            paths |= {path + sub for sub in callee[1][as_args[key][1]]}
        return sorted(paths)

    def _held(self, t: c_ast.Node | None) -> bool:
        """A member type the device holds: a scalar or a pointer (not an array member)."""
        ct = self.env.ctype(t) if t is not None else None
        return ct is not None and not (ct.dims and not ct.pointer)

    def _copy(self, fdef: c_ast.FuncDef, name: str, split: dict[int, list[Path]],
              params: list[c_ast.Node]) -> c_ast.FuncDef:
        new_params: list[c_ast.Node] = []
        types: dict[str, c_ast.Node] = {}
        for k, p in enumerate(params):
            if k not in split:
                new_params.append(clone(p))
                continue
            types[p.name] = p.type
            for path in split[k]:
                pname = _param_name(p.name, path)
                t = path_type(p.type, path, self.env)
                new_params.append(c_ast.Decl(pname, [], [], [], [], renamed_type(t, pname), None,
                                             None))
        uses = {q: self._uses(fdef.body, q) for q in types}
        body = clone_with(fdef.body, lambda n: self._rewrite(n, types, uses))
        ftype = clone(fdef.decl.type)
        ftype.args = c_ast.ParamList(new_params) if new_params else None
        for sub in walk(ftype.type):
            if isinstance(sub, c_ast.TypeDecl):
                sub.declname = name
                break
        decl = c_ast.Decl(name, list(fdef.decl.quals or []), [], list(fdef.decl.storage or []),
                          list(fdef.decl.funcspec or []), ftype, None, None, fdef.decl.coord)
        return c_ast.FuncDef(decl, None, body, fdef.coord)

    def _rewrite(self, n: c_ast.Node, types: dict[str, c_ast.Node],
                 uses: dict[str, dict[int, Path]]) -> c_ast.Node | None:
        for q, chains in uses.items():
            if id(n) in chains and self._held(path_type(types[q], chains[id(n)], self.env)):
                return c_ast.ID(_param_name(q, chains[id(n)]), n.coord)
        if isinstance(n, c_ast.FuncCall):
            def root(a):  # the split parameter and path a whole argument stands for
                a = _designated(a)
                for q, chains in uses.items():
                    if isinstance(a, c_ast.ID) and a.name == q:
                        return q, ()
                    if id(a) in chains:
                        return q, chains[id(a)]
                return None
            return self.call(n, lambda a: root(a) is not None,
                             lambda a, sub: c_ast.ID(_param_name(root(a)[0], root(a)[1] + sub),
                                                     a.coord),
                             lambda x: clone_with(x, lambda y: self._rewrite(y, types, uses)))
        return None

    def call(self, n: c_ast.FuncCall, struct_arg, member_of, other) -> c_ast.FuncCall | None:
        """The call of the copy (arguments split into members by ``member_of``), or None
        when the callee has no copy or no argument is a struct to split."""
        if not isinstance(n.name, c_ast.ID):
            return None
        args = n.args.exprs if n.args else []
        if not any(struct_arg(a) for a in args):
            return None
        found = self.split(n.name.name)
        if found is None or not all(k < len(args) and struct_arg(args[k]) for k in found[1]):
            return None
        new_args = []
        for k, a in enumerate(args):
            if k in found[1]:
                new_args += [member_of(a, path) for path in found[1][k]]
            else:
                new_args.append(other(a))
        return c_ast.FuncCall(c_ast.ID(found[0], n.name.coord), c_ast.ExprList(new_args),
                              n.coord)


def specialized(loop: c_ast.For, scope: dict[str, Var], env: TypeEnv, ast: c_ast.FileAST,
                lookup: Callable[[str], c_ast.FuncDef | None]
                ) -> tuple[c_ast.For, dict[str, ExternalFunction]] | None:
    """The loop with its calls that pass such structs calling the copies, and the copies by
    name (see module), or None."""
    sp = _Splitter(env, lookup)

    def type_of(a: c_ast.Node) -> c_ast.Node | None:
        """The declared type of a variable or of a member chain of one."""
        found = chain(a) if isinstance(a, c_ast.StructRef) else (a, []) if isinstance(
            a, c_ast.ID) else None
        v = scope.get(found[0].name) if found else None
        return chain_type(v, found[1], env) if v is not None and v.decl is not None else None

    def struct_var(a: c_ast.Node) -> bool:
        return _struct_type(type_of(_designated(a)), env)

    def member(a: c_ast.Node, path: Path) -> c_ast.Node:
        a = _designated(a)
        return follow(a, type_of(a), path, env)

    def rewrite(n: c_ast.Node) -> c_ast.Node | None:
        if isinstance(n, c_ast.FuncCall):
            return sp.call(n, struct_var, member, lambda x: clone_with(x, rewrite))
        return None
    body = clone_with(loop.stmt, rewrite)
    if not sp.copies:
        return None
    new = c_ast.For(loop.init, loop.cond, loop.next, body, loop.coord)
    return new, {n: ExternalFunction(n, f, ast, "") for n, f in sp.copies.items()}


class WithCopies:
    """A source library (``frontend.library``) that also finds the split copies."""

    def __init__(self, base, copies: dict[str, ExternalFunction]):
        self.base, self.copies = base, copies

    def find(self, name: str) -> ExternalFunction | None:
        found = self.copies.get(name)
        return found if found is not None or self.base is None else self.base.find(name)

    def __getattr__(self, attr):
        return getattr(self.base, attr)
