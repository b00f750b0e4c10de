"""The feature schema: the names and order of every feature a dispatch model sees. Defined
once; code generation fills the static part, the C runtime (``ompcl_rt.c``: ``feature_names``
and ``entry_features``) the rest at run time, models are trained and exported on it.

- ``STATIC``: per-work-item counts on the generated kernel (after every transformation), in
  the order of the region descriptors of generated host code.
- ``DYNAMIC``: what the runtime knows when a region is about to run: bytes that must move
  given its present table, work-items, work-group size.
- ``COMBINED``: the combined features of Grewe et al. (CGO 2013), F1-F4.

``FEATURES`` = STATIC + DYNAMIC + COMBINED is the vector models index. Training rows use the
column names of the public device-mapping datasets (``ROW_COLUMNS``).
"""
from __future__ import annotations

from typing import Mapping

#: static per-work-item counts, in descriptor order
STATIC: tuple[str, ...] = ("comp", "mem", "localmem", "coalesced", "atomic", "branches")
#: run-time features, in the runtime's order
DYNAMIC: tuple[str, ...] = ("transfer", "work_items", "wgsize")
#: F1 transfer/(comp+mem), F2 coalesced/mem, F3 (localmem/mem)*wgsize, F4 comp/mem
COMBINED: tuple[str, ...] = ("transfer_per_op", "coalesced_per_mem", "localmem_wgsize",
                             "comp_per_mem")
FEATURES: tuple[str, ...] = STATIC + DYNAMIC + COMBINED

#: schema version: models record it, the runtime's model reader checks it
VERSION = 2

#: columns of a training row (those of the public device-mapping datasets first)
ROW_COLUMNS: tuple[str, ...] = (
    "benchmark", "dataset", "kernel", "comp", "mem", "localmem", "coalesced", "atomic",
    "transfer", "wgsize", "runtime_cpu", "runtime_gpu", "branches", "work_items")


def ordered(values: Mapping[str, float]) -> tuple[float, ...]:
    """Static feature values in schema order (every static feature must be present)."""
    return tuple(float(values[name]) for name in STATIC)


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else a


def full(values: Mapping[str, float]) -> tuple[float, ...]:
    """The whole feature vector from the raw features (static and dynamic; missing ones are
    0), exactly as the runtime computes it (a zero denominator counts as one)."""
    raw = {name: float(values.get(name, 0.0) or 0.0) for name in STATIC + DYNAMIC}
    comp, mem = raw["comp"], raw["mem"]
    combined = (_ratio(raw["transfer"], comp + mem), _ratio(raw["coalesced"], mem),
                _ratio(raw["localmem"], mem) * raw["wgsize"], _ratio(comp, mem))
    return tuple(raw[n] for n in STATIC + DYNAMIC) + combined


#: the load features (issue 42), after ``FEATURES`` in the runtime's vector (``ompcl_rt_load.c``):
#: other processes' runnable tasks per core, their busy share of the cores, the device's load
#: (-1: not known), the host path's thread count, the cores the process may use. A model
#: whose schema lists ``FEATURES + LOAD`` reads them; one without them decides as before.
LOAD: tuple[str, ...] = ("load_runnable", "load_busy", "load_device", "host_threads", "cores")
FEATURES_LOAD: tuple[str, ...] = FEATURES + LOAD


def full_load(values: Mapping[str, float]) -> tuple[float, ...]:
    """``full(values)`` followed by the load features (missing ones are 0)."""
    return full(values) + tuple(float(values.get(name, 0.0) or 0.0) for name in LOAD)
