"""Shared host loops: a team's offloaded loop compiled once for both of its host paths.

Consumes a team's ``HostRegion`` (its region, splice range and host interface) and the
program text; produces, when the loop can be moved out of its function unchanged, a
``HostLoop``: a static function holding the loop's original text (directive and all, an
orphaned ``omp for``) and the statement calling it. The team's original region calls it
where the loop stood (the ``omp for`` binds to the region's team, as before), and the team of
one's host path calls it inside a ``parallel`` of its own; without it the translated file
holds the loop twice and the compiler optimises both (translated files took twice as long to
compile as their originals).

The loop moves only when its text means the same in the new function: every variable of
its function it names is private to the loop (the function declares its own, as the
``private`` clause did) or a read-only value or array the interface already passes (a
parameter under the same name, never its address or size); its function declares no types
or functions and has no preprocessor lines up to the loop's end (macros and conditionals
stay what they were). Otherwise ``None``: the loop stays duplicated, as before.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from ..analysis.ctypes_ import C_PRINTER
from ..analysis.ctypes_ import renamed_type, walk
from ..analysis.localtypes import mentions_lifted
from ..analysis.bodyscan import scan_body
from ..analysis.loops import loop_start
from ..analysis.scalarupdates import update_operator
from ..analysis.teams import region_private
from ..frontend.program import Program
from ..frontend.textscan import IDENT, Scanner
from ..ir import BoundDirective, Region, Var
from . import names as N

_GEN = C_PRINTER
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*([A-Za-z_]\w*)", re.M)
#: clauses giving a variable of the loop's function a value when the loop ends
_WRITTEN_BACK = ("lastprivate", "linear", "reduction", "copyprivate")
OMP_FOR = re.compile(r"\bomp\s+for\b")
NOWAIT = re.compile(r"\bnowait\b")
_CONDITIONAL = {"if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif"}


@dataclass(frozen=True)
class HostLoop:
    """A team loop's host code as a function of its own."""

    definition: str  # placed before the enclosing function's declaration
    args: str        # the call's arguments
    #: the variables of the region it has copies of: the original region still names them
    #: (their declarations would otherwise be unused; those of the enclosing function are
    #: named before the region, where ``default(none)`` does not apply)
    touched: tuple[str, ...] = ()
    outer: tuple[str, ...] = ()  # those declared before the region

    def call(self, rid: int) -> str:
        return f"{N.host_loop(rid)}({self.args});"

    def region_call(self, rid: int) -> str:
        """The call in the original region, in place of the loop."""
        return "{ " + "".join(f"(void){x}; " for x in self.touched) + self.call(rid) + " }"


def host_loop(prog: Program, hr, scan: Scanner, args: str, team: BoundDirective
              ) -> HostLoop | None:
    """The shared host function of loop ``hr`` (a ``codegen.host.HostRegion``; ``args``: its
    interface's call arguments) of the region ``team``, or None when its text would not mean
    the same outside its function. The function declares its own copy of every variable
    private to the region's threads that the loop names (whatever its storage: a privatised
    file-scope array too), as each thread of the region has one."""
    r: Region = hr.region
    if _nested(prog, r.bound.stmt, team.stmt):
        return None   # the compiler checks the nesting of constructs lexically
    params = hr.interface.params
    func = r.bound.func
    rg = hr.splice
    if func is None or any(p.role not in ("value", "array") for p in params):
        return None   # the loop assigns a variable of its function that outlives it
    if _declares_types(func.body) or mentions_lifted(func.body) or \
            not _same_macros(prog.source, rg):
        return None   # (the moved text names the function's types: its own, not the copies)
    if any(r.bound.directive.clause(c) for c in _WRITTEN_BACK):
        return None   # the loop's clause assigns a variable of its function
    if any(r.scope.get(x) is None or r.scope[x].storage != "global"
           for x in r.bound.directive.names_in("firstprivate")):
        return None   # a parameter is private to its thread: no firstprivate of it
    passed = {p.var.name for p in params}
    text = prog.source[rg.start:rg.end]
    named = _names(r.bound.stmt) | set(IDENT.findall(r.bound.directive.text)) | set(
        IDENT.findall(text[:scan.line_end(rg.start) - rg.start]))   # clauses: a chunk size
    if _address_or_size(r.bound.stmt, passed) or not passed <= named:
        return None   # a parameter the loop does not name (default(none) may not list it)
    # the clause's and the work-shared loops' variables (predetermined private)
    private = set(r.directive.names_in("private")) | {d.var for d in r.loops}
    inside = {id(n) for n in walk(team.stmt)}
    thread_own = region_private(team, r.scope) - set(r.threadprivates)
    own, touched, outer = [], [], []
    for name in sorted(named):
        v = r.scope.get(name)
        if v is None or name in passed:
            continue   # passed by value
        at_file = v.storage == "global"
        if at_file and (name not in thread_own or name in r.threadprivates):
            continue   # the one shared object, or each thread's own: named as it is
        if name not in private or v.decl is None or _unbound_ids(v, r.scope) or \
                name in r.threadprivates:
            return None   # the thread's copy carries a value in or out: only its region sees
            # it; or a variable of the function (a static) the new function cannot name
        own.append(f"{declaration(v, name)} (void){name};")  # its own copy
        if v.storage in ("local", "param"):
            (touched if id(v.decl) in inside else outer).append(name)
    signature = ", ".join(_GEN.visit(p.decl) for p in params) or "void"
    uses = " ".join(f"(void){p.var.name};" for p in params)
    path = prog.path.replace("\\", "\\\\").replace('"', '\\"')
    definition = (
        f"/* {r.loc}: the host code of this loop, shared by the original region and the "
        f"host path of its\n * device version (a team of one) */\n"
        f"static __attribute__((noinline)) void {N.host_loop(r.id)}({signature})\n{{\n"
        + "".join(f"  {d}\n" for d in own) + (f"  {uses}\n" if uses else "")
        + f'#line {scan.line_of(rg.start)} "{path}"\n{text}\n}}\n')
    return HostLoop(definition, args, tuple(touched), tuple(outer))


def serial_directive(r: Region, team: BoundDirective, text: str) -> str:
    """The directive ``text`` (its lines, continuations included) of a team's loop that stays on the host (``r``), rewritten
    for the team of one: a ``parallel for`` of its own with the loop's clauses (an orphaned
    ``omp for`` there would run on one thread, and some of its clauses do not compile
    outside a parallel region), ``nowait`` dropped, and every variable of the region's
    threads the loop names private to each new thread: firstprivate (each starts from the
    team thread's value) and lastprivate where the loop assigns it (the value after the loop
    is the last iteration's), a reduction of the region in its own operator; one the loop
    folds values into, a reduction in that operator; and where an iteration reads another
    value an earlier one left, the one thread of the team of one (``_carried``)."""
    d = r.bound.directive
    given = {x for c in ("private", "firstprivate", "lastprivate", "linear", "reduction",
                         "copyprivate") for cl in d.clause(c) for x in cl.args}
    reduced = {a: c.op for c in team.directive.clause("reduction") for a in c.args}
    names = (_names(r.bound.stmt) & region_private(team, r.scope)) - given - _loop_vars(
        r.bound.stmt, d) - set(r.threadprivates)
    written = _assigned(r.bound.stmt)
    folds = _carried(r.bound.stmt, [n for n in names if n not in reduced and n in written])
    firsts = sorted(n for n in names if n not in reduced and n not in folds)
    clauses = [f"reduction({reduced[n]}:{n})" for n in sorted(names) if n in reduced]
    clauses += [f"reduction({op}:{n})" for n, op in sorted(folds.items()) if op]
    clauses += [f"firstprivate({', '.join(firsts)})"] if firsts else []
    lasts = [n for n in firsts if n in written]
    clauses += [f"lastprivate({', '.join(lasts)})"] if lasts else []
    clauses += ["num_threads(1)"] if None in folds.values() else []
    copied = sorted(set(r.threadprivates) & _names(r.bound.stmt))
    clauses += [f"copyin({', '.join(copied)})"] if copied else []
    text = NOWAIT.sub("", OMP_FOR.sub("omp parallel for", text, count=1))
    return text.rstrip() + "".join(" " + c for c in clauses)


def _carried(loop: c_ast.Node, names: list[str]) -> dict[str, str | None]:
    """The region thread's variables among ``names`` (those the loop assigns) whose values
    an iteration reads from an earlier one: each with the operator the loop folds values
    into it by (``analysis.scalarupdates``: a reduction of the new threads), or None when
    it is used otherwise (the team of one's thread then runs the whole loop, as one thread
    of the region's team would run its share: ``num_threads(1)``)."""
    body = loop.stmt if isinstance(loop, c_ast.For) else loop
    live = scan_body(body).live_in
    return {n: update_operator(n, body) for n in names if n in live}


def _loop_vars(stmt: c_ast.Node, d) -> set[str]:
    """The iteration variables of the loops a work-sharing directive ``d`` binds (collapse)."""
    depth = next((int(c.args[0]) for c in d.clause("collapse")
                  if c.args and c.args[0].isdigit()), 1)
    out = set()
    for _ in range(depth):
        start = loop_start(stmt) if isinstance(stmt, c_ast.For) else None
        if start is None:
            break
        out.add(start[0])
        body = stmt.stmt
        while isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
            body = body.block_items[0]
        stmt = body
    return out


def _assigned(node: c_ast.Node) -> set[str]:
    """The variables ``node`` assigns, or whose elements or members it assigns."""
    targets = [n.lvalue for n in walk(node) if isinstance(n, c_ast.Assignment)] + [
        n.expr for n in walk(node) if isinstance(n, c_ast.UnaryOp) and n.op in (
            "++", "--", "p++", "p--")]
    out = set()
    for t in targets:
        while isinstance(t, (c_ast.ArrayRef, c_ast.StructRef)):
            t = t.name
        if isinstance(t, c_ast.ID):
            out.add(t.name)
    return out


def _same_macros(src: str, rg) -> bool:
    """Whether the loop's text means the same before its function: no macro is defined,
    undefined or included in the function up to the loop's end, and the loop's own text
    holds whole conditionals only. (The conditionals the loop lies in are true: the loop
    was parsed.)"""
    depth = 0
    for m in _DIRECTIVE.finditer(src, rg.func_start, rg.end):
        word = m.group(1)
        if word == "pragma":
            continue
        if word not in _CONDITIONAL:
            return False   # define, undef, include, line, ...
        if m.start() >= rg.start:
            if word.startswith("if"):
                depth += 1
            elif word == "endif":
                depth -= 1
            elif depth == 0:
                return False   # an #else or #elif of a conditional the loop lies in
            if depth < 0:
                return False
    return depth == 0


def _nested(prog: Program, loop: c_ast.Node, team: c_ast.Node) -> bool:
    """Whether ``loop`` lies in a construct of ``team`` other than its own."""
    return any(b.stmt is not loop and b.stmt is not team and
               any(n is loop for n in walk(b.stmt)) for b in prog.constructs)


def _names(node: c_ast.Node) -> set[str]:
    """The identifiers ``node`` names (struct fields aside)."""
    fields = {id(n.field) for n in walk(node) if isinstance(n, c_ast.StructRef)}
    return {n.name for n in walk(node) if isinstance(n, c_ast.ID) and id(n) not in fields}


def _declares_types(body: c_ast.Node) -> bool:
    """Whether a function body declares a type, tag, enumerator or function: the moved loop,
    outside the body, could not name it."""
    for n in walk(body):
        if isinstance(n, c_ast.Typedef) or isinstance(n, c_ast.Enum) and n.values is not None:
            return True
        if isinstance(n, (c_ast.Struct, c_ast.Union)) and n.decls is not None:
            return True
        if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.FuncDecl):
            return True
    return False


def _address_or_size(node: c_ast.Node, passed: set[str]) -> bool:
    """Whether ``node`` takes the address or size of a passed variable (the parameter's
    would differ from the caller's variable's)."""
    for n in walk(node):
        if isinstance(n, c_ast.UnaryOp) and n.op in ("&", "sizeof", "_Alignof"):
            inner = n.expr
            if n.op == "&" and isinstance(inner, c_ast.ID) and inner.name in passed:
                return True
            if n.op != "&" and _names(inner) & passed:
                return True
    return False


def _unbound_ids(v: Var, scope: dict[str, Var]) -> bool:
    """Whether the declared type of ``v`` names a variable outside file scope (a VLA)."""
    return any(isinstance(n, c_ast.ID) and (scope.get(n.name) is None or
                                            scope[n.name].storage != "global")
               for n in walk(v.decl.type))


def declaration(v: Var, name: str, init: str = "") -> str:
    """A declaration of ``name`` with the type of ``v`` (uninitialised unless ``init``)."""
    t = renamed_type(v.decl.type, name)
    text = _GEN.visit(c_ast.Decl(name, list(v.decl.quals or []), [], [], [], t, None, None))
    return text + (f" = {init}" if init else "") + ";"
