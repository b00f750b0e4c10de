"""Call spans: the elements a called function touches through a pointer parameter, as an
inclusive range affine in its parameters (``vranlc(n, x, a, y)`` touches ``y[0 .. n - 1]``).

Consumes a function definition and a parameter position; produces the range, or None when a
use of the parameter is not a subscript ``p[e]`` whose ``e`` is affine in the function's
unchanged parameters and the variables of canonical loops (step one, bounds in those
parameters) around it. Conditions are ignored: the range covers every use that may run.
"""
from __future__ import annotations

from pycparser import c_ast

from .accesses import names_written
from .ctypes_ import walk
from .loops import NotCanonical, canonical_loop
from .scratch import Lin, _add, _lin, _params, _scale, _Unknown

Span = tuple[Lin, Lin]  # inclusive (lo, hi), over the function's parameter names


class _Walk:
    def __init__(self, p: str, fixed):
        self.p, self.fixed = p, fixed
        self.los: list[Lin] = []
        self.his: list[Lin] = []

    def node(self, n: c_ast.Node | None, env: dict[str, tuple[Lin, Lin]]) -> None:
        if n is None:
            return
        if isinstance(n, c_ast.For):
            return self.loop(n, env)
        if isinstance(n, (c_ast.While, c_ast.DoWhile)) and _uses(self.p, n):
            raise _Unknown()
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID) and \
                n.name.name == self.p:
            self.node(n.subscript, env)
            return self.access(n.subscript, env)
        if isinstance(n, c_ast.ID) and n.name == self.p:
            raise _Unknown()  # the pointer as a value: passed on, compared, moved
        for _, child in n.children():
            self.node(child, env)

    def loop(self, n: c_ast.For, env: dict) -> None:
        if not _uses(self.p, n):
            return
        try:
            dim = canonical_loop(n)
        except NotCanonical:
            raise _Unknown() from None
        lb, ub = _lin(dim.lb, {}, self.fixed), _lin(dim.ub, {}, self.fixed)
        if _lin(dim.step, {}, self.fixed) != {"": 1} or dim.op not in ("<", "<=") or \
                dim.var in names_written(n.stmt):
            raise _Unknown()  # the variable must take each value of its range, in turn
        hi = _add(ub, {"": -1}) if dim.op == "<" else ub
        for e in (n.init, n.cond, n.next):
            self.node(e, env)
        self.node(n.stmt, {**env, dim.var: (lb, hi)})

    def access(self, e: c_ast.Node, env: dict) -> None:
        lin = _lin(e, {v: {v: 1} for v in env}, lambda name: name in env or self.fixed(name))
        lo = {k: c for k, c in lin.items() if k not in env}
        hi = dict(lo)
        for v, c in lin.items():
            if v in env:
                vlo, vhi = env[v]
                lo = _add(lo, _scale(vlo if c > 0 else vhi, c))
                hi = _add(hi, _scale(vhi if c > 0 else vlo, c))
        self.los.append(lo)
        self.his.append(hi)


def _uses(name: str, n: c_ast.Node) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in walk(n))


def callee_span(fdef: c_ast.FuncDef, k: int) -> Span | None:
    """The elements parameter ``k`` of ``fdef`` touches, when all its uses are subscripts
    with one affine range (the lowest and highest use agree in their parameter terms)."""
    params = _params(fdef)
    if params is None or k >= len(params) or params[k] is None:
        return None
    p, changed = params[k], names_written(fdef.body)
    if p in changed or any(isinstance(n, c_ast.Decl) and n.name == p for n in walk(fdef.body)):
        return None
    keep = {q for q in params if q is not None and q != p and q not in changed}
    w = _Walk(p, lambda name: name in keep)
    try:
        w.node(fdef.body, {})
        return (_extreme(w.los, min), _extreme(w.his, max)) if w.los else None
    except (_Unknown, RecursionError):
        return None


def _extreme(bounds: list[Lin], pick) -> Lin:
    """The lowest (``min``) or highest (``max``) bound when they differ by constants."""
    first = bounds[0]
    terms = {k: c for k, c in first.items() if k}
    if any({k: c for k, c in b.items() if k and c} != {k: c for k, c in terms.items() if c}
           for b in bounds):
        raise _Unknown()
    return {**terms, "": pick(b.get("", 0) for b in bounds)}
