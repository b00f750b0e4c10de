"""OpenMP 4.5/5.x device loops (``target teams distribute parallel for``, ``target parallel
for``, a ``target`` region whose one statement is a loop construct) run as the ``parallel
for`` they are on shared memory: their placement clauses (``map``, ``num_teams``,
``thread_limit``, ``if(target:)``, ``nowait``) left to the host version; reductions and
lastprivates of the combined construct written back as gcc's host fallback writes them.
Every path at 1, 2, 3 and 7 threads against gcc -fopenmp; the kernels launched."""
from __future__ import annotations

from conftest import build_both, every_path, kernels_launched, report_lines

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
#pragma omp declare target
static double f(double x) { return x * x + 1.0; }
#pragma omp end declare target
int main(void) {
  int n = 300, m = 200, i, j; double last = -1, s = 0, mx = 0;
  double *a = malloc(sizeof(double) * n * m), *b = malloc(sizeof(double) * n * m);
  for (i = 0; i < n * m; i++) a[i] = (i % 17) * 0.25;
  #pragma omp target teams distribute parallel for collapse(2) map(to: a[0:n*m]) \
      map(tofrom: b[0:n*m]) if(target: n > 10) thread_limit(64)
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) b[i * m + j] = a[i * m + j] * 3 + i;
  #pragma omp target parallel for lastprivate(last) map(to: b[0:n*m])
  for (i = 0; i < n * m; i++) last = b[i] * 0.5;
  #pragma omp target map(to: b[0:n*m]) map(tofrom: s) nowait
  {
  #pragma omp teams distribute parallel for reduction(+:s) num_teams(8)
  for (i = 0; i < n * m; i++) s += b[i];
  }
  #pragma omp taskwait
  #pragma omp target teams distribute parallel for simd map(tofrom: a[0:n*m]) reduction(max: mx)
  for (i = 0; i < n * m; i++) { a[i] = f(a[i]); if (a[i] > mx) mx = a[i]; }
  #pragma omp target teams distribute map(tofrom: a[0:n*m])
  for (i = 0; i < n; i++) {
    #pragma omp parallel for
    for (j = 0; j < m; j++) a[i * m + j] += 1;
  }
  double t = 0; for (i = 0; i < n * m; i++) t += a[i] * (i % 5);
  printf("%f %f %f %f\n", last, s, mx, t);
  return 0;
}
"""


def test_device_loops_on_every_path(tmp_path):
    lines = report_lines(tmp_path, PROGRAM)
    assert [ln.split()[1] for ln in lines] == ["offloaded"] * 4 + ["host", "host"], lines
    assert "[nested-parallel]" in lines[-1]  # the parallel for inside the league stays
    ref, exe = build_both(tmp_path, PROGRAM)
    every_path(ref, exe, 1e-12)
    for zero_copy in ("0", "1"):
        launched = kernels_launched(exe, OMPCL_ZERO_COPY=zero_copy)
        assert launched is None or launched[:4] == [1, 1, 1, 1], launched


SPLIT = r"""#include <stdio.h>
int main(void)
{
    int i;
    long r = 0, r2 = 0;
    double lp = -1.0;
    static double a[100];
    #pragma omp target map(tofrom: a)
    #pragma omp teams distribute parallel for reduction(+:r) lastprivate(lp)
    for (i = 0; i < 100; i++) {
        a[i] = i * 0.5;
        r += i;
        lp = a[i];
    }
    #pragma omp target map(tofrom: a[0:100], r2)
    #pragma omp teams distribute parallel for reduction(+:r2)
    for (i = 0; i < 100; i++) r2 += a[i];
    printf("r %ld lp %.1f a %.1f %ld\n", r, lp, a[99], r2);
    return 0;
}
"""


def test_unmapped_results_of_a_target_region_stay_on_the_host(tmp_path):
    """A ``target`` region's loop construct reducing into (or lastprivate of) a scalar the
    target does not map: firstprivate to the target, gcc's host fallback leaves it as it
    was, so the loop stays on the host (found by the fuzzer's target family); mapped, it
    runs on the device."""
    lines = report_lines(tmp_path, SPLIT)
    assert [ln.split()[1] for ln in lines] == ["offloaded", "host"], lines
    assert "'r' is firstprivate to it (not mapped)" in lines[1]
    ref, exe = build_both(tmp_path, SPLIT)
    every_path(ref, exe, 0.0)
