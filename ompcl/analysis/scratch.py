"""Scratch arrays: does every iteration write what it reads of a thread's own array?

Consumes a loop body (``c_ast``), the name of an array each thread has its own copy of, and a
way to find called functions' definitions; produces a yes/no answer. Yes means a private copy
per iteration, uninitialised, gives what the thread's array gives: each element an iteration
may read was written before in the same iteration (so nothing flows between iterations).

The proof is by boxes: a write ``a[v + c]...`` in loops over ``v`` (step one, unconditional
in their bodies) writes the box of its subscripts' ranges; a read is fine when its box lies
inside one box already written. Bounds are affine in names the body never assigns, compared
by constant differences. A call passing the array (or one of its rows) is followed into the
callee, whose parameters stand for the call's arguments. Anything else (a branch's writes, a
pointer to the array, an unknown callee) counts as no write, or as a read of everything.
"""
from __future__ import annotations

from typing import Callable

from pycparser import c_ast

from .accesses import arrays_written, names_written
from .ctypes_ import mentions, subscripts, walk
from .extents import JUMPS
from .loops import NotCanonical, canonical_loop

#: an affine bound: name -> coefficient, with the constant under ''
Lin = dict
Box = tuple  # ((lo, hi, step), ...) per dimension: lo, lo + step, ..., hi
Lookup = Callable[[str], "c_ast.FuncDef | None"]


class _Unknown(Exception):
    """The body does something the proof does not follow."""


def _lin(e: c_ast.Node, subst: dict[str, Lin], fixed: Callable[[str], bool]) -> Lin:
    if isinstance(e, c_ast.Constant) and e.type in ("int", "long int", "unsigned int"):
        try:
            return {"": int(e.value.rstrip("uUlL"), 0)}
        except ValueError:
            raise _Unknown() from None
    if isinstance(e, c_ast.ID):
        if e.name in subst:
            return dict(subst[e.name])
        if not fixed(e.name):
            raise _Unknown()
        return {e.name: 1}
    if isinstance(e, c_ast.ArrayRef):  # an element of an array the body never writes
        base, subs = subscripts(e)
        if not (isinstance(base, c_ast.ID) and base.name not in subst and fixed(base.name)):
            raise _Unknown()
        key = [base.name]
        for x in subs:
            v = _lin(x, subst, fixed)
            if not set(v) <= {""}:
                raise _Unknown()
            key.append(str(v.get("", 0)))
        return {"[".join(key): 1}
    if isinstance(e, c_ast.Cast):
        return _lin(e.expr, subst, fixed)
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
        v = _lin(e.expr, subst, fixed)
        return {k: -x for k, x in v.items()} if e.op == "-" else v
    if isinstance(e, c_ast.BinaryOp) and e.op == "<<":  # a constant shift (1 << MK)
        a, b = _lin(e.left, subst, fixed), _lin(e.right, subst, fixed)
        if not set(a) | set(b) <= {""} or a.get("", 0) < 0 or not 0 <= b.get("", 0) < 63:
            raise _Unknown()
        return {"": a.get("", 0) << b.get("", 0)}
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*"):
        a, b = _lin(e.left, subst, fixed), _lin(e.right, subst, fixed)
        if e.op == "*":
            if set(a) <= {""}:
                a, b = b, a
            if not set(b) <= {""}:
                raise _Unknown()
            return {k: x * b.get("", 0) for k, x in a.items()}
        sign = 1 if e.op == "+" else -1
        out = dict(a)
        for k, x in b.items():
            out[k] = out.get(k, 0) + sign * x
        return out
    raise _Unknown()


def _diff(a: Lin, b: Lin) -> int | None:
    """a - b when it is a constant, else None."""
    d = {k: a.get(k, 0) - b.get(k, 0) for k in set(a) | set(b)}
    return d.get("", 0) if all(v == 0 for k, v in d.items() if k) else None


def _inside(inner: Box, outer: Box, assume: list | None = None) -> bool:
    """Whether box ``inner`` lies in ``outer``; with ``assume`` (a list), a bound difference
    that is not a constant is taken as the condition 'difference >= 0', appended to it (not
    for a strided dimension of ``outer``, whose every element must be on its lattice)."""
    if len(inner) != len(outer):
        return False
    needed = []
    for (lo, hi, step), (wlo, whi, wstep) in zip(inner, outer):
        if wstep > 1:
            d1, d2 = _diff(lo, wlo), _diff(whi, hi)
            if d1 is None or d2 is None or d1 < 0 or d2 < 0 or d1 % wstep or (
                    _diff(hi, lo) != 0 and step % wstep):
                return False
            continue
        for a, b in ((lo, wlo), (whi, hi)):
            d = _diff(a, b)
            if d is None and assume is not None:
                needed.append(_add(a, _scale(b, -1)))
            elif d is None or d < 0:
                return False
    if assume is not None:
        assume += [x for x in needed if x not in assume]
    return True


class _Proof:
    """Walks statements in order; ``done``: boxes written by statements that have finished
    (bounds free of open loops' variables); ``open``: per open loop, boxes written in its
    current iteration (in terms of the open loops' variables), which count once it ends for
    the whole range of its variable."""

    def __init__(self, fixed: Callable[[str], bool], lookup: Lookup, depth: int = 0,
                 named: bool = False, entry: Callable[[str], bool] | None = None):
        self.fixed, self.lookup, self.depth = fixed, lookup, depth
        #: names known where the loop starts: conditions on them may be checked there
        self.entry = entry
        self.assumed: list[Lin] = []
        self.named = named  # the array is a global: called functions may use it by name
        self.done: list[Box] = []
        self.open: list[list[Box]] = []

    def touches(self, name: str, node: c_ast.Node | None) -> bool:
        """Whether ``node`` may use array ``name``: by name, or through a called function that
        names it (a global's)."""
        if node is None:
            return False
        if mentions(name, node):
            return True
        return self.named and any(
            isinstance(n, c_ast.FuncCall) and _names_in_callee(n, name, self.lookup)
            for n in walk(node))

    def _sees_global(self, name: str, body: c_ast.Node, params: list) -> bool:
        """Whether a callee's ``body`` may use the caller's array ``name`` by its name; a
        parameter of that name hides it (then only the callee's own callees may see it)."""
        if name not in params and not _hides(body, name):
            return self.touches(name, body)
        return self.named and any(isinstance(n, c_ast.FuncCall) and _names_in_callee(
            n, name, self.lookup) for n in walk(body))

    # -- boxes ------------------------------------------------------------------------------
    def _lin(self, e: c_ast.Node, env: dict, subst: dict) -> Lin:
        return _lin(e, {**subst, **{v: {sym: 1} for v, (sym, _, _) in env.items()}},
                    self.fixed)

    def _sym(self, var: str) -> str:
        """The symbol of a loop variable: a callee's are apart from its callers' (a callee's
        'i' is not the caller's 'i' that a parameter may stand for)."""
        return var if not self.depth else f"{var}@{self.depth}"

    def _hull(self, e: c_ast.Node, env: dict, subst: dict, keep: set) -> tuple[Lin, Lin, int]:
        """The range of a subscript over every iteration of the open loops whose variables
        are not in ``keep`` (those stay as they are: one iteration's), with its step."""
        lin = self._lin(e, env, subst)
        ranges = {sym: (lo, hi) for v, (sym, lo, hi) in env.items() if v not in keep}
        loopvars = [k for k in lin if k in ranges]
        if not loopvars:
            return lin, lin, 1
        if len(loopvars) > 1:
            raise _Unknown()
        v = loopvars[0]
        a = lin.pop(v)
        lo, hi = ranges[v]
        if a < 0:
            lo, hi = hi, lo
        return _add(lin, _scale(lo, a)), _add(lin, _scale(hi, a)), abs(a)

    def _point(self, subs: list, env: dict, subst: dict) -> Box:
        """The box one iteration of the open loops touches: each subscript a point in their
        variables."""
        out = []
        for e in subs:
            lin = self._lin(e, env, subst)
            out.append((lin, lin, 1))
        return tuple(out)

    def _record(self, box: Box) -> None:
        (self.open[-1] if self.open else self.done).append(box)

    # -- statements --------------------------------------------------------------------------
    def stmt(self, s: c_ast.Node | None, name: str, env: dict, subst: dict, cover: bool) -> None:
        if s is None or not self.touches(name, s):
            return
        if isinstance(s, c_ast.Compound):
            local = dict(subst)  # the block's scalar definitions, in order
            for item in s.block_items or []:
                self.stmt(item, name, env, local, cover)
                self._define(item, name, env, local)
            return
        if isinstance(s, c_ast.For):
            return self.loop(s, name, env, subst, cover)
        if isinstance(s, c_ast.If):
            self.expr(s.cond, name, env, subst)
            self.stmt(s.iftrue, name, env, subst, False)
            self.stmt(s.iffalse, name, env, subst, False)
            return
        if isinstance(s, c_ast.Decl):
            return self.expr(s.init, name, env, subst)
        if isinstance(s, c_ast.DeclList):
            for d in s.decls:
                self.expr(d.init, name, env, subst)
            return
        if isinstance(s, (c_ast.Assignment, c_ast.FuncCall, c_ast.UnaryOp, c_ast.BinaryOp,
                          c_ast.TernaryOp, c_ast.Cast, c_ast.ExprList, c_ast.ArrayRef,
                          c_ast.Return)):
            return self.expr(s, name, env, subst, cover)
        raise _Unknown()  # while loops, switch, labels, ...

    def _define(self, item: c_ast.Node, name: str, env: dict, subst: dict) -> None:
        """After ``item``: a scalar it sets to an affine value stands for that value; others
        it may change stand for nothing."""
        target = value = None
        if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(
                item.lvalue, c_ast.ID):
            target, value = item.lvalue.name, item.rvalue
        elif isinstance(item, c_ast.Decl) and item.name and item.init is not None and \
                isinstance(item.type, c_ast.TypeDecl):
            target, value = item.name, item.init
        for n in assigned_names(item):
            subst.pop(n, None)
        if target is not None and target != name and target not in env:
            try:
                subst[target] = self._lin(value, env, subst)
            except _Unknown:
                pass

    def loop(self, s: c_ast.For, name: str, env: dict, subst: dict, cover: bool) -> None:
        try:
            dim = canonical_loop(s)
        except NotCanonical:
            raise _Unknown() from None
        for e in (dim.lb, dim.ub, dim.step):
            self.expr(e, name, env, subst)
        step = self._lin(dim.step, env, subst)
        lb, ub = self._lin(dim.lb, env, subst), self._lin(dim.ub, env, subst)
        if dim.var in env or any(k in {sym for sym, _, _ in env.values()}
                                 for k in list(lb) + list(ub)):
            raise _Unknown()  # a triangular nest, or a loop variable that hides another
        if step == {"": 1} and dim.op in ("<", "<="):
            lo, hi = lb, (_add(ub, {"": -1}) if dim.op == "<" else ub)
        elif step == {"": -1} and dim.op in (">", ">="):
            lo, hi = (_add(ub, {"": 1}) if dim.op == ">" else ub), lb
        else:
            raise _Unknown()
        if dim.var in names_written(s.stmt):
            raise _Unknown()  # the variable skips values of its range
        jumps = any(isinstance(n, JUMPS) for n in walk(s.stmt))
        sym = self._sym(dim.var)
        inner = {**env, dim.var: (sym, lo, hi)}
        self.open.append([])
        try:
            self.stmt(s.stmt, name, inner, subst, cover and not jumps)
        finally:
            boxes = self.open.pop()
        runs = self._runs(lo, hi)
        for box in boxes:  # written in every iteration: over the variable's whole range
            whole = _over(box, sym, lo, hi)
            if whole is not None and (runs or whole is not box):
                self._record(whole)  # (a box apart from the variable needs one iteration)

    def _runs(self, lo: Lin, hi: Lin) -> bool:
        """Whether a loop over [lo, hi] surely runs: by constants, or by a condition on
        values known where the work-sharing loop starts (assumed, checked there)."""
        d = _diff(hi, lo)
        if d is not None:
            return d >= 0
        cond = _add(hi, _scale(lo, -1))
        if self.entry is None or not all(k == "" or cond[k] == 0 or self.entry(k.split("[")[0])
                                         for k in cond):
            return False
        if cond not in self.assumed:
            self.assumed.append(cond)
        return True

    # -- expressions -------------------------------------------------------------------------
    def expr(self, e: c_ast.Node | None, name: str, env: dict, subst: dict,
             cover: bool = False) -> None:
        if e is None or not self.touches(name, e):
            return
        if isinstance(e, c_ast.Assignment):
            target, subs = subscripts(e.lvalue)
            if isinstance(target, c_ast.ID) and target.name == name:
                for x in subs:
                    self.expr(x, name, env, subst)
                self.expr(e.rvalue, name, env, subst)
                if e.op != "=":
                    self.read(subs, env, subst)
                if cover:
                    try:
                        self._record(self._point(subs, env, subst))
                    except _Unknown:
                        pass  # not a box ompcl can name: no write counted
                return
            self.expr(e.lvalue, name, env, subst)
            return self.expr(e.rvalue, name, env, subst)
        if isinstance(e, c_ast.ArrayRef):
            target, subs = subscripts(e)
            if isinstance(target, c_ast.ID) and target.name == name:
                for x in subs:
                    self.expr(x, name, env, subst)
                return self.read(subs, env, subst)
        if isinstance(e, c_ast.FuncCall):
            return self.call(e, name, env, subst, cover)
        if isinstance(e, c_ast.ID) and e.name == name:
            raise _Unknown()  # the whole array as a value: a pointer escapes
        for _, child in e.children():
            self.expr(child, name, env, subst)

    def read(self, subs: list, env: dict, subst: dict) -> None:
        """Fine when what the read may touch lies in a box written before: in this iteration
        of an open loop (the loops inside it over their whole ranges), or before them all."""
        names = list(env)
        levels = [(set(names[:j + 1]), self.open[j]) for j in range(len(self.open))]
        tried = []
        for keep, boxes in reversed([(set(), self.done)] + levels):
            try:
                box = tuple(self._hull(x, env, subst, keep) for x in subs)
            except _Unknown:
                continue
            if any(_inside(box, w) for w in boxes):
                return
            tried += [(box, w) for w in boxes]
        for box, w in tried:  # what holds if the loop's bounds are as the code implies
            cond: list = []
            if self.entry is not None and _inside(box, w, cond) and all(
                    k == "" or c[k] == 0 or self.entry(k.split("[")[0])
                    for c in cond for k in c):
                self.assumed += [c for c in cond if c not in self.assumed]
                return
        raise _Unknown()

    def call(self, e: c_ast.FuncCall, name: str, env: dict, subst: dict, cover: bool) -> None:
        args = e.args.exprs if e.args is not None else []
        mine = [k for k, a in enumerate(args) if mentions(name, a)]
        for k, a in enumerate(args):
            if k not in mine:
                self.expr(a, name, env, subst)
        fname = getattr(e.name, "name", None)
        fdef = self.lookup(fname) if isinstance(fname, str) else None
        if not mine:
            if not self.touches(name, e):
                return
            if fdef is None or self.depth >= 3:
                raise _Unknown()
            return self._enter(fdef, args, None, name, name, (), env, subst, cover)
        if fdef is None or self.depth >= 3 or len(mine) != 1:
            raise _Unknown()
        k = mine[0]
        arg, shift = self._shifted(args[k], name, env, subst)
        params = _params(fdef)
        if params is None or len(params) != len(args) or params[k] is None:
            raise _Unknown()
        if params[k] != name and self._sees_global(name, fdef.body, params):
            raise _Unknown()  # the callee also sees the caller's array by its name
        prefix = subscripts(arg)[1]
        for x in prefix:
            self.expr(x, name, env, subst)
        pre = self._point(prefix, env, subst)
        self._enter(fdef, args, k, params[k], name, pre, env, subst, cover, shift)

    def _shifted(self, arg: c_ast.Node, name: str, env: dict, subst: dict) -> tuple[c_ast.Node,
                                                                                   Lin]:
        """The array (or row) an argument passes and how far into it it points: ``a`` ->
        (a, 0), ``a - 1`` -> (a, -1), ``a[i] + m`` -> (a[i], m); the offset affine."""
        shift: Lin = {}
        if isinstance(arg, c_ast.BinaryOp) and arg.op in "+-" and _row_of(arg.left, name):
            if mentions(name, arg.right):
                raise _Unknown()
            self.expr(arg.right, name, env, subst)
            off = self._lin(arg.right, env, subst)
            shift, arg = (off if arg.op == "+" else _scale(off, -1)), arg.left
        if not _row_of(arg, name):
            raise _Unknown()
        return arg, shift

    def _enter(self, fdef: c_ast.FuncDef, args: list, k: int | None, inner: str, name: str,
               pre: Box, env: dict, subst: dict, cover: bool, shift: Lin | None = None
               ) -> None:
        """Follow a call into ``fdef``, where the array (or its row ``pre``) is ``inner``,
        its first subscript ``shift`` elements into the caller's: the callee's parameters
        stand for the call's arguments (in the caller's terms)."""
        shift = shift or {}
        params = _params(fdef)
        if params is None or len(params) != len(args):
            raise _Unknown()
        if any(isinstance(n, (c_ast.Goto, c_ast.Label)) for n in walk(fdef.body)):
            raise _Unknown()
        if k is None and inner in params:
            raise _Unknown()  # a parameter hides the global
        given = {}
        for j, (p, a) in enumerate(zip(params, args)):
            if j != k and p is not None:
                try:
                    given[p] = self._lin(a, env, subst)
                except _Unknown:
                    pass
        if names_written(fdef.body) & set(given):
            raise _Unknown()
        items = fdef.body.block_items or []
        early = any(isinstance(n, c_ast.Return) for item in items[:-1] for n in walk(item)) or (
            items and not isinstance(items[-1], c_ast.Return)
            and any(isinstance(n, c_ast.Return) for n in walk(items[-1])))
        sub = _Proof(lambda n: False, self.lookup, self.depth + 1, self.named and k is None,
                     self.entry)
        sub.done = [_moved(w[len(pre):], _scale(shift, -1)) for boxes in [self.done] + self.open
                    for w in boxes if _prefix_is(w, pre)]
        sub.stmt(fdef.body, inner, {}, given, True)
        self.assumed += [c for c in sub.assumed if c not in self.assumed]
        if cover and not early:
            for w in sub.done:
                self._record(pre + _moved(w, shift))


def _scale(x: Lin, a: int) -> Lin:
    return {k: a * y for k, y in x.items()}


def _over(box: Box, var: str, lo: Lin, hi: Lin) -> Box | None:
    """A box written at every value of ``var`` in [lo, hi], as one box: ``var`` in one
    subscript, whose range at each value is a tile [c*var + e, c*var + e + c - 1] (a point
    for c = 1), so consecutive values' tiles abut, or a point c*var + e (every c-th element:
    a strided dimension). None when it is not one box."""
    dims = [k for k, (a, b, _) in enumerate(box) if a.get(var, 0) or b.get(var, 0)]
    if not dims:
        return box
    if len(dims) > 1:
        return None
    (a, b, step) = box[dims[0]]
    c = a.get(var, 0)
    if c <= 0 or b.get(var, 0) != c or step != 1:
        return None
    if _diff(b, a) == c - 1:
        step = 1
    elif _diff(b, a) == 0:
        step = c
    else:
        return None
    low = _add({k: x for k, x in a.items() if k != var}, _scale(lo, c))
    high = _add({k: x for k, x in b.items() if k != var}, _scale(hi, c))
    out = list(box)
    out[dims[0]] = (low, high, step)
    return tuple(out)


def _moved(box: Box, shift: Lin) -> Box:
    """``box`` with its first dimension moved by ``shift`` elements."""
    if not shift or not box:
        return box
    (lo, hi, step), rest = box[0], box[1:]
    return ((_add(lo, shift), _add(hi, shift), step),) + rest


def _add(a: Lin, b: Lin) -> Lin:
    out = dict(a)
    for k, x in b.items():
        out[k] = out.get(k, 0) + x
    return out


def _prefix_is(box: Box, pre: Box) -> bool:
    return len(box) > len(pre) and all(
        _diff(lo, plo) == 0 and _diff(hi, phi) == 0 and step == pstep
        for (lo, hi, step), (plo, phi, pstep) in zip(box, pre))


def _names_in_callee(call: c_ast.FuncCall, name: str, lookup: Lookup, depth: int = 0) -> bool:
    """Whether the function ``call`` calls (or one it calls) may use global ``name``; a
    callee without a visible definition may not (it is a library function: analysis.calls
    keeps loops calling unknown user functions on the host)."""
    fname = getattr(call.name, "name", None)
    fdef = lookup(fname) if isinstance(fname, str) else None
    if fdef is None or depth > 3:
        return False
    params = _params(fdef) or []
    if name in params or _hides(fdef.body, name):
        return False
    return mentions(name, fdef.body) or any(
        isinstance(n, c_ast.FuncCall) and _names_in_callee(n, name, lookup, depth + 1)
        for n in walk(fdef.body))


def _hides(body: c_ast.Compound, name: str) -> bool:
    """Whether a function body declares its own ``name`` at its top, before any use of the
    name (so the body never sees a global of that name)."""
    for item in body.block_items or []:
        if isinstance(item, c_ast.Decl) and item.name == name:
            return not mentions(name, item.init)
        if mentions(name, item):
            return False
    return False


def _row_of(a: c_ast.Node, name: str) -> bool:
    """``a`` is the array ``name`` or one of its rows (``name[i]``, ``name[i][j]``)."""
    base, _ = subscripts(a)
    return isinstance(base, c_ast.ID) and base.name == name


def _params(fdef: c_ast.FuncDef) -> list[str | None] | None:
    args = fdef.decl.type.args
    if args is None:
        return []
    out = []
    for p in args.params:
        if isinstance(p, c_ast.EllipsisParam):
            return None
        out.append(getattr(p, "name", None))
    if out == [None] and isinstance(args.params[0], c_ast.Typename):
        return []  # (void)
    return out


def assigned_names(body: c_ast.Node) -> set[str]:
    """Names ``body`` may change: scalars assigned, incremented, declared or whose address it
    takes; arrays whose elements it assigns or that it passes to a function."""
    out = names_written(body) | arrays_written(body)
    for n in walk(body):
        if isinstance(n, c_ast.Decl) and n.name:
            out.add(n.name)
        elif isinstance(n, c_ast.FuncCall) and n.args is not None:
            out.update(base.name for base in (subscripts(a)[0] for a in n.args.exprs)
                       if isinstance(base, c_ast.ID))
    return out


def written_before_read(name: str, body: c_ast.Node, assigned: set[str],
                        lookup: Lookup, named: bool = False,
                        entry: Callable[[str], bool] | None = None) -> bool | tuple[str, ...]:
    """Whether each run of ``body`` writes every element of array ``name`` it may read before
    reading it. ``assigned``: names the loop body may assign (bounds in them are not
    compared); ``lookup``: a called function's definition, or None; ``named``: the array
    is a global, which called functions may use by name. With ``entry`` (names whose values
    are known where the loop starts), a proof that needs conditions on them returns those
    conditions as C expressions, to be checked before the loop runs on the device."""
    if any(isinstance(n, (c_ast.Goto, c_ast.Label)) for n in walk(body)):
        return False
    proof = _Proof(lambda n: n not in assigned, lookup, named=named, entry=entry)
    try:
        proof.stmt(body, name, {}, {}, True)
    except (_Unknown, RecursionError):
        return False
    if proof.assumed:
        return tuple(f"{_c_text(c)} >= 0" for c in _strongest(proof.assumed))
    return True


def _strongest(conds: list[Lin]) -> list[Lin]:
    """Of conditions 'e + c >= 0' with the same e, the one with the smallest c."""
    best: dict[tuple, Lin] = {}
    for c in conds:
        key = tuple(sorted((k, v) for k, v in c.items() if k and v))
        if key not in best or c.get("", 0) < best[key].get("", 0):
            best[key] = c
    return list(best.values())


def _c_text(lin: Lin) -> str:
    """C text of an affine bound (names, or array elements keyed 'a[0[1')."""
    parts = []
    for key in sorted(k for k in lin if k):
        coef = lin[key]
        if coef == 0:
            continue
        base, *subs = key.split("[")
        text = base + "".join(f"[{x}]" for x in subs)
        parts.append(f"{coef} * {text}" if coef != 1 else text)
    const = lin.get("", 0)
    if const or not parts:
        parts.append(f"({const})")
    return "(" + " + ".join(parts) + ")"
