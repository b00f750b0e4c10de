"""ompcl's own IR: frozen dataclasses for OpenMP concepts and analysis results.

C statements and expressions stay pycparser ``c_ast`` nodes; these classes describe
directives, loops, the data a region uses and the verdict on offloading it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from .diagnostics import SourceLoc


@dataclass(frozen=True)
class Clause:
    """One OpenMP clause, e.g. ``reduction(+:s)`` -> name='reduction', op='+', args=('s',)."""

    name: str
    args: tuple[str, ...] = ()
    op: str | None = None
    loc: SourceLoc | None = None


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
    storage: str  # 'global' | 'static' | 'local' | 'param'
    decl: c_ast.Node | None = field(default=None, compare=False, repr=False)


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


@dataclass(frozen=True)
class Affine:
    """An affine form: sum(coef[v] * v) + const, coefficients and constant as C text."""

    coefs: tuple[tuple[str, str], ...]
    const: str = "0"

    def coef(self, var: str) -> str | None:
        return dict(self.coefs).get(var)


@dataclass(frozen=True)
class ArrayArg:
    """An array a kernel uses, passed as a ``__global`` buffer."""

    name: str
    var: Var
    mode: str  # 'r', 'w', 'rw'
    extent: tuple[str, str] | None  # (lo, hi) inclusive element range as host C, None = whole


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
    reasons: tuple[str, ...] = ()  # why it stays on the host (empty = offloadable)
    features: tuple[tuple[str, float], ...] = ()
    directive: Directive | None = None  # clauses merged for 'parallel' + 'for'

    @property
    def offload(self) -> bool:
        return not self.reasons

    @property
    def loc(self) -> SourceLoc:
        return self.bound.directive.loc
