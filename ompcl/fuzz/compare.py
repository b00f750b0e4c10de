"""The output comparator, shared by the fuzzer and the test suite (``tests/conftest.py``).

Consumes two program outputs and a relative tolerance; produces a ``Comparison``: whether they
agree token by token (integers and words exactly, floating-point numbers within the tolerance),
why not, and the largest relative error seen between floating-point tokens.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

_INT = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?(inf|infinity|nan)", re.I)
ABS_FLOOR = 1e-300  # relative errors are taken against max(|x|, |y|, ABS_FLOOR)


@dataclass(frozen=True)
class Comparison:
    """Result of comparing an expected output with an actual one."""

    ok: bool
    message: str = ""  # empty when ok; otherwise the first difference, with its token number
    worst: float = 0.0  # the largest relative error between floating-point tokens

    def __bool__(self) -> bool:
        return self.ok


def is_float_token(tok: str) -> bool:
    """A number written as floating point (a dot, an exponent, inf or nan); not an integer."""
    return _FLOAT.fullmatch(tok) is not None and _INT.fullmatch(tok) is None


def relative_error(x: float, y: float) -> float:
    """|x - y| relative to the larger magnitude; NaN equals NaN (of either sign), inf only inf
    of the same sign."""
    if math.isnan(x) or math.isnan(y):
        return 0.0 if math.isnan(x) and math.isnan(y) else math.inf
    if math.isinf(x) or math.isinf(y):
        return 0.0 if x == y else math.inf
    return abs(x - y) / max(abs(x), abs(y), ABS_FLOOR)


def _context(tokens: list[str], n: int) -> str:
    return " ".join(tokens[max(0, n - 3):n + 1])


def compare_outputs(expected: str, actual: str, rtol: float) -> Comparison:
    """Compare two outputs token by token (whitespace-separated).

    Integer tokens and words must be equal; floating-point tokens must agree within ``rtol``
    (relative). A different token count is a difference."""
    a, b = expected.split(), actual.split()
    worst = 0.0
    for n, (x, y) in enumerate(zip(a, b)):
        if x == y:
            continue
        if not (is_float_token(x) and is_float_token(y)):
            return Comparison(False, f"token {n}: expected {x!r}, got {y!r} "
                                     f"(after '{_context(a, n - 1)}')", worst)
        err = relative_error(float(x), float(y))
        worst = max(worst, err)
        if not err <= rtol:
            return Comparison(False, f"token {n}: expected {x}, got {y} (relative error "
                                     f"{err:.3g} > {rtol:g}; after '{_context(a, n - 1)}')",
                              worst)
    if len(a) != len(b):
        return Comparison(False, f"{len(a)} tokens expected, got {len(b)} (first extra: "
                                 f"{(a if len(a) > len(b) else b)[min(len(a), len(b))]!r})",
                          worst)
    return Comparison(True, "", worst)
