"""Inlining calls of functions given pointer trees (issue 37, analysis.inline): k-means'
``find_nearest_point(feature[i], nfeatures, clusters, nclusters)`` takes ``float **pts``,
which no device function can; its body in the loop reads ``clusters[i]`` as the loop's own
rows. Executed against gcc on every path; unit cases for what keeps a call as it is."""
from __future__ import annotations

import pytest
from pycparser import c_ast, c_generator, c_parser

from conftest import build_both, device_runs, every_path
from ompcl.analysis.inline import inlined
from ompcl.ir import CType, Storage, Var

KMEANS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define BIG 3.0e38f
static float dist2(const float *a, const float *b, int n) {
  int i; float s = 0.0f;
  for (i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}
static int nearest(float *pt, int nf, float **pts, int npts) {
  int index = 0, i;
  float best = BIG;
  for (i = 0; i < npts; i++) {
    float d = dist2(pt, pts[i], nf);
    if (d < best) { best = d; index = i; }
  }
  return index;
}
int main(void) {
  int n = 6000, nf = 4, k = 5, i, j, t, step;
  int nt = omp_get_max_threads();
  float **feature = malloc(n * sizeof(float *)), **centres = malloc(k * sizeof(float *));
  int *member = malloc(n * sizeof(int));
  int **counts = malloc(nt * sizeof(int *));
  feature[0] = malloc(n * nf * sizeof(float));
  centres[0] = malloc(k * nf * sizeof(float));
  for (i = 1; i < n; i++) feature[i] = feature[i - 1] + nf;
  for (i = 1; i < k; i++) centres[i] = centres[i - 1] + nf;
  for (t = 0; t < nt; t++) counts[t] = calloc(k, sizeof(int));
  for (i = 0; i < n; i++)   /* five well separated groups */
    for (j = 0; j < nf; j++) feature[i][j] = (float)(i % 5) * 10.0f + (float)((i * 7 + j) % 13) * 0.1f;
  for (i = 0; i < k; i++) for (j = 0; j < nf; j++) centres[i][j] = feature[i * 3][j] + 1.0f;
  long total[5] = {0};
  for (step = 0; step < 4; step++) {
#pragma omp parallel
    {
      int tid = omp_get_thread_num();
#pragma omp for private(j)
      for (i = 0; i < n; i++) {
        int c = nearest(feature[i], nf, centres, k);
        member[i] = c;
        counts[tid][c]++;
      }
    }
    for (t = 0; t < nt; t++) for (j = 0; j < k; j++) { total[j] += counts[t][j]; counts[t][j] = 0; }
  }
  long s = 0;
  for (i = 0; i < n; i++) s += member[i] * (i % 7);
  for (j = 0; j < k; j++) printf("%ld ", total[j]);
  printf("%ld\n", s);
  return 0;
}
"""


def test_a_function_given_a_pointer_tree_runs_inlined_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, KMEANS, "kmeans.c")
    every_path(ref, exe, 0)
    assert device_runs(exe) in (None, [4])


FUNCS = r"""
int g;
static int pick(float **p, int n) { return (int)p[n][0]; }
static int two(float **p, int n) { if (n) return 1; return (int)p[0][0]; }
static int global(float **p, int n) { return (int)p[n][g]; }
static int flat(float *p, int n) { return (int)p[n]; }
void f(float **a, float *b, int *out, int n) {
  int i;
  for (i = 0; i < n; i++) { out[i] = pick(a, i); }
  for (i = 0; i < n; i++) { out[i] = two(a, i); }
  for (i = 0; i < n; i++) { int g = i; out[i] = global(a, g); }
  for (i = 0; i < n; i++) { out[i] = flat(b, i); }
}
"""


def _loops():
    ast = c_parser.CParser().parse(FUNCS)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    loops = [n for n in funcs["f"].body.block_items if isinstance(n, c_ast.For)]
    scope = {"g": Var("g", CType("int"), Storage.GLOBAL, None)}
    return loops, funcs, scope


@pytest.mark.parametrize("k,inlines", [(0, True), (1, False), (2, False), (3, False)],
                         ids=["tree-parameter", "two-returns", "global-hidden", "flat-pointer"])
def test_which_calls_are_inlined(k, inlines):
    loops, funcs, scope = _loops()
    if k == 2:   # the loop body's own 'g' hides the global the callee reads
        scope = {"g": Var("g", CType("int"), Storage.LOCAL, None)}
    out = inlined(loops[k], scope, funcs.get)
    assert (out is not None) == inlines
    if inlines:
        text = c_generator.CGenerator().visit(out)
        assert "pick(" not in text and "(int)a[n_ompcl" in text.replace(" ", "")


REFERENCES = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
typedef struct { float x, y, z; } float3;   /* named like OpenCL's vector type */
static inline void velocity_of(float *density, float3 *momentum, float3 *velocity) {
  velocity->x = momentum->x / *density;
  velocity->y = momentum->y / *density;
  velocity->z = momentum->z / *density;
}
static inline float speed_sqd(float3 *v) { return v->x * v->x + v->y * v->y + v->z * v->z; }
static inline float pressure_of(float *density, float *energy, float *s2) {
  return 0.4f * (*energy - 0.5f * (*density) * (*s2));
}
int main(void) {
  int n = 20000, i;
  float *var = malloc(5 * n * sizeof(float)), *out = malloc(n * sizeof(float));
  for (i = 0; i < 5 * n; i++) var[i] = 1.0f + (float)((i * 13) % 29) * 0.125f;
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    float density = var[5 * i];
    float3 momentum;
    momentum.x = var[5 * i + 1]; momentum.y = var[5 * i + 2]; momentum.z = var[5 * i + 3];
    float energy = var[5 * i + 4];
    float3 velocity;
    velocity_of(&density, &momentum, &velocity);
    float s2 = speed_sqd(&velocity);
    float p = pressure_of(&density, &energy, &s2);
    out[i] = sqrtf(fabsf(p)) + s2;
  }
  double t = 0;
  for (i = 0; i < n; i++) t += out[i];
  printf("%.6e\n", t);
  return 0;
}
"""


def test_functions_given_addresses_of_locals_run_inlined_on_the_device(tmp_path):
    """cfd's helpers take the addresses of the loop's locals (C++ references in the original):
    inlined, ``p->m`` of ``&x`` is ``x.m`` and ``*p`` is ``x``; the struct type named
    ``float3`` is renamed in kernels (OpenCL has a vector type of that name)."""
    ref, exe = build_both(tmp_path, REFERENCES, "refs.c")
    every_path(ref, exe, 1e-6)
    assert device_runs(exe) in (None, [1])


#: accessors given the address of an array element (graph500's get_v0_from_edge(&IJ[k])):
#: a callee that only dereferences its parameter (p->m, *p) is inlined, p->m of &a[k] is
#: a[k].m; a callee that indexes its parameter (a row, sum_row(&m[i * C], C)) stays a device
#: function given a derived pointer
ELEMENTS = r"""
#include <stdio.h>
#include <stdint.h>
#define NE 50000
#define NV 512
#define C 8
typedef struct edge { int64_t v0, v1; double w; } edge;
static edge E[NE];
static int64_t deg[NV];
static double m[NE * C / 64], rows[NE / 64];
static inline int64_t first(const edge *p) { return p->v0; }
static inline int64_t second(const edge *p) { return (*p).v1; }
static inline void weigh(edge *p, double s) { p->w = s * (p->v0 + 1); }
static double sum_row(const double *r, int n) {
  double s = 0; int j;
  for (j = 0; j < n; j++) s += r[j];
  return s;
}
int main(void) {
  int64_t k;
  long total = 0;
  double wsum = 0, rsum = 0;
  for (k = 0; k < NE; k++) { E[k].v0 = (k * 7) % NV; E[k].v1 = (k * 13 + 5) % NV; }
  for (k = 0; k < NE * C / 64; k++) m[k] = (k % 17) * 0.5;
#pragma omp parallel for
  for (k = 0; k < NE; k++) {
    const int64_t i = first(&E[k]);
    int64_t j = second(&E[k]);
    weigh(&E[k], 0.25);
    E[k].v1 = i > j ? i - j : j - i;
  }
#pragma omp parallel for
  for (k = 0; k < NE / 64; k++)
    rows[k] = sum_row(&m[k * C], C);
  for (k = 0; k < NE; k++) { deg[E[k].v0] += E[k].v1; wsum += E[k].w; }
  for (k = 0; k < NV; k++) total += deg[k] * (k + 1);
  for (k = 0; k < NE / 64; k++) rsum += rows[k];
  printf("%ld %.3f %.3f\n", total, wsum, rsum);
  return 0;
}
"""


def test_accessors_given_element_addresses_run_inlined_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, ELEMENTS, "elements.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe) in (None, [1, 1])


#: views of flat arrays as rows of a run-time length (KASTORS' jacobi blocks): in a helper
#: the loop calls (a body of one statement), in the loop's own body, and a helper with a
#: variable-length local, which stays on the host while the file's other loops launch
VLA_VIEWS = r"""
#include <stdio.h>
#include <stdlib.h>
static void scale_row(int ny, int i, double *u_) {
  double (*u)[ny] = (double (*)[ny])u_;
  for (int j = 0; j < ny; j++) u[i][j] = 2.0 * u[i][j] + i;
}
static double scratch_row(int ny, int i, const double *u) {
  double tmp[ny], s = 0;
  for (int j = 0; j < ny; j++) tmp[j] = u[i * ny + j];
  for (int j = 0; j < ny; j++) s += tmp[j] * (j % 3);
  return s;
}
int main(void) {
  int nx = 64, ny = 48, nz = 5;
  double *u = malloc(sizeof(double) * nx * ny), *v = malloc(sizeof(double) * nx * ny * nz);
  double *r = malloc(sizeof(double) * nx), s = 0.0;
  for (int k = 0; k < nx * ny; k++) u[k] = k % 7;
#pragma omp parallel for
  for (int i = 0; i < nx; i++)
    scale_row(ny, i, u);
#pragma omp parallel for
  for (int i = 0; i < nx; i++) {
    double (*w)[ny][nz] = (double (*)[ny][nz])v;
    for (int j = 0; j < ny; j++)
      for (int k = 0; k < nz; k++) w[i][j][k] = u[i * ny + j] + k;
  }
#pragma omp parallel for
  for (int i = 0; i < nx; i++)
    r[i] = scratch_row(ny, i, u);
  for (int k = 0; k < nx * ny; k++) s += u[k] * (k % 5);
  for (int k = 0; k < nx * ny * nz; k++) s += v[k] * (k % 3);
  for (int k = 0; k < nx; k++) s += r[k];
  printf("sum %.1f\n", s);
  return 0;
}
"""


def test_views_of_flat_arrays_as_rows(tmp_path):
    from ompcl.pipeline import translate
    ref, exe = build_both(tmp_path, VLA_VIEWS, "views.c")
    every_path(ref, exe, 1e-12)
    regions = translate(str(tmp_path / "views.c")).regions
    assert [r.offload for r in regions] == [True, True, False]
    assert any(x.id == "callee-body" and "variable-length" in x.message
               for x in regions[2].reasons)
    assert device_runs(exe) in (None, [1, 1])
