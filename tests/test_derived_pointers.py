"""Pointers derived from arrays in a loop body (issue 37): ``double *rA = &a[i * M];`` then
``rA[j]`` runs on the device as base plus offset (``analysis.derived``), and so does an
array plus an offset passed to a function; a pointer the body moves keeps its loop on the
host. Run on every path against gcc's build."""
from __future__ import annotations

from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path

ROWS = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 300
#define M 200
double A2[N][M];
int main(void) {
  int i, j;
  double *a = malloc(sizeof(double) * N * M), *b = malloc(sizeof(double) * N * M);
  for (i = 0; i < N * M; i++) { a[i] = i % 13; b[i] = 0; }
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++) {
    double *rA = &a[i * M];
    double *rB = b + i * M;
    double *row = A2[i];
    for (j = 0; j < M; j++) {
      rB[j] = 2.0 * rA[j] + (j > 0 ? rA[j - 1] : 0.0);
      row[j] = rB[j];
    }
    *rB += 1.0;
  }
  double s = 0;
  for (i = 0; i < N * M; i++) s += b[i];
  for (i = 0; i < N; i++) s += A2[i][7];
  printf("%.3f\n", s);
  free(a); free(b);
  return 0;
}
"""

#: pointers into a static and a heap array passed to device functions with offsets
#: (``g + i * M``, ``h - 1 + i * M + 1``, ``&g[i * M]``): the static array whole, the heap
#: array as the block it points into (the callees' spans are not derived)
OFFSETS = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 200
#define M 64
double g[N * M];
void row(double *r, int m, double v) { int j; for (j = 0; j < m; j++) r[j] = v * j + r[j]; }
double sum(const double *r, int m) { int j; double s = 0; for (j = 0; j < m; j++) s += r[j]; return s; }
int main(void) {
  int i; double *h = malloc(sizeof(double) * N * M), t = 0;
  for (i = 0; i < N * M; i++) { g[i] = i % 7; h[i] = i % 5; }
#pragma omp parallel for
  for (i = 0; i < N; i++) { row(g + i * M, M, 1.5); row(h - 1 + i * M + 1, M, 2.0); }
#pragma omp parallel for reduction(+:t)
  for (i = 1; i < N; i++) t += sum(h + (i - 1) * M, M) - sum(&g[i * M], M);
  printf("%.6f %.6f %.6f\n", t, g[N*M-1], h[77]);
  free(h); return 0;
}
"""

#: derived pointers declared in an inner loop's body (a tree's row, an element's address):
#: each block's pointers are declared again each time it runs
INNER = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 200, m = 150, i, j, k;
  double **a = malloc(n * sizeof(double *)), *b = malloc(n * m * sizeof(double)), c[64][150];
  for (i = 0; i < n; i++) { a[i] = malloc(m * sizeof(double)); for (j = 0; j < m; j++) a[i][j] = (i + 2 * j) % 7; }
  for (i = 0; i < 64; i++) for (j = 0; j < m; j++) c[i][j] = (i * j) % 5;
#pragma omp parallel for private(j, k)
  for (i = 0; i < 64; i++) {
    for (j = 0; j < n; j++) {
      double *row = a[j];
      double *out = &b[j * m];
      double s = 0;
      for (k = 0; k < m; k++) s += row[k] * c[i][k];
      if (i == 0) for (k = 0; k < m; k++) out[k] = s + row[k];
    }
  }
  double t = 0; for (i = 0; i < n * m; i++) t += b[i] * (1 + i % 3);
  printf("%.4f\n", t); return 0;
}
"""

MOVED = r"""
double a[1000], b[1000];
void f(int n) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++) {
    double *p = &a[i * 10];
    for (j = 0; j < 10; j++) b[i * 10 + j] = *p++;
  }
}
"""


def test_rows_through_derived_pointers_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, ROWS, "rows.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_offset_pointer_arguments_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, OFFSETS, "offsets.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1, 1])


def test_derived_pointers_of_inner_blocks_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, INNER, "inner.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_a_pointer_the_body_moves_stays_on_the_host(tmp_path):
    src = tmp_path / "moved.c"
    src.write_text(MOVED)
    (region,) = translate(str(src)).regions
    assert not region.offload
