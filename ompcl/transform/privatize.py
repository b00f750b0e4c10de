"""Private copies of small arrays that a kernel only updates atomically (histograms, the
per-thread counts of a team's array, array reductions): in the CPU shape each work-item
accumulates its own updates in private memory and, when its chunk is done, merges every
element it changed into the array with one atomic operation. The atomics of the original form
all go to the same few cache lines from every core; this way each core works in its own
memory (an array reduction's per-work-item partials, combined once).

An array too large for private memory, or whose size is known only at run time (a heap
array, ``reduction(+:h[0:n])``), gets a *slice copy* instead: a slice per work-item of a
global buffer the runtime provides (``ompcl_rt_arg_copy``) for the range of the array the
launch maps, zeroed at the work-item's start and merged at its end; the runtime passes a
slice length of 0 (the direct atomics) in the GPU shape, in checked builds, and where the
slices would cost more than they save (more elements than a work-item's iterations).

Sound because nothing in the kernel reads the array (every mention of it is the target of an
atomic update) and the updates may be grouped: integer ``+ - | ^ &`` commute exactly
(wrapping arithmetic); floating-point sums only where the program allows any grouping
(``Region.reassociable``: reduction clauses, per-thread accumulators, a thread's array only
merged after the loop), never for a thread's array whose updates merely commute (adding one constant in any order gives the same values,
adding partial sums of it need not).
The GPU shape and bounds-checked builds keep the direct atomics (``OMPCL_PRIV_*`` macros
choose), so the kernel text serves both.

Consumes a kernel spec after its atomics and bounds-check rewriting, and its region;
produces the spec with the arrays that qualify (``Private``) in ``copies`` and the body with
their update sites as ``OMPCL_PRIV_<op>_<type>`` macro calls (``OMPCL_PRIVD_<op>_<type>``
with the slice length as a third argument for slice copies).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

from pycparser import c_ast

from ..analysis.ctypes_ import SCALARS, walk
from ..analysis.loops import const_int
from ..frontend.clone import clone
from ..ir import ArrayArg, KernelSpec, Region
from .atomics import OP_NAMES, helper, helper_kind
from .boundscheck import unchecked
from .rename import device_name

#: operator classes whose updates merge with one atomic: operator -> merging operator
MERGE = {"+": "+", "-": "+", "|": "|", "^": "^", "&": "&"}
#: element types -> bytes: integers always, floating point where sums may be regrouped
INTEGERS = {"int": 4, "uint": 4, "long": 8, "ulong": 8}
FLOATS = {"float": 4, "double": 8}
#: bytes of a private copy at most (16 KiB of a work-item's memory)
MAX_BYTES = 16384
#: slice copies of one kernel at most (the runtime's OMPCL_MAX_COPIES)
MAX_SLICED = 4
#: the guard under which private copies exist
GUARD = "defined(OMPCL_BLOCKED) && !defined(OMPCL_BOUNDS_CHECK)"


@dataclass(frozen=True)
class Private:
    """Array argument ``k`` (device name ``name``, OpenCL type ``cl``) with a private copy of
    ``elements`` elements (None: a slice copy, its length known at launch); its updates use
    operators ``ops`` of one class, merged with ``merge``."""

    k: int
    name: str
    cl: str
    elements: int | None
    merge: str
    ops: frozenset[str]  # the operators of its update sites

    @property
    def sliced(self) -> bool:
        return self.elements is None

    @property
    def macros(self) -> set[tuple[str, str, bool]]:
        """(operator, type, sliced) of the ``OMPCL_PRIV*`` macros its update sites call."""
        return {(op, self.cl, self.sliced) for op in self.ops}

    @property
    def copy(self) -> str:
        """The private array, or the slices' buffer parameter."""
        return f"ompcl_pv{self.k}"

    @property
    def length(self) -> str:
        """A slice copy's length parameter (0: this launch has no slices)."""
        return f"ompcl_pn{self.k}"

    @property
    def identity(self) -> str:
        return "0" if self.merge != "&" else f"({self.cl})-1"


def privatized(spec: KernelSpec, region: Region) -> KernelSpec:
    """The spec with the update sites of the qualifying arrays as macro calls, and those
    arrays as its ``copies``."""
    found = []
    for k, a in enumerate(region.arrays):
        cl = SCALARS.get(a.var.ctype.base, ("",))[0]
        size = INTEGERS.get(cl) or (FLOATS.get(cl) if a.name in region.reassociable else None)
        if not size:
            continue
        n = None if a.var.ctype.pointer else _elements(a)
        if n is not None and n * size > MAX_BYTES:
            n = None  # too large for a work-item's memory: slices
        if n == 0 or n is None and sum(p.sliced for p in found) == MAX_SLICED:
            continue
        ops = _update_ops(spec.body, device_name(a.name), cl)
        if ops:
            merge = MERGE[next(iter(ops))]
            found.append(Private(k, device_name(a.name), cl, n, merge, frozenset(ops)))
    if not found:
        return spec
    body = clone(spec.body)
    by_name = {p.name: p for p in found}
    for call in walk(body):
        p = by_name.get(_target_name(call)) if isinstance(call, c_ast.FuncCall) else None
        kind = _helper_of(call) if p is not None else None
        if kind is not None:
            call.name = c_ast.ID(macro(*kind, p.sliced), call.name.coord)
            if p.sliced:
                call.args.exprs.append(c_ast.ID(p.length))
    return replace(spec, body=body, copies=tuple(found))


def macro(op: str, cl: str, sliced: bool = False) -> str:
    return f"OMPCL_PRIV{'D' if sliced else ''}_{OP_NAMES[op]}_{cl}"


def macro_definitions(used: set[tuple[str, str, bool]]) -> list[str]:
    """``OMPCL_PRIV_<op>_<type>``: a plain update of the private copy where there is one, else
    the atomic helper; ``OMPCL_PRIVD_<op>_<type>(p, v, n)`` the same for a slice copy, whose
    launch may have none (``n`` 0)."""
    out = []
    for op, cl, sliced in sorted(used):
        name, atomic, plain = macro(op, cl, sliced), f"{helper(op, cl)}(p, v)", \
            f"(void)(*(p) {op}= (v))"
        params, private = ("p, v, n", f"(n) ? {plain} : (void){atomic}") if sliced else \
            ("p, v", plain)
        out.append(f"#if {GUARD}\n#define {name}({params}) ({private})\n"
                   f"#else\n#define {name}({params}) {atomic}\n#endif")
    return out


def _elements(a: ArrayArg) -> int | None:
    """The number of elements of an array whose declaration gives every dimension as a
    constant expression (``analysis.loops.const_int``), else None."""
    dims, t = [], a.var.decl.type
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(const_int(t.dim) if t.dim is not None else None)
        t = t.type
    if len(dims) != len(a.var.ctype.dims) or None in dims:
        return None
    return math.prod(dims)


def _update_ops(body: c_ast.Node, name: str, cl: str) -> set[str]:
    """The operators of the atomic updates of ``name``'s elements, when those are all its
    mentions and their operators are of one class; else none."""
    ops, targets = set(), set()
    for node in walk(body):
        if isinstance(node, c_ast.Decl) and node.name == name:
            return set()  # a local of the same name: mentions cannot be told apart
        if isinstance(node, c_ast.FuncCall) and _target_name(node) == name:
            kind = _helper_of(node)
            if kind is None or kind[0] not in MERGE or kind[1] != cl:
                return set()
            ops.add(kind[0])
            targets.add(id(_target_id(node)))
    mentions = [n for n in walk(body) if isinstance(n, c_ast.ID) and n.name == name]
    if len({MERGE[op] for op in ops}) != 1 or any(id(m) not in targets for m in mentions):
        return set()
    return ops


def _helper_of(call: c_ast.FuncCall) -> tuple[str, str] | None:
    """(operator, OpenCL type) of a call of an atomic helper of a type with private
    copies, else None."""
    kind = helper_kind(call.name.name) if isinstance(call.name, c_ast.ID) else None
    return kind if kind is not None and (kind[1] in INTEGERS or kind[1] in FLOATS) else None


def _target_id(call: c_ast.FuncCall) -> c_ast.ID | None:
    """The array name of ``helper(&a[..].., v)`` or ``helper(&OMPCL_AT(T, k, s, a[..]), v)``."""
    args = call.args.exprs if call.args else []
    if len(args) != 2 or not (isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&"):
        return None
    ref = unchecked(args[0].expr)
    if not isinstance(ref, c_ast.ArrayRef):
        return None
    while isinstance(ref, c_ast.ArrayRef):
        ref = ref.name
    return ref if isinstance(ref, c_ast.ID) else None


def _target_name(call: c_ast.FuncCall) -> str | None:
    t = _target_id(call)
    return t.name if t is not None else None
