"""Team analysis: ``parallel`` regions and the threads' view of data.

Consumes the candidates and the program; produces, per region or orphaned loop, the
``ThreadView`` (which variables are private to each thread, which depend on the thread number,
where the thread's other code is), and per ``parallel`` region its ``Team``: whether its
device version, the region run by a team of one thread, is possible.
"""
from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..frontend.pragma import REDUCTION_OPS
from ..frontend.program import Program
from ..ir import BoundDirective, Clause, Directive, Reduction, Region, Storage, Team, Var
from .accesses import is_gnu_atomic
from .replicated import never_read, replicated_reasons
from .accumulators import NONE, Accumulators, accumulators
from .bodyscan import scan_body
from .builtins import HOST_ONLY, is_math
from .candidates import Candidate, TeamCandidate
from .ctypes_ import FLOATING, walk

_THREAD_CALLS = {"omp_get_thread_num", "omp_get_num_threads"}
#: constructs a team of one runs as plain code (the directive line is dropped)
TEAM_OF_ONE = {"for", "for simd", "simd", "single", "master", "masked", "barrier", "flush",
               "critical", "atomic", "sections", "section", "taskwait", "taskyield",
               "parallel", "parallel for", "parallel for simd", "parallel sections"}


@dataclass(frozen=True)
class ThreadView:
    """The code of one thread around a work-sharing loop (a region body or a function)."""

    private: frozenset[str]  # variables each thread has its own copy of
    dependent: frozenset[str]  # variables whose value depends on the thread
    container: c_ast.Node  # the region statement or the function body
    loops: frozenset[int] = frozenset()  # ids of the work-sharing loops in it
    #: arrays each thread adds into its own row of (``analysis.accumulators``)
    accumulators: frozenset[str] = frozenset()


def thread_dependent(container: c_ast.Node) -> frozenset[str]:
    """Names assigned, anywhere in ``container``, from the thread number or team size (or
    from names that are)."""
    assigns = [(n.lvalue.name, n.rvalue) for n in walk(container)
               if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID)]
    assigns += [(n.name, n.init) for n in walk(container)
                if isinstance(n, c_ast.Decl) and n.name and n.init is not None]
    dep: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in assigns:
            if name in dep:
                continue
            for sub in walk(value):
                if isinstance(sub, c_ast.FuncCall) and getattr(sub.name, "name", "") in \
                        _THREAD_CALLS or isinstance(sub, c_ast.ID) and sub.name in dep:
                    dep.add(name)
                    changed = True
                    break
    return frozenset(dep)


def _chain(path: tuple[c_ast.Node, ...], loop: c_ast.Node) -> list[c_ast.Node]:
    """The nodes from the function down to ``loop`` (which may sit in the construct's own
    block, for a 'parallel' region holding only it)."""
    chain = list(path)
    if chain and isinstance(chain[-1], c_ast.Compound) and loop not in (
            chain[-1].block_items or []):
        for item in chain[-1].block_items or []:
            if isinstance(item, c_ast.Compound) and loop in (item.block_items or []):
                chain.append(item)
                break
    return chain + [loop]


def _after_item(block: c_ast.Compound, child: c_ast.Node) -> list[c_ast.Node] | None:
    """The items of ``block`` after ``child`` (None when it is not one of them)."""
    items = block.block_items or []
    k = next((i for i, it in enumerate(items) if it is child), None)
    return None if k is None else items[k + 1:]


_SCANNED: "weakref.WeakKeyDictionary[c_ast.Node, object]" = weakref.WeakKeyDictionary()


def _scanned(item: c_ast.Node):
    """``scan_body(item)``, once per statement (every variable of every loop asks)."""
    info = _SCANNED.get(item)
    if info is None:
        info = _SCANNED[item] = scan_body(item)
    return info


def _first_use(name: str, items: list[c_ast.Node]) -> str | None:
    """'read' if ``name`` may be read before it is surely assigned in ``items``, 'write' if
    it is surely assigned first, None if neither."""
    for item in items:
        info = _scanned(item)
        if name in info.live_in:
            return "read"
        if name in info.assigned:
            return "write"
    return None


def live_after(name: str, loop: c_ast.Node, path: tuple[c_ast.Node, ...],
               view: ThreadView) -> bool:
    """True when the thread's code may read the value ``name`` has after ``loop`` (before
    assigning it again); the thread's variables die at the end of its container."""
    chain = _chain(path, loop)
    top = next((k for k, n in enumerate(chain) if n is view.container), None)
    if top is None:
        return True
    for k in range(len(chain) - 2, top - 1, -1):
        node, child = chain[k], chain[k + 1]
        if isinstance(node, c_ast.Compound):
            later = _after_item(node, child)
            if later is None:
                return True
            use = _first_use(name, later)
            if use is not None:
                return use == "read"
        elif isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)) and child is node.stmt:
            # the next iteration runs the loop body again from its start
            use = _first_use(name, [node.stmt] + ([node.next] if isinstance(node, c_ast.For)
                                                  and node.next is not None else []))
            if use == "read":
                return True
    return False


def array_read_after(name: str, loop: c_ast.Node, path: tuple[c_ast.Node, ...],
                     view: ThreadView) -> bool:
    """True when the thread's code outside its work-sharing loops may read array ``name``
    after ``loop`` (its contents at a work-sharing loop's start depend on the schedule, so a
    correct program does not read them there)."""
    chain = _chain(path, loop)
    top = next((k for k, n in enumerate(chain) if n is view.container), None)
    if top is None:
        return True
    for k in range(len(chain) - 2, top - 1, -1):
        node, child = chain[k], chain[k + 1]
        if isinstance(node, c_ast.Compound):
            later = _after_item(node, child)
            if later is None:
                return True
        elif isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile)) and child is node.stmt:
            later = [node.stmt]  # the next iteration
        else:
            continue
        if any(_reads(name, item, view.loops) for item in later):
            return True
    return False


def _reads(name: str, node: c_ast.Node | None, skip: frozenset[int]) -> bool:
    """Whether ``node``, work-sharing loops aside, may read array ``name``: any use other than
    as the target of a plain assignment to one of its elements."""
    if node is None or id(node) in skip:
        return False
    if isinstance(node, c_ast.Assignment) and node.op == "=":
        target = node.lvalue
        while isinstance(target, c_ast.ArrayRef):
            if _reads(name, target.subscript, skip):
                return True
            target = target.name
        if not (isinstance(target, c_ast.ID) and target.name == name):
            if _reads(name, node.lvalue, skip):
                return True
        return _reads(name, node.rvalue, skip)
    if isinstance(node, c_ast.ID):
        return node.name == name
    return any(_reads(name, child, skip) for _, child in node.children())


def region_private(team: BoundDirective, scope: dict[str, Var]) -> set[str]:
    """The variables each thread of the ``parallel`` region ``team`` has its own copy of, by
    its clauses or by being declared inside it (those visible in ``scope``)."""
    d = team.directive
    inside = {id(n) for n in walk(team.stmt)}
    return set(d.names_in("private")) | set(d.names_in("firstprivate")) | {
        a for c in d.clause("reduction") for a in c.args} | {
        name for name, v in scope.items() if v.decl is not None and id(v.decl) in inside}


def thread_view(cand: Candidate, scope: dict[str, Var], teams: tuple[TeamCandidate, ...],
                cands: tuple[Candidate, ...] = (), threadprivate: set[str] = frozenset()
                ) -> ThreadView | None:
    """The thread's view for a region or orphaned loop, or a ``parallel for`` that uses
    threadprivate data (every thread has its own copy of those); None otherwise."""
    view = _thread_view(cand, scope, teams, cands)
    if view is None and threadprivate and cand.bound.func is not None:
        body = cand.bound.func.body
        return ThreadView(frozenset(threadprivate), frozenset(), body,
                          frozenset({id(cand.loop)}))
    if view is not None and threadprivate:
        return ThreadView(view.private | threadprivate, view.dependent, view.container,
                          view.loops, view.accumulators)
    return view


def _thread_view(cand: Candidate, scope: dict[str, Var], teams: tuple[TeamCandidate, ...],
                 cands: tuple[Candidate, ...]) -> ThreadView | None:
    if cand.context == "region":
        team = teams[cand.team]
        stmt = team.bound.stmt
        private = region_private(team.bound, scope)
        loops = frozenset(id(cands[k].loop) for k in team.loops) if cands else frozenset()
        acc = team_accumulators(team, loops)
        return ThreadView(frozenset(private), thread_dependent(stmt) - acc.tids, stmt, loops,
                          acc.arrays)
    if cand.context == "orphaned" and cand.bound.func is not None:
        body = cand.bound.func.body
        private = {name for name, v in scope.items() if v.storage in ("local", "param")}
        loops = frozenset(id(c.loop) for c in cands if c.context == "orphaned"
                          and c.bound.func is cand.bound.func)
        return ThreadView(frozenset(private), thread_dependent(body), body, loops)
    return None


_ACCUMULATORS: "weakref.WeakKeyDictionary[c_ast.Node, dict]" = weakref.WeakKeyDictionary()


def team_accumulators(tc: TeamCandidate, loops: frozenset[int]) -> Accumulators:
    """The per-thread accumulators of a ``parallel`` region (``loops``: the ids of its
    work-sharing loops); none where the region's clauses choose its size. Once per region
    (each of its loops' analyses, and the team's, ask)."""
    d = tc.bound.directive
    if d.clause("num_threads") or d.clause("if"):
        return NONE
    known = _ACCUMULATORS.setdefault(tc.bound.stmt, {})
    if loops not in known:
        known[loops] = accumulators(tc.bound.stmt, tc.bound.func, loops)
    return known[loops]


def privatised(d: Directive, names: set[str]) -> Directive:
    """The directive with ``private(names)`` added (for the kernel's data sharing)."""
    if not names:
        return d
    return Directive(d.kind, d.clauses + (Clause("private", tuple(sorted(names)), loc=d.loc),),
                     d.loc, d.text)


def reduced_into(d: Directive, ops: dict[str, str]) -> Directive:
    """The directive with ``reduction(op: name)`` added for each of ``ops`` (the thread's
    own scalars the loop reduces into, for the kernel's data sharing)."""
    extra = tuple(Clause("reduction", (name,), op, d.loc) for name, op in sorted(ops.items()))
    return Directive(d.kind, d.clauses + extra, d.loc, d.text) if extra else d


def _directives(prog: Program) -> dict[int, Directive]:
    out = {id(b.pragma): b.directive for b in prog.constructs}
    out.update((id(p), d) for d, p, _ in prog.standalone)
    return out


def team_reasons(tc: TeamCandidate, loops: list[Region], prog: Program) -> list[Reason]:
    """Why a region cannot run as a team of one, with its loops on the device."""
    loc = tc.bound.directive.loc
    out = []
    kinds = _directives(prog)
    for node in walk(tc.bound.stmt):
        if isinstance(node, c_ast.Pragma) and id(node) in kinds:
            kind = kinds[id(node)].kind
            if kind not in TEAM_OF_ONE:
                out.append(Reason("team-construct", f"the parallel region uses '#pragma omp "
                                  f"{kind}'", loc))
    if loops and not any(r.offload for r in loops):
        out += [Reason("team-loop", f"its loop at line {r.loc.line} stays on the host "
                       f"({r.reasons[0].message})", loc) for r in loops]
    if not loops and not any(isinstance(n, c_ast.FuncCall) for n in walk(tc.bound.stmt)):
        out.append(Reason("team-loop", "the parallel region has no work-sharing loop and calls "
                          "no function", loc))
    return out


#: OpenMP routines whose result or effect is the same in a team of one as in the region's
#: team (any other, a thread or team query or an ICV setter, can tell them apart)
_TEAM_BLIND = {"omp_get_wtime", "omp_get_wtick", "omp_get_num_procs", "omp_get_num_devices",
               "omp_get_default_device", "omp_get_initial_device", "omp_is_initial_device"} | {
    f"omp_{verb}_{kind}lock" for verb in ("init", "destroy", "set", "unset", "test")
    for kind in ("", "nest_")}
#: headers of the C and POSIX libraries (and MPI): their functions never ask OpenMP's team
_LIBRARY_HEADERS = re.compile(
    r"/usr/(local/)?include/(x86_64-linux-gnu/|aarch64-linux-gnu/|[\w.-]+-linux-gnu/)?"
    r"(bits/|sys/|asm[\w-]*/|linux/)?[\w.-]+\.h$|/mpi[\w.-]*\.h$|/lib/gcc/.*/include/")


#: constructs whose statement one thread of the team runs, once
_ONCE = {"master", "masked", "single"}


def once_queries(tc: TeamCandidate, prog: Program) -> dict[int, str]:
    """The team and thread queries (``omp_get_num_threads()``, ``omp_get_thread_num()``) in
    the statements of a region's ``master``/``masked``/``single`` constructs, by call node
    id: run once by one thread of the team, they see the team's size and a thread number
    of it; the team of one answers them with the size the host's team would have
    (``omp_get_max_threads()``) and 0, so they cannot tell it from its team. None where the
    region's own clauses (``num_threads``, ``if``) choose its size."""
    d = tc.bound.directive
    if d.clause("num_threads") or d.clause("if"):
        return {}
    inside = {id(n) for n in walk(tc.bound.stmt)}
    out = {}
    for b in prog.constructs:
        if b.directive.kind in _ONCE and id(b.stmt) in inside:
            out.update((id(n), n.name.name) for n in walk(b.stmt)
                       if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)
                       and n.name.name in _THREAD_CALLS)
    return out


def observe_reasons(stmt: c_ast.Node, prog: Program, lookup: Callable[[str], object],
                    answered: dict[int, str] | None = None) -> list[Reason]:
    """Why the code of a ``parallel`` region (``stmt``), or anything it calls, could tell a
    team of one from its team: a team or thread query or an ICV setter (``omp_*`` outside
    ``_TEAM_BLIND``; the calls in ``answered`` the team of one answers as the team would),
    a call through a pointer or of a function ompcl cannot see.
    ``lookup(name)``: a function's definition in this file or another of the program."""
    library = {e.name: e.coord.file for e in prog.ast.ext if isinstance(e, c_ast.Decl)
               and isinstance(e.type, c_ast.FuncDecl) and e.coord is not None}
    answered = answered or {}
    seen: set[str] = set()
    todo = [stmt]
    while todo:
        for call in (n for n in walk(todo.pop()) if isinstance(n, c_ast.FuncCall)):
            if id(call) in answered:
                continue
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            fdef = lookup(name) if name is not None else None
            why = _observes(name, library, fdef is not None)
            if why:
                return [Reason("team-observed", why, SourceLoc.of(call))]
            if fdef is not None and name not in seen:
                seen.add(name)
                todo.append(fdef.body)
    return []


def _observes(name: str | None, library: dict[str, str], defined: bool) -> str | None:
    """Why a call of ``name`` (None: through a pointer; ``defined``: ompcl sees its
    definition) may observe the team, or None."""
    if name is None:
        return "the parallel region calls a function through a pointer (it may ask for its " \
            "team)"
    if name.startswith("omp_"):
        return None if name in _TEAM_BLIND else f"the parallel region calls '{name}', whose " \
            "answer differs in a team of one"
    if is_math(name) or name in HOST_ONLY or name.startswith("__builtin_") or defined \
            or is_gnu_atomic(name):
        return None
    if _LIBRARY_HEADERS.search(library.get(name, "")):
        return None
    return f"the parallel region calls '{name}', which ompcl cannot see (it may ask for its team)"


def _unread(name: str, scope: dict[str, Var], prog: Program) -> bool:
    """``name`` is a variable of this file only (static, or the function's own) that no code
    of the file reads but to update it."""
    v = scope.get(name)
    mine = v is not None and (v.storage in (Storage.LOCAL, Storage.PARAM) or isinstance(
        v.decl, c_ast.Decl) and "static" in v.decl.storage)
    return mine and never_read(name, prog.ast)


def team_of(tid: int, tc: TeamCandidate, loops: list[Region], scope: dict[str, Var],
            prog: Program, lookup: Callable[[str], object] = lambda name: None) -> Team:
    """The team-of-one view of a ``parallel`` region (``lookup``: a called function's
    definition, see ``observe_reasons``)."""
    d = tc.bound.directive
    answered = once_queries(tc, prog)
    acc = team_accumulators(tc, frozenset(id(r.bound.stmt) for r in loops))
    answered.update((c, "omp_get_thread_num") for c in acc.calls)
    answered.update((c, "omp_get_num_threads") for c in acc.sizes)
    reasons = team_reasons(tc, loops, prog) + observe_reasons(tc.bound.stmt, prog, lookup,
                                                               answered)
    reduced = {a for c in d.clause("reduction") for a in c.args}
    reasons += replicated_reasons(tc.bound.stmt,
                                  region_private(tc.bound, scope) - reduced | prog.threadprivate(),
                                  lookup, lambda name: _unread(name, scope, prog), reduced)
    privates, firsts, reds = [], [], []
    for clause, bucket in (("private", privates), ("firstprivate", firsts)):
        for name in d.names_in(clause):
            v = scope.get(name)
            if v is None or v.decl is None:
                reasons.append(Reason("clause-type", f"{clause} '{name}' has no declaration "
                                      "ompcl can copy", d.loc))
            else:
                bucket.append(v)
    for c in d.clause("reduction"):
        for name in c.args:
            v = scope.get(name)
            if v is None or not v.ctype.is_scalar or v.ctype.base == "?" or (
                    c.op in ("&", "|", "^") and v.ctype.base in FLOATING) or \
                    c.op not in REDUCTION_OPS:
                reasons.append(Reason("clause-type", f"reduction variable '{name}' of the "
                                      "parallel region has an unsupported type", d.loc))
            else:
                reds.append(Reduction(name, "+" if c.op == "-" else c.op, v.ctype.base))
    return Team(tid, tc.bound, tuple(r.id for r in loops), tuple(privates), tuple(firsts),
                tuple(reds), tuple(dict.fromkeys(reasons)),
                queries=tuple(sorted(set(answered.values()))))
