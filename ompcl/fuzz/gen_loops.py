"""Generator, part 2: OpenMP loops ompcl offloads today (element-wise maps with reductions and
flattened subscripts, row reductions, loops in helper functions with pointer parameters) and
the critical/atomic loops it keeps on the host.

Consumes the program's shapes and arrays; produces ``LoopSpec``s (a loop nest, its clauses, the
host code around it) and places them as ``#pragma omp parallel for``, each loop preceded by a
marker line naming its families (``/* ompcl-loop: map,reduction */``).
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .gen_exprs import FLOAT_TYPES, Arr, Ctx, Exprs, Loop, _paren

MARKER = "/* ompcl-loop: {} */"
# reductions: kind -> (type, operator, initial value); every OpenMP 3.1 operator, on the types
# where the result does not depend on the order of combination (floating-point + and * within
# the tolerance: the terms are all positive or close to 1)
REDUCTIONS: dict[str, tuple[str, str, str]] = {
    "l+": ("long", "+", "0"), "i+": ("int", "+", "0"), "i-": ("int", "-", "0"),
    "l-": ("long", "-", "0"), "i*": ("int", "*", "1"), "l*": ("long", "*", "1"),
    "u*": ("unsigned long", "*", "1UL"), "imax": ("int", "max", "-1000000"),
    "imin": ("int", "min", "1000000"), "lmax": ("long", "max", "-1000000"),
    "u^": ("unsigned int", "^", "0u"), "u|": ("unsigned int", "|", "0u"),
    "u&": ("unsigned int", "&", "0xffffffffu"), "i&": ("int", "&", "-1"),
    "i|": ("int", "|", "0"), "i^": ("int", "^", "0"), "i&&": ("int", "&&", "1"),
    "i||": ("int", "||", "0"), "s+": ("unsigned short", "+", "0"),
    "c^": ("unsigned char", "^", "0"), "d+": ("double", "+", "0.0"),
    "d-": ("double", "-", "0.0"), "d*": ("double", "*", "1.0"),
    "dmax": ("double", "max", "-1e30"), "dmin": ("double", "min", "1e30"),
    "fmax": ("float", "max", "-1e30f"), "fmin": ("float", "min", "1e30f"),
}
FORMATS = {"long": "%ld", "int": "%d", "unsigned long": "%lu", "unsigned int": "%u",
           "unsigned short": "%u", "unsigned char": "%u"}


@dataclass
class LoopSpec:
    """One OpenMP work-sharing loop before it is placed: its nest (lines at an indentation; the
    headers are drawn when it is placed), the clauses of the loop, the host code around it, the
    arrays it reads and writes, and its families (keys of generator.OFFLOADED)."""

    s: int
    families: set[str]
    nest: Callable[[str], list[str]]
    clauses: list[str] = field(default_factory=list)
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    reads: set[str] = field(default_factory=set)
    writes: set[str] = field(default_factory=set)
    par_clauses: list[str] = field(default_factory=list)  # only a parallel takes (copyin)
    nowait: bool = False  # placed with nowait inside a region
    # reduction and lastprivate variables: shared where the loop runs inside a region
    shared_vars: list[str] = field(default_factory=list)


def array_names(lines: list[str]) -> set[str]:
    """Names subscripted in ``lines`` (the arrays a loop body touches)."""
    return set(re.findall(r"\b([A-Za-z_]\w*)\s*\[", "\n".join(lines)))


class Loops(Exprs):
    """Loop nests and their pragmas (a mixin of the generator)."""

    force_reduction = False  # the next map loop gets at least one reduction
    family_share = 0.55  # the share of regions made for one of the enabled families

    def make_loop(self, var: str, dim: int, n: int) -> Loop:
        r = self.r
        lo = r.choice((0, 0, 0, 1, 2))
        hi = n - r.choice((0, 0, 0, 1, 2))
        if hi <= lo:  # zero-trip loops run on the host by design (nothing to launch)
            lo, hi = 0, n
        return Loop(var, dim, lo, hi, r.choice((1, 1, 1, 1, 2, 3)), r.random() < 0.3,
                    r.choice((0, 0, 0, 0, 0, 0, 0, 1, 3, -1, -7)))

    def bound(self, s: int, dim: int, value: int) -> str:
        dv = self.dimvars.get((s, dim))
        if dv and self.r.random() < 0.5:
            diff = self.shapes[s][dim] - value
            return dv if diff == 0 else (f"{dv} - {diff}" if diff > 0 else f"{dv} + {-diff}")
        return str(value)

    def header(self, s: int, lp: Loop, decl: bool) -> str:
        r, v = self.r, lp.var
        init = ("int " if decl else "") + v
        lo, hi = lp.lo - lp.shift, lp.hi - lp.shift
        if not lp.desc:
            start = f"{init} = {self.bound(s, lp.dim, lo)}"
            cond = r.choice((f"{v} < {self.bound(s, lp.dim, hi)}",
                             f"{v} <= {self.bound(s, lp.dim, hi - 1)}"))
            inc = (r.choice((f"{v}++", f"++{v}", f"{v} += 1")) if lp.step == 1
                   else f"{v} += {lp.step}")
        else:
            start = f"{init} = {self.bound(s, lp.dim, hi - 1)}"
            cond = r.choice((f"{v} >= {self.bound(s, lp.dim, lo)}",
                             f"{v} > {self.bound(s, lp.dim, lo - 1)}"))
            inc = (r.choice((f"{v}--", f"--{v}", f"{v} -= 1")) if lp.step == 1
                   else f"{v} -= {lp.step}")
        return f"for ({start}; {cond}; {inc})"

    def read_sub(self, s: int, lp: Loop) -> str:
        n = self.shapes[s][lp.dim]
        k = self.r.random()
        if k < 0.15:
            return f"{n - 1 - lp.shift} - {lp.var}"
        if k < 0.2 and 2 * (lp.hi - 1) + 1 < n and lp.shift == 0:
            return f"2 * {lp.var} + {self.r.randint(0, 1)}"
        offs = [v for v in self.fp_i if -lp.lo <= self.ivalue[v] <= n - lp.hi]
        if k < 0.3 and offs and lp.shift == 0:
            return f"{lp.var} + {self.r.choice(offs)}"
        if k < 0.6:
            return lp.sub(self.r.randint(-lp.lo, n - lp.hi))
        return lp.sub()

    def region_ctx(self, s: int, loops: list[Loop], written: dict[str, list[str]]) -> Ctx:
        c = Ctx(ivars=[lp.var for lp in loops])
        shape = self.shapes[s]
        for a in self.arrays:
            if a.name in written or a.alias in written:
                self.add_read(c, a, a.at(written[a.name if a.name in written else a.alias]))
            elif a.shape == shape:
                for _ in range(self.r.randint(1, 2)):
                    self.add_read(c, a, a.at([self.read_sub(s, lp) for lp in loops]))
            elif len(a.shape) == 1:
                for lp in loops:
                    if shape[lp.dim] == a.shape[0] and self.r.random() < 0.5:
                        self.add_read(c, a, a.at([self.read_sub(s, lp)]))
        return c

    def region(self, ind: str) -> list[str]:
        r = self.r
        # (rows, tree, member_chain: regions of their own generators, at the end of main)
        fams = sorted(self.enabled - {"rows", "tree", "member_chain"})
        if fams and r.random() < self.family_share:
            lines = self.family_region(r.choice(fams), ind)
            if lines:
                return lines
        s = r.randrange(len(self.shapes))
        shape = self.shapes[s]
        k = r.random()
        if k < 0.08:
            return self.host_region(s, ind)
        if k < 0.2:
            return self.func_region(s, ind)
        vecs = [a for a in self.arrays if a.shape == (shape[0],)]
        if len(shape) > 1 and vecs and k < 0.3:
            return self.place(self.rowreduce_spec(s, r.choice(vecs)), ind)
        return self.place(self.map_spec(s), ind)

    def func_region(self, s: int, ind: str) -> list[str]:
        """A region inside a helper function that gets the arrays as pointer parameters."""
        call = self.helper(s, "kf", {"func"}, lambda: self.place(self.map_spec(s), "    "))
        return [f"{ind}{call};"]

    def helper(self, s: int, prefix: str, fams: set[str], make: Callable[[], list[str]],
               orphan: bool = False) -> str:
        """A helper function whose body ``make`` builds with the arrays of shape ``s`` seen as
        pointer parameters (one sometimes passed twice); returns the call's text."""
        r, shape = self.r, self.shapes[s]
        dims = [f"m{d}" for d in range(len(shape))]
        params = [f"int {m}" for m in dims]
        args = [self.dimvars.get((s, d), str(n)) for d, n in enumerate(shape)]
        views = []
        for n, a in enumerate(x for x in self.arrays if x.shape == shape):
            pn = f"q{n}"
            if a.storage == "heap" or len(shape) == 1:
                params.append(f"{a.ctype} *{pn}")
                views.append(Arr(pn, a.ctype, shape, "heap" if a.storage == "heap" else "param",
                                 tuple(dims[1:])))
            else:
                params.append(f"{a.ctype} (*{pn}){''.join(f'[{x}]' for x in shape[1:])}")
                views.append(Arr(pn, a.ctype, shape, "param"))
            args.append(a.name)
        if views and r.random() < 0.3 and not orphan:  # the same array passed twice
            k = r.randrange(len(views))
            v = views[k]
            params.append(params[len(dims) + k].replace(f"{v.name}", f"{v.name}a", 1))
            views.append(Arr(v.name + "a", v.ctype, shape, v.storage, v.strides, alias=v.name))
            args.append(args[len(dims) + k])
        saved = (self.arrays, self.dimvars, self.fp_d, self.fp_i, self.in_time, self.scalars,
                 self.extra_families, self.orphan)
        self.arrays, self.fp_d, self.fp_i, self.in_time, self.scalars = views, [], [], False, []
        self.dimvars = {(s, d): m for d, m in enumerate(dims)}
        self.extra_families, self.orphan = set(fams), orphan
        try:
            lines = make()
            local = self.scalars
        finally:
            (self.arrays, self.dimvars, self.fp_d, self.fp_i, self.in_time, self.scalars,
             self.extra_families, self.orphan) = saved
        name = f"{prefix}{len(self.kfuncs)}"
        self.kfuncs.append(name)
        self.funcs.append(f"static void {name}({', '.join(params)})\n{{\n    int i, j, k;\n" +
                          "".join(x + "\n" for x in local) + "    (void)i; (void)j; (void)k;\n" +
                          "".join(f"    (void){x.split()[-3]};\n" for x in local) +
                          "\n".join(lines) + "\n}\n")
        return f"{name}({', '.join(args)})"

    def family_region(self, fam: str, ind: str) -> list[str]:
        """A region made for one of the new families (gen_extents, gen_regions)."""
        raise NotImplementedError

    def nest(self, s: int) -> list[Loop]:
        return [self.make_loop("ijk"[d], d, n) for d, n in enumerate(self.shapes[s])]

    def loop_nest(self, s: int, loops: list[Loop], hcollapse: int, decl_inner: bool,
                  body: list[str]) -> Callable[[str], list[str]]:
        """The nest of ``loops`` around ``body``; the loops from ``hcollapse`` on declare their
        variable when ``decl_inner``."""
        def lines(depth: str) -> list[str]:
            out = []
            for d, lp in enumerate(loops):
                last = d == len(loops) - 1
                head = self.header(s, lp, decl_inner and d >= hcollapse)
                out.append(depth + head + (" {" if last else ""))
                depth += "    "
            inner = [x if x.startswith("#pragma") else depth + x
                     for b in body for x in b.split("\n")]
            return out + inner + [depth[:-4] + "}"]
        return lines

    def if_cond(self, c: Ctx, loops: list[Loop]) -> str:
        """A branch condition; thresholds on loop variables stay inside the variable's range
        (gcc warns about subscripts in branches it proves dead)."""
        r = self.r
        if c.ivars and r.random() < 0.6:
            return f"{r.choice(c.ivars)} % {r.randint(2, 4)} == {r.randint(0, 1)}"
        term = self.iterm(c)
        lp = next((x for x in loops if x.var == term), None)
        if lp:  # a threshold below the largest value: neither branch is dead
            vals = sorted(lp.values())[:-1]
            return f"{term} > {r.choice(vals)}" if vals else f"{term} % 2 == 0"
        return f"{term} > {r.randint(-5, 300)}"

    def map_spec(self, s: int) -> LoopSpec:
        """An element-wise loop nest over shape ``s``: writes one or two arrays at the loop's
        element (or a fixed offset of it), reads any array of a matching shape, with private and
        block-local temporaries, an inner sequential loop, reductions and lastprivate."""
        r = self.r
        shape = self.shapes[s]
        loops = self.nest(s)
        targets, written = self.map_targets(shape, loops)
        c = self.region_ctx(s, loops, written)
        fams = {"map"} | self.extra_families
        body: list[str] = []
        refs = {a.name: a.at(written[a.name]) for a in targets}
        flat_clauses = self.flatten_subscripts(c, targets, written, refs, body, fams)
        collapse = 1
        if len(loops) > 1 and r.random() < 0.5:
            collapse = r.randint(2, len(loops))
        decl_inner = r.random() < 0.2
        decl_all = decl_inner and r.random() < 0.5
        clauses: list[str] = list(flat_clauses)
        before: list[str] = []
        after: list[str] = []
        if collapse > 1:
            clauses.append(f"collapse({collapse})")
        inner = [lp.var for lp in loops[collapse:]]
        if inner and not decl_inner and not self.orphan:
            clauses.append(f"private({', '.join(inner)})")
        self.map_temporaries(c, clauses, body, written)
        for a in targets:
            body.append(self.map_store(c, loops, a, refs[a.name]))
        nonempty = all(lp.values() for lp in loops)
        shared: list[str] = []
        if not self.orphan:  # reduction variables must be shared in the enclosing region
            shared += self.reductions(c, clauses, body, before, after)
        if shared:
            fams.add("reduction")
        # lastprivate with collapse: gcc -Wall warns (maybe-uninitialized .count)
        if nonempty and r.random() < 0.2 and collapse == 1 and not self.orphan:
            shared.append(self.map_lastprivate(c, clauses, body, after))
        body = drop_unused_locals(body)
        hcollapse = 0 if decl_all else collapse
        return LoopSpec(s, fams, self.loop_nest(s, loops, hcollapse, decl_inner, body), clauses,
                        before, after, array_names(body), set(written), shared_vars=shared)

    def map_targets(self, shape: tuple, loops: list) -> tuple[list[Arr], dict[str, list[str]]]:
        """The arrays a map loop writes (one or two of the shape, and the parameters aliasing
        them), each with its subscripts (the loop's element, or a fixed offset of it)."""
        r = self.r
        same = [a for a in self.arrays if a.shape == shape and not a.alias]
        targets = r.sample(same, min(len(same), r.choice((1, 1, 2))))
        # a parameter aliasing another is only read where that one is written: the same range
        # (read-only aliases at other offsets overlap partially, which the runtime keeps on
        # the host by design)
        targets += [o for o in same if o not in targets and
                    any(a.alias == o.name for a in self.arrays)]
        written = {}
        for a in targets:
            subs = []
            for lp in loops:
                o = r.randint(-lp.lo, shape[lp.dim] - lp.hi) if r.random() < 0.3 else 0
                subs.append(lp.sub(o))
            written[a.name] = subs
        return targets, written

    def map_temporaries(self, c: Ctx, clauses: list[str], body: list[str],
                        written: dict[str, list[str]]) -> None:
        """A map loop's temporaries, each drawn or not: private, block-local, and an inner
        sequential loop over a whole vector the loop does not write."""
        r = self.r
        if r.random() < 0.3:  # private temporary
            tmp = self.scalar("double", "0.0", "tp")
            if not self.orphan:  # a callee's locals are already private
                clauses.append(f"private({tmp})")
            body.append(f"{tmp} = {self.dexpr(c)};")
            c.dread.append(tmp)
        if r.random() < 0.25:  # block-local temporary
            body.append(f"double bt = {self.dexpr(c)};")
            c.dread.append("bt")
        if r.random() < 0.2:  # inner sequential loop over a whole vector
            vs = [a for a in self.arrays
                  if len(a.shape) == 1 and a.name not in written and a.alias not in written]
            if vs:
                v = r.choice(vs)
                cq = Ctx(ivars=["q"])
                self.add_read(cq, v, v.at(["q"]))
                body.append("double iq = 0.0;")
                body.append(f"for (int q = 0; q < {v.shape[0]}; q++)")
                term = (self.dterm(cq) if (cq.dread or r.random() < 0.5)
                        else f"0.001 * {_paren(cq.iread[0])}")
                body.append(f"    iq += fabs({term});")
                c.dread.append(f"iq / {v.shape[0]}.0")

    def map_store(self, c: Ctx, loops: list, a: Arr, ref: str) -> str:
        """The store of a map loop into its target ``a`` at ``ref`` (under a condition or
        not)."""
        if self.r.random() < 0.2:
            cond = self.if_cond(c, loops)
            return (f"if ({cond})\n    {ref} = {self.store(a.ctype, c)};\n"
                    f"else\n    {ref} = {self.store(a.ctype, c)};")
        return f"{ref} = {self.store(a.ctype, c)};"

    def map_lastprivate(self, c: Ctx, clauses: list[str], body: list[str],
                        after: list[str]) -> str:
        """A lastprivate scalar of a map loop (double or long), printed after the loop."""
        if self.r.random() < 0.5:
            lp = self.scalar("double", "-1.0", "lp")
            body.append(f"{lp} = {self.dexpr(c)};")
            after.append(f'printf("{lp} %.9e\\n", 1.0 + fabs({lp}));')
        else:
            lp = self.scalar("long", "-1", "lp")
            body.append(f"{lp} = {self.iexpr(c)};")
            after.append(f'printf("{lp} %ld\\n", {lp});')
        clauses.append(f"lastprivate({lp})")
        return lp

    def flatten_subscripts(self, c: Ctx, targets: list[Arr], written: dict[str, list[str]],
                           refs: dict[str, str], body: list[str], fams: set[str]) -> list[str]:
        """Hook for flattened heap subscripts through body-local scalars (gen_extents)."""
        return []

    def reductions(self, c: Ctx, clauses: list[str], body: list[str], before: list[str],
                   after: list[str]) -> list[str]:
        """Zero to two reductions into new scalars; returns their names."""
        r = self.r
        names = []
        count = r.choice((1, 2)) if self.force_reduction else r.choice((0, 0, 1, 1, 2))
        for _ in range(count):
            kind = r.choice(list(REDUCTIONS))
            ctype, op, init = REDUCTIONS[kind]
            v = self.scalar(ctype, init, "r")
            names.append(v)
            if r.random() < 0.7:
                before.append(f"{v} = {init};")
            clauses.append(f"reduction({op}:{v})")
            if ctype in FLOAT_TYPES:
                self.floaty = True
                stmt, shown = self.float_reduction(kind, v, c), v
                after.append(f'printf("{v} %.9e\\n", (double){shown});')
            else:
                stmt = self.int_reduction(kind, v, c)
                after.append(f'printf("{v} {FORMATS[ctype]}\\n", {v});')
            body.extend(stmt.split("\n"))
        return names

    def float_reduction(self, kind: str, v: str, c: Ctx) -> str:
        r = self.r
        e = self.dexpr(c)
        if kind == "fmax":
            return f"if ((float)({e}) > {v})\n    {v} = (float)({e});"
        if kind == "fmin":
            return f"{v} = {v} < (float)({e}) ? {v} : (float)({e});"
        return {"d+": r.choice((f"{v} += fabs({e});", f"{v} += ({e}) * ({e});",
                                f"{v} = {v} + 1.0 + 0.5 * sin({e});")),
                "d-": f"{v} -= fabs({e});",
                "d*": f"{v} *= 1.0 + 1e-6 * ({e});",
                "dmax": r.choice((f"{v} = fmax({v}, {e});",
                                  f"{v} = {v} > {_paren(e)} ? {v} : {_paren(e)};")),
                "dmin": r.choice((f"{v} = fmin({v}, {e});",
                                  f"if ({e} < {v})\n    {v} = {e};"))}[kind]

    def int_reduction(self, kind: str, v: str, c: Ctx) -> str:
        r = self.r
        e = self.iterm(c)
        pe = _paren(e)
        return {"l+": f"{v} += {self.iexpr(c)};",
                "i+": f"{v} += {pe} % 100;",
                "i*": f"{v} *= 1 - 2 * ({pe} & 1);",
                "l*": f"{v} *= 1 - 2 * ({pe} & 1);",
                "i-": f"{v} -= {pe} % 100;",
                "l-": f"{v} -= (long){pe} % 1000;",
                "i&&": f"{v} = {v} && ({pe} % 7 != 3);",
                "i||": f"{v} = {v} || ({pe} == {r.randint(0, 40)});",
                "u&": f"{v} &= (unsigned int)({e}) | 0xfff0ffffu;",
                "i&": f"{v} &= ~(1 << ({pe} & 15));",
                "i|": f"{v} |= 1 << ({pe} & 15);",
                "i^": f"{v} ^= {pe} & 1023;",
                "imax": r.choice((f"if ({e} > {v})\n    {v} = {e};",
                                  f"{v} = {e} > {v} ? {e} : {v};")),
                "imin": r.choice((f"if ({e} < {v})\n    {v} = {e};",
                                  f"{v} = {v} < {e} ? {v} : {e};")),
                "lmax": f"if ((long){pe} * 7 > {v})\n    {v} = (long){pe} * 7;",
                "u*": f"{v} *= (unsigned long)({e}) * 2UL + 1UL;",
                "u^": f"{v} ^= (unsigned int)({e}) * 2654435761u;",
                "u|": f"{v} |= 1u << ((unsigned int)({e}) & 31u);",
                "s+": f"{v} += (unsigned short)({pe} & 255);",
                "c^": f"{v} ^= (unsigned char)({e});"}[kind]

    def rowreduce_spec(self, s: int, vec: Arr) -> LoopSpec:
        """Each row of shape ``s`` reduced by a private accumulator into ``vec[i]``."""
        r = self.r
        loops = self.nest(s)
        loops[0] = Loop("i", 0, 0, self.shapes[s][0], 1, r.random() < 0.3)
        c = self.region_ctx(s, loops, {vec.name: ["i"]})
        c.iread = [x for x in c.iread if vec.name not in x]
        c.lread = [x for x in c.lread if vec.name not in x]
        c.dread = [x for x in c.dread if vec.name not in x]
        decl_inner = r.random() < 0.3
        clauses = ([] if decl_inner or self.orphan
                   else [f"private({', '.join(lp.var for lp in loops[1:])})"])
        count = math.prod(len(lp.values()) for lp in loops[1:])
        if vec.ctype in FLOAT_TYPES:
            pre = "double acc = 0.0;"
            inner = f"acc += {self.dexpr(c)};"
            post = f"{vec.at(['i'])} = acc / {max(count, 1)}.0;"
        else:
            pre = "long acc = 0;"
            inner = f"acc += {self.iexpr(c)};"
            cast = "(unsigned char)" if vec.ctype == "unsigned char" else ""
            post = f"{vec.at(['i'])} = {cast}(acc % {1009 if vec.ctype != 'long' else 100003});"

        def lines(i0: str) -> list[str]:
            nest = [i0 + self.header(s, loops[0], False) + " {", i0 + "    " + pre]
            depth = i0 + "    "
            for lp in loops[1:]:
                nest.append(depth + self.header(s, lp, decl_inner))
                depth += "    "
            return nest + [depth + inner, i0 + "    " + post, i0 + "}"]
        text = [pre, inner, post]
        return LoopSpec(s, {"rowreduce"} | self.extra_families, lines, clauses,
                        reads=array_names(text), writes={vec.name})

    def host_region(self, s: int, ind: str) -> list[str]:
        """A loop ompcl keeps on the host: a sum under critical or atomic."""
        r = self.r
        n = self.shapes[s][0]
        lp = Loop("i", 0, 0, n, 1, False)
        c = Ctx(ivars=["i"])
        for a in self.arrays:
            if a.shape[0] == n and (a.shape == self.shapes[s] or len(a.shape) == 1):
                self.add_read(c, a, a.at(["i"] + ["0"] * (len(a.shape) - 1)))
        hc = self.scalar("long", "0", "hc")
        lines = [f"{ind}{self.header(s, lp, False)} {{", f"{ind}    int hv = {self.iexpr(c)};"]
        if r.random() < 0.5:
            fam = "critical"
            lines += ["#pragma omp critical", f"{ind}    {{", f"{ind}        {hc} += hv % 7;",
                      f"{ind}    }}"]
        else:
            fam = "atomic"
            lines += ["#pragma omp atomic", f"{ind}    {hc} += hv % 7;"]
        lines.append(f"{ind}}}")
        return ([self.marker({fam}), "#pragma omp parallel for"] + lines +
                [f'{ind}printf("{hc} %ld\\n", {hc});'])

    def place(self, spec: LoopSpec, ind: str) -> list[str]:
        """``spec`` as a ``parallel for`` (one time in ten as a parallel region holding only
        its ``for``), with the host code around it."""
        wrap = self.r.random() < 0.1
        nest = spec.nest(ind + "    " if wrap else ind)
        return ([ind + b for b in spec.before] + self.pragma(spec, nest, ind, wrap) +
                [ind + a for a in spec.after])

    def pragma(self, spec: LoopSpec, nest: list[str], ind: str, wrap: bool) -> list[str]:
        r, text = self.r, "\n".join(nest)
        clauses = list(spec.clauses)
        for v in self.fp_d + self.fp_i:
            if re.search(rf"\b{v}\b", text) and r.random() < 0.5:
                clauses.append(r.choice((f"firstprivate({v})", f"firstprivate({v})",
                                         f"shared({v})")))
        if r.random() < 0.15:
            clauses.append(r.choice(("schedule(static)", "schedule(static, 7)", "schedule(dynamic)",
                                     "schedule(dynamic, 3)", "schedule(guided)", "num_threads(2)")))
        if r.random() < 0.05:
            clauses.append("default(shared)")
        clauses += spec.par_clauses
        r.shuffle(clauses)
        mark = self.marker(spec.families)
        if wrap:  # shared, default, num_threads and copyin belong to the parallel construct
            par = [c for c in clauses if c.startswith(("shared", "default", "num_threads",
                                                       "copyin"))]
            cl = "".join(" " + c for c in clauses if c not in par)
            return ([mark, "#pragma omp parallel" + "".join(" " + c for c in par), ind + "{",
                     "#pragma omp for" + cl] + nest + [ind + "}"])
        return [mark, "#pragma omp parallel for" + "".join(" " + c for c in clauses)] + nest

    def marker(self, fams: set[str]) -> str:
        """The marker line of one loop; counts it as expected on the device or the host."""
        if self.expect_device(fams):
            self.n_device += 1
        else:
            self.n_host += 1
        return MARKER.format(",".join(sorted(fams)))

    def expect_device(self, fams: set[str]) -> bool:
        raise NotImplementedError  # the feature table lives in generator.py


def drop_unused_locals(body: list[str]) -> list[str]:
    """Remove the block-local temporary and the inner-loop sum when nothing reads them (gcc
    -Wall warns about unused variables)."""
    def used(name: str, skip: tuple[str, ...]) -> bool:
        return any(re.search(rf"\b{name}\b", b) for b in body if not b.startswith(skip))
    if not used("bt", ("double bt = ",)):
        body = [b for b in body if not b.startswith("double bt = ")]
    if not used("iq", ("double iq = ", "    iq += ")):
        body = [b for b in body if not b.startswith(("double iq = ", "for (int q = 0; q < ",
                                                      "    iq += "))]
    return body
