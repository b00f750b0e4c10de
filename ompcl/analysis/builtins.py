"""The C library functions a kernel may call, with their OpenCL built-in spelling."""
from __future__ import annotations

from pycparser import c_ast

from ..frontend.setaside import TYPEOF
from .ctypes_ import c_text

_DOUBLE_1 = ["sqrt", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
             "asinh", "acosh", "atanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
             "fabs", "floor", "ceil", "round", "trunc", "rint", "erf", "erfc", "tgamma", "lgamma",
             "logb"]
_DOUBLE_2 = ["pow", "atan2", "fmod", "fmin", "fmax", "hypot", "copysign", "fdim", "remainder",
             "nextafter"]

#: C name -> (OpenCL name, argument cast or None)
MATH: dict[str, tuple[str, str | None]] = {}
for _f in _DOUBLE_1 + _DOUBLE_2:
    MATH[_f] = (_f, "double")
    MATH[_f + "f"] = (_f, "float")
MATH.update({"fma": ("fma", "double"), "fmaf": ("fma", "float"), "ldexp": ("ldexp", None),
             "abs": ("abs", None), "labs": ("abs", None), "llabs": ("abs", None),
             "exp10": ("exp10", "double"), "rsqrt": ("rsqrt", "double"),
             "nearbyint": ("rint", "double"), "nearbyintf": ("rint", "float"),
             # rounding to an integer: macros of the kernel program (kernels.cl.j2)
             "lround": ("ompcl_lround", "double"), "llround": ("ompcl_lround", "double"),
             "lroundf": ("ompcl_lround", "float"), "llroundf": ("ompcl_lround", "float"),
             "lrint": ("ompcl_lrint", "double"), "llrint": ("ompcl_lrint", "double"),
             "lrintf": ("ompcl_lrint", "float"), "llrintf": ("ompcl_lrint", "float"),
             # what glibc's isnan/isfinite macros expand to without GNU C
             "__isnan": ("isnan", "double"), "__isnanf": ("isnan", "float"),
             "__finite": ("isfinite", "double"), "__finitef": ("isfinite", "float"),
             "__isnanl": ("isnan", "double"), "__finitel": ("isfinite", "double"),
             # and signbit/isinf: macros of the kernel program with the host compile's values
             # (an infinity's sign; gcc's signbit of a float is INT_MIN)
             "__signbit": ("ompcl_signbit", "double"), "__signbitl": ("ompcl_signbit", "double"),
             "__signbitf": ("ompcl_signbitf", "float"), "__isinf": ("ompcl_isinf", "double"),
             "__isinff": ("ompcl_isinf", "float"), "__isinfl": ("ompcl_isinf", "double"),
             # a second result through a pointer (OpenCL's take any address space)
             "frexp": ("frexp", None), "frexpf": ("frexp", None), "modf": ("modf", None),
             "modff": ("modf", None)})
#: GNU C's bit counts and branch hint (``codegen.cprinter`` spells them: OpenCL's popcount
#: and clz return the argument's type, C's an int)
for _b in ("popcount", "clz", "ctz"):
    for _w in ("", "l", "ll"):
        MATH[f"__builtin_{_b}{_w}"] = (_b, None)
MATH["__builtin_expect"] = ("", None)
#: a failed assert of a kernel (``analysis.memcalls``; a site of ``transform.boundscheck``)
ASSERT = "ompcl_assert"
MATH[ASSERT] = (ASSERT, None)
#: bit reads of type-punned elements (``analysis.puns``): macros of the kernel program
for _t in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong"):
    for _s in ("float", "double", "int", "uint", "long", "ulong"):
        MATH[f"ompcl_bits_{_t}_{_s}"] = (f"ompcl_bits_{_t}_{_s}", None)

#: calls that make a loop stay on the host, with the reason shown to the user (a user
#: function named like a prefix, such as NPB's randlc, is not one of them)
HOST_ONLY = {"printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "putchar",
             "fputs", "fputc", "putc", "fwrite", "fread", "fopen", "fclose", "fflush", "scanf",
             "fscanf", "sscanf", "getchar", "malloc", "calloc", "realloc", "free", "rand", "srand",
             "rand_r", "random", "drand48", "exit", "abort", "assert", "__assert_fail",
             "memcpy", "memmove", "memset", "strlen", "strcpy", "strcmp", "time", "clock",
             "gettimeofday", "sleep", "usleep", "system", "perror"}


def is_math(name: str) -> bool:
    return name in MATH


#: stand-ins the front end writes for GNU C the parser cannot read (``frontend.parse``)
_STAND_INS = {"__ompcl_elvis": "uses GNU's conditional without a middle operand ('x ?: y')",
              "__ompcl_imaginary": "uses an imaginary constant (complex.h's 'I', GNU's '2.0i')",
              "__ompcl_stmt_expr": "uses a GNU statement expression ('({ ... })')",
              "__ompcl_asm": "holds an asm statement",
              "__ompcl_generic": "uses a '_Generic' selection"}


def is_stand_in(name: str) -> bool:
    return name in _STAND_INS


def typeof_reason(name: str, decl_type: c_ast.Node | None) -> str | None:
    """Why a variable declared ``decl_type`` stays off the device when its type is GNU's
    ``typeof``/``__auto_type`` read as a stand-in (``frontend.setaside``); else None."""
    if decl_type is None or TYPEOF not in c_text(decl_type):
        return None
    return (f"'{name}' is declared with GNU's typeof or __auto_type, whose type ompcl does "
            "not work out")


#: calls ``analysis.memcalls`` runs on the device in some forms: why the others stay
_LOWERED_ONLY = {
    "memset": "with a value other than 0 for elements that are not char",
    "memcpy": "", "memmove": "between memory that may overlap in an unknown direction",
    "__assert_fail": ""}


def host_only_reason(name: str) -> str:
    short = name.replace("__builtin_", "")
    if short == "__assert_fail":
        return ("asserts in a function the loop calls (a kernel checks asserts in the loop "
                "body itself)")
    if short in _LOWERED_ONLY:
        why = _LOWERED_ONLY[short] + " or " if _LOWERED_ONLY[short] else ""
        return (f"calls '{name}' {why}in a form ompcl does not run on the device (it does "
                "a statement whose byte count is a whole number of the elements its pointer "
                "arguments point to, such as n * sizeof(double) or sizeof a, on arrays of "
                "scalars, or plain structs for memcpy)")
    if name.startswith("omp_"):
        return f"calls the OpenMP runtime function '{name}'"
    if name in _STAND_INS:
        return _STAND_INS[name]
    return f"calls '{name}', which has no OpenCL device version"


def is_host_only(name: str) -> bool:
    return name in HOST_ONLY or name.startswith(("omp_", "__builtin_", "pthread_"))
