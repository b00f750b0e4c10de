"""The state of the body scan (``analysis.bodyscan``) and what it asks of it: what names
mean (bindings and block-level definitions), their index forms, and the nesting of
statements, guards and code that may not run.

Consumes the ``Scan`` records defined here; produces bindings, index forms and constraints.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from ..ir import Affine, Constraint, Sym, SymKind
from .accesses import Atomic, IndexScope, InnerLoop, RawAccess, names_written
from .index import constraints, expr_symbol, form



@dataclass(frozen=True)
class Names:
    """What names mean where the walk is (updated in place as it goes): each name's binding
    (``('local', decl id)``, ``('loop', Sym, outer)`` or ``('param', name)``), the current
    definition of each binding, the bindings written per nested statement, and the guards
    on the way."""

    env: dict[str, tuple]
    defs: dict[tuple, Affine | None] = field(default_factory=dict)
    frames: list[set] = field(default_factory=lambda: [set()])
    guards: list[Constraint] = field(default_factory=list)


@dataclass(frozen=True)
class Uses:
    """What the body reads and writes of outer data (grows as the walk goes)."""

    acc: list[RawAccess] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    ptr_uses: set[str] = field(default_factory=set)
    live_in: set[str] = field(default_factory=set)
    plain_writes: set[str] = field(default_factory=set)  # written outside atomic statements
    atomics: list[Atomic] = field(default_factory=list)
    atomic_reads: list[SourceLoc] = field(default_factory=list)  # 'omp atomic read's


@dataclass(frozen=True)
class Parts:
    """The body's own parts (grows as the walk goes): calls, loops (and the canonical inner
    ones), declarations and names declared, and problems."""

    declared: set[str]
    calls: list[tuple[str, c_ast.FuncCall]] = field(default_factory=list)
    loops: list[c_ast.For] = field(default_factory=list)
    inner: list[InnerLoop] = field(default_factory=list)
    decls: list[c_ast.Decl] = field(default_factory=list)
    problems: list[Reason] = field(default_factory=list)


@dataclass
class Flow:
    """Where the walk is in the body's control flow (changes as it goes)."""

    assigned: set[str] = field(default_factory=set)  # outer names surely assigned so far
    no_defs: int = 0  # inside a switch: labels make block-level definitions unsafe
    in_atomic: bool = False
    passing: tuple | None = None  # the call an element address is passed to


@dataclass(frozen=True)
class Scan:
    """One walk: the index scope (None: no index forms), the names and arrays the whole body
    writes, and the records above."""

    index: IndexScope | None
    body_writes: set[str]
    body_arrays_written: set[str]
    names: Names
    uses: Uses
    parts: Parts
    flow: Flow


def _replace(d: dict, new: dict) -> None:
    d.clear()
    d.update(new)


def problem(sc: Scan, node: c_ast.Node, id: str, msg: str) -> None:
    loc = SourceLoc.of(node)
    sc.parts.problems.append(Reason(id, f"{msg} (line {loc.line})", loc))


# -- names, definitions and index forms -------------------------------------------------

def is_local(sc: Scan, name: str) -> bool:
    return name in sc.names.env and sc.names.env[name][0] != "loop"


def own(sc: Scan, name: str) -> bool:
    """Whether ``name`` is the body's own: a local, or the variable of a loop that is not
    an outer variable (the region's loops, a loop declaring its variable)."""
    b = sc.names.env.get(name, ("",))
    return is_local(sc, name) or b[0] == "loop" and not (len(b) > 2 and b[2])


def binding_key(sc: Scan, name: str) -> tuple:
    b = sc.names.env.get(name)
    return b if b is not None and b[0] != "loop" else ("outer", name)


def note_write(sc: Scan, name: str) -> None:
    key = binding_key(sc, name)
    for f in sc.names.frames:
        f.add(key)
    sc.names.defs.pop(key, None)


def resolve(sc: Scan, name: str) -> Affine | None:
    b = sc.names.env.get(name)
    if b is not None and b[0] == "loop":
        return Affine.of(b[1])
    if b is not None:
        return sc.names.defs.get(b)
    if sc.index is None:
        return None
    if name in sc.body_writes:
        return sc.names.defs.get(("outer", name))
    if name in sc.index.dims:
        return Affine.of(sc.index.dims[name])
    v = sc.index.scope.get(name)
    if v is not None and v.ctype.is_scalar and v.ctype.base not in ("float", "double"):
        return Affine.of(Sym(SymKind.VAR, name, id(v.decl), v))
    if name in sc.index.enumerators:
        return Affine.of(Sym(SymKind.EXPR, name, name))
    return None


def invariant_name(sc: Scan, name: str) -> bool:
    if sc.index is None or name in sc.names.env or name in sc.body_writes:
        return False
    return name in sc.index.scope or name in sc.index.enumerators


def invariant_memory(sc: Scan, name: str) -> bool:
    """A statically sized array the body does not write, in a body that writes through
    no pointer (which could alias it): its elements are loop-invariant."""
    v = sc.index.scope.get(name) if sc.index is not None else None
    if v is None or v.ctype.pointer or not v.ctype.dims or name in sc.names.env:
        return False
    if name in sc.body_arrays_written:
        return False
    return not any(sc.index.scope[a].ctype.pointer for a in sc.body_arrays_written
                   if a in sc.index.scope)


def invariant(sc: Scan, e: c_ast.Node) -> Sym | None:
    if sc.index is None:
        return None
    return expr_symbol(e, partial(invariant_name, sc), partial(invariant_memory, sc))


def index_form(sc: Scan, e: c_ast.Node) -> Affine | None:
    return form(e, partial(resolve, sc), partial(invariant, sc)) if sc.index is not None \
        else None


def facts(sc: Scan, cond: c_ast.Node, positive: bool) -> list[Constraint]:
    if sc.index is None:
        return []
    return constraints(cond, positive, partial(resolve, sc), partial(invariant, sc))


@contextmanager
def nested(sc: Scan, writes_in: c_ast.Node | None = None):
    """A nested statement: its declarations end with it, and the definitions it writes
    (or, for a loop, that its body may write before a use) stop reaching after it."""
    env, saved = dict(sc.names.env), dict(sc.names.defs)
    if writes_in is not None:  # a loop: later iterations may see any write in it
        for name in names_written(writes_in):
            saved.pop(binding_key(sc, name), None)
            sc.names.defs.pop(binding_key(sc, name), None)
    sc.names.frames.append(set())
    try:
        yield
    finally:
        written = sc.names.frames.pop()
        sc.names.frames[-1] |= written
        _replace(sc.names.env, env)
        _replace(sc.names.defs, {k: v for k, v in saved.items() if k not in written})


@contextmanager
def guarded(sc: Scan, facts: list[Constraint]):
    sc.names.guards.extend(facts)
    try:
        yield
    finally:
        del sc.names.guards[len(sc.names.guards) - len(facts):]


@contextmanager
def maybe(sc: Scan):
    """Code that may not run: what it assigns is not surely assigned after it."""
    saved = set(sc.flow.assigned)
    try:
        yield
    finally:
        sc.flow.assigned = saved
