"""Call analysis: the calls of a loop body -> ``CallInfo`` (user functions to print as device
functions and where each was found, the arrays they reach through pointer parameters or as
globals, with the access mode, and the reasons a call keeps the loop on the host).

Callees are followed transitively, in this file or, through the ``SourceLibrary``, in another
source file of the program. Each must not be recursive, must be free of constructs the device
cannot run, and take scalars or one-dimensional arrays. Globals a callee uses become extra
parameters of its device version: statically sized arrays (passed whole) and scalars it only
reads.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.library import ExternalFunction, SourceLibrary
from ..ir import Var
from .bodyscan import scan_body
from .builtins import host_only_reason, is_host_only, is_math
from .ctypes_ import TypeEnv, c_text, is_constant_text, visible_vars, walk


@dataclass(frozen=True)
class CallInfo:
    """What the calls of one loop body need."""

    functions: tuple[str, ...] = ()  # callees, each after the functions it calls
    pointer_args: dict[str, str] = field(default_factory=dict)  # array -> 'r' | 'rw'
    globals: dict[str, str] = field(default_factory=dict)  # global used by callees -> mode
    function_globals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    external: dict[str, ExternalFunction] = field(default_factory=dict)
    reasons: tuple[Reason, ...] = ()

    def through_calls(self) -> dict[str, str]:
        """Every variable the callees reach (as arguments or as globals), with its mode."""
        out = dict(self.pointer_args)
        for name, mode in self.globals.items():
            out[name] = "".join(sorted(set(out.get(name, "") + mode), key="rw".index))
        return out


def _array_base(arg: c_ast.Node) -> c_ast.ID | None:
    """The array an argument points into: ``a``, a row ``a[i]``, ``&a[i][j]``, ``a + e`` or
    ``a - e`` (``e`` an integer; the device adds it as the host does); else None."""
    while isinstance(arg, c_ast.BinaryOp) and arg.op in "+-":
        arg = arg.left
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(
            arg.expr, (c_ast.ArrayRef, c_ast.ID)):
        arg = arg.expr
    while isinstance(arg, c_ast.ArrayRef):
        arg = arg.name
    return arg if isinstance(arg, c_ast.ID) else None


def _merge(a: str, b: str) -> str:
    return "".join(sorted(set(a + b), key="rw".index))


def _variable_length_local(body: c_ast.Node, env: TypeEnv) -> c_ast.Decl | None:
    """The first local of ``body`` whose type has a dimension that is not a constant
    (``double tmp[n]``, the view ``double (*u)[ny]``)."""
    for d in walk(body):
        t = d.type if isinstance(d, c_ast.Decl) else None
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None and \
                    not is_constant_text(c_text(t.dim), env):
                return d
            t = t.type
    return None


class _CallWalk:
    def __init__(self, funcs: dict[str, c_ast.FuncDef], env: TypeEnv, scope: dict[str, Var],
                 declared: set[str], library: SourceLibrary | None,
                 file_scope: dict[str, Var]):
        self.funcs, self.env, self.scope, self.declared = funcs, env, scope, declared
        self.library, self.file_scope = library, file_scope
        self.found: list[str] = []
        self.pointer_args: dict[str, str] = {}
        self.globals: dict[str, str] = {}
        self.fglobals: dict[str, tuple[str, ...]] = {}
        self.external: dict[str, ExternalFunction] = {}
        self.reasons: list[Reason] = []
        self.passed_writable: set[str] = set()

    def fail(self, id: str, msg: str, node: c_ast.Node | None = None) -> None:
        if all(r.message != msg for r in self.reasons):
            self.reasons.append(Reason(id, msg, SourceLoc.of(node) if node else None))

    def env_of(self, name: str) -> TypeEnv:
        ext = self.external.get(name)
        if ext is None:
            return self.env
        return TypeEnv.of(ext.ast)

    def definition(self, name: str) -> c_ast.FuncDef | None:
        if name in self.funcs:
            return self.funcs[name]
        if name in self.external:
            return self.external[name].fdef
        ext = self.library.find(name) if self.library is not None else None
        if ext is not None:
            self.external[name] = ext
            return ext.fdef
        return None

    def pointer_params(self, fdef: c_ast.FuncDef, env: TypeEnv) -> dict[int, bool] | None:
        """Index -> is-const of each pointer parameter; None if a parameter is unsupported."""
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        out: dict[int, bool] = {}
        for k, p in enumerate(params):
            if isinstance(p, c_ast.Typename):
                continue
            ct = env.ctype(p.type)
            if ct is None:
                self.fail("callee-interface", f"function '{fdef.decl.name}' has parameter "
                          f"'{p.name}' of unsupported type", fdef)
                return None
            if ct.pointer or ct.dims:
                if not all(is_constant_text(x, env) for x in ct.row_dims):
                    self.fail("callee-interface", f"function '{fdef.decl.name}' takes "
                              f"array parameter '{p.name}' with variable dimensions", fdef)
                    return None
                out[k] = ct.const
        return out

    def call(self, name: str, call: c_ast.FuncCall, stack: frozenset[str],
             caller_ptrs: set[str] | None, caller: str | None = None) -> None:
        if is_math(name):
            return
        if name in stack:
            return self.fail("recursion", f"function '{name}' is recursive", call)
        if name in self.scope or is_host_only(name):
            return self.unknown(name, call, caller)
        fdef = self.definition(name)
        if fdef is None:
            return self.unknown(name, call, caller)
        ptrs = self.pointer_params(fdef, self.env_of(name))
        if ptrs is None or not self.pointer_arguments(name, call, ptrs, caller_ptrs):
            return
        if name not in self.found:
            self.callee(name, fdef, ptrs, stack)

    def unknown(self, name: str, call: c_ast.FuncCall, caller: str | None) -> None:
        within = f"function '{caller}' " if caller else ""
        if name in self.scope or is_host_only(name) or name not in self.declared:
            kind = "omp-runtime-call" if name.startswith("omp_") else "host-only-call"
            return self.fail(kind, within + host_only_reason(name), call)
        refused = self.library.refused.get(name) if self.library is not None else None
        if refused:  # (not certain to be the definition the program links)
            return self.fail("undefined-callee", f"{within}calls '{name}', {refused}", call)
        self.fail("undefined-callee", f"{within}calls '{name}', which is not defined in this "
                  "file or another source file of the program", call)

    def pointer_arguments(self, name: str, call: c_ast.FuncCall, ptrs: dict[int, bool],
                          caller_ptrs: set[str] | None) -> bool:
        args = call.args.exprs if call.args else []
        for k, const in ptrs.items():
            arg = _array_base(args[k]) if k < len(args) else None
            if arg is None:
                text = c_text(args[k]) if k < len(args) else "?"
                self.fail("callee-pointer-arg", f"passes '{text}' to pointer parameter of "
                          f"'{name}' (only arrays and their rows are supported)", call)
                return False
            if caller_ptrs is None:
                self.pointer_args[arg.name] = _merge(self.pointer_args.get(arg.name, ""),
                                                     "r" if const else "rw")
            elif arg.name not in caller_ptrs:  # the caller's own variables are private memory
                self.fail("callee-pointer-arg", f"function passes '{arg.name}' to pointer "
                          f"parameter of '{name}'", call)
                return False
            elif not const:
                self.passed_writable.add(arg.name)  # a global the callee lets another write
        return True

    def own_globals(self, name: str, fdef: c_ast.FuncDef, body, pnames: set[str],
                    passed_writable: set[str] = frozenset()) -> list[str] | None:
        """The globals a callee uses (its file's variables), recorded with their modes; None
        when one cannot be a parameter of its device version."""
        env = self.env_of(name)
        used = (body.scalar_reads | body.scalar_writes | {a.name for a in body.accesses}) - pnames
        used -= env.enumerators | {c for c, _ in body.calls}
        file_vars = visible_vars(self.external[name].ast, None, (), fdef, env) \
            if name in self.external else self.file_scope
        out = []
        for g in sorted(used):
            v = file_vars.get(g)
            written = g in body.scalar_writes or g in passed_writable or any(
                a.write for a in body.accesses if a.name == g)
            if v is None or v.ctype.base == "?":
                return self.fail("callee-global", f"function '{name}' uses '{g}', which ompcl "
                                 "cannot place on the device", fdef)
            if v.ctype.pointer and g in body.scalar_writes or v.ctype.is_scalar and written:
                what = "assigns global pointer" if v.ctype.pointer else "writes global variable"
                return self.fail("callee-global", f"function '{name}' {what} '{g}'", fdef)
            self.globals[g] = _merge(self.globals.get(g, ""), "rw" if written else "r")
            out.append(g)
        return out

    def callee(self, name: str, fdef: c_ast.FuncDef, ptrs: dict[int, bool],
               stack: frozenset[str]) -> None:
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        pnames = {p.name for p in params if isinstance(p, c_ast.Decl)}
        if isinstance(fdef.decl.type.type, c_ast.PtrDecl):
            return self.fail("callee-interface", f"function '{name}' returns a pointer", fdef)
        body = scan_body(fdef.body, pnames)
        for why in body.problems:
            if why.id == "return":
                continue  # a function body may return; its value was scanned
            return self.fail("callee-body", f"function '{name}' {why.message}", fdef)
        vla = _variable_length_local(fdef.body, self.env_of(name))
        if vla is not None:  # OpenCL C has no variable-length types
            return self.fail("callee-body", f"function '{name}' declares '{vla.name}' of a "
                             "variable-length type", vla)
        # a callee may pass on its pointer parameters, its own variables' addresses and the
        # globals it uses (whose modes then include what the callee's callees do)
        used = (body.scalar_reads | body.scalar_writes | {a.name for a in body.accesses})
        reachable = {params[k].name for k in ptrs} | set(body.locals) | pnames | used
        outer, self.passed_writable = self.passed_writable, set()
        for sub, subcall in body.calls:
            self.call(sub, subcall, stack | {name}, reachable, name)
        mine, self.passed_writable = self.passed_writable, outer
        own = self.own_globals(name, fdef, body, pnames, mine)
        if own is None:
            return
        needed = list(own)
        for sub, _ in body.calls:
            needed += [g for g in self.fglobals.get(sub, ()) if g not in needed]
        self.fglobals[name] = tuple(needed)
        if name not in self.found:
            self.found.append(name)


def analyze_calls(calls: tuple[tuple[str, c_ast.FuncCall], ...], funcs: dict[str, c_ast.FuncDef],
                  env: TypeEnv, scope: dict[str, Var], declared: set[str],
                  library: SourceLibrary | None = None,
                  file_scope: dict[str, Var] | None = None) -> CallInfo:
    """Follow the calls of a loop body; ``declared`` are the names declared at file scope,
    ``file_scope`` the file's global variables."""
    walk = _CallWalk(funcs, env, scope, declared, library, file_scope or {})
    for name, call in calls:
        walk.call(name, call, frozenset(), None)
    found = tuple(walk.found)
    return CallInfo(found, dict(walk.pointer_args), dict(walk.globals),
                    {f: walk.fglobals.get(f, ()) for f in found},
                    {f: walk.external[f] for f in found if f in walk.external},
                    tuple(walk.reasons))
