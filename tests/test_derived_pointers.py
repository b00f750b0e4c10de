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


ASSIGNED = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { double v, x; } four;
typedef struct { int offset, nn; int nei[4]; } box_t;
int main(void) {
  int nb = 64, per = 20, l, k, i, j, first_i, first_j, pointer;
  box_t *box = malloc(nb * sizeof(box_t));
  four *rv = malloc(nb * per * sizeof(four)), *fv = calloc(nb * per, sizeof(four));
  double *qv = malloc(nb * per * sizeof(double));
  four *rA, *rB, *fA;
  double *qB;
  for (l = 0; l < nb; l++) {
    box[l].offset = ((l * 7) % nb) * per;  /* a permutation of the boxes' particle blocks */
    box[l].nn = l % 4;
    for (k = 0; k < 4; k++) box[l].nei[k] = (l + k + 1) % nb;
  }
  for (i = 0; i < nb * per; i++) { rv[i].v = (i % 13) * 0.1; rv[i].x = (i % 7) * 0.2; qv[i] = i % 3; }
#pragma omp parallel for private(i, j, k, first_i, rA, fA, pointer, first_j, rB, qB)
  for (l = 0; l < nb; l++) {
    first_i = box[l].offset;
    rA = &rv[first_i];
    fA = &fv[first_i];
    for (k = 0; k < 1 + box[l].nn; k++) {
      pointer = k == 0 ? l : box[l].nei[k - 1];
      first_j = box[pointer].offset;
      rB = &rv[first_j];
      qB = &qv[first_j];
      for (i = 0; i < per; i++)
        for (j = 0; j < per; j++) {
          double r2 = rA[i].v + rB[j].v - rA[i].x * rB[j].x;
          fA[i].v += qB[j] * r2;
          fA[i].x += qB[j] * (rA[i].x - rB[j].x);
        }
    }
  }
  double t = 0;
  for (i = 0; i < nb * per; i++) t += fv[i].v + 2 * fv[i].x;
  printf("%.9f\n", t);
  return 0;
}
"""

REASSIGNED = r"""
double a[100], b[100];
void f(int n, int m) {
  int i, j;
  double *p;
#pragma omp parallel for private(p, j)
  for (i = 0; i < n; i++) {
    p = &a[i];
    b[i] = p[0];
    p = &a[m];  /* assigned twice: left alone */
    b[i] += p[0];
  }
}
"""


def test_private_pointers_assigned_in_the_body_run_on_the_device(tmp_path):
    """lavaMD's kernel: private pointers assigned from array elements at the top of a block
    (``rA = &rv[first_i];`` after ``first_i = box[l].offset;``), used only after that."""
    ref, exe = build_both(tmp_path, ASSIGNED, "assigned.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_a_private_pointer_assigned_twice_is_not_substituted(tmp_path):
    src = tmp_path / "twice.c"
    src.write_text(REASSIGNED)
    (region,) = translate(str(src)).regions
    assert not region.offload


#: row pointers whose offset reads struct members (cutcp's lattice rows): declared in the
#: body, and private pointers assigned there
MEMBER_OFFSETS = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { int nx, ny; float *data; } Lattice;
int main(void) {
  Lattice lat, *lp = &lat;
  int i, j;
  float *pg;
  lat.nx = 300; lat.ny = 200;
  lat.data = calloc(lat.nx * lat.ny, sizeof(float));
  float *base = lat.data, *out = calloc(lat.nx * lat.ny, sizeof(float));
#pragma omp parallel for private(pg, i)
  for (j = 0; j < lat.ny; j++) {
    pg = base + j * lat.nx;
    for (i = 0; i < lat.nx; i++) pg[i] = (float)(i + 2 * j);
  }
#pragma omp parallel for private(i)
  for (j = 1; j < lp->ny; j++) {
    float *q = out + j * lp->nx, *up = &base[(j - 1) * lp->nx];
    for (i = 0; i < lp->nx; i++) q[i] = 0.5f * up[i] + i % 3;
  }
  double s = 0;
  for (i = 0; i < lat.nx * lat.ny; i++) s += lat.data[i] * (i % 11) + out[i];
  printf("sum %.1f\n", s);
  return 0;
}
"""

#: the offset's member written in the loop through another name
MEMBER_WRITTEN = r"""
typedef struct { int nx; float *data; } Lattice;
void f(Lattice *lat, Lattice *other, int n) {
  int j, i;
#pragma omp parallel for private(i)
  for (j = 0; j < n; j++) {
    float *q = lat->data + j * lat->nx;
    other->nx = 4;
    for (i = 0; i < 4; i++) q[i] = 1.0f;
  }
}
"""


def test_row_pointers_with_member_offsets_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, MEMBER_OFFSETS, "members.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1, 1])


def test_an_offset_member_written_in_the_loop_is_not_substituted(tmp_path):
    src = tmp_path / "written.c"
    src.write_text(MEMBER_WRITTEN)
    (region,) = translate(str(src)).regions
    assert not region.offload


#: pointers walked by an inner loop's increment (Parboil's cutcp: pg = lattice->data +
#: index; for (i = 0; i < 16; i++, pg++) { #pragma omp atomic  *pg += e; }), from a member
#: chain and from a local base, with a step of 2; and one walked pointer read after its loop
#: (left alone: its loop stays on the host)
WALKS = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { int nx; float *data; } Lattice;
int main(void) {
  int n = 5000, nx = 4096, a, i, index;
  float *pg, e, *q = calloc(2 * nx, sizeof(float)), *last = calloc(n, sizeof(float));
  float *r4 = calloc(4 * n, sizeof(float));
  Lattice *lat = malloc(sizeof(Lattice));
  lat->nx = nx;
  lat->data = calloc(nx, sizeof(float));
#pragma omp parallel for private(i, index, pg, e)
  for (a = 0; a < n; a++) {
    index = (a * 37) % (nx - 16);
    pg = lat->data + index;
    float dx = 0.25f * (a % 3);
    for (i = 0; i < 16; i++, pg++, dx += 0.5f) {
      e = 1.0f / (1.0f + (float)((a + i) % 13)) + dx;
#pragma omp atomic
      *pg += e;
    }
  }
#pragma omp parallel for private(i)
  for (a = 0; a < nx - 8; a += 8) {
    float *w = q + 2 * a;
    for (i = 3; i < 11; ++i, w += 2) { w[0] = a + i; w[1] = *w * 0.5f; }
  }
#pragma omp parallel for private(i)
  for (a = 0; a < n; a++) {
    float *w = r4 + 4 * a;
    for (i = 0; i < 4; i++, w++) *w = a + i;
    last[a] = w[-1];
  }
  double s = 0;
  for (i = 0; i < nx; i++) s += lat->data[i] + q[i] + q[nx + i];
  for (a = 0; a < n; a++) s += last[a];
  printf("sum %.3f\n", s);
  return 0;
}
"""


def test_pointers_walked_by_inner_loops(tmp_path):
    ref, exe = build_both(tmp_path, WALKS, "walks.c")
    every_path(ref, exe, 1e-6)
    regions = translate(str(tmp_path / "walks.c")).regions
    assert [r.offload for r in regions] == [True, True, False], [r.reasons for r in regions]


#: a lookup in the style of cross-section codes (XSBench's calculate_micro_xs): a callee
#: takes pointers to neighbouring elements of a parameter's array of structs (low =
#: &grid[idx]; high = low + 1) and reads members through them; inlined, each pointer is its
#: element (high->xs is grid[idx + 1].xs); a pointer declared without a value and assigned
#: once in the block goes with its declaration
LOOKUP = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct { double energy; double xs; } point_t;
static long lower(const point_t *g, long n, double e) {
  long lo = 0, hi = n - 1;
  while (hi - lo > 1) { long mid = (lo + hi) / 2; if (g[mid].energy > e) hi = mid; else lo = mid; }
  return lo;
}
static double interp(const point_t *grid, long n, double e) {
  const point_t *low, *high;
  long idx = lower(grid, n, e);
  low = &grid[idx];
  high = low + 1;
  double f = (high->energy - e) / (high->energy - low->energy);
  return high->xs - f * (high->xs - low->xs);
}
int main(void) {
  long n = 4000, m = 60000, i;
  point_t *grid = malloc(n * sizeof *grid);
  double *out = malloc(m * sizeof *out), s = 0;
  for (i = 0; i < n; i++) { grid[i].energy = i * 0.5; grid[i].xs = 1.0 / (1 + i % 37); }
#pragma omp parallel for
  for (i = 0; i < m; i++)
    out[i] = interp(grid, n, (i * 7919 % (2 * n - 3)) * 0.25 + 0.1);
  for (i = 0; i < m; i++) s += out[i];
  printf("%.12e\n", s);
  return 0;
}
"""


def test_pointers_to_neighbouring_elements_in_a_callee(tmp_path):
    ref, exe = build_both(tmp_path, LOOKUP, "lookup.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe) in (None, [1])
