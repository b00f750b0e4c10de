"""Pointer trees on the device (issue 37): ``double **`` with rows allocated one by one (an
LU reduction as OmpSCR writes it), ``double ***`` with rows of a few bytes (NPB 3.0's MG
style), rows in one block (``m[i] = m[0] + i * n``). The runtime gathers the rows into a
staging block and scatters written rows back (``ompcl_rt_tree.c``); rows shared by two trees
where one is written keep the loop on the host. Each runs on every path against gcc's build,
and the statistics show where the loop ran."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.pipeline import translate

from conftest import ROOT, build_both, device_runs, every_path, load_stats, run

LU = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int size = argc > 1 ? atoi(argv[1]) : 120, i, j, k;
  double **M = calloc(size, sizeof(double *)), **L = calloc(size, sizeof(double *));
  for (i = 0; i < size; i++) {
    M[i] = calloc(size, sizeof(double));
    L[i] = calloc(size, sizeof(double));
  }
  for (i = 0; i < size; i++)
    for (j = 0; j < size; j++)
      M[i][j] = i == j ? 1.0 + size : 1.0 + ((i * 7 + j * 3) % 11) * 0.01;
  for (k = 0; k < size - 1; k++) {
#pragma omp parallel for private(i, j) schedule(static, 1)
    for (i = k + 1; i < size; i++) {
      L[i][k] = M[i][k] / M[k][k];
      for (j = k + 1; j < size; j++)
        M[i][j] = M[i][j] - L[i][k] * M[k][j];
    }
  }
  double s = 0, t = 0;
  for (i = 0; i < size; i++)
    for (j = 0; j < size; j++) { s += M[i][j] * (i + 1); t += L[i][j] * (j + 2); }
  printf("%.10e %.10e\n", s, t);
  return 0;
}
"""

#: a 3-D stencil over ``double ***`` whose rows are 12 doubles (below the runtime's heap
#: table's smallest block), read from one tree and written to another, as NPB 3.0's MG
GRID = r"""
#include <stdio.h>
#include <stdlib.h>
static double ***cube(int n3, int n2, int n1) {
  int k, j;
  double ***u = malloc(n3 * sizeof(double **));
  for (k = 0; k < n3; k++) {
    u[k] = malloc(n2 * sizeof(double *));
    for (j = 0; j < n2; j++) u[k][j] = malloc(n1 * sizeof(double));
  }
  return u;
}
static void smooth(double ***r, double ***u, int n1, int n2, int n3) {
  int i3, i2, i1;
#pragma omp parallel for private(i1, i2)
  for (i3 = 1; i3 < n3 - 1; i3++)
    for (i2 = 1; i2 < n2 - 1; i2++)
      for (i1 = 1; i1 < n1 - 1; i1++)
        r[i3][i2][i1] = u[i3][i2][i1] * 0.5 + 0.125 * (u[i3 - 1][i2][i1] + u[i3 + 1][i2][i1]
                        + u[i3][i2 - 1][i1] + u[i3][i2 + 1][i1]);
}
int main(void) {
  int n = 12, i, j, k, t;
  double ***u = cube(n, n, n), ***r = cube(n, n, n), s = 0;
  for (k = 0; k < n; k++)
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++) { u[k][j][i] = (i * 3 + j * 5 + k * 7) % 17; r[k][j][i] = 0; }
  for (t = 0; t < 4; t++) {
    smooth(r, u, n, n, n);
    smooth(u, r, n, n, n);
  }
  for (k = 0; k < n; k++)
    for (j = 0; j < n; j++)
      for (i = 0; i < n; i++) s += u[k][j][i] * (1 + i + 2 * j + 3 * k);
  printf("%.10e\n", s);
  return 0;
}
"""

#: rows in one block (Rodinia's kmeans allocates ``feature[i] = feature[0] + i * n``), and a
#: second tree whose rows are the first's: written through one, read through the other, the
#: loop must stay on the host at run time
SHARED = r"""
#include <stdio.h>
#include <stdlib.h>
#define N 64
int main(void) {
  int i, j;
  double **a = malloc(N * sizeof(double *)), **b = malloc(N * sizeof(double *));
  double **c = malloc(N * sizeof(double *));
  a[0] = malloc(N * N * sizeof(double));
  c[0] = malloc(N * N * sizeof(double));
  for (i = 1; i < N; i++) { a[i] = a[0] + i * N; c[i] = c[0] + i * N; }
  for (i = 0; i < N; i++) b[i] = a[i];
  for (i = 0; i < N * N; i++) { a[0][i] = i % 9; c[0][i] = 1; }
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) c[i][j] = 2.0 * a[i][j] + c[i][j];
#pragma omp parallel for private(j)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++) a[i][j] = a[i][j] + b[i][j];
  double s = 0;
  for (i = 0; i < N * N; i++) s += a[0][i] * (i % 5) + c[0][i];
  printf("%.6f\n", s);
  return 0;
}
"""

#: rows of trees through derived pointers (``double *row = b[i];``, ``analysis.derived``)
ROWS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 300, m = 200, i, j;
  double **a = malloc(n * sizeof(double *)), **b = malloc(n * sizeof(double *));
  for (i = 0; i < n; i++) { a[i] = malloc(m * sizeof(double)); b[i] = malloc(m * sizeof(double)); }
  for (i = 0; i < n; i++) for (j = 0; j < m; j++) { a[i][j] = (i * 3 + j) % 11; b[i][j] = 0; }
#pragma omp parallel for private(j)
  for (i = 1; i < n; i++) {
    double *row = b[i];
    double *up = a[i - 1];
    for (j = 0; j < m; j++) row[j] = up[j] * 0.5 + a[i][j];
  }
  double s = 0; for (i = 0; i < n; i++) for (j = 0; j < m; j++) s += b[i][j] * (1 + j % 3);
  printf("%.4f\n", s); return 0;
}
"""

#: rows of a tree passed to functions (their spans widen the gathered rows), and an element's
#: address passed with the rest of its row
ROW_CALLS = r"""
#include <stdio.h>
#include <stdlib.h>
static double rowsum(const double *r, int n) { double s = 0; int j; for (j = 0; j < n; j++) s += r[j] * (j + 1); return s; }
static void scale(double *r, int n, double f) { int j; for (j = 0; j < n; j++) r[j] *= f; }
int main(void) {
  int n = 300, m = 123, i, j;
  double **a = malloc(n * sizeof(double *)), *out = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) { a[i] = malloc(m * sizeof(double)); for (j = 0; j < m; j++) a[i][j] = (i + j) % 9; }
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    out[i] = rowsum(a[i], m);
    scale(&a[i][1], m - 1, 0.5);
  }
  double s = 0; for (i = 0; i < n; i++) s += out[i] + a[i][m - 1] + a[i][0];
  printf("%.6f\n", s); return 0;
}
"""

PASSED = r"""
double f(double **m, int i);
void g(double **m, int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) m[i][0] = f(m, i);
}
"""


def _stats(exe: Path, tmp_path: Path, *args: str) -> list[dict]:
    stats = tmp_path / "st.json"
    out = run(exe, *args, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    return st["regions"] if st["device"]["available"] else []


def test_lu_over_rows_allocated_one_by_one(tmp_path):
    ref, exe = build_both(tmp_path, LU, "lu.c")
    every_path(ref, exe, 1e-9)
    assert device_runs(exe) in (None, [119])


def test_three_level_tree_with_small_rows(tmp_path):
    ref, exe = build_both(tmp_path, GRID, "grid.c")
    every_path(ref, exe, 1e-12)
    runs = device_runs(exe)
    assert runs is None or runs == [8], runs


def test_rows_in_one_block_and_rows_shared_by_two_trees(tmp_path):
    ref, exe = build_both(tmp_path, SHARED, "shared.c")
    every_path(ref, exe, 1e-12)
    regions = {r["line"]: r for r in _stats(exe, tmp_path)}
    if regions:
        first, second = sorted(regions)
        assert regions[first]["device_runs"] == 1  # c from a: distinct rows
        # a written, b's rows are a's: the runtime declines, the original runs
        assert regions[second]["device_runs"] == 0
        assert regions[second]["check_declines"] == 1


def test_rows_of_trees_through_derived_pointers(tmp_path):
    ref, exe = build_both(tmp_path, ROWS, "rows.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_rows_of_a_tree_passed_to_functions(tmp_path):
    ref, exe = build_both(tmp_path, ROW_CALLS, "rowcalls.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def test_a_tree_passed_to_a_function_stays_on_the_host(tmp_path):
    src = tmp_path / "passed.c"
    src.write_text(PASSED)
    (region,) = translate(str(src)).regions
    assert not region.offload
    assert any(r.id == "data-type" and "pointer tree 'm' is passed to a function" in r.message
               for r in region.reasons), region.reasons


THIRDPARTY = ROOT.parent / "shared" / "thirdparty"


@pytest.mark.skipif(not (THIRDPARTY / "run_cases.py").exists(),
                    reason="no shared/thirdparty beside this checkout")
@pytest.mark.parametrize("case", ["ompscr_lu", "npb3c_mg"])
def test_thirdparty_trees_on_every_path(case, tmp_path, opencl_available):
    """OmpSCR's LU (``double **``) and NPB 3.0's MG (``double ***``) built the way their
    authors build them with ``ompcl cc`` in gcc's place, right on every path, and (with a
    device) launching kernels."""
    tree = tmp_path / "tp"
    shutil.copytree(THIRDPARTY, tree, ignore=shutil.ignore_patterns(
        "polybench-acc", "comd", "rsbench", "bgame", "prk", "stream"))
    for p in tree.rglob("*"):
        p.chmod(p.stat().st_mode | 0o200)
    (tree / "npb3c" / "bin").mkdir(exist_ok=True)
    cmd = [sys.executable, "-u", str(tree / "run_cases.py"), "--root", str(tree),
           "--only", case, "--cc", f"{sys.executable} -m ompcl cc", "--threads", "2",
           "--work", str(tmp_path / "work"), "--mode", "OMPCL_DEVICE=opencl",
           "--mode", "OMPCL_DEVICE=opencl OMPCL_ZERO_COPY=0", "--mode", "OMPCL_DEVICE=openmp"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    assert "1 right in every mode" in res.stdout, res.stdout[-3000:]
    if opencl_available:  # the harness counts the kernels each run launched
        assert "1 of those launched kernels" in res.stdout, res.stdout[-3000:]


ONE_BLOCK_STEPS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 400, m = 64, i, j, step;
  double **a = malloc(n * sizeof *a), **b = malloc(n * sizeof *b);
  a[0] = malloc((size_t)n * m * sizeof **a);
  b[0] = malloc((size_t)n * m * sizeof **b);
  for (i = 1; i < n; i++) { a[i] = a[i - 1] + m; b[i] = b[i - 1] + m; }
  for (i = 0; i < n; i++) for (j = 0; j < m; j++) { a[i][j] = (i * 3 + j) % 17; b[i][j] = 0; }
  for (step = 0; step < 10; step++) {
#pragma omp parallel for private(j)
    for (i = 1; i < n - 1; i++)
      for (j = 0; j < m; j++) b[i][j] = 0.25 * (a[i - 1][j] + a[i + 1][j]) + 0.5 * a[i][j];
#pragma omp parallel for private(j)
    for (i = 1; i < n - 1; i++)
      for (j = 0; j < m; j++) a[i][j] = b[i][j];
  }
  double s = 0;
  for (i = 0; i < n; i++) for (j = 0; j < m; j++) s += a[i][j] * (j + 1);
  printf("%.9e\n", s);
  return 0;
}
"""


def test_trees_cut_from_one_block_stay_on_the_device(tmp_path):
    """Rows cut from one allocation, back to back: the kernels index that memory itself,
    mapped and kept between the steps like any array (no staging block gathered at each
    launch): with copying buffers, each tree crosses about once."""
    ref, exe = build_both(tmp_path, ONE_BLOCK_STEPS, "oneblock.c")
    every_path(ref, exe, 1e-12)
    stats = tmp_path / "cp.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    if not st["device"]["available"]:
        pytest.skip("no OpenCL device")
    assert [r["device_runs"] for r in st["regions"]] == [10, 10]
    data = 2 * 400 * 64 * 8
    assert st["totals"]["bytes_to_device"] <= 1.5 * data, st["totals"]


#: neighbours' rows read under a guard (leukocyte's dilation): the row subscript ``i + d``
#: reaches below 0 and past the last row, where the original never reads
GUARDED_NEIGHBOURS = r"""
#include <stdio.h>
#include <stdlib.h>
static double **rows(int m, int n, int one_block) {
  double **me = malloc(m * sizeof(double *)), *base = one_block ? calloc(m * n, 8) : 0;
  int i;
  for (i = 0; i < m; i++) me[i] = one_block ? base + i * n : calloc(n, sizeof(double));
  return me;
}
int main(void) {
  int m = 300, n = 200, i, j, d, blk;
  for (blk = 0; blk < 2; blk++) {
    double **in = rows(m, n, blk), **out = rows(m, n, blk), s = 0;
    for (i = 0; i < m; i++) for (j = 0; j < n; j++) in[i][j] = (i * 31 + j * 17) % 101;
#pragma omp parallel for private(j, d)
    for (i = 0; i < m; i++)
      for (j = 0; j < n; j++) {
        double mx = 0.0;
        for (d = -3; d <= 3; d++) {
          int y = i + d;
          if (y >= 0 && y < m && in[y][j] > mx) mx = in[y][j];
        }
        out[i][j] = mx + in[i][j];
      }
    for (i = 0; i < m; i++) for (j = 0; j < n; j++) s += out[i][j] * (i % 7 + 1);
    printf("%d %.6e\n", blk, s);
  }
  return 0;
}
"""


def test_guarded_neighbour_rows_run_on_the_device(tmp_path):
    """The root's rows the kernel may reach are cut to the pointer array the root points
    into: rows in one block and rows allocated one by one both run on the device."""
    ref, exe = build_both(tmp_path, GUARDED_NEIGHBOURS, "guarded.c")
    every_path(ref, exe, 1e-12)
    runs = device_runs(exe)
    assert runs is None or runs == [2], runs
