"""Type-punned reads of array elements (SPEC's and Parboil's lbm: a cell's flags kept as an
``unsigned int`` in a slot of the ``double`` grid, tested as ``*(unsigned int *)(void *)
&grid[i + FLAGS]``): the kernel reads the element's bits; a punned write keeps its loop on the
host. Each program runs on every path against gcc's build."""
from __future__ import annotations

from conftest import build_both, device_runs, every_path
from ompcl.pipeline import translate

PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#define MAGIC_CAST(v) ((unsigned int *)((void *)(&(v))))
#define FLAGS 19
#define OBSTACLE (1 << 0)
#define ACCEL (1 << 1)
int main(void) {
  int n = 20000, i;
  double *grid = calloc((size_t)n * 20, sizeof(double)), *out = malloc(n * sizeof(double));
  float *src = malloc(2 * n * sizeof(float)), *dst = malloc(n * sizeof(float));
  double s = 0;
  for (i = 0; i < n; i++) {
    grid[i * 20] = i % 17;
    *MAGIC_CAST(grid[i * 20 + FLAGS]) = (i % 5 == 0) ? OBSTACLE : (i % 7 == 0) ? ACCEL : 0;
    src[2 * i] = (float)(i % 11);
    *(int *)&src[2 * i + 1] = i % 3;
  }
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    unsigned int f = *MAGIC_CAST(grid[i * 20 + FLAGS]);
    out[i] = (f & OBSTACLE) ? 0.0 : (f & ACCEL) ? 2.0 * grid[i * 20] : grid[i * 20] + 1.0;
  }
#pragma omp parallel for
  for (i = 0; i < n; i++)
    dst[i] = *(int *)&src[2 * i + 1] == 1 ? 0.5f * src[2 * i] : src[2 * i];
#pragma omp parallel for
  for (i = 0; i < n; i++)
    *MAGIC_CAST(grid[i * 20 + FLAGS]) |= ACCEL;
  for (i = 0; i < n; i++) s += out[i] + dst[i] + *MAGIC_CAST(grid[i * 20 + FLAGS]);
  printf("%.3f\n", s);
  return 0;
}
"""


def test_punned_reads_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM, "lbm.c")
    every_path(ref, exe, 0.0)
    regions = translate(str(tmp_path / "lbm.c")).regions
    assert [r.offload for r in regions] == [True, True, False]
    assert device_runs(exe) in (None, [1, 1])
