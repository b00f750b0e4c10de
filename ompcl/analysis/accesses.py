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

from dataclasses import dataclass, field, replace

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
    """An atomic update, capture or write of a shared scalar or array element (``omp atomic``
    or a GNU builtin)."""

    stmt: c_ast.Node = field(compare=False, repr=False)
    target: str  # the scalar or array updated
    op: str  # '+', '-', '*', ... for updates; '=' for writes
    loc: SourceLoc | None = None
    order: str | None = None  # the memory order asked for, stronger than relaxed


@dataclass(frozen=True)
class AtomicOp:
    """One atomic read-modify-write: ``target op= value``, its value kept in ``var`` (None:
    unused), the value before the update or (``new``) after it; ``order``: a memory order
    stronger than relaxed, else None."""

    var: c_ast.Node | None
    target: c_ast.Node
    op: str
    value: c_ast.Node
    new: bool = False
    order: str | None = None


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


#: GNU's atomic builtins the device runs: name -> (operator, value after the update, arguments)
GNU_ATOMICS = {}
for _w, _op in (("add", "+"), ("sub", "-"), ("and", "&"), ("or", "|"), ("xor", "^")):
    GNU_ATOMICS.update({f"__sync_fetch_and_{_w}": (_op, False, 2),
                        f"__sync_{_w}_and_fetch": (_op, True, 2),
                        f"__atomic_fetch_{_w}": (_op, False, 3),
                        f"__atomic_{_w}_fetch": (_op, True, 3)})
#: ``__ATOMIC_*`` memory orders (as ``gcc -E`` leaves them: their values) -> OpenMP's names
#: of those stronger than relaxed (None: relaxed)
_ORDERS = {"0": None, "__ATOMIC_RELAXED": None, "1": "acquire", "__ATOMIC_CONSUME": "acquire",
           "2": "acquire", "__ATOMIC_ACQUIRE": "acquire", "3": "release",
           "__ATOMIC_RELEASE": "release", "4": "acq_rel", "__ATOMIC_ACQ_REL": "acq_rel"}


def is_gnu_atomic(name: str) -> bool:
    """Whether ``name`` is one of GNU's atomic builtins (``__sync_*``, ``__atomic_*``)."""
    return name.startswith(("__sync_", "__atomic_"))


def gnu_atomic(call: c_ast.Node) -> AtomicOp | str | None:
    """The update of a call of a GNU atomic builtin the device runs (``var`` None), or why
    the call is not one (a string); None when ``call`` is no GNU atomic builtin."""
    if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID)
            and is_gnu_atomic(call.name.name)):
        return None
    name, args = call.name.name, call.args.exprs if call.args else []
    if name not in GNU_ATOMICS or len(args) != GNU_ATOMICS[name][2]:
        return f"calls '{name}', which ompcl's device atomics do not give"
    op, new, _ = GNU_ATOMICS[name]
    target = _pointee(args[0])
    if target is None:
        return f"calls '{name}' on '{c_text(args[0])}', which is not the address of an array " \
               "element or a variable"
    order = "seq_cst" if name.startswith("__sync_") else \
        _ORDERS.get(c_text(args[2]).strip("()"), "seq_cst")
    return AtomicOp(None, target, op, args[1], new, order)


def _pointee(p: c_ast.Node) -> c_ast.Node | None:
    """The lvalue ``p`` points to: ``&x``, ``&a[i]``, ``a`` (``a[0]``), ``a + i`` (``a[i]``)."""
    if isinstance(p, c_ast.UnaryOp) and p.op == "&":
        base = p.expr
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        return p.expr if isinstance(base, c_ast.ID) else None
    if isinstance(p, c_ast.ID):
        return c_ast.ArrayRef(p, c_ast.Constant("int", "0"), p.coord)
    if isinstance(p, c_ast.BinaryOp) and p.op == "+" and isinstance(p.left, c_ast.ID):
        return c_ast.ArrayRef(p.left, p.right, p.coord)
    return None


def statement_atomic(stmt: c_ast.Node) -> AtomicOp | str | None:
    """A GNU atomic builtin as a statement: its result unused (``f(&x, v);``,
    ``(void)f(&x, v);``) or assigned (``v = f(&x, e);``); else as ``gnu_atomic``."""
    if isinstance(stmt, c_ast.Cast) and c_text(stmt.to_type) == "void":
        stmt = stmt.expr
    if isinstance(stmt, c_ast.Assignment) and stmt.op == "=":
        op = gnu_atomic(stmt.rvalue)
        if not isinstance(op, AtomicOp):
            return op
        if _base_name(stmt.lvalue) == _base_name(op.target):
            return f"assigns '{stmt.rvalue.name.name}' of '{c_text(op.target)}' to itself"
        return replace(op, var=stmt.lvalue)
    return gnu_atomic(stmt)


def capture_form(stmt: c_ast.Node) -> AtomicOp | None:
    """The update of an ``omp atomic capture`` statement: ``v = x++``, ``v = --x``,
    ``v = x op= e``, ``{v = x; x op= e;}``, ``{x op= e; v = x;}`` (``x = e`` too); None for
    another form, or where ``e`` mentions ``v`` or ``x``."""
    found = None
    if isinstance(stmt, c_ast.Assignment) and stmt.op == "=":
        v, e = stmt.lvalue, stmt.rvalue
        if isinstance(e, c_ast.UnaryOp) and e.op in ("++", "--", "p++", "p--"):
            found = AtomicOp(v, e.expr, "+" if "+" in e.op else "-", c_ast.Constant("int", "1"),
                             not e.op.startswith("p"))
        elif isinstance(e, c_ast.Assignment) and (f := atomic_form(e, "update")) is not None:
            found = AtomicOp(v, f[0], f[1], f[2], True)
    elif isinstance(stmt, c_ast.Compound) and len(stmt.block_items or []) == 2:
        first, second = stmt.block_items
        for read, update, new in ((first, second, False), (second, first, True)):
            f = atomic_form(update, "update") or atomic_form(update, "write")
            if isinstance(read, c_ast.Assignment) and read.op == "=" and f is not None \
                    and c_text(read.rvalue) == c_text(f[0]):
                found = AtomicOp(read.lvalue, f[0], f[1], f[2], new)
                break
    return found if found is not None and _apart(found.var, found) else None


def _apart(var: c_ast.Node, op: AtomicOp) -> bool:
    """Whether the captured ``var`` is not the target, and the value mentions neither."""
    names = {n.name for n in walk(op.value) if isinstance(n, c_ast.ID)}
    return not ({_base_name(var), _base_name(op.target)} & names) and \
        _base_name(var) != _base_name(op.target)


def _base_name(e: c_ast.Node) -> str | None:
    while isinstance(e, (c_ast.ArrayRef, c_ast.StructRef)):
        e = e.name
    return e.name if isinstance(e, c_ast.ID) else None


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
        if isinstance(op := gnu_atomic(sub), AtomicOp):
            target = op.target
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
