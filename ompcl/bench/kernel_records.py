"""The records of ``ompcl bench kernels``' loop shapes (``kernel_shapes``) and the device
helpers their hand-written kernels share.

Consumes nothing; produces ``Shape`` and ``Hand`` (a shape's C loop and its hand-written
OpenCL kernels), the data formula both sides use, and buffer helpers over a pyopencl device.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

CL_HEAD = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n"
#: the data: a multiplicative hash of the index (32-bit wrap-around), ``BENCH_HASH(k)`` in C


def np_hash(n: int) -> np.ndarray:
    """``BENCH_HASH(k)`` of the C programs for k = 0 .. n-1."""
    return (np.arange(n, dtype=np.uint32) * np.uint32(2654435761)) % np.uint32(1000003)


@dataclass(frozen=True)
class Hand:
    """A hand-written kernel: source, kernel name, its arguments and launch geometry from the
    shape's device state, and (reductions) what follows the launch on the host."""

    name: str
    source: str
    kernel: str
    args: Callable[[dict], list]
    geometry: Callable[[dict, object], tuple]
    finish: Callable[[dict, object], None] | None = None


@dataclass(frozen=True)
class Shape:
    name: str
    what: str
    c_globals: str
    c_loop: str
    c_init: str
    c_call: str
    c_check: str
    hand_setup: Callable[[object], dict]
    hand_check: Callable[[dict], float]
    hands: tuple[Hand, ...]
    rtol: float = 1e-12


def device_buffer(dev, array: np.ndarray):
    mf = dev.cl.mem_flags
    return dev.cl.Buffer(dev.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=array)


def read_back(dev, buf, like: np.ndarray) -> np.ndarray:
    out = np.empty_like(like)
    dev.cl.enqueue_copy(dev.queue, out, buf)
    return out


def chunks(dev) -> int:
    """Work-items of a chunked hand-written kernel: 32 per compute unit, as many as the
    runtime launches (with 8, PoCL ran some kernels here at one core's speed)."""
    return 32 * dev.units


def round_up(x: int, m: int) -> int:
    return (x + m - 1) // m * m
