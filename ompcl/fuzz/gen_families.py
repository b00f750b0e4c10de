"""Generator, part 4a (issue 9): the loop families of the parallel-region shapes: ``omp atomic``
histograms, arrays of structs, rows read and written element by element, threadprivate
scratch arrays (checked at run time where the static proof cannot see them).

Consumes the program's arrays and shapes (``gen_exprs``, ``gen_extents``); produces one
``LoopSpec`` per family. ``gen_regions`` puts such loops into parallel regions.
"""
from __future__ import annotations

import random

from .gen_exprs import Arr, Ctx, Loop, _paren
from .gen_extents import Extents
from .gen_loops import FORMATS, LoopSpec, array_names

HIST_BINS = (4, 7, 16, 31)


class Families(Extents):
    """Issue-9 loop families (a mixin of the generator, under ``gen_regions.Regions``)."""

    # -- a loop over the first dimension of some shape -------------------------------------
    def vector_loop(self) -> tuple[int, Loop, Ctx, list[Arr]]:
        """(shape, a loop i over its first dimension, what the body may read, the 1-D arrays of
        that length)."""
        s = self.shape_of_rank((1, 2, 3))
        n = self.shapes[s][0]
        lp = self.make_loop("i", 0, n)
        c = Ctx(ivars=["i"])
        vecs = [a for a in self.arrays if a.shape == (n,) and not a.alias]
        for a in vecs:
            if self.r.random() < 0.6:
                self.add_read(c, a, a.at([lp.sub()]))
        return s, lp, c, vecs

    def _write_vector(self, c: Ctx, vecs: list[Arr], lp: Loop, body: list[str],
                      writes: set[str]) -> None:
        """Sometimes also store into one of the 1-D arrays at the loop's element."""
        if vecs and self.r.random() < 0.6:
            a = self.r.choice(vecs)
            body.append(f"{a.at([lp.sub()])} = {self.store(a.ctype, c)};")
            writes.add(a.name)

    # -- atomic -----------------------------------------------------------------------------
    def atomic_spec(self) -> LoopSpec:
        """Histograms updated with ``omp atomic``: integer bins (exact) or floating-point bins
        of positive terms (within the tolerance), sometimes a shared scalar."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        bins = r.choice(HIST_BINS)
        floaty = r.random() < 0.4
        h = self.fresh("hd" if floaty else "hg")
        ctype = "double" if floaty else r.choice(("long", "int", "unsigned int"))
        self.decl_local.append(f"    {ctype} {h}[{bins}];")
        self.init_extra.append(f"    for (h0 = 0; h0 < {bins}; h0++)\n        {h}[h0] = 0;")
        self.misc_names.append(h)
        fmt = "%.9e" if floaty else FORMATS[ctype]
        after = [f"for (h0 = 0; h0 < {bins}; h0++)",
                 f'    printf("{h} %d {fmt}\\n", h0, {h}[h0]);']
        body = [f"int hb = (({self.iexpr(c)}) % {bins} + {bins}) % {bins};"]
        upd = r.choice(("#pragma omp atomic", "#pragma omp atomic update"))
        if floaty:
            self.floaty = True
            stmt = f"{h}[hb] += fabs({self.dexpr(c)}) + 0.5;"
        elif ctype == "unsigned int":
            stmt = r.choice((f"{h}[hb] |= 1u << ((unsigned int)({self.iterm(c)}) & 31u);",
                             f"{h}[hb] ^= (unsigned int)({self.iterm(c)}) * 40503u;",
                             f"{h}[hb] += 3u;"))
        else:
            stmt = r.choice((f"{h}[hb] += ({self.iexpr(c)}) % 13;", f"{h}[hb]++;",
                             f"++{h}[hb];", f"{h}[hb]--;", f"{h}[hb] -= {_paren(self.iterm(c))} % 5;"))
        body += [upd, stmt]
        writes = {h}
        if r.random() < 0.4:  # a shared scalar too
            sc = self.scalar("long", "0", "as")
            body += ["#pragma omp atomic", f"{sc} += {_paren(self.iterm(c))} % 7;"]
            after.append(f'printf("{sc} %ld\\n", {sc});')
        self._write_vector(c, vecs, lp, body, writes)
        return LoopSpec(s, {"atomic"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body), after=after,
                        reads=array_names(body), writes=writes)

    # -- struct -----------------------------------------------------------------------------
    def struct_array(self, n: int) -> tuple[str, int]:
        """An array of ``n`` structs (type made once per program); (its name, the length of its
        fixed member array)."""
        r = self.r
        if not self.struct_type:
            self.struct_type = f"struct st{self.seed % 97}"
            self.struct_len = r.choice((2, 3, 4))
            self.decl_global.append(f"{self.struct_type} {{\n    double x;\n    int c;\n"
                                    f"    double v[{self.struct_len}];\n    float f;\n}};\n")
        name = self.fresh("sa")
        where = r.choice(("global", "local", "heap"))
        if where == "global":
            self.decl_global.append(f"static {self.struct_type} {name}[{n}];")
        elif where == "local":
            self.decl_local.append(f"    {self.struct_type} {name}[{n}];")
        else:
            self.decl_local.append(f"    {self.struct_type} *{name} = "
                                   f"malloc((size_t){n} * sizeof *{name});")
            self.frees_extra.append(f"    free({name});")
        self.misc_names.append(name)
        k = self.struct_len
        self.init_extra += [
            f"    for (h0 = 0; h0 < {n}; h0++) {{",
            f"        {name}[h0].x = 0.5 * cos(0.1 * h0);",
            f"        {name}[h0].c = (h0 * 7 + {self.nnames}) % 1009;",
            f"        for (h1 = 0; h1 < {k}; h1++)",
            f"            {name}[h0].v[h1] = 0.25 * h1 - 0.01 * h0;",
            f"        {name}[h0].f = (float)(0.125 * (h0 % 9));", "    }"]
        self.check_extra += [
            "    cd = 0.0;", "    cu = 0UL;", f"    for (h0 = 0; h0 < {n}; h0++) {{",
            f"        cd += fabs({name}[h0].x) + fabs((double){name}[h0].f);",
            f"        for (h1 = 0; h1 < {k}; h1++)",
            f"            cd += fabs({name}[h0].v[h1]) * (1.0 + 0.125 * h1);",
            f"        cu = cu * 1000003UL + (unsigned long)(long){name}[h0].c;", "    }",
            f'    printf("{name} %.9e %lu\\n", cd, cu);']
        self.floaty = True
        return name, k

    def struct_spec(self) -> LoopSpec:
        """A loop over an array of structs: scalar members and a small fixed member array."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        sa, k = self.struct_array(self.shapes[s][0])
        e = f"{sa}[{lp.sub()}]"
        c.dread += [f"{e}.x", f"{e}.v[{k - 1}]", f"(double){e}.f"]
        c.iread.append(f"{e}.c")
        body = [f"for (int q = 0; q < {k}; q++)",
                f"    {e}.v[q] = 0.5 * {e}.v[q] + 0.25 * {_paren(self.dterm(c))};",
                f"{e}.x = {self.dexpr(c)};"]
        if r.random() < 0.6:
            body.append(f"{e}.c = ({self.iexpr(c)}) % 1009;")
        if r.random() < 0.5:
            body.append(f"{e}.f = (float)({self.dexpr(c)});")
        writes = {sa}
        self._write_vector(c, vecs, lp, body, writes)
        return LoopSpec(s, {"struct"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body),
                        reads=array_names(body), writes=writes)

    # -- rows -------------------------------------------------------------------------------
    def rows_region(self, ind: str) -> list[str]:
        """Half the programs: one loop over rows (``rows_spec``), drawn from a generator of its
        own so that every other part of a seed's program stays what it was."""
        rng = random.Random(self.seed * 1000003 + 7)
        if rng.random() >= 0.5:
            return []
        main, self.r = self.r, rng
        try:
            return self.place(self.rows_spec(), ind)
        finally:
            self.r = main

    def pair_loops(self, shape: tuple[int, int], refs: tuple[str, str, str], val: str,
                   fill: str, weight: str) -> None:
        """Initialisation of a source and a destination of ``shape`` (``refs``: their
        elements at ``h0``, ``h1`` and the destination's name), the source to ``val``, the
        destination to ``fill``; and the check that prints the destination's sum weighted
        by ``weight``."""
        (n, k), (src, dst, name) = shape, refs
        self.init_extra += [f"    for (h0 = 0; h0 < {n}; h0++)",
                            f"        for (h1 = 0; h1 < {k}; h1++) {{",
                            f"            {src} = {val};", f"            {dst} = {fill};",
                            "        }"]
        self.check_extra += ["    cd = 0.0;", f"    for (h0 = 0; h0 < {n}; h0++)",
                             f"        for (h1 = 0; h1 < {k}; h1++)",
                             f"            cd += (double){dst} * {weight};",
                             f'    printf("{name} %.9e\\n", cd);']

    def rows_spec(self) -> LoopSpec:
        """Rows of a small last dimension: elements declared one by one with constant
        subscripts (vector loads), read again (reused reads), stored one by one (vector
        stores), one element updated in an inner loop of 0 to 5 iterations (an accumulator
        kept in a register) beside an invariant read."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        n = self.shapes[s][0]
        w = r.choice((2, 3, 4, 5, 8))
        ctype = r.choice(("double", "double", "float", "int", "long"))
        floaty = ctype in ("double", "float")
        src, dst = self.fresh("ra"), self.fresh("rb")
        for a in (src, dst):
            self.decl_global.append(f"{r.choice(('static ', ''))}{ctype} {a}[{n}][{w}];")
        self.misc_names += [src, dst]
        val = ("0.25 * h1 - 0.01 * h0 + 0.5" if floaty else "(h0 * 7 + h1 * 3) % 101 - 50")
        self.pair_loops((n, w), (f"{src}[h0][h1]", f"{dst}[h0][h1]", dst), val,
                        "1.0" if floaty else "1", "(1.0 + 0.125 * h1)")
        self.floaty = self.floaty or floaty
        e = lp.sub()
        names = [self.fresh("rv") for _ in range(w)]
        order = list(range(w))
        if r.random() < 0.3:
            r.shuffle(order)
        body = [f"{ctype} {names[q]} = {src}[{e}][{q}];" for q in order]

        def lane(q: int) -> str:
            a, b = names[q], names[(q + 1) % w]
            again = f"{src}[{e}][{r.randrange(w)}]" if r.random() < 0.5 else b
            if floaty:
                return f"{a} * {r.choice(('0.5', '1.5', '-0.25'))} + {again}"
            return f"({a} * {r.randint(1, 4)} + {again}) % 1009"

        stores = list(range(w))  # (every declared element is used)
        if r.random() < 0.3:
            r.shuffle(stores)
        body += [f"{dst}[{e}][{q}] = {lane(q)};" for q in stores]
        if r.random() < 0.7:
            j, trips = r.randrange(w), r.randint(0, 5)
            term = (f"0.5 * {src}[{e}][q % {w}] + {src}[{e}][0]" if floaty else
                    f"{src}[{e}][q % {w}] % 7 + {src}[{e}][0]")
            body += [f"for (int q = 0; q < {trips}; q++)", f"    {dst}[{e}][{j}] += {term};"]
        writes = {dst}
        self._write_vector(c, vecs, lp, body, writes)
        return LoopSpec(s, {"rows"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body),
                        reads=array_names(body), writes=writes)

    # -- threadprivate ----------------------------------------------------------------------
    def threadprivate_spec(self) -> LoopSpec:
        """A threadprivate scratch array written and then read within each iteration, and a
        threadprivate table the master fills and ``copyin`` copies into every thread; or
        scratch only a run-time check can clear (``checked_scratch_spec``)."""
        r = self.r
        if r.random() < 0.35:
            return self.checked_scratch_spec()
        s, lp, c, vecs = self.vector_loop()
        if self.tp_names is None:
            self.tp_len = r.choice((4, 8))
            self.tp_names = (self.fresh("tps"), self.fresh("tpc"))
            self.decl_global += [f"static double {x}[{self.tp_len}];" for x in self.tp_names]
            self.decl_global.append(f"#pragma omp threadprivate({', '.join(self.tp_names)})")
        tps, tpc = self.tp_names
        k = self.tp_len
        body: list[str] = []
        before: list[str] = []
        par: list[str] = []
        if r.random() < 0.6 or not vecs:
            cq = Ctx(list(c.iread), list(c.lread), list(c.dread), ["i", "q"])
            body += [f"for (int q = 0; q < {k}; q++)", f"    {tps}[q] = {self.dexpr(cq)};",
                     "double ts = 0.0;", f"for (int q = 0; q < {k}; q++)",
                     f"    ts += {tps}[q] * (0.5 + 0.125 * q);"]
            c.dread.append("ts")
        if r.random() < 0.6 or not body:
            time_term = " + 0.125 * t" if self.in_time else ""
            before += [f"for (h0 = 0; h0 < {k}; h0++)",
                       f"    {tpc}[h0] = 0.25 * h0 - 0.5{time_term};"]
            c.dread.append(f"{tpc}[({lp.var} % {k} + {k}) % {k}]")
            par.append(f"copyin({tpc})")
        return self._store_or_reduce(s, lp, c, vecs, body, {"threadprivate"},
                                     "ts" if "double ts" in "".join(body) else tpc, before, par)

    def _store_or_reduce(self, s: int, lp: Loop, c: Ctx, vecs: list[Arr], body: list[str],
                         fams: set[str], must: str, before: list[str], par: list[str]
                         ) -> LoopSpec:
        """The loop whose ``body`` computes a value from ``must``: stored into one of the 1-D
        arrays at the loop's element, or, with nowhere to store, summed in a reduction."""
        r = self.r
        writes: set[str] = set()
        targets = list(vecs)
        if not targets and len(self.shapes[s]) == 1:
            targets = [self.new_array(s, storage="heap")]
        if targets:
            a = r.choice(targets)
            body.append(f"{a.at([lp.sub()])} = {self.forced_store(a, c, must)};")
            writes.add(a.name)
            return LoopSpec(s, fams | self.extra_families,
                            self.loop_nest(s, [lp], 1, False, body), before=before,
                            reads=array_names(body), writes=writes, par_clauses=par)
        v = self.scalar("double", "0.0", "r")
        body.append(f"{v} += fabs({c.dread[-1]});")
        self.floaty = True
        return LoopSpec(s, fams | {"reduction"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body), [f"reduction(+:{v})"],
                        before, [f'printf("{v} %.9e\\n", {v});'], array_names(body),
                        writes, par, [v])

    def checked_scratch_spec(self) -> LoopSpec:
        """FT's shape, which the static proof cannot clear: each iteration gathers into a
        threadprivate scratch row a length read from a global array (the row chosen from
        the loop variable), a callee ping-pongs between the two rows through pointers and
        returns the one holding the result, and the iteration reads it back. Sometimes the
        read-back goes one element past what was written, so the check declines every time
        and the original runs; that element counts times 0, so the answer does not depend
        on what was left in it."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        k = r.choice((4, 6, 8))
        scr, lens, fn = self.fresh("tsc"), self.fresh("tsl"), self.fresh("tsp")
        # the scratch static in main, where the loop is, and passed to the callee by rows
        # (in a helper or callee the loop cannot see main's)
        local = r.random() < 0.3 and "func" not in self.extra_families and not self.orphan
        decl = [f"static double {scr}[2][{k + 1}];", f"#pragma omp threadprivate({scr})"]
        if local:
            self.decl_local += ["    " + line for line in decl]
        else:
            self.decl_global += decl
        self.decl_global.append(f"static int {lens}[2] = {{{k}, {k // 2}}};")
        self.misc_names.append(lens)  # a region with default(none) names it shared
        stages = r.choice((1, 2, 3))
        rows = ((f"src ? r1 : r0", f"src ? r0 : r1") if local else
                (f"{scr}[src]", f"{scr}[1 - src]"))
        self.funcs.append(
            f"static int {fn}(int d{', double *r0, double *r1' if local else ''})\n{{\n"
            f"    const int n = {lens}[d];\n"
            f"    int s, src = 0, t;\n    for (s = 0; s < {stages}; s++) {{\n"
            f"        const double *x = {rows[0]};\n        double *y = {rows[1]};\n"
            f"        for (t = 0; t < n; t++)\n"
            f"            y[t] = x[t] * 0.5 + x[(t + 1) % n];\n        src = 1 - src;\n    }}\n"
            f"    return src;\n}}\n")
        call = f"{fn}(d, {scr}[0], {scr}[1])" if local else f"{fn}(d)"
        d = r.choice((f"({lp.var} % 2 + 2) % 2", "0", "1"))  # loops may start below 0
        extra = " + 1" if r.random() < 0.25 else ""
        cq = Ctx(list(c.iread), list(c.lread), list(c.dread), ["i", "q"])
        body = [f"const int d = {d};",
                f"for (int q = 0; q < {lens}[d]; q++)",
                f"    {scr}[0][q] = {self.dexpr(cq)};",
                f"const int h = {call};", "double ts = 0.0;",
                f"for (int q = 0; q < {lens}[d]{extra}; q++)",
                f"    ts += {scr}[h][q] * (q < {lens}[d] ? 0.5 + 0.125 * q : 0.0);"]
        c.dread.append("ts")
        fams = {"threadprivate"} | ({"declined"} if extra else set())
        return self._store_or_reduce(s, lp, c, vecs, body, fams, "ts", [], [])
