"""Extents from allocations (issue 37): a heap array whose subscripts the analysis cannot bound
(an index read from another array, a product of variables) is offloaded with the block it
points into as its extent, found at run time in the runtime's table of heap blocks (the
linker's --wrap of the allocator, which ``ompcl cc`` links with) and registered arrays. A
pointer into no known object (stack memory) makes the region decline: the original loop runs.
Each program runs on every path against the original built with gcc."""
from __future__ import annotations

import pytest

from conftest import build_both, every_path, load_stats, run

GATHER = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 20000, cols = 7, i, j, step;
  double *J = malloc(sizeof(double) * n * cols);
  int *iN = malloc(sizeof(int) * n);
  double *out = calloc(n, sizeof(double));
  for (i = 0; i < n * cols; i++) J[i] = (i % 17) * 0.5;
  for (i = 0; i < n; i++) iN[i] = (i * 7 + 3) % n;
  for (step = 0; step < 3; step++) {
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++) {
      double s = 0;
      for (j = 0; j < cols; j++) s += J[iN[i] * cols + j];
      out[i] = s + step;
    }
  }
  double t = 0;
  for (i = 0; i < n; i++) t += out[i];
  printf("%.6f\n", t);
  free(J); free(iN); free(out);
  return 0;
}
"""

TILES = r"""
#include <stdio.h>
#include <stdlib.h>
/* a blocked update with subscripts that are products of variables (LU-style) */
static void update(double *a, int size, int i_global, int j_global, int bs) {
  int i, j, k;
#pragma omp parallel for private(j, k)
  for (i = 0; i < bs; i++)
    for (j = 0; j < bs; j++) {
      double s = 0;
      for (k = 0; k < bs; k++)
        s += a[(i_global + i) * size + (j_global + k)] * 0.001;
      a[(i_global + bs + i) * size + (j_global + j)] += s;
    }
}
int main(void) {
  int size = 96, bs = 16, i;
  double *a = NULL;
  if (posix_memalign((void **)&a, 64, sizeof(double) * size * size)) return 1;
  for (i = 0; i < size * size; i++) a[i] = (i % 11) * 0.1;
  update(a, size, 0, 0, bs);
  update(a, size, 16, 32, bs);
  double t = 0;
  for (i = 0; i < size * size; i++) t += a[i];
  printf("%.9f\n", t);
  free(a);
  return 0;
}
"""

MIDDLE_AND_STACK = r"""
#include <stdio.h>
#include <stdlib.h>
static void work(const double *p, const int *idx, int n, double *out) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) out[i] = p[idx[i]] * 2.0;
}
int main(void) {
  int n = 5000, i;
  double stackbuf[4000];
  double *a = malloc(100 * sizeof(double));
  int *idx = malloc(n * sizeof(int));
  double *out = malloc(n * sizeof(double));
  a = realloc(a, 8000 * sizeof(double));
  for (i = 0; i < 8000; i++) a[i] = i * 0.25;
  for (i = 0; i < 4000; i++) stackbuf[i] = i;
  for (i = 0; i < n; i++) idx[i] = (i * 13) % 3000;
  double t = 0;
  work(a + 1000, idx, n, out);   /* into the middle of a reallocated heap block */
  for (i = 0; i < n; i++) t += out[i];
  work(stackbuf + 5, idx, n, out);   /* stack memory: no known object, the host runs it */
  for (i = 0; i < n; i++) t += out[i];
  printf("%.3f\n", t);
  free(a); free(idx); free(out);
  return 0;
}
"""

#: a small block (160 bytes: in the runtime's ring of small allocations) found after many
#: newer small blocks were freed (spmv's JDS conversion frees its per-row temporaries), and
#: one freed and allocated again at the same address
SMALL_AFTER_FREES = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int **tmp = malloc(sizeof(int *) * 20000), i, k, n = 50000, step;
  for (i = 0; i < 20000; i++) tmp[i] = malloc(16);
  int *ptr = malloc(40 * sizeof(int)), *cnt = malloc(n * sizeof(int));
  float *out = malloc(n * sizeof(float)), s = 0;
  for (i = 0; i < 20000; i++) free(tmp[i]);
  for (i = 0; i < n; i++) cnt[i] = i % 40;
  for (step = 0; step < 2; step++) {
    for (k = 0; k < 40; k++) ptr[k] = k * 3 + step;
#pragma omp parallel for
    for (i = 0; i < n; i++) out[i] = (float)ptr[cnt[i]];
    for (i = 0; i < n; i++) s += out[i];
    free(ptr);
    ptr = malloc(40 * sizeof(int));
  }
  printf("sum %.1f\n", s);
  return 0;
}
"""


def test_small_block_found_after_many_frees(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, SMALL_AFTER_FREES)
    every_path(ref, exe, 1e-12)
    st = _device_stats(tmp_path, exe)
    if st["device"]["available"]:
        (r,) = st["regions"]
        assert r["device_runs"] == 2 and r["block_declines"] == 0, r


def _device_stats(tmp_path, exe, quiet: bool = False) -> dict:
    """The statistics of a run on the device with copying buffers (``quiet``: which says
    nothing on stderr)."""
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0", OMPCL_STATS=str(stats))
    assert out.returncode == 0 and not (quiet and out.stderr), out.stderr
    return load_stats(stats)


@pytest.mark.parametrize("text", [GATHER, TILES], ids=["index-array", "products"])
def test_heap_array_offloaded_with_its_block(text, tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, 1e-12)
    st = _device_stats(tmp_path, exe)
    if st["device"]["available"]:
        assert all(r["device_runs"] > 0 and r["block_declines"] == 0 for r in st["regions"])


def test_pointer_into_no_known_object_runs_on_the_host(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, MIDDLE_AND_STACK)
    every_path(ref, exe, 1e-12)
    st = _device_stats(tmp_path, exe)
    if st["device"]["available"]:
        (r,) = st["regions"]
        assert r["device_runs"] == 1 and r["block_declines"] == 1 and r["host_runs"] == 1



#: one array passed as two read-only parameters, read over ranges that overlap partially
#: (tpacf's self pairs: data2 = data1); and once as a written and a read parameter of
#: disjoint halves
ONE_ARRAY_TWICE = r"""
#include <stdio.h>
#include <stdlib.h>
static void pairs(const float *d1, int n1, const float *d2, int n2, long long *out) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n1 - 1; i++) {
    long long c = 0;
    for (j = i + 1; j < n2; j++) c += d1[i] < d2[j];
    out[i] = c;
  }
}
static void half(float *dst, const float *src, int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) dst[i] = 2.0f * src[i] + 1.0f;
}
int main(void) {
  int n = 3000, i;
  float *a = malloc(2 * n * sizeof(float));
  long long *out = calloc(n, sizeof(long long));
  double s = 0;
  for (i = 0; i < 2 * n; i++) a[i] = (float)((i * 7919) % n);
  pairs(a, n, a, n, out);
  pairs(a + 5, n - 5, a, n, out);
  half(a + n, a, n);
  for (i = 0; i < n; i++) s += out[i] + a[n + i];
  printf("sum %.1f\n", s);
  return 0;
}
"""


def test_one_array_passed_as_two_arguments(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, ONE_ARRAY_TWICE)
    every_path(ref, exe, 1e-12)
    st = _device_stats(tmp_path, exe, quiet=True)
    if st["device"]["available"]:
        assert [r["kernels_launched"] for r in st["regions"]] == [2, 1]
