"""Generator, part 6 (opt-in family ``folds``): reductions written by hand in a parallel
region. Each thread folds its share of ``omp for`` loops into scalars of its own (partials of
int, long, unsigned, double and float types, each with one operator: ``+`` and ``-``, ``*``,
``|``, ``^``, ``&``, max and min, in every spelling ``analysis.scalarupdates`` knows, under
``if``, in inner loops) and merges them into shared variables after the loop: in a
``critical`` block, by ``omp atomic``, after a ``nowait`` loop, by ``if (p > m) m = p;``,
through a callee taking a pointer, or into a ``reduction`` variable of the region. The
negative cases: a count of the threads, a partial read in its loop, changed outside it,
updated in a ``single``, folded by two loops with different operators, passed by address to a
callee in the loop, not starting at the operator's identity (idempotent operators only).

Every program gives the same output with any number of threads: the partials of ``+`` and
``*`` start at the identity, integer sums cannot overflow, unsigned products wrap (exactly),
signed products multiply by -1 or 1, floating-point sums add terms of one sign (float sums:
multiples of 1/4, exact), and what the negative cases do to a partial commutes with the merge
(``p *= 2`` before a sum, ``p |= 5`` before an or, ``p += 1`` before a max, values that leave
a partial as it is under the other operator).

Consumes the program's arrays and shapes; produces the lines of one region and the families
of its loops: ``folds`` (offloaded), and what keeps a loop or its region on the host today
(``fold_replicated``, ``fold_private``, ``fold_callee``, ``fold_spelling``, see
``generator.OFFLOADED``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .gen_exprs import Ctx, Loop, _paren
from .gen_loops import FORMATS
from .gen_offload import Offload

FOLD_FAMILIES = ("folds",)
FOLD_TYPES = ("int", "long", "unsigned int", "double", "float")
#: the operators a partial of each type may fold with
FOLD_OPS = {"int": ("+", "+", "*", "|", "^", "&", "max", "min"),
            "long": ("+", "+", "*", "|", "^", "&", "max", "min"),
            "unsigned int": ("+", "*", "|", "^", "&", "max", "min"),
            "double": ("+", "+", "+", "*", "max", "min"),
            "float": ("+", "max", "min")}
#: identity spellings (recognised by the analysis, and not: ``fold_spelling``)
IDENTITY = {("+", "int"): ("0",), ("+", "long"): ("0", "0L"), ("+", "unsigned int"): ("0u",),
            ("+", "double"): ("0.0", "0"), ("+", "float"): ("0.0f",),
            ("*", "int"): ("1",), ("*", "long"): ("1L",), ("*", "unsigned int"): ("1u",),
            ("*", "double"): ("1.0",),
            ("|", "int"): ("0",), ("|", "long"): ("0L",), ("|", "unsigned int"): ("0u",),
            ("^", "int"): ("0",), ("^", "long"): ("0L",), ("^", "unsigned int"): ("0u",),
            ("&", "int"): ("-1", "~0"), ("&", "long"): ("-1L", "~0L"),
            ("&", "unsigned int"): ("~0u",)}
UNRECOGNISED = {("&", "unsigned int"): "0xffffffffu"}
EXTREME = {"int": ("-1000000", "1000000"), "long": ("-1000000L", "1000000L"),
           "unsigned int": ("0u", "~0u"), "double": ("-1e30", "1e30"),
           "float": ("-1e30f", "1e30f")}
#: other starts of idempotent operators (the result does not depend on the team)
OTHER_START = {"|": {"int": "5", "long": "12L", "unsigned int": "9u"},
               "&": {"int": "4095", "long": "65535L", "unsigned int": "1023u"},
               "max": {"int": "-3", "long": "7L", "unsigned int": "11u", "double": "0.5",
                       "float": "-0.25f"},
               "min": {"int": "40", "long": "-2L", "unsigned int": "100000u",
                       "double": "0.75", "float": "1.5f"}}
NEGATIVES = ("counter", "read", "outside", "single", "two_ops", "address")
OPNAME = {"+": "add", "*": "mul", "|": "or", "^": "xor", "&": "and", "max": "max",
          "min": "min"}
SUFFIX = {"int": "", "long": "L", "unsigned int": "u", "double": ".0", "float": ".0f"}


@dataclass
class Partial:
    """One thread's partial: its type, operator, start, sign (of a floating-point sum), the
    loops folding it, the shared variable it merges into and how, its negative case."""

    name: str
    ctype: str
    op: str
    init: str
    ident: bool  # starts at an identity the analysis recognises
    loops: list[int] = field(default_factory=list)
    sign: int = 1
    target: str = ""
    merge: str = ""  # critical | atomic | callee | callee_atomic | reduction
    neg: str = ""


def _lit(ctype: str, k: int) -> str:
    """The literal ``k`` of ``ctype``."""
    return f"{k}{SUFFIX[ctype]}" if k >= 0 or ctype != "unsigned int" else f"{k}"


def _indent(text: str) -> str:
    return "\n".join("    " + x for x in text.split("\n"))


class Folds(Offload):
    """The folds family (a mixin of the generator, under ``gen_regions.Regions``)."""

    fold_funcs: dict[str, str]

    # -- values folded in ---------------------------------------------------------------------
    def fold_value(self, p: Partial, c: Ctx) -> str:
        """A value of ``p``'s type to fold with its operator (see the module's note)."""
        r, t, op = self.r, p.ctype, p.op
        ie, it = self.iexpr(c), self.iterm(c)
        if t == "double":
            if op == "*":
                return f"1.0 + 0.001 * sin({self.dterm(c)})"
            if op == "+":
                return f"0.25 + fabs({self.dexpr(c)})"
            return self.dexpr(c)
        if t == "float":
            if op == "+":
                return f"(float)(({ie}) & 15) * 0.25f"
            return f"(float)({self.dexpr(c)})"
        if op == "*":
            if t == "unsigned int":
                return f"(unsigned int)({ie}) * 2u + 1u"
            return f"(({ie}) % 3 == 0 ? -1{SUFFIX[t]} : 1{SUFFIX[t]})"
        one = {"int": "1", "long": "1L", "unsigned int": "1u"}[t]
        width = {"int": "15u", "long": "47u", "unsigned int": "31u"}[t]
        if op == "|":
            return f"{one} << ((unsigned int)({it}) & {width})"
        if op == "&":
            return f"~({one} << ((unsigned int)({it}) & {width}))"
        if t == "unsigned int":
            return f"(unsigned int)({ie}) * {r.choice(('2654435761u', '40503u', '3u'))}"
        if op == "^":
            return f"({ie}) & 4095" if t == "int" else f"(long)({ie}) * 2654435761L"
        if t == "int":
            return f"({ie}) % 1009"
        return f"(long)({ie}) * {r.randint(1, 9)} % 100003"

    def fold_stmt(self, p: Partial, v: str, step_ok: bool = True) -> str:
        """One statement folding ``v`` into ``p`` (a spelling of its operator; ``step_ok``:
        ``p++`` may stand for it)."""
        r, s = self.r, p.name
        if p.op in ("max", "min") and any(f + "(" in v for f in self.ifuncs + self.dfuncs):
            tmp = self.fresh("fv")  # (evaluated twice by most forms: it must not call)
            return f"{{\n    {p.ctype} {tmp} = {v};\n{_indent(self.fold_stmt(p, tmp))}\n}}"
        if p.op in ("max", "min"):
            gt = ">" if p.op == "max" else "<"
            lt = "<" if p.op == "max" else ">"
            forms = [f"if ({v} {gt} {s}) {s} = {v};", f"if ({s} {lt} {v}) {s} = {v};",
                     f"if ({v} {gt}= {s}) {s} = {v};", f"{s} = {s} {gt} {v} ? {s} : {v};",
                     f"{s} = {v} {gt} {s} ? {v} : {s};"]
            if p.ctype in ("double", "float"):
                f = ("fmax" if p.op == "max" else "fmin") + ("f" if p.ctype == "float" else "")
                forms += [f"{s} = {f}({s}, {v});", f"{s} = {f}({v}, {s});"]
            return r.choice(forms)
        if p.op == "+" and p.ctype == "double":
            v = f"({v}) * {p.sign}.0" if p.sign < 0 and r.random() < 0.3 else v
            if p.sign > 0:
                return r.choice((f"{s} += {v};", f"{s} = {s} + {_paren(v)};",
                                 f"{s} = {_paren(v)} + {s};", f"{s} -= -({v});"))
            return r.choice((f"{s} -= {v};", f"{s} = {s} - ({v});", f"{s} += -({v});"))
        if p.op == "+":
            if step_ok and r.random() < 0.15:
                return r.choice((f"{s}++;", f"++{s};", f"{s}--;"))
            return r.choice((f"{s} += {v};", f"{s} -= {v};", f"{s} = {s} + ({v});",
                             f"{s} = ({v}) + {s};", f"{s} = {s} - ({v});"))
        return r.choice((f"{s} {p.op}= {v};", f"{s} = {s} {p.op} ({v});",
                         f"{s} = ({v}) {p.op} {s};"))

    def fold_lines(self, p: Partial, c: Ctx, lp: Loop) -> list[str]:
        """One or two updates of ``p`` in a loop's body (statements, each one string): plain,
        a body-local value, under an ``if``, in an inner loop."""
        r = self.r
        out: list[str] = []
        for _ in range(r.choice((1, 1, 2))):
            k = r.random()
            if k < 0.25:  # an inner loop (the value may read q)
                cq = Ctx(list(c.iread), list(c.lread), list(c.dread), c.ivars + ["q"])
                trips = r.choice((1, 2, 3, 4))
                out.append(f"for (int q = 0; q < {trips}; q++) {{\n"
                           f"{_indent(self.fold_stmt(p, self.fold_value(p, cq)))}\n}}")
                continue
            if k < 0.45:  # a body-local value
                tmp = self.fresh("fv")
                out.append(f"{p.ctype} {tmp} = {self.fold_value(p, c)};\n"
                           f"{self.fold_stmt(p, tmp, False)}")
                continue
            stmt = self.fold_stmt(p, self.fold_value(p, c))
            if k < 0.7:
                stmt = f"if ({self.fold_cond(c, lp)}) {{\n{_indent(stmt)}\n}}"
            out.append(stmt)
        return out

    def fold_cond(self, c: Ctx, lp: Loop) -> str:
        """A guard true for some iterations (never a constant: a guard the compiler sees false
        would hide what it guards)."""
        r = self.r
        if c.iread and r.random() < 0.4:
            return f"{_paren(r.choice(c.iread))} % {r.randint(2, 5)} != 1"
        vals = lp.values()
        m = r.randint(2, 4)
        j = r.choice(sorted({v % m for v in vals})) if vals else 0
        return f"{lp.var} % {m} == {j}"

    # -- the partials -------------------------------------------------------------------------
    def new_partial(self, nloops: int) -> Partial:
        r = self.r
        t = r.choice(FOLD_TYPES)
        op = r.choice(FOLD_OPS[t])
        name = self.fresh("fp")
        if op in ("max", "min"):
            init = EXTREME[t][op == "min"] if r.random() < 0.7 else OTHER_START[op][t]
            ident = True  # (any start: a max or min merge is an assignment)
        elif op in ("|", "&") and r.random() < 0.2:
            init, ident = OTHER_START[op][t], False
        elif (op, t) in UNRECOGNISED and r.random() < 0.3:
            init, ident = UNRECOGNISED[op, t], False
        else:
            init, ident = r.choice(IDENTITY[op, t]), True
        loops = [r.randrange(nloops)]
        if nloops > 1 and r.random() < 0.25:
            loops = sorted(r.sample(range(nloops), 2))
        if t in ("double", "float"):
            self.floaty = True
        return Partial(name, t, op, init, ident, loops, r.choice((1, 1, -1)))

    def shared_target(self, p: Partial) -> str:
        """The shared variable ``p`` merges into (a local of main)."""
        r, t = self.r, p.ctype
        if p.op in ("max", "min"):
            init = EXTREME[t][p.op == "min"]
        elif p.op == "*":
            init = _lit(t, 1) if t != "int" or r.random() < 0.5 else "-1"
        elif p.op == "&":
            init = {"int": "-1", "long": "-1L", "unsigned int": "~0u"}[t]
        elif t in ("double", "float"):
            init = "0.0f" if t == "float" else "0.0"
        else:
            init = _lit(t, r.choice((0, 0, 3)))
        name = self.scalar(t, init, "fT")
        fmt = "%.9e" if t in ("double", "float") else FORMATS[t]
        cast = "(double)" if t == "float" else ""
        self.check_extra.append(f'    printf("{name} {fmt}\\n", {cast}{name});')
        return name

    def merge_stmt(self, p: Partial) -> str:
        """The statement merging ``p`` into its shared variable (no synchronisation)."""
        r, m, s = self.r, p.target, p.name
        if p.op in ("max", "min"):
            gt, lt = (">", "<") if p.op == "max" else ("<", ">")
            forms = [f"if ({s} {gt} {m}) {m} = {s};", f"if ({m} {lt} {s}) {m} = {s};",
                     f"{m} = {m} {gt} {s} ? {m} : {s};"]
            if p.ctype == "double":
                forms.append(f"{m} = {'fmax' if p.op == 'max' else 'fmin'}({m}, {s});")
            return r.choice(forms)
        if p.op == "+":
            return r.choice((f"{m} += {s};", f"{m} = {m} + {s};", f"{m} += {s};"))
        return r.choice((f"{m} {p.op}= {s};", f"{m} = {m} {p.op} {s};"))

    def merge_callee(self, p: Partial, atomic: bool) -> str:
        """A call merging ``p`` through a pointer (a callee made once per type, operator and
        kind)."""
        key = f"fm_{OPNAME[p.op]}_{p.ctype.replace(' ', '_')}{'_at' if atomic else ''}"
        if key not in self.fold_funcs:
            if p.op in ("max", "min"):
                body = f"    if (p {'>' if p.op == 'max' else '<'} *acc)\n        *acc = p;"
            elif p.op == "+":
                body = "    *acc += p;"
            else:
                body = f"    *acc = *acc {p.op} p;"
            if atomic:
                body = "#pragma omp atomic\n" + body
            self.fold_funcs[key] = key
            self.funcs.append(f"static void {key}({p.ctype} *acc, {p.ctype} p)\n{{\n{body}\n}}\n")
        return f"{key}(&{p.target}, {p.name});"

    def fold_address(self, p: Partial, v: str) -> str:
        """``p`` folded through a callee given its address (in the loop)."""
        sub = p.op == "+" and p.ctype in ("double", "float") and p.sign < 0
        key = f"fa_{'sub' if sub else OPNAME[p.op]}_{p.ctype.replace(' ', '_')}"
        if key not in self.fold_funcs:
            if p.op in ("max", "min"):
                body = f"    if (v {'>' if p.op == 'max' else '<'} *acc)\n        *acc = v;"
            elif sub:
                body = "    *acc -= v;"
            else:
                body = f"    *acc {p.op}= v;"
            self.fold_funcs[key] = key
            self.funcs.append(f"static void {key}({p.ctype} *acc, {p.ctype} v)\n{{\n{body}\n}}\n")
        return f"{key}(&{p.name}, {v});"

    # -- the negative cases -------------------------------------------------------------------
    def outside_stmt(self, p: Partial) -> str:
        """A change of ``p`` outside its loops that commutes with the merge."""
        r, s, t = self.r, p.name, p.ctype
        if p.op in ("max", "min"):
            return f"{s} >>= 1;" if t == "unsigned int" else r.choice(
                (f"{s} += {_lit(t, 1)};", f"{s} = {s} + {_lit(t, 2)};"))
        if p.op == "+":
            return r.choice((f"{s} *= {_lit(t, 2)};", f"{s} = {s} * {_lit(t, 3)};") +
                            ((f"{s} = -{s};",) if t != "unsigned int" else ()))
        if p.op == "*":
            return f"{s} = {s} * {s};"
        if p.op == "^":
            return f"{s} <<= 1;" if t == "unsigned int" else f"{s} *= {_lit(t, 2)};"
        return f"{s} {p.op}= {OTHER_START[p.op][t]};"

    def single_stmt(self, p: Partial) -> str:
        """An update of ``p`` by one thread, with ``p``'s operator."""
        s, t = p.name, p.ctype
        if p.op in ("max", "min"):
            k = _lit(t, 2)
            return f"if ({k} {'>' if p.op == 'max' else '<'} {s}) {s} = {k};"
        if p.op == "+":
            return f"{s} {'-' if p.sign < 0 else '+'}= {_lit(t, 7 if t != 'float' else 3)};"
        if p.op == "*":
            return f"{s} *= {'-1' if t in ('int', 'long') else _lit(t, 3)};"
        return f"{s} {p.op}= {OTHER_START['|'][t]};"

    def other_op_stmt(self, p: Partial, c: Ctx) -> str:
        """An update of ``p`` by another operator whose values leave it as it is."""
        s, t = p.name, p.ctype
        if t in ("double", "float"):
            big = f"(double)({self.dexpr(c)}) > 1e6"
            one, zero = ("1.0f", "0.0f") if t == "float" else ("1.0", "0.0")
            if p.op == "*":
                return f"{s} += {big} ? {one} : {zero};"
            return f"{s} *= {big} ? 2{one[1:]} : {one};" if p.op == "+" else \
                f"{s} += {big} ? {one} : {zero};"
        big = f"({self.iexpr(c)}) > 1000000000"
        one, zero = _lit(t, 1), _lit(t, 0)
        if p.op == "+":
            return f"{s} *= {big} ? {_lit(t, 2)} : {one};"
        if p.op == "|":
            return f"{s} &= {big} ? {zero} : ~{zero};"
        return f"{s} {'|' if p.op in ('^', '&') else '+'}= {big} ? {one} : {zero};"

    def read_stmt(self, p: Partial, n: int, lp: Loop, c: Ctx) -> str:
        """A store reading ``p`` (its value times zero) into an array of the loop's own."""
        fw = self.fresh("fw")
        self._local(f"double {fw}[{n}]", fw, [f"    for (h0 = 0; h0 < {n}; h0++)",
                                             f"        {fw}[h0] = 0.5;"])
        self.check_extra += ["    cd = 0.0;", f"    for (h0 = 0; h0 < {n}; h0++)",
                             f"        cd += fabs({fw}[h0]) * (1.0 + 0.125 * (h0 % 8));",
                             f'    printf("{fw} %.9e\\n", cd);']
        self.floaty = True
        return f"{fw}[{lp.sub()}] = {self.dexpr(c)} + 0.0 * (double){p.name};"

    # -- the loops and the region -------------------------------------------------------------
    def fold_loop(self, zero_ok: bool) -> tuple[Loop, Ctx, str, int]:
        """A loop over the first dimension of some shape: (the loop, what its body may read,
        its header, the length): all of it, or one iteration, or (in a time loop, where
        ``zero_ok``: the loop is not expected on the device, whose runtime runs a loop of no
        iterations on the host) none on every other step."""
        r = self.r
        s = self.shape_of_rank((1, 2, 3))
        n = self.shapes[s][0]
        k = r.random()
        if k < 0.12:
            lo = r.randrange(n)
            lp = Loop("i", 0, lo, lo + 1, 1, False)
        elif k < 0.3 and self.in_time and zero_ok:
            lp = Loop("i", 0, 0, n, 1, False)
        else:
            lp = self.make_loop("i", 0, n)
        head = self.header(s, lp, False)
        if 0.12 <= k < 0.3 and self.in_time and zero_ok:
            bound = r.choice((f"(t + 1) % 2 * {n}", f"(t % 2 == 0 ? {n} : 0)"))
            head = f"for (i = 0; i < {bound}; i++)"
        c = Ctx(ivars=["i"])
        for a in self.arrays:
            if a.shape == (n,) and not a.alias and r.random() < 0.7:
                self.add_read(c, a, a.at([lp.sub()]))
        return lp, c, head, n

    def fold_bodies(self, parts: list[Partial], loops: list, neg: str,
                    victim: Partial | None) -> tuple[list[list[str]], set[int]]:
        """The body of every loop, and the loops a partial read there keeps on the host."""
        r = self.r
        bodies: list[list[str]] = [[] for _ in loops]
        held: set[int] = set()
        for k in range(len(loops)):  # every loop folds something
            if not any(k in p.loops for p in parts):
                p = r.choice([x for x in parts if x is not victim])
                p.loops = sorted(p.loops + [k])
        for p in parts:
            for k in p.loops:
                lp, c, _, n = loops[k]
                lines = self.fold_lines(p, c, lp)
                if p is victim and neg == "address" and k == p.loops[0]:
                    lines.append(self.fold_address(p, self.fold_value(p, c)))
                if p is victim and neg == "read" and k == p.loops[-1]:
                    lines.append(self.read_stmt(p, n, lp, c))
                    held.add(k)
                bodies[k] += lines
        if neg == "two_ops" and victim is not None:
            k = next(x for x in range(len(loops)) if x not in victim.loops)
            victim.loops = sorted(victim.loops + [k])
            bodies[k].append(self.other_op_stmt(victim, loops[k][1]))
        for body in bodies:
            r.shuffle(body)  # (each update is a statement of its own)
        return bodies, held

    def choose_merges(self, parts: list[Partial]) -> None:
        r = self.r
        for p in parts:
            p.target = self.shared_target(p)
            ext = p.op in ("max", "min")
            k = r.random()
            if k < 0.08:
                p.merge = "callee"
            elif k < 0.12 and not ext:
                p.merge = "callee_atomic"
            elif k < 0.3 and not (p.op == "*" and p.ctype != "unsigned int"):
                p.merge = "reduction"
            elif k < 0.55 and not ext:
                p.merge = "atomic"
            else:
                p.merge = "critical"

    def merge_lines(self, ready: list[Partial], ind: str) -> list[str]:
        """The merges of the partials whose last loop just ended."""
        r = self.r
        out: list[str] = []
        crit = [p for p in ready if p.merge == "critical"]
        if crit:
            name = r.choice(("", "", " (fold)"))
            if len(crit) == 1 and r.random() < 0.5:
                out += [f"#pragma omp critical{name}", ind + self.merge_stmt(crit[0])]
            else:
                out += [f"#pragma omp critical{name}", ind + "{"]
                out += [ind + "    " + self.merge_stmt(p) for p in crit] + [ind + "}"]
        for p in ready:
            if p.merge == "atomic":
                out += [r.choice(("#pragma omp atomic", "#pragma omp atomic update")),
                        ind + self.merge_stmt(p)]
            elif p.merge == "reduction":
                out.append(ind + self.merge_stmt(p))
            elif p.merge == "callee":
                out += ["#pragma omp critical", ind + self.merge_callee(p, False)]
            elif p.merge == "callee_atomic":
                out.append(ind + self.merge_callee(p, True))
        return out

    def fold_families(self, parts: list[Partial], neg: str) -> set[str]:
        """What keeps the region on the host today (with ``folds`` itself)."""
        fams = {"folds"}
        for p in parts:
            upd = p.op not in ("max", "min")
            if upd and (p.neg in ("read", "outside", "two_ops", "address") or
                        not p.ident and p.init not in UNRECOGNISED.values()):
                fams.add("fold_replicated")
            if upd and p.init in UNRECOGNISED.values():
                fams.add("fold_spelling")
            if upd and p.merge.startswith("callee"):  # (max, min: an assignment)
                fams.add("fold_callee")
        if neg == "counter":
            fams.add("fold_replicated")
        return fams

    def folds_region(self, ind: str) -> list[str]:
        """``#pragma omp parallel`` whose threads fold 1-3 ``omp for`` loops into partials of
        their own and merge them (one negative case sometimes)."""
        r = self.r
        if not hasattr(self, "fold_funcs"):
            self.fold_funcs = {}
        neg = r.choice(NEGATIVES) if r.random() < 0.45 else ""
        nloops = r.choice((1, 2, 2, 3)) if neg != "two_ops" else r.choice((2, 3))
        parts = [self.new_partial(nloops) for _ in range(r.randint(2, 5))]
        victim = r.choice(parts) if neg not in ("", "counter") else None
        if victim is not None:
            victim.neg = neg
            if neg == "two_ops":
                victim.loops = victim.loops[:1]
        self.choose_merges(parts)
        fams = self.fold_families(parts, neg)
        zero_ok = bool(fams & {"fold_replicated", "fold_callee", "fold_spelling"})
        loops = [self.fold_loop(zero_ok) for _ in range(nloops)]
        bodies, held = self.fold_bodies(parts, loops, neg, victim)
        self.teams = getattr(self, "teams", 0) + 1
        fams.add(f"team{self.teams}")
        inner = ind + "    "
        body, clauses = self.fold_decls(parts, inner)
        counter = ""
        if neg == "counter" or r.random() < 0.1:
            counter = self.fold_counter(neg == "counter")
        early = bool(counter) and r.random() < 0.5
        if early:
            body += ["#pragma omp atomic", f"{inner}{counter}++;"]
        for k, (lp, c, head, n) in enumerate(loops):
            body.append(self.marker(fams | ({"fold_private"} if k in held else set())))
            cl = []
            if r.random() < 0.2:
                cl.append(r.choice(("schedule(static)", "schedule(dynamic, 2)",
                                    "schedule(guided)", "schedule(static, 3)")))
            if r.random() < 0.35:
                cl.append("nowait")
            body.append("#pragma omp for" + "".join(" " + x for x in cl))
            body += [inner + head + " {"] + [inner + "    " + y for b in bodies[k]
                                              for y in b.split("\n")] + [inner + "}"]
            ready = [p for p in parts if p.loops[-1] == k]
            for p in ready:
                if p.neg == "outside":
                    body.append(inner + self.outside_stmt(p))
                elif p.neg == "single":
                    body += ["#pragma omp single" + r.choice(("", " nowait")),
                             inner + self.single_stmt(p)]
            body += self.merge_lines(ready, inner)
        if counter and not early:
            body += ["#pragma omp critical", f"{inner}{counter} += 1;"]
        clauses += [f"reduction({p.op}:{p.target})" for p in parts if p.merge == "reduction"]
        if r.random() < 0.1:
            clauses.append(r.choice(("num_threads(2)", "default(shared)", "num_threads(3)")))
        r.shuffle(clauses)
        return ([f"#pragma omp parallel{''.join(' ' + x for x in clauses)}", ind + "{"] +
                body + [ind + "}"])

    def fold_decls(self, parts: list[Partial], ind: str) -> tuple[list[str], list[str]]:
        """The partials' declarations and starts (in the region, or private locals of main
        set in the region); the region's private clause."""
        r = self.r
        lines: list[str] = []
        privs: list[str] = []
        for p in parts:
            k = r.random()
            if k < 0.15:
                self._local(f"{p.ctype} {p.name}", p.name, [])
                privs.append(p.name)
                lines.append(f"{ind}{p.name} = {p.init};")
            elif k < 0.35:
                lines.insert(0, f"{ind}{p.ctype} {p.name};")
                lines.append(f"{ind}{p.name} = {p.init};")
            else:
                lines.insert(0, f"{ind}{p.ctype} {p.name} = {p.init};")
        return lines, ([f"private({', '.join(privs)})"] if privs else [])

    def fold_counter(self, read: bool) -> str:
        """A shared count of the threads: printed (whether positive), or a static nothing
        reads but its own updates."""
        if read:
            name = self.scalar("int", "0", "fn")
            self.check_extra.append(f'    printf("{name} %d\\n", {name} > 0);')
            return name
        name = self.fresh("fs")
        self.decl_local.append(f"    static int {name} = 0;")
        return name
