"""Generator: random, valid, deterministic OpenMP C programs (stage 1 of the fuzzer).

Consumes a seed (and the loop families to draw from); produces the program's text. Its first
line says how many loops ompcl is expected to offload and to keep on the host, and the output
tolerance (``/* ompcl-expect: device=N host=M tolerance=T */``); each OpenMP loop is preceded by
a marker naming its families (``/* ompcl-loop: guarded,map */``). Whether a loop is expected on
the device follows from ``OFFLOADED``: all of its families must be offloaded.

Every program is valid C99 with OpenMP 3.1, warning-free under gcc -Wall, free of data races and
gives the same output with any number of OpenMP threads (within the tolerance), by construction.
The parts: ``gen_exprs`` (data, expressions), ``gen_loops`` (the loops offloaded today),
``gen_extents`` (issue 15: extents from loop-body variables), ``gen_regions`` (issue 9:
parallel regions, orphaned loops, threadprivate, atomic, structs), ``gen_pointers`` (issue 37:
pointer trees, member chains of structs holding pointers).
"""
from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable

from .gen_exprs import FLOAT_TYPES, PRIMES, Arr, Ctx, _num
from .gen_loops import MARKER
from .gen_folds import FOLD_FAMILIES
from .gen_offload import OFFLOAD_FAMILIES
from .gen_regions import Regions

# THE feature table: whether ompcl is expected to offload a loop of each family. A loop belongs
# to several families (e.g. a guarded loop inside a parallel region); it is expected on the
# device when all of them are offloaded. Flip an entry when support lands.
OFFLOADED: dict[str, bool] = {
    # offloaded today
    "map": True,  # element-wise loop nests (gen_loops)
    "reduction": True,  # ... with reduction clauses
    "rowreduce": True,  # a private accumulator per row
    "func": True,  # in a helper function, arrays as pointer parameters
    # issue 15: extents from loop-body variables (offloaded once the fix lands)
    "body_local": True,  # p[k] with k = i * M + j a body-local or private scalar
    "shadowing": True,  # { int j = 3; a[i * 4 + j] } with an unrelated outer j
    "pointer_offset": True,  # q = p + off before the loop, q[i] in it
    "guarded": True,  # if (i > 0) ... a[i - 1], ternaries, && guards
    # issue 9: parallel-region coverage; a region's loops run on the device only together
    # (the region runs as a team of one), so one host loop keeps its whole team on the host
    "parallel_region": True,  # omp for loops in a parallel region with other statements
    "region_reduction": True,  # reduction on an omp for inside such a region
    "orphaned": True,  # omp for in a callee called from a parallel region
    "threadprivate": True,  # threadprivate scratch arrays, copyin
    "atomic": True,  # omp atomic updates (histograms)
    "struct": True,  # arrays of structs
    "rows": True,  # rows read and written element by element (register promotion, vectors)
    # translated, but a run-time check keeps it on the host (oracle.check_placement)
    "declined": True,  # threadprivate scratch read one past what each iteration writes
    # issue 34: privatised file-scope and extern data, firstprivate arrays, host loops with
    # reductions on locals beside offloaded ones in one region
    "team_sharing": True,
    # issue 37: pointer trees (double **, double ***) gathered into staging blocks, derived
    # row pointers; loop-invariant member chains of structs holding pointers, structs passed
    # to callees (a tree sharing a written tree's rows, a null pointer on a chain: declined)
    "tree": True,
    "member_chain": True,
    # a derived row pointer declared in an inner loop's body (double *row = u[i][j] in the
    # j loop of a double *** tree): analysis.derived, block by block
    "tree_inner_row": True,
    # the coverage commits (gen_offload): GNU atomic builtins, atomic captures (counting-sort
    # scatters), linear(j:s), firstprivate with lastprivate and lastprivate in an inner loop,
    # target constructs, memset/memcpy/memmove and assert, GNU C types and tables
    "gnu_atomics": True,
    "captures": True,
    "linear": True,
    "privates": True,
    "target": True,
    # a target region's teams loop whose reduction or lastprivate the target does not map
    # (firstprivate to the target: gcc's host fallback does not write it back)
    "target_unmapped": False,
    "memcalls": True,
    "gnu_types": True,
    # reductions written by hand in a parallel region (gen_folds, opt-in): partials of the
    # threads folded by omp for loops, merged under critical, atomic, reduction clauses
    "folds": True,
    # ... its region kept on the host today by analysis.replicated: a count of the threads, a
    # partial read, changed outside its loops, folded with two operators, passed by address,
    # or starting elsewhere than at the identity of its (idempotent) operator
    "fold_replicated": False,
    "fold_callee": False,  # ... merged in a callee through a pointer (an update in a callee)
    "fold_spelling": False,  # ... a partial of & starting at 0xffffffffu (not read as ~0)
    "fold_private": False,  # the loop reading a partial (it carries a value)
    # kept on the host by design
    "critical": False,
    # issue 37: its region asks for its team size in a single; the team of one answers as
    # the host's team would
    "observed": True,
}
# the families a generator may choose a region for (the others come with them)
NEW_FAMILIES = ("body_local", "shadowing", "pointer_offset", "guarded", "parallel_region",
                "region_reduction", "orphaned", "threadprivate", "atomic", "struct", "rows",
                "team_sharing", "tree", "member_chain")
#: the opt-in families ``--families coverage`` names (gen_offload)
COVERAGE_FAMILIES = OFFLOAD_FAMILIES
#: families generated only when named (``--families``): the default programs stay as they were
OPT_IN_FAMILIES = OFFLOAD_FAMILIES + FOLD_FAMILIES
KNOWN_FAMILIES = NEW_FAMILIES + OPT_IN_FAMILIES
#: the line before a program's second file (definitions of its extern variables)
SECOND_FILE = "/* ompcl-file: second.c */"
BODY_MARK = "/* -- body -- */"
END_MARK = "/* -- checksums -- */"
META = re.compile(r"ompcl-expect:\s*device=(\d+)\s+host=(\d+)(?:\s+tolerance=(\S+))?")
LOOP_MARK = re.compile(r"^/\* ompcl-loop: ([\w,]+) \*/$", re.M)


TEAM_TAG = re.compile(r"^team\d+$")  # the loops of one parallel region share a tag


def expected_on_device(fams: Iterable[str]) -> bool:
    """Whether a loop of these families is expected on the device (per OFFLOADED), its team
    aside."""
    return all(OFFLOADED[f] for f in fams if not TEAM_TAG.match(f))


def _device_marks(text: str) -> tuple[list[list[str]], int]:
    """The families of the loops expected on the device (a loop of a team goes there only if
    some loop of its team can: the team of one runs the others as parallel loops of their
    own), and the number of loops."""
    marks = [m[1].split(",") for m in LOOP_MARK.finditer(text)]
    team_ok: dict[str, bool] = {}
    for fams in marks:
        for tag in filter(TEAM_TAG.match, fams):
            team_ok[tag] = team_ok.get(tag, False) or expected_on_device(fams)
    return [fams for fams in marks if expected_on_device(fams)
            and all(team_ok[t] for t in filter(TEAM_TAG.match, fams))], len(marks)


def count(text: str) -> tuple[int, int]:
    """(loops expected on the device, on the host) from the loop markers."""
    dev, n = _device_marks(text)
    return len(dev), n - len(dev)


def declined(text: str) -> int:
    """Loops expected on the device whose run-time scratch check declines every time."""
    return sum(1 for fams in _device_marks(text)[0] if "declined" in fams)


class Generator(Regions):
    """Builds one program from a seed; ``render()`` returns its text. ``families``: the new
    families (NEW_FAMILIES) it may choose regions for; none gives the shapes of the old fuzzer
    (in a different random stream)."""

    def __init__(self, seed: int, families: Iterable[str] = NEW_FAMILIES):
        self.r = random.Random(seed)
        self.seed = seed
        self.enabled = frozenset(families)
        unknown = self.enabled - set(KNOWN_FAMILIES)
        if unknown:
            raise ValueError(f"unknown families: {sorted(unknown)}")
        if self.enabled and self.enabled <= set(OPT_IN_FAMILIES):
            self.family_share = 0.85  # (the default programs draw as they did)
        self.extra_families: set[str] = set()  # added to every loop made (e.g. func)
        self.orphan = False  # loops made now are orphaned in a callee: no private clauses
        self.decl_global: list[str] = []  # more file-scope declarations (types, threadprivate)
        self.decl_local: list[str] = []  # more declarations in main
        self.second_file: list[str] = []  # the program's second file (SECOND_FILE)
        self.init_extra: list[str] = []  # more initialisation in main
        self.check_extra: list[str] = []  # more checksum lines
        self.frees_extra: list[str] = []
        self.misc_names: list[str] = []  # main-scope variables besides arrays and scalars
        self.nnames = 0
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

    def expect_device(self, fams: set[str]) -> bool:
        return expected_on_device(fams)

    def fresh(self, prefix: str) -> str:
        """A new identifier."""
        self.nnames += 1
        return f"{prefix}{self.nnames - 1}"

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

    def new_array(self, s: int, storage: str = "") -> Arr:
        r = self.r
        shape = self.shapes[s]
        ctype = r.choice(("int", "long", "float", "double", "double", "unsigned char",
                          "unsigned int", "int", "short", "signed char"))
        storage = storage or r.choice(("global", "local", "static", "heap", "heap") +
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
        if self.n_device == 0 or count("\n".join(body))[0] == 0:
            body += self.place(self.map_spec(0), "    ")
        if "rows" in self.enabled:
            body += self.rows_region("    ")
        body += self.pointer_regions("    ")
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
                 f"/* generated by ompcl.fuzz, seed {self.seed} */",
                 "#include <stdio.h>", "#include <stdlib.h>", "#include <math.h>", ""]
        lines += self.decl_global + glob + [""] + self.funcs
        lines += ["int main(void)", "{", "    int i, j, k, t, h0, h1, h2;",
                  "    double cd = 0.0, hs = 0.0;", "    unsigned long cu = 0UL;",
                  "    long hl = 0;"]
        lines += self.scalars + loc + heap + self.decl_local
        # every scalar and helper may go unused in a given program (gcc -Wall)
        used = ["i", "j", "k", "t", "h0", "h1", "h2", "cd", "cu"]
        used += [x.split(" = ")[0].split()[-1] for x in self.scalars]
        used += self.dfuncs + self.ifuncs + list(self.tp_names or ())
        lines += [f"    {' '.join(f'(void){u};' for u in used[n:n + 8])}"
                  for n in range(0, len(used), 8)]
        lines += (self.init_lines() + self.init_extra + ["    " + BODY_MARK] + body +
                  ["    " + END_MARK])
        lines += self.checksum_lines() + self.check_extra
        lines += ['    printf("hs %.9e hl %ld\\n", hs, hl);'] + frees + self.frees_extra
        lines += ["    return 0;", "}", ""]
        if self.second_file:
            lines += [SECOND_FILE] + self.second_file + [""]
        return recount("\n".join(lines))


def generate(seed: int, families: Iterable[str] = NEW_FAMILIES) -> str:
    """The program for ``seed`` (deterministic)."""
    return Generator(seed, families).render()


def expectations(text: str) -> tuple[int, int, float]:
    """(loops expected on the device, on the host, output tolerance) from the first line."""
    m = META.search(text.split("\n", 1)[0])
    if not m:
        raise ValueError("missing ompcl-expect line")
    return int(m[1]), int(m[2]), float(m[3]) if m[3] else 1e-9


def families(text: str) -> list[str]:
    """The family of every loop of a program, from its markers (one entry per loop and family)."""
    return [f for m in LOOP_MARK.finditer(text) for f in m[1].split(",")
            if not TEAM_TAG.match(f)]


def recount(text: str) -> str:
    """The program with its metadata line recomputed from its loop markers (after the reducer
    deleted some loops)."""
    dev, host = count(text)
    first, _, rest = text.partition("\n")
    first = re.sub(r"device=\d+ host=\d+", f"device={dev} host={host}", first)
    return first + "\n" + rest


__all__ = ["OFFLOADED", "NEW_FAMILIES", "KNOWN_FAMILIES", "OPT_IN_FAMILIES", "MARKER",
           "COVERAGE_FAMILIES",
           "Generator", "generate", "expectations", "families", "recount", "expected_on_device"]
