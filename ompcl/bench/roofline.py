"""The machine's limits for ``ompcl bench kernels``: a STREAM-style triad's bandwidth and a
peak double-precision FLOP loop, both hand-written OpenCL measured on the device the kernels
run on, in the same run; and each shape's compulsory traffic and arithmetic, so that every
kernel's distance to the roof is one number. The triad's arrays are as large as the map's
and the reductions' (3 x 32 MiB): on a CPU with a large last-level cache that is the
bandwidth those shapes can reach, not the DRAM's; smaller working sets (the stencils, the
matrix multiply) may exceed it.

Consumes the bench's ``Device`` and the shapes' sizes (``kernel_shapes``,
``kernel_reductions``). Produces ``Limits`` (GB/s, GFLOP/s, the fastest of the calls) and
``roof(shape, seconds, limits)``: the achieved GB/s and GFLOP/s of a call and its share of the
limit that bounds it (the bandwidth for a shape whose arithmetic intensity is below the
machine's balance, else the FLOP rate). Traffic counts each array element the loop reads or
writes once, 8 bytes a double, 4 an int (what a cache-perfect run moves; STREAM's convention,
no write-allocate), and a matrix multiply's operands once each.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kernel_reductions import RED_N
from .kernel_nbody import NB, PAIR_FLOPS
from .kernel_shapes import MAP_N, MM, MR, MC, N2, N3, TN

#: elements of each triad array: the working set of the map and reduction shapes (3 x 32 MiB),
#: so that the limit and the kernels see the same level of the memory hierarchy
TRIAD_N = MAP_N
#: FMA steps per work-item of the peak loop, each on 4 independent double8 chains
PEAK_STEPS = 2048

_TRIAD = """
__kernel void triad(__global double *a, __global const double *b, __global const double *c,
                    const double s) {
  const size_t i = get_global_id(0);
  a[i] = b[i] + s * c[i];
}
"""

_PEAK = f"""
__kernel void peak(__global double *out, const double s) {{
  double8 a0 = (double8)(get_global_id(0) * 1e-9), a1 = a0 + 1.0, a2 = a0 + 2.0, a3 = a0 + 3.0;
  const double8 m = (double8)(0.999999), c = (double8)(s);
  for (int k = 0; k < {PEAK_STEPS}; k++) {{
    a0 = mad(a0, m, c); a1 = mad(a1, m, c); a2 = mad(a2, m, c); a3 = mad(a3, m, c);
  }}
  double8 t = a0 + a1 + a2 + a3;
  out[get_global_id(0)] = t.s0 + t.s1 + t.s2 + t.s3 + t.s4 + t.s5 + t.s6 + t.s7;
}}
"""

#: per shape: (bytes, floating-point operations) of one call
TRAFFIC: dict[str, tuple[float, float]] = {
    "map": (3 * 8 * MAP_N, 3 * MAP_N),
    "stencil2d": (2 * 8 * (N2 - 2) ** 2, 7 * (N2 - 2) ** 2),
    "stencil3d": (2 * 8 * (N3 - 2) ** 3, 8 * (N3 - 2) ** 3),
    "sum": (2 * 8 * RED_N, 2 * RED_N),
    "axpydot": (3 * 8 * RED_N, 4 * RED_N),
    "product": (8 * RED_N, 3 * RED_N),
    "max": (2 * 8 * RED_N, 2 * RED_N),
    "min": (4 * RED_N, 0),
    "xor": (4 * RED_N, 0),
    "and": (8 * RED_N, 0),
    "matmul": (3 * 8 * MM * MM, 2 * MM ** 3),
    "transpose": (2 * 8 * TN * TN, 0),
    "histogram": (4 * RED_N, 0),
    "matvec": (8 * (MR * MC + MC + MR), 2 * MR * MC),
    "nbody": (8 * 7 * NB, PAIR_FLOPS * NB * NB),
}


@dataclass(frozen=True)
class Limits:
    """The device's measured limits: triad bandwidth (GB/s) and peak FP64 rate (GFLOP/s)."""

    bandwidth: float
    flops: float

    @property
    def balance(self) -> float:
        """FLOPs per byte at which a kernel stops being bandwidth-bound."""
        return self.flops / self.bandwidth if self.bandwidth > 0 else float("inf")


def _fastest(dev, kernel, global_size, calls: int) -> float:
    """Seconds of the fastest of ``calls`` launches (profiling events; one warm-up)."""
    best = float("inf")
    for k in range(calls + 1):
        ev = dev.cl.enqueue_nd_range_kernel(dev.queue, kernel, global_size, None)
        ev.wait()
        if k:
            best = min(best, 1e-9 * (ev.profile.end - ev.profile.start))
    return best


def measure(dev, calls: int = 10) -> Limits:
    """Triad bandwidth and peak FP64 rate of ``dev``, the fastest of ``calls`` each."""
    cl, mf = dev.cl, dev.cl.mem_flags
    b = np.full(TRIAD_N, 1.5)
    bufs = [cl.Buffer(dev.ctx, mf.READ_WRITE, size=b.nbytes)] + [
        cl.Buffer(dev.ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=b) for _ in range(2)]
    triad = cl.Kernel(cl.Program(dev.ctx, _TRIAD).build(), "triad")
    triad.set_args(*bufs, np.float64(3.0))
    t = _fastest(dev, triad, (TRIAD_N,), calls)
    items = dev.units * 256
    out = cl.Buffer(dev.ctx, mf.WRITE_ONLY, size=8 * items)
    peak = cl.Kernel(cl.Program(dev.ctx, _PEAK).build(), "peak")
    peak.set_args(out, np.float64(1e-3))
    p = _fastest(dev, peak, (items,), max(3, calls // 3))
    return Limits(3 * 8 * TRIAD_N / t / 1e9, items * PEAK_STEPS * 4 * 8 * 2 / p / 1e9)


def roof(shape: str, seconds: float, limits: Limits) -> tuple[float, float, float] | None:
    """(GB/s, GFLOP/s, share of the bounding limit) of one call of ``shape`` taking
    ``seconds``; None for a shape without known traffic."""
    if shape not in TRAFFIC or not seconds > 0:
        return None
    nbytes, flops = TRAFFIC[shape]
    gbs, gflops = nbytes / seconds / 1e9, flops / seconds / 1e9
    intensity = flops / nbytes if nbytes else float("inf")
    share = gflops / limits.flops if intensity >= limits.balance else gbs / limits.bandwidth
    return gbs, gflops, share
