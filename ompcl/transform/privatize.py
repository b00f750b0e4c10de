"""Private copies of small arrays that a kernel only updates atomically (histograms, the
per-thread counts of a team's array, array reductions): in the CPU shape each work-item
accumulates its own updates in private memory and, when its chunk is done, merges every
element it changed into the array with one atomic operation. The atomics of the original form
all go to the same few cache lines from every core; this way each core works in its own
memory (an array reduction's per-work-item partials, combined once).

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
their update sites as ``OMPCL_PRIV_<op>_<type>`` macro calls.
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
#: the guard under which private copies exist
GUARD = "defined(OMPCL_BLOCKED) && !defined(OMPCL_BOUNDS_CHECK)"


@dataclass(frozen=True)
class Private:
    """Array argument ``k`` (device name ``name``, OpenCL type ``cl``) with a private copy of
    ``elements`` elements; its updates use operators ``ops`` of one class, merged with
    ``merge``."""

    k: int
    name: str
    cl: str
    elements: int
    merge: str
    ops: frozenset[str]  # the operators of its update sites

    @property
    def macros(self) -> set[tuple[str, str]]:
        """(operator, type) of the ``OMPCL_PRIV_*`` macros its update sites call."""
        return {(op, self.cl) for op in self.ops}

    @property
    def copy(self) -> str:
        return f"ompcl_pv{self.k}"

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
        n = _elements(a) if not a.var.ctype.pointer and size else None
        if n is not None and 0 < n * size <= MAX_BYTES:
            ops = _update_ops(spec.body, device_name(a.name), cl)
            if ops:
                merge = MERGE[next(iter(ops))]
                found.append(Private(k, device_name(a.name), cl, n, merge, frozenset(ops)))
    if not found:
        return spec
    body = clone(spec.body)
    names = {p.name for p in found}
    for call in walk(body):
        if isinstance(call, c_ast.FuncCall) and _target_name(call) in names:
            kind = _helper_of(call)
            if kind is not None:
                call.name = c_ast.ID(macro(*kind), call.name.coord)
    return replace(spec, body=body, copies=tuple(found))


def macro(op: str, cl: str) -> str:
    return f"OMPCL_PRIV_{OP_NAMES[op]}_{cl}"


def macro_definitions(used: set[tuple[str, str]]) -> list[str]:
    """``OMPCL_PRIV_<op>_<type>``: a plain update of the private copy where there is one, else
    the atomic helper."""
    out = []
    for op, cl in sorted(used):
        out.append(f"#if {GUARD}\n#define {macro(op, cl)}(p, v) ((void)(*(p) {op}= (v)))\n"
                   f"#else\n#define {macro(op, cl)}(p, v) {helper(op, cl)}(p, v)\n#endif")
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
