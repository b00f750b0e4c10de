"""Reductions written by hand in a parallel region (analysis.scalarupdates, threadloops,
replicated): each thread folds its share of a work-sharing loop into its own scalar and
merges it into a shared one under ``critical`` or ``atomic``. The region's device version, a
team of one, reduces the whole loop into its one copy and merges it once. Code that every
thread runs and that would change shared state otherwise when one thread runs it (a count of
threads, a partial that does not start at the operator's identity, output) keeps the region on
the host. Every program runs on every path against the original built with gcc."""
from __future__ import annotations

import pytest

from conftest import build_both, every_path, kernels_launched, report_lines

FOLDS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <omp.h>
#define MAX(a, b) ((a) > (b) ? (a) : (b))
int main(void) {
  int n = 300000, i, cnt = 0, step;
  double *a = malloc(n * sizeof(double));
  double t = 0.0, mx = -1e300, mn = 1e300, pr = 1.0, u = 0.0;
  long long bits = 0;
  for (i = 0; i < n; i++) a[i] = sin(i * 0.001) * 100.0;
  for (step = 0; step < 2; step++) {
#pragma omp parallel
  {
    double s = 0.0, hi = -1e300, lo = 1e300, p = 1.0, w = 0;
    long long b = 0;
    int c = 0;
#pragma omp for
    for (i = 0; i < n; i++) {
      if (a[i] > 50.0) { s += a[i]; c++; }
      else s -= 0.5 * a[i];
      hi = MAX(hi, a[i]);
      lo = fmin(lo, a[i] * 2.0);
      if (i % 1000 == 0) p *= 1.0001;
      b ^= (long long)(a[i] * 1000.0);
    }
#pragma omp for nowait
    for (i = 0; i < n; i++) w = w + a[i] * a[i];
#pragma omp critical
    { t += s; cnt += c; pr *= p; bits ^= b; if (hi > mx) mx = hi; if (lo < mn) mn = lo; }
#pragma omp atomic
    u += w;
  }
  }
  printf("%.6e %d %.9f %lld %.6f %.6f %.6e\n", t, cnt, pr, bits, mx, mn, u);
  return 0;
}
"""


def test_scalars_folded_by_each_thread_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, FOLDS)
    every_path(ref, exe, rtol=1e-9)
    launched = kernels_launched(exe)
    assert launched is None or launched == [2, 2], launched


#: region code every thread runs that a team of one would run once, with other results
REPLICATED = {
    "count_threads": ("{ t += s; teams++; }", ""),
    "partial_not_at_identity": ("t += s;", "s = 1.0;"),
    "partial_changed_outside_the_loop": ("t += s;", "s += 2.0;"),
    "output_every_thread": ("t += s; printf(\"part\\n\");", ""),
    "counter_in_a_callee": ("t += s; bump();", ""),
    "element_counted": ("{ t += s; hits[0]++; }", ""),
}

COUNTED = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
int calls = 0;
static void bump(void) {
#pragma omp atomic
  calls++;
}
int main(void) {
  int n = 100000, i, teams = 0, hits[1] = {0};
  double *a = malloc(n * sizeof(double)), t = 0;
  for (i = 0; i < n; i++) a[i] = i * 0.5;
#pragma omp parallel
  {
    double s = 0;
    BEFORE
#pragma omp for
    for (i = 0; i < n; i++) s += a[i];
#pragma omp critical
    MERGE
  }
  printf("%.3f %d %d %d\n", t, teams, calls, hits[0]);
  return 0;
}
"""


@pytest.mark.parametrize("name", sorted(REPLICATED))
def test_code_every_thread_runs_keeps_the_region_on_the_host(name, tmp_path):
    merge, before = REPLICATED[name]
    text = COUNTED.replace("MERGE", merge).replace("BEFORE", before)
    lines = report_lines(tmp_path, text)
    assert lines and all(" host " in ln and "[team]" in ln for ln in lines), lines
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, rtol=1e-12)


def test_a_counter_nothing_reads_keeps_the_region_on_the_device(tmp_path):
    """NPB CG's ``callcount++`` in the code every thread runs: a static nothing reads but
    its own updates may count anything, so the team of one still runs the region."""
    text = COUNTED.replace("int main(void) {", "int main(void) {\n  static int seen = 0;")
    text = text.replace("MERGE", "t += s;").replace("BEFORE", "seen++; seen += 2;")
    lines = report_lines(tmp_path, text)
    assert lines and all(" offloaded " in ln for ln in lines), lines
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, rtol=1e-12)
    launched = kernels_launched(exe)
    assert launched is None or launched == [1], launched
    printed = text.replace('printf("%.3f', 'printf("%d %.3f').replace("t, teams", "seen, t, teams")
    assert all(" host " in ln for ln in report_lines(tmp_path, printed))


def test_parallel_reduction_counting_threads_stays_on_the_host(tmp_path):
    text = COUNTED.replace("#pragma omp parallel\n", "#pragma omp parallel reduction(+:teams)\n")
    text = text.replace("MERGE", "t += s;").replace("BEFORE", "teams++;")
    assert any("updates its reduction variable 'teams'" in ln
               for ln in report_lines(tmp_path, text))
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, rtol=1e-12)


LAST_VALUE = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static double twice(double x) { return 2.0 * x; }
static void show(double x) { printf("last %.3f\n", x); }
int main(void) {
  int n = 100000, i;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) a[i] = i * 0.5;
#pragma omp parallel num_threads(1)
  {
    double last = -1.0;
#pragma omp for
    for (i = 0; i < n; i++) { last = twice(a[i]); b[i] = last; }
    show(last);
  }
  printf("%.3f\n", b[n - 1]);
  return 0;
}
"""


def test_a_value_passed_to_a_function_after_the_loop_is_read(tmp_path):
    """A thread's scalar the loop writes and the thread then passes to a function holds
    the last iteration's value (it was taken for a per-iteration temporary: -1 printed)."""
    lines = report_lines(tmp_path, LAST_VALUE)
    assert any("'last'" in ln and " host " in ln for ln in lines), lines
    ref, exe = build_both(tmp_path, LAST_VALUE)
    every_path(ref, exe, rtol=0)


ORPHANED = r"""
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
static void norms(const double *v, int n, double *sum, double *top) {
  int i;
  double s = START, m = 0.0;
#pragma omp for
  for (i = 0; i < n; i++) {
    s += v[i] * v[i];
    if (v[i] > m) m = v[i];
  }
#pragma omp atomic
  *sum += s;
#pragma omp critical
  { if (m > *top) *top = m; }
}
int main(void) {
  int n = 200000, i, step;
  double *v = malloc(n * sizeof(double)), sum = 0.0, top = 0.0;
  for (i = 0; i < n; i++) v[i] = (i % 1013) * 0.25;
  for (step = 0; step < 3; step++) {
#pragma omp parallel
    norms(v, n, &sum, &top);
  }
  printf("%.6e %.3f\n", sum, top);
  return 0;
}
"""


@pytest.mark.parametrize("start,device", [("0.0", True), ("1.0", False)])
def test_orphaned_loop_folding_into_a_local_merged_through_a_pointer(start, device, tmp_path):
    """An orphaned loop folds into its function's local, merged through a pointer: on the
    device when the local starts at zero; else the team of one would add 1 once, not once
    per thread, so the region keeps its team (the loop itself may still run on the device
    where a team of one calls it)."""
    text = ORPHANED.replace("START", start)
    ref, exe = build_both(tmp_path, text)
    every_path(ref, exe, rtol=1e-9)
    launched = kernels_launched(exe)
    # (the statistics list a loop run only inside its team too: entered, never launched)
    assert launched is None or launched == ([3] if device else [0]), launched


REUSED_INDEX = r"""
#include <stdio.h>
#include <omp.h>
#define N 512
static long key[N], rank_[N], off[64];
int main(void) {
  int i, k;
  for (i = 0; i < N; i++) key[i] = (i * 37) % N;
#pragma omp parallel private(k)
  {
    k = omp_get_thread_num();  /* the thread's number, in a variable the loop reuses */
    off[k % 64] = k;
#pragma omp for
    for (i = 0; i < N; i++) {
      long c = 0;
      for (k = 0; k < 4; k++) c += key[(i + k) % N];
      rank_[i] = c;
    }
  }
  printf("%ld %ld\n", rank_[0], rank_[N - 1]);
  return 0;
}
"""


def test_a_thread_variable_the_loop_assigns_first_is_not_blamed(tmp_path):
    """``k`` holds the thread number before the loop, whose inner loop sets it before any
    read: the remark names what keeps the loop on the host (the query), not ``k``."""
    (line,) = report_lines(tmp_path, REUSED_INDEX)
    assert " host " in line and "'k' depends" not in line and "omp_get_thread_num" in line
    ref, exe = build_both(tmp_path, REUSED_INDEX)
    every_path(ref, exe, rtol=0)
