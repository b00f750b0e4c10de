"""The C library's pure math functions in a loop body run on the device (issue 37): the
common ones (``abs``, ``fabs``, ``fmin``/``fmax``, ``sqrt``, ``exp``, ``pow`` ...), their
``float`` forms, and those without an OpenCL built-in of the same name (``lround``,
``lrint``, ``nearbyint``). Run on every path against gcc's build."""
from __future__ import annotations

from conftest import build_both, device_runs, every_path

MATH = r"""
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#define N 1000
double a[N]; float f[N]; int ia[N]; long la[N];
int main(void) {
  int i; double s = 0;
  for (i = 0; i < N; i++) { a[i] = (i - 500) * 0.01; f[i] = (float)a[i]; ia[i] = i - 500; la[i] = 3L * (i - 500); }
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < N; i++) {
    s += abs(ia[i]) + labs(la[i]) + fabs(a[i]) + fmin(a[i], 0.3) + fmax(a[i], -0.2) + sqrt(fabs(a[i])) + exp(a[i] * 0.1)
       + pow(fabs(a[i]), 1.5) + floor(a[i]) + ceil(a[i]) + fabsf(f[i]) + sqrtf(fabsf(f[i])) + expf(f[i] * 0.1f)
       + log10(1.0 + fabs(a[i])) + atan2(a[i], 1.0) + hypot(a[i], 2.0) + cbrt(a[i]) + erf(a[i]) + round(a[i])
       + trunc(a[i]) + copysign(1.0, a[i]) + fminf(f[i], 0.1f) + fmaxf(f[i], 0.2f) + log(6.0 + a[i]) + sin(a[i]) + cos(a[i]) + tanh(a[i])
       + fmod(a[i], 0.7) + llabs(la[i]) + ldexp(a[i], 2) + log2(6.0 + a[i]) + expm1(a[i] * 0.01) + log1p(fabs(a[i])) + (double)lround(a[i]);
  }
  printf("%.9e\n", s);
  return 0;
}
"""


def test_pure_math_functions_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, MATH, "m.c")
    every_path(ref, exe, 1e-9)
    assert device_runs(exe) in (None, [1])


SQUARES = r"""
#include <stdio.h>
#include <math.h>
#define N 4096
double a[N], b[N]; float f[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) { a[i] = (i % 97) * 1.37 - 40.1; f[i] = (float)(i % 31) * 0.3f; }
#pragma omp parallel for
  for (i = 0; i < N; i++)
    b[i] = (pow(a[i] - 100, 2) - pow(a[i] - 228, 2.0)) / 50.0 + powf(f[i], 2.f) + pow(a[i], 1.5 + 0.5);
  for (i = 0; i < N; i += 512) printf("%.17g\n", b[i]);
  return 0;
}
"""


def test_squares_by_pow_are_products_as_gcc_makes_them(tmp_path):
    """``pow(x, 2)`` is printed ``x * x`` in kernels (as gcc folds it; OpenCL's pow is slow,
    and not always as exact): the answers equal gcc's to the last bit."""
    from ompcl.pipeline import translate
    src = tmp_path / "sq.c"
    src.write_text(SQUARES)
    assert translate(str(src)).kernel_source.count("pow(") == 1  # pow(a[i], 1.5 + 0.5) stays
    ref, exe = build_both(tmp_path, SQUARES, "sq.c")
    every_path(ref, exe, 0)
    assert device_runs(exe) in (None, [1])
