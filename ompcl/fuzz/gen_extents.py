"""Generator, part 3 (issue 15): loops whose pointer extents come from loop-body variables.

Consumes the program's heap arrays; produces LoopSpecs of four families, all expected on the
device once ompcl derives their extents: flattened subscripts through body-local or private
scalars (``body_local``), body-local declarations shadowing an outer variable of the same name
(``shadowing``), offset pointers (``pointer_offset``), guarded neighbour accesses over loops that
cover the whole array (``guarded``).
"""
from __future__ import annotations

from .gen_exprs import FLOAT_TYPES, Arr, Ctx, Loop, _paren
from .gen_loops import LoopSpec, Loops, array_names, drop_unused_locals


def flat_forms(a: Arr, subs: list[str]) -> list[str]:
    """Ways of writing the flat index of element ``subs`` of heap array ``a`` (row-major)."""
    if len(subs) == 1:
        return [subs[0]]
    if len(subs) == 2:
        (i, j), m = subs, a.strides[0]
        return [f"{_paren(i)} * {m} + {j}", f"{_paren(j)} + {m} * {_paren(i)}",
                f"{m} * {_paren(i)} + {j}"]
    (i, j, k), (m, n) = subs, a.strides
    return [f"({_paren(i)} * {m} + {j}) * {n} + {k}", f"{_paren(k)} + {n} * ({j} + {m} * {_paren(i)})"]


class Extents(Loops):
    """Issue-15 shapes (a mixin of the generator)."""

    force_body_local = False

    def heap_array(self, s: int) -> Arr:
        """A heap array of shape ``s``: an existing one, or a new one."""
        heap = [a for a in self.arrays if a.shape == self.shapes[s] and a.storage == "heap"
                and not a.alias]
        return self.r.choice(heap) if heap else self.new_array(s, storage="heap")

    def shape_of_rank(self, ranks: tuple[int, ...]) -> int:
        """A shape of one of these ranks (a new one when the program has none)."""
        r = self.r
        found = [s for s, sh in enumerate(self.shapes) if len(sh) in ranks]
        if found:
            return r.choice(found)
        rank = r.choice(ranks)
        self.shapes.append(tuple(r.randint(2, {1: 300, 2: 60, 3: 12}[rank]) for _ in range(rank)))
        return len(self.shapes) - 1

    # -- body_local -------------------------------------------------------------------------
    def flatten_subscripts(self, c: Ctx, targets: list[Arr], written: dict[str, list[str]],
                           refs: dict[str, str], body: list[str], fams: set[str]) -> list[str]:
        """Index heap targets through a scalar holding the flat subscript, ``int k = i * M + j;``
        declared in the body, or a private scalar assigned in it; returns clauses to add."""
        r = self.r
        heap = [a for a in targets if a.storage == "heap"]
        if "body_local" not in self.enabled or not heap or not (
                self.force_body_local or r.random() < 0.25):
            return []
        a = r.choice(heap)
        flat = r.choice(flat_forms(a, written[a.name]))
        clauses = []
        if r.random() < 0.5 or self.orphan:
            idx = self.fresh("ix")
            body.append(f"{r.choice(('int', 'int', 'long'))} {idx} = {flat};")
        else:
            idx = self.scalar("int", "0", "kx")
            body.append(f"{idx} = {flat};")
            clauses.append(f"private({idx})")
        old, new = refs[a.name], f"{a.name}[{idx}]"
        refs[a.name] = new
        for lst in (c.iread, c.lread, c.dread):
            lst[:] = [x.replace(old, new) for x in lst]
        for b in self.arrays:  # same shape, same strides: the same flat index
            if b is not a and b.storage == "heap" and b.shape == a.shape and b.name not in refs \
                    and r.random() < 0.5 and not b.alias:
                # (an alias is read only where its array is written: another target's flat
                # index may be at another offset, which overlaps partially, and the runtime
                # keeps such a loop on the host by design)
                self.add_read(c, b, f"{b.name}[{idx}]")
        fams.add("body_local")
        return clauses

    def body_local_spec(self) -> LoopSpec:
        s = self.shape_of_rank((1, 2, 3))
        self.heap_array(s)
        self.force_body_local = True
        try:
            return self.map_spec(s)
        finally:
            self.force_body_local = False

    # -- shadowing --------------------------------------------------------------------------
    def shadowing_spec(self) -> LoopSpec:
        """Rows of a heap array, ``{ int j = C; p[i * M + j] = ...; }``, while an outer ``j`` (or
        another outer variable of the same name) holds another value."""
        r = self.r
        s = self.shape_of_rank((2, 3))
        shape = self.shapes[s]
        a = self.heap_array(s)
        lp = self.make_loop("i", 0, shape[0])
        lp.shift = 0
        names = ["j", "k"][:len(shape) - 1]
        consts = [r.randrange(n) for n in shape[1:]]
        before = []
        if len(names) == 1 and self.fp_i and r.random() < 0.3:  # shadow a program constant
            names = [r.choice(self.fp_i)]
        else:
            for nm, n, cst in zip(names, shape[1:], consts):
                others = [v for v in range(n) if v != cst] or [cst]
                before.append(f"{nm} = {r.choice(others)};")
        subs = ["i"] + names
        c = Ctx(ivars=["i"] + names)
        for b in self.arrays:
            if b.shape == shape and b is not a:
                self.add_read(c, b, b.at(subs))
            elif b.shape == (shape[0],):
                self.add_read(c, b, b.at(["i"]))
            elif len(b.shape) == 1 and b.shape[0] == shape[1]:
                self.add_read(c, b, b.at([names[0]]))
        self.add_read(c, a, a.at(subs))
        decls = [f"int {nm} = {cst};" for nm, cst in zip(names, consts)]
        stmt = f"{a.at(subs)} = {self.store(a.ctype, c)};"
        if r.random() < 0.5:
            body = ["{"] + ["    " + x for x in decls] + ["    " + stmt, "}"]
        else:
            body = decls + [stmt]
        return LoopSpec(s, {"shadowing"} | self.extra_families,
                        self.loop_nest(s, [lp], 1, False, body), before=before,
                        reads=array_names(body), writes={a.name})

    # -- pointer_offset ---------------------------------------------------------------------
    def pointer_offset_spec(self) -> LoopSpec:
        """``T *q = p + off;`` before the loop, ``q[i]`` in it, within p's allocation: a 1-D
        array shifted by a constant or a variable, or one row of a 2-D array."""
        r = self.r
        s = self.shape_of_rank((1, 2))
        shape = self.shapes[s]
        a = self.heap_array(s)
        q = self.fresh("po")
        self.misc_names.append(q)
        if len(shape) == 1 or r.random() < 0.4:
            total = shape[0] if len(shape) == 1 else shape[0] * shape[1]
            off = r.randint(0, max(0, total - 1) // 2)
            offs = [v for v in self.fp_i if self.ivalue[v] < total]
            if offs and r.random() < 0.3:
                off_text = r.choice(offs)
                off = self.ivalue[off_text]
            elif r.random() < 0.3:
                off_text = self.scalar("int", str(off), "off")
            else:
                off_text = str(off)
            n = total - off
        else:
            row = r.randrange(shape[0])
            off_text = f"{row} * {a.strides[0]}"
            n = shape[1]
        lp = self.make_loop("i", 0, n)
        lp.shift = 0
        c = Ctx(ivars=["i"])
        view = Arr(q, a.ctype, (n,), "param")
        self.add_read(c, view, f"{q}[i]")
        for b in self.arrays:
            if len(b.shape) == 1 and b.shape[0] >= n and b is not a and r.random() < 0.6:
                self.add_read(c, b, b.at(["i"]))
        body = [f"{q}[i] = {self.store(a.ctype, c)};"]
        return LoopSpec(-1, {"pointer_offset"} | self.extra_families,
                        self.loop_nest(-1, [lp], 1, False, body),
                        before=[f"{a.ctype} *{q} = {a.name} + {off_text};"],
                        reads=array_names(body) | {a.name}, writes={a.name})

    # -- guarded ----------------------------------------------------------------------------
    def guard(self, s: int, lp: Loop, delta: int) -> str:
        """A condition keeping ``lp.var + delta`` inside dimension ``lp.dim`` of shape ``s``."""
        r, v, m = self.r, lp.var, abs(delta)
        if delta < 0:
            return r.choice((f"{v} > {m - 1}", f"{v} >= {m}", f"{m} <= {v}", f"{v} - {m} >= 0"))
        n = self.shapes[s][lp.dim]
        return r.choice((f"{v} < {self.bound(s, lp.dim, n - m)}",
                         f"{v} + {m} < {self.bound(s, lp.dim, n)}",
                         f"{v} <= {self.bound(s, lp.dim, n - m - 1)}"))

    def forced_store(self, t: Arr, c: Ctx, must: str) -> str:
        """A value for ``t`` that reads ``must`` (an array name)."""
        for _ in range(8):
            e = self.store(t.ctype, c)
            if must in e:
                return e
        d = next((x for x in c.dread if must in x), None)
        i = next((x for x in c.iread if must in x), None)
        if t.ctype in FLOAT_TYPES:
            return f"0.5 * {_paren(d or f'0.001 * {_paren(i)}')}"
        return self.store(t.ctype, Ctx(iread=[i or f"(int)(100.0 * {_paren(d)})"]))

    def guarded_spec(self) -> LoopSpec:
        """A loop over the whole array reading (or writing) neighbours under a guard: if, else,
        ternary, && (also short-circuiting a read)."""
        r = self.r
        s = self.shape_of_rank((1, 2))
        shape = self.shapes[s]
        t = self.heap_array(s)
        srcs = [b for b in self.arrays if b.shape == shape and b is not t and not b.alias]
        src = r.choice(srcs) if srcs and r.random() < 0.7 else self.new_array(s, storage="heap")
        loops = [Loop("ijk"[d], d, 0, n, 1, r.random() < 0.3) for d, n in enumerate(shape)]
        gl = r.choice(loops)
        delta = r.choice((-1, -1, 1, 1, -2, 2))
        if shape[gl.dim] <= abs(delta):
            delta = 0 - 1
        plain = [lp.var for lp in loops]
        nb = [lp.sub(delta) if lp is gl else lp.var for lp in loops]
        form = r.choice(("if", "if-else", "ternary", "and", "and-read", "write"))
        g = self.guard(s, gl, delta)
        written = {t.name: nb if form == "write" else plain}
        c = self.region_ctx(s, loops, written)
        c.dread = [x for x in c.dread if src.name not in x]
        c.iread = [x for x in c.iread if src.name not in x]
        c.lread = [x for x in c.lread if src.name not in x]
        cg = Ctx(list(c.iread), list(c.lread), list(c.dread), list(c.ivars))
        nbref = src.at(nb)
        self.add_read(cg, src, nbref)
        ref = t.at(written[t.name])
        zero = "0.0" if src.ctype in FLOAT_TYPES else "0"
        if form == "ternary":
            tern = f"({g} ? {nbref} : {zero})"
            c2 = Ctx(list(c.iread), list(c.lread), list(c.dread), list(c.ivars))
            self.add_read(c2, src, tern)
            body = [f"{ref} = {self.forced_store(t, c2, src.name)};"]
        elif form in ("and", "and-read"):
            other = self.guard(s, gl, -delta) if form == "and" and shape[gl.dim] > abs(delta) \
                else f"{nbref} > {zero}"
            if form == "and":
                self.add_read(cg, src, src.at([lp.sub(-delta) if lp is gl else lp.var
                                               for lp in loops]))
            cond = f"{g} && {other}" if r.random() < 0.7 else f"({g}) && ({other})"
            body = [f"if ({cond})", f"    {ref} = {self.forced_store(t, cg, src.name)};",
                    "else", f"    {ref} = {self.store(t.ctype, c)};"]
        else:
            body = [f"if ({g})", f"    {ref} = {self.forced_store(t, cg, src.name)};"]
            if form == "if-else":
                body += ["else", f"    {ref} = {self.store(t.ctype, c)};"]
        inner = [lp.var for lp in loops[1:]]
        decl_inner = r.random() < 0.3
        clauses = [f"private({', '.join(inner)})"] if inner and not decl_inner \
            and not self.orphan else []
        body = drop_unused_locals(body)
        return LoopSpec(s, {"guarded"} | self.extra_families,
                        self.loop_nest(s, loops, 1, decl_inner, body), clauses,
                        reads=array_names(body), writes={t.name})
