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


#: enumerators and types declared inside the function: the generated functions outside it
#: cannot name them (the translated file failed to compile and the whole file fell back).
#: An enumerator the loop uses is read as its value; one in the type of an array the loop
#: uses keeps the loop on the host; a local struct type is declared at file scope under a
#: name of its own (``analysis.localtypes``, tests/test_local_types.py)
BLOCK_SCOPE = r"""
#include <stdio.h>
int main(void) {
  enum { N_ = 100, M_ = N_ * 2, K_ };
  typedef struct { double x, y; } pt;
  static int a[100], b[M_];
  static pt p[100];
  long s = 0;
  int i;
#pragma omp parallel for
  for (i = 0; i < N_; i++) a[i] = i + K_;
#pragma omp parallel for
  for (i = 0; i < 100; i++) { p[i].x = i; p[i].y = 2 * i; }
#pragma omp parallel for
  for (i = 0; i < 100; i++) b[i] = a[i] + i % 3;
  for (i = 0; i < 100; i++) s += a[i] + b[i] + (long)p[i].y;
  printf("%ld\n", s);
  return 0;
}
"""


def test_names_declared_inside_the_function(tmp_path):
    ref, exe = build_both(tmp_path, BLOCK_SCOPE, "block.c")
    every_path(ref, exe, 0.0)
    regions = translate(str(tmp_path / "block.c")).regions
    assert [r.offload for r in regions] == [True, True, False]
    assert regions[2].reasons[0].id == "local-type" and "'M_'" in regions[2].reasons[0].message
    assert device_runs(exe) in (None, [1, 1])
