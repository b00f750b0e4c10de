"""Differential fuzzing: random valid OpenMP C programs, built with gcc and through ompcl, run
on the OpenCL device, the OpenMP host and in auto mode; outputs, exit codes and where each loop
ran are compared, and failing programs are minimised into tests/fuzz_regressions/."""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"
REGRESSIONS = ROOT / "tests" / "fuzz_regressions"
MODES = ("opencl", "openmp", "auto")
RUN_TIMEOUT = 10.0
BODY_MARK = "/* -- body -- */"
END_MARK = "/* -- checksums -- */"
META = re.compile(r"ompcl-expect:\s*device=(\d+)\s+host=(\d+)(?:\s+tolerance=(\S+))?")
INT_TYPES = ("int", "long", "unsigned char", "unsigned int", "short", "signed char")
FLOAT_TYPES = ("float", "double")
PRIMES = (2, 3, 5, 7, 11, 13, 17, 31, 61, 97, 127, 131, 193, 251, 257, 293)
COEFS = (0.5, 0.25, -0.25, 0.125, -0.375, 0.3, -0.5, 0.0625)


# ---------------------------------------------------------------------------------------------
# generator

@dataclass
class Arr:
    """One array of the program: name, element type, shape and where it lives."""

    name: str
    ctype: str
    shape: tuple[int, ...]
    storage: str  # global | local | static | heap | rowptr (T (*p)[M] = malloc(...)) | param
    strides: tuple[str, ...] = ()  # heap: text of dims 1.. used in the flat index
    alias: str = ""  # a pointer parameter that points to the same array as parameter `alias`

    def at(self, subs: list[str]) -> str:
        if self.storage != "heap":
            return self.name + "".join(f"[{s}]" for s in subs)
        e = subs[0]
        for k, (dim, s) in enumerate(zip(self.strides, subs[1:])):
            e = f"{_paren(e) if k == 0 else '(' + e + ')'} * {dim} + {s}"
        return f"{self.name}[{e}]"


@dataclass
class Loop:
    """One loop of a nest: v takes lo, lo+step, ... < hi (or the reverse when desc)."""

    var: str
    dim: int
    lo: int
    hi: int
    step: int
    desc: bool
    shift: int = 0  # the variable runs over [lo - shift, hi - shift); subscripts add shift

    def sub(self, o: int = 0) -> str:
        """Subscript text for element (value + shift + o)."""
        t = self.shift + o
        return self.var if t == 0 else (f"{self.var} + {t}" if t > 0 else f"{self.var} - {-t}")

    def values(self) -> list[int]:
        vals = list(range(self.lo, self.hi, self.step))
        if self.desc:
            vals = list(range(self.hi - 1, self.lo - 1, -self.step))
        vals = [v - self.shift for v in vals]
        return vals


@dataclass
class Ctx:
    """What an expression inside a loop body may read."""

    iread: list[str] = field(default_factory=list)  # int-valued terms, |v| <= 3000
    lread: list[str] = field(default_factory=list)  # long-valued terms, |v| <= 100002
    dread: list[str] = field(default_factory=list)  # double-valued terms, |v| <= ~30
    ivars: list[str] = field(default_factory=list)  # loop variables


def _paren(e: str) -> str:
    return e if re.fullmatch(r"[A-Za-z_]\w*|\d+", e) else f"({e})"


def _num(x: float) -> str:
    return repr(float(x))


class Gen:
    """Builds one program from a seed; ``render()`` returns its text."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.seed = seed
        self.arrays: list[Arr] = []
        self.shapes: list[tuple[int, ...]] = []
        self.dimvars: dict[tuple[int, int], str] = {}
        self.scalars: list[str] = []
        self.funcs: list[str] = []
        self.dfuncs: list[str] = []
        self.kfuncs: list[str] = []
        self.ivalue: dict[str, int] = {}
        self.ifuncs: list[str] = []
        self.fp_d: list[str] = []
        self.fp_i: list[str] = []
        self.n_device = 0
        self.n_host = 0
        self.floaty = False
        self.nscalar = 0
        self.in_time = False

    # -- declarations ---------------------------------------------------------------------
    def scalar(self, ctype: str, init: str, prefix: str = "v") -> str:
        name = f"{prefix}{self.nscalar}"
        self.nscalar += 1
        self.scalars.append(f"    {ctype} {name} = {init};")
        return name

    def pick_dim(self, rank: int) -> int:
        r = self.r
        hi = {1: 300, 2: 120, 3: 30}[rank]
        k = r.random()
        if k < 0.15:
            return r.randint(1, 8)
        if k < 0.45:
            return r.choice([p for p in PRIMES if p <= hi] + [hi])
        if rank == 1 and k > 0.95:
            return r.randint(300, 3000)
        return r.randint(1, hi)

    def make_shapes(self) -> None:
        r = self.r
        for _ in range(r.choice((1, 1, 2))):
            rank = r.choices((1, 2, 3), (3, 4, 3))[0]
            while True:
                shape = tuple(self.pick_dim(rank) for _ in range(rank))
                if math.prod(shape) <= 20000:
                    break
            self.shapes.append(shape)
            if rank > 1:
                for d in r.sample(range(rank), r.randint(0, rank)):
                    self.shapes.append((shape[d],))
        self.shapes = list(dict.fromkeys(self.shapes))
        for s, shape in enumerate(self.shapes):
            for d, n in enumerate(shape):
                if r.random() < 0.5:
                    self.dimvars[(s, d)] = self.scalar("int", str(n), "n")
        for s, shape in enumerate(self.shapes):
            for _ in range(r.randint(1, 3) if len(shape) > 1 or s == 0 else r.randint(1, 2)):
                self.new_array(s)

    def new_array(self, s: int) -> Arr:
        r = self.r
        shape = self.shapes[s]
        ctype = r.choice(("int", "long", "float", "double", "double", "unsigned char",
                          "unsigned int", "int", "short", "signed char"))
        storage = r.choice(("global", "local", "static", "heap", "heap") +
                           (("rowptr",) if len(shape) > 1 else ()))
        name = {"global": "g", "local": "l", "static": "s", "heap": "p",
                "rowptr": "w"}[storage] + str(len(self.arrays))
        strides = tuple(self.dimvars.get((s, d), str(shape[d])) if r.random() < 0.7
                        else str(shape[d]) for d in range(1, len(shape)))
        a = Arr(name, ctype, shape, storage, strides)
        self.arrays.append(a)
        if ctype == "float":
            self.floaty = True
        return a

    def make_funcs(self) -> None:
        r = self.r
        for k in range(r.choice((0, 1, 1, 2))):
            name = f"fd{k}"
            body = r.choice((
                "return 0.5 * x + 0.25 * sin(y);",
                "return 0.375 * x / (1.0 + fabs(y)) + 0.125;",
                "return 0.5 * sqrt(fabs(x) + 1.0) - 0.25 * y;",
                ("double z = x * 0.5;\n    if (y > 0.0)\n        z = z + 0.25 * exp(-fabs(y));\n"
                 "    return z;"),
                "return 0.25 * fmax(x, y) + 0.5 * cos(x);"))
            self.funcs.append(f"static double {name}(double x, double y)\n{{\n    {body}\n}}\n")
            self.dfuncs.append(name)
        for k in range(r.choice((0, 1, 1, 2))):
            name = f"fi{k}"
            body = r.choice((
                "return (a * 3 + b) % 1009;",
                ("int s = 0, q;\n    for (q = 0; q < 3; q++)\n        s += (a + q) % 7;\n"
                 "    return (s + b) % 1009;"),
                "return a > b ? (a - b) % 1009 : (b - a) % 1009;",
                "return ((a & 255) ^ (b & 1023)) - 300;"))
            self.funcs.append(f"static int {name}(int a, int b)\n{{\n    {body}\n}}\n")
            self.ifuncs.append(name)

    # -- expressions ----------------------------------------------------------------------
    def iterm(self, c: Ctx, depth: int = 0) -> str:
        r = self.r
        k = r.random()
        if self.ifuncs and depth == 0 and k < 0.2:
            return f"{r.choice(self.ifuncs)}({self.iterm(c, 1)}, {self.iterm(c, 1)})"
        if c.iread and k < 0.6:
            return r.choice(c.iread)
        if c.ivars and k < 0.8:
            return r.choice(c.ivars)
        if self.fp_i and k < 0.9:
            return r.choice(self.fp_i)
        if self.in_time and k < 0.95:
            return "t"
        return str(r.randint(-20, 40))

    def iexpr(self, c: Ctx) -> str:
        """An int expression, |value| < 2^31 / 100."""
        r = self.r
        a, b = self.iterm(c), self.iterm(c)
        k = r.randint(0, 6)
        if k == 0:
            return f"{_paren(a)} * {r.randint(1, 7)} + {_paren(b)}"
        if k == 1:
            return f"{_paren(a)} - {_paren(b)} + {r.randint(0, 99)}"
        if k == 2:
            return f"({_paren(a)} & 255) ^ {_paren(b)}"
        if k == 3 and c.ivars:
            return f"({r.choice(c.ivars)} % {r.randint(2, 5)} == 0 ? {a} : {b})"
        if k == 4:
            return f"{_paren(a)} / {r.randint(1, 9)} + {_paren(b)}"
        if k == 5:
            return f"{_paren(a)} * {_paren(b)}"
        return f"{_paren(a)} + {r.randint(1, 9)} * {_paren(b)}"

    def dterm(self, c: Ctx, depth: int = 0) -> str:
        r = self.r
        k = r.random()
        if depth < 2 and k < 0.2:
            x = self.dterm(c, depth + 1)
            y = self.dterm(c, depth + 1)
            if self.dfuncs and r.random() < 0.5:
                return f"{r.choice(self.dfuncs)}({x}, {y})"
            return r.choice((f"sin({x})", f"cos({x})", f"sqrt(fabs({x}) + 1.0)",
                             f"exp(-fabs({x}))", f"fabs({x})", f"{_paren(x)} / (1.0 + fabs({y}))",
                             f"fmax({x}, {y})", f"fmin({x}, {y})", f"exp(0.01 * {_paren(x)})"))
        if c.dread and k < 0.65:
            return r.choice(c.dread)
        if c.iread and k < 0.75:
            return f"0.001 * {_paren(r.choice(c.iread))}"
        if c.ivars and k < 0.85:
            return f"0.001 * {r.choice(c.ivars)}"
        if self.fp_d and k < 0.93:
            return r.choice(self.fp_d)
        if self.in_time:
            return "0.1 * t"
        return _num(r.choice(COEFS))

    def dexpr(self, c: Ctx) -> str:
        """A double expression whose magnitude stays bounded when iterated (|coefs| <= 0.9)."""
        r = self.r
        parts, total = [_num(round(r.uniform(-1, 1), 3))], 0.0
        for _ in range(r.randint(1, 3)):
            cf = r.choice(COEFS)
            if total + abs(cf) > 0.9:
                break
            total += abs(cf)
            parts.append(f"{_num(cf)} * {_paren(self.dterm(c))}")
        return " + ".join(parts)

    def store(self, ctype: str, c: Ctx) -> str:
        if ctype == "int":
            return f"({self.iexpr(c)}) % 1009"
        if ctype == "long":
            lt = (self.r.choice(c.lread) if c.lread and self.r.random() < 0.6
                  else f"(long){_paren(self.iterm(c))}")
            return f"({lt} * {self.r.randint(1, 9)} + {_paren(self.iexpr(c))}) % 100003"
        if ctype == "unsigned char":
            return f"(unsigned char)({self.iexpr(c)})"
        if ctype == "short":
            return f"(short)(({self.iexpr(c)}) % 3000)"
        if ctype == "signed char":
            return f"(signed char)(({self.iexpr(c)}) % 100)"
        if ctype == "unsigned int":
            e = self.iexpr(c)
            return f"(unsigned int)({e}) * {self.r.choice(('2654435761u', '40503u', '3u'))}"
        if ctype == "float" and self.r.random() < 0.5:
            return f"(float)({self.dexpr(c)})"
        return self.dexpr(c)

    def add_read(self, c: Ctx, a: Arr, ref: str) -> None:
        if a.ctype in FLOAT_TYPES:
            c.dread.append(ref)
        elif a.ctype == "long":
            c.lread.append(ref)
            c.iread.append(f"(int)({ref} % 1000)")
        elif a.ctype == "unsigned int":
            c.iread.append(f"(int)({ref} % 1000u)")
            c.lread.append(f"(long)({ref} >> 16)")
        else:
            c.iread.append(ref)

    # -- loops and regions ----------------------------------------------------------------
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
        s = r.randrange(len(self.shapes))
        shape = self.shapes[s]
        k = r.random()
        if k < 0.08:
            return self.host_region(s, ind)
        if k < 0.2:
            return self.func_region(s, ind)
        vecs = [a for a in self.arrays if a.shape == (shape[0],)]
        if len(shape) > 1 and vecs and k < 0.3:
            return self.rowreduce_region(s, r.choice(vecs), ind)
        return self.map_region(s, ind)

    def func_region(self, s: int, ind: str) -> list[str]:
        """A region inside a helper function that gets the arrays as pointer parameters."""
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
        if views and r.random() < 0.3:  # the same array passed twice (written through one)
            k = r.randrange(len(views))
            v = views[k]
            params.append(params[len(dims) + k].replace(f"{v.name}", f"{v.name}a", 1))
            views.append(Arr(v.name + "a", v.ctype, shape, v.storage, v.strides, alias=v.name))
            args.append(args[len(dims) + k])
        saved = (self.arrays, self.dimvars, self.fp_d, self.fp_i, self.in_time, self.scalars)
        self.arrays, self.fp_d, self.fp_i, self.in_time, self.scalars = views, [], [], False, []
        self.dimvars = {(s, d): m for d, m in enumerate(dims)}
        try:
            lines = self.map_region(s, "    ")
            local = self.scalars
        finally:
            self.arrays, self.dimvars, self.fp_d, self.fp_i, self.in_time, self.scalars = saved
        name = f"kf{len(self.kfuncs)}"
        self.kfuncs.append(name)
        self.funcs.append(f"static void {name}({', '.join(params)})\n{{\n    int i, j, k;\n" +
                          "".join(x + "\n" for x in local) + "    (void)i; (void)j; (void)k;\n" +
                          "\n".join(lines) + "\n}\n")
        return [f"{ind}{name}({', '.join(args)});"]

    def nest(self, s: int) -> list[Loop]:
        return [self.make_loop("ijk"[d], d, n) for d, n in enumerate(self.shapes[s])]

    def map_region(self, s: int, ind: str) -> list[str]:
        r = self.r
        shape = self.shapes[s]
        loops = self.nest(s)
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
        c = self.region_ctx(s, loops, written)
        collapse = 1
        if len(loops) > 1 and r.random() < 0.5:
            collapse = r.randint(2, len(loops))
        decl_inner = r.random() < 0.2
        decl_all = decl_inner and r.random() < 0.5
        clauses, body, before, after = [], [], [], []
        if collapse > 1:
            clauses.append(f"collapse({collapse})")
        inner = [lp.var for lp in loops[collapse:]]
        if inner and not decl_inner:
            clauses.append(f"private({', '.join(inner)})")
        if r.random() < 0.3:  # private temporary
            tmp = self.scalar("double", "0.0", "tp")
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
        for a in targets:
            ref = a.at(written[a.name])
            if r.random() < 0.2:
                cond = (f"{r.choice(c.ivars)} % {r.randint(2, 4)} == {r.randint(0, 1)}"
                        if c.ivars and r.random() < 0.6
                        else f"{self.iterm(c)} > {r.randint(-5, 300)}")
                body.append(f"if ({cond})\n    {ref} = {self.store(a.ctype, c)};\n"
                            f"else\n    {ref} = {self.store(a.ctype, c)};")
            else:
                body.append(f"{ref} = {self.store(a.ctype, c)};")
        nonempty = all(lp.values() for lp in loops)
        self.reductions(c, clauses, body, before, after, ind)
        if nonempty and r.random() < 0.2:
            if r.random() < 0.5:
                lp = self.scalar("double", "-1.0", "lp")
                body.append(f"{lp} = {self.dexpr(c)};")
                after.append(f'printf("{lp} %.9e\\n", 1.0 + fabs({lp}));')
            else:
                lp = self.scalar("long", "-1", "lp")
                body.append(f"{lp} = {self.iexpr(c)};")
                after.append(f'printf("{lp} %ld\\n", {lp});')
            clauses.append(f"lastprivate({lp})")
        self.n_device += 1
        return self.emit(s, loops, 0 if decl_all else collapse, clauses, body, before, after,
                         ind, decl_inner)

    def reductions(self, c: Ctx, clauses: list[str], body: list[str], before: list[str],
                   after: list[str], ind: str) -> None:
        r = self.r
        for _ in range(r.choice((0, 0, 1, 1, 2))):
            kind = r.choice(("l+", "i+", "i*", "imax", "imin", "u*", "u^", "u|", "d+", "d*",
                             "dmax", "dmin", "d+", "dmax", "i-", "i&&", "i||", "u&"))
            ctype, init = {"l": ("long", "0"), "i": ("int", "0"), "u": ("unsigned long", "1UL"),
                           "d": ("double", "0.0")}[kind[0]]
            op = kind[1:]
            if op == "*":
                init = "1" if ctype == "int" else ("1.0" if ctype == "double" else "1UL")
            if op == "max":
                init = "-1000000" if ctype == "int" else "-1e30"
            if op == "min":
                init = "1000000" if ctype == "int" else "1e30"
            if kind == "u|":
                ctype, init = "unsigned int", "0u"
            if kind == "u&":
                ctype, init = "unsigned int", "0xffffffffu"
            if kind == "i&&":
                init = "1"
            if kind == "u^":
                ctype, init = "unsigned int", "0u"
            v = self.scalar(ctype, init, "r")
            if r.random() < 0.7:
                before.append(f"{v} = {init};")
            clauses.append(f"reduction({op}:{v})")
            if ctype == "double":
                self.floaty = True
                e = self.dexpr(c)
                stmt = {"+": r.choice((f"{v} += fabs({e});", f"{v} += ({e}) * ({e});",
                                       f"{v} = {v} + 1.0 + 0.5 * sin({e});")),
                        "*": f"{v} *= 1.0 + 1e-6 * ({e});",
                        "max": r.choice((f"{v} = fmax({v}, {e});",
                                         f"{v} = {v} > {_paren(e)} ? {v} : {_paren(e)};")),
                        "min": r.choice((f"{v} = fmin({v}, {e});",
                                         f"if ({e} < {v})\n    {v} = {e};"))}[op]
                after.append(f'printf("{v} %.9e\\n", {v});')
            else:
                e = self.iterm(c)
                stmt = {"l+": f"{v} += {self.iexpr(c)};",
                        "i+": f"{v} += {_paren(e)} % 100;",
                        "i*": f"{v} *= 1 - 2 * ({_paren(e)} & 1);",
                        "i-": f"{v} -= {_paren(e)} % 100;",
                        "i&&": f"{v} = {v} && ({_paren(e)} % 7 != 3);",
                        "i||": f"{v} = {v} || ({_paren(e)} == {r.randint(0, 40)});",
                        "u&": f"{v} &= (unsigned int)({e}) | 0xfff0ffffu;",
                        "imax": r.choice((f"if ({e} > {v})\n    {v} = {e};",
                                          f"{v} = {e} > {v} ? {e} : {v};")),
                        "imin": r.choice((f"if ({e} < {v})\n    {v} = {e};",
                                          f"{v} = {v} < {e} ? {v} : {e};")),
                        "u*": f"{v} *= (unsigned long)({e}) * 2UL + 1UL;",
                        "u^": f"{v} ^= (unsigned int)({e}) * 2654435761u;",
                        "u|": f"{v} |= 1u << ((unsigned int)({e}) & 31u);"}[kind]
                fmt = {"long": "%ld", "int": "%d", "unsigned long": "%lu",
                       "unsigned int": "%u"}[ctype]
                after.append(f'printf("{v} {fmt}\\n", {v});')
            body.extend(stmt.split("\n"))

    def rowreduce_region(self, s: int, vec: Arr, ind: str) -> list[str]:
        r = self.r
        loops = self.nest(s)
        loops[0] = Loop("i", 0, 0, self.shapes[s][0], 1, r.random() < 0.3)
        c = self.region_ctx(s, loops, {vec.name: ["i"]})
        c.iread = [x for x in c.iread if vec.name not in x]
        c.lread = [x for x in c.lread if vec.name not in x]
        c.dread = [x for x in c.dread if vec.name not in x]
        decl_inner = r.random() < 0.3
        clauses = [] if decl_inner else [f"private({', '.join(lp.var for lp in loops[1:])})"]
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
        self.n_device += 1
        wrap = r.random() < 0.1
        i0 = ind + "    " if wrap else ind
        nest = [i0 + self.header(s, loops[0], False) + " {", i0 + "    " + pre]
        depth = i0 + "    "
        for lp in loops[1:]:
            nest.append(depth + self.header(s, lp, decl_inner))
            depth += "    "
        nest += [depth + inner, i0 + "    " + post, i0 + "}"]
        return self.pragma(clauses, nest, ind, wrap)

    def host_region(self, s: int, ind: str) -> list[str]:
        r = self.r
        n = self.shapes[s][0]
        lp = Loop("i", 0, 0, n, 1, False)
        c = Ctx(ivars=["i"])
        for a in self.arrays:
            if a.shape[0] == n and (a.shape == self.shapes[s] or len(a.shape) == 1):
                self.add_read(c, a, a.at(["i"] + ["0"] * (len(a.shape) - 1)))
        hc = self.scalar("long", "0", "hc")
        self.n_host += 1
        lines = [f"{ind}{self.header(s, lp, False)} {{", f"{ind}    int hv = {self.iexpr(c)};"]
        if r.random() < 0.5:
            lines += ["#pragma omp critical", f"{ind}    {{", f"{ind}        {hc} += hv % 7;",
                      f"{ind}    }}"]
        else:
            lines += ["#pragma omp atomic", f"{ind}    {hc} += hv % 7;"]
        lines.append(f"{ind}}}")
        return ["#pragma omp parallel for"] + lines + [f'{ind}printf("{hc} %ld\\n", {hc});']

    def emit(self, s: int, loops: list[Loop], collapse: int, clauses: list[str], body: list[str],
             before: list[str], after: list[str], ind: str, decl_inner: bool) -> list[str]:
        wrap = self.r.random() < 0.1
        depth = ind + "    " if wrap else ind
        nest = []
        for d, lp in enumerate(loops):
            last = d == len(loops) - 1
            head = self.header(s, lp, decl_inner and d >= collapse)
            nest.append(depth + head + (" {" if last else ""))
            depth += "    "
        nest += [depth + x for b in body for x in b.split("\n")] + [depth[:-4] + "}"]
        return ([ind + b for b in before] + self.pragma(clauses, nest, ind, wrap) +
                [ind + a for a in after])

    def pragma(self, clauses: list[str], nest: list[str], ind: str, wrap: bool) -> list[str]:
        r, text = self.r, "\n".join(nest)
        clauses = list(clauses)
        for v in self.fp_d + self.fp_i:
            if re.search(rf"\b{v}\b", text) and r.random() < 0.5:
                clauses.append(r.choice((f"firstprivate({v})", f"firstprivate({v})",
                                         f"shared({v})")))
        if r.random() < 0.15:
            clauses.append(r.choice(("schedule(static)", "schedule(static, 7)", "schedule(dynamic)",
                                     "schedule(dynamic, 3)", "schedule(guided)", "num_threads(2)")))
        if r.random() < 0.05:
            clauses.append("default(shared)")
        r.shuffle(clauses)
        if wrap:  # shared, default and num_threads belong to the parallel construct
            par = [c for c in clauses if c.startswith(("shared", "default", "num_threads"))]
            cl = "".join(" " + c for c in clauses if c not in par)
            return (["#pragma omp parallel" + "".join(" " + c for c in par), ind + "{",
                     "#pragma omp for" + cl] + nest + [ind + "}"])
        return ["#pragma omp parallel for" + "".join(" " + c for c in clauses)] + nest

    # -- host code ------------------------------------------------------------------------
    def rand_index(self, a: Arr) -> list[str]:
        return [str(self.r.randrange(n)) for n in a.shape]

    def host_stmt(self, ind: str) -> list[str]:
        r = self.r
        a = r.choice(self.arrays)
        ref = a.at(self.rand_index(a))
        b = r.choice(self.arrays)
        ref2 = b.at(self.rand_index(b))
        c = Ctx(ivars=[])
        self.add_read(c, b, ref2)
        self.add_read(c, a, ref)
        k = r.random()
        if k < 0.45:
            return [f"{ind}{ref} = {self.store(a.ctype, c)};"]
        if k < 0.7:
            if a.ctype in FLOAT_TYPES:
                return [f'{ind}printf("{a.name} %.9e\\n", 1.0 + fabs((double){ref}));']
            return [f'{ind}printf("{a.name} %ld\\n", (long){ref});']
        if len(a.shape) == 1:  # a host loop over a whole vector
            ch = Ctx(ivars=["h0"])
            self.add_read(ch, a, a.at(["h0"]))
            return [f"{ind}for (h0 = 0; h0 < {a.shape[0]}; h0 += {r.choice((1, 1, 2))})",
                    f"{ind}    {a.at(['h0'])} = {self.store(a.ctype, ch)};"]
        if a.ctype in FLOAT_TYPES:
            self.floaty = True
            return [f"{ind}hs += fabs((double){ref});"]
        return [f"{ind}hl += (long){ref};"]

    def items(self, ind: str, nreg: int) -> list[str]:
        out: list[str] = []
        for _ in range(nreg):
            for _ in range(self.r.choice((0, 0, 1, 2))):
                out += self.host_stmt(ind)
            out += self.region(ind)
        return out

    def init_lines(self) -> list[str]:
        out = []
        for n, a in enumerate(self.arrays):
            hs = [f"h{d}" for d in range(len(a.shape))]
            for d, (h, sz) in enumerate(zip(hs, a.shape)):
                out.append("    " * (d + 1) + f"for ({h} = 0; {h} < {sz}; {h}++)")
            lin = " + ".join(f"{h} * {self.r.randint(1, 13)}" for h in hs) + f" + {n}"
            e = {"int": f"({lin}) % 1009 - 500", "long": f"((long)({lin}) * 7919) % 100003",
                 "unsigned char": f"(unsigned char)({lin})",
                 "unsigned int": f"(unsigned int)({lin}) * 2654435761u",
                 "short": f"(short)(({lin}) % 3000 - 1500)",
                 "signed char": f"(signed char)(({lin}) % 200 - 100)",
                 "float": f"(float)(2.0 * sin(0.1 * ({lin})) + 0.5)",
                 "double": f"2.0 * cos(0.01 * ({lin})) - 0.25"}[a.ctype]
            out.append("    " * (len(hs) + 1) + f"{a.at(hs)} = {e};")
        return out

    def checksum_lines(self) -> list[str]:
        out = []
        for a in self.arrays:
            hs = [f"h{d}" for d in range(len(a.shape))]
            fl = a.ctype in FLOAT_TYPES
            out.append("    cd = 0.0;" if fl else "    cu = 0UL;")
            for d, (h, sz) in enumerate(zip(hs, a.shape)):
                out.append("    " * (d + 1) + f"for ({h} = 0; {h} < {sz}; {h}++)")
            deep = "    " * (len(hs) + 1)
            if fl:
                weight = f"(1.0 + 0.125 * (({' + '.join(hs)}) % 8))"
                out.append(deep + f"cd += fabs((double){a.at(hs)}) * {weight};")
                out.append(f'    printf("{a.name} %.9e\\n", cd);')
            else:
                out.append(deep + f"cu = cu * 1000003UL + (unsigned long)(long){a.at(hs)};")
                out.append(f'    printf("{a.name} %lu\\n", cu);')
        return out

    def render(self) -> str:
        r = self.r
        self.make_shapes()
        self.make_funcs()
        for _ in range(r.randint(0, 2)):
            if r.random() < 0.3:
                self.fp_d.append(self.scalar("float", _num(round(r.uniform(-1, 1), 3)) + "f", "c"))
                self.floaty = True
            else:
                self.fp_d.append(self.scalar("double", _num(round(r.uniform(-1, 1), 3)), "c"))
        for _ in range(r.randint(0, 2)):
            self.fp_i.append(self.scalar("int", str(r.randint(1, 9)), "c"))
            self.ivalue[self.fp_i[-1]] = int(self.scalars[-1].split("= ")[1].rstrip(";"))
        body = self.items("    ", r.choice((0, 1, 1, 2)))
        if r.random() < 0.6:
            steps = r.randint(1, 4)
            self.in_time = True
            inner = self.items("        ", r.randint(1, 3))
            if self.fp_d and r.random() < 0.5:
                fp = r.choice(self.fp_d)
                inner.append(f"        {fp} = 0.5 * {fp} + 0.0625 * t;")
            self.in_time = False
            body += [f"    for (t = 0; t < {steps}; t++) {{"] + inner + ["    }"]
        if self.n_device == 0 or r.random() < 0.3:
            body += self.items("    ", 1)
        if self.n_device == 0:
            body += self.map_region(0, "    ")
        glob, loc, heap, frees = [], [], [], []
        for a in self.arrays:
            dims = "".join(f"[{n}]" for n in a.shape)
            if a.storage == "global":
                glob.append(f"{r.choice(('static ', ''))}{a.ctype} {a.name}{dims};")
            elif a.storage == "local":
                loc.append(f"    {a.ctype} {a.name}{dims};")
            elif a.storage == "static":
                loc.append(f"    static {a.ctype} {a.name}{dims};")
            elif a.storage == "rowptr":
                rows = "".join(f"[{n}]" for n in a.shape[1:])
                heap.append(f"    {a.ctype} (*{a.name}){rows} = "
                            f"malloc((size_t){a.shape[0]} * sizeof *{a.name});")
                frees.append(f"    free({a.name});")
            else:
                alloc = r.choice(("malloc", "calloc"))
                size = " * ".join(str(n) for n in a.shape)
                call = (f"malloc((size_t){size} * sizeof({a.ctype}))" if alloc == "malloc"
                        else f"calloc((size_t){size}, sizeof({a.ctype}))")
                heap.append(f"    {a.ctype} *{a.name} = {call};")
                frees.append(f"    free({a.name});")
        tol = "1e-6" if self.floaty else "1e-9"
        lines = [f"/* ompcl-expect: device={self.n_device} host={self.n_host} tolerance={tol} */",
                 f"/* generated by ompcl.bench.fuzz, seed {self.seed} */",
                 "#include <stdio.h>", "#include <stdlib.h>", "#include <math.h>", ""]
        lines += glob + [""] + self.funcs
        lines += ["int main(void)", "{", "    int i, j, k, t, h0, h1, h2;",
                  "    double cd, hs = 0.0;", "    unsigned long cu;", "    long hl = 0;"]
        lines += self.scalars + loc + heap
        lines += ["    (void)i; (void)j; (void)k; (void)t; (void)h1; (void)h2;"]
        lines += self.init_lines() + ["    " + BODY_MARK] + body + ["    " + END_MARK]
        lines += self.checksum_lines()
        lines += ['    printf("hs %.9e hl %ld\\n", hs, hl);'] + frees + ["    return 0;", "}", ""]
        return "\n".join(lines)


def generate(seed: int) -> str:
    """The program for ``seed`` (deterministic)."""
    return Gen(seed).render()


def expectations(text: str) -> tuple[int, int, float]:
    m = META.search(text.split("\n", 1)[0])
    if not m:
        raise ValueError("missing ompcl-expect line")
    return int(m[1]), int(m[2]), float(m[3]) if m[3] else 1e-9


# ---------------------------------------------------------------------------------------------
# driver

@dataclass
class Campaign:
    """Per-campaign state: a work directory, the runtime compiled once, the cache directory."""

    work: Path
    rt_obj: Path
    rt_dir: Path
    device: bool = True  # whether the OpenCL half of the check runs


@dataclass
class Failure:
    category: str  # e.g. "mismatch:opencl", "verdict", "translate-exception:KeyError"
    detail: str


@dataclass
class Outcome:
    seed: int
    failure: Failure | None
    n_device: int = 0
    ran_on_device: int = 0
    seconds: float = 0.0
    text: str = ""


def setup(work: Path, device: bool = True) -> Campaign:
    """Snapshot the runtime (others may edit it) and compile it once."""
    work.mkdir(parents=True, exist_ok=True)
    rt_dir = work / "rt"
    rt_dir.mkdir(exist_ok=True)
    for f in ("ompcl_rt.h", "ompcl_rt.c"):
        shutil.copy(RUNTIME_DIR / f, rt_dir / f)
    obj = rt_dir / "ompcl_rt.o"
    subprocess.run(["gcc", "-O2", "-fopenmp", "-c", str(rt_dir / "ompcl_rt.c"), "-o", str(obj)],
                   check=True, capture_output=True, text=True)
    (work / "clcache").mkdir(exist_ok=True)
    return Campaign(work, obj, rt_dir, device)


def run_env(camp: Campaign, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive",
                "OMPCL_CACHE_DIR": str(camp.work / "clcache")})
    env.pop("OMPCL_LOG", None)
    env.pop("OMPCL_FAULT", None)
    env.update(extra)
    return env


def execute(exe: Path, env: dict[str, str]) -> tuple[int | None, str, str]:
    """Run exe; rc None on timeout."""
    try:
        p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT,
                           env=env, check=False)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout, p.stderr


_FLOATY = re.compile(r"[.eEnN]")


def compare(expected: str, actual: str, rtol: float) -> str | None:
    """Integers must be equal, floating-point tokens within rtol; returns why not, or None."""
    a, b = expected.split(), actual.split()
    if len(a) != len(b):
        return f"{len(a)} tokens expected, got {len(b)}"
    for n, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if not (_FLOATY.search(x) and _FLOATY.search(y)):
            return f"token {n}: expected {x!r}, got {y!r}"
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return f"token {n}: expected {x!r}, got {y!r}"
        err = abs(fx - fy) / max(abs(fx), abs(fy), 1e-300)
        if not err <= rtol:
            return f"token {n}: expected {x}, got {y} (relative error {err:.3g} > {rtol:g})"
    return None


def _gcc(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", "-std=gnu99", "-O2", "-fopenmp", *args], capture_output=True,
                          text=True, check=False)


def reference(src: Path, d: Path, camp: Campaign) -> tuple[Failure | None, str]:
    exe = d / "ref"
    p = _gcc([str(src), "-o", str(exe), "-lm"])
    if p.returncode != 0:
        return Failure("generator:gcc", p.stderr[-2000:]), ""
    rc, out, err = execute(exe, run_env(camp))
    if rc != 0:
        return Failure("generator:ref-run", f"rc={rc} {err[-500:]}"), ""
    return None, out


def translated(src: Path, d: Path, camp: Campaign, n_dev: int,
               n_host: int) -> tuple[Failure | None, Path]:
    from ompcl.outputs import output_names, write_outputs
    from ompcl.pipeline import translate
    try:
        t = translate(str(src))
    except Exception as e:  # noqa: BLE001 - any compiler exception is a finding
        return Failure(f"translate-exception:{type(e).__name__}", str(e)[:2000]), d
    if len(t.offloaded) != n_dev:
        why = [f"line {r.loc.line}: {'; '.join(x.message for x in r.reasons)}" for r in t.regions if not r.offload]
        return Failure("verdict", f"{len(t.offloaded)} offloaded, expected {n_dev}: {why}"), d
    host = [m for m in t.remarks if m.missed]
    if len(host) != n_host:
        return Failure("verdict-host", f"{len(host)} host remarks, expected {n_host}: "
                                       f"{[m.format() for m in host]}"), d
    out = d / "out"
    try:
        write_outputs([t], out)
    except Exception as e:  # noqa: BLE001
        return Failure(f"write-exception:{type(e).__name__}", str(e)), d
    shutil.copy(camp.rt_dir / "ompcl_rt.h", out / "ompcl_rt.h")
    exe = d / "translated"
    p = _gcc([f"-I{out}", str(output_names(t, out)["host"]), str(camp.rt_obj), "-o", str(exe),
              "-lm", "-ldl"])
    if p.returncode != 0:
        return Failure("host-build", p.stderr[-3000:]), d
    return None, exe


def run_mode(exe: Path, d: Path, camp: Campaign, mode: str, ref: str, rtol: float,
             n_dev: int) -> tuple[Failure | None, int]:
    stats = d / f"stats_{mode}.json"
    rc, out, err = execute(exe, run_env(camp, OMPCL_DEVICE=mode, OMPCL_STATS=str(stats)))
    if rc is None:
        return Failure(f"timeout:{mode}", f"no exit within {RUN_TIMEOUT:g} s"), 0
    if rc != 0:
        return Failure(f"exit:{mode}", f"exit code {rc}: {err[-1500:]}"), 0
    why = compare(ref, out, rtol)
    if why:
        return Failure(f"mismatch:{mode}", why), 0
    try:
        st = json.loads(stats.read_text())
    except (OSError, ValueError) as e:
        return Failure(f"stats:{mode}", f"unreadable statistics: {e}"), 0
    regions = st.get("regions", [])
    on_dev = [r for r in regions if r["device_runs"] > 0]
    if mode == "openmp" and on_dev:
        return Failure("placement:openmp",
                       f"ran on the device under OMPCL_DEVICE=openmp: {on_dev}"), 0
    if mode == "opencl":
        if not st["device"]["available"]:
            return Failure("no-device", "OpenCL device not available"), 0
        bad = [r for r in on_dev if r["fallback"] is not None or r["host_runs"] != 0]
        if len(on_dev) != n_dev or bad:
            return Failure("placement:opencl", f"{len(on_dev)} regions ran on the device, "
                                               f"expected {n_dev}: {regions}"), 0
    return None, len(on_dev)


def check(text: str, camp: Campaign, modes: tuple[str, ...] = MODES) -> tuple[Failure | None, int]:
    """Build and run one program every way; the first failure found, and the number of regions
    that ran on the device under OMPCL_DEVICE=opencl."""
    n_dev, n_host, rtol = expectations(text)
    d = Path(tempfile.mkdtemp(dir=camp.work, prefix="p"))
    try:
        src = d / "fuzz.c"
        src.write_text(text)
        fail, ref = reference(src, d, camp)
        if fail:
            return fail, 0
        fail, exe = translated(src, d, camp, n_dev, n_host)
        if fail:
            return fail, 0
        ran = 0
        for mode in modes:
            if mode == "opencl" and not camp.device:
                continue
            fail, k = run_mode(exe, d, camp, mode, ref, rtol, n_dev)
            if fail:
                return fail, 0
            ran = max(ran, k) if mode == "opencl" else ran
        return None, ran
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fuzz_one(seed: int, camp: Campaign) -> Outcome:
    t0 = time.monotonic()
    text = generate(seed)
    fail, ran = check(text, camp)
    return Outcome(seed, fail, expectations(text)[0], ran, time.monotonic() - t0,
                   text if fail else "")


# ---------------------------------------------------------------------------------------------
# minimisation

def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def unit_end(lines: list[str], i: int) -> int:
    """End (exclusive) of the statement starting at line i: pragmas, the statement, the lines
    indented deeper than it (pragmas count as part of what follows) and its closing brace."""
    j = i
    while j < len(lines) and lines[j].startswith("#pragma"):
        j += 1
    if j >= len(lines):
        return j
    ind, k = _indent(lines[j]), j + 1
    while k < len(lines) and (lines[k].startswith("#pragma") or not lines[k].strip()
                              or _indent(lines[k]) > ind):
        k += 1
    while k > j + 1 and lines[k - 1].startswith("#pragma"):
        k -= 1
    if lines[j].rstrip().endswith("{") and k < len(lines) and lines[k].strip() == "}" \
            and _indent(lines[k]) == ind:
        k += 1
    return k


def recount(text: str) -> str:
    """Recompute the device/host counts of the metadata line from the program's pragmas."""
    lines = text.split("\n")
    dev = host = 0
    for i, ln in enumerate(lines):
        if re.match(r"#pragma omp parallel\b", ln):
            unit = "\n".join(lines[i:unit_end(lines, i)])
            if "critical" in unit or "atomic" in unit:
                host += 1
            else:
                dev += 1
    lines[0] = re.sub(r"device=\d+ host=\d+", f"device={dev} host={host}", lines[0])
    return "\n".join(lines)


def candidates(lines: list[str]):
    """Smaller variants of the program: statements deleted, pragmas dropped, loops unwrapped,
    clauses whose variable is no longer used removed."""
    try:
        lo = next(i for i, ln in enumerate(lines) if BODY_MARK in ln) + 1
    except StopIteration:
        return
    hi = next((i for i, ln in enumerate(lines) if ln.strip().startswith("free(")), len(lines) - 3)
    for i in range(lo, hi):
        ln = lines[i]
        if ln.strip() in ("}", "{", "") or END_MARK in ln:
            continue
        if i > lo and lines[i - 1].startswith("#pragma") and not ln.startswith("#pragma"):
            continue
        end = unit_end(lines, i)
        prev = i - 1
        while prev > 0 and lines[prev].startswith("#pragma"):
            prev -= 1
        body_of_header = (not lines[prev].rstrip().endswith((";", "{", "}", "*/"))
                          and _indent(lines[prev]) < _indent(ln))
        if not body_of_header:  # never leave a for/if/else without its statement
            yield lines[:i] + lines[end:]
        if ln.startswith("#pragma omp parallel"):
            j = i
            while j < end and lines[j].startswith("#pragma"):
                j += 1
            rest = [x for x in lines[j:end] if not x.startswith("#pragma omp for")]
            yield lines[:i] + rest + lines[end:]
            for cl in re.findall(r"\b(?:reduction|private|lastprivate|firstprivate)\([^)]*\)", ln):
                names = re.findall(r"\w+", cl.split("(", 1)[1].split(":")[-1])
                body = "\n".join(lines[j:end])
                if not any(re.search(rf"\b{n}\b", body) for n in names):
                    yield lines[:i] + [ln.replace(" " + cl, "")] + lines[i + 1:]
        elif ln.strip().startswith("for (t ") and ln.rstrip().endswith("{"):
            inner = [x if x.startswith("#") else x[4:] for x in lines[i + 1:end - 1]]
            yield lines[:i] + inner + lines[end:]


def minimise(text: str, fail: Failure, camp: Campaign, budget_s: float = 240.0) -> str:
    """Greedy deletion while the program stays valid and fails the same way."""
    mode = fail.category.split(":")[-1]
    modes = (mode,) if mode in MODES else ("opencl",) if fail.category.startswith(
        ("placement:opencl", "stats")) else MODES if fail.category.startswith("exit") else ()
    if fail.category.startswith(("verdict", "translate", "host-build", "write")):
        modes = ()
    deadline = time.monotonic() + budget_s
    lines = text.split("\n")
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for cand in candidates(lines):
            if time.monotonic() > deadline:
                break
            ctext = recount("\n".join(cand))
            if any(len(re.findall(rf"\b{f}\(", ctext)) < 2
                   for f in re.findall(r"static void (kf\d+)\(", ctext)):
                continue  # a helper whose region would never run
            f, _ = check(ctext, camp, modes)
            if f is not None and f.category == fail.category:
                lines, progress = ctext.split("\n"), True
                break
    return "\n".join(lines)


def save(text: str, seed: int, fail: Failure, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    lines = text.split("\n")
    detail = fail.detail.replace("*/", "* /").replace("\n", " ")[:300]
    lines[1] = f"/* fuzz seed {seed}: {fail.category}: {detail} */"
    path = out / f"fuzz_{seed}.c"
    path.write_text("\n".join(lines))
    return path


def _minimise_job(args: tuple[Outcome, Campaign, Path]) -> Path:
    o, camp, out = args
    assert o.failure is not None
    return save(minimise(o.text, o.failure, camp), o.seed, o.failure, out)


# ---------------------------------------------------------------------------------------------
# command line

def probe_device(camp: Campaign) -> bool:
    """Whether the runtime finds an OpenCL device (one tiny translated program)."""
    text = ("/* ompcl-expect: device=1 host=0 */\n#include <stdio.h>\nint a[100];\n"
            "int main(void)\n{\n    int i;\n#pragma omp parallel for\n"
            "    for (i = 0; i < 100; i++)\n"
            "        a[i] = i;\n    printf(\"%d\\n\", a[99]);\n    return 0;\n}\n")
    fail, ran = check(text, camp, ("opencl",))
    return fail is None and ran == 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ompcl.bench.fuzz", description=__doc__)
    ap.add_argument("--count", type=int, default=100, help="programs to generate")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first program")
    ap.add_argument("--jobs", type=int, default=2, help="programs checked in parallel")
    ap.add_argument("--keep-going", action="store_true", help="do not stop at the first failure")
    ap.add_argument("--out", type=Path, default=REGRESSIONS, help="where minimised failures go")
    ap.add_argument("--minimise", type=int, default=3, metavar="K",
                    help="minimise at most K failures per category (0: none)")
    ap.add_argument("--work", type=Path, default=None, help="work directory (default: a temp dir)")
    args = ap.parse_args(argv)
    from tqdm import tqdm

    work = args.work or Path(tempfile.mkdtemp(prefix="ompcl-fuzz-"))
    camp = setup(work)
    camp.device = probe_device(camp)
    if not camp.device:
        print("fuzz: no OpenCL device found: the OpenCL runs are skipped", file=sys.stderr)
    t0 = time.monotonic()
    failures: list[Outcome] = []
    done = 0
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(fuzz_one, args.seed + n, camp) for n in range(args.count)]
        bar = tqdm(total=args.count, unit="prog", file=sys.stderr)
        try:
            for fut in as_completed(futs):
                o = fut.result()
                done += 1
                bar.update(1)
                if o.failure:
                    failures.append(o)
                    raw = work / "failures" / f"fuzz_{o.seed}.c"
                    raw.parent.mkdir(exist_ok=True)
                    raw.write_text(o.text)
                    tqdm.write(f"seed {o.seed}: {o.failure.category}: {o.failure.detail[:300]}",
                               file=sys.stderr)
                    bar.set_postfix(failures=len(failures))
                    if not args.keep_going:
                        for f in futs:
                            f.cancel()
                        break
        finally:
            bar.close()
        picked, per_cat = [], {}
        for o in sorted(failures, key=lambda o: o.seed):
            cat = o.failure.category
            if per_cat.get(cat, 0) < args.minimise:
                per_cat[cat] = per_cat.get(cat, 0) + 1
                picked.append((o, camp, args.out))
        for path in pool.map(_minimise_job, picked):
            print(f"minimised: {path}", file=sys.stderr)
    cats: dict[str, int] = {}
    for o in failures:
        cats[o.failure.category] = cats.get(o.failure.category, 0) + 1
    if failures:
        print(f"unminimised failing programs: {work / 'failures'}", file=sys.stderr)
        for c, n in sorted(cats.items()):
            print(f"  {c}: {n}", file=sys.stderr)
    elif args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{done} programs, {len(failures)} mismatches ({time.monotonic() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
