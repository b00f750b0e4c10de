"""The output comparator shared by the fuzzer and the test suite: two program outputs, token by
token; integers must be equal, floating-point numbers within a relative tolerance."""
from __future__ import annotations

import re

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
