"""Conversions to ``_Bool`` made explicit in device code: a tree and the types of the names in
scope -> the tree with every value stored into a ``_Bool`` object compared with zero.

C converts any value stored in a ``_Bool`` to 0 or 1 (``flag[i] = bits & 4`` stores 1,
``_Bool b = 0.25`` stores 1). Kernels hold ``_Bool`` data as ``uchar`` (OpenCL C has no
``bool`` in buffers), where the same assignment would store 4 or 0. So each conversion is
written out: a stored value becomes ``(v) != 0`` unless it already is 0 or 1 (a comparison, a
logical operator, a constant 0 or 1, another ``_Bool``); ``b op= v`` becomes
``b = (b op v) != 0`` (``|=`` only converts ``v``); ``b++`` sets 1 and ``b--`` flips;
casts to ``_Bool``, returns from a function returning it and arguments for its parameters are
converted the same way. Not converted: an arithmetic compound assignment whose target has side
effects (``flags[k++] += v``: the target would be evaluated twice), and the value of a
postfix ``b++`` used in an expression.

Types come from declarations in scope (the region's arrays and scalars, the kernel's private
declarations, a function's parameters, block-scope declarations, struct members through the
file's struct definitions). Consumes kernel bodies and device functions before 'linearize'
(subscripts as the user wrote them, user names); produces them with the conversions.
"""
from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from ..analysis.ctypes_ import TypeEnv, walk
from ..frontend.clone import clone
from ..ir import KernelSpec, Region
from .visitor import NodeTransformer

_RELATIONAL = {"==", "!=", "<", ">", "<=", ">=", "&&", "||"}


def _resolved(t: c_ast.Node | None, env: TypeEnv) -> c_ast.Node | None:
    """``t`` with a typedef name at its top replaced by the type it stands for."""
    seen = 0
    while isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
            and len(t.type.names) == 1 and t.type.names[0] in env.typedefs and seen < 16:
        t, seen = env.typedefs[t.type.names[0]], seen + 1
    return t


def is_bool(t: c_ast.Node | None, env: TypeEnv) -> bool:
    t = _resolved(t, env)
    return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
        and env.scalar_of(t.type.names) == "_Bool"


def _element(t: c_ast.Node | None, env: TypeEnv) -> c_ast.Node | None:
    t = _resolved(t, env)
    return t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None


def _member(t: c_ast.Node | None, field: str, env: TypeEnv) -> c_ast.Node | None:
    t = _resolved(t, env)
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, (c_ast.Struct, c_ast.Union)):
        return None
    s = t.type
    decls = s.decls if s.decls is not None else getattr(env.structs.get(s.name), "decls", None)
    for d in decls or []:
        if d.name == field:
            return d.type
    return None


def _pure(e: c_ast.Node) -> bool:
    return not any(isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) or isinstance(
        n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") for n in walk(e))


class _Booleans(NodeTransformer):
    def __init__(self, env: TypeEnv, scope: dict[str, c_ast.Node],
                 functions: dict[str, c_ast.FuncDecl], returns_bool: bool = False):
        self.env, self.scopes, self.functions = env, [dict(scope)], functions
        self.returns_bool = returns_bool

    # -- types ------------------------------------------------------------------------
    def type_of(self, e: c_ast.Node) -> c_ast.Node | None:
        if isinstance(e, c_ast.ID):
            return next((s[e.name] for s in reversed(self.scopes) if e.name in s), None)
        if isinstance(e, c_ast.ArrayRef):
            return _element(self.type_of(e.name), self.env)
        if isinstance(e, c_ast.UnaryOp) and e.op == "*":
            return _element(self.type_of(e.expr), self.env)
        if isinstance(e, c_ast.StructRef):
            base = self.type_of(e.name)
            return _member(_element(base, self.env) if e.type == "->" else base,
                           e.field.name, self.env)
        if isinstance(e, c_ast.Cast):
            return e.to_type.type
        return None

    def boolean(self, e: c_ast.Node) -> bool:
        return is_bool(self.type_of(e), self.env)

    def zero_one(self, e: c_ast.Node) -> bool:
        """``e``'s value is 0 or 1 already."""
        if isinstance(e, c_ast.BinaryOp):
            return e.op in _RELATIONAL
        if isinstance(e, c_ast.UnaryOp):
            return e.op == "!"
        if isinstance(e, c_ast.Constant):
            return e.value in ("0", "1")
        return self.boolean(e)

    def converted(self, e: c_ast.Node) -> c_ast.Node:
        if self.zero_one(e):
            return e
        return c_ast.BinaryOp("!=", e, c_ast.Constant("int", "0"), e.coord)

    # -- scopes -----------------------------------------------------------------------
    def scoped(self, n: c_ast.Node) -> c_ast.Node:
        """A block or a for statement: its declarations end with it."""
        self.scopes.append({})
        try:
            return self.generic_visit(n)
        finally:
            self.scopes.pop()

    visit_Compound = visit_For = scoped

    def visit_Decl(self, n: c_ast.Decl) -> c_ast.Decl:
        if n.name:
            self.scopes[-1][n.name] = n.type
        if n.init is not None:
            n.init = self.visit(n.init)
            if is_bool(n.type, self.env) and not isinstance(n.init, c_ast.InitList):
                n.init = self.converted(n.init)
            elif isinstance(n.init, c_ast.InitList) and is_bool(_element(n.type, self.env),
                                                               self.env):
                n.init.exprs = [x if isinstance(x, (c_ast.InitList, c_ast.NamedInitializer))
                                else self.converted(x) for x in n.init.exprs]
        return n

    # -- conversions ------------------------------------------------------------------
    def visit_Assignment(self, n: c_ast.Assignment) -> c_ast.Node:
        n.rvalue = self.visit(n.rvalue)
        n.lvalue = self.visit(n.lvalue)
        if not self.boolean(n.lvalue):
            return n
        if n.op in ("=", "|="):  # (b | v) != 0 is b | (v != 0); b & 2, b ^ 2 are not so
            n.rvalue = self.converted(n.rvalue)
            return n
        if not _pure(n.lvalue):
            return n  # (its target would be evaluated twice; see the module's docstring)
        value = c_ast.BinaryOp(n.op[:-1], clone(n.lvalue), n.rvalue, n.coord)
        return c_ast.Assignment("=", n.lvalue, self.converted(value), n.coord)

    def visit_UnaryOp(self, n: c_ast.UnaryOp) -> c_ast.Node:
        n.expr = self.visit(n.expr)
        if n.op in ("++", "p++", "--", "p--") and self.boolean(n.expr):
            value = (c_ast.Constant("int", "1") if "+" in n.op
                     else c_ast.UnaryOp("!", clone(n.expr)))
            return c_ast.Assignment("=", n.expr, value, n.coord)
        return n

    def visit_Cast(self, n: c_ast.Cast) -> c_ast.Node:
        n.expr = self.visit(n.expr)
        if is_bool(n.to_type.type, self.env):
            return c_ast.Cast(n.to_type, self.converted(n.expr), n.coord)
        return n

    def visit_Return(self, n: c_ast.Return) -> c_ast.Return:
        if n.expr is not None:
            n.expr = self.visit(n.expr)
            if self.returns_bool:
                n.expr = self.converted(n.expr)
        return n

    def visit_FuncCall(self, n: c_ast.FuncCall) -> c_ast.FuncCall:
        n = self.generic_visit(n)
        fn = self.functions.get(getattr(n.name, "name", None))
        if fn is None or n.args is None or fn.args is None:
            return n
        params = fn.args.params
        n.args.exprs = [self.converted(a) if k < len(params) and
                        is_bool(getattr(params[k], "type", None), self.env) else a
                        for k, a in enumerate(n.args.exprs)]
        return n


def kernel_with_bool_conversions(spec: KernelSpec, region: Region, env: TypeEnv,
                                 functions: dict[str, c_ast.FuncDecl]) -> KernelSpec:
    """``spec`` with its body's conversions to ``_Bool`` written out (the region's arrays,
    scalars and private variables, and the kernel's private declarations, in scope)."""
    scope = {v.name: v.decl.type for v in (*(a.var for a in region.arrays), *region.scalars,
                                           *region.privates) if isinstance(v.decl, c_ast.Decl)}
    scope.update({d.name: d.type for d in spec.privates})
    return replace(spec, body=_Booleans(env, scope, functions).rewrite(spec.body))


def function_with_bool_conversions(f: c_ast.FuncDef, env: TypeEnv,
                                   functions: dict[str, c_ast.FuncDecl]) -> c_ast.FuncDef:
    """A copy of device function ``f`` with its conversions to ``_Bool`` written out (its
    parameters in scope; its returns converted where it returns ``_Bool``)."""
    decl = f.decl.type
    scope = {p.name: p.type for p in (decl.args.params if decl.args else [])
             if isinstance(p, c_ast.Decl) and p.name}
    t = _Booleans(env, scope, functions, returns_bool=is_bool(decl.type, env))
    out = clone(f)
    out.body = t.visit(out.body)
    return out
