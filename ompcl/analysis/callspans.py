"""Call spans: the elements a called function touches through a pointer parameter, as an
inclusive range affine in its parameters (``vranlc(n, x, a, y)`` touches ``y[0 .. n - 1]``).

Consumes a function definition and a parameter position; produces the range, or None when a
use of the parameter is not a subscript ``p[e]`` whose ``e`` is affine in the function's
unchanged parameters and the variables of canonical loops (step one, bounds in those
parameters) around it, or the pointer (``p``, ``p + e``, ``&p[e]``) passed on to a function
whose own span of that parameter is known (``lookup``), to a few calls deep. Conditions are
ignored: the range covers every use that may run.
"""
from __future__ import annotations

from pycparser import c_ast

from .accesses import names_written
from .ctypes_ import walk
from .loops import NotCanonical, canonical_loop
from .scratch import Lin, _add, _lin, _params, _scale, _Unknown

Span = tuple[Lin, Lin]  # inclusive (lo, hi), over the function's parameter names


#: how many calls deep a pointer is followed
MAX_DEPTH = 4


class _Walk:
    def __init__(self, p: str, fixed, base: tuple | None, lookup, depth: int):
        self.p, self.fixed, self.base, self.lookup, self.depth = p, fixed, base, lookup, depth
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
        if isinstance(n, c_ast.FuncCall) and n.args is not None and _uses(self.p, n.args):
            return self.call(n, env)
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

    def lin(self, e: c_ast.Node, env: dict) -> Lin:
        """``e`` as a form over the function's unchanged parameters and the open loops'
        variables (``_Unknown`` otherwise)."""
        return _lin(e, {v: {v: 1} for v in env}, lambda name: name in env or self.fixed(name))

    def affine(self, e: c_ast.Node, env: dict) -> bool:
        try:
            self.lin(e, env)
            return True
        except _Unknown:
            return False

    def access(self, e: c_ast.Node, env: dict) -> None:
        lo, hi = self.ranged(self.lin(e, env), env)
        self.los.append(lo)
        self.his.append(hi)


    def call(self, n: c_ast.FuncCall, env: dict) -> None:
        """The pointer passed on: each argument that is ``p + e`` (or ``&p[e]``) widens the
        range by the callee's span from ``e``, its parameters replaced by the arguments."""
        fdef = self.lookup(n.name.name) if isinstance(n.name, c_ast.ID) else None
        if fdef is None or self.depth >= MAX_DEPTH:
            raise _Unknown()
        args = n.args.exprs
        for j, a in enumerate(args):
            if not _uses(self.p, a):
                self.node(a, env)
                continue
            off = _offset(a, self.p)
            if off is None or pointee_names(fdef, j) != self.base:
                raise _Unknown()
            self.node(off, env)
            span = callee_span(fdef, j, self.lookup, self.depth + 1)
            if span is None:
                raise _Unknown()
            names = _params(fdef) or []
            subs = {q: self.lin(args[i], env) for i, q in enumerate(names)
                    if q is not None and i < len(args) and not _uses(self.p, args[i])
                    and self.affine(args[i], env)}
            start = self.lin(off, env)
            for end, into in zip(span, (self.los, self.his)):
                form = dict(start)
                for key, c in end.items():
                    if key and c and key not in subs:
                        raise _Unknown()
                    form = _add(form, _scale(subs[key], c) if key else {"": c})
                lo, hi = self.ranged(form, env)
                into.append(lo if into is self.los else hi)

    def ranged(self, lin: Lin, env: dict) -> tuple[Lin, Lin]:
        """The lowest and highest value of ``lin`` over the open loops' ranges."""
        lo = {k: c for k, c in lin.items() if k not in env}
        hi = dict(lo)
        for v, c in lin.items():
            if v in env:
                vlo, vhi = env[v]
                lo = _add(lo, _scale(vlo if c > 0 else vhi, c))
                hi = _add(hi, _scale(vhi if c > 0 else vlo, c))
        return lo, hi


def _offset(a: c_ast.Node, p: str) -> c_ast.Node | None:
    """``e`` of an argument ``p``, ``p + e``, ``e + p`` or ``&p[e]``; None for any other
    use of ``p``."""
    if isinstance(a, c_ast.ID) and a.name == p:
        return c_ast.Constant("int", "0")
    if isinstance(a, c_ast.BinaryOp) and a.op == "+":
        for x, y in ((a.left, a.right), (a.right, a.left)):
            if isinstance(x, c_ast.ID) and x.name == p and not _uses(p, y):
                return y
    if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef) \
            and isinstance(a.expr.name, c_ast.ID) and a.expr.name.name == p and \
            not _uses(p, a.expr.subscript):
        return a.expr.subscript
    return None


def pointee_names(fdef: c_ast.FuncDef, k: int) -> tuple | None:
    """The element type's names of parameter ``k`` when it is a plain pointer (or array)
    of a named type, qualifiers aside; None otherwise."""
    params = fdef.decl.type.args.params if fdef.decl.type.args else []
    if k >= len(params) or not isinstance(params[k], c_ast.Decl):
        return None
    t = params[k].type
    if not isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)) or \
            not isinstance(t.type, c_ast.TypeDecl):
        return None
    names = getattr(t.type.type, "names", None)
    return tuple(names) if names else None


def _uses(name: str, n: c_ast.Node) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in walk(n))


def callee_span(fdef: c_ast.FuncDef, k: int, lookup=lambda name: None,
                depth: int = 0) -> Span | None:
    """The elements parameter ``k`` of ``fdef`` touches, when all its uses are subscripts
    with one affine range (the lowest and highest use agree in their parameter terms), or
    passings to functions (``lookup``: a called function's definition) with such spans."""
    params = _params(fdef)
    if params is None or k >= len(params) or params[k] is None:
        return None
    p, changed = params[k], names_written(fdef.body)
    if p in changed or any(isinstance(n, c_ast.Decl) and n.name == p for n in walk(fdef.body)):
        return None
    keep = {q for q in params if q is not None and q != p and q not in changed}
    w = _Walk(p, lambda name: name in keep, pointee_names(fdef, k), lookup, depth)
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
