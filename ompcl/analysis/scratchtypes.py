"""Names, types and memory accesses as the run-time scratch check's slice sees them (part of
``analysis.scratchcheck``).

Consumes what the check is given (``Given``: scratch arrays, types in scope, names the loop
writes) and the function being sliced (``Fn``); produces the kind and type of each name and
expression, and whether an access reads memory or may touch a scratch array. The records here
are what every function of ``scratchslice`` works over: a ``Slice`` of the three.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from ..ir import CType, Var
from .ctypes_ import TypeEnv


class NoCheck(Exception):
    """The loop's scratch arrays cannot be checked at run time (the message says why)."""


@dataclass(frozen=True)
class Ty:
    levels: int  # subscripts or dereferences still possible (0: a value)
    base: str
    record: bool = False


def ty_of(ct: CType | None) -> Ty | None:
    if ct is None or ct.base == "?":
        return None
    return Ty(len(ct.dims) + int(ct.pointer), ct.base, ct.record)


ACCESS = (c_ast.ArrayRef, c_ast.StructRef)
SIDE = ("++", "--", "p++", "p--")


def is_deref(e: c_ast.Node) -> bool:
    return isinstance(e, c_ast.UnaryOp) and e.op == "*"


def call_macro(name: str, *args: c_ast.Node) -> c_ast.FuncCall:
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList(list(args)))


@dataclass(frozen=True)
class Given:
    """What the check of one loop is given: its scratch arrays, the file's types and globals,
    the names in scope at the loop, the names the loop may write, how to find a called
    function's definition, and a tag that makes sliced functions' names unique."""

    scratch: set[str]
    env: TypeEnv
    globals: dict[str, Var]
    scope: dict[str, Var]
    written: set[str]
    lookup: Callable
    tag: str


@dataclass(frozen=True)
class Found:
    """What slicing collects as it goes (its containers grow): the sliced functions (by name
    and taint pattern, and their definitions), the functions being sliced (recursion), the
    enclosing function's variables read (inputs), the globals read, and the enclosing
    function's pointers accessed."""

    clones: dict[tuple, tuple[str, bool, tuple[int, ...]]] = field(default_factory=dict)
    defs: list[c_ast.FuncDef] = field(default_factory=list)
    active: set[str] = field(default_factory=set)
    inputs: set[str] = field(default_factory=set)
    globals_read: set[str] = field(default_factory=set)
    region_roots: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Fn:
    """One function being sliced: its local names with their types, which are tainted, whether
    it is the loop itself (``region``), its local arrays, and whether its slice returns its
    value."""

    types: dict[str, Ty | None]
    tainted: set[str]
    region: bool
    arrays: set[str]
    returns_value: bool = False


@dataclass(frozen=True)
class Slice:
    """The state of slicing one function: the check's ``Given``, the function, the ``Found``."""

    given: Given
    fn: Fn | None
    found: Found


# -- names and types -------------------------------------------------------------------

def kind(sl: Slice, name: str) -> str:
    fn = sl.fn
    if name in fn.types:
        return "local"
    if name in sl.given.env.enumerators:
        return "const"
    if fn.region and name in sl.given.scope and sl.given.scope[name].storage in (
            "local", "param", "static") and name not in sl.given.globals:
        return "input"  # the enclosing function's (a static one too): keyed by value
    if name in sl.given.globals or (name in sl.given.scope and sl.given.scope[name].storage in (
            "global", "static")):
        return "global"
    raise NoCheck(f"'{name}' is not a variable the check can follow")


def var_ty(sl: Slice, name: str) -> Ty | None:
    k = kind(sl, name)
    if k == "local":
        return sl.fn.types[name]
    if k == "const":
        return Ty(0, "int")
    v = sl.given.scope.get(name) if k == "input" else (sl.given.globals.get(name) or
                                                     sl.given.scope.get(name))
    return ty_of(v.ctype) if v is not None else None


def is_array_name(sl: Slice, name: str) -> bool:
    """``name`` is an array object (its name is an address, not a variable read)."""
    k = kind(sl, name)
    if k in ("const", "local"):
        return k == "local" and name in sl.fn.arrays
    var = sl.given.scope.get(name) if k == "input" else (sl.given.globals.get(name) or
                                                     sl.given.scope.get(name))
    return var is not None and bool(var.ctype.dims) and not var.ctype.pointer


def field_ty(sl: Slice, rec: str, fname: str) -> Ty | None:
    struct = None
    if rec.startswith("struct "):
        struct = sl.given.env.structs.get(rec[7:])
    elif rec in sl.given.env.typedefs:
        t = sl.given.env.typedefs[rec]
        struct = getattr(t, "type", None)
        if isinstance(struct, c_ast.Struct) and struct.decls is None:
            struct = sl.given.env.structs.get(struct.name)
    for d in getattr(struct, "decls", None) or []:
        if d.name == fname:
            return ty_of(sl.given.env.ctype(d.type))
    return None


def ty(sl: Slice, e: c_ast.Node) -> Ty:
    """The type of ``e`` as far as the slice needs it."""
    if isinstance(e, c_ast.ID):
        t = var_ty(sl, e.name)
    elif isinstance(e, c_ast.ArrayRef) or is_deref(e):
        inner = ty(sl, e.name if isinstance(e, c_ast.ArrayRef) else e.expr)
        t = Ty(inner.levels - 1, inner.base, inner.record) if inner.levels > 0 else None
    elif isinstance(e, c_ast.StructRef):
        inner = ty(sl, e.name)
        ok = inner.levels == (1 if e.type == "->" else 0)
        t = field_ty(sl, inner.base, e.field.name) if ok else None
    elif isinstance(e, c_ast.UnaryOp) and e.op == "&":
        inner = ty(sl, e.expr)
        t = Ty(inner.levels + 1, inner.base, inner.record)
    elif isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        a, b = ty(sl, e.left), ty(sl, e.right)
        t = a if a.levels else b if b.levels and e.op == "+" else Ty(0, "long")
        if a.levels and b.levels:
            t = Ty(0, "long")  # a pointer difference
    elif isinstance(e, c_ast.Cast):
        t = ty_of(sl.given.env.ctype(e.to_type.type))
    elif isinstance(e, c_ast.TernaryOp):
        t = ty(sl, e.iftrue)
    else:
        t = Ty(0, "long")  # arithmetic, comparisons, constants, calls (scalars)
    if t is None:
        raise NoCheck("an expression of a type the check cannot follow")
    return t


# -- memory accesses ---------------------------------------------------------------------

def root(sl: Slice, e: c_ast.Node) -> c_ast.Node:
    """The object an access chain starts from (an ID, or what a pointer comes from)."""
    while True:
        if isinstance(e, c_ast.ArrayRef):
            e = e.name
        elif isinstance(e, c_ast.StructRef):
            if e.type == "->":
                return e  # the pointer read from a field
            e = e.name
        elif is_deref(e) or isinstance(e, c_ast.Cast):
            e = e.expr
        elif isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
            e = e.left if ty(sl, e.left).levels else e.right
        else:
            return e


def is_read(sl: Slice, e: c_ast.Node) -> bool:
    """``e`` in a value context reads memory: an element, a field, or a variable that is
    not an array (a pointer or scalar)."""
    if isinstance(e, c_ast.ID):
        return kind(sl, e.name) != "const" and not is_array_name(sl, e.name)
    if isinstance(e, ACCESS) or is_deref(e):
        t = ty(sl, e)
        return t.levels == 0 or _is_pointer_slot(sl, e)
    return False


def _is_pointer_slot(sl: Slice, e: c_ast.Node) -> bool:
    # a field holding a pointer is a read; rows of arrays are addresses
    return isinstance(e, c_ast.StructRef) and ty(sl, e).levels > 0


def may_be_scratch(sl: Slice, e: c_ast.Node) -> bool:
    r = root(sl, e)
    if isinstance(r, c_ast.ID):
        if r.name in sl.given.scratch:
            return True
        if sl.fn.region and kind(sl, r.name) == "input":
            sl.found.region_roots.add(r.name)  # one of the loop's arrays: apart from scratch
            return False
        return not is_array_name(sl, r.name)  # through a pointer: checked at run time
    return True
