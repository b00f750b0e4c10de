"""The n-body shape of ``ompcl bench kernels`` (part of ``kernel_shapes``): all-pairs
accelerations of NB bodies in structure-of-arrays layout, a parallel loop over bodies with an
inner sequential loop over every body (compute-bound: about 20 floating-point operations per
pair, a square root and a division among them).

Consumes the records of ``kernel_records``; produces ``NBODY`` and its operation count.
"""
from __future__ import annotations

import numpy as np

from .kernel_records import CL_HEAD, Hand, Shape, device_buffer, np_hash, read_back

NB = 4096
#: floating-point operations per pair, as n-body papers count them (sqrt and divide as one)
PAIR_FLOPS = 20


def _pair(indent: str) -> str:
    """One pair's interaction (the same text in the C loop and the hand-written kernel)."""
    return "".join(indent + line + "\n" for line in (
        "double dx = px[j] - xi, dy = py[j] - yi, dz = pz[j] - zi;",
        "double d2 = dx * dx + dy * dy + dz * dz + 1e-3;",
        "double inv = 1.0 / sqrt(d2);",
        "double s = pm[j] * inv * inv * inv;",
        "fx += s * dx;", "fy += s * dy;", "fz += s * dz;"))


_NB_CL = CL_HEAD + f"#define NB {NB}\n" + r"""
__kernel void item(__global const double *px, __global const double *py,
                   __global const double *pz, __global const double *pm,
                   __global double *ax, __global double *ay, __global double *az)
{
  int i = get_global_id(0);
  double xi = px[i], yi = py[i], zi = pz[i], fx = 0.0, fy = 0.0, fz = 0.0;
  for (int j = 0; j < NB; j++) {
""" + _pair("    ") + r"""  }
  ax[i] = fx;
  ay[i] = fy;
  az[i] = fz;
}
"""


def _setup(dev) -> dict:
    h = np_hash(4 * NB)
    pos = [h[k * NB:(k + 1) * NB] / 1000003.0 for k in range(3)]
    mass = (h[3 * NB:] % 1000) / 1000.0 + 0.5
    out = np.zeros(NB)
    return {"in": [device_buffer(dev, a) for a in (*pos, mass)],
            "out": [device_buffer(dev, np.zeros(NB)) for _ in range(3)], "like": out}


def _check(s: dict) -> float:
    ax, ay, az = (read_back(s["dev"], b, s["like"]) for b in s["out"])
    return float(ax[0] + ay[NB // 2] + az[NB - 1])


NBODY = Shape(
    "nbody", f"all-pairs accelerations of {NB} bodies (structure of arrays): a parallel loop "
             "over bodies with an inner loop over every body, sqrt and division per pair",
    c_globals=f"#define NB {NB}\nstatic double px[NB], py[NB], pz[NB], pm[NB], "
              "ax[NB], ay[NB], az[NB];",
    c_loop=r"""
static void nbody(void)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < NB; i++) {
        double xi = px[i], yi = py[i], zi = pz[i], fx = 0.0, fy = 0.0, fz = 0.0;
        int j;
        for (j = 0; j < NB; j++) {
""" + _pair("            ") + r"""        }
        ax[i] = fx;
        ay[i] = fy;
        az[i] = fz;
    }
}
""",
    c_init=r"""    int i;
    for (i = 0; i < NB; i++) {
        px[i] = BENCH_HASH(i) / 1000003.0;
        py[i] = BENCH_HASH(NB + i) / 1000003.0;
        pz[i] = BENCH_HASH(2 * NB + i) / 1000003.0;
        pm[i] = (BENCH_HASH(3 * NB + i) % 1000u) / 1000.0 + 0.5;
    }""",
    c_call="nbody()",
    c_check="ax[0] + ay[NB / 2] + az[NB - 1]",
    hand_setup=_setup,
    hand_check=_check,
    hands=(
        Hand("one item per body", _NB_CL, "item", lambda s: [*s["in"], *s["out"]],
             lambda s, dev: ((NB,), None)),
    ),
    rtol=1e-10)
