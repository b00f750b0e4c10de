"""Call spans (analysis.callspans): what a callee reaches through a pointer parameter, so a
loop passing ``&z[i][j][1]`` of an array of run-time size gets its extent (MG's zran3). Unit
cases on parsed C, verdicts on whole files, and a program built and run against gcc."""
from __future__ import annotations

import pytest
from pycparser import c_ast, c_parser

from ompcl.analysis.callspans import callee_span
from ompcl.frontend.preprocess import CppOptions
from ompcl.pipeline import Options, translate

FUNCS = r"""
void fill(int n, double *x, double a, double y[]) { double v = *x; int i;
  for (i = 0; i < n; i++) { v = v * a; y[i] = v; } *x = v; }
void around(int n, double *y) { int i; for (i = 1; i <= n; i++) y[i - 1] = y[i + 1]; }
void twice(int n, double *y) { int i; for (i = 0; i < n; i++) y[2 * i] = 0; }
void moved(int n, double *y) { y++; y[0] = n; }
void passed(int n, double *y) { fill(n, y, 1.0, y); }
void whiles(int n, double *y) { int i = 0; while (i < n) y[i++] = 0; }
void mixed(int n, double *y) { int i; for (i = 0; i < n; i++) y[2 * i] = y[i]; }
void changed(int n, double *y) { n = n + 1; y[n] = 0; }
void skips(int n, double *y) { int i; for (i = 0; i < n; i++) { i += 3; y[i] = 0; } }
void nested(int m, double *y) { around(m - 1, &y[1]); around(m, y); }
void per_row(int rows, double *y) { int r; for (r = 0; r < rows; r++) around(3, y + 4 * r); }
void cast_on(int n, double *y) { twice(n, (double *)y); }
void to_int(int n, int *y);
void as_int(int n, double *y) { to_int(n, (int *)y); }
"""

CASES = [
    ("loop_over_a_parameter", "fill", 3, ({"": 0}, {"n": 1, "": -1})),
    ("both_sides_of_the_loop", "around", 1, ({"": 0}, {"n": 1, "": 1})),
    ("strided", "twice", 1, ({"": 0}, {"n": 2, "": -2})),
    ("pointer_moved", "moved", 1, None),
    ("pointer_passed_on_as_a_value_it_reads_and_writes", "passed", 1, None),
    ("passed_on_with_offsets", "nested", 1, ({"": 0}, {"m": 1, "": 1})),
    ("passed_on_in_a_loop", "per_row", 1, ({"": 0}, {"rows": 4, "": 0})),
    ("passed_on_through_a_cast", "cast_on", 1, None),
    ("passed_on_as_another_type", "as_int", 1, None),
    ("while_loop", "whiles", 1, None),
    ("ends_of_different_shapes", "mixed", 1, None),
    ("parameter_changed", "changed", 1, None),
    ("loop_variable_changed", "skips", 1, None),
]


@pytest.mark.parametrize("name,func,k,span", CASES, ids=[c[0] for c in CASES])
def test_callee_span(name, func, k, span):
    ast = c_parser.CParser().parse(FUNCS)
    fdef = next(e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == func)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    got = callee_span(fdef, k, funcs.get)
    if span is None:
        assert got is None
    else:
        assert [{key: c for key, c in b.items() if c or key == ""} for b in got] == list(span)


GRID = r"""#include <stdio.h>
#include <stdlib.h>
static void fill(int n, double *x, double a, double y[])
{
    double v = *x;
    int i;
    for (i = 0; i < n; i++) {
        v = v * a - (double)(long)(v * a);
        y[i] = v + i;
    }
    *x = v;
}
static void around(int n, double *y)
{
    int i;
    for (i = 0; i < n; i++) y[2 * i] += 1.0;
}
static void grid(double *oz, int n1, int n2, int n3)
{
    double (*zz)[n2][n1] = (double (*)[n2][n1])oz;
    int i2, i3;
#pragma omp parallel for private(i2)
    for (i3 = 1; i3 < n3 - 1; i3++) {
        double xx = 0.125 * i3;
        for (i2 = 1; i2 < n2 - 1; i2++) {
            double x = xx + 0.01 * i2;
            fill(n1 - 2, &x, 1.75, &zz[i3][i2][1]);
        }
    }
#pragma omp parallel for
    for (i3 = 0; i3 < n3; i3++)
        around(n1 / 2, &zz[i3][0][0]);
}
int main(void)
{
    int n1 = 34, n2 = 18, n3 = 10, i;
    double *z = calloc((size_t)n1 * n2 * n3, sizeof(double)), s = 0.0;
    grid(z, n1, n2, n3);
    for (i = 0; i < n1 * n2 * n3; i++)
        s += z[i] * (i % 7 + 1);
    printf("%.12e %.12e %.12e\n", s, z[n1 * n2 + n1 + 1], z[n1 * n2 * n3 - n1 - 2]);
    free(z);
    return 0;
}
"""

#: a callee whose span is unknown (a while loop): the row pointer's extent is the object it
#: points into, found at entry (``extents.object_extent``, in rows of ``sizeof(*zz)``)
UNKNOWN = r"""#include <stdio.h>
#include <stdlib.h>
static void whiles(int n, double *y, double v) { int i = 0; while (i < n) { y[i] = v * i + y[i]; i++; } }
void f(double *oz, int n1, int n2) {
  double (*zz)[n1] = (double (*)[n1])oz;
  int i;
#pragma omp parallel for
  for (i = 0; i < n2; i++) whiles(n1, &zz[i][0], 0.5 * i);
}
int main(void) {
  int n1 = 37, n2 = 400, i; double *oz = malloc(n1 * n2 * sizeof(double)), s = 0;
  for (i = 0; i < n1 * n2; i++) oz[i] = i % 5;
  f(oz, n1, n2); f(oz, n1, n2 - 3);
  for (i = 0; i < n1 * n2; i++) s += oz[i] * (1 + i % 3);
  printf("%.6f\n", s); return 0;
}
"""


def _remarks(tmp_path, text: str):
    src = tmp_path / "t.c"
    src.write_text(text)
    return {(m.loc.line, m.id) for m in translate(str(src), Options(CppOptions())).remarks}


def test_elements_passed_to_callees_are_offloaded(tmp_path):
    assert {(22, "offloaded"), (30, "offloaded")} <= _remarks(tmp_path, GRID)


def test_callee_span_unknown_takes_the_object(tmp_path):
    from conftest import build_both, device_runs, every_path
    assert (7, "offloaded") in _remarks(tmp_path, UNKNOWN)
    ref, exe = build_both(tmp_path, UNKNOWN, "unknown.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [2])


def test_elements_passed_to_callees_run_on_the_device(tmp_path, opencl_available):
    from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "g.c"
    src.write_text(GRID)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "s.json"
    for threads in ("1", "2"):
        expected = run(ref, OMP_NUM_THREADS=threads).stdout
        for zero_copy in ("0", "1"):
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                      OMPCL_STATS=str(stats), OMP_NUM_THREADS=threads)
            assert out.returncode == 0, out.stderr
            compare_outputs(expected, out.stdout, 1e-12)
            if opencl_available:
                assert [r["device_runs"] for r in load_stats(stats)["regions"]] == [1, 1]


NESTED = r"""#include <stdio.h>
#include <stdlib.h>
static float d2(const float *a, const float *b, int n) {
  int i; float s = 0;
  for (i = 0; i < n; i++) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}
static float near(const float *pt, int nf, const float *c) {
  return d2(pt, c, nf) + d2(pt + 1, c, nf - 1);
}
int main(void) {
  int np = 3000, nf = 6, i;
  float **f = malloc(np * sizeof(float *));
  float *g = malloc(np * nf * sizeof(float)), *out = malloc(np * sizeof(float));
  float c[6] = {1, 2, 3, 4, 5, 6};
  f[0] = malloc(np * nf * sizeof(float));
  for (i = 1; i < np; i++) f[i] = f[i - 1] + nf;
  for (i = 0; i < np * nf; i++) { f[0][i] = i % 7; g[i] = i % 5; }
#pragma omp parallel for
  for (i = 0; i < np; i++) out[i] = near(f[i], nf, c);
#pragma omp parallel for
  for (i = 0; i < np; i++) out[i] += near(g + i * nf, nf, c);
  double t = 0;
  for (i = 0; i < np; i++) t += out[i];
  printf("%.3f\n", t);
  return 0;
}
"""


def test_pointers_passed_on_through_helpers_run_on_the_device(tmp_path):
    """A row of a pointer tree and a heap row passed to a helper that passes them on (k-means'
    find_nearest_point -> euclid_dist_2): the span composes through the calls."""
    from conftest import build_both, device_runs, every_path
    assert {(19, "offloaded"), (21, "offloaded")} <= _remarks(tmp_path, NESTED)
    ref, exe = build_both(tmp_path, NESTED, "nested.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1, 1])
