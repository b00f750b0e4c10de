"""Global pointers a called function reads or writes by name (``double *g`` allocated in
``main``, one pointing into a static array, pointers swapped between time steps, a callee of
a callee, an ``omp for`` of a parallel region) reach the device as the whole object they
point into, found by the runtime at each entry; a loop that also subscripts the pointer
itself keeps the whole object too. Every path at 1, 2, 3 and 7 threads against gcc; a
pointer into memory the runtime does not know (``mmap``) keeps the loop on the host."""
from __future__ import annotations

from conftest import build_both, every_path, kernels_launched, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
#define M 2000
double *g, *h, *w;
static double stat_arr[M + 40];
double *off;
static double nb(int i) { return g[i + 1] - g[i]; }
static double deep(int i) { return nb(i) + off[i]; }
static void put(int i, double v) { w[i] = v; }
int main(void) {
  int i, t, n = M;
  g = malloc((n + 1) * sizeof *g); h = malloc((n + 1) * sizeof *h); w = calloc(n, sizeof *w);
  for (i = 0; i < M + 40; i++) stat_arr[i] = i * 0.25;
  off = stat_arr + 17;
  for (i = 0; i <= n; i++) { g[i] = (i % 13) * 0.5; h[i] = 0; }
  for (t = 0; t < 4; t++) {
    #pragma omp parallel for
    for (i = 0; i < n; i++) h[i] = g[i] + 0.5 * nb(i);
    h[n] = h[0];
    double *tmp = g; g = h; h = tmp;   /* the global pointers swapped between steps */
  }
  #pragma omp parallel for
  for (i = 0; i < n; i++) put(i, deep(i) * 2);
  #pragma omp parallel
  {
    #pragma omp for
    for (i = 0; i < n; i++) h[i] = deep(i);
    #pragma omp for
    for (i = 0; i < n; i++) w[i] += h[i];
  }
  double s = 0; for (i = 0; i < n; i++) s += w[i] * (i % 7) + g[i];
  printf("%.10f\n", s);
  return 0;
}
"""

UNKNOWN = r"""#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
double *g; double *h;
static double rd(int i) { return g[i] * 3; }
int main(void) {
  int i, n = 5000;
  g = mmap(0, n * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  h = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) g[i] = i;
  #pragma omp parallel for
  for (i = 0; i < n; i++) h[i] = rd(i);
  double s = 0; for (i = 0; i < n; i++) s += h[i];
  printf("%f\n", s);
  return 0;
}
"""


def test_callee_global_pointers_on_every_path(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM)
    every_path(ref, exe, 1e-12)
    for zero_copy in ("0", "1"):
        launched = kernels_launched(exe, OMPCL_ZERO_COPY=zero_copy)
        assert launched is None or launched == [4, 1, 1, 1], launched


def test_pointer_into_unknown_memory_stays_on_the_host(tmp_path):
    ref, exe = build_both(tmp_path, UNKNOWN)
    every_path(ref, exe, 0.0, threads=("2",))
    assert kernels_launched(exe) in (None, [0])
