"""Shared host loops (codegen.hostloop): a team loop whose text means the same outside its
function is compiled once, in a function both host paths call (the original region, where its
'omp for' binds to the team, and the team of one's host path, inside a parallel region of its
own); other loops stay duplicated. Built and run against the OpenMP original in every mode,
including the team of one's host path (launches failing on purpose)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from ompcl.pipeline import Options, translate

from conftest import ROOT, gcc_build, load_stats, ompcl_build, run

PROGRAM = r"""#include <stdio.h>
#define N 96
double g[N][N], h[N];

/* shared: a parameter array, a read-only scalar, region-private scalars and a private row */
static double moved(int n, double scale, double local[][N], double *out)
{
  int i, j;
  double t, row[N];
  double acc = 0.0;
#pragma omp parallel default(none) shared(n, scale, local, out, g, h, acc) private(i, j, t, row)
  {
    int k;
#pragma omp for schedule(static)
    for (i = 0; i < n; i++) {
      for (j = 0; j < n; j++) {
        t = local[i][j] * scale;
        row[j] = t + g[i][j];
      }
      for (j = 0; j < n; j++)
        g[i][j] = row[j] * 0.5;   /* MOVED-1 */
    }
#pragma omp for nowait
    for (k = 0; k < n; k++) {
      out[k] = h[k] + g[k][k] * scale;   /* MOVED-2 */
    }
#pragma omp barrier
#pragma omp for reduction(+:acc)
    for (i = 0; i < n; i++) {
      acc += out[i];   /* KEPT-REDUCTION */
    }
  }
  return acc;
}

/* kept: a macro defined in the function before the loop, the size of a passed array */
static void kept(int n, double local[][N])
{
  int i, j;
#define TWICE(x) ((x) * 2.0)
#pragma omp parallel private(j)
  {
#pragma omp for
    for (i = 0; i < n; i++) {
      for (j = 0; j < n; j++)
        local[i][j] = TWICE(local[i][j]) + g[j][i];   /* KEPT-MACRO */
    }
#pragma omp for
    for (i = 0; i < n; i++) {
      h[i] = (double)sizeof(local[0]) / N + local[i][i];   /* KEPT-SIZEOF */
    }
  }
#undef TWICE
}

/* kept: firstprivate of a variable of the function (a parameter would be private) */
static void kept_firstprivate(int n, double c)
{
  int i;
#pragma omp parallel
  {
#pragma omp for firstprivate(c)
    for (i = 0; i < n; i++) {
      h[i] += c * i;   /* KEPT-FIRSTPRIVATE */
    }
#pragma omp for
    for (i = 0; i < n; i++) {
      h[i] *= 0.5;   /* MOVED-3 */
    }
  }
}

int main(void)
{
  static double a[N][N], out[N];
  int i, j, rep;
  double total = 0.0;
  for (i = 0; i < N; i++) {
    h[i] = 0.25 * i;
    for (j = 0; j < N; j++) {
      g[i][j] = (i * 7 + j * 3) % 11;
      a[i][j] = (i + 2 * j) % 5;
    }
  }
  for (rep = 0; rep < 3; rep++) {
    total += moved(N, 0.5 + rep, a, out);
    kept(N, a);
    kept_firstprivate(N, 0.125 * rep);
  }
  printf("total %.6e out %.6e h %.6e g %.6e\n", total, out[N / 2], h[N - 1], g[3][4]);
  return 0;
}
"""


def _host(tmp_path) -> str:
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    return translate(str(src), Options()).host_source


def test_team_loops_that_mean_the_same_outside_are_compiled_once(tmp_path):
    host = _host(tmp_path)
    assert len(re.findall(r"static __attribute__\(\(noinline\)\) void ompcl_host_\d+\(", host)) == 3
    for mark in ("MOVED-1", "MOVED-2", "MOVED-3"):
        assert host.count(mark) == 1, mark
    for mark in ("KEPT-REDUCTION", "KEPT-MACRO", "KEPT-SIZEOF", "KEPT-FIRSTPRIVATE"):
        assert host.count(mark) == 2, mark   # the original region and the team of one
    # the function takes the caller's values and arrays under their names; the loop's
    # private variables are its own
    sigs = re.findall(r"void ompcl_host_\d+\(([^)]*\)[^)]*|[^)]*)\)\n", host)
    assert sigs == ["int n, double scale, double (*local)[96]", "int n, double scale, double *out",
                    "int n"]
    first = host[host.index("void ompcl_host_0"):host.index("void ompcl_host_1")]
    assert "double row[96]; (void)row;" in first and "double t; (void)t;" in first
    # the original region calls them where the loops stood, naming the region's own variable
    # the second used (default(none) allows that; the function's are named before the region)
    assert "{ ompcl_host_0(n, scale, local); }" in host
    assert "{ (void)k; ompcl_host_1(n, scale, out); }" in host
    assert "{ (void)i; (void)j; (void)row; (void)t; const int ompcl_outer" in host


@pytest.mark.parametrize("threads", ["1", "2"])
def test_shared_host_loops_give_the_original_answers(tmp_path, threads, opencl_available):
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref, ["-Wall", "-Werror"])
    res = ompcl_build([src], exe, "--cflags", "-O2 -Wall -Werror")
    assert res.returncode == 0, res.stderr
    expected = run(ref, OMP_NUM_THREADS=threads).stdout
    stats = tmp_path / "s.json"
    for mode, fault, zero_copy in (("openmp", "", "1"), ("auto", "", "1"), ("opencl", "", "1"),
                                   ("opencl", "", "0"), ("opencl", "launch", "1")):
        out = run(exe, OMPCL_DEVICE=mode, OMPCL_FAULT=fault, OMP_NUM_THREADS=threads,
                  OMPCL_STATS=str(stats), OMPCL_ZERO_COPY=zero_copy)
        assert out.returncode == 0, out.stderr
        assert out.stdout == expected, (mode, fault, zero_copy)
        if mode == "opencl" and opencl_available:
            regions = load_stats(stats)["regions"]
            runs = sum(r.get("device_runs", 0) for r in regions)
            assert (runs > 0) == (fault == ""), (fault, regions)


def test_cc_build_of_a_team_is_no_louder_than_gcc(tmp_path):
    """No new warnings: the function's variables the moved loops used are still named."""
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    flags = ["-O2", "-fopenmp", "-Wall", "-Wextra", "-c", str(src)]
    ref = subprocess.run(["gcc", *flags, "-o", str(tmp_path / "a.o")], capture_output=True,
                         text=True)
    res = subprocess.run([sys.executable, "-m", "ompcl", "cc", *flags, "-o",
                          str(tmp_path / "b.o")], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "OMPCL_STRICT": "1"})
    assert ref.returncode == 0 and res.returncode == 0, res.stderr
    assert res.stderr.count("warning:") == ref.stderr.count("warning:"), res.stderr


@pytest.mark.skipif(shutil.which("clang-15") is None, reason="clang-15 not installed")
def test_shared_host_loops_build_and_run_with_clang(tmp_path, opencl_available):
    src = tmp_path / "p.c"
    src.write_text(PROGRAM)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = subprocess.run([sys.executable, "-m", "ompcl", "cc", "-O2", "-fopenmp", "-Wall",
                          str(src), "-o", str(exe), "-lm"], capture_output=True, text=True,
                         cwd=ROOT, env={**os.environ, "OMPCL_STRICT": "1",
                                        "OMPCL_CC": "clang-15"})
    assert res.returncode == 0 and "warning" not in res.stderr, res.stderr
    expected = run(ref).stdout
    stats = tmp_path / "s.json"
    for mode in ("openmp", "opencl"):
        out = run(exe, OMPCL_DEVICE=mode, OMPCL_STATS=str(stats))
        assert out.returncode == 0 and out.stdout == expected, (mode, out.stderr)
    if opencl_available:
        assert sum(r.get("device_runs", 0) for r in load_stats(stats)["regions"]) > 0
