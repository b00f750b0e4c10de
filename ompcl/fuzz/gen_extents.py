"""Generator, part 3 (issue 15): loops whose pointer extents come from loop-body variables.
"""
from __future__ import annotations

from .gen_loops import Loops


class Extents(Loops):
    """Issue-15 shapes (a mixin of the generator)."""
