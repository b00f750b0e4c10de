"""Call analysis: the calls of a loop body -> ``CallInfo`` (user functions to print as device
functions, the arrays passed to their pointer parameters with the access mode, and the
reasons a call keeps the loop on the host).

Callees are followed transitively; each must be defined in the file, not recursive, free of
globals and of constructs the device cannot run, and take scalars or one-dimensional arrays.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..ir import Var
from .accesses import scan_body
from .builtins import host_only_reason, is_host_only, is_math
from .ctypes_ import TypeEnv, c_text


@dataclass(frozen=True)
class CallInfo:
    """What the calls of one loop body need."""

    functions: tuple[str, ...] = ()  # callees, each after the functions it calls
    pointer_args: dict[str, str] = field(default_factory=dict)  # array -> 'r' | 'rw'
    reasons: tuple[Reason, ...] = ()


class _CallWalk:
    def __init__(self, funcs: dict[str, c_ast.FuncDef], env: TypeEnv, scope: dict[str, Var],
                 declared: set[str]):
        self.funcs, self.env, self.scope, self.declared = funcs, env, scope, declared
        self.found: list[str] = []
        self.pointer_args: dict[str, str] = {}
        self.reasons: list[Reason] = []

    def fail(self, id: str, msg: str, node: c_ast.Node | None = None) -> None:
        if all(r.message != msg for r in self.reasons):
            self.reasons.append(Reason(id, msg, SourceLoc.of(node) if node else None))

    def pointer_params(self, fdef: c_ast.FuncDef) -> dict[int, bool] | None:
        """Index -> is-const of each pointer parameter; None if a parameter is unsupported."""
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        out: dict[int, bool] = {}
        for k, p in enumerate(params):
            if isinstance(p, c_ast.Typename):
                continue
            ct = self.env.ctype(p.type)
            if ct is None:
                self.fail("callee-interface", f"function '{fdef.decl.name}' has parameter "
                          f"'{p.name}' of unsupported type", fdef)
                return None
            if ct.pointer or ct.dims:
                if len(ct.dims) > (0 if ct.pointer else 1):
                    self.fail("callee-interface", f"function '{fdef.decl.name}' takes "
                              f"multi-dimensional array parameter '{p.name}'", fdef)
                    return None
                out[k] = ct.const
        return out

    def call(self, name: str, call: c_ast.FuncCall, stack: frozenset[str],
             caller_ptrs: set[str] | None, caller: str | None = None) -> None:
        if is_math(name):
            return
        if name in stack:
            return self.fail("recursion", f"function '{name}' is recursive", call)
        fdef = self.funcs.get(name)
        if fdef is None:
            return self.unknown(name, call, caller)
        ptrs = self.pointer_params(fdef)
        if ptrs is None or not self.pointer_arguments(name, call, ptrs, caller_ptrs):
            return
        if name not in self.found:
            self.callee(name, fdef, ptrs, stack)

    def unknown(self, name: str, call: c_ast.FuncCall, caller: str | None) -> None:
        within = f"function '{caller}' " if caller else ""
        if name in self.scope or is_host_only(name) or name not in self.declared:
            kind = "omp-runtime-call" if name.startswith("omp_") else "host-only-call"
            return self.fail(kind, within + host_only_reason(name), call)
        self.fail("undefined-callee", f"{within}calls '{name}', which is not defined in this "
                  "file", call)

    def pointer_arguments(self, name: str, call: c_ast.FuncCall, ptrs: dict[int, bool],
                          caller_ptrs: set[str] | None) -> bool:
        args = call.args.exprs if call.args else []
        for k, const in ptrs.items():
            arg = args[k] if k < len(args) else None
            if not isinstance(arg, c_ast.ID):
                self.fail("callee-pointer-arg", f"passes '{c_text(arg) if arg else '?'}' to "
                          f"pointer parameter of '{name}' (only array names are supported)", call)
                return False
            if caller_ptrs is None:
                mode = self.pointer_args.get(arg.name, "") + ("r" if const else "rw")
                self.pointer_args[arg.name] = "".join(sorted(set(mode), key="rw".index))
            elif arg.name not in caller_ptrs:
                self.fail("callee-pointer-arg", f"function passes '{arg.name}' to pointer "
                          f"parameter of '{name}'", call)
                return False
        return True

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
        outer = (body.scalar_reads | body.scalar_writes | {a.name for a in body.accesses}) - pnames
        outer -= self.env.enumerators
        outer -= {c for c, _ in body.calls}
        if outer:
            return self.fail("callee-global",
                             f"function '{name}' uses global variable '{sorted(outer)[0]}'", fdef)
        ptr_names = {params[k].name for k in ptrs}
        for sub, subcall in body.calls:
            self.call(sub, subcall, stack | {name}, ptr_names, name)
        self.found.append(name)


def analyze_calls(calls: tuple[tuple[str, c_ast.FuncCall], ...], funcs: dict[str, c_ast.FuncDef],
                  env: TypeEnv, scope: dict[str, Var], declared: set[str]) -> CallInfo:
    """Follow the calls of a loop body; ``declared`` are the names declared at file scope."""
    walk = _CallWalk(funcs, env, scope, declared)
    for name, call in calls:
        walk.call(name, call, frozenset(), None)
    return CallInfo(tuple(walk.found), dict(walk.pointer_args), tuple(walk.reasons))
