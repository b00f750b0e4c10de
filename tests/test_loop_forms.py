"""Loop forms gcc parallelises that are plain, safe loops (OmpSCR-style code): OpenMP 5.0's
``var != bound`` test with a unit step, and ``firstprivate`` of a fixed-size array the loop
only reads (each thread's copy equals the original); a firstprivate array the loop writes
keeps its loop on the host. Each runs on every path against gcc's build."""
from __future__ import annotations

from conftest import build_both, device_runs, every_path
from ompcl.pipeline import translate

PROGRAM = r"""
#include <stdio.h>
#define N 20000
static double a[N], b[N];
int main(void) {
  double w[4] = {0.5, 0.25, 2.0, 1.0};
  int i, n = N;
#pragma omp parallel for
  for (i = 0; i != N; i++) a[i] = (i % 17) * 0.125;
#pragma omp parallel for firstprivate(w)
  for (i = 0; i < n; i++) b[i] = a[i] * w[i % 4];
#pragma omp parallel for
  for (i = n - 1; i != -1; --i) b[i] += 1.0 + a[n - 1 - i];
#pragma omp parallel for firstprivate(w)
  for (i = 0; i < n; i++) { w[i % 4] += 1.0; a[i] = w[i % 4]; }
  printf("%.3f %.3f %.3f\n", a[N - 1] + a[5], b[N - 1] + b[6], w[0]);
  return 0;
}
"""


def test_not_equal_tests_and_read_only_firstprivate_arrays(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM, "forms.c")
    every_path(ref, exe, 0.0, threads=("1",))  # the last loop's copies: one thread's answer
    regions = translate(str(tmp_path / "forms.c")).regions
    assert [r.offload for r in regions] == [True, True, True, False]
    assert regions[3].reasons[0].id == "clause-type"
    assert device_runs(exe) in (None, [1, 1, 1])
