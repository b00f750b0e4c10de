"""ompcl's own IR: frozen dataclasses for OpenMP concepts, the symbolic index IR and the
analysis results every later stage consumes.

C statements and expressions stay pycparser ``c_ast`` nodes; these classes describe
directives, loops, index expressions, the data a region uses and the verdict on offloading it.
C text for index expressions is produced only by ``codegen.names``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from .diagnostics import Reason, SourceLoc


# -- the closed sets of kinds and modes (plain strings, named once; checked on construction) --

class Storage:
    """Where a variable lives (``Var.storage``)."""

    GLOBAL, STATIC, LOCAL, PARAM = "global", "static", "local", "param"
    #: a variable the generated region code declares itself (a pointer tree's row widths)
    GENERATED = "generated"
    ALL = frozenset({GLOBAL, STATIC, LOCAL, PARAM, GENERATED})


class SymKind:
    """The kinds of ``Sym`` (its docstring says what each names)."""

    DIM, INNER, VAR, EXPR = "dim", "inner", "var", "expr"
    FIRST, LAST, MOD, DIV = "first", "last", "mod", "div"
    ALL = frozenset({DIM, INNER, VAR, EXPR, FIRST, LAST, MOD, DIV})
    #: vary with the iterations
    LOOP = frozenset({DIM, INNER, MOD, DIV})
    #: a dimension's variable in its first or last iteration
    ENDS = frozenset({FIRST, LAST})


class Mode:
    """How a kernel uses an array (``ArrayArg.mode``)."""

    READ, WRITE, READ_WRITE = "r", "w", "rw"
    ALL = frozenset({READ, WRITE, READ_WRITE})


def _check(value: str, allowed: frozenset[str], what: str) -> None:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {sorted(allowed)}")


@dataclass(frozen=True)
class Clause:
    """One OpenMP clause, e.g. ``reduction(+:s)`` -> name='reduction', op='+', args=('s',).

    ``modifiers``: the words before the argument's colon (``lastprivate(conditional: x)``,
    ``if(parallel: c)``, ``schedule(monotonic: dynamic)``, ``reduction(inscan, +: s)``).
    """

    name: str
    args: tuple[str, ...] = ()
    op: str | None = None
    loc: SourceLoc | None = None
    modifiers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Directive:
    """An OpenMP directive (``parallel for``, ``for``, ``parallel`` ...) with its clauses."""

    kind: str
    clauses: tuple[Clause, ...]
    loc: SourceLoc
    text: str = ""

    def clause(self, name: str) -> tuple[Clause, ...]:
        return tuple(c for c in self.clauses if c.name == name)

    def names_in(self, name: str) -> tuple[str, ...]:
        return tuple(a for c in self.clause(name) for a in c.args)

    @property
    def collapse(self) -> int:
        cl = self.clause("collapse")
        return int(cl[0].args[0]) if cl else 1


@dataclass(frozen=True)
class BoundDirective:
    """A directive bound to the statement that follows it in its function."""

    directive: Directive
    stmt: c_ast.Node
    func: c_ast.FuncDef | None
    pragma: c_ast.Pragma
    path: tuple[c_ast.Node, ...] = ()  # enclosing nodes, outermost first


@dataclass(frozen=True)
class CType:
    """A C object type after typedef resolution.

    ``base`` is the scalar element type ('double', 'unsigned int'); ``dims`` the array
    dimensions as C constant-expression text; ``pointer`` marks a pointer whose pointee is
    ``base`` with ``dims`` as the row shape (``double (*a)[N]`` -> pointer, dims=('N',)).
    """

    base: str
    dims: tuple[str, ...] = ()
    pointer: bool = False
    const: bool = False
    record: bool = False  # ``base`` is a struct type's spelling (typedef name or 'struct tag')

    @property
    def is_scalar(self) -> bool:
        return not self.dims and not self.pointer

    @property
    def is_array_like(self) -> bool:
        return bool(self.dims) or self.pointer

    @property
    def row_dims(self) -> tuple[str, ...]:
        """Dimensions below the outermost one (all of ``dims`` for a pointer to rows)."""
        return self.dims if self.pointer else self.dims[1:]


@dataclass(frozen=True)
class Var:
    """A variable visible at a region: its type, storage and declaration."""

    name: str
    ctype: CType
    storage: str  # a Storage
    decl: c_ast.Node | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check(self.storage, Storage.ALL, "storage")


@dataclass(frozen=True)
class LoopDim:
    """One canonical loop of a (collapsed) nest: ``for (var = lb; var OP ub; var += step)``."""

    var: str
    var_type: str
    lb: c_ast.Node
    ub: c_ast.Node
    op: str  # '<', '<=', '>', '>='
    step: c_ast.Node  # signed step expression
    loop: c_ast.For
    declares_var: bool = False


# -- symbolic index IR ------------------------------------------------------------------------

@dataclass(frozen=True, order=True)
class Sym:
    """A name an index expression may use.

    kind 'dim': loop variable of dimension ``key`` of the region's (collapsed) nest;
    kind 'inner': the variable of a canonical loop inside the body (``key`` tells loops apart);
    kind 'var': a loop-invariant variable visible where the region starts (``key`` is the
    identity of its declaration, so a same-named variable elsewhere is another symbol);
    kind 'expr': a loop-invariant expression that is not affine (``n / 2``), ``key`` its text;
    kinds 'first' / 'last': the value of dimension ``key``'s variable in its first / last
    iteration (known on the host at region entry);
    kinds 'mod' / 'div': ``form % c`` / ``form / c`` of a loop-varying form and a positive
    constant (their range follows from the form's).
    """

    kind: str  # a SymKind
    name: str
    key: int | str = 0
    payload: object = field(default=None, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        _check(self.kind, SymKind.ALL, "symbol kind")

    @property
    def is_loop(self) -> bool:
        """Varies with the iterations: a loop variable, or 'mod' / 'div' of a form that
        does (``payload`` = (form, positive divisor))."""
        return self.kind in SymKind.LOOP


Monomial = tuple[Sym, ...]  # sorted; a symbol appears once per power


def _mono_mul(a: Monomial, b: Monomial) -> Monomial:
    return tuple(sorted(a + b))


@dataclass(frozen=True)
class Affine:
    """A polynomial with integer coefficients over ``Sym`` s, kept affine in loop symbols by
    its users: ``sum(coef * prod(monomial)) + const``. Terms are sorted and non-zero."""

    terms: tuple[tuple[Monomial, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(sym: Sym, coef: int = 1) -> "Affine":
        return Affine((((sym,), coef),)) if coef else Affine()

    @staticmethod
    def constant(value: int) -> "Affine":
        return Affine((), value)

    @staticmethod
    def _make(terms: dict[Monomial, int], const: int) -> "Affine":
        return Affine(tuple(sorted((m, c) for m, c in terms.items() if c)), const)

    def __add__(self, other: "Affine") -> "Affine":
        terms = dict(self.terms)
        for m, c in other.terms:
            terms[m] = terms.get(m, 0) + c
        return Affine._make(terms, self.const + other.const)

    def __neg__(self) -> "Affine":
        return self.scale(-1)

    def __sub__(self, other: "Affine") -> "Affine":
        return self + (-other)

    def scale(self, k: int) -> "Affine":
        return Affine._make({m: c * k for m, c in self.terms}, self.const * k)

    def __mul__(self, other: "Affine") -> "Affine":
        terms: dict[Monomial, int] = {}
        for m, c in self.terms:
            terms[m] = terms.get(m, 0) + c * other.const
            for m2, c2 in other.terms:
                key = _mono_mul(m, m2)
                terms[key] = terms.get(key, 0) + c * c2
        for m2, c2 in other.terms:
            terms[m2] = terms.get(m2, 0) + self.const * c2
        return Affine._make(terms, self.const * other.const)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def syms(self) -> frozenset[Sym]:
        return frozenset(s for m, _ in self.terms for s in m)

    def loop_syms(self) -> frozenset[Sym]:
        return frozenset(s for s in self.syms() if s.is_loop)

    def is_affine_in_loops(self) -> bool:
        """No monomial holds two loop symbols (or one squared)."""
        return all(sum(s.is_loop for s in m) <= 1 for m, _ in self.terms)

    def coef(self, sym: Sym) -> "Affine":
        """The coefficient of ``sym`` (terms holding it once, with it divided out)."""
        out: dict[Monomial, int] = {}
        const = 0
        for m, c in self.terms:
            if m.count(sym) == 1:
                rest = tuple(s for s in m if s != sym)
                if rest:
                    out[rest] = out.get(rest, 0) + c
                else:
                    const += c
        return Affine._make(out, const)

    def without(self, syms: frozenset[Sym]) -> "Affine":
        """The terms that hold none of ``syms`` (and the constant)."""
        return Affine(tuple((m, c) for m, c in self.terms if not set(m) & syms), self.const)

    def substitute(self, sym: Sym, value: "Affine") -> "Affine":
        out = Affine.constant(self.const)
        for m, c in self.terms:
            term = Affine.constant(c)
            for s in m:
                term = term * (value if s == sym else Affine.of(s))
            out = out + term
        return out


@dataclass(frozen=True)
class Bound:
    """A host-side bound: the minimum, maximum or sum of its parts, or a coefficient times a
    part. Leaves are ``Affine`` forms over invariant and 'first'/'last' symbols."""

    op: str  # 'min' | 'max' | 'sum' | 'scale' | 'skip_lo' | 'skip_hi' | 'div' | 'lo_if' | 'hi_if'
    parts: tuple["Bound | Affine", ...]
    coef: Affine | None = None  # for 'scale'; the divisor for 'div'
    # skip_lo (b, c): b + 1 where b == c, else b (a range's low end that a guard 'v != c'
    # excludes); skip_hi (b, c): b - 1 where b == c, else b; lo_if (b, lo1, hi1, ...): b where
    # every lo_k <= hi_k, else an end that leaves the range empty (hi_if: the other end)


BoundExpr = Affine | Bound


@dataclass(frozen=True)
class Constraint:
    """A fact a guard establishes: ``form OP 0`` with OP one of '>=', '>', '<=', '<', '==',
    '!='."""

    form: Affine
    op: str


@dataclass(frozen=True)
class Extent:
    """Inclusive range of elements ``[lo, hi]`` a region touches, relative to the array's
    start (row pointers: in elements of the pointee, rows times the row size)."""

    lo: BoundExpr
    hi: BoundExpr
    row: tuple[str, ...] = ()  # row dimensions (C constant text) the first subscript scales


@dataclass(frozen=True)
class Tree:
    """A pointer tree (``double **m``, ``double ***u``) the kernel sees as one block of rows:
    at entry the runtime gathers the leaf rows the region touches, rows ``[lo, hi]`` of the
    root and elements ``[0, width)`` of each level below, into a staging block the kernel
    indexes as ``double (*)[w1]...[wn]`` (``ompcl_rt_tree``), and scatters written rows back
    after the launch. ``widths`` are host bounds of the levels below the root (one past the
    highest subscript), held at entry in the variables ``names``; ``los`` their lowest
    subscripts (the runtime declines a negative one)."""

    depth: int
    names: tuple[str, ...]
    widths: tuple["BoundExpr", ...]
    los: tuple["BoundExpr", ...]
    #: levels (below the root) whose width comes from the blocks their rows point into, at
    #: entry (``ompcl_rt_tree_width``), not from ``widths``
    objects: tuple[bool, ...] = ()


@dataclass(frozen=True)
class ArrayArg:
    """An array a kernel uses, passed as a ``__global`` buffer."""

    name: str
    var: Var
    mode: str  # a Mode (not checked: analysis builds it from the reads and writes it saw)
    extent: Extent | None  # None = the whole statically sized array
    tree: Tree | None = None  # a pointer tree gathered into a staging block


@dataclass(frozen=True)
class Inspection:
    """A data-dependent subscript range the host computes at region entry: the minimum and
    maximum of ``subscripts`` over every iteration, into ``ompcl_ilo_<name>`` and
    ``ompcl_ihi_<name>``. Sound because each iteration evaluates them unconditionally, from
    its loop variables and data the loop does not write (``reads``: arrays whose host copies
    are made valid first)."""

    name: str
    subscripts: tuple[c_ast.Node, ...] = field(compare=False, repr=False)
    reads: tuple[str, ...] = ()
    #: no subscripts: the range is the object the pointer points into (a heap block or a
    #: registered array), as the runtime finds it (``ompcl_rt_block``)
    block: bool = False


@dataclass(frozen=True)
class ScratchCheck:
    """A run-time check that a loop's thread-private scratch arrays are written before they
    are read in every iteration (analysis.scratchcheck): ``body``, a slice of the loop body
    that keeps its control flow and addresses and marks each scratch access
    (``OMPCL_SC_W``/``OMPCL_SC_R``) and each value it reads from memory (``OMPCL_SC_IN``);
    ``functions``, such slices of the called functions. The host runs it over every iteration
    when the device is chosen; the answer is reused while the entry values (``inputs``) and
    the values read stay the same."""

    arrays: tuple[tuple[str, str], ...]  # (scratch array, C type of its elements)
    body: c_ast.Node = field(compare=False, repr=False)
    locals: tuple[Var, ...] = ()  # the loop's variables declared outside it, per iteration
    functions: tuple[c_ast.FuncDef, ...] = field(default=(), compare=False, repr=False)
    inputs: tuple[str, ...] = ()  # variables of the enclosing function read: the cache key
    globals_read: tuple[str, ...] = ()  # file-scope variables read: checked against writes
    #: pointers of the enclosing function the loop accesses: the loop's array arguments,
    #: checked to lie apart from the scratch arrays instead of access by access
    region_roots: tuple[str, ...] = ()
    uniform: bool = False  # no loop variable in the slice: one iteration stands for all
    held: tuple[Var, ...] = ()  # scratch arrays of the enclosing function: the check's own


@dataclass(frozen=True)
class Reduction:
    name: str
    op: str
    ctype: str


@dataclass(frozen=True)
class Region:
    """An OpenMP work-sharing loop and everything known about offloading it."""

    id: int
    bound: BoundDirective
    loops: tuple[LoopDim, ...] = ()
    arrays: tuple[ArrayArg, ...] = ()
    scalars: tuple[Var, ...] = ()  # read-only shared / firstprivate scalars passed by value
    privates: tuple[Var, ...] = ()  # private scalars declared outside the loop
    lastprivates: tuple[Var, ...] = ()
    reductions: tuple[Reduction, ...] = ()
    functions: tuple[str, ...] = ()  # user functions called (printed as device functions)
    locals_used: tuple[Var, ...] = ()  # function-local variables the outlined code needs
    reasons: tuple[Reason, ...] = ()  # why it stays on the host (empty = offloadable)
    directive: Directive | None = None  # clauses merged for 'parallel' + 'for'
    scope: dict[str, Var] = field(default_factory=dict, compare=False, repr=False)
    context: str = "parallel-for"  # 'parallel-for' | 'region' (an omp for of team) | 'orphaned'
    team: int | None = None
    calls: object = field(default=None, compare=False, repr=False)  # analysis.calls.CallInfo
    #: C conditions on values known at entry that the analysis assumed (a scratch array's
    #: bounds); when one is false the original loop runs on the host
    preconditions: tuple[str, ...] = ()
    #: unswitched: the guards (C text) whose statements the device version leaves out; it
    #: runs when all are false (``analysis.unswitch``)
    guards: tuple[str, ...] = ()
    #: pairs of array arguments (names) the kernel's transformations assume are different
    #: memory (pointers the analysis cannot tell apart); when the ranges a launch maps for a
    #: pair overlap, the original loop runs on the host
    distinct: tuple[tuple[str, str], ...] = ()
    #: threadprivate variables the loop or its callees use (a team of one's host path gives
    #: its loop's threads the one thread's copies)
    threadprivates: tuple[str, ...] = ()
    #: a thread's arrays (or pointers) the loop only updates, in any order with the same
    #: result: one buffer for all iterations, updated by device atomics; ``updated_params``:
    #: the (function, parameter) pairs of the callees that update them
    updated: tuple[str, ...] = ()
    updated_params: tuple[tuple[str, str], ...] = ()
    #: those of ``updated`` whose updates may be grouped in any way (arrays in reduction
    #: clauses, per-thread accumulators, a thread's array only merged after the loop): a
    #: work-item may sum its floating-point updates apart before adding them in
    #: (``transform.privatize``)
    reassociable: tuple[str, ...] = ()
    inspections: tuple[Inspection, ...] = ()  # extents the host computes by inspection
    #: member chains the device version reads as variables computed at entry
    #: (``analysis.members``: each a ``Var`` whose declaration's initial value is the chain)
    hoists: tuple[Var, ...] = ()
    scratch_check: ScratchCheck | None = None  # scratch arrays checked at run time

    @property
    def offload(self) -> bool:
        return not self.reasons

    @property
    def loc(self) -> SourceLoc:
        return self.bound.directive.loc


@dataclass(frozen=True)
class Team:
    """A ``parallel`` region whose device version runs it with a team of one thread (always a
    legal execution): its code once, each of its ``omp for`` loops (``loops``: region ids) a
    kernel launch. The host version is the original region."""

    id: int
    bound: BoundDirective
    loops: tuple[int, ...] = ()
    privates: tuple[Var, ...] = ()  # the region's private and firstprivate variables
    firstprivates: tuple[Var, ...] = ()
    reductions: tuple[Reduction, ...] = ()
    reasons: tuple[Reason, ...] = ()
    #: its loops that stay on the host: the team of one runs them on its one thread (a
    #: legal schedule), so the device version is chosen only when the device is forced
    serial: tuple[int, ...] = ()
    #: the team queries its once-run code makes (``analysis.teams.once_queries``), which the
    #: team of one answers as the host's team would
    queries: tuple[str, ...] = ()

    @property
    def offload(self) -> bool:
        return not self.reasons

    @property
    def loc(self) -> SourceLoc:
        return self.bound.directive.loc


@dataclass(frozen=True)
class SpliceRange:
    """Where a region's pragma and loop sit in the user's text, and where the declaration of
    its enclosing function starts (outlined code goes just before it)."""

    start: int
    end: int
    func_start: int
    func_line: int
    #: conditional lines the text needs opened again before it (``placement.reopened``)
    reopen: tuple[str, ...] = ()


@dataclass(frozen=True)
class ResidencyPlan:
    """``keep[id]``: region ``id`` leaves its data on the device; ``syncs``: text ranges of
    loops to follow with a host sync (their bodies chain regions across iterations)."""

    keep: dict[int, bool]
    syncs: tuple[tuple[int, int], ...] = ()
    host: object = None  # analysis.hostaccess.HostPlan: the instrumented functions' probes


@dataclass(frozen=True)
class KernelSpec:
    """One kernel, ready to print: parameters as ``c_ast.Decl`` nodes (OpenCL qualifiers in
    ``quals``), prologue declarations, per-work-item privates and the rewritten body."""

    region_id: int
    name: str
    params: tuple[c_ast.Decl, ...]
    prologue: tuple[c_ast.Decl, ...]
    privates: tuple[c_ast.Decl, ...]
    body: c_ast.Compound
    dims: tuple[tuple[str, str], ...]  # (device name of the loop variable, OpenCL type)
    reductions: tuple[tuple[str, str, str], ...]  # (device name, OpenCL type, operator)
    lastprivates: tuple[tuple[str, str], ...]  # (device name, OpenCL type)
    functions: tuple[str, ...] = ()
    loc: SourceLoc | None = None
    directive_text: str = ""
    sites: tuple = ()  # transform.boundscheck.Site per checked access, by site number
    atomics: frozenset = frozenset()  # (operator, OpenCL type) of the atomic helpers called
    copies: tuple = ()  # transform.privatize.Private per array with a private copy
    narrow: bool = False  # every loop counter provably fits 32 bits (transform.narrowing)
    tiled: bool = False  # the blocked shape runs the two innermost loops in tiles
    identities: tuple = ()  # per reduction, the c_ast value its partial results start from
    jam: c_ast.Compound | None = None  # transform.jam: JAM iterations' body, inner loops fused


@dataclass(frozen=True)
class HostParam:
    """One parameter of a region's outlined host function: the caller's variable, how it is
    passed (role) and the parameter's declaration.

    Roles: 'lastprivate', 'linear' and 'reduction' (address passed, the result written back
    when the device ran the loop; a linear or reduction variable's value read first), 'shared' (address passed: a scalar the kernel updates atomically in
    place), 'array' (as a pointer to rows), 'value' (read-only scalar or pointer, by value
    under its own name).
    """

    var: Var
    role: str
    decl: c_ast.Decl

    @property
    def by_address(self) -> bool:
        return self.role in ("lastprivate", "reduction", "shared", "linear")


@dataclass(frozen=True)
class HostInterface:
    """The outlined host function of a region: its parameters, in call order."""

    region_id: int
    params: tuple[HostParam, ...]
