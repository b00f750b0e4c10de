"""Index narrowing: a region's canonical loops (``LoopDim`` s) -> the facts kernel shapes need
about their iteration counters: the constant step of each loop (so the device compiler sees a
unit-stride induction variable it can vectorise) and whether every counter and loop-variable
value provably fits in 32 bits (so a GPU shape can count with ``int``, half the registers
and instructions of 64-bit arithmetic there).

Only integer constant expressions count as proof (literals and ``+ - *`` after macro
expansion); anything known only at run time keeps 64-bit counters.
"""
from __future__ import annotations

from ..analysis.loops import const_int
from ..ir import LoopDim

#: counters, their sum with the launch's global size and the loop variables' values must stay
#: below this (2^31 with a factor of two to spare for the grid stride's last increment)
NARROW_LIMIT = 1 << 30


def constant_step(loop: LoopDim) -> int | None:
    """The loop's step when it is an integer constant expression, else None."""
    return const_int(loop.step)


def _trip(lb: int, ub: int, step: int, op: str) -> int:
    """Iteration count of a canonical loop with constant parts (ompcl_trip of the runtime)."""
    if op in ("<", "<="):
        span = ub - lb + (1 if op == "<=" else 0)
        return max(0, (span + step - 1) // step)
    span = lb - ub + (1 if op == ">=" else 0)
    return max(0, (span - step - 1) // -step)


def constant_trip(loop: LoopDim) -> int | None:
    """The loop's iteration count when its bounds and step are constant, else None."""
    lb, ub, step = const_int(loop.lb), const_int(loop.ub), constant_step(loop)
    if None in (lb, ub, step) or step == 0 or (step > 0) != (loop.op in ("<", "<=")):
        return None
    return _trip(lb, ub, step, loop.op)


def fits_32_bits(loops: tuple[LoopDim, ...]) -> bool:
    """True when the collapsed iteration space, each counter and each loop variable's values
    (from the first to one step past the last) are provably below ``NARROW_LIMIT``."""
    total = 1
    for loop in loops:
        trip, lb, step = constant_trip(loop), const_int(loop.lb), constant_step(loop)
        if trip is None or lb is None or step is None:
            return False
        total *= max(trip, 1)
        if abs(lb) + (trip + 1) * abs(step) >= NARROW_LIMIT:
            return False
    return total < NARROW_LIMIT
