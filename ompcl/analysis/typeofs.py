"""GNU ``typeof`` and ``__auto_type`` in declarations: a file's tree, whose declarations
the front end read with the opaque stand-in type and the operand kept as their alignment
(``frontend.setaside``), -> the same tree with each such declaration given the type of its
operand (of its initialiser for ``__auto_type``), in place, where that type can be worked
out; the others keep the stand-in (a loop using one stays on the host, ``typeof_reason``).

The kernel-style macro ``({ __typeof__(p) _p = (p); ... })`` then declares ``_p`` as
``double`` (or whatever ``p`` is) on the device, as gcc does on the host.
"""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.clone import clone
from ..frontend.setaside import AUTO_TYPE, TYPEOF, TYPEOF_CALL

# (``env`` below is the file's ``ctypes_.TypeEnv``, which calls this module when it is made:
# this module imports none of the analysis, so it reads typedefs and tags from it directly)

_RELATIONAL = {"<", ">", "<=", ">=", "==", "!=", "&&", "||"}
_RANK = {"int": 1, "unsigned int": 1, "long": 2, "unsigned long": 2}


def resolve_typeofs(ast: c_ast.FileAST, env) -> None:  # noqa: ANN001 - see above
    """Give every stand-in declaration of ``ast``'s functions the type of its operand (the
    functions it calls, the C library's too, by their declarations in the file)."""
    scope: dict[str, c_ast.Node] = {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name:
            scope[ext.name] = ext.type
        elif isinstance(ext, c_ast.FuncDef):
            scope[ext.decl.name] = ext.decl.type
            _Typer(env, scope).function(ext)


def _scalar(spelling: str) -> c_ast.TypeDecl:
    return c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(spelling.split()))


class _Typer:
    """A walk of one function with C's block scopes: name -> declared type."""

    def __init__(self, env, file_scope: dict[str, c_ast.Node]):  # noqa: ANN001
        self.env, self.scopes = env, [file_scope]

    def lookup(self, name: str) -> c_ast.Node | None:
        return next((s[name] for s in reversed(self.scopes) if name in s), None)

    def function(self, f: c_ast.FuncDef) -> None:
        params = f.decl.type.args.params if f.decl.type.args else []
        self.scopes.append({p.name: p.type for p in params if isinstance(p, c_ast.Decl)})
        self.visit(f.body)
        self.scopes.pop()

    def visit(self, n: c_ast.Node | None) -> None:
        if n is None:
            return
        if isinstance(n, (c_ast.Compound, c_ast.For)):
            self.scopes.append({})
            for _, child in n.children():
                self.visit(child)
            self.scopes.pop()
        elif isinstance(n, c_ast.Decl):
            self.declare(n)
        else:
            for _, child in n.children():
                self.visit(child)

    def declare(self, d: c_ast.Decl) -> None:
        """Resolve ``d``'s type if it is a stand-in, then walk its initialiser; ``d`` is in
        scope after it."""
        ours = d.align[-1] if d.align and _stand_in_leaf(d.type) is not None else None
        if ours is not None:
            t = self.operand_type(ours.alignment, d.init)
            if t is not None and _set_type(d, t):
                d.align = d.align[:-1]
        self.visit(d.init)
        if d.name:
            self.scopes[-1][d.name] = d.type

    def operand_type(self, operand: c_ast.Node, init: c_ast.Node | None) -> c_ast.Node | None:
        if isinstance(operand, c_ast.ID) and operand.name == AUTO_TYPE:
            if init is None or isinstance(init, c_ast.InitList):
                return None
            t = _resolved(self.type_of(init), self.env)  # an array decays, and the
            if isinstance(t, c_ast.ArrayDecl):  # value's qualifiers go
                return c_ast.PtrDecl([], t.type)
            return _unqualified(t)
        if isinstance(operand, c_ast.Typename):
            return operand.type
        if isinstance(operand, c_ast.FuncCall) and getattr(operand.name, "name", "") == \
                TYPEOF_CALL and operand.args is not None and len(operand.args.exprs) == 1:
            operand = operand.args.exprs[0]
        return self.type_of(operand)

    # -- the type of an expression (None: not worked out) --------------------------------
    def type_of(self, e: c_ast.Node) -> c_ast.Node | None:
        meth = getattr(self, "type_" + type(e).__name__, None)
        return meth(e) if meth is not None else None

    def type_ID(self, e: c_ast.ID) -> c_ast.Node | None:
        t = self.lookup(e.name)
        if t is None and e.name in self.env.enumerators:
            return _scalar("int")
        return None if isinstance(t, c_ast.FuncDecl) else t

    def type_Constant(self, e: c_ast.Constant) -> c_ast.Node | None:
        if e.type in ("double", "float"):
            return _scalar(e.type)
        if e.type == "char":
            return _scalar("int")
        spelling = self.env.scalar_of(e.type.split()) if e.type not in (
            "string", "long double") else None  # (pycparser: 'unsigned long int' of 2UL)
        return _scalar(spelling) if spelling is not None else None

    def element(self, t: c_ast.Node | None) -> c_ast.Node | None:
        t = _resolved(t, self.env)
        return t.type if isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)) else None

    def type_ArrayRef(self, e: c_ast.ArrayRef) -> c_ast.Node | None:
        return self.element(self.type_of(e.name))

    def type_StructRef(self, e: c_ast.StructRef) -> c_ast.Node | None:
        t = _resolved(self.type_of(e.name), self.env)
        if e.type == "->":
            t = _resolved(t.type, self.env) if isinstance(t, c_ast.PtrDecl) else None
        rec = t.type if isinstance(t, c_ast.TypeDecl) else None
        if not isinstance(rec, (c_ast.Struct, c_ast.Union)):
            return None
        decls = rec.decls if rec.decls is not None else getattr(
            self.env.structs.get(rec.name), "decls", None)
        return next((d.type for d in decls or () if d.name == e.field.name), None)

    def type_Cast(self, e: c_ast.Cast) -> c_ast.Node | None:
        return e.to_type.type

    def type_Typename(self, e: c_ast.Typename) -> c_ast.Node | None:
        return e.type

    def type_Assignment(self, e: c_ast.Assignment) -> c_ast.Node | None:
        return self.type_of(e.lvalue)

    def type_ExprList(self, e: c_ast.ExprList) -> c_ast.Node | None:
        return self.type_of(e.exprs[-1]) if e.exprs else None

    def type_Compound(self, e: c_ast.Compound) -> c_ast.Node | None:
        """A statement expression: the type of its last statement, in its scope."""
        items = e.block_items or []
        self.scopes.append({})
        try:
            for item in items[:-1]:
                self.visit(item)
            return self.type_of(items[-1]) if items else None
        finally:
            self.scopes.pop()

    def type_UnaryOp(self, e: c_ast.UnaryOp) -> c_ast.Node | None:
        if e.op == "*":
            return self.element(self.type_of(e.expr))
        if e.op in ("++", "--", "p++", "p--"):
            return self.type_of(e.expr)
        if e.op == "!":
            return _scalar("int")
        if e.op == "sizeof":
            return _scalar("unsigned long")
        if e.op in ("-", "+", "~"):
            s = self.arithmetic(e.expr)
            return _scalar(_promoted(s)) if s is not None else None
        return None

    def type_BinaryOp(self, e: c_ast.BinaryOp) -> c_ast.Node | None:
        if e.op in _RELATIONAL:
            return _scalar("int")
        left, right = self.arithmetic(e.left), self.arithmetic(e.right)
        if left is None or right is None:
            return None
        if e.op in ("<<", ">>"):
            return _scalar(_promoted(left))
        return _scalar(_usual(left, right))

    def type_TernaryOp(self, e: c_ast.TernaryOp) -> c_ast.Node | None:
        left, right = self.arithmetic(e.iftrue), self.arithmetic(e.iffalse)
        if left is not None and right is not None:
            return _scalar(_usual(left, right))
        return None

    def type_FuncCall(self, e: c_ast.FuncCall) -> c_ast.Node | None:
        name = getattr(e.name, "name", None)
        t = self.lookup(name) if name is not None else None
        return t.type if isinstance(t, c_ast.FuncDecl) else None

    def arithmetic(self, e: c_ast.Node) -> str | None:
        """The normalised scalar spelling of an arithmetic expression's type, or None."""
        t = _resolved(self.type_of(e), self.env)
        if not isinstance(t, c_ast.TypeDecl):
            return None
        if isinstance(t.type, c_ast.Enum):
            return "int"
        return self.env.scalar_of(t.type.names) if isinstance(
            t.type, c_ast.IdentifierType) else None


def _promoted(s: str) -> str:
    """C's integer promotions (on the LP64 targets ompcl knows)."""
    return s if s in _RANK or s in ("float", "double") else "int"


def _usual(a: str, b: str) -> str:
    """C's usual arithmetic conversions of two normalised scalar spellings."""
    for f in ("double", "float"):
        if f in (a, b):
            return f
    a, b = _promoted(a), _promoted(b)
    if _RANK[a] != _RANK[b]:  # a long holds every unsigned int
        return a if _RANK[a] > _RANK[b] else b
    return a if a.startswith("unsigned") else b


def _resolved(t: c_ast.Node | None, env) -> c_ast.Node | None:  # noqa: ANN001
    """A type with a typedef name at its top replaced by the typedef's type."""
    for _ in range(16):
        names = getattr(getattr(t, "type", None), "names", None)
        if not isinstance(t, c_ast.TypeDecl) or not names or len(names) != 1 or \
                names[0] not in env.typedefs:
            break
        t = env.typedefs[names[0]]
    return t


def _renamed(t: c_ast.Node, name: str | None) -> c_ast.Node:
    """A copy of type ``t`` declaring ``name`` (through its pointers and dimensions)."""
    t = clone(t)
    sub = t
    while isinstance(sub, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        sub = sub.type
    if isinstance(sub, c_ast.TypeDecl):
        sub.declname = name
    return t


def _unqualified(t: c_ast.Node | None) -> c_ast.Node | None:
    if isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl)) and t.quals:
        t = clone(t)
        t.quals = []
    return t


def _stand_in_leaf(t: c_ast.Node) -> c_ast.TypeDecl | None:
    """The stand-in TypeDecl at the bottom of a declaration's type, or None."""
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t = t.type
    return t if isinstance(t, c_ast.TypeDecl) and isinstance(
        t.type, c_ast.IdentifierType) and t.type.names == [TYPEOF] else None


def _set_type(d: c_ast.Decl, t: c_ast.Node) -> bool:
    """Declare ``d`` with type ``t`` where its stand-in stands (under its own pointers and
    dimensions), the stand-in's qualifiers kept; False when ``t`` is no object type."""
    if not isinstance(t, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
        return False
    leaf = _stand_in_leaf(d.type)
    new = _renamed(t, leaf.declname)
    inner = new
    while isinstance(inner, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        inner = inner.type
    if not isinstance(inner, c_ast.TypeDecl):
        return False
    inner.quals = list(dict.fromkeys(list(inner.quals or []) + list(leaf.quals or [])))
    if d.type is leaf:
        d.type = new
        return True
    parent = d.type
    while parent.type is not leaf:
        parent = parent.type
    parent.type = clone(new)
    return True
