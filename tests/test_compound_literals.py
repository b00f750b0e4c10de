"""C99 compound literals in loop bodies (SNU NPB FT's ``dcomplex`` macros, ``#define
dcmplx_mul2(a, b) (dcomplex){(a).real * (b), (a).imag * (b)}``): values of struct types,
with designated and nested initialisers, translated as written; an array literal (a pointer
to an unnamed object) keeps its loop on the host."""
from __future__ import annotations

from conftest import build_both, device_runs, every_path
from ompcl.pipeline import translate

PROGRAM = r"""
#include <stdio.h>
typedef struct { double real; double imag; } dcomplex;
typedef struct { int a; float b[3]; } rec;
#define cmul(a, b) ((dcomplex){(a).real * (b).real - (a).imag * (b).imag, \
                               (a).real * (b).imag + (a).imag * (b).real})
#define N 2048
dcomplex u[N], w[N];
rec r[N];
int main(void) {
  int i, k = 1;
  double s = 0;
  for (i = 0; i < N; i++) {
    u[i] = (dcomplex){i * 0.5, 1.0 - i};
    w[i] = (dcomplex){.imag = 0.25, .real = i % 7};
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    dcomplex t = cmul(u[i], w[i]);
    u[i] = (dcomplex){.real = t.real + k, .imag = t.imag};
    r[i] = (rec){i, {[2] = 2.0f, [0] = t.real, t.imag}};
  }
  for (i = 0; i < N; i++) s += u[i].real - u[i].imag + r[i].a + r[i].b[0] + r[i].b[1];
  printf("%.6f\n", s);
  return 0;
}
"""

ARRAY_LITERAL = r"""
int out[100];
void f(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 100; i++) { int *p = (int[]){i, 2 * i}; out[i] = p[0] + p[1]; }
}
"""


def test_struct_literals_run_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM, "literals.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe) in (None, [1])


def test_an_array_literal_stays_on_the_host(tmp_path):
    src = tmp_path / "array.c"
    src.write_text(ARRAY_LITERAL)
    (region,) = translate(str(src)).regions
    assert not region.offload
