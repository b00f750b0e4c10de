"""Per-thread accumulators: hand-written array reductions in a ``parallel`` region.

k-means and histogram codes give each thread its own row of a shared array, indexed by the
thread number, add into it in a work-sharing loop and merge the rows after the loop::

    #pragma omp parallel
    { int tid = omp_get_thread_num();
      #pragma omp for
      for (i = 0; i < n; i++) { part[tid][idx[i]] += x[i]; len[tid * k + idx[i]]++; } }
    for (t = 0; t < nthreads; t++) for (j = 0; j < k; j++) sum[j] += part[t][j];

Run as a team of one (the region's device version, ``analysis.teams``) the thread number is 0
and every update lands in row 0; every merge adds all rows, so it sees the same sums, in
another order (as an OpenMP array reduction may). The loop's updates then run as device
atomics on the one row, like any array only updated in a loop.

Consumes a region's statement, its function and the ids of its work-sharing loops; produces
the thread-number variables and the arrays that are such accumulators (``Accumulators``), or
nothing when any use could tell the team of one from the team: the thread number used
otherwise than as the leading term of an accumulator's first subscript (``t``, ``t * k +
e``), an accumulator written outside the loops' updates, read outside a merge (the right side
of ``+=``), passed to a function other than ``free``, or not a local of the function.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from .ctypes_ import uncast, walk

_THREAD_NUM = "omp_get_thread_num"
_NUM_THREADS = "omp_get_num_threads"
_UPDATES = ("+=", "-=")


@dataclass(frozen=True)
class Accumulators:
    """The thread-number variables of a region and the arrays they index."""

    tids: frozenset[str]
    arrays: frozenset[str]
    calls: tuple[int, ...]  # ids of the omp_get_thread_num() calls that define the tids
    #: ids of the omp_get_num_threads() calls that bound only loops over the rows of a merge
    #: in the region (the team of one answers the host team's size: rows beyond its own
    #: hold their first values, as they would after the team's additions, in the sum)
    sizes: tuple[int, ...] = ()


NONE = Accumulators(frozenset(), frozenset(), ())


def accumulators(stmt: c_ast.Node, func: c_ast.FuncDef | None,
                 loops: frozenset[int]) -> Accumulators:
    """The per-thread accumulators of the ``parallel`` region ``stmt`` in ``func`` whose
    work-sharing loops have the node ids ``loops``; ``NONE`` when there are none or a use
    keeps them from being proved."""
    if func is None:
        return NONE
    names, calls = _definitions(stmt)
    if not names:
        return NONE
    parents = parents_of(func.body)
    inside_loops = {id(n) for n in walk(stmt) if any(id(p) in loops for p in
                                                     _ancestors(n, parents))}
    arrays: set[str] = set()
    bases: set[int] = set()  # the accumulators' name nodes whose subscript leads with a tid
    for use in (n for n in walk(stmt) if isinstance(n, c_ast.ID) and n.name in names):
        if id(use) in names[use.name]:
            continue
        found = _accumulator_use(use, use.name, parents, id(use) in inside_loops)
        if found is None:
            return NONE
        arrays.add(found[0])
        bases.add(found[1])
    updating = {id(n) for n in walk(stmt) if id(n) in loops and any(
        id(x) in bases for x in walk(n))}  # the loops that add into a thread's row
    if not arrays or not all(_local_merged(x, func, stmt, parents, bases, updating)
                             for x in arrays):
        return NONE
    return Accumulators(frozenset(names), frozenset(arrays), tuple(calls),
                        _row_counts(stmt, arrays, parents, updating))


def _definitions(stmt: c_ast.Node) -> tuple[dict[str, set[int]], list[int]]:
    """Variables set in ``stmt`` only from ``omp_get_thread_num()`` -> the ids of the names
    they are assigned through, and the ids of those calls."""
    defs: dict[str, set[int]] = {}
    calls: dict[str, list[int]] = {}
    others: set[str] = set()
    for n in walk(stmt):
        if isinstance(n, c_ast.Decl) and n.name and n.init is not None:
            call = _thread_num(n.init)
            if call is None:
                others.add(n.name)
            else:
                defs.setdefault(n.name, set())
                calls.setdefault(n.name, []).append(id(call))
        elif isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID):
            call = _thread_num(n.rvalue) if n.op == "=" else None
            if call is None:
                others.add(n.lvalue.name)
            else:
                defs.setdefault(n.lvalue.name, set()).add(id(n.lvalue))
                calls.setdefault(n.lvalue.name, []).append(id(call))
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") and \
                isinstance(n.expr, c_ast.ID):
            others.add(n.expr.name)
    keep = {k: v for k, v in defs.items() if k not in others}
    return keep, [c for k in keep for c in calls[k]]


def _thread_num(e: c_ast.Node | None, name: str = _THREAD_NUM) -> c_ast.FuncCall | None:
    e = uncast(e)
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and \
            e.name.name == name and not (e.args and e.args.exprs):
        return e
    return None


def _row_counts(stmt: c_ast.Node, arrays: set[str], parents: dict,
                updating: set[int]) -> tuple[int, ...]:
    """The ids of the ``omp_get_num_threads()`` calls in ``stmt`` that are the bound of a
    loop ``for (t = ..; t < omp_get_num_threads(); ..)`` outside the updating loops whose
    variable is only the first subscript of merged elements of ``arrays``; none unless every
    such call of the region is one."""
    calls = [n for n in walk(stmt) if _thread_num(n, _NUM_THREADS) is not None]
    out = []
    for f in (n for n in walk(stmt) if isinstance(n, c_ast.For)):
        cond = f.cond
        if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and
                isinstance(cond.left, c_ast.ID)) or id(f) in updating or any(
                id(a) in updating for a in _ancestors(f, parents)):
            continue
        call = _thread_num(cond.right, _NUM_THREADS)
        uses = [n for n in walk(f.stmt) if isinstance(n, c_ast.ID) and n.name == cond.left.name]
        if call is not None and uses and all(_row_of_merge(u, arrays, parents) for u in uses):
            out.append(id(call))
    return tuple(out) if len(out) == len(calls) else ()


def _row_of_merge(use: c_ast.ID, arrays: set[str], parents: dict) -> bool:
    """Whether ``use`` is the whole first subscript of an element of one of ``arrays`` read
    into a ``+=``."""
    ref = parents.get(id(use))
    if not (isinstance(ref, c_ast.ArrayRef) and ref.subscript is use and
            isinstance(ref.name, c_ast.ID) and ref.name.name in arrays):
        return False
    return merged_into(element_of(ref, parents)[0], ref.name.name, parents)


def parents_of(root: c_ast.Node) -> dict[int, c_ast.Node]:
    """Each node's parent under ``root``, by the child's id."""
    out = {}
    for n in walk(root):
        for _, child in n.children():
            out[id(child)] = n
    return out


def element_of(ref: c_ast.Node, parents: dict[int, c_ast.Node]) -> tuple[c_ast.Node, int]:
    """The outermost subscript expression whose array is ``ref`` (``a`` of ``a[i][j]``: the
    whole ``a[i][j]``) and how many subscripts it adds."""
    subs = 0
    while isinstance(parents.get(id(ref)), c_ast.ArrayRef) and parents[id(ref)].name is ref:
        ref, subs = parents[id(ref)], subs + 1
    return ref, subs


def _ancestors(n: c_ast.Node, parents: dict[int, c_ast.Node]):
    while id(n) in parents:
        n = parents[id(n)]
        yield n


def _accumulator_use(use: c_ast.ID, tid: str, parents: dict, in_loop: bool
                     ) -> tuple[str, int] | None:
    """The accumulator whose first subscript leads with ``use`` (``t`` or ``t * k + e``)
    and the id of its name node, when the element is updated there (in a loop) or merged
    (outside); else None."""
    node = use
    parent = parents.get(id(node))
    if isinstance(parent, c_ast.BinaryOp) and parent.op == "*":
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, c_ast.BinaryOp) and parent.op == "+" and not any(
            isinstance(x, c_ast.ID) and x.name == tid
            for x in walk(parent.right if parent.left is node else parent.left)):
        node, parent = parent, parents.get(id(parent))
    if not (isinstance(parent, c_ast.ArrayRef) and parent.subscript is node and
            isinstance(parent.name, c_ast.ID)):
        return None
    array, top = parent.name.name, element_of(parent, parents)[0]
    ok = _updated(top, parents) if in_loop else merged_into(top, array, parents)
    return (array, id(parent.name)) if ok else None


def _updated(top: c_ast.Node, parents: dict) -> bool:
    p = parents.get(id(top))
    return isinstance(p, c_ast.Assignment) and p.op in _UPDATES and p.lvalue is top or \
        isinstance(p, c_ast.UnaryOp) and p.op in ("++", "--", "p++", "p--")


def merged_into(ref: c_ast.Node, array: str, parents: dict) -> bool:
    """Whether element ``ref`` of ``array`` is read only into the right side of a ``+=``
    whose target is not the array."""
    node = ref
    for p in _ancestors(ref, parents):
        if isinstance(p, c_ast.Assignment):
            return p.op == "+=" and p.rvalue is node and not any(
                isinstance(x, c_ast.ID) and x.name == array for x in walk(p.lvalue))
        if not isinstance(p, (c_ast.BinaryOp, c_ast.Cast, c_ast.UnaryOp)) or \
                isinstance(p, c_ast.UnaryOp) and p.op not in ("-", "+"):
            return False
        node = p
    return False


def _local_merged(array: str, func: c_ast.FuncDef, stmt: c_ast.Node, parents: dict,
                  bases: set[int], updating: set[int]) -> bool:
    """Whether ``array`` is a local of ``func`` that the function, outside the region, only
    allocates, assigns, frees and merges (reads its elements into ``+=``), and the region
    uses with the thread number leading its first subscript (``bases``) or merges outside
    the loops that update it (``updating``: a loop over the rows after the barrier that
    ends those loops)."""
    decls = [n for n in walk(func.body) if isinstance(n, c_ast.Decl) and n.name == array]
    if len(decls) != 1:
        return False
    depth = _depth(decls[0].type)
    region = {id(n) for n in walk(stmt)}
    for n in walk(func.body):
        if not (isinstance(n, c_ast.ID) and n.name == array):
            continue
        ref, subs = element_of(n, parents)
        p = parents.get(id(ref))
        if isinstance(p, c_ast.UnaryOp) and p.op == "&" or isinstance(p, c_ast.FuncCall) or \
                isinstance(p, c_ast.ExprList) and not _freed(p, parents):
            return False
        if id(n) in region:
            if id(n) not in bases and not (
                    subs == depth and merged_into(ref, array, parents)
                    and not any(id(a) in updating for a in _ancestors(n, parents))):
                return False
            continue
        if subs == depth and not merged_into(ref, array, parents) and not (
                isinstance(p, c_ast.Assignment) and p.lvalue is ref and p.op == "="):
            return False
    return True


def _depth(t: c_ast.Node) -> int:
    """How many subscripts reach an element of a variable of type ``t``."""
    depth = 0
    while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):
        t, depth = t.type, depth + 1
    return depth


def _freed(args: c_ast.ExprList, parents: dict) -> bool:
    call = parents.get(id(args))
    return isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and \
        call.name.name == "free"
