"""Generator, part 4b: loops over pointer trees (``double **m``, ``double ***u``) and over
structs holding pointers reached through member chains (``s->in->w[i]``, ``d.p[i][0]``),
also through callees taking the struct by value or by pointer.

Consumes the program's random stream (one of its own per family, so that every other part of
a seed's program stays what it was); produces one or two ``LoopSpec``s per family, their
declarations, initialisation, checksums and frees. Every loop is expected on the device
except where the runtime must decline at entry (rows of a written tree shared with another
tree; a null pointer on a member chain reached only under a false guard): those are marked
``declined`` and must run on the host, giving the same answer.
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass

from .gen_exprs import FLOAT_TYPES, Arr, Ctx, Loop, _paren
from .gen_families import Families
from .gen_loops import LoopSpec, array_names

#: the new families (drawn by ``pointer_regions``, not by ``region``)
POINTER_FAMILIES = ("tree", "member_chain")


@dataclass
class TreeArr:
    """A pointer tree: name, element type, shape (depth = rank), the tree whose leaf rows it
    shares (if any) and whether its leaf rows may overlap (read-only trees only)."""

    name: str
    ctype: str
    shape: tuple[int, ...]
    base: str = ""
    blk: str = ""  # the block its leaf rows are in, in order (style 'block', not reversed)

    def at(self, subs: list[str]) -> str:
        return self.name + "".join(f"[{s}]" for s in subs)


class Pointers(Families):
    """Pointer-tree and member-chain loops (a mixin of the generator)."""

    mc_types = ""  # the struct types of member_chain, declared once per program
    member_last: tuple[str, str] = ("", "")  # the last struct made (name, access prefix)

    def pointer_regions(self, ind: str) -> list[str]:
        """For each enabled family of POINTER_FAMILIES, with a random stream of its own: one
        or two loops (always when only such families are enabled)."""
        out: list[str] = []
        only = not (self.enabled - set(POINTER_FAMILIES) - {"rows"})
        for k, fam in enumerate(POINTER_FAMILIES):
            if fam not in self.enabled:
                continue
            rng = random.Random(self.seed * 1000003 + 11 + k)
            if not only and rng.random() >= 0.6:
                continue
            main, self.r = self.r, rng
            try:
                for _ in range(rng.choice((1, 1, 2))):
                    out += (self.tree_region(ind) if fam == "tree"
                            else self.member_region(ind))
            finally:
                self.r = main
        return out

    # -- trees: data ------------------------------------------------------------------------
    def tree_shape(self, depth: int) -> tuple[int, ...]:
        r = self.r

        def width() -> int:
            k = r.random()
            return r.randint(1, 7) if k < 0.35 else (r.randint(8, 64) if k < 0.8
                                                     else r.randint(65, 300))
        while True:
            if depth == 2:
                shape = (r.randint(1, 120), width())
            else:
                shape = (r.randint(1, 16), r.randint(1, 16), width())
            if math.prod(shape) <= 20000:
                return shape

    def new_tree(self, shape: tuple[int, ...], ctype: str, base: TreeArr | None = None,
                 overlap: bool = False, reverse: bool = False) -> TreeArr:
        """Declare, allocate, fill (unless it shares ``base``'s rows), check and free a tree.
        ``overlap``: leaf rows one element apart less than their width (read-only trees);
        ``reverse``: rows in one block in reverse order, or ``base``'s rows reversed."""
        r = self.r
        t = TreeArr(self.fresh("tr"), ctype, shape, base.name if base else "")
        stars = "*" * len(shape)
        self.decl_local.append(f"    {ctype} {stars}{t.name} = "
                               f"malloc((size_t){shape[0]} * sizeof *{t.name});")
        self.misc_names.append(t.name)
        if len(shape) == 3:  # the planes: one by one, or in one block
            if r.random() < 0.3:
                pb = self.fresh("tpl")  # (scalars are named tpN)
                self.decl_local.append(f"    {ctype} **{pb} = malloc((size_t){shape[0]} * "
                                       f"{shape[1]} * sizeof *{pb});")
                self.init_extra += [f"    for (h0 = 0; h0 < {shape[0]}; h0++)",
                                    f"        {t.name}[h0] = {pb} + h0 * {shape[1]};"]
                self.frees_extra.append(f"    free({pb});")
            else:
                self.init_extra += [f"    for (h0 = 0; h0 < {shape[0]}; h0++)",
                                    f"        {t.name}[h0] = malloc((size_t){shape[1]} * "
                                    f"sizeof **{t.name});"]
                self.frees_extra += [f"    for (h0 = 0; h0 < {shape[0]}; h0++)",
                                     f"        free({t.name}[h0]);"]
        self.frees_extra.append(f"    free({t.name});")
        hs = [f"h{d}" for d in range(len(shape) - 1)]
        loops = [f"{'    ' * (d + 1)}for ({h} = 0; {h} < {shape[d]}; {h}++)"
                 for d, h in enumerate(hs)]
        deep = "    " * len(shape)
        rows = t.at(hs)
        nrows = math.prod(shape[:-1])
        flat = hs[0] if len(hs) == 1 else f"{hs[0]} * {shape[1]} + {hs[1]}"
        if base is not None:  # the rows of another tree, in order or reversed
            rev = [f"{n - 1} - {h}" for h, n in zip(hs, shape)] if reverse else hs
            self.init_extra += loops + [f"{deep}{rows} = {base.name}" +
                                        "".join(f"[{x}]" for x in rev) + ";"]
            return t
        w = shape[-1]
        style = r.choice(("rows", "rows", "block", "ragged")) if not overlap else "block"
        if style == "block":
            blk = self.fresh("tb")
            step = max(w - 1, 1) if overlap else w
            size = (nrows - 1) * step + w
            alloc = r.choice(("malloc", "calloc"))
            self.decl_local.append(
                f"    {ctype} *{blk} = " + (f"malloc((size_t){size} * sizeof *{blk});"
                                            if alloc == "malloc" else
                                            f"calloc((size_t){size}, sizeof *{blk});"))
            at = f"({nrows - 1} - ({flat}))" if reverse else _paren(flat)
            self.init_extra += loops + [f"{deep}{rows} = {blk} + {at} * {step};"]
            t.blk = "" if reverse or overlap else blk
            self.frees_extra.insert(0, f"    free({blk});")
        else:
            pad = f" + {hs[-1]} % 3" if style == "ragged" else ""
            self.init_extra += loops + [f"{deep}{rows} = malloc((size_t)({w}{pad}) * "
                                        f"sizeof *{rows});"]
            self.frees_extra[:0] = loops + [f"{deep}free({rows});"]
        self._fill_tree(t, overlap)
        return t

    def _fill_tree(self, t: TreeArr, overlap: bool) -> None:
        """Initial values (overlapping rows: by the element's row-major position, so that
        every write of a shared element writes the same value) and the checksum."""
        shape = t.shape
        hs = [f"h{d}" for d in range(len(shape))]
        loops = [f"{'    ' * (d + 1)}for ({h} = 0; {h} < {shape[d]}; {h}++)"
                 for d, h in enumerate(hs)]
        deep = "    " * (len(shape) + 1)
        lin = " + ".join(f"{h} * {self.r.randint(1, 13)}" for h in hs) + f" + {self.nnames}"
        if overlap:
            lin = " + ".join(hs[:-1]) + f" * {max(shape[-1] - 1, 1)} + {hs[-1]}" \
                if len(hs) == 2 else f"(h0 * {shape[1]} + h1) * {max(shape[-1] - 1, 1)} + h2"
        e = {"int": f"({lin}) % 1009 - 500", "long": f"((long)({lin}) * 7919) % 100003",
             "float": f"(float)(2.0 * sin(0.1 * ({lin})) + 0.5)",
             "double": f"2.0 * cos(0.01 * ({lin})) - 0.25"}[t.ctype]
        self.init_extra += loops + [f"{deep}{t.at(hs)} = {e};"]
        fl = t.ctype in FLOAT_TYPES
        self.check_extra += ["    cd = 0.0;" if fl else "    cu = 0UL;"] + loops
        if fl:
            self.floaty = True
            self.check_extra += [
                f"{deep}cd += fabs((double){t.at(hs)}) * (1.0 + 0.125 * (({' + '.join(hs)}) "
                f"% 8));", f'    printf("{t.name} %.9e\\n", cd);']
        else:
            self.check_extra += [f"{deep}cu = cu * 1000003UL + (unsigned long)(long)"
                                 f"{t.at(hs)};", f'    printf("{t.name} %lu\\n", cu);']

    # -- trees: loops -----------------------------------------------------------------------
    def tree_region(self, ind: str) -> list[str]:
        """A tree loop in main, or in a helper taking the trees and their sizes."""
        if self.r.random() < 0.3:
            return self.tree_helper(ind)
        return self.place(self.tree_spec(), ind)

    def tree_helper(self, ind: str) -> list[str]:
        saved = (self.fp_d, self.fp_i, self.in_time, self.dimvars, self.scalars)
        self.fp_d, self.fp_i, self.in_time, self.scalars = [], [], False, []
        self.dimvars = {}
        try:
            spec = self.tree_spec(helper=True)
            lines = self.place(spec, "    ")
        finally:
            (self.fp_d, self.fp_i, self.in_time, self.dimvars, self.scalars) = saved
        s = spec.s
        trees = [t for t in self.trees if t.name in spec.reads | spec.writes]
        params = [f"{t.ctype} {'*' * len(t.shape)}{t.name}" for t in trees]
        params += [f"int m{d}" for d in range(len(self.shapes[s]))]
        args = [t.name for t in trees] + [str(n) for n in self.shapes[s]]
        name = self.fresh("tf")
        self.funcs.append(f"static void {name}({', '.join(params)})\n{{\n    int i, j, k;\n"
                          "    (void)i; (void)j; (void)k;\n" +
                          "".join(f"    (void)m{d};\n" for d in range(len(self.shapes[s]))) +
                          "\n".join(lines) + "\n}\n")
        return [f"{ind}{name}({', '.join(args)});"]

    def tree_spec(self, helper: bool = False) -> LoopSpec:
        """A loop nest over a tree's elements: writes one tree at the loop's element (through
        a derived row pointer sometimes), reads others at affine subscripts with offsets,
        guarded neighbours; sometimes a tree sharing the written tree's rows (declined) or
        read-only trees sharing or overlapping rows (on the device)."""
        r = self.r
        if not hasattr(self, "trees"):
            self.trees: list[TreeArr] = []
        depth = r.choice((2, 2, 3))
        shape = self.tree_shape(depth)
        self.shapes.append(shape)
        s = len(self.shapes) - 1
        for d, n in enumerate(shape):
            if helper:
                self.dimvars[(s, d)] = f"m{d}"
            elif r.random() < 0.4:
                self.dimvars[(s, d)] = self.scalar("int", str(n), "tn")
        ctype = r.choice(("double", "double", "float", "int", "long"))
        w = self.new_tree(shape, ctype)
        srcs: list[TreeArr] = []
        for _ in range(r.choice((1, 1, 2))):
            k = r.random()
            if k < 0.2 and srcs:
                srcs.append(self.new_tree(shape, srcs[0].ctype, srcs[0],
                                          reverse=r.random() < 0.5))
            elif k < 0.35:
                srcs.append(self.new_tree(shape, r.choice(("double", "int")), overlap=True))
            else:
                srcs.append(self.new_tree(shape, r.choice(("double", "double", "float",
                                                           "int"))))
        fams = {"tree"} | self.extra_families
        alias = None
        if r.random() < 0.15:
            alias = self.new_tree(shape, ctype, w, reverse=False)
            fams.add("declined")
        self.trees += [w, *srcs] + ([alias] if alias else [])
        loops = [self.make_loop("ijk"[d], d, n) for d, n in enumerate(shape)]
        flat = bool(w.blk) and alias is None and not helper and r.random() < 0.4
        if flat:  # the written rows read through their block too: the runtime declines
            fams.add("declined")
        return self._tree_nest(s, loops, w, srcs, alias, fams, helper, flat)

    def _tree_reads(self, s: int, loops: list[Loop], srcs: list[TreeArr], c: Ctx,
                    pre: list[str]) -> None:
        """Reads of the source trees: affine subscripts within the loops' ranges (sometimes
        through a derived row pointer), or a guarded neighbour."""
        r = self.r
        for t in srcs:
            for _ in range(r.randint(1, 2)):
                subs = [self.read_sub(s, lp) for lp in loops]
                g = [lp for lp in loops if lp.shift == 0 and self.shapes[s][lp.dim] > 2]
                if g and r.random() < 0.3:
                    lp = r.choice(g)
                    delta = r.choice((-1, 1, -2, 2))
                    subs[lp.dim] = lp.sub(delta)
                    zero = "0.0" if t.ctype in FLOAT_TYPES else "0"
                    self.add_read(c, t, f"({self.guard(s, lp, delta)} ? {t.at(subs)} : {zero})")
                elif r.random() < 0.3:
                    dp = self.fresh("dr")
                    qual = r.choice(("const ", ""))
                    pre.append(f"{qual}{t.ctype} *{dp} = {t.at(subs[:-1])};")
                    self.add_read(c, t, f"{dp}[{subs[-1]}]")
                else:
                    self.add_read(c, t, t.at(subs))

    def _tree_nest(self, s: int, loops: list[Loop], w: TreeArr, srcs: list[TreeArr],
                   alias: TreeArr | None, fams: set[str], helper: bool, flat: bool = False
                   ) -> LoopSpec:
        r = self.r
        c = Ctx(ivars=[lp.var for lp in loops])
        pre: list[str] = []
        self._tree_reads(s, loops, srcs, c, pre)
        own = [lp.sub() for lp in loops]
        if r.random() < 0.4:
            self.add_read(c, w, w.at(own))
        if alias is not None:  # the same element through the tree sharing w's rows
            self.add_read(c, alias, alias.at(own))
        if flat:  # the same element through the block holding w's rows
            idx = own[0] if len(own) == 2 else f"({_paren(own[0])} * {w.shape[1]} + {own[1]})"
            alias_ref = f"{w.blk}[{_paren(idx)} * {w.shape[-1]} + {own[-1]}]"
            self.add_read(c, w, alias_ref)
        target = w.at(own)
        if r.random() < 0.3:
            wp = self.fresh("dw")
            pre.append(f"{w.ctype} *{wp} = {w.at(own[:-1])};")
            target = f"{wp}[{own[-1]}]"
        must = alias.at(own) if alias is not None else alias_ref if flat else r.choice(
            c.dread + c.iread)
        body = [f"{target} = {self.forced_store(w, c, must)};"]
        clauses: list[str] = []
        after: list[str] = []
        if not helper and r.random() < 0.3:
            v = self.scalar("double", "0.0", "r")
            body.append(f"{v} += fabs((double)({self.store('double', c)}));")
            clauses.append(f"reduction(+:{v})")
            after.append(f'printf("{v} %.9e\\n", {v});')
            self.floaty = True
        inner = [lp.var for lp in loops[1:]]
        decl_inner = r.random() < 0.3
        if not pre and r.random() < 0.3:
            clauses.append(f"collapse({r.randint(2, len(loops))})")
        elif inner and not decl_inner:
            clauses.append(f"private({', '.join(inner)})")
        if clauses and clauses[-1].startswith("collapse") and not decl_inner:
            n = int(clauses[-1][9])
            if inner[n - 1:]:
                clauses.append(f"private({', '.join(inner[n - 1:])})")

        def lines(ind: str) -> list[str]:
            out, d = [], ind
            for n, lp in enumerate(loops):
                brace = bool(pre) or n == len(loops) - 1
                out.append(d + self.header(s, lp, decl_inner and n >= 1) + (" {" if brace
                                                                            else ""))
                d += "    "
                if n == len(loops) - 2:
                    out += [d + x for x in pre]
            out += [d + x for x in body]
            for n in reversed(range(len(loops))):
                d = d[:-4]
                if bool(pre) or n == len(loops) - 1:
                    out.append(d + "}")
            return out
        used = "\n".join(body)
        pre = [x for x in pre if re.search(rf"\b{x.split('*')[1].split()[0]}\b", used)]
        if pre and len(loops) > 2:
            fams.add("tree_inner_row")
        text = pre + body
        return LoopSpec(s, fams, lines, clauses, after=after,
                        reads=array_names(text) | {t.name for t in srcs} |
                        ({alias.name} if alias else set()),
                        writes={w.name})

    # -- member chains ----------------------------------------------------------------------
    def member_types(self) -> tuple[str, str]:
        """(the struct type, the row typedef), declared once per program: pointers to
        scalars, to rows of a ``typedef double vecN[3]``, to a nested struct holding a
        pointer, an embedded such struct, and a pointer to a struct that may be null."""
        if not self.mc_types:
            p = self.seed % 97
            self.mc_types = f"mcs{p}"
            self.decl_global += [
                f"typedef double mvec{p}[3];",
                f"typedef struct {{ int n; double *w; }} mcin{p};",
                f"typedef struct {{ double *v; }} mcex{p};",
                f"typedef struct {{ double *a; mvec{p} *p; int *cnt; double *b; mcin{p} *in; "
                f"mcin{p} emb; mcex{p} *ex; double **g; }} mcs{p};",
                f"int mcoff{p} = 0;"]
        return self.mc_types, f"mvec{self.seed % 97}"

    def member_instance(self, n: int, null_ex: str) -> tuple[str, str]:
        """A struct of the member types in main (a pointer to a heap one, or a value) whose
        pointers point to arrays of ``n`` elements; (its name, its access prefix).
        ``null_ex``: 'ex', its ``ex`` is null; 'v', ``ex->v`` is."""
        r = self.r
        st, vec = self.member_types()
        name = self.fresh("ms")
        ptr = r.random() < 0.5
        x = f"{name}->" if ptr else f"{name}."
        self.decl_local.append(f"    {st} *{name} = malloc(sizeof *{name});" if ptr
                               else f"    {st} {name};")
        self.misc_names.append(name)
        arrays = {"a": "double", "b": "double", "cnt": "int", "in->w": "double",
                  "emb.w": "double"}
        init = [f"    {x}in = malloc(sizeof *{x}in);", f"    {x}in->n = {n};",
                f"    {x}emb.n = {n};", f"    {x}p = malloc((size_t){n} * sizeof *{x}p);"]
        if null_ex == "ex":
            init.append(f"    {x}ex = NULL;")
        elif null_ex == "v":
            init += [f"    {x}ex = malloc(sizeof *{x}ex);", f"    {x}ex->v = NULL;"]
        else:
            init.append(f"    {x}ex = malloc(sizeof *{x}ex);")
            arrays["ex->v"] = "double"
        for m, t in arrays.items():
            init.append(f"    {x}{m} = malloc((size_t){n} * sizeof(*{x}{m}));")
        gw = 1 + self.seed % 5  # a pointer tree member: rows of gw doubles, one by one
        init += [f"    {x}g = malloc((size_t){n} * sizeof *{x}g);",
                 f"    for (h0 = 0; h0 < {n}; h0++) {{",
                 f"        {x}g[h0] = malloc({gw} * sizeof **{x}g);",
                 f"        for (h1 = 0; h1 < {gw}; h1++)",
                 f"            {x}g[h0][h1] = 0.25 * h1 + 0.001 * h0;", "    }"]
        init += [f"    for (h0 = 0; h0 < {n}; h0++) {{"]
        for k, (m, t) in enumerate(arrays.items()):
            init.append(f"        {x}{m}[h0] = " + (f"0.5 * cos(0.1 * h0 + {k}) + 0.25;"
                                                    if t == "double" else
                                                    f"(h0 * {k + 3} + 1) % 17;"))
        init += [f"        for (h1 = 0; h1 < 3; h1++)",
                 f"            {x}p[h0][h1] = 0.125 * h1 - 0.01 * h0;", "    }"]
        self.init_extra += init
        chk = ["    cd = 0.0;", "    cu = 0UL;", f"    for (h0 = 0; h0 < {n}; h0++) {{"]
        for m, t in arrays.items():
            chk.append(f"        cd += fabs({x}{m}[h0]) * (1.0 + 0.125 * (h0 % 8));" if
                       t == "double" else f"        cu = cu * 1000003UL + "
                                          f"(unsigned long)(long){x}{m}[h0];")
        chk += ["        for (h1 = 0; h1 < 3; h1++)",
                f"            cd += fabs({x}p[h0][h1]) * (1.0 + 0.25 * h1);", "    }",
                f'    printf("{name} %.9e %lu\\n", cd, cu);']
        self.check_extra += chk
        self.frees_extra += [f"    for (h0 = 0; h0 < {n}; h0++)", f"        free({x}g[h0]);",
                             f"    free({x}g);"]
        self.frees_extra += [f"    free({x}{m});" for m in arrays] + [
            f"    free({x}p);", f"    free({x}in);"] + (
            [] if null_ex == "ex" else [f"    free({x}ex);"]) + ([f"    free({name});"] if ptr else [])
        self.floaty = True
        return name, x

    def member_callee(self, by_ptr: bool) -> str:
        """A function reading the struct's read-only members at ``i`` (by value or through a
        pointer), sometimes passing it on to another; returns its name."""
        r = self.r
        st, _ = self.member_types()
        a = "o->" if by_ptr else "o."
        name = self.fresh("mf")
        terms = [f"{a}b[i]", f"0.25 * {a}p[i][{r.randrange(3)}]", f"0.001 * {a}cnt[i]",
                 f"0.01 * {a}in->n", f"0.01 * {a}emb.n"]
        body = " + ".join(r.sample(terms, r.randint(2, 4)))
        if r.random() < 0.3:
            inner = self.member_callee(by_ptr)
            body += f" + 0.5 * {inner}(o, i)"
        param = f"{st} *o" if by_ptr else f"{st} o"
        self.funcs.append(f"static double {name}({param}, int i)\n{{\n    return {body};\n}}\n")
        return name

    def member_region(self, ind: str) -> list[str]:
        """A member-chain loop in main, or in a helper taking the struct (by value or
        through a pointer)."""
        r = self.r
        if r.random() >= 0.3:
            return self.place(self.member_spec(), ind)
        saved = (self.fp_d, self.fp_i, self.in_time, self.dimvars, self.scalars)
        self.fp_d, self.fp_i, self.in_time, self.scalars = [], [], False, []
        by_ptr = r.random() < 0.6
        try:
            spec = self.member_spec(helper="s->" if by_ptr else "s.")
            lines = self.place(spec, "    ")
        finally:
            (self.fp_d, self.fp_i, self.in_time, self.dimvars, self.scalars) = saved
        st, _ = self.member_types()
        name = self.fresh("mh")
        self.funcs.append(f"static void {name}({st} {'*' if by_ptr else ''}s, int m0)\n{{\n"
                          "    int i;\n    (void)i; (void)m0;\n" + "\n".join(lines) + "\n}\n")
        inst, x = self.member_last
        arg = (inst if x.endswith("->") else f"&{inst}") if by_ptr else (
            f"*{inst}" if x.endswith("->") else inst)
        return [f"{ind}{name}({arg}, {self.shapes[spec.s][0]});"]

    def member_spec(self, helper: str = "") -> LoopSpec:
        """A loop over the struct's arrays through member chains: writes some of them at the
        loop's element, reads the others with offsets and guarded neighbours, calls a callee
        taking the struct; sometimes a null member reached only under a false guard."""
        r = self.r
        n = r.choice((r.randint(1, 60), r.randint(1, 300), r.randint(300, 3000)))
        self.shapes.append((n,))
        s = len(self.shapes) - 1
        if helper:
            self.dimvars[(s, 0)] = "m0"
        null_ex = r.choice(("ex", "v")) if r.random() < 0.15 else ""
        inst, x0 = self.member_instance(n, null_ex)
        self.member_last = (inst, x0)
        x = helper or x0
        lp = self.make_loop("i", 0, n)
        c = Ctx(ivars=["i"])
        writes = r.sample(("a", "p", "in->w", "emb.w"), r.randint(1, 2))
        reads = [m for m in ("b", "cnt", "in->w", "emb.w", "a") if m not in writes]
        if not null_ex:
            reads.append("ex->v")
        for m in reads:
            for _ in range(r.randint(0, 2)):
                sub = self.read_sub(s, lp)
                ref = f"{x}{m}[{sub}]"
                if lp.shift == 0 and n > 2 and r.random() < 0.3:
                    delta = r.choice((-1, 1))
                    ref = f"({self.guard(s, lp, delta)} ? {x}{m}[{lp.sub(delta)}] : 0)"
                (c.iread if m == "cnt" else c.dread).append(ref)
        c.dread.append(f"{x}p[{self.read_sub(s, lp)}][{r.randrange(3)}]"
                       if "p" not in writes else f"{x}p[{lp.sub()}][{r.randrange(3)}]")
        c.iread.append(f"{x}{r.choice(('in->n', 'emb.n'))}")
        if r.random() < 0.4:  # the tree member, read
            c.dread.append(f"{x}g[{self.read_sub(s, lp)}][{r.randrange(1 + self.seed % 5)}]")
        call = ""
        if r.random() < 0.5:
            by_ptr = r.random() < 0.5
            f = self.member_callee(by_ptr)
            base = x[:-2] if x.endswith("->") else x[:-1]
            arg = (base if x.endswith("->") else f"&{base}") if by_ptr else (
                f"*{base}" if x.endswith("->") else base)
            call = f"0.125 * {f}({arg}, {lp.sub()})"
        body: list[str] = []
        e = lp.sub()
        for m in writes:
            extra, call = (f" + {call}", "") if call else ("", "")
            if m == "p":
                q = r.choice(("q", "0", "1", "2"))
                line = f"{x}p[{e}][{q}] = 0.5 * {x}p[{e}][{q}] + {self.dexpr(c)}{extra};"
                body += ["for (int q = 0; q < 3; q++)", "    " + line] if q == "q" else [line]
            else:
                body.append(f"{x}{m}[{e}] = {self.dexpr(c)}{extra};")
        fams = {"member_chain"} | self.extra_families
        if null_ex:
            if null_ex == "ex":  # a null pointer on the way: the region declines at entry
                fams.add("declined")  # (a null value, ex->v, is bound as OpenCL's null)
            p = self.seed % 97
            body += [f"if (mcoff{p})", f"    {x}ex->v[{e}] = {self.dexpr(c)};"]
        text = "\n".join(body)
        return LoopSpec(s, fams, self.loop_nest(s, [lp], 1, False, body),
                        reads=array_names([text]), writes=set(writes))
