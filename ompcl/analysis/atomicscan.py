"""The atomic part of the body scan (``analysis.bodyscan``): ``#pragma omp atomic`` statements
and GNU's atomic builtins -> ``accesses.Atomic`` records, and the problems of the forms and
memory orders the device's atomics do not give.

Consumes a directive and its statement, or a statement calling a builtin, and the ``Scan``;
produces what the body scan then walks: the update as ``x op= v`` (atomic) and the variable a
capture assigns (a plain write). A body scanned without an index scope is a called function's
(``analysis.calls``): only a kernel body's atomics become device atomics, so a callee's stay
on the host.
"""
from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.pragma import is_omp_pragma
from .accesses import Atomic, AtomicOp, atomic_form, capture_form
from .ctypes_ import c_text
from .scanstate import Scan, is_local, problem

#: what the body scan walks for an atomic statement: (statement, captured variable or None,
#: whether the statement's writes are atomic)
Found = tuple[c_ast.Node, "c_ast.Node | None", bool]

_DEVICE = "ompcl's device atomics do not give"


def pragma_atomic(sc: Scan, pragma: c_ast.Pragma, stmt: c_ast.Node, kind: str) -> Found | None:
    """``#pragma omp atomic`` and its statement: updates, writes and captures of shared data
    run as device atomics (an update or capture with a memory order relaxed, see
    ``order_problems``); other forms keep the loop on the host (None)."""
    order = atomic_order(pragma)
    if order in ("weak", "fail") or order is not None and kind in ("read", "write"):
        return problem(sc, pragma, "atomic-order", f"contains '#pragma omp atomic "
                       f"{order}', which {_DEVICE}")
    if sc.index is None and kind != "read":
        return problem(sc, pragma, "omp-construct", "contains '#pragma omp atomic' (ompcl "
                       "runs atomics on the device in the loop body only)")
    if kind == "read":
        sc.uses.atomic_reads.append(SourceLoc.of(pragma))
    if kind == "capture" and (op := capture_form(stmt)) is not None:
        return _rmw(sc, replace(op, order=order), stmt, pragma)
    form_ = atomic_form(stmt, kind)
    if form_ is None or kind in ("capture", "compare"):
        return problem(sc, pragma, "omp-construct", f"contains '#pragma omp atomic "
                       f"{kind}' of a form ompcl does not run on the device")
    base = _base(form_[0])
    if base is None:
        return problem(sc, pragma, "omp-construct", "contains '#pragma omp atomic' on "
                       f"'{c_text(form_[0])}'")
    if kind != "read" and not is_local(sc, base):
        sc.uses.atomics.append(Atomic(stmt, base, form_[1], SourceLoc.of(pragma), order))
    return stmt, None, kind != "read"


def builtin_atomic(sc: Scan, stmt: c_ast.Node, op: AtomicOp) -> Found | None:
    """A kernel body's statement calling a GNU atomic builtin the device runs
    (``accesses.statement_atomic``): its update a device atomic, its value (if kept)
    assigned; on the loop's own variable, a problem (None)."""
    call = stmt.rvalue if isinstance(stmt, c_ast.Assignment) else \
        stmt.expr if isinstance(stmt, c_ast.Cast) else stmt
    if is_local(sc, _base(op.target)):
        return problem(sc, stmt, "atomic-builtin", f"calls '{call.name.name}' on the loop's "
                       f"own variable '{c_text(op.target)}'")
    return _rmw(sc, op, call, stmt)


def expression_atomic(sc: Scan, call: c_ast.FuncCall, op: AtomicOp | str) -> None:
    """A GNU atomic builtin anywhere else (``accesses.gnu_atomic``): kept on the host."""
    name = call.name.name
    if isinstance(op, str):
        return problem(sc, call, "atomic-builtin", op)
    if sc.index is None:
        return problem(sc, call, "atomic-builtin", f"calls '{name}' (ompcl runs atomics on "
                       "the device in the loop body only)")
    problem(sc, call, "atomic-builtin", f"uses the value of '{name}' in an expression (the "
            f"device runs '{name}(...);' and 'v = {name}(...);')")


def _rmw(sc: Scan, op: AtomicOp, stmt: c_ast.Node, where: c_ast.Node) -> Found | None:
    base = _base(op.target)
    if base is None:
        return problem(sc, where, "omp-construct", "contains '#pragma omp atomic' on "
                       f"'{c_text(op.target)}'")
    if not is_local(sc, base):
        sc.uses.atomics.append(Atomic(stmt, base, op.op, SourceLoc.of(where), op.order))
    update = c_ast.Assignment("=" if op.op == "=" else op.op + "=", op.target, op.value,
                              stmt.coord)
    return update, op.var, True


def order_problems(sc: Scan) -> None:
    """A memory order stronger than relaxed on the body's atomic updates (``omp atomic
    seq_cst``, ``__sync_*``, ``__ATOMIC_SEQ_CST``) is kept by relaxed device atomics only
    where nothing can observe it: without atomic reads (or flushes, which keep a loop on the
    host anyway) a work-sharing loop's updates are seen only in their results."""
    strong = next((a for a in sc.uses.atomics if a.order is not None), None)
    if strong is not None and sc.uses.atomic_reads:
        read = sc.uses.atomic_reads[0]
        sc.parts.problems.append(Reason(
            "atomic-order", f"orders an atomic update ({strong.order}, line {strong.loc.line}) "
            f"against the atomic read of line {read.line}, which {_DEVICE}", strong.loc))


def _base(target: c_ast.Node) -> str | None:
    while isinstance(target, c_ast.ArrayRef):
        target = target.name
    return target.name if isinstance(target, c_ast.ID) else None


def atomic_kind(item: c_ast.Node) -> str | None:
    """'update', 'write', 'read', 'capture' or 'compare' for an ``omp atomic`` directive,
    else None."""
    if not isinstance(item, c_ast.Pragma) or not is_omp_pragma(item.string):
        return None
    words = _atomic_words(item)
    if words is None:
        return None
    for w in ("compare", "capture", "update", "write", "read"):
        if w in words:
            return w
    return "update"


def _atomic_words(item: c_ast.Pragma) -> list[str] | None:
    words = item.string.replace("(", " ( ").replace(",", " ").split()
    return words[2:] if words[:2] == ["omp", "atomic"] else None


def atomic_order(item: c_ast.Pragma) -> str | None:
    """The memory order of an ``omp atomic`` directive stronger than relaxed, or 'weak' and
    'fail' (of 'compare'); None when there is none."""
    return next((w for w in _atomic_words(item) or ()
                 if w in ("seq_cst", "acq_rel", "release", "acquire", "weak", "fail")), None)
