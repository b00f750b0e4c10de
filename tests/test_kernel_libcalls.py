"""``memset``, ``memcpy``, ``memmove`` and ``assert`` in offloaded loops (``analysis.memcalls``):
the calls run on the device as element loops (in the loop body and in called functions),
executed in both buffer modes against gcc -fopenmp; a failed assert stops the program as the
original does, on the device path too; the forms not lowered keep the loop on the host with a
remark naming the call."""
from __future__ import annotations

import pytest

from conftest import build_both, every_path, run, same_output_on_device
from ompcl.pipeline import translate

PROGRAM = r"""#include <assert.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#define N 4096
double a[N], b[N];
double rows[64][8];
struct pt { double x, y; int k; };
struct pt ps[N], qs[N];
static void copy_row(double *d, const double *s, int n) { memcpy(d, s, n * sizeof(double)); }
int main(int argc, char **argv)
{
    int i, n = 256;
    double *x = malloc(n * 16 * sizeof(double)), *y = malloc(n * 16 * sizeof(double));
    unsigned char *c = malloc(N);
    double s = 0;
    long t = 0;
    for (i = 0; i < N; i++) {
        a[i] = i % 17;
        ps[i].x = i; ps[i].y = -i; ps[i].k = i % 5;
    }
    for (i = 0; i < n * 16; i++)
        x[i] = i * 0.5;
    if (argc > 1)
        a[N / 2] = -1;
#pragma omp parallel for
    for (i = 0; i < N; i++) {
        assert(a[i] >= 0);
        b[i] += a[i];
    }
#pragma omp parallel for
    for (i = 0; i < 64; i++) {
        memset(rows[i], 0, sizeof rows[i]);
        rows[i][i & 7] = i;
    }
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double loc[16];
        int k;
        memcpy(loc, &x[i * 16], 16 * sizeof(double));
        for (k = 0; k < 16; k++)
            loc[k] *= 2;
        memcpy(&y[i * 16], loc, sizeof loc);
    }
#pragma omp parallel for
    for (i = 0; i < N; i++)
        c[i] = 1;
#pragma omp parallel for
    for (i = 0; i < N / 64; i++)
        memset(c + i * 64, i & 255, 32);
#pragma omp parallel for
    for (i = 0; i < n; i++)
        copy_row(&x[i * 16], &y[i * 16], 16);
#pragma omp parallel for
    for (i = 0; i < 64; i++) {
        memmove(&rows[i][1], &rows[i][0], 7 * sizeof(double));
        memmove(&rows[i][0], &rows[i][2], 3 * sizeof(double));
    }
#pragma omp parallel for
    for (i = 0; i < N / 4; i++)
        memcpy(&qs[i * 4], &ps[i * 4], 4 * sizeof(struct pt));
    for (i = 0; i < N; i++) {
        s += b[i] + qs[i].x - 2 * qs[i].y + qs[i].k;
        t += c[i] * (i % 7);
    }
    for (i = 0; i < 64 * 8; i++)
        s += rows[i / 8][i % 8] * (i % 5 + 1);
    for (i = 0; i < n * 16; i++)
        s += x[i] * (i % 3) + y[i];
    printf("%.17g %ld\n", s, t);
    return 0;
}
"""


def test_library_calls_run_on_the_device(tmp_path):
    src = tmp_path / "libcalls.c"
    src.write_text(PROGRAM)
    same_output_on_device(src, tmp_path, 0.0, ran=lambda regions: len(regions) == 8 and all(
        r["kernels_launched"] >= 1 for r in regions))


def _message(stderr: str) -> str:
    """The assertion message after the program's name."""
    line = next(x for x in stderr.splitlines() if "Assertion" in x)
    return line.split(": ", 1)[1]


def test_a_failed_assert_stops_the_program_as_the_original_does(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM)
    want = run(ref, "fail")
    assert want.returncode != 0 and "Assertion `a[i] >= 0' failed." in want.stderr
    paths = {"device": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "1"},
             "device, copying buffers": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"},
             "host": {"OMPCL_DEVICE": "openmp"}}
    for name, env in paths.items():
        got = run(exe, "fail", **env)
        assert got.returncode == want.returncode, (name, got.returncode, got.stderr)
        assert _message(got.stderr) == _message(want.stderr), (name, got.stderr)


def _verdict(tmp_path, body: str, decls: str = "") -> str:
    src = tmp_path / "v.c"
    src.write_text("#include <string.h>\n#include <assert.h>\n#define N 64\n"
                   f"double a[N], b[N];\n{decls}\nvoid f(double *p, double *q, int n)\n{{\n"
                   f"  int i;\n#pragma omp parallel for\n  for (i = 0; i < n; i++) {{ {body} }}\n}}\n")
    u = translate(str(src))
    assert len(u.regions) == 1
    r = u.regions[0]
    return "offloaded" if r.offload else "; ".join(x.message for x in r.reasons)


@pytest.mark.parametrize("body, decls, expect", [
    ("memset(&a[i], 0, sizeof(double));", "", "offloaded"),
    ("memcpy(&a[i], &b[i], sizeof a[0]);", "", "offloaded"),
    ("memset(p + 2 * i, 0, 2 * sizeof(double));", "", "offloaded"),
    ("memcpy(&a[i], &b[i], sizeof(double[1]));", "", "offloaded"),
    ("memcpy(&a[i], &b[i], 8);", "", "offloaded"),
    ("assert(a[i] > 0); b[i] = a[i];", "", "offloaded"),
    # a value other than 0 for doubles
    ("memset(&a[i], 1, sizeof(double));", "", "'memset'"),
    # a byte count that is no whole number of elements
    ("memcpy(&a[i], &b[i], 4);", "", "'memcpy'"),
    ("memcpy(&a[i], &b[i], n);", "", "'memcpy'"),
    # memmove between pointers that may overlap
    ("memmove(&p[i], &q[i], sizeof(double));", "", "'memmove'"),
    # a row of a two-dimensional array left by a count ompcl cannot bound
    ("memset(m[i], 0, n * sizeof(double));", "double m[N][4];", "'memset'"),
    # the result used
    ("p[i] = memcpy(&a[i], &b[i], 8) != 0;", "", "'memcpy'"),
    # an assert in a called function
    ("a[i] = g(i);", "static double g(int k) { assert(k >= 0); return k; }", "asserts in"),
])
def test_which_calls_run_on_the_device(tmp_path, body, decls, expect):
    got = _verdict(tmp_path, body, decls)
    assert expect in got, got


SIZEOF_DEREF = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void clear(double *d, int k) { memset(d, 0, (size_t)k * sizeof *d); }
int main(void) {
  int i, n = 1000; double ms[1000][4];
  double *a = malloc(n * 4 * sizeof *a);
  for (i = 0; i < n; i++) for (int q = 0; q < 4; q++) ms[i][q] = i + q;
  #pragma omp parallel for
  for (i = 0; i < n; i++) {
    double tmp[4];
    memset(tmp, 0, 4 * sizeof *tmp);
    memcpy(tmp, &ms[i][0], 4 * sizeof(*tmp));
    memmove(tmp + 1, tmp, 3 * sizeof *tmp);
    clear(&a[i * 4], 4);
    a[i * 4 + 1] += tmp[1] + tmp[3];
  }
  double s = 0; for (i = 0; i < 4 * n; i++) s += a[i] * (i % 7);
  printf("%f\n", s);
  return 0;
}
"""


def test_byte_counts_of_sizeof_a_dereference(tmp_path):
    """``k * sizeof *p``, ``4 * sizeof(*tmp)``, ``(size_t)k * sizeof *d`` (in a callee): the
    counts real code writes most, run on the device (found by the fuzzer's memcalls
    family)."""
    src = tmp_path / "p.c"
    src.write_text(SIZEOF_DEREF)
    same_output_on_device(src, tmp_path, 0.0,
                          ran=lambda regions: regions[0]["kernels_launched"] >= 1)


WHOLE = r"""#include <stdio.h>
#include <string.h>
#define N 5000
double out[N]; int cnt[N];
int main(void) {
  int i;
  #pragma omp parallel for
  for (i = 0; i < N; i++) {
    double m[4][4], m2[4][4]; int t[3][5];
    memset(m, 0, sizeof m);
    memset(t, 0, sizeof(t));
    m[i % 4][(i / 4) % 4] = i * 0.5;
    t[i % 3][i % 5] = i;
    memcpy(m2, m, sizeof m);
    out[i] = m2[i % 4][(i / 4) % 4] + m2[0][0] + m[3][3];
    cnt[i] = t[i % 3][i % 5] + t[2][4];
  }
  double s = 0; long c = 0;
  for (i = 0; i < N; i++) { s += out[i]; c += cnt[i]; }
  printf("%f %ld\n", s, c);
  return 0;
}
"""


def test_whole_arrays_of_constant_dimensions(tmp_path):
    """``memset(m, 0, sizeof m)`` and ``memcpy(m2, m, sizeof m)`` of whole local 2-D arrays
    (private to each iteration): nested element loops on the device."""
    src = tmp_path / "p.c"
    src.write_text(WHOLE)
    same_output_on_device(src, tmp_path, 0.0,
                          ran=lambda regions: regions[0]["kernels_launched"] >= 1)


@pytest.mark.parametrize("name", ["PROGRAM", "SIZEOF_DEREF", "WHOLE"])
def test_every_path_agrees(tmp_path, name):
    """The host path, both buffer modes and the team of one at 1, 2, 3 and 7 threads."""
    ref, exe = build_both(tmp_path, globals()[name])
    every_path(ref, exe, 0.0)
