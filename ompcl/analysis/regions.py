"""Region analysis: ``Program`` -> one ``Region`` per candidate work-sharing loop, with its
loops, data (buffers, scalars, privates, reductions), called functions and the verdict on
offloading it; plus a remark per ``omp for`` loop that is not a candidate.

A region is offloaded only when every fact needed to run it on the device is known: canonical
loops, known array extents, supported types, no side effects or synchronisation. OpenMP's own
contract (iterations of a work-sharing loop are independent) is taken from the directive. The
concerns live in their own modules (candidates, loops, accesses, calls, sharing, extents);
this one puts their results together.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ..diagnostics import ClauseError, Reason, Remark, not_offloaded
from ..frontend.pragma import DATA_CLAUSES
from ..frontend.library import SourceLibrary
from ..frontend.program import Program
from ..frontend.textscan import IDENT
from ..ir import Directive, LoopDim, Region, Storage, Team, Var
from .accesses import BodyInfo, IndexScope, names_written
from .bodyscan import scan_body
from .builtins import is_math, typeof_reason
from .calls import analyze_calls
from .candidates import Candidate, TeamCandidate, find_candidates
from .ctypes_ import FLOATING, TypeEnv, c_text, free_names, visible_vars, walk
from .localtypes import why_kept
from .loops import NotCanonical, canonical_loop, loop_nest
from .sharing import Sharing, classify_sharing, dim_syms
from .ctypes_ import is_constant_text
from .threadloops import thread_reasons, threadprivate_reads
from .threadupdates import thread_updates
from .teams import privatised, reduced_into, team_of, thread_view
from .derived import substituted
from .enums import function_enumerators, substitutable, with_values
from .memcalls import lowered, lowered_functions
from .puns import punned
from .qualifiers import volatile_reason
from .dialect import dialect_reason
from .inline import inlined
from .members import assigned_members, hoisted
from .structargs import SUFFIX as SPLIT_SUFFIX, WithCopies, specialized
from .vla import capped
from .unswitch import choose, guarded_calls, without
from .updates import Updates


@dataclass(frozen=True)
class RegionAnalysis:
    """Every candidate region of a file, and remarks for the loops that are not candidates."""

    regions: tuple[Region, ...]
    remarks: tuple[Remark, ...]
    teams: tuple[Team, ...] = ()


def check_clause_names(d: Directive, scope: dict[str, Var]) -> None:
    """Every variable a data-sharing clause names must be declared (as the C compiler would
    insist); an error, not a remark, because the program is invalid."""
    for c in d.clauses:
        if c.name in DATA_CLAUSES:
            for name in c.args:
                if name not in scope:
                    raise ClauseError(f"'{name}' in '{c.name}' clause is not a declared "
                                      "variable", c.loc)


#: clauses the device translation gives their meaning (or that have none a race-free loop
#: could observe: hints of vectorisation, placement and allocation), and of those with
#: modifiers, the modifiers it gives
HONOURED = {"private": (), "firstprivate": (), "lastprivate": (), "shared": (),
            "reduction": ("default",), "schedule": ("monotonic", "nonmonotonic", "simd"),
            "collapse": (), "nowait": (), "default": (), "num_threads": (), "copyin": (),
            "proc_bind": (), "ordered": (), "safelen": (), "simdlen": (), "aligned": (),
            "nontemporal": (), "allocate": (), "order": ("reproducible", "unconstrained"),
            "if": ("parallel", "simd"), "linear": ()}


def unhonoured_clause(d: Directive) -> Reason | None:
    """The reason a loop's directive keeps it on the host: a clause (or a clause's modifier)
    the device translation does not give its meaning, such as ``linear`` or
    ``lastprivate(conditional: x)``."""
    for c in d.clauses:
        mods = HONOURED.get(c.name)
        if mods is None:
            return Reason("clause", f"its '{c.name}' clause is not honoured on the device",
                          c.loc or d.loc)
        bad = [m for m in c.modifiers if m not in mods]
        if bad:
            return Reason("clause", f"the '{bad[0]}' modifier of its '{c.name}' clause is not "
                          "honoured on the device", c.loc or d.loc)
    return None


def nest_of(d: Directive, loop: c_ast.For, scope: dict[str, Var], env: TypeEnv
            ) -> tuple[LoopDim, ...] | Reason:
    """The canonical loops the directive distributes, with their variables' types."""
    depth = d.collapse
    if depth > 3:
        return Reason("collapse-depth", f"collapse({depth}) has more than 3 loops (the "
                      "ND-range has 3 dimensions)", d.loc)
    if d.clause("ordered"):
        return Reason("ordered", "the loop has an 'ordered' clause", d.loc)
    why = unhonoured_clause(d)
    if why is not None:
        return why
    try:
        dims = [canonical_loop(f) for f in loop_nest(loop, depth)]
    except NotCanonical as e:
        return Reason("not-canonical", str(e), d.loc)
    out = []
    for x in dims:
        if x.declares_var:
            init = x.loop.init
            ct = env.ctype((init.decls[0] if isinstance(init, c_ast.DeclList) else init).type)
        else:
            ct = scope[x.var].ctype if x.var in scope else None
        if ct is None or not ct.is_scalar or ct.base in FLOATING:
            return Reason("loop-var-type", f"loop variable '{x.var}' is not of integer type",
                          d.loc)
        out.append(LoopDim(x.var, ct.base, x.lb, x.ub, x.op, x.step, x.loop, x.declares_var))
    return rectangular(d, tuple(out))


def rectangular(d: Directive, loops: tuple[LoopDim, ...]) -> tuple[LoopDim, ...]:
    """The collapsed loops the device distributes: all of them, or, where an inner loop's
    bounds or step name an outer loop's variable (a triangular ``collapse(2)``), the loops
    outside it, each work-item running the inner ones in order (one schedule of the
    independent iterations OpenMP's contract allows). ``lastprivate`` and ``linear`` keep the
    whole nest (their value is the collapsed space's last iteration's): its bounds stay
    ``bound-variant``."""
    if d.clause("lastprivate") or d.clause("linear"):
        return loops
    for k in range(1, len(loops)):
        outer = {x.var for x in loops[:k]}
        if any(isinstance(sub, c_ast.ID) and sub.name in outer
               for e in (loops[k].lb, loops[k].ub, loops[k].step) for sub in walk(e)):
            return loops[:k]
    return loops


def inner_privates(d: Directive, loops: tuple[LoopDim, ...]) -> set[str]:
    """The variables of the collapsed loops ``rectangular`` left in the body that are declared
    outside them: private by the construct (OpenMP's collapsed loop variables)."""
    if len(loops) >= d.collapse:
        return set()
    inner = loop_nest(loops[-1].loop, d.collapse - len(loops) + 1)[1:]
    return {x.var for x in map(canonical_loop, inner) if not x.declares_var}


def bound_reasons(loops: tuple[LoopDim, ...], info: BodyInfo) -> list[Reason]:
    """Loop bounds and steps must be invariant and free of side effects. They may read memory:
    OpenMP evaluates them once, before the loop, and so does the host at region entry."""
    written = set(info.scalar_writes) | {a.name for a in info.accesses if a.write}
    pvars = [d.var for d in loops]
    out = []
    for d in loops:
        for e in (d.lb, d.ub, d.step):
            for sub in walk(e):
                if isinstance(sub, c_ast.ID) and (sub.name in written or sub.name in pvars):
                    out.append(Reason("bound-variant", f"bound '{c_text(e)}' of loop "
                                      f"'{d.var}' is not loop-invariant"))
                if isinstance(sub, c_ast.FuncCall) and not is_math(c_text(sub.name)) or \
                        isinstance(sub, (c_ast.Assignment, c_ast.UnaryOp)) and getattr(
                            sub, "op", "") in ("=", "++", "--", "p++", "p--"):
                    out.append(Reason("bound-memory", f"bound '{c_text(e)}' of loop "
                                      f"'{d.var}' calls a function or has a side effect"))
    return out


def local_type_reasons(info: BodyInfo, env: TypeEnv) -> list[Reason]:
    """Variables declared in the body must have types the device knows, and fixed sizes."""
    out = []
    for decl in info.local_decls:
        ct = env.local_ctype(decl.type)
        if ct is None or ct.pointer:
            why = typeof_reason(decl.name, decl.type) or \
                f"declares '{decl.name}' of a type ompcl cannot use on the device"
            out.append(Reason("local-type", why))
        elif not all(is_constant_text(x, env) for x in ct.dims):
            out.append(Reason("local-type", f"declares variable-length array '{decl.name}'"))
    return out


def outlined_locals(cand: Candidate, scope: dict[str, Var], own: frozenset[str] = frozenset(),
                    values: dict[str, int] | None = None) -> tuple[list[Var], list[Reason]]:
    """Function-local variables the outlined host function needs (named in the construct),
    and the file-scope ones each thread of its region has a copy of (``own``: privatised by
    the region's clauses; the function must be given the thread's copy, not name the
    file-scope variable); ``values``: the function's enumerators the device version reads as
    their values (``_enumerator_values``)."""
    names = free_names(cand.bound.stmt)
    for c in cand.directive.clauses:
        for a in c.args:
            names.update(IDENT.findall(a))
    out, reasons = [], []
    decls = [scope[n].decl for n in sorted(names) if n in scope and scope[n].decl is not None]
    local = _block_scope_names(cand.bound.func) & (
        names | _type_names(cand.bound.stmt) | free_names(c_ast.Compound(decls))
        | {t for d in decls for t in _type_names(d)})  # the used variables' types too
    local -= set(_enumerator_values(cand, scope) if values is None else values)
    for name in sorted(local):  # (pycparser's scope: a variable of the name hides one)
        if scope.get(name) is None:
            why = why_kept(cand.bound.func, name)
            reasons.append(Reason("local-type", f"uses '{name}', declared inside its function"
                                  + (f" where it must stay ({why})" if why else "") +
                                  " (the code ompcl generates outside the function cannot "
                                  "see it)"))
    for name in sorted(names):
        v = scope.get(name)
        if v is not None and (v.storage != Storage.GLOBAL or name in own):
            if v.ctype.base == "?" and not v.ctype.is_array_like and not _passable(v.decl):
                reasons.append(Reason("data-type", f"local variable '{name}' has a type ompcl "
                                      "cannot pass on"))
            out.append(v)
    return out, reasons


def _enumerator_values(cand: Candidate, scope: dict[str, Var]) -> dict[str, int]:
    """The values of the enumerators declared in the loop's function that its device
    version may read as constants (``enums``)."""
    values = function_enumerators(cand.bound.func)
    if not values:
        return {}
    names = free_names(cand.bound.stmt)
    return substitutable(values, [scope[n] for n in sorted(names) if n in scope])


def _block_scope_names(func: c_ast.FuncDef | None) -> set[str]:
    """Enumerators, typedef names and struct, union and enum tags declared inside ``func``."""
    out: set[str] = set()
    for n in walk(func.body) if func is not None else ():
        if isinstance(n, c_ast.Enumerator) or isinstance(n, c_ast.Typedef):
            out.add(n.name)
        elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name and \
                (n.decls if not isinstance(n, c_ast.Enum) else n.values) is not None:
            out.add(n.name)
    return out


def _type_names(node: c_ast.Node) -> set[str]:
    """The typedef names and tags ``node``'s types mention."""
    out: set[str] = set()
    for n in walk(node):
        if isinstance(n, c_ast.IdentifierType):
            out.update(n.names)
        elif isinstance(n, (c_ast.Struct, c_ast.Union, c_ast.Enum)) and n.name:
            out.add(n.name)
    return out


def _unhoisted(message: str, hoists: dict[str, Var]) -> str:
    """A reason's message with the hoisted chains' variables and the split copies' names
    written as the user wrote them."""
    for name, v in sorted(hoists.items(), key=lambda kv: -len(kv[0])):
        message = message.replace(name, c_text(v.decl.init))
    return message.replace(SPLIT_SUFFIX, "")


def _passable(decl: c_ast.Node | None) -> bool:
    """A variable the outlined function can take by value though the device cannot hold its
    type: a pointer (a pointer tree, a struct the region reads members of), or a struct of
    a named type; an array of pointers of constant length (a parameter: its first element's
    address)."""
    t = getattr(decl, "type", None)
    if isinstance(t, c_ast.PtrDecl) or isinstance(t, c_ast.ArrayDecl) and \
            isinstance(t.type, c_ast.PtrDecl) and isinstance(t.dim, c_ast.Constant):
        return True
    return isinstance(t, c_ast.TypeDecl) and (
        isinstance(t.type, c_ast.IdentifierType) or
        isinstance(t.type, (c_ast.Struct, c_ast.Union)) and bool(t.type.name))


def _shared_but_own(reason: Reason, own: frozenset[str]) -> bool:
    """A 'shared variable is written' reason about a variable of the thread's own whose
    ``thread-private`` reason already says why (``own``: those, ``ThreadUse.kept``)."""
    return reason.id == "shared-write" and any(
        reason.message.startswith(f"shared variable '{n}' ") for n in own)


def _unique(reasons: list[Reason], d: Directive) -> tuple[Reason, ...]:
    seen: dict[str, Reason] = {}
    for r in reasons:
        seen.setdefault(r.message, Reason(r.id, r.message, r.loc or d.loc))
    return tuple(seen.values())


def _definitions(funcs: dict[str, c_ast.FuncDef], library: SourceLibrary | None):
    """A function's definition by name: this file's, else another source's, else None."""
    def lookup(name: str) -> c_ast.FuncDef | None:
        if name in funcs:
            return funcs[name]
        ext = library.find(name) if library is not None else None
        return ext.fdef if ext is not None else None
    return lookup


def build_region(prog: Program, env: TypeEnv, funcs: dict[str, c_ast.FuncDef],
                 declared: set[str], cand: Candidate, rid: int,
                 teams: tuple[TeamCandidate, ...] = (), library: SourceLibrary | None = None,
                 file_scope: dict[str, Var] | None = None,
                 cands: tuple[Candidate, ...] = ()) -> Region:
    """Everything known about offloading one candidate loop; a loop that stays on the host
    only because of statements under invariant guards is versioned on them (``unswitch``)."""
    args = (prog, env, funcs, declared, cand, rid, teams, library, file_scope, cands)
    region = _build_region(*args)
    if region.offload or not region.loops:
        return region
    # pointers derived from arrays in the body, as base plus offset (``derived``)
    private = frozenset(cand.directive.names_in("private"))
    loop = punned(cand.loop, region.scope, env) or cand.loop  # type puns (``puns``)
    loop = substituted(loop, region.scope, private) or loop
    if loop is not cand.loop:
        again = _build_region(*args, loop=loop)
        if again.offload:
            return again
    # calls of functions given pointer trees, as their bodies (``inline``)
    inl = inlined(loop, region.scope, _definitions(funcs, library))
    if inl is not None:
        inl = substituted(inl, region.scope, private) or inl
        again = _build_region(*args, loop=inl)
        if again.offload:
            return again
    # calls passing structs the device cannot hold call copies taking their members
    # (``structargs``), and loop-invariant member chains are read as variables computed at
    # entry (``members``)
    split = specialized(loop, region.scope, env, prog.ast, _definitions(funcs, library))
    if split is not None:
        loop, lib = split[0], WithCopies(library, split[1])
        args = (prog, env, funcs, declared, cand, rid, teams, lib, file_scope, cands)
    found = hoisted(loop, region.scope, env, lambda body, of=assigned_members: _callee_writes(
        body, funcs, args[7], of), cand.bound.func)
    if found is not None:  # (a pointer derived from a hoisted chain: lat->data + index)
        body = substituted(found[0], region.scope | found[1] | found[2], private) or found[0]
        again = _build_region(*args, loop=body, hoists=found[1], retyped=found[2])
        if again.offload:
            return again
        # what still keeps it on the host, in the user's terms
        region = replace(region, reasons=tuple(
            Reason(r.id, _unhoisted(r.message, found[1]), r.loc) for r in again.reasons))
    # variable-length scratch arrays at a fixed capacity, checked at entry (``vla``)
    found = capped(loop, region.scope, lambda dim: is_constant_text(c_text(dim), env))
    if found is not None:
        again = _build_region(*args, loop=found[0])
        if again.offload:
            return replace(again, preconditions=again.preconditions + found[1])
    body = loop.stmt
    written = names_written(loop) | _callee_writes(body, funcs, library)  # loop vars too
    ifs = guarded_calls(body, region.scope, written)

    versions: dict[tuple[int, ...], Region] = {}  # choose's last try is the one kept

    def version(taken) -> Region:
        taken = list(taken)
        key = tuple(id(s) for s in taken)
        if key not in versions:
            versions[key] = _build_region(
                *args, loop=without(loop, {id(s) for s in taken}),
                guards=tuple(dict.fromkeys(c_text(s.cond) for s in taken)))
        return versions[key]

    chosen = choose(ifs, lambda taken: version(taken).offload)
    return region if chosen is None else version(chosen)


def _callee_writes(body: c_ast.Node, funcs: dict[str, c_ast.FuncDef],
                   library: SourceLibrary | None, of=names_written) -> set[str]:
    """Names the functions the loop calls may assign (this file's and other sources'), to a
    depth of a few calls; an unknown callee writes nothing nameable here but its globals,
    which a guard of the caller's scalars cannot be (``of``: what one body assigns, names by
    default, struct members with ``members.assigned_members``)."""
    lookup = _definitions(funcs, library)
    out: set[str] = set()
    todo = [(n.name.name, 0) for n in walk(body)
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)]
    seen: set[str] = set()
    while todo:
        name, depth = todo.pop()
        if name in seen or depth > 4:
            continue
        seen.add(name)
        f = lookup(name)
        if f is None:
            continue
        out |= of(f.body)
        todo += [(n.name.name, depth + 1) for n in walk(f.body)
                 if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)]
    return out


def _copied_in(cand: Candidate, teams: tuple[TeamCandidate, ...],
               funcs: dict[str, c_ast.FuncDef], library: SourceLibrary | None) -> set[str]:
    """The threadprivate data the loop's parallel region (or its own ``parallel for``) copies
    in and no code of it assigns, callees included: every thread's copy holds the team
    thread's value, the one the device reads."""
    bound = teams[cand.team].bound if cand.context == "region" else cand.bound
    names = set(bound.directive.names_in("copyin"))
    return names - names_written(bound.stmt) - _callee_writes(bound.stmt, funcs, library) \
        if names else set()


def _build_region(prog: Program, env: TypeEnv, funcs: dict[str, c_ast.FuncDef],
                  declared: set[str], cand: Candidate, rid: int,
                  teams: tuple[TeamCandidate, ...] = (), library: SourceLibrary | None = None,
                  file_scope: dict[str, Var] | None = None,
                  cands: tuple[Candidate, ...] = (), loop: c_ast.For | None = None,
                  guards: tuple[str, ...] = (), hoists: dict[str, Var] | None = None,
                  retyped: dict[str, Var] | None = None) -> Region:
    """One candidate loop's region (``loop``: the loop the device runs, the candidate's own
    unless unswitched on ``guards``, which must all be false for it to run; ``hoists``: the
    member chains it reads as variables, ``retyped``: the pointers whose row lengths are
    those, ``members``)."""
    b, d = cand.bound, cand.directive
    scope = visible_vars(prog.ast, b.func, b.path, b.stmt, env) | (hoists or {}) | (
        retyped or {})
    check_clause_names(d, scope)
    context = {"context": cand.context, "team": cand.team}
    values = _enumerator_values(cand, scope)  # read as their values
    loop = lowered(with_values(cand.loop if loop is None else loop, values), scope, env, b.func)
    loops = nest_of(d, loop, scope, env)
    if isinstance(loops, Reason):
        return Region(rid, b, reasons=(loops,), directive=d, scope=scope, **context)
    d = privatised(d, inner_privates(d, loops))
    body = loops[-1].loop.stmt
    info = scan_body(body, set(), IndexScope(dim_syms(loops), scope,
                                             frozenset(env.enumerators)))
    reasons = list(info.problems) + bound_reasons(loops, info) + local_type_reasons(info, env)
    calls = analyze_calls(info.calls, funcs, env, scope, declared, library, file_scope)
    through = calls.through_calls()
    tps = prog.threadprivate() & (info.scalar_reads | info.scalar_writes
                                  | {a.name for a in info.accesses} | set(through))
    view = thread_view(cand, scope, teams, cands, tps)
    reasons += threadprivate_reads(tps - _copied_in(cand, teams, funcs, library), info, through)
    conds: list[str] = []
    check = None
    updated: dict[str, Updates] = {}
    kept: frozenset[str] = frozenset()
    if view is not None:
        lookup = _definitions(funcs, library)
        updated = thread_updates(view, info, scope, through, body, lookup, env)
        use = thread_reasons(view, cand, loops, info, scope, through, lookup,
                             tuple(c.loop for c in cands if c is not cand), updated,
                             (env, file_scope or {}, rid))
        d = reduced_into(privatised(d, use.privatised), use.reduced)
        reasons += use.reasons
        conds, check, kept = list(use.conditions), use.check, use.kept
    sharing = classify_sharing(d, loops, info, calls, scope, env, set(funcs), b.func,
                               frozenset(n for n, u in updated.items() if u.exact),
                               _definitions(funcs, library))
    # the region's own copies of file-scope variables (threadprivate ones aside: every
    # thread's storage is its own under the one name)
    own = frozenset(view.private - set(tps)) if view is not None else frozenset()
    used, local_reasons = outlined_locals(cand, scope, own, values)
    used += [v for v in sharing.scalars if (v.storage not in (Storage.GLOBAL,
                                                              Storage.GENERATED)
                                            or v.name in own) and v not in used]
    reasons += list(calls.reasons) + [x for x in sharing.reasons if not _shared_but_own(
        x, kept)] + local_reasons
    callees = [funcs[f] if f in funcs else calls.external[f].fdef for f in calls.functions
               if f in funcs or f in calls.external]
    reasons += filter(None, [volatile_reason(body, callees, scope, env),
                             dialect_reason(prog.ast, prog.diverging, b.func, callees)])
    return Region(rid, b, loops, sharing.arrays, sharing.scalars, sharing.privates,
                  sharing.lastprivates, sharing.reductions, calls.functions, tuple(used),
                  _unique(reasons, d), d, scope, **context, calls=calls,
                  preconditions=tuple(conds) + tuple(f"!({g})" for g in guards),
                  guards=guards, inspections=sharing.inspections,
                  hoists=tuple((hoists or {}).values()),
                  scratch_check=check,
                  threadprivates=tuple(sorted(tps)),
                  **_updated_fields(updated, sharing))


def _updated_fields(updated: dict[str, Updates], sharing: Sharing) -> dict:
    """The Region fields of the arrays updated by device atomics: a thread's arrays whose
    updates commute exactly, and arrays in reduction clauses (any order allowed); those
    of them whose sums may be grouped in any way (reduction clauses, accumulators, arrays
    only merged after the loop); the pairs of arrays that must be other memory."""
    reduced = sharing.reduced or {}
    exact = {n: u for n, u in updated.items() if u.exact} | reduced
    return {"updated": tuple(sorted(exact)), "distinct": sharing.distinct,
            "updated_params": tuple(dict.fromkeys(p for u in exact.values() for p in u.params)),
            "reassociable": tuple(sorted(set(reduced) | {n for n, u in exact.items()
                                                         if u.regroup}))}


def analyze(prog: Program, library: SourceLibrary | None = None) -> RegionAnalysis:
    """Analyse every OpenMP work-sharing loop and parallel region of a program; callees
    defined elsewhere are looked up in ``library``."""
    env = TypeEnv.of(prog.ast)
    funcs, library = lowered_functions(prog.ast, env, library)  # memset/memcpy as loops
    declared = {e.name for e in prog.ast.ext if isinstance(e, c_ast.Decl)}
    file_scope = visible_vars(prog.ast, None, (), prog.ast, env)
    scan = find_candidates(prog)
    regions = tuple(build_region(prog, env, funcs, declared, cand, rid, scan.teams, library,
                                 file_scope, scan.candidates)
                    for rid, cand in enumerate(scan.candidates))
    teams = []
    for tid, tc in enumerate(scan.teams):
        b = tc.bound
        scope = visible_vars(prog.ast, b.func, b.path, b.stmt, env)
        check_clause_names(b.directive, scope)
        teams.append(team_of(tid, tc, [regions[k] for k in tc.loops], scope, prog,
                             _definitions(funcs, library)))
    remarks = tuple(not_offloaded(loc, (why,)) for loc, why in scan.skipped)
    return RegionAnalysis(regions, remarks, tuple(teams))
