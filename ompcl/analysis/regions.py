"""Region analysis: ``Program`` -> ``Region`` per OpenMP work-sharing loop, each with its loops,
data (buffers, scalars, privates, reductions), called functions and the verdict on offloading.

A region is offloaded only when every fact needed to run it on the device is known: canonical
loops, known array extents, supported types, no side effects or synchronisation. OpenMP's own
contract (iterations of a work-sharing loop are independent) is taken from the directive.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from ..diagnostics import ClauseError, Diagnostics, PragmaSyntaxError
from ..frontend.program import Program
from ..ir import ArrayArg, BoundDirective, Directive, LoopDim, Reduction, Region, Var
from .accesses import BodyInfo, scan_body
from .affine import affine
from .builtins import host_only_reason, is_host_only, is_math
from .ctypes_ import FLOATING, TypeEnv, c_text, visible_vars, walk
from .features import static_features
from .loops import NotCanonical, canonical_loop, loop_nest

_IDENT = re.compile(r"[A-Za-z_]\w*")
_PARALLEL_FOR = ("parallel for", "parallel for simd")
_LOOP_CONSTRUCTS = {"for", "parallel for", "for simd", "parallel for simd", "simd"}
_LIST_CLAUSES = {"private", "firstprivate", "lastprivate", "shared", "reduction", "copyin"}


@dataclass(frozen=True)
class Candidate:
    """A construct that may become a kernel: its directive (clauses merged) and loop."""

    bound: BoundDirective
    directive: Directive
    loop: c_ast.For


def _inside(inner: BoundDirective, outer: BoundDirective) -> bool:
    return any(n is outer.stmt for n in inner.path)


def _single_for(b: BoundDirective, constructs: list[BoundDirective]) -> BoundDirective | None:
    body = b.stmt
    if not isinstance(body, c_ast.Compound) or len(body.block_items or []) != 2:
        return None
    for c in constructs:
        if c.directive.kind in ("for", "for simd") and c.pragma is body.block_items[0]:
            return c
    return None


def find_candidates(prog: Program, diags: Diagnostics) -> list[Candidate]:
    """Work-sharing loops ompcl may offload; other ``omp for`` loops get a remark."""
    out: list[Candidate] = []
    consumed: set[int] = set()
    for b in prog.constructs:
        if b.directive.kind in _LOOP_CONSTRUCTS and not isinstance(b.stmt, c_ast.For):
            raise PragmaSyntaxError(f"'#pragma omp {b.directive.kind}' must be followed by a "
                                    "'for' loop", b.directive.loc)
    parallels = [b for b in prog.constructs if b.directive.kind.startswith("parallel")]
    for b in prog.constructs:
        kind = b.directive.kind
        nested = [p for p in parallels if p is not b and _inside(b, p)]
        if kind in _PARALLEL_FOR or kind == "parallel":
            if nested:
                if kind != "parallel":
                    diags.remark(b.directive.loc, "loop not offloaded: nested inside another "
                                 "parallel region")
                continue
            if kind == "parallel":
                inner = _single_for(b, prog.constructs)
                if inner is None:
                    continue
                consumed.add(id(inner))
                merged = Directive("parallel for", b.directive.clauses + tuple(
                    c for c in inner.directive.clauses if c.name != "nowait"), b.directive.loc,
                    b.directive.text)
                out.append(Candidate(b, merged, inner.stmt))
            else:
                out.append(Candidate(b, b.directive, b.stmt))
        elif kind in ("for", "for simd") and id(b) not in consumed:
            if any(p.directive.kind == "parallel" for p in nested):
                why = ("'#pragma omp for' is inside a parallel region with other statements "
                       "(only 'parallel for' and single-loop parallel regions are offloaded)")
            else:
                why = "orphaned '#pragma omp for' (its parallel region is in a caller)"
            diags.remark(b.directive.loc, f"loop not offloaded: {why}")
    return out


class _RegionBuilder:
    def __init__(self, prog: Program, env: TypeEnv, funcs: dict[str, c_ast.FuncDef],
                 cand: Candidate, rid: int):
        self.prog, self.env, self.funcs, self.cand, self.rid = prog, env, funcs, cand, rid
        self.d = cand.directive
        self.reasons: list[str] = []
        self.scope = visible_vars(prog.ast, cand.bound.func, cand.bound.path, cand.bound.stmt, env)

    def fail(self, msg: str) -> None:
        if msg not in self.reasons:
            self.reasons.append(msg)

    def check_clause_names(self) -> None:
        """Every variable a data-sharing clause names must be declared (as the C compiler
        would insist); an error, not a remark, because the program is invalid."""
        for c in self.d.clauses:
            if c.name not in _LIST_CLAUSES:
                continue
            for name in c.args:
                if name not in self.scope:
                    raise ClauseError(f"'{name}' in '{c.name}' clause is not a declared "
                                      "variable", c.loc)

    def build(self) -> Region:
        self.check_clause_names()
        loops = self.loops()
        if loops is None:
            return Region(self.rid, self.cand.bound, reasons=tuple(self.reasons), directive=self.d)
        pvars = {dim.var for dim in loops}
        body = loops[-1].loop.stmt
        info = scan_body(body, pvars)
        for loc, msg in info.problems:
            self.fail(f"{msg} (line {loc.line})")
        self.check_bounds(loops, info)
        self.check_local_types(info)
        funcs = self.functions(info)
        arrays, scalars, privates, lastp, reds = self.sharing(loops, info)
        locals_used = self.outlined_locals()
        touched = info.scalar_reads | info.scalar_writes | {a.name for a in info.accesses}
        if self.prog.threadprivate() & touched:
            self.fail("uses a threadprivate variable")
        feats = static_features(loops, info, arrays) if not self.reasons else ()
        return Region(self.rid, self.cand.bound, tuple(loops), tuple(arrays), tuple(scalars),
                      tuple(privates), tuple(lastp), tuple(reds), tuple(funcs),
                      tuple(locals_used), tuple(self.reasons), feats, self.d)

    # -- loops ---------------------------------------------------------
    def loops(self) -> list[LoopDim] | None:
        depth = self.d.collapse
        if depth > 3:
            self.fail(f"collapse({depth}) has more than 3 loops (the ND-range has 3 dimensions)")
            return None
        if self.d.clause("ordered"):
            self.fail("the loop has an 'ordered' clause")
            return None
        if self.d.clause("copyin"):
            self.fail("the region has a 'copyin' clause")
            return None
        try:
            nest = loop_nest(self.cand.loop, depth)
            dims = [canonical_loop(f) for f in nest]
        except NotCanonical as e:
            self.fail(str(e))
            return None
        out = []
        for d in dims:
            vtype = self.loop_var_type(d)
            if vtype is None:
                return None
            out.append(LoopDim(d.var, vtype, d.lb, d.ub, d.op, d.step, d.loop, d.declares_var))
        return out

    def loop_var_type(self, d: LoopDim) -> str | None:
        if d.declares_var:
            decl = d.loop.init.decls[0] if isinstance(d.loop.init, c_ast.DeclList) else d.loop.init
            ct = self.env.ctype(decl.type)
        else:
            v = self.scope.get(d.var)
            ct = v.ctype if v else None
        if ct is None or not ct.is_scalar or ct.base in FLOATING:
            self.fail(f"loop variable '{d.var}' is not of integer type")
            return None
        return ct.base

    def check_bounds(self, loops: list[LoopDim], info: BodyInfo) -> None:
        written = set(info.scalar_writes) | {a.name for a in info.accesses if a.write}
        pvars = [d.var for d in loops]
        for d in loops:
            for e in (d.lb, d.ub, d.step):
                for sub in walk(e):
                    if isinstance(sub, c_ast.ID) and (sub.name in written or sub.name in pvars):
                        self.fail(f"bound '{c_text(e)}' of loop '{d.var}' is not loop-invariant")
                    if isinstance(sub, (c_ast.FuncCall, c_ast.ArrayRef, c_ast.StructRef)):
                        if not (isinstance(sub, c_ast.FuncCall) and is_math(c_text(sub.name))):
                            self.fail(f"bound '{c_text(e)}' of loop '{d.var}' reads memory "
                                      "or calls a function")

    def check_local_types(self, info: BodyInfo) -> None:
        """Variables declared in the body must have types the device knows, fixed sizes."""
        for decl in info.local_decls:
            ct = self.env.ctype(decl.type)
            if ct is None or ct.pointer:
                self.fail(f"declares '{decl.name}' of a type ompcl cannot use on the device")
            elif not all(self.env_const(x) for x in ct.dims):
                self.fail(f"declares variable-length array '{decl.name}'")

    # -- functions -----------------------------------------------------
    def functions(self, info: BodyInfo) -> list[str]:
        found: list[str] = []
        self.ptr_args: dict[str, str] = {}
        for name, call in info.calls:
            self.check_call(name, call, found, set(), None)
        return found

    def pointer_params(self, fdef: c_ast.FuncDef) -> dict[int, bool] | None:
        """Index -> is-const of each pointer parameter; None if a parameter is unsupported."""
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        out: dict[int, bool] = {}
        for k, p in enumerate(params):
            if isinstance(p, c_ast.Typename):
                continue
            ct = self.env.ctype(p.type)
            if ct is None:
                self.fail(f"function '{fdef.decl.name}' has parameter '{p.name}' of "
                          "unsupported type")
                return None
            if ct.pointer or ct.dims:
                if len(ct.dims) > (0 if ct.pointer else 1):
                    self.fail(f"function '{fdef.decl.name}' takes multi-dimensional array "
                              f"parameter '{p.name}'")
                    return None
                out[k] = ct.const
        return out

    def check_call(self, name: str, call: c_ast.FuncCall, found: list[str], stack: set[str],
                   caller_ptrs: set[str] | None, caller: str | None = None) -> None:
        if is_math(name):
            return
        if name in stack:
            return self.fail(f"function '{name}' is recursive")
        fdef = self.funcs.get(name)
        if fdef is None:
            within = f"function '{caller}' " if caller else ""
            if name in self.scope or is_host_only(name) or not _declared_only(self.prog, name):
                return self.fail(within + host_only_reason(name))
            return self.fail(f"{within}calls '{name}', which is not defined in this file")
        ptrs = self.pointer_params(fdef)
        if ptrs is None:
            return
        args = call.args.exprs if call.args else []
        for k, const in ptrs.items():
            arg = args[k] if k < len(args) else None
            if not isinstance(arg, c_ast.ID):
                return self.fail(f"passes '{c_text(arg) if arg else '?'}' to pointer parameter "
                                 f"of '{name}' (only array names are supported)")
            if caller_ptrs is None:
                mode = self.ptr_args.get(arg.name, "")
                self.ptr_args[arg.name] = "".join(sorted(set(mode + ("r" if const else "rw")),
                                                         key="rw".index))
            elif arg.name not in caller_ptrs:
                return self.fail(f"function passes '{arg.name}' to pointer parameter of '{name}'")
        if name in found:
            return
        params = fdef.decl.type.args.params if fdef.decl.type.args else []
        pnames = {p.name for p in params if isinstance(p, c_ast.Decl)}
        ptr_names = {params[k].name for k in ptrs}
        if isinstance(fdef.decl.type.type, c_ast.PtrDecl):
            return self.fail(f"function '{name}' returns a pointer")
        body = scan_body(fdef.body, pnames)
        for loc, msg in body.problems:
            if "'return'" not in msg:
                return self.fail(f"function '{name}' {msg} (line {loc.line})")
        outer = (body.scalar_reads | body.scalar_writes | {a.name for a in body.accesses}) - pnames
        outer -= self.env.enumerators
        outer -= {c for c, _ in body.calls}
        if outer:
            return self.fail(f"function '{name}' uses global variable '{sorted(outer)[0]}'")
        for sub, subcall in body.calls:
            self.check_call(sub, subcall, found, stack | {name}, ptr_names, name)
        found.append(name)

    # -- data sharing --------------------------------------------------
    def sharing(self, loops, info: BodyInfo):
        d = self.d
        pvars = {dim.var for dim in loops}
        private = set(d.names_in("private"))
        firstp = set(d.names_in("firstprivate"))
        lastp = set(d.names_in("lastprivate"))
        reds = {a: c.op for c in d.clause("reduction") for a in c.args}
        acc_by_name: dict[str, list] = {}
        for a in info.accesses:
            acc_by_name.setdefault(a.name, []).append(a)
        names = (info.scalar_reads | info.scalar_writes | set(acc_by_name)) - pvars
        names -= self.env.enumerators
        names -= {c for c, _ in info.calls if c not in self.scope}
        arrays, scalars, privates, lastps, reductions = [], [], [], [], []
        index_vars = pvars | {dim.var for dim in self.inner_dims(info)}
        for name in sorted(names):
            v = self.scope.get(name)
            if v is None:
                if name in self.funcs:
                    self.fail(f"uses function '{name}' as a value")
                else:
                    self.fail(f"cannot resolve '{name}'")
                continue
            if v.ctype.base == "?":
                self.fail(f"'{name}' has a type ompcl cannot place on the device")
                continue
            if name in reds:
                if not v.ctype.is_scalar:
                    self.fail(f"reduction variable '{name}' is not a scalar")
                    continue
                op = "+" if reds[name] == "-" else reds[name]
                if op in ("&", "|", "^") and v.ctype.base in FLOATING:
                    self.fail(f"bitwise reduction on floating-point '{name}'")
                    continue
                reductions.append(Reduction(name, op, v.ctype.base))
            elif name in lastp:
                if not v.ctype.is_scalar or name in firstp:
                    self.fail(f"lastprivate '{name}' must be a scalar (not also firstprivate)")
                    continue
                lastps.append(v)
            elif name in private:
                if v.ctype.pointer or not all(self.env_const(x) for x in v.ctype.dims):
                    self.fail(f"private '{name}' is not a scalar or fixed-size array")
                    continue
                privates.append(v)
            elif name in firstp:
                if not v.ctype.is_scalar:
                    self.fail(f"firstprivate '{name}' is not a scalar")
                    continue
                scalars.append(v)
            elif v.ctype.is_scalar:
                if name in info.scalar_writes:
                    self.fail(f"shared variable '{name}' is written in the loop (make it private, "
                              "lastprivate or a reduction)")
                    continue
                scalars.append(v)
            else:
                arr = self.array_arg(v, acc_by_name.get(name, []), name in info.pointer_uses,
                                     loops, info, index_vars)
                if arr is not None:
                    arrays.append(arr)
        for name in sorted((private | firstp | lastp) - names - pvars):
            v = self.scope.get(name)
            if v is not None and name in private and v.ctype.is_scalar:
                privates.append(v)
        return arrays, scalars, privates, lastps, reductions

    def env_const(self, text: str) -> bool:
        return bool(text) and not any(t not in self.env.enumerators and t != "sizeof"
                                      for t in _IDENT.findall(re.sub(r"\d\w*", "", text)))

    def inner_dims(self, info: BodyInfo) -> list[LoopDim]:
        out = []
        for f in info.inner_loops:
            try:
                out.append(canonical_loop(f))
            except NotCanonical:
                continue
        return out

    def array_arg(self, v: Var, accs, ptr_use: bool, loops, info, index_vars) -> ArrayArg | None:
        ct = v.ctype
        passed = self.ptr_args.get(v.name, "")
        if ptr_use and not passed:
            self.fail(f"passes array '{v.name}' to a function")
            return None
        if passed and (ct.pointer or not all(self.env_const(x) for x in ct.dims)):
            self.fail(f"passes '{v.name}' to a function but its extent is not fixed")
            return None
        if not accs and not passed:
            self.fail(f"uses pointer '{v.name}' without subscripts")
            return None
        if any(len(a.subscripts) > len(ct.dims) + (1 if ct.pointer else 0) for a in accs):
            self.fail(f"'{v.name}' is subscripted more times than it has dimensions")
            return None
        mode = ("r" if any(a.read for a in accs) or "r" in passed else "") + (
            "w" if any(a.write for a in accs) or "w" in passed else "")
        static = not ct.pointer and all(self.env_const(x) for x in ct.dims)
        if not all(self.env_const(x) for x in ct.row_dims):
            self.fail(f"array '{v.name}' has variable dimensions")
            return None
        if static:
            return ArrayArg(v.name, v, mode, None)
        extent = self.extent(v, accs, loops, info, index_vars)
        if extent is None:
            return None
        return ArrayArg(v.name, v, mode, extent)

    def extent(self, v: Var, accs, loops, info, index_vars):
        variant = set(info.scalar_writes) | {a.name for a in info.accesses if a.write}
        ranges = _var_ranges(loops, self.inner_dims(info), index_vars, variant)
        los, his = [], []
        for a in accs:
            f = affine(a.subscripts[0], index_vars, variant)
            if f is None:
                self.fail(f"cannot derive the extent of '{v.name}': subscript "
                          f"'{c_text(a.subscripts[0])}' is not affine in the loop variables")
                return None
            bounds = _affine_bounds(f, ranges)
            if bounds is None:
                self.fail(f"cannot derive the extent of '{v.name}': an index variable in "
                          f"'{c_text(a.subscripts[0])}' has unknown bounds")
                return None
            los.append(bounds[0])
            his.append(bounds[1])
        lo = _fold("OMPCL_MIN", list(dict.fromkeys(los)))
        hi = _fold("OMPCL_MAX", list(dict.fromkeys(his)))
        row = "*".join(f"({x})" for x in v.ctype.row_dims)
        if row:
            lo, hi = f"({lo})*{row}", f"(({hi})+1)*{row}-1"
        return (lo, hi)

    def outlined_locals(self) -> list[Var]:
        names = {n.name for n in walk(self.cand.bound.stmt) if isinstance(n, c_ast.ID)}
        for c in self.d.clauses:
            for a in c.args:
                names.update(_IDENT.findall(a))
        out = []
        for name in sorted(names):
            v = self.scope.get(name)
            if v is not None and v.storage != "global":
                if v.ctype.base == "?" and not v.ctype.is_array_like:
                    self.fail(f"local variable '{name}' has a type ompcl cannot pass on")
                out.append(v)
        return out


def _declared_only(prog: Program, name: str) -> bool:
    return any(isinstance(e, c_ast.Decl) and e.name == name for e in prog.ast.ext)


def _fold(fn: str, items: list[str]) -> str:
    acc = items[0]
    for it in items[1:]:
        acc = f"{fn}({acc}, {it})"
    return acc


def _var_ranges(loops: list[LoopDim], inner: list[LoopDim], index_vars: set[str],
                variant: set[str]) -> dict[str, tuple[str, str]]:
    """Inclusive [lo, hi] of each loop variable, as host C over ompcl_lb/ompcl_st/ompcl_n."""
    ranges: dict[str, tuple[str, str]] = {}
    for k, d in enumerate(loops):
        first = f"ompcl_lb[{k}]"
        last = f"(ompcl_lb[{k}] + (ompcl_n[{k}] - 1) * ompcl_st[{k}])"
        ranges[d.var] = (f"OMPCL_MIN({first}, {last})", f"OMPCL_MAX({first}, {last})")
    for d in inner:
        lb = affine(d.lb, index_vars, variant)
        ub = affine(d.ub, index_vars, variant)
        if lb is None or ub is None:
            continue
        lb_b, ub_b = _affine_bounds(lb, ranges), _affine_bounds(ub, ranges)
        if lb_b is None or ub_b is None:
            continue
        if d.op == "<":
            ranges[d.var] = (lb_b[0], f"({ub_b[1]})-1")
        elif d.op == "<=":
            ranges[d.var] = (lb_b[0], ub_b[1])
        elif d.op == ">":
            ranges[d.var] = (f"({ub_b[0]})+1", lb_b[1])
        else:
            ranges[d.var] = (ub_b[0], lb_b[1])
    return ranges


def _scaled(coef: str, var_bound: str) -> str:
    return var_bound if coef == "1" else f"(long)({coef})*({var_bound})"


def _affine_bounds(f, ranges) -> tuple[str, str] | None:
    """Inclusive [lo, hi] of an affine form over the variables' ranges, as host C."""
    lo, hi = [], []
    for var, coef in f.coefs:
        if var not in ranges:
            return None
        vlo, vhi = ranges[var]
        a, b = _scaled(coef, vlo), _scaled(coef, vhi)
        if coef.lstrip("-").isdigit():
            lo.append(a if int(coef) >= 0 else b)
            hi.append(b if int(coef) >= 0 else a)
        else:
            lo.append(f"OMPCL_MIN({a}, {b})")
            hi.append(f"OMPCL_MAX({a}, {b})")
    if f.const != "0" or not lo:
        lo.append(f"(long)({f.const})")
        hi.append(f"(long)({f.const})")
    return " + ".join(lo), " + ".join(hi)


def analyze(prog: Program, diags: Diagnostics) -> list[Region]:
    """Analyse every OpenMP work-sharing loop of a program; remark on those kept on the host."""
    env = TypeEnv(prog.ast)
    funcs = {e.decl.name: e for e in prog.ast.ext if isinstance(e, c_ast.FuncDef)}
    regions = []
    for rid, cand in enumerate(find_candidates(prog, diags)):
        region = _RegionBuilder(prog, env, funcs, cand, rid).build()
        regions.append(region)
    return regions
