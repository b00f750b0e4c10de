"""Generator, part 4 (issue 9): parallel regions, orphaned loops, threadprivate, atomic, structs.
"""
from __future__ import annotations

from .gen_extents import Extents


class Regions(Extents):
    """Issue-9 shapes (a mixin of the generator)."""
