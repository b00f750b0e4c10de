"""Host accesses: what memory the host code of a translated function may touch, statement by
statement, so that data can stay on the device across kernels, loops and calls.

Consumes the program, its offloaded regions and teams; produces a ``HostPlan``: the functions
whose host code is *instrumented* and, per function, a ``Probe`` before each host statement:
the memory it may read or write, as C expressions of an address and a byte count evaluated
just before the statement (a single element where its address is known then, a whole named
array where not, any memory where neither), and the instrumented function it calls, if any.

The runtime keeps every array where the last kernel left it; a probe makes the host copy of
what the statement touches valid first (a partial copy) and marks what it may write stale on
the device. A function is instrumented when it runs kernels or calls functions that may (its
callers then know the data may be on the device); it tells the runtime when it is entered
and left, and its callers announce calls to it, so that leaving it for a caller that is not
instrumented makes every host copy valid. A statement whose accesses cannot be described
gets an "any memory" probe: a missed fact costs copies, never a wrong answer. A function
whose statements cannot all be probed (text from macros, accesses in loop headers, switch
statements around kernels, a statement whose accesses C orders after a call in it that may
run kernels: ``y[0] = f(y)``, ``(f(y), y[0])``) is not instrumented: its regions keep the
per-block residency of ``analysis.residency``.

The parts: ``hostvars`` (what each name is), ``hostexprs`` (the accesses of one statement's
expressions), ``hoststmts`` (a probe before each statement of one function); this module
chooses the functions to instrument and plans them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast

from ..frontend.program import Program
from ..frontend.siblings import ask, has_omp_directive, text_of
from ..frontend.textscan import ScanError
from ..ir import Region, Team
from . import libcalls
from .builtins import is_math
from .ctypes_ import TypeEnv, walk
from .hostexprs import call_name
from .hoststmts import NotProbed, Planner, TextMap
from .hostvars import Var, file_globals
from .summaries import NO_MEMORY as _NO_MEMORY
from .summaries import FileScope, summarize


@dataclass(frozen=True)
class FunctionPlan:
    """An instrumented function: its body's braces (text offsets), probes and returns."""

    func: c_ast.FuncDef
    open: int
    close: int
    probes: tuple
    returns: tuple
    marker: bool  # visible to other files: defines the symbol that says it is instrumented


@dataclass(frozen=True)
class HostPlan:
    functions: tuple[FunctionPlan, ...] = ()
    externs: tuple[str, ...] = ()  # functions of other files whose markers are referenced
    not_instrumented: dict[str, str] = field(default_factory=dict)  # name -> why
    teams: frozenset = frozenset()  # teams whose device versions are probed too
    objects: tuple[str, ...] = ()  # file-scope arrays the runtime learns (host_object)

    def instrumented(self, name: str) -> bool:
        return any(f.func.decl.name == name for f in self.functions)



# -- the plan --------------------------------------------------------------------------------


def _grow(funcs: dict[str, c_ast.FuncDef], instrumented: set[str], classify,
          failed: dict[str, str]) -> None:
    """Add the functions that call instrumented ones (or may: in other files), to a fixpoint."""
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name not in instrumented and name not in failed and any(
                    isinstance(n, c_ast.FuncCall) and classify(call_name(n) or "") in (
                        "instrumented", "extern") for n in walk(f.body)):
                instrumented.add(name)
                changed = True


def _pure_functions(funcs: dict[str, c_ast.FuncDef], instrumented: set[str]) -> set[str]:
    """This file's functions that touch no memory but their own scalars (no subscripts,
    member accesses or dereferences; calls only to such functions and the math library)."""
    pure: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name in pure or name in instrumented:
                continue
            ok = True
            for n in walk(f.body):
                if isinstance(n, (c_ast.ArrayRef, c_ast.StructRef)) or (
                        isinstance(n, c_ast.UnaryOp) and n.op in ("*", "&")):
                    ok = False
                elif isinstance(n, c_ast.FuncCall):
                    callee = call_name(n)
                    ok = callee is not None and (is_math(callee) or callee in pure or (
                        callee in _NO_MEMORY and callee not in ("exit", "abort")) or
                        libcalls.LIBRARY.get(callee, (None,)) == ())
                if not ok:
                    break
            if ok:
                pure.add(name)
                changed = True
    return pure


def _braces(text: TextMap, f: c_ast.FuncDef) -> tuple[int, int]:
    """Offsets of a function body's braces."""
    open_ = text.offset(f.body)
    if text.prog.source[open_:open_ + 1] != "{":
        raise NotProbed("its body comes from a macro expansion")
    try:
        return open_, text.scan.match(open_, "{", "}") - 1
    except ScanError as e:
        raise NotProbed(str(e)) from None


def _visible(f: c_ast.FuncDef) -> bool:
    return "static" not in (f.decl.storage or [])


class _Externs:
    """Which functions of other files may be instrumented there: defined in one of the
    program's sources that holds an OpenMP directive (a text search; the linked markers
    decide at run time)."""

    def __init__(self, library):
        self.library = library
        self.cache: dict[str, bool] = {}

    def possible(self, name: str) -> bool:
        if self.library is None:
            return False
        if name not in self.cache:
            self.cache[name] = ask("defines-with-omp", self.library.candidates(), name)
        return self.cache[name]


def _own_scope(globals_: dict[str, Var]) -> FileScope:
    """What this file's callers can say of its file-scope objects (``summaries.FileScope``):
    its arrays by name; its scalars never have a device copy."""
    return FileScope(frozenset(n for n, v in globals_.items() if v.kind == "array"),
                     frozenset(n for n, v in globals_.items() if v.kind == "scalar"))


def _other_scope(ast: c_ast.FileAST, env: TypeEnv) -> FileScope:
    """The same for another source without OpenMP directives: its arrays other files can name
    (not static); its scalars, and its static arrays whose address never leaves their
    subscripts (only that file's code reaches them, and it runs no kernel), are ignored."""
    names, ignored = set(), set()
    static = {e.name for e in ast.ext
              if isinstance(e, c_ast.Decl) and "static" in (e.storage or [])}
    for name, v in file_globals(ast, env).items():
        if v.kind == "scalar":
            ignored.add(name)
        elif v.kind == "array" and name not in static:
            names.add(name)
        elif v.kind == "array" and not _escapes(ast, name):
            ignored.add(name)
    return FileScope(frozenset(names), frozenset(ignored))


def _escapes(ast: c_ast.FileAST, name: str) -> bool:
    """Whether a file-scope array's address may leave its own subscripts (a use of the
    name other than ``name[...]`` or ``sizeof``)."""
    bases, sized = set(), set()
    for n in walk(ast):
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID):
            bases.add(id(n.name))
        elif isinstance(n, c_ast.UnaryOp) and n.op == "sizeof":
            sized |= {id(m) for m in walk(n.expr)}
    return any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in bases
               and id(n) not in sized for n in walk(ast))


class _Summaries:
    """Summaries (``analysis.summaries``) of the functions host code calls that are not
    instrumented: this file's, and those of the program's other sources that have no OpenMP
    directive (the library finds them)."""

    def __init__(self, funcs: dict, here: FileScope, instrumented: set[str], library, env):
        self.funcs, self.here, self.instrumented = funcs, here, instrumented
        self.library, self.env = library, env
        self.memo: dict[str, tuple | None] = {}
        self.scopes: dict[str, FileScope | None] = {}

    def find(self, name: str):
        if name in self.funcs:
            return None if name in self.instrumented else (self.funcs[name], self.here)
        if self.library is None:
            return None
        ext = self.library.find(name)
        if ext is None:
            return None
        if ext.path not in self.scopes:
            text = text_of(Path(ext.path)) or ""
            directives = has_omp_directive(text)
            self.scopes[ext.path] = None if directives else _other_scope(
                ext.ast, TypeEnv.of(ext.ast))
        scope = self.scopes[ext.path]
        return None if scope is None else (ext.fdef, scope)

    def __call__(self, name: str):
        """(summary, definition) of ``name``, or None: it may touch any memory."""
        if name not in self.memo:
            found = self.find(name)
            summary = summarize(found[0], found[1], self.find) if found else None
            self.memo[name] = (summary, found[0]) if summary is not None else None
        return self.memo[name]


def plan_host(prog: Program, regions: tuple[Region, ...], teams: tuple[Team, ...],
              library=None) -> HostPlan:
    """Instrument the functions that run kernels or call functions that may (see module)."""
    env = TypeEnv.of(prog.ast)
    funcs = {e.decl.name: e for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)}
    defined_here = {e.decl.name for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)}
    device = {id(r.bound.stmt) for r in regions if r.offload}
    team_of = {id(t.bound.stmt): t for t in teams if t.offload}
    device_funcs = {r.bound.func.decl.name for r in regions if r.offload and r.bound.func} | {
        t.bound.func.decl.name for t in teams if t.offload and t.bound.func}
    externs = _Externs(library)
    globals_ = file_globals(prog.ast, env)
    here = _own_scope(globals_)
    text = TextMap(prog)
    # functions other files may call that read or write arrays this file's kernels use: their
    # callers may announce them instead of syncing everything before each call
    kernel_arrays = {a.name for r in regions if r.offload for a in r.arrays
                     if a.var.storage == "global"}
    device_funcs |= {n for n, f in funcs.items() if _visible(f) and any(
        isinstance(x, c_ast.ID) and x.name in kernel_arrays for x in walk(f.body))}
    instrumented = set(device_funcs)
    why: dict[str, str] = {}
    used_externs: set[str] = set()
    pure: set[str] = set()

    def classify(name: str) -> str:
        if name in instrumented:
            return "instrumented"
        if name in pure:
            return "pure"
        if name not in defined_here and externs.possible(name):
            return "extern"
        return "unknown"

    plans: dict[str, FunctionPlan] = {}
    while True:
        _grow(funcs, instrumented, classify, why)
        pure = _pure_functions(funcs, instrumented)
        plans, failed, probed_teams = {}, None, set()
        summaries = _Summaries(funcs, here, instrumented, library, env)
        for name in [n for n in funcs if n in instrumented]:
            planner = Planner(prog, env, globals_, device, classify, text, team_of, summaries)
            try:
                planner.function(funcs[name])
                open_, close = _braces(text, funcs[name])
            except NotProbed as e:
                why[name], failed = str(e), name
                break
            plans[name] = FunctionPlan(funcs[name], open_, close, tuple(planner.probes),
                                       tuple(planner.returns), _visible(funcs[name]))
            probed_teams |= planner.probed_teams
        if failed is None:
            break
        instrumented = set(device_funcs) - set(why)  # its callers assumed it: plan again
    for p in plans.values():
        used_externs |= {q.announce for q in p.probes if q.extern and q.announce}
        used_externs |= {g for q in p.probes for g in q.guards}
    ordered = tuple(plans[n] for n in funcs if n in plans)
    objects = _known_objects(prog) if ordered else ()
    return HostPlan(ordered, tuple(sorted(used_externs)), why, frozenset(probed_teams), objects)


def _known_objects(prog: Program) -> tuple[str, ...]:
    """The file-scope arrays of known size this file defines or declares (not thread-private:
    each thread has its own), for the runtime's table of objects."""
    tp = prog.threadprivate()
    return tuple(dict.fromkeys(
        e.name for e in prog.ast.ext if isinstance(e, c_ast.Decl) and e.name
        and isinstance(e.type, c_ast.ArrayDecl) and e.type.dim is not None
        and e.name not in tp and e.coord is not None and e.coord.file == prog.path))