"""The thread's arrays a work-sharing loop only updates: a private histogram (EP's ``qq``),
a per-thread accumulator (``analysis.accumulators``), a pointer each thread has its own copy
of. Consumes the loop's ``ThreadView`` and body scan; produces, per array, how the loop
updates it (``updates.Updates``: device atomics where any order gives the same values, or
where an array reduction written by hand allows another), and the reasons the others keep
the loop on the host.
"""
from __future__ import annotations

from dataclasses import replace

from pycparser import c_ast

from ..diagnostics import Reason
from ..ir import Storage, SymKind, Var
from .accesses import BodyInfo
from .accumulators import element_of, merged_into, parents_of
from .ctypes_ import TypeEnv, walk
from .sharing import ATOMIC_C_TYPES
from .teams import ThreadView
from .trees import tree_type
from .updates import Updates, array_updates


def _on_dims(form) -> bool:
    """Whether an index form varies with the region's own loop variables."""
    return any(sym.kind == SymKind.DIM
               or sym.kind in (SymKind.MOD, SymKind.DIV) and _on_dims(sym.payload[0])
               for sym in form.syms())


def thread_updates(view: ThreadView, info: BodyInfo, scope: dict[str, Var],
                   through: dict[str, str], body: c_ast.Node, lookup,
                   env: TypeEnv | None = None) -> dict[str, Updates]:
    """The thread's arrays and pointers the loop writes only by updating their elements (of
    types the device updates atomically), and how; the region's per-thread accumulators
    (``analysis.accumulators``) too, in any order (an array reduction written by hand)."""
    written = {a.name for a in info.accesses if a.write} | {
        n for n, mode in through.items() if "w" in mode}
    out = {}
    for name in sorted(written & view.accumulators):
        v = scope.get(name)
        tree = tree_type(getattr(v.decl, "type", None), env) if v is not None and env and \
            v.ctype.base == "?" else None
        base = tree[0] if tree else v.ctype.base if v is not None else "?"
        upd = array_updates(name, body, base, lookup) if base in ATOMIC_C_TYPES else None
        if upd is not None:
            out[name] = replace(upd, exact=True, regroup=True)
    for name in sorted(written & view.private):
        v = scope.get(name)
        if v is None or not v.ctype.is_array_like or v.ctype.base not in ATOMIC_C_TYPES or \
                v.ctype.pointer and not _writes_may_meet(name, info, through):
            continue  # a pointer's writes on the loop's own elements need no atomics
        upd = array_updates(name, body, v.ctype.base, lookup,
                            v.storage in (Storage.GLOBAL, Storage.STATIC))
        if upd is not None and not upd.exact and not v.ctype.pointer and \
                merged_only(name, view.container, body):
            upd = replace(upd, exact=True, regroup=True)  # an array reduction by hand
        if upd is not None:
            out[name] = upd
    return out


def merged_only(name: str, container: c_ast.Node, body: c_ast.Node) -> bool:
    """Whether the thread's array ``name`` is, outside the loop ``body``, only declared, set
    to constants and merged (read into the right side of a ``+=`` on another variable, an
    ``omp atomic`` or ``critical`` one too): NPB's ``rms_local[m]`` summed in the loop and
    added to the shared ``rms[m]`` after it. Its sums then reach the program only through
    the merges, which may see them grouped in another way, as a reduction's may."""
    inside = {id(n) for n in walk(body)}
    parents = parents_of(container)
    for use in walk(container):
        if not (isinstance(use, c_ast.ID) and use.name == name) or id(use) in inside:
            continue
        ref, subs = element_of(use, parents)
        p = parents.get(id(ref))
        if not subs:
            return False  # the array itself, not an element: passed, pointed to
        if isinstance(p, c_ast.Assignment) and p.lvalue is ref:
            if p.op != "=" or not isinstance(p.rvalue, c_ast.Constant):
                return False
        elif not merged_into(ref, name, parents):
            return False
    return True


def update_reasons(updated: dict[str, Updates]) -> list[Reason]:
    return [Reason("update-order", f"'{name}' is private to each thread and only updated in "
                   "the loop, but its floating-point sums could change in another order (an "
                   "OpenMP array reduction would allow it)")
            for name, u in sorted(updated.items()) if not u.exact]


def _writes_may_meet(name: str, info: BodyInfo, through: dict[str, str]) -> bool:
    """Whether iterations may write the same elements through pointer ``name``: a callee
    writes through it, or a write's subscripts do not follow the loop's variables."""
    writes = [a for a in info.accesses if a.name == name and a.write]
    return "w" in through.get(name, "") or any(
        not any(f is not None and _on_dims(f) for f in a.index) for a in writes)


def thread_pointer_writes(view: ThreadView, info: BodyInfo, scope: dict[str, Var],
                           through: dict[str, str], updated: dict[str, Updates] | None = None
                           ) -> list[Reason]:
    """A pointer each thread has its own copy of may point to memory each thread has its own
    copy of (a scratch buffer passed down): iterations that write the same elements through
    it would share one buffer on the device. Writes whose subscripts follow the loop's
    variables are the loop's own elements (shared memory, as the directive promises)."""
    out = []
    for name in sorted(view.private):
        v = scope.get(name)
        if v is None or not v.ctype.pointer or v.ctype.dims or name in (updated or {}):
            continue  # updates of the one thread's memory meet in it as device atomics
        if _writes_may_meet(name, info, through):
            out.append(Reason("thread-private", f"'{name}' is each thread's pointer and the "
                              "loop writes through it where iterations may meet (it may point "
                              "to memory each thread has its own copy of)"))
    return out
