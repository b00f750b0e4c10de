"""Unroll-and-jam of iterations whose work is a sequential inner loop carrying a scalar
(transform.jam, pass 'jam'): which kernels get the fused body, and programs built and run
against gcc -fopenmp on every path, the device with copying and zero-copy buffers, bounds-checked
and in the GPU shape, at 1 and 2 threads, with statistics showing the device ran each loop.
Outputs are compared bit for bit (``%a``): the jam keeps every iteration's operations in
their order."""
from __future__ import annotations

import pytest

from ompcl.pipeline import Options, translate

from conftest import build_both, device_runs, every_path, run

HEAD = r"""#include <stdio.h>
#include <stdlib.h>
#define R 203
#define C 37
static double M[R][C], w[C], y[R], z[R];
static float F[R][C], fy[R][C];
"""

PROGRAMS = {
    # name: (loop code, jammed)
    "dot_per_row_locals": (r"""
#pragma omp parallel for
  for (i = 0; i < R; i++) {
    double s = 0.0;
    int k;
    for (k = 0; k < C; k++)
      s += M[i][k] * w[k];
    y[i] = s;
  }""", True),
    "private_clause_runtime_bound": (r"""
  { double s, t; int k;
#pragma omp parallel for private(s, t, k)
  for (i = 0; i < n; i++) {
    s = 1.0; t = 0.0;
    for (k = 0; k < m; k++) {
      s = s * 0.5 + M[i][k];
      t += s * w[k];
    }
    y[i] = t + k;
    z[i] = s;
  } }""", True),
    "strided_outer_loop": (r"""
#pragma omp parallel for
  for (i = 1; i < R; i += 2) {
    double s = i;
    for (int k = C - 1; k >= 0; k--)
      s = s * 0.25 + M[i][k] * w[k];
    y[i] = s;
  }""", True),
    "collapsed_float_matmul": (r"""
  { int j;
#pragma omp parallel for collapse(2) private(j)
  for (i = 0; i < R; i++)
    for (j = 0; j < C; j++) {
      float acc = 0.0f;
      for (int k = 0; k < C; k++)
        acc += F[i][k] * F[(k * 5) % R][j];
      fy[i][j] = acc;
    } }""", True),
    "array_accumulator": (r"""
#pragma omp parallel for private(j)
  for (i = 0; i < R; i++) {
    y[i] = 0.0;
    for (j = 0; j < C; j++)
      y[i] = y[i] + M[i][j] * w[j];
  }""", True),
    "bound_read_per_row": (r"""
#pragma omp parallel for
  for (i = 0; i < R; i++) {
    double s = 0.0;
    int k;
    for (k = 0; k < len[i]; k++)
      s += M[i][k];
    y[i] = s;
  }""", False),
    "no_chain": (r"""
#pragma omp parallel for
  for (i = 0; i < R; i++) {
    int k;
    for (k = 0; k < C; k++)
      fy[i][k] = F[i][k] * 2.0f;
  }""", False),
    "early_exit": (r"""
#pragma omp parallel for
  for (i = 0; i < R; i++) {
    double s = 0.0;
    int k;
    for (k = 0; k < C; k++) {
      if (M[i][k] > 0.9) break;
      s += M[i][k];
    }
    y[i] = s;
  }""", False),
}


def _program(loop: str) -> str:
    return (HEAD + "int main(int argc, char **argv) {\n"
            "  int i, j, n = R - argc + 1, m = C - 2 * argc + 2, len[R];\n"
            "  for (i = 0; i < R; i++) {\n    len[i] = i % C;\n"
            "    for (j = 0; j < C; j++) {\n"
            "      M[i][j] = ((i * 131 + j * 71) % 1009) / 1009.0;\n"
            "      F[i][j] = (float)((i * 17 + j * 3) % 101) / 101.0f;\n    }\n  }\n"
            "  for (j = 0; j < C; j++) w[j] = 1.0 / (j + 1);\n"
            + loop + "\n"
            "  for (i = 0; i < R; i++) printf(\"%a %a %a\\n\", y[i], z[i], (double)fy[i][i % C]);\n"
            "  return 0;\n}\n")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_which_kernels_are_jammed(tmp_path, name):
    loop, expected = PROGRAMS[name]
    src = tmp_path / f"{name}.c"
    src.write_text(_program(loop))
    unit = translate(str(src), Options())
    kernels = unit.programs[0].kernels
    assert len(kernels) == 1
    assert (kernels[0].jam is not None) == expected
    if expected:
        assert "iterations at a time, their inner loops fused" in unit.kernel_source


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jammed_kernels_give_the_original_output(tmp_path, name):
    loop, _ = PROGRAMS[name]
    ref, exe = build_both(tmp_path, _program(loop))
    every_path(ref, exe, 0.0)
    for env in ({"OMPCL_SHAPE": "grid"}, {"OMPCL_BOUNDS_CHECK": "1"}):
        out = run(exe, OMPCL_DEVICE="opencl", **env)
        assert out.returncode == 0 and out.stdout == run(ref).stdout, env
    runs = device_runs(exe)
    assert runs is None or all(r >= 1 for r in runs), runs
