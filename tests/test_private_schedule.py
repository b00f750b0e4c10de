"""firstprivate and lastprivate scalars whose value depends on the schedule stay on the host
(a firstprivate copy an iteration reads after an earlier iteration of the same thread wrote
it; a lastprivate the last iteration may leave unassigned), with a ``schedule-dependent``
remark; firstprivate together with lastprivate, each iteration writing the scalar before it
reads it, runs on the device. Every path at 1, 2, 3 and 7 threads against gcc -fopenmp."""
from __future__ import annotations

from conftest import build_both, every_path, kernels_launched, report_lines

DEVICE = r"""#include <stdio.h>
#define N 1000
double a[N], b[N];
int main(void) {
  int i; double x = 2.0, y = 1.0, z = 5.0;
  for (i = 0; i < N; i++) a[i] = i * 0.5;
  #pragma omp parallel for firstprivate(x) lastprivate(x)
  for (i = 0; i < N; i++) { x = a[i] * 2; b[i] += x; }
  #pragma omp parallel for firstprivate(y, z) lastprivate(y)
  for (i = 0; i < N; i++) { if (a[i] > 3) y = a[i] + z; else y = z; b[i] += y; }
  double w = 0;
  #pragma omp parallel for lastprivate(w)
  for (i = 0; i < N; i++) { for (int j = 3; j >= 0; j--) w = a[i] + j; b[i] += w; }
  int m = N / 300; double v = 0;  /* bounds the same in every iteration: all assign or none */
  #pragma omp parallel for lastprivate(v)
  for (i = 0; i < N; i++) { for (int j = 0; j < m - 1; j++) v = a[i] * j; b[i] += v; }
  double s = 0; for (i = 0; i < N; i++) s += b[i] * (i % 7);
  printf("%f %f %f %f %f\n", s, x, y, w, v);
  return 0;
}
"""

#: each loop's answer depends on which iterations a thread ran before: at one thread the
#: original's answer is the sequential one, which a device schedule would not give
HOST = r"""#include <stdio.h>
#define N 1001
double a[N], b[N];
int main(void) {
  int i; double x = 2.0, y = 1.0, w = -1.0;
  for (i = 0; i < N; i++) a[i] = i * 0.5;
  #pragma omp parallel for firstprivate(y)
  for (i = 0; i < N; i++) { y += 1; b[i] = y; }
  #pragma omp parallel for firstprivate(x) lastprivate(x)
  for (i = 0; i < N; i++) { x = a[i] * 2 + x; b[i] += x; }
  #pragma omp parallel for lastprivate(w)
  for (i = 0; i < N; i++) { if (i % 2 == 1) w = a[i]; b[i] += a[i]; }
  double s = 0; for (i = 0; i < N; i++) s += b[i] * (i % 7);
  printf("%f %f %f\n", s, x, w);
  return 0;
}
"""


def test_firstprivate_lastprivate_on_every_path(tmp_path):
    ref, exe = build_both(tmp_path, DEVICE)
    every_path(ref, exe, 0.0)
    launched = kernels_launched(exe)
    assert launched is None or launched == [1, 1, 1, 1], launched


def test_schedule_dependent_copies_stay_on_the_host(tmp_path):
    lines = report_lines(tmp_path, HOST)
    assert len(lines) == 3 and all("[schedule-dependent]" in ln for ln in lines), lines
    assert "firstprivate 'y' carries" in lines[0] and "firstprivate 'x' carries" in lines[1]
    assert "lastprivate 'w' is not assigned in every iteration" in lines[2]
    ref, exe = build_both(tmp_path, HOST)
    every_path(ref, exe, 0.0)


LINEAR = r"""#include <stdio.h>
#define N 1000
double a[N], b[N];
int main(void) {
  int i, j = 3, k = 0, st = 3, q = 1; long m = 7;
  for (i = 0; i < N; i++) a[i] = i * 0.5;
  #pragma omp parallel for linear(j:2)
  for (i = 0; i < N; i++) { b[i] += j; j += 2; }
  #pragma omp parallel for linear(k : st) linear(m)
  for (i = 10; i < N; i += 3) { b[i] += a[k % N] + m; k = k + st; m++; }
  #pragma omp parallel for linear(q : 2)
  for (i = 0; i < N; i++) { if (i % 3 == 0) continue; b[i] += q; q += 2; }
  double s = 0; for (i = 0; i < N; i++) s += b[i] * (i % 7);
  printf("%f %d %d %ld %d\n", s, j, k, m, q);
  return 0;
}
"""


def test_linear_on_every_path(tmp_path):
    """A linear variable the body steps once per iteration runs on the device (each
    iteration's copy from its value before the loop, the last one's written back); one an
    iteration may skip stepping stays on the host (gcc's values differ from OpenMP's)."""
    lines = report_lines(tmp_path, LINEAR)
    assert [ln.split()[1] for ln in lines] == ["offloaded", "offloaded", "host"], lines
    assert "linear 'q' is not stepped by 2 once in every iteration" in lines[2]
    ref, exe = build_both(tmp_path, LINEAR)
    every_path(ref, exe, 0.0)
    launched = kernels_launched(exe)
    assert launched is None or launched[:2] == [1, 1], launched


def test_linear_in_a_team_on_every_path(tmp_path):
    """An ``omp for linear`` of a parallel region (its variable shared in the region)."""
    text = LINEAR.replace("  #pragma omp parallel for linear(j:2)\n  for (i = 0; i < N; i++) "
                          "{ b[i] += j; j += 2; }",
                          "  #pragma omp parallel\n  {\n  #pragma omp for linear(j:2)\n"
                          "  for (i = 0; i < N; i++) { b[i] += j * a[i]; j += 2; }\n"
                          "  #pragma omp for\n  for (i = 0; i < N; i++) b[i] += 1;\n  }")
    assert "omp for linear(j:2)" in text
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, 0.0)
