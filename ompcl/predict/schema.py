"""The feature schema: the names and order of every feature a kernel descriptor carries and a
dispatch model may use. Defined once; code generation fills it, models are trained on it.

Static features are per-work-item counts on the generated kernel (after every transformation);
``STATIC`` is their order in the region descriptors of generated host code.
"""
from __future__ import annotations

#: static per-work-item counts and ratios, in descriptor order
STATIC: tuple[str, ...] = ("branches", "coalesced", "coalesced_ratio", "comp", "comp_mem_ratio",
                           "dims", "mem")

#: schema version, recorded in descriptors' consumers (models, training rows)
VERSION = 1


def ordered(values: dict[str, float]) -> tuple[float, ...]:
    """Feature values in schema order (every static feature must be present)."""
    return tuple(float(values[name]) for name in STATIC)
