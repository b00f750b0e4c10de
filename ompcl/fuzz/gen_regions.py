"""Generator, part 4 (issue 9): parallel regions holding several ``omp for`` loops (nowait where
legal, single/master/barrier/flush and private computations between them, region-level
data-sharing clauses, reductions into shared variables), orphaned ``omp for`` in callees,
threadprivate scratch arrays and copyin, ``omp atomic`` histograms, arrays of structs.

Consumes LoopSpecs (gen_loops, gen_extents) and the program's arrays; produces the lines of each
construct. Determinism by construction: code every thread runs computes the same values in every
thread, shared data is written only in work-shared loops (one element per iteration), single or
master (then a barrier), atomic updates or reductions, and ``nowait`` only where the next loop
touches none of the arrays of the previous one.
"""
from __future__ import annotations

import re

from .gen_exprs import Ctx
from .gen_folds import FOLD_FAMILIES, Folds
from .gen_offload import OFFLOAD_FAMILIES
from .gen_loops import LoopSpec, array_names


class Regions(Folds):
    """Issue-9 shapes (a mixin of the generator)."""

    force_reduction = False
    struct_type = ""
    tp_names: tuple[str, str] | None = None  # (scratch, copied-in) threadprivate arrays
    misc_names: list[str]  # main-scope variables besides arrays and scalars (default(none))

    def family_region(self, fam: str, ind: str) -> list[str]:
        if fam in ("parallel_region", "region_reduction", "team_sharing"):
            return self.team_region(ind, reduction=fam == "region_reduction",
                                    sharing=fam == "team_sharing")
        if fam == "orphaned":
            return self.orphan_region(ind)
        if fam in OFFLOAD_FAMILIES:
            return self.offload_region(fam, ind)
        if fam in FOLD_FAMILIES:
            return self.folds_region(ind)
        return self.place(self.family_spec(fam), ind)

    def family_spec(self, fam: str) -> LoopSpec:
        return {"body_local": self.body_local_spec, "shadowing": self.shadowing_spec,
                "pointer_offset": self.pointer_offset_spec, "guarded": self.guarded_spec,
                "threadprivate": self.threadprivate_spec, "atomic": self.atomic_spec,
                "struct": self.struct_spec}[fam]()

    # -- parallel regions with several loops ------------------------------------------------
    def region_spec(self, reduction: bool) -> LoopSpec:
        r = self.r
        kind = r.choice(("map", "map", "map", "guarded", "atomic", "struct", "threadprivate",
                         "rowreduce", "body_local", "pointer_offset"))
        if reduction:
            self.force_reduction = True
            try:
                spec = self.map_spec(r.randrange(len(self.shapes)))
            finally:
                self.force_reduction = False
            spec.families.add("region_reduction")
            return spec
        if kind == "map":
            return self.map_spec(r.randrange(len(self.shapes)))
        if kind == "rowreduce":
            s = self.shape_of_rank((2, 3))
            vecs = [a for a in self.arrays if a.shape == (self.shapes[s][0],)]
            if vecs:
                return self.rowreduce_spec(s, r.choice(vecs))
            return self.map_spec(s)
        return self.family_spec(kind)

    def team_region(self, ind: str, reduction: bool, sharing: bool = False) -> list[str]:
        """``#pragma omp parallel`` holding 2-3 ``omp for`` loops and code between them;
        ``sharing``: also the data sharing the host path must keep (``sharing_specs``)."""
        r = self.r
        saved_fp = list(self.fp_d)
        privs: list[str] = []
        pre: list[str] = []
        inner = ind + "    "
        for _ in range(r.choice((0, 1, 1, 2))):  # region-private, the same in every thread
            v = self.scalar("double", "0.0", "rp")
            pre.append(f"{inner}{v} = {self.dexpr(Ctx())};")
            privs.append(v)
            self.fp_d.append(v)
        fprivs = [v for v in saved_fp + self.fp_i if r.random() < 0.3]
        nloops = r.choice((2, 2, 3))
        specs: list[LoopSpec] = []
        between: list[list[str]] = []
        body = list(pre)
        before: list[str] = []
        after: list[str] = []
        self.teams = getattr(self, "teams", 0) + 1
        observed = sharing and r.random() < 0.2
        parrays: list[str] = []  # privatised arrays and file-scope scalars
        try:
            extra = self.sharing_specs(inner, parrays, fprivs, body) if sharing else []
            total = nloops + len(extra)
            for n in range(total):
                spec = extra.pop(r.randrange(len(extra))) if extra and (
                    r.random() < 0.6 or total - n <= len(extra)) else \
                    self.region_spec(reduction and n == 0)
                spec.families |= {"parallel_region", f"team{self.teams}"} | (
                    {"team_sharing"} if sharing else set()) | (
                    {"observed"} if observed else set())
                if n:
                    between.append(self.between(inner, privs, after))
                specs.append(spec)
            if observed:
                between.insert(0, self.team_size_check(inner, after))
                before.append(f"{self.observed_want} = omp_get_max_threads();")
            if observed:
                body += between.pop(0)
            for n, spec in enumerate(specs):
                if n:
                    body += between[n - 1]
                nowait = self.may_nowait(specs, between, n)
                body += self.region_for(spec, inner, set(privs) | set(fprivs) | set(parrays),
                                        nowait)
                before += spec.before
                after += spec.after
        finally:
            self.fp_d = saved_fp
        clauses = self.region_clauses(specs, body, privs + parrays, fprivs, observed)
        return ([ind + b for b in before] + [f"#pragma omp parallel{clauses}", ind + "{"] +
                body + [ind + "}"] + [ind + a for a in after])

    def between(self, ind: str, privs: list[str], after: list[str]) -> list[str]:
        """Code between two loops of a region."""
        r = self.r
        k = r.choice(("none", "barrier", "flush", "single", "master", "private", "single-print"))
        if k == "barrier":
            return ["#pragma omp barrier"]
        if k == "flush":
            return ["#pragma omp flush"]
        if k == "private" and privs:
            v = r.choice(privs)
            return [f"{ind}{v} = 0.5 * {v} + {r.choice((0.125, 0.25, -0.375))};"]
        if k in ("single", "master"):
            v = self.scalar("double", "0.0", "sv")
            lines = [f"#pragma omp {k}", f"{ind}{v} = {self.dexpr(Ctx())};"]
            if k == "master":  # no barrier of its own: readers must wait
                lines.append("#pragma omp barrier")
            self.fp_d.append(v)
            after.append(f'printf("{v} %.9e\\n", {v});')
            return lines
        if k == "single-print":
            return ["#pragma omp single", f'{ind}printf("single %d\\n", {r.randint(0, 99)});']
        return []

    def may_nowait(self, specs: list[LoopSpec], between: list[list[str]], n: int) -> bool:
        """``nowait`` on loop n: the last loop (the region ends with a barrier), or the next
        loop follows directly and touches none of this loop's arrays; never twice in a row
        (the barrier of the next loop orders this one before the one after it)."""
        if self.r.random() < 0.5:
            return False
        if n == len(specs) - 1:
            return True
        a, b = specs[n], specs[n + 1]
        direct = not [x for x in between[n] if "omp" in x and "flush" not in x]
        disjoint = not (a.writes & (b.reads | b.writes) or a.reads & b.writes)
        a.nowait = direct and disjoint and not (n > 0 and specs[n - 1].nowait)
        return a.nowait

    def region_for(self, spec: LoopSpec, ind: str, private: set[str], nowait: bool) -> list[str]:
        """``spec`` as an ``omp for`` inside a region: its own clauses, firstprivate of
        loop-invariant scalars shared in the region, schedule, nowait."""
        r = self.r
        nest = spec.nest(ind)
        text = "\n".join(nest)
        clauses = list(spec.clauses)
        for v in self.fp_d + self.fp_i:
            if v not in private and re.search(rf"\b{v}\b", text) and r.random() < 0.3:
                clauses.append(f"firstprivate({v})")
        if r.random() < 0.2:
            clauses.append(r.choice(("schedule(static)", "schedule(dynamic, 2)",
                                     "schedule(guided)", "schedule(static, 3)")))
        if nowait:
            clauses.append("nowait")
        r.shuffle(clauses)
        return [self.marker(spec.families), "#pragma omp for" + "".join(" " + c for c in
                                                                       clauses)] + nest

    def main_names(self) -> set[str]:
        """Variables of main (and file scope) a region may reference."""
        names = {a.name for a in self.arrays} | set(self.misc_names) | {"t"}
        names |= {x.split(" = ")[0].split()[-1] for x in self.scalars}
        return names

    def region_clauses(self, specs: list[LoopSpec], body: list[str], privs: list[str],
                       fprivs: list[str], observed: bool = False) -> str:
        r = self.r
        text = "\n".join(body)
        used = {n for n in re.findall(r"\b[A-Za-z_]\w*\b", text)} & self.main_names()
        fprivs = [v for v in fprivs if v in used]
        clauses = []
        if privs:
            clauses.append(f"private({', '.join(privs)})")
        if fprivs:
            clauses.append(f"firstprivate({', '.join(fprivs)})")
        if r.random() < 0.3:
            clauses.append("private(i)")
        clauses += sorted({c for s in specs for c in s.par_clauses})
        rest = sorted(used - set(privs) - set(fprivs) - {"i", "j", "k"})
        k = r.random()
        if k < 0.25 and rest:
            clauses += ["default(none)", f"shared({', '.join(rest)})"]
        elif k < 0.4:
            clauses.append("default(shared)")
        elif k < 0.6 and rest:
            clauses.append(f"shared({', '.join(r.sample(rest, min(len(rest), 3)))})")
        if r.random() < 0.15 and not observed:  # (the team size check wants the default)
            clauses.append("num_threads(2)")
        r.shuffle(clauses)
        return "".join(" " + c for c in clauses)

    # -- the data sharing of a region's threads (issue 34) -----------------------------------
    def file_scope(self, decl: str, name: str) -> None:
        """A file-scope variable ``decl`` (``name`` its name): defined here (static or not),
        or declared extern here and defined in the program's second file."""
        where = self.r.choice(("static", "global", "extern"))
        if where == "extern":
            self.decl_global.append(f"extern {decl};")
            self.second_file.append(f"{decl};")
        else:
            self.decl_global.append(f"{'static ' if where == 'static' else ''}{decl};")
        self.misc_names.append(name)

    def sharing_specs(self, ind: str, privs: list[str], fprivs: list[str], body: list[str]
                      ) -> list[LoopSpec]:
        """Loops whose host code must keep the region's data sharing: a privatised file-scope
        (or extern) scratch array each iteration fills and reads, a privatised file-scope
        scalar each thread sets alike, a firstprivate array, and a loop kept on the host
        (a critical section) reducing into a local of main, beside offloaded ones."""
        r = self.r
        out: list[LoopSpec] = []
        if r.random() < 0.7:
            k = r.choice((3, 4, 8, 16))
            gs = self.fresh("gs")
            self.file_scope(f"double {gs}[{k}]", gs)
            privs.append(gs)
            out.append(self.scratch_spec(gs, k))
        if r.random() < 0.5:
            gp = self.fresh("gp")
            self.file_scope(f"double {gp}", gp)
            privs.append(gp)
            body.append(f"{ind}{gp} = {self.dexpr(Ctx())};")
            self.fp_d.append(gp)
        if r.random() < 0.5:
            k = r.choice((2, 5, 8))
            fa = self.fresh("fa")
            self.decl_local.append(f"    double {fa}[{k}];")
            self.init_extra.append(f"    for (h0 = 0; h0 < {k}; h0++)\n"
                                   f"        {fa}[h0] = 0.125 * h0 - 0.25;")
            self.misc_names.append(fa)
            fprivs.append(fa)
            s, lp, c, _ = self.vector_loop()
            v = self.scalar("double", "0.0", "r")
            body = [f"{v} += fabs({fa}[({lp.var} % {k} + {k}) % {k}]) + 0.25 * "
                    f"fabs({self.dexpr(c)});"]
            self.floaty = True
            out.append(LoopSpec(s, {"reduction"} | self.extra_families,
                                self.loop_nest(s, [lp], 1, False, body), [f"reduction(+:{v})"],
                                [], [f'printf("{v} %.9e\\n", {v});'], array_names(body),
                                set(), [], [v]))
        if r.random() < 0.5:
            out.append(self.critical_spec())
        return out

    def scratch_spec(self, gs: str, k: int) -> LoopSpec:
        """NPB LU's flux: a privatised file-scope array each iteration fills, then reads."""
        s, lp, c, vecs = self.vector_loop()
        cq = Ctx(list(c.iread), list(c.lread), list(c.dread), ["i", "q"])
        body = [f"for (int q = 0; q < {k}; q++)", f"    {gs}[q] = {self.dexpr(cq)};",
                "double ts = 0.0;", f"for (int q = 1; q < {k}; q++)",
                f"    ts += {gs}[q] - 0.5 * {gs}[q - 1];"]
        c.dread.append("ts")
        return self._store_or_reduce(s, lp, c, vecs, body, set(), "ts", [], [])

    def critical_spec(self) -> LoopSpec:
        """A loop kept on the host (a critical section) with a max reduction into a local of
        main (the build break of a team of one's orphaned copy)."""
        s, lp, c, vecs = self.vector_loop()
        rm = self.scalar("double", "0.0", "rm")
        cnt = self.scalar("long", "0", "rc")
        body = [f"{rm} = fmax({rm}, fabs({self.dexpr(c)}));", "#pragma omp critical",
                f"{cnt} += (({self.iexpr(c)}) % 11 + 11) % 11;"]
        writes: set[str] = set()
        self._write_vector(c, vecs, lp, body, writes)
        self.floaty = True
        return LoopSpec(s, {"critical"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body), [f"reduction(max:{rm})"],
                        after=[f'printf("{rm} %.9e {cnt} %ld\\n", {rm}, {cnt});'],
                        reads=array_names(body), writes=writes, shared_vars=[rm])

    def team_size_check(self, ind: str, after: list[str]) -> list[str]:
        """A single asking the team's size (PRK's check): a team of one would answer 1."""
        if not getattr(self, "observed_want", ""):
            self.decl_global.append("#include <omp.h>")
            self.observed_want = self.scalar("int", "0", "tw")
        tq = self.scalar("int", "0", "tq")
        after.append(f'printf("{tq} %d\\n", {tq});')
        return ["#pragma omp single", f"{ind}{tq} = omp_get_num_threads() == "
                f"{self.observed_want};"]


    # -- orphaned loops ---------------------------------------------------------------------
    def orphan_region(self, ind: str) -> list[str]:
        """A callee holding one or two ``omp for`` loops over its pointer parameters, called
        from a parallel region."""
        r = self.r
        s = r.randrange(len(self.shapes))

        def make() -> list[str]:
            specs = [self.map_spec(s) for _ in range(r.choice((1, 1, 2)))]
            lines: list[str] = []
            for n, spec in enumerate(specs):
                if n and r.random() < 0.5:
                    lines.append("#pragma omp barrier")
                # nowait only on the last loop: the caller's region ends right after the call
                last = n == len(specs) - 1
                lines += self.region_for(spec, "    ", set(), last and r.random() < 0.3)
            return lines
        call = self.helper(s, "of", {"orphaned"}, make, orphan=True)
        clause = r.choice(("", "", " num_threads(2)", " default(shared)"))
        if r.random() < 0.5:
            return [f"#pragma omp parallel{clause}", f"{ind}{call};"]
        return [f"#pragma omp parallel{clause}", ind + "{", f"{ind}    {call};", ind + "}"]
