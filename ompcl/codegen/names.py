"""Generated names and C text of index expressions: the one contract between Python code and
the templates.

Every identifier ompcl generates that both Python and a template use is defined here (the
templates see this module as ``N``), and symbolic index IR (``Affine``, ``Bound``, ``Extent``)
becomes host C only here.
"""
from __future__ import annotations

from ..ir import Affine, Bound, BoundExpr, Extent, Sym, SymKind
from ..analysis.ctypes_ import c_text

# -- names shared by Python and the templates ------------------------------------------------
LB, STEP, TRIPS = "ompcl_lb", "ompcl_st", "ompcl_n"  # host arrays / kernel parameters
MIN, MAX = "ompcl_lmin", "ompcl_lmax"  # runtime header functions on long
SKIP = {"skip_lo": "ompcl_skip_lo", "skip_hi": "ompcl_skip_hi"}


def kernel(rid: int) -> str:
    return f"ompcl_k{rid}"


def region_function(rid: int) -> str:
    return f"ompcl_region_{rid}"


def host_loop(rid: int) -> str:
    """The function holding a team loop's host code (``codegen.hostloop``)."""
    return f"ompcl_host_{rid}"


def struct_alias(spelling: str) -> str:
    """The one-word name of ``struct tag`` in kernel code (a typedef of it)."""
    return "ompcl_" + spelling.replace(" ", "_")


#: the kernel checking that the device lays out structs as the host does
LAYOUT_KERNEL = "ompcl_layout"


def marker(function: str) -> str:
    """The symbol a translated file defines for each instrumented function other files may
    call (tested through a weak reference by callers in other files)."""
    return f"ompcl_i_{function}"


def descriptor(rid: int) -> str:
    """The host-side ``ompcl_region`` descriptor of a region."""
    return f"ompcl_r{rid}"


def team(tid: int) -> str:
    """The host-side descriptor of a parallel region run as a team of one."""
    return f"ompcl_t{tid}"


def buffer(k: int) -> str:
    return f"ompcl_b{k}"


def offset(k: int) -> str:
    return f"ompcl_o{k}"


def result(j: int) -> str:
    return f"ompcl_r{j}"


def lastprivate(j: int) -> str:
    return f"ompcl_lp{j}"


def linear_start(name: str) -> str:
    """Kernel local: a linear variable's value before the loop (its parameter is shadowed)."""
    return f"ompcl_lin_{name}"


def checked_lo(k: int) -> str:
    """Kernel parameter: first element of buffer ``k`` the host mapped (bounds checking)."""
    return f"ompcl_lo{k}"


def checked_hi(k: int) -> str:
    return f"ompcl_hi{k}"


#: kernel parameter of the bounds-check report buffer (always the last one)
CHECK_REPORT = "ompcl_err"


def sites(rid: int) -> str:
    """Host-side table of a kernel's checked access sites."""
    return f"ompcl_s{rid}"


def outer_ref(name: str) -> str:
    """Parameter of the outlined function pointing to the caller's variable ``name``."""
    return f"ompcl_p_{name}"


def loop_param(base: str, k: int) -> str:
    """Kernel parameter for dimension ``k`` of the host array ``base`` (``ompcl_lb0``)."""
    return f"{base}{k}"


# -- index IR -> host C ----------------------------------------------------------------------

def first(k: int) -> str:
    return f"{LB}[{k}]"


def last(k: int) -> str:
    return f"({LB}[{k}] + ({TRIPS}[{k}] - 1) * {STEP}[{k}])"


def _sym(s: Sym) -> str:
    if s.kind == SymKind.FIRST:
        return first(int(s.key))
    if s.kind == SymKind.LAST:
        return last(int(s.key))
    if s.kind == SymKind.EXPR and s.payload is not None:
        return f"({c_text(s.payload)})"
    return s.name


def _monomial(m: tuple[Sym, ...], coef: int) -> str:
    return "*".join(([str(coef)] if coef != 1 else []) + [_sym(s) for s in m])


def affine(f: Affine) -> str:
    """C text of an affine form (long arithmetic is the caller's business)."""
    parts = [_monomial(m, c) for m, c in f.terms]
    if f.const or not parts:
        parts.append(str(f.const))
    text = " + ".join(parts)
    return text.replace("+ -", "- ")


def _is_range(f: Affine) -> bool:
    """A lone first/last symbol (printed bare, as the runtime's own range expressions)."""
    return len(f.terms) == 1 and f.const == 0 and f.terms[0][1] == 1 and len(
        f.terms[0][0]) == 1 and f.terms[0][0][0].kind in SymKind.ENDS


def bound(b: BoundExpr) -> str:
    """Host C of a bound, every value computed in ``long``."""
    if isinstance(b, Affine):
        if _is_range(b):
            return _sym(b.terms[0][0][0])
        if b.is_const:
            return f"(long)({b.const})"
        range_terms = [t for t in b.terms if any(s.kind in SymKind.ENDS for s in t[0])]
        if not range_terms:
            return f"(long)({affine(b)})"
        return _sum_text(b)
    if b.op in ("min", "max"):
        acc = bound(b.parts[0])
        for p in b.parts[1:]:
            acc = f"{MIN if b.op == 'min' else MAX}({acc}, {bound(p)})"
        return acc
    if b.op == "scale":
        return f"(long)({affine(b.coef)})*({bound(b.parts[0])})"
    if b.op == "div":
        return f"({bound(b.parts[0])}) / {affine(b.coef)}"
    if b.op in ("lo_if", "hi_if"):
        ordered = " && ".join(f"({bound(lo)}) <= ({bound(hi)})"
                              for lo, hi in zip(b.parts[1::2], b.parts[2::2]))
        empty = "OMPCL_EMPTY_LO" if b.op == "lo_if" else "OMPCL_EMPTY_HI"
        return f"({ordered} ? ({bound(b.parts[0])}) : {empty})"
    if b.op in SKIP:
        return f"{SKIP[b.op]}({bound(b.parts[0])}, {bound(b.parts[1])})"
    return " + ".join(bound(p) for p in b.parts)


def _sum_text(b: Affine) -> str:
    """An affine form over range symbols: each term scaled, invariant part last."""
    parts = []
    for m, c in b.terms:
        ranges = [s for s in m if s.kind in SymKind.ENDS]
        rest = tuple(s for s in m if s.kind not in SymKind.ENDS)
        coef = Affine(((rest, c),)) if rest else Affine.constant(c)
        inner = _sym(ranges[0])
        parts.append(inner if coef == Affine.constant(1) else f"(long)({affine(coef)})*({inner})")
    if b.const:
        parts.append(f"(long)({b.const})")
    return " + ".join(parts)


def extent(e: Extent | None, dims: tuple[str, ...]) -> tuple[str, str]:
    """(lo, hi) element indexes of an array argument as host C; the whole array when the
    extent is None (``dims`` are its dimensions)."""
    if e is None:
        total = "*".join(f"({x})" for x in dims) or "1"
        return "0", f"(long)({total}) - 1"
    lo, hi = bound(e.lo), bound(e.hi)
    row = "*".join(f"({x})" for x in e.row)
    if row and "OMPCL_EMPTY_" in lo:  # an empty range stays empty, never scaled past LONG_MAX
        return f"ompcl_row_lo({lo}, {hi}, {row})", f"ompcl_row_hi({lo}, {hi}, {row})"
    if row:
        lo, hi = f"({lo})*{row}", f"(({hi})+1)*{row}-1"
    return lo, hi
