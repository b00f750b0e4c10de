"""Replicated code of a ``parallel`` region: what every thread of the team runs (outside its
work-sharing loops and its ``single``, ``master``, ``masked`` and ``sections`` blocks, the
functions it calls included), which the region's device version, a team of one, runs once.

Consumes the region's statement, the names private to each thread and a way to find called
functions; produces why running that code once could leave shared state other than the team
leaves it (``Reason``s, id ``team-replicated``), or nothing:

- an update of a shared scalar (``n++``, ``t += x``, ``t = t * x``, a ``reduction`` variable
  of the region too) counts the threads, unless it merges a thread's partial result:
  ``t op= p`` with ``p`` a scalar of the thread that starts at the operator's identity (0 for
  ``+``, ``|``, ``^``; 1 for ``*``; ``~0`` for ``&``) and that only the region's work-sharing
  loops change, each by folding values into it with the same operator (so the team of one
  folds the whole loop into its one copy and merges it once);
- output (``printf`` and the C library's other writers) prints once per thread.

A variable that nothing reads but its own updates (a static or local counter nothing prints)
may count anything.

A ``max``/``min`` merge (``if (p > m) m = p;``) and other plain assignments store the same
however often they run; values that depend on the thread are weighed by ``analysis.teams``.
An array element may also merge an element of another array (``q[k] += qq[k]``, rows of
per-thread accumulators: ``analysis.accumulators``); whether that array holds a partial that
starts at zero is not checked.
"""
from __future__ import annotations

from collections.abc import Callable

from pycparser import c_ast

from ..diagnostics import Reason, SourceLoc
from .accesses import atomic_form
from .ctypes_ import c_text, mentions, uncast, walk
from .scalarupdates import OPERATOR_CLASS, update_operator

#: directives whose statement is not replicated (the team shares it out, or one thread runs it)
_SHARED_OUT = {"for", "single", "master", "masked", "sections", "section", "loop",
               "distribute", "taskloop"}
#: C library functions that write output
_OUTPUT = {"printf", "fprintf", "vprintf", "vfprintf", "puts", "fputs", "putchar", "putc",
           "fputc", "fwrite", "write", "perror", "dprintf"}
_IDENTITY = {"+": 0, "|": 0, "^": 0, "*": 1, "&": -1}


def _shared_out(pragma: c_ast.Pragma) -> bool:
    words = pragma.string.replace("(", " ").split()
    if not words or words[0] != "omp":
        return False
    kind = words[2] if len(words) > 2 and words[1] in ("parallel", "target", "teams") \
        else words[1] if len(words) > 1 else ""
    return kind in _SHARED_OUT


def _parts(stmt: c_ast.Node) -> tuple[list[c_ast.Node], list[c_ast.Node]]:
    """The replicated statements of ``stmt`` and the statements the team shares out."""
    shared: list[c_ast.Node] = []
    skip: set[int] = set()
    for n in walk(stmt):
        items = n.block_items if isinstance(n, c_ast.Compound) else None
        for k, item in enumerate(items or []):
            if isinstance(item, c_ast.Pragma) and _shared_out(item) and k + 1 < len(items):
                shared.append(items[k + 1])
                skip.update(id(x) for x in walk(items[k + 1]))
    return [n for n in walk(stmt) if id(n) not in skip], shared


def _target(lvalue: c_ast.Node) -> str | None:
    """The variable a scalar target names (``x``, ``s.count``), else None (an element)."""
    while isinstance(lvalue, c_ast.StructRef) and lvalue.type == ".":
        lvalue = lvalue.name
    return lvalue.name if isinstance(lvalue, c_ast.ID) else None


def _from_arrays(e: c_ast.Node | None, op: str) -> bool:
    """``e`` combines only array elements by ``op`` (``hh[i] + tp[i]``; ``-`` with ``+``)."""
    e = uncast(e) if e is not None else None
    if isinstance(e, c_ast.BinaryOp) and OPERATOR_CLASS.get(e.op) == op:
        return _from_arrays(e.left, op) and _from_arrays(e.right, op)
    return isinstance(e, c_ast.ArrayRef)


def _array(ref: c_ast.Node) -> str | None:
    """The array an element names (``a`` of ``a[i][j]``), else None."""
    ref = uncast(ref)
    while isinstance(ref, c_ast.ArrayRef):
        ref = ref.name
    return ref.name if isinstance(ref, c_ast.ID) else None


def _value(e: c_ast.Node | None) -> int | float | None:
    e = uncast(e) if e is not None else None
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "~"):
        v = _value(e.expr)
        return None if v is None else -v if e.op == "-" else ~int(v)
    if isinstance(e, c_ast.Constant) and e.type != "string":
        try:
            return float(e.value.rstrip("uUlLfF")) if "x" not in e.value.lower() \
                else int(e.value.rstrip("uUlL"), 16)
        except ValueError:
            return None
    return None


def _in_statement_position(n: c_ast.Node) -> list[c_ast.Node]:
    """The children of ``n`` whose values are discarded (statements, a loop's init and step)."""
    if isinstance(n, c_ast.Compound):
        return list(n.block_items or [])
    if isinstance(n, c_ast.If):
        return [n.iftrue, n.iffalse]
    if isinstance(n, c_ast.For):
        return [n.init, n.next, n.stmt]
    if isinstance(n, (c_ast.While, c_ast.DoWhile, c_ast.Label)):
        return [n.stmt]
    if isinstance(n, (c_ast.Case, c_ast.Default)):
        return list(n.stmts or [])
    return []


def _own_updates(s: c_ast.Node | None, name: str) -> list[c_ast.ID]:
    """The uses of ``name`` in statement ``s`` when it only updates or stores ``name``
    (``n++``, ``n += e``, ``n = e``, with no other effect in ``e``): none of them is read
    by anything else."""
    if isinstance(s, c_ast.UnaryOp) and s.op in ("++", "--", "p++", "p--") and \
            _target(s.expr) == name:
        return [x for x in walk(s) if isinstance(x, c_ast.ID) and x.name == name]
    if isinstance(s, c_ast.Assignment) and _target(s.lvalue) == name and not any(
            isinstance(x, (c_ast.Assignment, c_ast.FuncCall)) or isinstance(x, c_ast.UnaryOp)
            and x.op in ("++", "--", "p++", "p--") for x in walk(s.rvalue)):
        return [x for x in walk(s) if isinstance(x, c_ast.ID) and x.name == name]
    return []


def never_read(name: str, unit: c_ast.Node) -> bool:
    """No code of ``unit`` reads ``name`` other than to update it (a counter nothing
    prints: NPB CG's ``callcount``)."""
    own = {id(x) for n in walk(unit) for s in _in_statement_position(n)
           for x in _own_updates(s, name)}
    return all(id(x) in own for x in walk(unit) if isinstance(x, c_ast.ID) and x.name == name)


class _Replicated:
    def __init__(self, lookup: Callable[[str], object], unread: Callable[[str], bool],
                 reduced: set[str]):
        self.reduced = reduced
        self.lookup = lookup
        self.unread = unread
        self.reasons: list[Reason] = []

    def scan(self, stmt: c_ast.Node, private: set[str], depth: int, seen: set[str]) -> None:
        mine, shared = _parts(stmt)
        for n in mine:
            self.node(n, mine, shared, private)
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
                self.call(n, depth, seen)

    def call(self, n: c_ast.FuncCall, depth: int, seen: set[str]) -> None:
        name = n.name.name
        if name in _OUTPUT:
            return self.fail(n, f"calls '{name}' in code every thread runs (a team of one "
                             "would write its output once)")
        fdef = self.lookup(name)
        if isinstance(fdef, c_ast.FuncDef) and name not in seen and depth < 4:
            seen.add(name)
            self.scan(fdef.body, _locals(fdef), depth + 1, seen)

    def node(self, n: c_ast.Node, mine: list, shared: list, private: set[str]) -> None:
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            form = (n.expr, "+", None)
        else:
            form = atomic_form(n, "update")
        if form is None or form[1] not in OPERATOR_CLASS:
            return
        name, element = _target(form[0]), isinstance(uncast(form[0]), c_ast.ArrayRef)
        if name in private or element and _array(form[0]) in private or \
                name is not None and self.unread(name):
            return
        p = uncast(form[2]) if form[2] is not None else None
        if isinstance(p, c_ast.ID) and p.name in private and \
                self.partial(p.name, OPERATOR_CLASS[form[1]], mine, shared):
            return
        if element and _from_arrays(p, OPERATOR_CLASS[form[1]]):
            return  # an element merged from arrays (a thread's, or rows by thread number)
        what = "its reduction variable" if name in self.reduced else "shared"
        self.fail(n, f"updates {what} '{c_text(form[0])}' in code every thread runs (a team "
                  "of one would update it once)")

    def partial(self, p: str, op: str, mine: list, shared: list) -> bool:
        """``p`` starts at ``op``'s identity and only work-sharing loops change it, by
        folding values into it with ``op``."""
        writes = [x.init for x in mine if isinstance(x, c_ast.Decl) and x.name == p
                  and x.init is not None]
        writes += [x for x in mine if isinstance(x, c_ast.Assignment) and
                   _target(x.lvalue) == p or isinstance(x, c_ast.UnaryOp) and x.op in (
                       "++", "--", "p++", "p--", "&") and _target(x.expr) == p]
        if len(writes) != 1:
            return False
        first = writes[0]
        if isinstance(first, c_ast.Assignment):
            first = first.rvalue if first.op == "=" else None
        if _value(first) != _IDENTITY[op]:
            return False
        return all(update_operator(p, s) == op or not mentions(p, s) for s in shared)

    def fail(self, n: c_ast.Node, why: str) -> None:
        self.reasons.append(Reason("team-replicated", f"the parallel region {why}",
                                   SourceLoc.of(n)))


def _locals(node: c_ast.Node) -> set[str]:
    """The names declared in ``node`` (a function's parameters too) with automatic storage:
    each thread's, or each call's, own."""
    return {x.name for x in walk(node) if isinstance(x, c_ast.Decl) and x.name and
            "static" not in x.storage and "extern" not in x.storage}


def replicated_reasons(stmt: c_ast.Node, private: set[str],
                       lookup: Callable[[str], object] = lambda name: None,
                       unread: Callable[[str], bool] = lambda name: False,
                       reduced: set[str] = frozenset()) -> list[Reason]:
    """Why the code every thread of the region ``stmt`` runs could leave shared state
    otherwise when a team of one runs it (``private``: the names each thread has its own
    copy of, the region's reduction variables not among them; ``lookup``: a called
    function's definition; ``unread``: whether nothing reads a variable, see
    ``never_read``; ``reduced``: the region's reduction variables)."""
    private = private | _locals(stmt)
    r = _Replicated(lookup, unread, reduced)
    r.scan(stmt, private, 0, set())
    return r.reasons[:1]
