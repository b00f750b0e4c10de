"""Data-sharing analysis: a region's directive, body accesses and calls -> ``Sharing`` (arrays
as buffers with their extents, read-only scalars, privates, lastprivates, reductions) and the
reasons a variable cannot be placed on the device.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast

from ..diagnostics import Reason
from ..frontend.pragma import REDUCTION_OPS
from ..frontend.textscan import IDENT
from ..ir import (Affine, ArrayArg, Directive, Extent, Inspection, LoopDim, Reduction, Storage, Sym,
                  SymKind, Var)
from .accesses import BodyInfo, RawAccess, names_written, passings
from .builtins import typeof_reason
from .calls import CallInfo
from .callspans import callee_span, pointee_names
from .ctypes_ import FLOATING, TypeEnv, is_constant_text, walk
from .linear import linear_steps, stepped_once
from .loops import NotCanonical, canonical_loop, const_int
from .extents import (
    Range,
    array_extent,
    dim_range,
    flat_extent,
    block_extent,
    object_extent,
    inspected_extent,
    pointer_span,
    JUMPS,
    unconditional,
)
from .trees import tree_arg
from .updates import Updates, array_updates

#: element types the device updates atomically (32- and 64-bit)
ATOMIC_C_TYPES = {"int", "unsigned int", "long", "unsigned long", "float", "double"}
_WORDS = {"sizeof", "char", "short", "int", "long", "unsigned", "signed"}

@dataclass(frozen=True)
class Sharing:
    """How each variable a region uses reaches the device."""

    arrays: tuple[ArrayArg, ...] = ()
    scalars: tuple[Var, ...] = ()
    privates: tuple[Var, ...] = ()
    lastprivates: tuple[Var, ...] = ()
    reductions: tuple[Reduction, ...] = ()
    reasons: tuple[Reason, ...] = ()
    inspections: tuple[Inspection, ...] = ()
    reduced: dict = field(default_factory=dict)  # array -> Updates (reduction clauses)
    #: (a reduction array reached through a pointer, another array argument): updated in
    #: place, it must be other memory than what the loop reads (``Region.distinct``)
    distinct: tuple[tuple[str, str], ...] = ()


#: names whose values are the same in every iteration of the region (``_runs``)
Fixed = Callable[[str], bool]


def surely_assigned(body: c_ast.Node, name: str, fixed: Fixed) -> bool:
    """Whether every iteration of a loop with this body assigns scalar ``name`` (or, for
    the value after the loop, none does): a plain assignment every iteration evaluates,
    also inside an inner loop that runs at least once or whose bounds are the same in every
    iteration (``_runs``; ``extents.unconditional``)."""
    done = unconditional(body)
    for n in walk(body):
        if id(n) not in done:
            continue
        if isinstance(n, c_ast.Assignment) and n.op == "=" and isinstance(
                n.lvalue, c_ast.ID) and n.lvalue.name == name:
            return True
        if isinstance(n, c_ast.For) and _runs(n, fixed) and surely_assigned(n.stmt, name,
                                                                             fixed):
            return True
    return False


def assigned_before_read(body: c_ast.Node, name: str, fixed: Fixed) -> bool:
    """Whether every iteration of a loop with this body assigns scalar ``name`` before any
    read of it (or none does, and each reads the value before the loop): the first of the
    body's statements that mentions it is ``name = e`` (``e`` without it), or an inner loop
    as ``surely_assigned`` takes whose body does so (the analysis' own test counts no inner
    loop)."""
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    for s in items:
        if not any(isinstance(n, c_ast.ID) and n.name == name for n in walk(s)):
            continue
        if isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(
                s.lvalue, c_ast.ID) and s.lvalue.name == name:
            return not any(isinstance(n, c_ast.ID) and n.name == name for n in walk(s.rvalue))
        return isinstance(s, c_ast.For) and _runs(s, fixed) and not any(
            isinstance(n, JUMPS) for n in walk(s)) and assigned_before_read(s.stmt, name,
                                                                             fixed)
    return False


def _runs(loop: c_ast.For, fixed: Fixed) -> bool:
    """A canonical loop whose constant bounds let it run at least once, or whose bounds
    and step are the same in every iteration of the region (``fixed`` names, constants and
    arithmetic): then it runs in every iteration or in none."""
    try:
        d = canonical_loop(loop)
    except NotCanonical:
        return False
    lb, ub = const_int(d.lb), const_int(d.ub)
    if lb is not None and ub is not None:
        return {"<": lb < ub, "<=": lb <= ub, ">": lb > ub, ">=": lb >= ub}[d.op]
    return all(isinstance(n, (c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename,
                              c_ast.TypeDecl, c_ast.IdentifierType)) or isinstance(
        n, c_ast.ID) and fixed(n.name) or isinstance(n, c_ast.UnaryOp) and n.op in "-+~!"
        for e in (d.lb, d.ub, d.step) for n in walk(e))


def dim_syms(loops: tuple[LoopDim, ...]) -> dict[str, Sym]:
    """The index symbol of each dimension's loop variable."""
    return {d.var: Sym("dim", d.var, k) for k, d in enumerate(loops)}


class _Classifier:
    def __init__(self, d: Directive, loops: tuple[LoopDim, ...], info: BodyInfo,
                 calls: CallInfo, scope: dict[str, Var], env: TypeEnv, funcs: set[str],
                 func: c_ast.Node | None = None, updated: frozenset[str] = frozenset(),
                 lookup=lambda name: None):
        self.d, self.loops, self.info, self.calls, self.func = d, loops, info, calls, func
        self.updated, self.lookup = updated, lookup
        self.scope, self.env, self.funcs = scope, env, funcs
        self.reasons: list[Reason] = []
        self.vla_dims: set[str] = set()  # names in variable row dimensions of the arrays
        self.inspections: list[Inspection] = []
        self.reduced: dict[str, Updates] = {}  # arrays in reduction clauses
        syms = dim_syms(loops)
        self.dims: dict[Sym, Range] = {syms[x.var]: dim_range(k, x.var)
                                       for k, x in enumerate(loops)}

    def fail(self, id: str, msg: str) -> None:
        if all(r.message != msg for r in self.reasons):
            self.reasons.append(Reason(id, msg, self.d.loc))

    def classify(self) -> Sharing:
        d, info = self.d, self.info
        pvars = {dim.var for dim in self.loops}
        private, firstp, lastp = (set(d.names_in(c)) for c in ("private", "firstprivate",
                                                                "lastprivate"))
        reds = {a: c.op for c in d.clause("reduction") for a in c.args}
        linear = self.linears(set(info.scalar_reads | info.scalar_writes))
        by_name: dict[str, list[RawAccess]] = {}
        for a in info.accesses:
            by_name.setdefault(a.name, []).append(a)
        names = set(info.scalar_reads | info.scalar_writes | set(by_name)) - pvars
        names -= self.env.enumerators
        names -= {c for c, _ in info.calls if c not in self.scope}
        names |= {s for s in linear.values() if s in self.scope}  # variable steps
        for g in sorted(self.calls.globals):  # globals the callees use, passed to them
            v = self.scope.get(g)
            if v is None or v.storage != "global":
                self.fail("callee-global", f"a called function uses global '{g}', which is "
                          "not declared in this file before the loop (or is hidden by a local)")
            names.add(g)
        out: dict[str, list] = {"arrays": [], "scalars": [], "privates": [], "lastprivates": [],
                                "reductions": []}
        for name in sorted(names):
            v = self.scope.get(name)
            if v is None:
                self.fail("unresolved-name", f"uses function '{name}' as a value"
                          if name in self.funcs else f"cannot resolve '{name}'")
            elif v.ctype.base == "?":
                self.tree(v, by_name.get(name, []), name in info.pointer_uses, out)
            elif name in reds:
                self.reduction(v, reds[name], out, by_name.get(name, []),
                               name in info.pointer_uses)
            elif name in lastp or name in linear:
                self.lastprivate(v, out, linear.get(name))
            elif name in private:
                if v.ctype.pointer or not all(is_constant_text(x, self.env) for x in v.ctype.dims):
                    self.fail("clause-type", f"private '{name}' is not a scalar or fixed-size "
                              "array")
                else:
                    out["privates"].append(v)
            elif name in firstp:
                arr = None if v.ctype.is_scalar or v.ctype.pointer else self.array_arg(
                    v, by_name.get(name, []), name in info.pointer_uses)
                if v.ctype.is_scalar and self.carried(name, "firstprivate"):
                    pass
                elif v.ctype.is_scalar:
                    out["scalars"].append(v)
                elif arr is not None and arr.mode == "r":  # each copy as the original
                    out["arrays"].append(arr)
                else:
                    self.fail("clause-type", f"firstprivate '{name}' is not a scalar or an "
                              "array the loop only reads")
            elif v.ctype.is_scalar and name in info.atomic_only:
                if v.ctype.base not in ATOMIC_C_TYPES:
                    self.fail("omp-construct", f"atomic update of '{name}' of type "
                              f"'{v.ctype.base}' (the device has no such atomics)")
                else:  # updated only atomically: a one-element buffer
                    out["arrays"].append(ArrayArg(name, v, "rw", None))
            elif v.ctype.is_scalar and (flag := self.flag(v)) is not None:
                self.reduction(v, flag, out)
            elif v.ctype.is_scalar:
                if name in info.scalar_writes or "w" in self.calls.globals.get(name, ""):
                    self.fail("shared-write", f"shared variable '{name}' is written in the loop "
                              "(make it private, lastprivate or a reduction)")
                else:
                    out["scalars"].append(v)
            else:
                arr = self.array_arg(v, by_name.get(name, []), name in info.pointer_uses)
                if arr is not None:
                    out["arrays"].append(arr)
        for name in sorted((private | firstp | lastp) - names - pvars):
            v = self.scope.get(name)
            if v is not None and name in private and v.ctype.is_scalar:
                out["privates"].append(v)
        for name in sorted(self.vla_dims - {v.name for v in out["scalars"]}):
            out["scalars"].append(self.scope[name])  # the kernel indexes the flat buffer
        return Sharing(*(tuple(out[k]) for k in ("arrays", "scalars", "privates",
                                                  "lastprivates", "reductions")),
                       tuple(self.reasons), tuple(self.inspections), dict(self.reduced),
                       self.distinct(out["arrays"]))

    def linears(self, used: set[str]) -> dict[str, str]:
        """The loop's ``linear`` variables it uses, with their steps (``analysis.linear``)."""
        steps = linear_steps(self.d)
        if isinstance(steps, str):
            self.fail("clause", steps)
            return {}
        if steps and len(self.loops) > 1:
            self.fail("clause", "its 'linear' clause with collapse is not honoured on the "
                      "device")
        return {n: s for n, s in steps.items() if n in used}

    def linear(self, v: Var, step: str, out: dict) -> None:
        """A linear integer scalar: passed by value (its value before the loop), each
        iteration's own copy set from it, the last iteration's written back."""
        if not v.ctype.is_scalar or v.ctype.pointer or v.ctype.base in FLOATING:
            return self.fail("clause-type", f"linear '{v.name}' is not an integer scalar")
        if not stepped_once(self.loops[-1].loop.stmt, v.name, step):
            return self.fail("clause", f"linear '{v.name}' is not stepped by {step} once in "
                             "every iteration (gcc's values then differ from OpenMP's)")
        out["scalars"].append(v)
        out["lastprivates"].append(v)

    def lastprivate(self, v: Var, out: dict, linear_step: str | None = None) -> None:
        """A lastprivate scalar: each iteration's own copy (a firstprivate one too, when no
        iteration reads it before writing it), the last iteration's value written back;
        a linear one (with its step) by ``linear``."""
        if linear_step is not None:
            return self.linear(v, linear_step, out)
        if not v.ctype.is_scalar:
            return self.fail("clause-type", f"lastprivate '{v.name}' must be a scalar")
        first = v.name in self.d.names_in("firstprivate")
        if self.carried(v.name, "firstprivate" if first else "lastprivate"):
            return None
        if v.name not in self.info.assigned and not surely_assigned(
                self.loops[-1].loop.stmt, v.name, self.fixed):
            return self.fail("schedule-dependent", f"lastprivate '{v.name}' is not assigned "
                             "in every iteration (its value after the loop would be what the "
                             "last thread's copy holds, which depends on the schedule)")
        out["lastprivates"].append(v)

    def fixed(self, name: str) -> bool:
        """A variable whose value is the same in every iteration of the region: neither
        one of its loop variables nor written in it (also through calls)."""
        return name in self.scope and name not in self.info.scalar_writes and \
            name not in {x.var for x in self.loops} and \
            "w" not in self.calls.through_calls().get(name, "")

    def carried(self, name: str, clause: str) -> bool:
        """Whether the loop writes the thread's copy of ``name`` and an iteration may read
        what an earlier one of the same thread left in it (a value the device's schedule
        would not reproduce); fails the region if so."""
        if name not in self.info.scalar_writes or name not in self.info.live_in or \
                assigned_before_read(self.loops[-1].loop.stmt, name, self.fixed):
            return False
        self.fail("schedule-dependent", f"{clause} '{name}' carries a value from one "
                  "iteration to the next (what an iteration reads depends on the schedule)")
        return True

    def distinct(self, arrays: list[ArrayArg]) -> tuple[tuple[str, str], ...]:
        """Each reduction array reached through a pointer, with every other array."""
        pointed = [n for n in self.reduced if self.scope[n].ctype.pointer]
        return tuple(dict.fromkeys(tuple(sorted((r, a.name))) for r in pointed
                                   for a in arrays if a.name != r))

    def tree(self, v: Var, accs: list[RawAccess], ptr_use: bool, out: dict) -> None:
        """A pointer tree gathered into a staging block (``analysis.trees``), its row widths
        passed to the kernel; else the variable's type keeps the region on the host."""
        found = tree_arg(v, accs, self.info, self.calls.through_calls().get(v.name, ""),
                         ptr_use, self.env, self.dims, self.call_span)
        if found is None:
            if why := typeof_reason(v.name, getattr(v.decl, "type", None)):
                return self.fail("data-type", why)
            return self.fail("data-type", f"'{v.name}' has a type ompcl cannot place on the "
                             "device")
        if isinstance(found, Reason):
            return self.fail(found.id, found.message)
        view, extent, tree, widths, looks = found
        self.inspections += looks
        mode = _mode(accs, self.calls.through_calls().get(v.name, ""))
        if any(t.target == v.name for t in self.info.atomics) and \
                view.ctype.base not in ATOMIC_C_TYPES:
            return self.fail("omp-construct", f"atomic update of '{v.name}' elements of type "
                             f"'{view.ctype.base}' (the device has no such atomics)")
        out["arrays"].append(ArrayArg(v.name, view, mode, extent, tree))
        out["scalars"] += widths

    def reduction(self, v: Var, op: str, out: dict, accs: list[RawAccess] = (),
                  ptr_use: bool = False) -> None:
        if op not in REDUCTION_OPS:
            return self.fail("clause-type", f"reduction '{op}' of '{v.name}' is a 'declare "
                             "reduction' (user-defined reductions run on the host)")
        if v.ctype.is_array_like and not v.ctype.record:
            return self.array_reduction(v, op, out, list(accs), ptr_use)
        if not v.ctype.is_scalar or v.ctype.record:
            return self.fail("clause-type", f"reduction variable '{v.name}' is not a scalar")
        op = "+" if op == "-" else op
        if op in ("&", "|", "^") and v.ctype.base in FLOATING:
            return self.fail("clause-type", f"bitwise reduction on floating-point '{v.name}'")
        out["reductions"].append(Reduction(v.name, op, v.ctype.base))

    def flag(self, v: Var) -> str | None:
        """A shared integer the loop only sets to one constant, 1 or 0, and never reads (a
        convergence flag: ``stop = true;``, a race every thread wins the same way): its
        final value is the constant if any iteration set it, else its value before the loop,
        which is a ``||`` (for 1) or ``&&`` (for 0) reduction of private copies that start
        at the other value. The reduction operator, or None."""
        name, body = v.name, self.loops[-1].loop.stmt
        if name not in self.info.scalar_writes or name in self.info.scalar_reads or \
                v.ctype.pointer or v.ctype.dims or v.ctype.base in FLOATING or \
                "w" in self.calls.globals.get(name, ""):
            return None
        values = set()
        for n in walk(body):
            if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ID) and \
                    n.lvalue.name == name:
                if n.op != "=":
                    return None
                values.add(const_int(n.rvalue))
            elif isinstance(n, c_ast.UnaryOp) and isinstance(n.expr, c_ast.ID) and \
                    n.expr.name == name:
                return None  # ++, --, & of the flag
        return {frozenset({1}): "||", frozenset({0}): "&&"}.get(frozenset(values))

    def array_reduction(self, v: Var, op: str, out: dict, accs: list[RawAccess],
                        ptr_use: bool) -> None:
        """``reduction(op: a)`` on an array (OpenMP 4.5; a section names its array): the
        loop's updates of it, callees included, become device atomics on the array itself,
        in any order (as the clause allows). An array of run-time size (a heap section
        ``h[0:n]``, a pointer of one dimension) takes its extent as any array's does (its
        subscripts, else the block it points into)."""
        ct = v.ctype
        fixed = not ct.pointer and all(is_constant_text(x, self.env) for x in ct.dims)
        if ct.base not in ATOMIC_C_TYPES or not fixed and len(ct.dims) + ct.pointer != 1:
            return self.fail("clause-type", f"reduction array '{v.name}' is not an array of "
                             "int, long, float or double elements (of one dimension where its "
                             "size is not fixed)")
        upd = array_updates(v.name, self.loops[-1].loop.stmt, ct.base, self.lookup,
                            v.storage in ("global", "static"))
        if upd is None or upd.op != ("+" if op == "-" else op):
            return self.fail("clause-type", f"reduction array '{v.name}' is used in the loop "
                             f"otherwise than by '{op}' updates of its elements")
        arr = ArrayArg(v.name, v, "rw", None) if fixed else self.array_arg(v, accs, ptr_use)
        if arr is not None:
            out["arrays"].append(ArrayArg(arr.name, arr.var, "rw", arr.extent))
            self.reduced[v.name] = upd

    def invariant_dims(self, dims: tuple[str, ...]) -> bool:
        """Row dimensions of a pointer to variable-length rows: every name an integer scalar
        visible at the region and not written in the loop."""
        for name in IDENT.findall(" ".join(dims)):
            v = self.scope.get(name)
            if name in self.env.enumerators or name in _WORDS:
                continue
            if v is None or not v.ctype.is_scalar or v.ctype.base in FLOATING or \
                    name in self.info.scalar_writes:
                return False
        return True

    def array_arg(self, v: Var, accs: list[RawAccess], ptr_use: bool) -> ArrayArg | None:
        ct = v.ctype
        passed = self.calls.through_calls().get(v.name, "")
        fixed = not ct.pointer and all(is_constant_text(x, self.env) for x in ct.dims)
        if ptr_use and not passed:
            return self.fail("array-passed", f"passes array '{v.name}' to a function")
        # a global pointer a callee reads by name: the whole object it points into
        flat = self.passed_extent(v, accs) if passed and not fixed and \
            v.name not in self.calls.globals else None
        if passed and not fixed and flat is None:
            flat = self.block(v, accs, passed=True)
        if passed and not fixed and flat is None:
            return self.fail("array-passed", f"passes '{v.name}' to a function but its extent "
                             "is not fixed")
        if not accs and not passed:
            return self.fail("array-extent", f"uses pointer '{v.name}' without subscripts")
        if any(len(a.subscripts) > len(ct.dims) + (1 if ct.pointer else 0) for a in accs):
            return self.fail("array-extent", f"'{v.name}' is subscripted more times than it has "
                             "dimensions")
        mode = _mode(accs, passed)
        if not all(is_constant_text(x, self.env) for x in ct.row_dims):
            if not ct.pointer or passed and flat is None or not self.invariant_dims(
                    ct.row_dims):
                return self.fail("array-extent", f"array '{v.name}' has variable dimensions")
            self.vla_dims |= set(IDENT.findall(" ".join(ct.row_dims))) - self.env.enumerators
        if any(t.target == v.name for t in self.info.atomics) and \
                ct.base not in ATOMIC_C_TYPES:
            return self.fail("omp-construct", f"atomic update of '{v.name}' elements of type "
                             f"'{ct.base}' (the device has no such atomics)")
        if fixed:
            return ArrayArg(v.name, v, mode, None)
        extent = flat if flat is not None else array_extent(v, accs, self.dims, self.info.inner)
        if isinstance(extent, Reason) and flat is None:
            extent = pointer_span(v, self.scope, self.func, self.env) or self.inspected(
                v, accs) or self.block(v, accs) or self.vla_whole(v) or extent
        if isinstance(extent, Reason):
            return self.fail(extent.id, extent.message)
        return ArrayArg(v.name, v, mode, extent)

    def vla_whole(self, v: Var):
        """The extent of a one-dimensional variable-length array (``long f[n + 1]``) whose
        length names only integer variables of its function that nothing assigns after
        their declaration: the whole array, its length evaluated at the loop as at the
        declaration. None otherwise."""
        ct = v.ctype
        if ct.pointer or len(ct.dims) != 1 or v.storage not in (Storage.LOCAL, Storage.PARAM) \
                or self.func is None or not isinstance(v.decl, c_ast.Decl):
            return None
        found = _name_plus_constant(getattr(v.decl.type, "dim", None))
        n = self.scope.get(found[0]) if found else None
        if n is None or not n.ctype.is_scalar or n.ctype.base in FLOATING or n.ctype.pointer \
                or n.storage not in (Storage.LOCAL, Storage.PARAM) or \
                n.name in names_written(self.func):
            return None
        length = Affine.of(Sym(SymKind.VAR, n.name, id(n.decl), n)) + Affine.constant(found[1])
        self.vla_dims.add(n.name)  # the region evaluates the length: n passed though unused
        return Extent(Affine.constant(0), length - Affine.constant(1))

    def passed_extent(self, v: Var, accs: list[RawAccess]):
        """The extent of an array of unfixed size whose elements' addresses the loop passes
        to functions (``vranlc(n, &x, a, &z[i][j][1])``): each access flat, widened by the
        span the callee reaches from it (``analysis.callspans``); None when a call passes it
        otherwise or a callee's span is unknown."""
        if passings(v.name, self.info) != sum(1 for a in accs if a.call is not None):
            return None
        forms = []
        for a in accs:
            flat = self.flat_index(v, a)
            span = self.call_span(v, a) if a.call is not None else (Affine(), Affine())
            if flat is None or span is None:
                return None
            forms.append((flat + span[0], flat + span[1], a))
        return flat_extent(v, forms, self.dims, self.info.inner)

    def flat_index(self, v: Var, a: RawAccess) -> Affine | None:
        """The form of an access's element counted flat from the array's start (every
        subscript given, each scaled by the size of what it selects)."""
        ct = v.ctype
        n = len(ct.dims) + (1 if ct.pointer else 0)
        if len(a.index) != n or any(f is None for f in a.index):
            return None
        inner = ct.dims[len(ct.dims) - (n - 1):] if n > 1 else ()
        sizes = [self.dim_form(x) for x in inner]
        if any(x is None for x in sizes):
            return None
        total = Affine()
        for k, f in enumerate(a.index):
            stride = Affine.constant(1)
            for x in sizes[k:]:
                stride = stride * x
            total = total + f * stride
        return total

    def dim_form(self, text: str) -> Affine | None:
        """A dimension's size as a form: a literal, an unchanged integer scalar, or constant
        text (an invariant expression symbol)."""
        text = text.strip()
        if text.isdigit():
            return Affine.constant(int(text))
        v = self.scope.get(text)
        if v is not None and v.ctype.is_scalar and v.ctype.base not in FLOATING and \
                text not in self.info.scalar_writes:
            return Affine.of(Sym("var", text, id(v.decl), v))
        if is_constant_text(text, self.env):
            return Affine.of(Sym("expr", f"({text})", f"({text})"))
        return None

    def call_span(self, v: Var, a: RawAccess) -> tuple[Affine, Affine] | None:
        """What the callee reaches from the element passed, as forms of the call's
        arguments: (lowest, highest) offsets."""
        fname, k, args = a.call
        fdef = self.lookup(fname)
        if fdef is None or not _element_param(fdef, k, v.ctype.base, self.env):
            return None
        span = callee_span(fdef, k, self.lookup)
        if span is None:
            return None
        names = [getattr(p, "name", None) for p in fdef.decl.type.args.params]
        out = []
        for lin in span:
            form = Affine.constant(lin.get("", 0))
            for key, c in lin.items():
                if key and c:
                    j = names.index(key) if key in names else -1
                    if j < 0 or j >= len(args) or args[j] is None:
                        return None
                    form = form + args[j].scale(c)
            out.append(form)
        return out[0], out[1]

    def block(self, v: Var, accs: list[RawAccess], passed: bool = False):
        """The extent of a pointer (to elements or rows) whose subscripts cannot be bounded,
        or (``passed``, a plain pointer) that the loop passes to functions whose spans are
        unknown (``row(p + i * m)``): the whole object it points into, as the runtime finds
        it at entry among the program's heap blocks and arrays (``extents.block_extent``);
        its accesses stay inside that object in any defined run of the original. None for
        pointers the loop assigns."""
        if v.name in self.info.scalar_writes:
            return None
        found = (object_extent(v) if v.ctype.pointer else None) if passed else \
            block_extent(v, accs)
        if found is None:
            return None
        self.inspections.append(found[1])
        return found[0]

    def inspected(self, v: Var, accs: list[RawAccess]):
        """The extent of a pointer with data-dependent subscripts, computed at entry by
        evaluating them over the iterations (``extents.inspected_extent``); for now only for
        the thread's pointers updated by atomics (a histogram's buckets)."""
        info = self.info
        if v.name not in self.updated:
            return None
        written = set(info.scalar_writes) | {a.name for a in info.accesses if a.write} | {
            n for n, mode in self.calls.through_calls().items() if "w" in mode}
        dims = {x.var for x in self.loops}

        def known(name: str) -> bool:
            return name in dims or name in self.env.enumerators or (
                name in self.scope and name not in written and name not in info.locals)

        found = inspected_extent(v, accs, unconditional(self.loops[-1].loop.stmt), known,
                                 lambda n: n in self.scope and self.scope[n].ctype.is_array_like
                                 and n not in dims)
        if found is None:
            return None
        self.inspections.append(found[1])
        return found[0]


def _mode(accs: list[RawAccess], passed: str) -> str:
    """An array's mode: its own reads and writes, and (``passed``) what callees do with it
    (an access passed to a call is in the callee's mode)."""
    own = [a for a in accs if a.call is None]
    return ("r" if any(a.read for a in own) or "r" in passed else "") + (
        "w" if any(a.write for a in own) or "w" in passed else "")


def _element_param(fdef: c_ast.FuncDef, k: int, base: str, env: TypeEnv) -> bool:
    """Whether parameter ``k`` is a plain pointer to (or array of) ``base`` elements."""
    names = pointee_names(fdef, k)
    return names is not None and env.scalar_of(list(names)) == base


def classify_sharing(d: Directive, loops: tuple[LoopDim, ...], info: BodyInfo, calls: CallInfo,
                     scope: dict[str, Var], env: TypeEnv, funcs: set[str],
                     func: c_ast.Node | None = None, updated: frozenset[str] = frozenset(),
                     lookup=lambda name: None) -> Sharing:
    """Place every variable the region uses: buffer, value, private, result or reduction
    (``func``: the function holding the region, where pointers get their values;
    ``updated``: the thread's pointers the loop only updates, by device atomics;
    ``lookup``: a called function's definition)."""
    return _Classifier(d, loops, info, calls, scope, env, funcs, func, updated,
                       lookup).classify()


def _name_plus_constant(e: c_ast.Node | None) -> tuple[str, int] | None:
    """``n`` -> ('n', 0), ``n + 1`` -> ('n', 1), ``n - 2`` -> ('n', -2); else None."""
    if isinstance(e, c_ast.ID):
        return e.name, 0
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-") and isinstance(e.left, c_ast.ID):
        c = const_int(e.right)
        return None if c is None else (e.left.name, c if e.op == "+" else -c)
    return None
