"""Run-time check of thread-private scratch arrays: a slice of the loop that replays only its
control flow and addresses.

Consumes a loop body whose scratch arrays (a thread's own arrays, ``threadprivate`` or private
to a region) the static proof of ``analysis.scratch`` could not show written before read in
every iteration, the called functions' definitions and the types in scope. Produces an
``ir.ScratchCheck``: a copy of the body that keeps the statements deciding control flow and
addresses, drops the computation of values, and marks each access to memory that may be a
scratch array (``OMPCL_SC_W(lvalue)`` for a write, ``OMPCL_SC_R(lvalue)`` for a read), with such
copies of the called functions. The host runs it over every iteration before the device runs
the loop (``codegen.scratchcheck``): a read of an element that the same iteration has not
written first keeps the loop on the host.

The slice is exact when what it keeps depends only on loop variables, values fixed at entry
and arrays the loop does not write ("untainted"); values computed from anything else
(scratch, the loop's shared arrays, data read through pointers) are tainted, and a branch,
loop bound or scratch address that depends on them means no check: the loop stays on the host
with the reason (``NoCheck``). Every value the slice reads from memory goes through
``OMPCL_SC_IN`` (recorded), so the answer is reused while the entry values and the recorded
values stay the same.

The parts: ``scratchtypes`` (names, types, accesses and the records the slice works over),
``scratchslice`` (taint and the slice); this module checks what the slice found.
"""
from __future__ import annotations

from pycparser import c_ast

from ..ir import ScratchCheck, Var
from .accesses import arrays_written, names_written
from .ctypes_ import TypeEnv, mentions, walk
from .scratchslice import block, enter
from .scratchtypes import Found, Given, NoCheck, Slice, Ty, ty_of

__all__ = ["NoCheck", "scratch_check"]


def _escapes(name: str, ndims: int, bodies: list[c_ast.Node],
             skip: frozenset[int] = frozenset()) -> bool:
    """Whether a use of ``name`` (an array of ``ndims`` dimensions, or a scalar) in
    ``bodies``, outside the nodes ``skip``, lets code write it other than by name: its
    address or an element's taken, or the array (or a row of it) used as a pointer."""
    for body in bodies:
        elements: set[int] = set()  # the IDs that are the base of a full subscript chain
        for n in walk(body):
            if id(n) in skip:
                continue
            if isinstance(n, c_ast.UnaryOp) and n.op == "&" and mentions(name, n.expr):
                return True
            if ndims and isinstance(n, c_ast.ArrayRef):
                base, depth = n, 0
                while isinstance(base, c_ast.ArrayRef):
                    base, depth = base.name, depth + 1
                if isinstance(base, c_ast.ID) and base.name == name and depth == ndims:
                    elements.add(id(base))
        if ndims and any(isinstance(n, c_ast.ID) and n.name == name and id(n) not in elements
                         and id(n) not in skip for n in walk(body)):
            return True
    return False


def _reachable(body: c_ast.Node, lookup) -> list[c_ast.FuncDef]:
    """The definitions of the functions ``body`` calls, directly or not."""
    out: dict[str, c_ast.FuncDef] = {}
    todo = [body]
    while todo:
        for n in walk(todo.pop()):
            name = getattr(n.name, "name", None) if isinstance(n, c_ast.FuncCall) else None
            if isinstance(name, str) and name not in out and (f := lookup(name)) is not None:
                out[name] = f
                todo.append(f.body)
    return list(out.values())


def scratch_check(names: list[str], body: c_ast.Node, loop_vars: list[tuple[str, str]],
                  scope: dict[str, Var], env: TypeEnv, globals_: dict[str, Var],
                  assigned: set[str], lookup, tag: str, carried: set[str] = frozenset(),
                  enclosing: c_ast.Node | None = None) -> ScratchCheck:
    """The run-time check of scratch arrays ``names`` for loop ``body`` (raises NoCheck).
    ``loop_vars``: the nest's (variable, C type); ``assigned``: every name the body and its
    callees may write; ``tag``: makes the names of sliced functions unique in the file;
    ``carried``: variables whose value may flow between iterations (read before written,
    reductions): the slice does not know them; ``enclosing``: the body of the function
    holding the loop (where a pointer to a scratch array of its own could come from)."""
    given = Given(set(names), env, globals_, scope, assigned, lookup, tag)
    types: dict[str, Ty | None] = {v: Ty(0, t) for v, t in loop_vars}
    # scratch arrays of the enclosing function (private to the region, or static there):
    # the region function cannot name them, so the check holds its own, declared once (only
    # their addresses matter: the stamps tell the iterations apart)
    held = [scope[n] for n in sorted(names) if n in scope and n not in globals_ and
            scope[n].storage != "global"]
    for v in held:
        types[v.name] = ty_of(v.ctype)
    own, assigned_here = [], names_written(body)
    for name in sorted(assigned_here | arrays_written(body)):
        v = scope.get(name)
        if v is None or v.storage not in ("local", "param") or name in types:
            continue
        if name not in assigned_here and (v.ctype.pointer or v.storage == "param"):
            continue  # only written through: the loop's array, not a variable of its own
        types[name] = ty_of(v.ctype)
        own.append(v)
    sl = enter(Slice(given, None, Found()), body, types,
               {v.name for v in own if v.name in carried}, True,
               {v.name for v in own + held if v.ctype.dims and not v.ctype.pointer})
    sliced, found = block(sl, body), sl.found
    used = {n.name for n in walk(sliced) if isinstance(n, c_ast.ID)}
    own = [v for v in own if v.name in used]
    if not (found.inputs - {v for v, _ in loop_vars} or found.globals_read - set(names)
            or found.defs):
        # nothing the static proof does not see: a run-time check would decline every time
        raise NoCheck("the scratch addresses depend only on the loop variables")
    arrays = []
    for name in sorted(names):
        v = globals_.get(name) or scope.get(name)
        if v is None or not v.ctype.dims or v.ctype.pointer:
            raise NoCheck(f"'{name}' is not an array the check can mark")
        arrays.append((name, v.ctype.base))
    bodies = [body] + [f.body for f in _reachable(body, lookup)]
    for g in sorted(found.globals_read):
        v = globals_.get(g) or scope.get(g)
        if v is None or _escapes(g, 0 if v.ctype.pointer else len(v.ctype.dims), bodies):
            raise NoCheck(f"the address of '{g}' is taken, so the loop may change it")
    # the scratch trace of an iteration that mentions no loop variable is every iteration's
    uniform = not used & {v for v, _ in loop_vars}
    if held and found.region_roots:  # the check cannot tell where the real arrays are
        inside = frozenset(id(n) for n in walk(body))
        for v in held:  # unless the function never lets a pointer at one outside the loop
            if enclosing is None or _escapes(v.name, len(v.ctype.dims), [enclosing], inside):
                raise NoCheck(f"a pointer the loop uses may point into '{v.name}'")
    return ScratchCheck(tuple(arrays), sliced, tuple(own), tuple(found.defs),
                        tuple(sorted(found.inputs - {v for v, _ in loop_vars})),
                        tuple(sorted(found.globals_read - set(names))),
                        tuple(sorted(found.region_roots)), uniform, tuple(held))
