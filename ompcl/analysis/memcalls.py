"""Library calls device code runs as plain C: ``memset``, ``memcpy`` and ``memmove`` statements
-> loops over the elements they touch, and glibc's ``assert`` expansion -> a check that reports a
failure to the runtime (``ompcl_assert``, made a site of the kernel by ``transform.boundscheck``).

Consumes a region's loop (with the variables visible at it) or a function definition; produces a
copy with those statements replaced, or the node itself where there is none. Only the trees of
device code are rewritten (the region's loop, the functions kernels call): the host keeps the
user's text, and the analyses of device code (accesses, dependence, extents, residency) see the
element accesses the calls make. A call is lowered where its byte count is a whole number of
the destination's elements (``n * sizeof(T)``, ``sizeof a``, ``sizeof(T[k])``, a constant), its
arguments have no side effects, memset's value is 0 (any value for char elements) and a
memmove's overlap is known; other calls stay calls (``builtins.host_only_reason`` says why).
"""
from __future__ import annotations

import codecs
import weakref
from dataclasses import dataclass

from pycparser import c_ast

from ..frontend.clone import clone, clone_with
from ..frontend.library import ExternalFunction
from ..ir import CType, Var
from .builtins import ASSERT  # ompcl_assert("expr", "file:line: func")
from .ctypes_ import SCALARS, TypeEnv, c_text, uncast, visible_vars, walk
from .loops import const_int

MEM_CALLS = {"memset", "memcpy", "memmove", "__builtin_memset", "__builtin_memcpy",
             "__builtin_memmove"}
_CHARS = {"char", "signed char", "unsigned char"}
_VAR = "ompcl_mz"  # the element loops' counter (generated names start with ompcl_)


@dataclass(frozen=True)
class _Ref:
    """An argument pointing at an element: ``at(k)`` is the element ``k`` past it; ``array``
    the named object it points into, ``offset`` where (a subscript tree, None for 0),
    ``room`` the elements left in the row when it is a row of a multi-dimensional array."""

    base: c_ast.Node
    subs: tuple
    elem: CType
    array: str
    room: c_ast.Node | None
    pointer: bool

    def at(self, k: c_ast.Node) -> c_ast.Node:
        subs = list(self.subs)
        subs[-1] = k if subs[-1] is None else c_ast.BinaryOp("+", clone(subs[-1]), k)
        out = clone(self.base)
        for s in subs:
            out = c_ast.ArrayRef(out, clone(s))
        return out

    @property
    def offset(self) -> c_ast.Node | None:
        return self.subs[-1]


def _shape(t: c_ast.Node, env: TypeEnv, depth: int = 0) -> tuple[list, CType] | None:
    """The dimensions (dimension trees; None for a pointer's) and the element type of a
    declared type, or None where it is no array of scalars or plain structs."""
    dims: list = []
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        if isinstance(t, c_ast.PtrDecl) and dims:
            return None  # an array of pointers
        dims.append(t.dim if isinstance(t, c_ast.ArrayDecl) else None)
        t = t.type
    if not isinstance(t, c_ast.TypeDecl):
        return None
    inner = t.type
    if isinstance(inner, c_ast.IdentifierType) and len(inner.names) == 1 and \
            inner.names[0] in env.typedefs and depth < 8:
        target = env.typedefs[inner.names[0]]
        if isinstance(target, (c_ast.ArrayDecl, c_ast.PtrDecl)):
            sub = _shape(target, env, depth + 1)
            if sub is None or (dims and None in sub[0]):
                return None
            return dims + sub[0], sub[1]
    ct = env.ctype(t)
    if ct is None or not ct.is_scalar:
        return None
    return dims, ct


def _size(ct: CType) -> int | None:
    return None if ct.record else SCALARS.get(ct.base, (None, None))[1]


def _same(a: CType, b: CType) -> bool:
    """Elements of one size and kind (``int`` for ``unsigned``: memcpy copies bytes)."""
    if a.record or b.record:
        return a.base == b.base and a.record == b.record
    return _size(a) == _size(b) and (a.base in ("float", "double")) == (
        b.base in ("float", "double"))


class _Lowering:
    def __init__(self, env: TypeEnv, func: str | None):
        self.env, self.func = env, func

    # -- types of the names at a statement ---------------------------------------------------

    def object(self, e: c_ast.Node, scope: dict) -> tuple[c_ast.Node, list, list, CType] | None:
        """``a`` or ``a[i]...``: (the named array, its subscripts, the dimensions left, the
        element type)."""
        subs = []
        while isinstance(e, c_ast.ArrayRef):
            subs.append(e.subscript)
            e = e.name
        if not isinstance(e, c_ast.ID) or e.name not in scope:
            return None
        shape = scope[e.name]
        if shape is None or len(subs) > len(shape[0]):
            return None
        return e, subs[::-1], shape[0][len(subs):], shape[1]

    def ref(self, e: c_ast.Node, scope: dict) -> _Ref | None:
        """The element an argument points at: ``a``, a row ``a[i]``, ``&a[i]``, ``a + k``."""
        while isinstance(e, c_ast.Cast) and isinstance(e.to_type.type, c_ast.PtrDecl) and \
                c_text(e.to_type.type.type) in ("void", "const void"):
            e = e.expr
        extra = None
        if isinstance(e, c_ast.BinaryOp) and e.op == "+":
            e, extra = (e.left, e.right) if self.object(e.left, scope) else (e.right, e.left)
        if isinstance(e, c_ast.UnaryOp) and e.op == "&" and extra is None:
            found = self.object(e.expr, scope)
            if found is None or found[2] or not found[1]:
                return None
            base, subs, _, elem = found
            rest = scope[base.name][0]
        else:
            found = self.object(e, scope)
            if found is None or len(found[2]) != 1:
                return None
            base, subs, _, elem = found
            subs = subs + [extra]
            rest = scope[base.name][0]
        room = None
        if len(rest) > 1:  # a row of a multi-dimensional array: the copy must stay in it
            room = rest[-1]
            if room is None:
                return None
        return _Ref(base, tuple(subs), elem, base.name, room, rest[0] is None)

    # -- byte counts -------------------------------------------------------------------------

    def count(self, n: c_ast.Node, elem: CType, scope: dict) -> c_ast.Node | None:
        """The number of ``elem`` elements ``n`` bytes are, as a tree; None where unknown."""
        n = uncast(n)
        if isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            return self.sizeof(n.expr, elem, scope)
        if isinstance(n, c_ast.BinaryOp) and n.op == "*":
            for a, b in ((n.left, n.right), (n.right, n.left)):
                if _has_sizeof(a) and not _has_sizeof(b):
                    k = self.count(a, elem, scope)
                    return None if k is None else _times(clone(b), k)
            return None
        value, size = const_int(n), _size(elem)
        if value is None or size is None or value % size:
            return None
        return c_ast.Constant("int", str(value // size))

    def sizeof(self, x: c_ast.Node, elem: CType, scope: dict) -> c_ast.Node | None:
        if isinstance(x, c_ast.Typename):
            shape = _shape(x.type, self.env)
            dims, ct = shape if shape is not None else (None, None)
        else:
            if isinstance(x, c_ast.UnaryOp) and x.op == "*":  # sizeof *p: p[0]
                x = c_ast.ArrayRef(x.expr, c_ast.Constant("int", "0"))
            found = self.object(x, scope)
            dims, ct = (found[2], found[3]) if found is not None else (None, None)
        if dims is None or None in dims or not _same(ct, elem):
            return None
        out: c_ast.Node = c_ast.Constant("int", "1")
        for d in dims:
            out = _times(clone(d), out)
        return out

    # -- the statements ----------------------------------------------------------------------

    def mem(self, call: c_ast.FuncCall, scope: dict) -> c_ast.Node | None:
        """An element loop for a memset/memcpy/memmove statement, or None."""
        name = call.name.name.replace("__builtin_", "")
        args = call.args.exprs if call.args else []
        if len(args) != 3 or _side_effects(call.args):
            return None
        dst = self.ref(args[0], scope)
        if dst is None:
            return self.whole(name, args, scope)
        n = self.count(args[2], dst.elem, scope)
        if n is None or not _fits(dst, n):
            return None
        z = c_ast.ID(_VAR)
        if name == "memset":
            value = args[1]
            if const_int(value) != 0 and not (dst.elem.base in _CHARS and not dst.elem.record):
                return None
            if dst.elem.record:
                return None
            return _loop(n, c_ast.Assignment("=", dst.at(z), clone(value)))
        src = self.ref(args[1], scope)
        if src is None or not _same(src.elem, dst.elem) or src.elem.base != dst.elem.base \
                or not _fits(src, n):
            return None
        if name == "memmove" and (src.array == dst.array or src.pointer or dst.pointer):
            step = _distance(dst, src)
            if step is None:
                return None
            if step > 0:  # the destination after the source: the last element first
                z = c_ast.BinaryOp("-", c_ast.BinaryOp("-", clone(n), c_ast.Constant(
                    "int", "1")), z)
        return _loop(n, c_ast.Assignment("=", dst.at(z), src.at(clone(z))))

    def whole(self, name: str, args: list, scope: dict) -> c_ast.Node | None:
        """Nested element loops for a memset (value 0) or memcpy of a whole array of constant
        dimensions (``memset(m, 0, sizeof m)`` of ``double m[4][4]``; memcpy between two
        such arrays of one shape and element type), or None."""
        found = [self.object(uncast(a), scope) for a in (args[:1] if name == "memset"
                                                          else args[:2])]
        if name == "memmove" or None in found or any(f[1] or len(f[2]) < 2 for f in found):
            return None
        dims = [const_int(d) if d is not None else None for d in found[0][2]]
        total, elem = 1, found[0][3]
        for d in dims:
            total = total * d if d is not None and total is not None else None
        n = self.count(args[2], elem, scope)
        if total is None or n is None or const_int(n) != total or elem.record or any(
                f[3] != elem or [const_int(d) if d is not None else None for d in f[2]]
                != dims for f in found) or name == "memset" and const_int(args[1]) != 0:
            return None
        zs = [c_ast.ID(f"{_VAR}{k}") for k in range(len(dims))]

        def at(base: c_ast.Node) -> c_ast.Node:
            out = clone(base)
            for z in zs:
                out = c_ast.ArrayRef(out, clone(z))
            return out
        value = c_ast.Constant("int", "0") if name == "memset" else at(found[1][0])
        stmt: c_ast.Node = c_ast.Assignment("=", at(found[0][0]), value)
        for k in reversed(range(len(dims))):
            stmt = _loop(c_ast.Constant("int", str(dims[k])), stmt, f"{_VAR}{k}")
        return stmt

    def assertion(self, s: c_ast.Node) -> c_ast.Node | None:
        """``(e) ? (void)0 : __assert_fail("e", file, line, __func__)`` (or ``if (e); else
        ...``) -> ``if (!(e)) ompcl_assert("e", "file:line: func")``."""
        if self.func is None:
            return None
        if isinstance(s, c_ast.TernaryOp):
            cond, ok, fail = s.cond, s.iftrue, s.iffalse
        elif isinstance(s, c_ast.If):
            cond, ok, fail = s.cond, s.iftrue, s.iffalse
            ok = None if isinstance(ok, c_ast.EmptyStatement) else ok
        else:
            return None
        fail = uncast(fail)
        if not (isinstance(fail, c_ast.FuncCall) and isinstance(fail.name, c_ast.ID)
                and fail.name.name == "__assert_fail" and fail.args
                and len(fail.args.exprs) == 4) or not (ok is None or _void_zero(ok)):
            return None
        text, file, line, _ = fail.args.exprs
        if not all(isinstance(x, c_ast.Constant) for x in (text, file, line)):
            return None
        where = f"{literal_text(file.value)}:{line.value}: {self.func}"
        report = c_ast.FuncCall(c_ast.ID(ASSERT), c_ast.ExprList(
            [clone(text), c_ast.Constant("string", _quoted(where))]))
        return c_ast.If(c_ast.UnaryOp("!", clone(cond)), report, None, s.coord)


def _has_sizeof(n: c_ast.Node) -> bool:
    return any(isinstance(x, c_ast.UnaryOp) and x.op == "sizeof" for x in walk(n))


def _times(a: c_ast.Node, b: c_ast.Node) -> c_ast.Node:
    if const_int(b) == 1:
        return a
    return c_ast.BinaryOp("*", a, b)


def _side_effects(n: c_ast.Node) -> bool:
    return any(isinstance(x, (c_ast.Assignment, c_ast.FuncCall)) or isinstance(
        x, c_ast.UnaryOp) and x.op in ("++", "--", "p++", "p--") for x in walk(n))


def _fits(r: _Ref, n: c_ast.Node) -> bool:
    """A copy in a row of a multi-dimensional array stays in the row: its offset and count
    are constants within the row's length, or the count is the row's length itself."""
    if r.room is None:
        return True
    if c_text(n) == c_text(r.room) and r.offset is None:
        return True
    k, room = const_int(n), const_int(r.room)
    off = 0 if r.offset is None else const_int(r.offset)
    return None not in (k, room, off) and off >= 0 and off + k <= room


def _split(e: c_ast.Node | None) -> tuple[str, int]:
    """``e`` as (the text of its part that is no constant, the constant added)."""
    if e is None:
        return "", 0
    if const_int(e) is not None:
        return "", const_int(e)
    if isinstance(e, c_ast.BinaryOp) and e.op in "+-" and const_int(e.right) is not None:
        rest, c = _split(e.left)
        return rest, c + (const_int(e.right) if e.op == "+" else -const_int(e.right))
    return c_text(e), 0


def _distance(dst: _Ref, src: _Ref) -> int | None:
    """How many elements the destination lies after the source in the same row (negative:
    before), or None where that is unknown (other rows may be the same memory)."""
    if dst.array != src.array or len(dst.subs) != len(src.subs) or any(
            c_text(a) != c_text(b) for a, b in zip(dst.subs[:-1], src.subs[:-1])):
        return None
    (a, x), (b, y) = _split(dst.offset), _split(src.offset)
    return x - y if a == b else None


def _void_zero(n: c_ast.Node) -> bool:
    return isinstance(n, c_ast.Cast) and c_text(n.to_type) == "void" and const_int(n.expr) == 0


def literal_text(value: str) -> str:
    """The characters of a C string literal (adjacent ones joined by the parser)."""
    body = value[1:-1] if value.startswith('"') else value
    try:
        return codecs.decode(body.encode("latin-1", "backslashreplace"), "unicode_escape")
    except (UnicodeDecodeError, ValueError):
        return body


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _loop(n: c_ast.Node, body: c_ast.Node, var: str = _VAR) -> c_ast.For:
    """``for (long ompcl_mz = 0; ompcl_mz < n; ompcl_mz++) body``."""
    decl = c_ast.Decl(var, [], [], [], [], c_ast.TypeDecl(
        var, [], None, c_ast.IdentifierType(["long"])), c_ast.Constant("int", "0"), None)
    return c_ast.For(c_ast.DeclList([decl]), c_ast.BinaryOp("<", c_ast.ID(var), n),
                     c_ast.UnaryOp("p++", c_ast.ID(var)), body)



# -- finding the statements ------------------------------------------------------------------

_BODIES = {c_ast.If: ("iftrue", "iffalse"), c_ast.For: ("stmt",), c_ast.While: ("stmt",),
           c_ast.DoWhile: ("stmt",), c_ast.Label: ("stmt",)}


def _declare(scope: dict, d: c_ast.Node, env: TypeEnv) -> None:
    for x in ([d] if isinstance(d, c_ast.Decl) else getattr(d, "decls", None) or []):
        if isinstance(x, c_ast.Decl) and x.name and not isinstance(x.type, c_ast.FuncDecl):
            scope[x.name] = _shape(x.type, env)


def _statement(s: c_ast.Node, scope: dict, low: _Lowering, out: dict) -> None:
    """Record in ``out`` (by id) the replacement of ``s`` and of the statements in it."""
    if isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) and \
            s.name.name in MEM_CALLS:
        new = low.mem(s, scope)
        if new is not None:
            out[id(s)] = new
        return
    new = low.assertion(s)
    if new is not None:
        out[id(s)] = new
        return
    if isinstance(s, c_ast.Compound):
        inner = dict(scope)
        for item in s.block_items or []:
            _declare(inner, item, low.env)
            _statement(item, inner, low, out)
        return
    if isinstance(s, (c_ast.Case, c_ast.Default)):
        for item in s.stmts or []:
            _declare(scope, item, low.env)
            _statement(item, scope, low, out)
        return
    if isinstance(s, c_ast.Switch):
        return _statement(s.stmt, scope, low, out)
    inner = scope
    if isinstance(s, c_ast.For) and s.init is not None:
        inner = dict(scope)
        _declare(inner, s.init, low.env)
    for f in _BODIES.get(type(s), ()):
        body = getattr(s, f)
        if body is not None:
            _statement(body, inner, low, out)


def _rewritten(node: c_ast.Node, scope: dict, env: TypeEnv, func: str | None) -> c_ast.Node:
    out: dict[int, c_ast.Node] = {}
    if not any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and (
            n.name.name in MEM_CALLS or n.name.name == "__assert_fail") for n in walk(node)):
        return node
    _statement(node, scope, _Lowering(env, func), out)
    return clone_with(node, lambda n: out.get(id(n))) if out else node


def lowered(loop: c_ast.Node, scope: dict[str, Var], env: TypeEnv,
            func: c_ast.FuncDef | None) -> c_ast.Node:
    """A region's loop (``scope``: the variables visible at it; ``func``: the function it is
    in, named by its asserts) with its calls lowered; the loop itself where none is."""
    shapes = {n: _shape(v.decl.type, env) if v.decl is not None else None
              for n, v in scope.items()}
    return _rewritten(loop, shapes, env, func.decl.name if func is not None else None)


#: function definition -> its lowered copy (the same object for every analysis and printer)
_LOWERED: "weakref.WeakKeyDictionary[c_ast.FuncDef, c_ast.FuncDef]" = \
    weakref.WeakKeyDictionary()


def lowered_function(fdef: c_ast.FuncDef, ast: c_ast.FileAST, env: TypeEnv) -> c_ast.FuncDef:
    """A function kernels may call (of the file ``ast``) with its memset/memcpy/memmove
    statements lowered (asserts stay: a device function cannot report one); a function
    holding directives is left as it is (it is no device function)."""
    done = _LOWERED.get(fdef)
    if done is not None:
        return done
    new = fdef
    if not any(isinstance(n, c_ast.Pragma) for n in walk(fdef.body)):
        scope = visible_vars(ast, fdef, (), fdef.body, env)
        body = _rewritten(fdef.body, {n: _shape(v.decl.type, env) if v.decl is not None
                                      else None for n, v in scope.items()}, env, None)
        if body is not fdef.body:
            new = c_ast.FuncDef(fdef.decl, fdef.param_decls, body, fdef.coord)
    _LOWERED[fdef] = new
    return new


class LoweredLibrary:
    """A source library (``frontend.library``) whose functions come lowered."""

    def __init__(self, base):
        self.base = base

    def find(self, name: str) -> ExternalFunction | None:
        found = self.base.find(name) if self.base is not None else None
        if found is None:
            return None
        fdef = lowered_function(found.fdef, found.ast, TypeEnv.of(found.ast))
        return found if fdef is found.fdef else ExternalFunction(found.name, fdef, found.ast,
                                                                 found.path)

    def __getattr__(self, attr):
        return getattr(self.base, attr)


def lowered_functions(ast: c_ast.FileAST, env: TypeEnv, library
                      ) -> tuple[dict[str, c_ast.FuncDef], "LoweredLibrary | None"]:
    """This file's functions by name and the program's other sources, lowered."""
    funcs = {e.decl.name: lowered_function(e, ast, env) for e in ast.ext
             if isinstance(e, c_ast.FuncDef)}
    return funcs, (LoweredLibrary(library) if library is not None else None)
