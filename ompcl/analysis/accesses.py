"""Access analysis: a loop body -> ``BodyInfo`` (arrays with subscripts and their index forms,
scalars read and written, locals, calls, inner loops) plus every construct that blocks
offloading, as ``Reason`` s.

Names are resolved with C's block scopes. For index forms the scanner also follows each
scalar's single reaching definition in structured code: a body-local ``int k = i * M + j;`` or
a private ``k = i + n * j;`` assigned at block level stands for its value until it is written
again, the block ends, or a loop or switch around the use may write it. Guards (``if``,
``?:``, ``&&``, ``||``) on the way to an access become ``Constraint`` s of that access.

This module holds the records and the small questions other analyses ask of a statement
(``names_written``, ``arrays_written``, ``atomic_form``); the walk itself is
``analysis.bodyscan`` (``scan_body``) over the state of ``analysis.scanstate``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..ir import Affine, Constraint, Sym, Var
from .ctypes_ import c_text, walk


@dataclass(frozen=True)
class RawAccess:
    """One subscripted use of an array (or pointer) that is not local to the body."""

    name: str
    write: bool
    read: bool
    subscripts: tuple[c_ast.Node, ...]
    loc: SourceLoc
    index: tuple[Affine | None, ...] = ()  # form of each subscript (empty without a scope)
    guards: tuple[Constraint, ...] = ()
    #: an element's address passed to a call (``f(n, &a[i][1])``): (callee, argument
    #: position, the form of every argument (None where it has none))
    call: tuple | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Atomic:
    """An ``omp atomic`` update or write of a shared scalar or array element."""

    stmt: c_ast.Node = field(compare=False, repr=False)
    target: str  # the scalar or array updated
    op: str  # '+', '-', '*', ... for updates; '=' for writes
    loc: SourceLoc | None = None


#: update operators OpenMP's atomic allows, and the compound assignments that spell them
_ATOMIC_OPS = {"+": "+", "-": "-", "*": "*", "/": "/", "&": "&", "|": "|", "^": "^",
               "<<": "<<", ">>": ">>"}


def atomic_form(stmt: c_ast.Node, kind: str) -> tuple[c_ast.Node, str, c_ast.Node | None] | None:
    """(target, operator, value) of an atomic statement of the given kind ('update',
    'write', 'read' (target is the value read)), or None when it has another form."""
    if kind == "update" and isinstance(stmt, c_ast.UnaryOp) and stmt.op in (
            "++", "--", "p++", "p--"):
        return stmt.expr, "+" if "+" in stmt.op else "-", c_ast.Constant("int", "1")
    if not isinstance(stmt, c_ast.Assignment):
        return None
    if kind == "update" and stmt.op[:-1] in _ATOMIC_OPS and stmt.op.endswith("="):
        return stmt.lvalue, stmt.op[:-1], stmt.rvalue
    if kind == "update" and stmt.op == "=" and isinstance(stmt.rvalue, c_ast.BinaryOp):
        e, target = stmt.rvalue, c_text(stmt.lvalue)
        if e.op in _ATOMIC_OPS and c_text(e.left) == target:
            return stmt.lvalue, e.op, e.right
        if e.op in ("+", "*", "&", "|", "^") and c_text(e.right) == target:
            return stmt.lvalue, e.op, e.left
    if kind == "write" and stmt.op == "=":
        return stmt.lvalue, "=", stmt.rvalue
    if kind == "read" and stmt.op == "=":
        return stmt.rvalue, "read", None
    return None


@dataclass(frozen=True)
class InnerLoop:
    """A canonical loop inside the body whose variable is an index symbol."""

    sym: Sym
    lb: Affine | None
    ub: Affine | None
    op: str
    loop: c_ast.For = field(compare=False, repr=False)


@dataclass(frozen=True)
class IndexScope:
    """What names mean at the top of a region's loop body."""

    dims: dict[str, Sym]  # loop variables of the region's nest
    scope: dict[str, Var]  # variables visible where the region starts
    enumerators: frozenset[str] = frozenset()


@dataclass(frozen=True)
class BodyInfo:
    """What a loop body (or a function body) touches."""

    accesses: tuple[RawAccess, ...]
    scalar_reads: frozenset[str]
    scalar_writes: frozenset[str]
    pointer_uses: frozenset[str]  # names used as whole arrays/pointers (call arguments)
    locals: frozenset[str]
    calls: tuple[tuple[str, c_ast.FuncCall], ...]
    inner_loops: tuple[c_ast.For, ...]
    problems: tuple[Reason, ...]
    local_decls: tuple[c_ast.Decl, ...] = field(default=())
    inner: tuple[InnerLoop, ...] = ()
    live_in: frozenset[str] = frozenset()  # outer names read before surely assigned
    assigned: frozenset[str] = frozenset()  # outer names surely assigned by the end
    atomics: tuple[Atomic, ...] = ()
    atomic_only: frozenset[str] = frozenset()  # shared scalars written only atomically


def arrays_written(node: c_ast.Node | None) -> set[str]:
    """Base names of the arrays (or pointers) whose elements ``node`` writes."""
    out: set[str] = set()
    for sub in walk(node) if node is not None else ():
        target = sub.lvalue if isinstance(sub, c_ast.Assignment) else sub.expr if isinstance(
            sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--") else None
        while isinstance(target, c_ast.ArrayRef):
            target = target.name
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


def write_targets(node: c_ast.Node | None):
    """The lvalues ``node`` assigns, increments or takes the address of."""
    if node is None:
        return
    for sub in walk(node):
        if isinstance(sub, c_ast.Assignment):
            yield sub.lvalue
        elif isinstance(sub, c_ast.UnaryOp) and sub.op in ("++", "--", "p++", "p--", "&"):
            yield sub.expr


def passings(name: str, info: "BodyInfo") -> int:
    """The call arguments of a body that mention ``name``."""
    return sum(1 for _, call in info.calls for arg in (call.args.exprs if call.args else [])
               if any(isinstance(n, c_ast.ID) and n.name == name for n in walk(arg)))


def names_written(node: c_ast.Node | None) -> set[str]:
    """Names assigned, incremented or address-taken anywhere in ``node`` (by name)."""
    return {t.name for t in write_targets(node) if isinstance(t, c_ast.ID)}


_LOCAL = "local"
