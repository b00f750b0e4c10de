"""C types and scopes: declarations -> ``CType``/``Var``; the variables visible at a statement."""
from __future__ import annotations

import re
import weakref

from pycparser import c_ast, c_generator

from ..frontend.clone import clone
from ..frontend.textscan import IDENT
from ..frontend.walk import walk
from ..ir import CType, Storage, Var

#: the one C printer of a translation (pycparser's generator; it keeps no state between
#: visits): every module prints C through it
C_PRINTER = c_generator.CGenerator()
_GEN = C_PRINTER

#: normalised C scalar spelling -> (OpenCL type, size in bytes)
SCALARS: dict[str, tuple[str, int]] = {
    "char": ("char", 1), "signed char": ("char", 1), "unsigned char": ("uchar", 1),
    "_Bool": ("uchar", 1),
    "short": ("short", 2), "unsigned short": ("ushort", 2),
    "int": ("int", 4), "unsigned int": ("uint", 4),
    "long": ("long", 8), "unsigned long": ("ulong", 8),
    "float": ("float", 4), "double": ("double", 8),
}
FLOATING = {"float", "double"}


def uncast(e: c_ast.Node) -> c_ast.Node:
    """``e`` without the casts around it."""
    while isinstance(e, c_ast.Cast):
        e = e.expr
    return e


def c_text(node: c_ast.Node) -> str:
    """Print an expression with pycparser's generator."""
    return _GEN.visit(node)


def normalise(names: list[str]) -> str | None:
    """['long', 'unsigned', 'int'] -> 'unsigned long'; None for types without a scalar form."""
    words = [w for w in names if w not in ("signed",)] if names != ["signed", "char"] else names
    if "void" in words or "double" in words and "long" in words:
        return None
    unsigned = "unsigned" in words
    words = [w for w in words if w != "unsigned"]
    if not words or words == ["int"]:
        base = "int"
    elif "char" in words:
        base = "char" if names != ["signed", "char"] else "signed char"
    elif "short" in words:
        base = "short"
    elif "long" in words:
        base = "long"
    elif len(words) == 1 and words[0] in ("float", "double", "_Bool"):
        base = words[0]
    else:
        return None
    if unsigned and base in ("char", "short", "int", "long"):
        return f"unsigned {base}"
    return base


class TypeEnv:
    """File-scope typedefs and enumerators, used to resolve type names and constants.
    ``TypeEnv.of(ast)`` is the one environment of a file (built once, never changed); the
    tree's GNU ``typeof`` declarations get their types then (``typeofs``)."""

    @classmethod
    def of(cls, ast: c_ast.FileAST) -> "TypeEnv":
        env = _ENVS.get(ast)
        if env is None:
            env = _ENVS[ast] = cls(ast)
            from .typeofs import resolve_typeofs  # (it types expressions with the env)
            resolve_typeofs(ast, env)  # GNU typeof declarations, once per tree
        return env

    def __init__(self, ast: c_ast.FileAST):
        self.typedefs: dict[str, c_ast.Node] = {}
        self.enumerators: set[str] = set()
        #: tag -> the definition with members (of a struct or a union: tags share one name
        #: space)
        self.structs: dict[str, c_ast.Struct | c_ast.Union] = {}
        self._checking: set[int] = set()  # structs whose members struct_ok is checking
        for ext in ast.ext:
            if isinstance(ext, c_ast.Typedef):
                self.typedefs[ext.name] = ext.type
            self._collect_enums(ext)
            for sub in walk(ext):
                if isinstance(sub, _RECORDS) and sub.name and sub.decls is not None:
                    self.structs.setdefault(sub.name, sub)

    def _collect_enums(self, node: c_ast.Node) -> None:
        for sub in walk(node):
            if isinstance(sub, c_ast.Enumerator):
                self.enumerators.add(sub.name)

    def ctype(self, tnode: c_ast.Node) -> CType | None:
        """CType of a declaration's type, or None when ompcl cannot place it in a buffer."""
        dims: list[str] = []
        pointer = False
        const = False
        node = tnode
        while True:
            if isinstance(node, c_ast.ArrayDecl):
                dims.append(c_text(node.dim) if node.dim is not None else "")
                node = node.type
            elif isinstance(node, c_ast.PtrDecl):
                if pointer or dims:
                    return None  # pointer to pointer, or array of pointers
                pointer = True
                node = node.type
            elif isinstance(node, c_ast.TypeDecl):
                const = const or "const" in (node.quals or [])
                inner = node.type
                if isinstance(inner, c_ast.Enum):
                    return CType("int", tuple(dims), pointer, const)
                if isinstance(inner, _RECORDS):
                    if not inner.name or not self.struct_ok(inner):
                        return None
                    return CType(f"{record_kind(inner)} {inner.name}", tuple(dims), pointer,
                                 const, True)
                if not isinstance(inner, c_ast.IdentifierType):
                    return None
                if len(inner.names) == 1 and inner.names[0] in self.typedefs:
                    name = inner.names[0]
                    target = self.typedefs[name]
                    if isinstance(target, c_ast.TypeDecl) and isinstance(target.type, _RECORDS):
                        if not self.struct_ok(target.type):
                            return None  # a typedef of a struct: the typedef name spells it
                        return CType(name, tuple(dims), pointer, const, True)
                    sub = self.ctype(target)
                    if sub is None or (pointer and sub.pointer) or (sub.pointer and dims):
                        return None
                    base = name if sub.record and not sub.dims and not sub.pointer else sub.base
                    return CType(base, tuple(dims) + sub.dims, pointer or sub.pointer,
                                 const or sub.const, sub.record)
                base = normalise(inner.names)
                return CType(base, tuple(dims), pointer, const) if base else None
            else:
                return None

    def local_ctype(self, tnode: c_ast.Node) -> CType | None:
        """``ctype``, or for a local of an unnamed struct or union type (``union { double
        d; long l; } u``, arrays of one), whose definition the kernel prints where it is
        declared, a CType with no base."""
        ct = self.ctype(tnode)
        node, dims = tnode, []
        while ct is None and isinstance(node, c_ast.ArrayDecl):
            dims.append(c_text(node.dim) if node.dim is not None else "")
            node = node.type
        if ct is None and isinstance(node, c_ast.TypeDecl) and isinstance(
                node.type, _RECORDS) and not node.type.name and self.struct_ok(node.type):
            return CType("", tuple(dims), False, "const" in (node.quals or []), True)
        return ct

    def struct_ok(self, s: c_ast.Struct | c_ast.Union) -> bool:
        """A struct (or union) whose members the device can hold: scalars, fixed arrays,
        such records (a union's members overlap as they do on the host: same sizes, same
        byte order)."""
        decls = s.decls if s.decls is not None else getattr(self.structs.get(s.name), "decls",
                                                            None)
        if decls is None or id(decls) in self._checking:
            return False  # (a struct that holds a pointer to itself: refused by that pointer)
        self._checking.add(id(decls))
        try:
            for d in decls:
                ct = self.ctype(d.type) if d.bitsize is None else None
                if ct is None or ct.pointer or not all(is_constant_text(x, self)
                                                       for x in ct.dims):
                    return False
            return True
        finally:
            self._checking.discard(id(decls))

    def scalar_of(self, names: list[str]) -> str | None:
        """Resolve an IdentifierType name list (maybe a typedef) to a scalar spelling."""
        if len(names) == 1 and names[0] in self.typedefs:
            ct = self.ctype(self.typedefs[names[0]])
            return ct.base if ct is not None and ct.is_scalar else None
        return normalise(names)


#: the record types: a union is laid out by the same rules on the host and the device
_RECORDS = (c_ast.Struct, c_ast.Union)


def record_kind(node: c_ast.Node) -> str:
    """'union' for a union type node, else 'struct'."""
    return "union" if isinstance(node, c_ast.Union) else "struct"


_ENVS: "weakref.WeakKeyDictionary[c_ast.FileAST, TypeEnv]" = weakref.WeakKeyDictionary()


def renamed_type(t: c_ast.Node, name: str) -> c_ast.Node:
    """A copy of type ``t`` declaring ``name``: its declarator's name changed, through its
    pointers, arrays and function result (not a struct member's, or a parameter's of a
    function pointer)."""
    t = clone(t)
    sub = t
    while isinstance(sub, (c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.FuncDecl)):
        sub = sub.type
    if isinstance(sub, c_ast.TypeDecl):
        sub.declname = name
    return t


def pointer_depth(t: c_ast.Node | None) -> tuple[int, c_ast.Node | None]:
    """How many pointers a type has at its top (``double ***``: 3), and what they point to."""
    depth = 0
    while isinstance(t, c_ast.PtrDecl):
        t, depth = t.type, depth + 1
    return depth, t


def mentions(name: str, node: c_ast.Node | None) -> bool:
    """Whether subtree ``node`` (None: nothing) names identifier ``name``."""
    return node is not None and any(isinstance(n, c_ast.ID) and n.name == name
                                    for n in walk(node))


def subscripts(ref: c_ast.Node) -> tuple[c_ast.Node, list[c_ast.Node]]:
    """The base and the subscripts, outermost first, of a chain ``a[s1][s2]...`` (a node
    that is no subscript: itself and none)."""
    subs = []
    while isinstance(ref, c_ast.ArrayRef):
        subs.append(ref.subscript)
        ref = ref.name
    return ref, subs[::-1]


def _storage_of(decl: c_ast.Decl, file_scope: bool) -> str:
    if file_scope:
        return Storage.GLOBAL
    return Storage.STATIC if "static" in (decl.storage or []) else Storage.LOCAL


def _var(decl: c_ast.Decl, env: TypeEnv, storage: str) -> Var | None:
    if not decl.name or isinstance(decl.type, c_ast.FuncDecl) or "typedef" in (decl.storage or []):
        return None
    ct = env.ctype(decl.type)
    if ct is not None and storage == Storage.PARAM and ct.dims and not ct.pointer:
        ct = CType(ct.base, ct.dims[1:], True, ct.const)  # array parameters are pointers
    return Var(decl.name, ct if ct is not None else CType("?"), storage, decl)


def visible_vars(ast: c_ast.FileAST, func: c_ast.FuncDef | None,
                 path: tuple[c_ast.Node, ...], stmt: c_ast.Node, env: TypeEnv) -> dict[str, Var]:
    """Variables visible just before ``stmt``: file scope, parameters, enclosing blocks."""
    scope: dict[str, Var] = {}
    for ext in ast.ext:
        if ext is func:
            break
        if isinstance(ext, c_ast.Decl) and (v := _var(ext, env, "global")):
            scope[v.name] = v
    if func is None:
        return scope
    params = func.decl.type.args.params if func.decl.type.args else []
    for p in params:
        if isinstance(p, c_ast.Decl) and (v := _var(p, env, Storage.PARAM)):
            scope[v.name] = v
    chain = list(path) + [stmt]
    for k, node in enumerate(chain[:-1]):
        nxt = chain[k + 1]
        if isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                if item is nxt:
                    break
                scope.update((v.name, v) for v in _block_vars(item, env))
        elif isinstance(node, c_ast.For) and isinstance(node.init, c_ast.DeclList):
            scope.update((v.name, v) for v in _block_vars(node.init, env))
    return scope


def _block_vars(item: c_ast.Node, env: TypeEnv):
    """Variables a block item (declaration or declaration list) declares."""
    decls = [item] if isinstance(item, c_ast.Decl) else getattr(item, "decls", None) or []
    for d in decls:
        if isinstance(d, c_ast.Decl) and (v := _var(d, env, _storage_of(d, False))):
            yield v


def free_names(node: c_ast.Node) -> set[str]:
    """Identifiers a statement uses that it does not declare itself (C block scopes)."""
    out: set[str] = set()
    _free(node, [set()], out)
    return out


def _free(node: c_ast.Node | None, scopes: list[set[str]], out: set[str]) -> None:
    if node is None:
        return
    if isinstance(node, c_ast.ID):
        if not any(node.name in s for s in scopes):
            out.add(node.name)
        return
    if isinstance(node, (c_ast.Compound, c_ast.For)):
        scopes.append(set())
        for _, child in node.children():
            _free(child, scopes, out)
        scopes.pop()
        return
    if isinstance(node, c_ast.Decl):
        for _, child in node.children():  # dimensions and initialiser see the outer names
            _free(child, scopes, out)
        if node.name:
            scopes[-1].add(node.name)
        return
    if isinstance(node, c_ast.StructRef):
        _free(node.name, scopes, out)  # the field is not a variable
        return
    for _, child in node.children():
        _free(child, scopes, out)


_CONSTANT_WORDS = {"sizeof", "char", "short", "int", "long", "unsigned", "signed", "float",
                   "double", "_Bool"}


def is_constant_text(text: str, env: TypeEnv) -> bool:
    """True when a dimension's C text is a constant expression (literals, enumerators,
    sizeof, casts to arithmetic types)."""
    return bool(text) and not any(t not in env.enumerators and t not in _CONSTANT_WORDS
                                  for t in IDENT.findall(re.sub(r"\d\w*", "", text)))
