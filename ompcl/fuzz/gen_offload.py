"""Generator, part 5: the shapes ompcl learned to offload with the coverage commits of GNU
atomic builtins, atomic captures, linear clauses, device constructs, memory calls and GNU C
types: counting-sort scatters whose slots come from captured counters (the filled slots'
checksums, per bucket, do not depend on the order), ``__sync_*`` / ``__atomic_*`` updates,
``linear(j:s)``, ``firstprivate`` with ``lastprivate``, ``target`` constructs run as gcc runs
them without an offload target (on the host), ``memset`` / ``memcpy`` / ``memmove`` on private
arrays and rows, ``assert``, ``static const`` tables, string literals, unions, ``__typeof__``,
``__auto_type`` and statement-expression ``MAX`` / ``MIN`` macros.

Consumes the program's arrays and shapes; produces the lines of each region (``gen_regions``
draws them like its own families).
"""
from __future__ import annotations

from .gen_exprs import FLOAT_TYPES, Arr, Ctx, Loop, _paren
from .gen_families import HIST_BINS
from .gen_loops import FORMATS, LoopSpec, array_names
from .gen_pointers import Pointers

#: the families of this module (drawn by ``region`` only when enabled by name)
OFFLOAD_FAMILIES = ("gnu_atomics", "captures", "linear", "privates", "target", "memcalls",
                    "gnu_types")
MACROS = (
    "#define MAX(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })",
    "#define MIN(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })",
    "#define kmax(x, y) ({ __typeof__(x) _m1 = (x); __typeof__(y) _m2 = (y); "
    "(void)(&_m1 == &_m2); _m1 > _m2 ? _m1 : _m2; })")
#: statement forms of an atomic increment of ``{x}`` by ``{e}`` (the result unused)
GNU_ADDS = ("__sync_fetch_and_add(&{x}, {e});", "__sync_add_and_fetch(&{x}, {e});",
            "__atomic_fetch_add(&{x}, {e}, __ATOMIC_RELAXED);",
            "__atomic_add_fetch(&{x}, {e}, __ATOMIC_SEQ_CST);")
GNU_SUBS = ("__sync_fetch_and_sub(&{x}, {e});", "__sync_sub_and_fetch(&{x}, {e});",
            "__atomic_fetch_sub(&{x}, {e}, __ATOMIC_RELAXED);",
            "__atomic_sub_fetch(&{x}, {e}, __ATOMIC_SEQ_CST);")
GNU_BITS = ("__sync_fetch_and_{op}(&{x}, {e});", "__sync_{op}_and_fetch(&{x}, {e});",
            "__atomic_fetch_{op}(&{x}, {e}, __ATOMIC_RELAXED);",
            "__atomic_{op}_fetch(&{x}, {e}, __ATOMIC_SEQ_CST);")


class Offload(Pointers):
    """The coverage shapes (a mixin of the generator, under ``gen_regions.Regions``)."""

    macros_done = False

    def offload_region(self, fam: str, ind: str) -> list[str]:
        """The lines of one region of ``fam`` (one of OFFLOAD_FAMILIES)."""
        if fam in ("gnu_atomics", "captures"):
            return self.scatter_region(fam, ind)
        if fam == "target":
            return self.target_region(ind)
        return self.place({"linear": self.linear_spec, "privates": self.privates_spec,
                           "memcalls": self.memcalls_spec,
                           "gnu_types": self.gnu_types_spec}[fam](), ind)

    def _local(self, decl: str, name: str, init: list[str]) -> None:
        self.decl_local.append(f"    {decl};")
        self.init_extra += init
        self.misc_names.append(name)

    # -- atomics: histograms and counting-sort scatters ---------------------------------------
    def gnu_update(self, x: str, ctype: str, c: Ctx) -> str:
        """One GNU builtin updating ``x`` (of ``ctype``), its result unused; the final value
        does not depend on the order."""
        r = self.r
        if ctype == "unsigned int" and r.random() < 0.6:
            op = r.choice(("or", "xor", "and"))
            e = {"or": f"1u << ((unsigned int)({self.iterm(c)}) & 31u)",
                 "xor": f"(unsigned int)({self.iterm(c)}) * 40503u",
                 "and": f"~(1u << ((unsigned int)({self.iterm(c)}) & 31u))"}[op]
            return r.choice(GNU_BITS).format(op=op, x=x, e=e)
        one = {"int": "", "long": "L", "unsigned int": "u"}[ctype]
        e = r.choice((f"1{one}", f"({ctype})({_paren(self.iterm(c))} % 7 + 7)", f"3{one}"))
        return r.choice(GNU_ADDS if r.random() < 0.7 else GNU_SUBS).format(x=x, e=e)

    def capture(self, pos: str, x: str, k: int, gnu: bool) -> list[str]:
        """``pos`` = the slot of this iteration from the counter ``x`` stepped by ``k``: a
        captured old or new value (OpenMP or GNU forms)."""
        r = self.r
        if gnu:  # (the device runs v = f(&x, e); a value used in an expression stays home)
            call = r.choice((f"__sync_fetch_and_add(&{x}, {k})", f"__sync_add_and_fetch(&{x}, {k})",
                             f"__atomic_fetch_add(&{x}, {k}, __ATOMIC_RELAXED)",
                             f"__atomic_add_fetch(&{x}, {k}, __ATOMIC_SEQ_CST)"))
            new = "add_fetch" in call or "add_and_fetch" in call
            fix = f"{pos} = {pos} / {k} - 1;" if new else f"{pos} = {pos} / {k};"
            return [f"{pos} = {call};"] + ([fix] if k != 1 or new else [])
        old = [f"{pos} = {x}++;", f"{pos} = {x}; {x} += {k};", f"{pos} = {x}; {x}++;"]
        new = [f"{pos} = {x} += {k};", f"{x} += {k}; {pos} = {x};", f"{pos} = ++{x};"]
        if k != 1:
            old, new = old[1:2], new[:2]
        is_old = r.random() < 0.5
        stmt = r.choice(old if is_old else new)
        block = [stmt] if stmt.count(";") == 1 else ["{", "    " + stmt.replace("; ", ";\n    "),
                                                     "}"]
        block = [y for b in block for y in b.split("\n")]
        fix = f"{pos} = {pos} / {k};" if is_old else f"{pos} = {pos} / {k} - 1;"
        return ["#pragma omp atomic capture"] + block + ([fix] if k != 1 or not is_old else [])

    def scatter_region(self, fam: str, ind: str) -> list[str]:
        """A histogram loop (bucket counts by ``omp atomic`` or GNU builtins, sometimes a
        shared scalar too), a host prefix sum, then a loop scattering a value of each
        iteration into the next free slot of its bucket (a captured counter); the checksums
        of every bucket's slots do not depend on which iteration got which slot."""
        r = self.r
        gnu = fam == "gnu_atomics"
        s, lp, c, _ = self.vector_loop()
        trips = len(lp.values())
        bins = r.choice(HIST_BINS)
        ct = r.choice(("int", "long", "unsigned int"))
        cnt, cf, base, out = (self.fresh(p) for p in ("cn", "cf", "cb", "co"))
        self._local(f"{ct} {cnt}[{bins}], {cf}[{bins}]", cnt, [])
        self.misc_names.append(cf)
        self._local(f"long {base}[{bins}]", base, [])
        self._local(f"long {out}[{trips}]", out, [f"    for (h0 = 0; h0 < {trips}; h0++)",
                                                   f"        {out}[h0] = -7777777L;"])
        bucket = f"int hb = (({self.iexpr(c)}) % {bins} + {bins}) % {bins};"
        fmt = FORMATS[ct]
        after = [f"for (h0 = 0; h0 < {bins}; h0++)", f'    printf("{cnt} %d {fmt}\\n", h0, '
                 f"{cnt}[h0]);"]
        body = [bucket]
        one = {"int": "1", "long": "1L", "unsigned int": "1u"}[ct]
        if gnu or r.random() < 0.3:
            body.append(r.choice(GNU_ADDS).format(x=f"{cnt}[hb]", e=one))
        else:
            body += [r.choice(("#pragma omp atomic", "#pragma omp atomic update")),
                     r.choice((f"{cnt}[hb]++;", f"++{cnt}[hb];", f"{cnt}[hb] += 1;"))]
        before: list[str] = []
        if r.random() < 0.6:
            sc_t = r.choice(("long", "int", "unsigned int"))
            sc = self.scalar(sc_t, {"long": "0", "int": "0", "unsigned int": "0u"}[sc_t], "as")
            before.append(f"{sc} = {'5u' if sc_t == 'unsigned int' else '5'};")
            body.append(self.gnu_update(sc, sc_t, c))
            after.append(f'printf("{sc} {FORMATS[sc_t]}\\n", {sc});')
        fams = {"gnu_atomics" if any(b.startswith("__") for b in body) else "atomic"}
        first = LoopSpec(s, fams | self.extra_families,
                         self.loop_nest(s, [lp], 1, False, body), before=before, after=after,
                         reads=array_names(body), writes={cnt})
        lines = [f"{ind}for (h0 = 0; h0 < {bins}; h0++)", f"{ind}    {cnt}[h0] = {cf}[h0] = 0;"]
        lines += self.place(first, ind)
        lines += [f"{ind}for (h0 = 0, hl = 0; h0 < {bins}; h0++) {{",
                  f"{ind}    {base}[h0] = hl;", f"{ind}    hl += (long){cnt}[h0];", f"{ind}}}",
                  f"{ind}hl = 0;"]
        return lines + self.place(self.scatter_spec(s, lp, c, bucket, (cf, base, out, ct),
                                                    gnu, bins), ind)

    def scatter_spec(self, s: int, lp: Loop, c: Ctx, bucket: str,
                     names: tuple[str, str, str, str], gnu: bool, bins: int) -> LoopSpec:
        """The scatter over the histogram loop's iterations (``lp`` again)."""
        r = self.r
        cf, base, out, ct = names
        k = r.choice((1, 1, 2, 3))
        val = self.store("long", c)
        body = [bucket, f"{ct} pos;"] + self.capture("pos", f"{cf}[hb]", k, gnu)
        body.append(f"{out}[{base}[hb] + (long)pos] = {val};")
        if r.random() < 0.4:  # a threshold crossed by exactly one iteration per bucket
            nd = self.scalar("long", "0", "nd")
            body += [f"if (pos == {r.randint(0, 3)})", f"    __sync_fetch_and_add(&{nd}, 1L);"
                     if gnu else f"{{\n#pragma omp atomic\n    {nd}++;\n}}"]
            extra = [f'printf("{nd} %ld\\n", {nd});']
        else:
            extra = []
        self.check_extra += [
            f"    for (h0 = 0; h0 < {bins}; h0++) {{", "        long bs = 0, bq = 0;",
            f"        for (h1 = 0; h1 < (int){cf}[h0] / {k}; h1++) {{",
            f"            bs += {out}[{base}[h0] + h1];",
            f"            bq ^= {out}[{base}[h0] + h1] * 2654435761L;", "        }",
            f'        printf("{out} %d %ld %ld\\n", h0, bs, bq);', "    }"]
        fams = {"captures"} | ({"gnu_atomics"} if gnu else set())
        return LoopSpec(s, fams | self.extra_families, self.loop_nest(s, [lp], 1, False, body),
                        after=extra, reads=array_names(body), writes={cf, out})


    # -- linear and firstprivate/lastprivate ---------------------------------------------------
    def linear_spec(self) -> LoopSpec:
        """``linear(j:s)``: the body reads j, then steps it once (``j += s``); sometimes j is
        the subscript of a store (from 0 up, or from the end down, one element per
        iteration); the value after the loop printed."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        trips = len(lp.values())
        ctype = r.choice(("int", "long"))
        lj = self.scalar(ctype, "0", "lj")
        step = r.choice((1, 1, 2, 3, -1, -2))
        dst = ""
        if abs(step) == 1 and r.random() < 0.5:
            dst = self.fresh("lw")
            self._local(f"double {dst}[{trips}]", dst,
                        [f"    for (h0 = 0; h0 < {trips}; h0++)", f"        {dst}[h0] = 0.5;"])
            self.check_extra += ["    cd = 0.0;", f"    for (h0 = 0; h0 < {trips}; h0++)",
                                 f"        cd += fabs({dst}[h0]) * (1.0 + 0.125 * (h0 % 8));",
                                 f'    printf("{dst} %.9e\\n", cd);']
            self.floaty = True
            j0 = 0 if step == 1 else trips - 1
        else:
            j0 = r.randint(-5, 5)
        before = [f"{lj} = {j0};"]
        c.iread.append(f"(int)({lj} % 1000)")
        body: list[str] = []
        if dst:
            body.append(f"{dst}[{lj}] = {self.dexpr(c)} + 0.25 * {lj};")
        c.dread.append(f"0.001 * (double){lj}")
        step_stmt = r.choice((f"{lj} += {step};",) * 3 + (
            (f"{lj}++;", f"++{lj};") if step == 1 else (f"{lj} = {lj} + {step};",)))
        spec = self._store_or_reduce(s, lp, c, vecs, body, {"linear"}, lj, before, [])
        inner = spec.nest

        def nest(ind: str) -> list[str]:  # the step as the body's last statement
            lines = inner(ind)
            return lines[:-1] + [lines[-2][:len(lines[-2]) - len(lines[-2].lstrip())] +
                                 step_stmt, lines[-1]]
        spec.nest = nest
        spec.clauses.append(f"linear({lj}:{step})" if step != 1 or r.random() < 0.5
                            else f"linear({lj})")
        spec.after.append(f'printf("{lj} %ld\\n", (long){lj});')
        spec.shared_vars.append(lj)
        return spec

    def privates_spec(self) -> LoopSpec:
        """``firstprivate(x) lastprivate(x)`` with x written before it is read in every
        iteration (in both branches of an if, or straight), or ``lastprivate(x)`` assigned in
        an inner loop of a constant trip count of at least one."""
        r = self.r
        s, lp, c, vecs = self.vector_loop()
        x = self.scalar("double", "-1.5", "fl")
        cq = Ctx(list(c.iread), list(c.lread), list(c.dread), c.ivars + ["q"])
        k = r.random()
        if k < 0.35:
            body = [f"{x} = {self.dexpr(c)};"]
            clauses = [f"firstprivate({x})", f"lastprivate({x})"]
        elif k < 0.6:
            cond = self.if_cond(c, [lp])
            body = [f"if ({cond})", f"    {x} = {self.dexpr(c)};", "else",
                    f"    {x} = {self.dexpr(c)};"]
            clauses = [f"lastprivate({x})", f"firstprivate({x})"]
        else:
            trips = r.choice((1, 2, 3, 5, 17))
            body = [f"for (int q = 0; q < {trips}; q++)", f"    {x} = {self.dexpr(cq)};"]
            clauses = [f"lastprivate({x})"] + ([f"firstprivate({x})"] if r.random() < 0.3
                                                else [])
        # read after it is written, or only assigned
        c.dread.append(x if r.random() < 0.5 else f"0.001 * {lp.var}")
        spec = self._store_or_reduce(s, lp, c, vecs, body, {"privates"}, c.dread[-1],
                                     [f"{x} = -1.5;"], [])
        spec.clauses += clauses
        spec.after.append(f'printf("{x} %.9e\\n", {x});')
        spec.shared_vars.append(x)
        self.floaty = True
        return spec

    # -- target constructs ---------------------------------------------------------------------
    def map_clause(self, names: set[str], writes: set[str]) -> str:
        """``map`` clauses for the arrays of the program among ``names`` (sections for heap
        arrays), ``to`` for those only read."""
        r = self.r
        groups: dict[str, list[str]] = {"tofrom": [], "to": []}
        for a in self.arrays:
            if a.name not in names:
                continue
            if a.storage == "heap":
                item = f"{a.name}[0:{' * '.join(str(n) for n in a.shape)}]"
            elif a.storage == "rowptr":
                item = f"{a.name}[0:{a.shape[0]}]"
            elif r.random() < 0.3:
                continue  # an array is mapped tofrom implicitly
            else:
                item = a.name
            groups["tofrom" if a.name in writes or r.random() < 0.2 else "to"].append(item)
        return "".join(f" map({k}: {', '.join(v)})" for k, v in groups.items() if v)

    def target_region(self, ind: str) -> list[str]:
        """A map loop (with reductions, sometimes a lastprivate) as a combined device
        construct, or a ``target`` region whose only statement is ``teams distribute
        parallel for``. Without an offload target gcc runs it on the host: reductions and
        lastprivates of a combined construct are written back, those of a ``teams`` inside
        a ``target`` stay the target's firstprivate copies unless mapped."""
        r = self.r
        self.force_reduction = r.random() < 0.6
        try:
            spec = self.map_spec(r.randrange(len(self.shapes)))
        finally:
            self.force_reduction = False
        spec.families.add("target")
        nest = spec.nest(ind)
        clauses = list(spec.clauses)
        # (simd with collapse: gcc -Wall warns of its own '.count' maybe-uninitialized)
        simd = " simd" if r.random() < 0.3 and not any(
            x.startswith("collapse") for x in clauses) else ""
        maps = self.map_clause(spec.reads | spec.writes, spec.writes)
        extra = []
        if r.random() < 0.2:
            extra.append(r.choice(("num_teams(4)", "thread_limit(8)", "num_teams(3)")))
        kind = r.choice(("combined", "combined", "parallel", "split", "split_braced"))
        r.shuffle(clauses)
        cl = "".join(" " + x for x in clauses)
        split = kind.startswith("split")
        scal = [v for v in spec.shared_vars if r.random() < 0.5] if split else []
        if split and len(scal) < len(spec.shared_vars):
            spec.families.add("target_unmapped")  # firstprivate to the target: on the host
        mark = self.marker(spec.families)
        if kind == "parallel":
            head = [mark, f"#pragma omp target parallel for{simd}{cl}{maps}"]
            return self._around(spec, ind, head + nest)
        if kind == "combined":
            tl = "".join(" " + x for x in extra)
            head = [mark, f"#pragma omp target teams distribute parallel for{simd}{cl}{maps}"
                    f"{tl}"]
            return self._around(spec, ind, head + nest)
        if scal:
            maps += f" map(tofrom: {', '.join(scal)})"
        tl = "".join(" " + x for x in extra if x.startswith("num_teams"))
        inner = [f"#pragma omp teams distribute parallel for{simd}{cl}{tl}"]
        if kind == "split_braced":
            body = [mark, f"#pragma omp target{maps}", ind + "{"] + inner + spec.nest(ind + "    ")
            return self._around(spec, ind, body + [ind + "}"])
        return self._around(spec, ind, [mark, f"#pragma omp target{maps}"] + inner + nest)

    @staticmethod
    def _around(spec: LoopSpec, ind: str, lines: list[str]) -> list[str]:
        return [ind + b for b in spec.before] + lines + [ind + a for a in spec.after]

    # -- memset, memcpy, memmove, assert -------------------------------------------------------
    def include(self, header: str) -> None:
        line = f"#include <{header}>"
        if line not in self.decl_global:
            self.decl_global.insert(0, line)

    def row_pair(self, n: int, k: int, ctype: str) -> tuple[Arr, Arr]:
        """Source and destination arrays of ``n`` rows of ``k`` (2-D arrays or flat heap
        blocks), initialised, the destination's checksum printed."""
        r = self.r
        flat = r.random() < 0.5
        pair = []
        for role in ("ms", "md"):
            name = self.fresh(role)
            if flat:
                self.decl_local.append(f"    {ctype} *{name} = malloc((size_t){n * k} * "
                                       f"sizeof *{name});")
                self.frees_extra.append(f"    free({name});")
            else:
                self.decl_global.append(f"{r.choice(('static ', ''))}{ctype} {name}[{n}][{k}];")
            pair.append(Arr(name, ctype, (n, k), "heap" if flat else "global", (str(k),)))
            self.misc_names.append(name)
        src, dst = pair
        val = "0.25 * h1 - 0.01 * h0 + 0.5" if ctype == "double" else "(h0 * 7 + h1 * 3) % 101"
        self.pair_loops((n, k), (src.at(["h0", "h1"]), dst.at(["h0", "h1"]), dst.name), val,
                        "3", "(1.0 + 0.125 * h1 + 0.01 * (h0 % 7))")
        self.floaty = self.floaty or ctype == "double"
        return src, dst

    def row_ref(self, a: Arr, e: str) -> str:
        """A pointer to row ``e`` of ``a``."""
        k = a.shape[1]
        if a.storage == "heap":
            return self.r.choice((f"&{a.name}[{_paren(e)} * {k}]", f"{a.name} + {_paren(e)} * {k}"))
        return self.r.choice((f"{a.name}[{e}]", f"&{a.name}[{e}][0]"))

    def mem_helper(self, kind: str, ctype: str) -> str:
        """A callee doing one memory call (made once per kind and type)."""
        name = f"mh_{kind}_{ctype.replace(' ', '_')}"
        if name not in self.kfuncs:
            self.kfuncs.append(name)
            call = {"copy": "memcpy(d, s, k * sizeof *d);",
                    "zero": "memset(d, 0, k * sizeof *d);"}[kind]
            params = f"{ctype} *d, {'const ' if kind != 'zero' else ''}{ctype} *s, int k"
            if kind == "zero":
                params = f"{ctype} *d, int k"
            self.funcs.append(f"static void {name}({params})\n{{\n    {call}\n}}\n")
        return name

    def memcalls_spec(self) -> LoopSpec:
        """Each iteration: a private array zeroed (``memset``, ``sizeof``), a source row
        copied into it (``memcpy`` or a callee), updated, shifted (``memmove``), checked
        (``assert``), copied to the destination row (or the row zeroed and filled)."""
        r = self.r
        self.include("string.h")
        s, lp, c, vecs = self.vector_loop()
        n = self.shapes[s][0]
        k = r.choice((2, 3, 4, 5, 8))
        ctype = r.choice(("double", "double", "int", "long"))
        src, dst = self.row_pair(n, k, ctype)
        e = lp.sub()
        size = r.choice((f"{k} * sizeof *tmp", f"{k} * sizeof({ctype})", "sizeof tmp"))
        body = [f"{ctype} tmp[{k}];"]
        body.append(f"memset(tmp, 0, {size});" if r.random() < 0.6 else
                    f"{self.mem_helper('zero', ctype)}(tmp, {k});")
        if r.random() < 0.8:
            body.append(f"memcpy(tmp, {self.row_ref(src, e)}, {size});" if r.random() < 0.6
                        else f"{self.mem_helper('copy', ctype)}(tmp, {self.row_ref(src, e)}, "
                        f"{k});")
        if ctype == "double":
            upd = f"tmp[q] = 0.5 * tmp[q] + 0.125 * q + 0.25 * {_paren(self.dterm(c))};"
        else:
            upd = f"tmp[q] = (tmp[q] * 3 + q + ({self.iexpr(c)})) % 1009;"
        body += [f"for (int q = 0; q < {k}; q++)", "    " + upd]
        if r.random() < 0.5:
            body.append(r.choice((f"memmove(tmp + 1, tmp, ({k} - 1) * sizeof *tmp);",
                                  f"memmove(tmp, tmp + 1, {k - 1} * sizeof(tmp[0]));")))
        if r.random() < 0.5:
            self.include("assert.h")
            vals = lp.values()
            body.append(r.choice((f"assert({lp.var} >= {min(vals)} && {lp.var} <= {max(vals)});",
                                  f"assert(sizeof tmp == {k} * sizeof tmp[0]);",
                                  f"assert({e} < {n});")))
        row = self.row_ref(dst, e)
        if r.random() < 0.6:
            body.append(f"memcpy({row}, tmp, {k} * sizeof({ctype}));" if r.random() < 0.6
                        else f"{self.mem_helper('copy', ctype)}({row}, tmp, {k});")
        else:
            half = r.randint(1, k)
            body += [f"memset({row}, 0, {k} * sizeof tmp[0]);",
                     f"for (int q = 0; q < {half}; q++)",
                     f"    {dst.at([e, 'q'])} = tmp[q] + tmp[{k - 1} - q];"]
        writes = {dst.name}
        self._write_vector(c, vecs, lp, body, writes)
        return LoopSpec(s, {"memcalls"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body),
                        reads=array_names(body) | {src.name}, writes=writes)

    # -- GNU C types and tables ---------------------------------------------------------------
    def gnu_callee(self) -> str:
        """A callee reading a ``static const`` table, a string literal or a union; returns the
        name of an int function of an int."""
        r = self.r
        name = self.fresh("gt")
        k = r.random()
        if k < 0.4:
            m = r.choice((3, 5, 8, 9))
            vals = ", ".join(str(r.randint(-50, 50)) for _ in range(m))
            body = (f"    static const int tab[{m}] = {{{vals}}};\n"
                    f"    return tab[(k % {m} + {m}) % {m}];")
        elif k < 0.6:
            body = f'    return "ACGT"[k & 3] - \'A\' + "TGCA"[(k >> 2) & 3];'
        elif k < 0.8:
            body = ("    union { double d; long l; } u;\n    u.d = (double)k * 0.5 + 3.0;\n"
                    "    return (int)((u.l >> 44) & 255);")
        else:
            body = ("    static const double w[4] = {0.5, 1.5, -2.0, 0.25};\n"
                    "    return (int)(w[k & 3] * 4.0) + k % 3;")
        self.funcs.append(f"static int {name}(int k)\n{{\n{body}\n}}\n")
        self.kfuncs.append(name)
        return name

    def gnu_types_spec(self) -> LoopSpec:
        """Locals of ``__typeof__`` and ``__auto_type``, a ``static const`` table in the body,
        a string literal subscripted, a union punning a double's bits (of exact values
        only), a callee with a table, ``MAX`` / ``MIN`` statement expressions as operands."""
        r = self.r
        if not self.macros_done:
            self.macros_done = True
            self.decl_global[:0] = list(MACROS)
        s, lp, c, vecs = self.vector_loop()
        it = self.iterm(c)
        m = r.choice((4, 8))
        vals = ", ".join(str(r.randint(-20, 20)) for _ in range(m))
        body = [f"static const int tb[{m}] = {{{vals}}};",
                f"int ub = tb[((unsigned int)({it})) & {m - 1}u];"]
        if r.random() < 0.5:
            body += ["union { double d; long l; } un;",
                     f"un.d = (double)({self.iterm(c)}) * 0.25 + 0.5;",
                     "ub += (int)((un.l >> 46) & 63);"]
        else:
            body += ["union { long l; double d; } un;",
                     f"un.l = 0x3ff0000000000000L | ((long)(({self.iterm(c)}) & 1023) << 42);",
                     "ub += (int)(un.d * 16.0);"]
        body.append(f"char ch = \"ACGT\"[({self.iterm(c)}) & 3];")
        callee = self.gnu_callee() if r.random() < 0.7 else ""
        lv = f"{callee}({self.iterm(c)})" if callee else f"(int)\"xyzw\"[{lp.var} & 3]"
        body.append(f"__auto_type lv = {lv};")
        body.append(r.choice(("int gv = MAX(ub, lv) + MIN((int)ch, lv) - kmax(ub, lv);",
                              "int gv = MIN(MAX(ub, (int)ch), 90) + kmax(lv, ub) % 7;",
                              "__typeof__(ub) gv = MAX(ub * 2, lv) - MIN(ch, 'C');")))
        c.iread.append("gv")
        if c.dread and r.random() < 0.7:
            d = r.choice(c.dread)
            body += [f"__typeof__({d}) tv = {d};", "__auto_type av = 0.5 * tv + 0.01 * gv;",
                     "double gd = MAX(tv, av) + MIN(av, 0.25);",
                     "(void)gd;  /* a store into an integer array may not read it */"]
            c.dread.append("gd")
            self.floaty = True
            must = "gd"
        else:
            c.dread.append("0.01 * gv")
            must = "gv"
        return self._store_or_reduce(s, lp, c, vecs, body, {"gnu_types"}, must, [], [])
