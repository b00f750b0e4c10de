"""The thread's own variables of a loop inside a parallel region (or an orphaned loop):
``(ThreadView, Candidate, loop nest, BodyInfo, scope)`` -> the scalars and scratch arrays the
loop can privatise per iteration, the thread's scalars it reduces into (a hand-written
reduction: each thread adds into its own copy and merges it after the loop), the conditions at
entry the privatisation assumes, the run-time check of scratch arrays the static proof does
not cover, and why any other use keeps the loop on the host.

On the device path the region runs as a team of one (``analysis.teams``), so a thread's own
scalar that the loop only updates by one associative operator is the loop's reduction into
that one copy; the host path keeps the team and the user's merge.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from pycparser import c_ast

from ..diagnostics import Reason
from ..ir import LoopDim, ScratchCheck, Storage, Var
from .accesses import BodyInfo
from .candidates import Candidate
from .ctypes_ import walk
from .scalarupdates import update_operator
from .scratch import assigned_names, written_before_read
from .scratchcheck import NoCheck, scratch_check
from .teams import ThreadView, array_read_after, live_after
from .threadupdates import thread_pointer_writes, update_reasons
from .updates import Updates


def _with_scratch_loops(view: ThreadView, name: str, v: Var, others: tuple, lookup
                        ) -> ThreadView:
    """The view with the other work-sharing loops that write what they read of array
    ``name`` first (they read nothing the loop leaves in it) counted as not reading it."""
    fine = frozenset(id(loop) for loop in others if id(loop) not in view.loops and
                     written_before_read(name, loop.stmt, assigned_names(loop.stmt), lookup,
                                         v.storage in (Storage.GLOBAL, Storage.STATIC)) is True)
    return replace(view, loops=view.loops | fine) if fine else view


@dataclass(frozen=True)
class _ThreadLoop:
    """A loop of a region (or an orphaned loop) whose thread's own variables are weighed:
    the arguments of ``thread_reasons``."""

    view: ThreadView
    cand: Candidate
    loops: tuple[LoopDim, ...]
    info: BodyInfo
    scope: dict[str, Var]
    through: dict[str, str]
    lookup: Callable
    others: tuple
    updated: dict[str, Updates]


@dataclass(frozen=True)
class ThreadUse:
    """How a loop uses its thread's own variables: those it can privatise per iteration,
    those it reduces into (name -> operator), why others keep it on the host, the conditions
    at entry the privatisation assumes, and the run-time check of scratch arrays."""

    privatised: frozenset[str]
    reduced: dict[str, str]
    #: the thread's scalars the loop writes that keep it on the host (``thread-private``)
    kept: frozenset[str]
    reasons: tuple[Reason, ...]
    conditions: tuple[str, ...]
    check: ScratchCheck | None


def thread_reasons(view: ThreadView, cand: Candidate, loops: tuple[LoopDim, ...],
                   info: BodyInfo, scope: dict[str, Var], through: dict[str, str],
                   lookup=lambda name: None, others: tuple = (),
                   updated: dict[str, Updates] | None = None, checking: tuple | None = None
                   ) -> ThreadUse:
    """For a loop of a region or an orphaned loop: how it uses the thread's own variables
    (``ThreadUse``). ``through``: what the called functions use, with modes;
    ``lookup``: a called function's definition; ``updated``: the thread's arrays the loop
    only updates (they stay one array, see ``thread_updates``); ``checking``: (type
    environment, file-scope variables, region id) to check at run time the scratch arrays
    the static proof does not cover (``analysis.scratchcheck``)."""
    t = _ThreadLoop(view, cand, loops, info, scope, through, lookup, others, updated or {})
    d = cand.directive
    explicit = set(d.names_in("private")) | set(d.names_in("firstprivate")) | set(
        d.names_in("lastprivate")) | {a for c in d.clause("reduction") for a in c.args}
    explicit |= {x.var for x in loops}
    extra, reduced, reasons = _private_scalars(t, explicit)
    kept = frozenset(n for n in t.view.private & t.info.scalar_writes - explicit
                     if n not in extra and n not in reduced and n in scope)
    body = loops[-1].loop.stmt
    assigned = assigned_names(body) | {n for n, mode in through.items() if "w" in mode}
    conds, unproved = _private_arrays(t, explicit, body, assigned, extra, reasons)
    check = None
    if unproved:
        carried = set(info.live_in) | {a for c in d.clause("reduction") for a in c.args}
        check, why = _run_time_check(unproved, loops, body, scope, assigned, lookup, checking,
                                     carried, cand.bound.func.body if cand.bound.func else None)
        if check is not None:
            extra.update(unproved)
        reasons += [Reason("thread-private", f"'{name}' is private to each thread and an "
                           f"iteration may read what an earlier one left in it{why}")
                    for name in (unproved if check is None else ())]
    reasons += update_reasons(t.updated) + thread_pointer_writes(view, info, scope, through,
                                                                 t.updated)
    bounds = {n.name for x in loops for e in (x.lb, x.ub, x.step) for n in walk(e)
              if isinstance(n, c_ast.ID)}
    # (a scalar the body assigns before reading it takes no thread's value in)
    used = (info.scalar_reads & info.live_in) | {a.name for a in info.accesses} | bounds | \
        set(through)
    for name in sorted(used & view.dependent):
        reasons.append(Reason("thread-dependent", f"'{name}' depends on the thread number or "
                              "team size"))
    return ThreadUse(frozenset(extra), reduced, kept, tuple(reasons), tuple(conds), check)


def _private_scalars(t: _ThreadLoop, explicit: set[str]
                     ) -> tuple[set[str], dict[str, str], list[Reason]]:
    """The thread's own scalars the loop writes and can privatise per iteration, those it
    reduces into (name -> operator), and why the others keep it on the host."""
    extra, reduced, reasons = set(), {}, []
    body = t.loops[-1].loop.stmt
    for name in sorted((t.view.private & t.info.scalar_writes) - explicit):
        v = t.scope.get(name)
        if v is None:
            continue
        if name in t.info.live_in and (op := _reduced(t, name, v, body)) is not None:
            reduced[name] = op
        elif name in t.info.live_in:
            reasons.append(Reason("thread-private", f"'{name}' is private to each thread and "
                                  "carries a value between iterations"))
        elif live_after(name, t.cand.loop, t.cand.bound.path, t.view):
            reasons.append(Reason("thread-private", f"'{name}' is private to each thread and "
                                  "its value after the loop is used"))
        else:
            extra.add(name)
    return extra, reduced, reasons


def _reduced(t: _ThreadLoop, name: str, v: Var, body: c_ast.Node) -> str | None:
    """The operator by which the loop only folds values into the thread's scalar ``name``
    (a local of the thread's code, not a global or a pointer, which callees could reach):
    the device's team of one reduces into its one copy as ``reduction(op: name)`` would."""
    if v.storage in (Storage.GLOBAL, Storage.STATIC) or v.ctype.pointer or v.ctype.dims or \
            v.ctype.record or name in t.through:
        return None
    return update_operator(name, body)


def _private_arrays(t: _ThreadLoop, explicit: set[str], body: c_ast.Node, assigned: set[str],
                    extra: set[str], reasons: list[Reason]) -> tuple[list[str], list[str]]:
    """The thread's own arrays the loop writes: those it can privatise per iteration join
    ``extra``, why others keep it on the host joins ``reasons``; returns the conditions at
    entry the privatisation assumes and the arrays the static proof does not cover."""
    info, scope, view = t.info, t.scope, t.view
    copied = set(t.cand.directive.names_in("copyin"))
    own = {x.var for x in t.loops}

    def entry(n: str) -> bool:  # known, and the same, where the loop starts
        return n in scope and n not in assigned and n not in own

    conds: list[str] = []
    unproved: list[str] = []
    written = {a.name for a in info.accesses if a.write} | {
        n for n, mode in t.through.items() if "w" in mode}
    for name in sorted(written & view.private - explicit):
        v = scope.get(name)
        if v is None or v.ctype.pointer:
            continue  # a pointer of the thread's points to shared memory
        if name in copied:
            reasons.append(Reason("copyin", f"array '{name}' is copied in to every thread and "
                                  "written in the loop"))
        elif name in t.updated:
            continue  # the team of one's array, its updates device atomics
        elif array_read_after(name, t.cand.loop, t.cand.bound.path, _with_scratch_loops(
                view, name, v, t.others, t.lookup)):
            reasons.append(Reason("thread-private", f"array '{name}' is private to each thread "
                                  "and read after the loop"))
        elif not v.ctype.dims and (name in info.live_in or name not in info.assigned):
            reasons.append(Reason("thread-private", f"'{name}' is private to each thread and "
                                  "an iteration may read what an earlier one left in it"))
        elif v.ctype.dims and not (proof := written_before_read(
                name, body, assigned, t.lookup, v.storage in (Storage.GLOBAL, Storage.STATIC),
                entry)):
            unproved.append(name)
        else:
            if v.ctype.dims and proof is not True:
                conds += [c for c in proof if c not in conds]
            extra.add(name)  # each iteration's own (uninitialised) copy, as 'private' gives
    return conds, unproved


def _run_time_check(names: list[str], loops: tuple[LoopDim, ...], body: c_ast.Node,
                    scope: dict[str, Var], assigned: set[str], lookup, checking: tuple | None,
                    carried: set[str], enclosing: c_ast.Node | None
                    ) -> tuple[ScratchCheck | None, str]:
    """The run-time check of scratch arrays ``names``, or None and why there is none."""
    if checking is None:
        return None, ""
    env, file_scope, rid = checking
    try:
        return scratch_check(names, body, [(x.var, x.var_type) for x in loops], scope, env,
                             file_scope, assigned, lookup, str(rid), carried, enclosing), ""
    except (NoCheck, RecursionError) as e:
        return None, f" (no run-time check: {e})" if str(e) else ""


def threadprivate_reads(tps: set[str], info: BodyInfo, through: dict[str, str]
                        ) -> list[Reason]:
    """Why a loop that reads threadprivate (``_Thread_local``) data it does not write keeps
    to the host: each thread reads its own copy, which may hold another value than the
    one the device would read (the team thread's). Data the loop writes is weighed as the
    thread's scratch (``thread_reasons``)."""
    written = info.scalar_writes | {a.name for a in info.accesses if a.write} | {
        n for n, mode in through.items() if "w" in mode}
    read = (info.scalar_reads & info.live_in) | {a.name for a in info.accesses if not a.write} \
        | {n for n, mode in through.items() if "r" in mode}
    return [Reason("thread-dependent", f"reads threadprivate '{n}', whose copy differs from "
                   "thread to thread") for n in sorted((tps & read) - written)]
