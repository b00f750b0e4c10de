"""Generator, part 1: the program's data (arrays, loops) and random expressions over it.

Consumes a random stream and what a loop body may read (a ``Ctx``); produces C expression text
whose values stay bounded (integers well inside ``int``, doubles of magnitude ~30 at most).
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

INT_TYPES = ("int", "long", "unsigned char", "unsigned int", "short", "signed char")
FLOAT_TYPES = ("float", "double")
PRIMES = (2, 3, 5, 7, 11, 13, 17, 31, 61, 97, 127, 131, 193, 251, 257, 293)
COEFS = (0.5, 0.25, -0.25, 0.125, -0.375, 0.3, -0.5, 0.0625)


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



class Exprs:
    """Random int, long and double expressions (a mixin of the generator: it reads the random
    stream ``r``, the helper functions and the loop-invariant scalars of the program)."""

    r: random.Random
    ifuncs: list[str]
    dfuncs: list[str]
    fp_i: list[str]
    fp_d: list[str]
    in_time: bool

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

