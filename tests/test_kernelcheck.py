"""Kernels checked by clang's OpenCL C front end when translating (ompcl.kernelcheck): a
kernel it rejects leaves the device with a remark, its loop runs on the host, and the file's
other kernels keep the device (a rejected kernel failed the whole program's build at run time,
silently sending every loop of the file to the host)."""
from __future__ import annotations

import pytest

import ompcl.pipeline as pipeline
from ompcl import kernelcheck
from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path

needs_clang = pytest.mark.skipif(kernelcheck.compiler() is None, reason="no clang installed")

PROGRAM = r"""
int broken(int x) { return x + undeclared_thing; }
int fine(int x) { return x * 2; }
__kernel void ompcl_k0(__global int *a) { a[0] = fine(1); }
__kernel void ompcl_k1(__global int *a) { a[0] = broken(1); }
__kernel void ompcl_k2(__global int *a) { a[0] = also_undeclared; }
"""


@needs_clang
def test_errors_are_blamed_on_the_kernels_that_reach_them():
    bad = kernelcheck.rejected(PROGRAM)
    assert set(bad) == {"ompcl_k1", "ompcl_k2"}, bad
    assert "undeclared_thing" in bad["ompcl_k1"] and "also_undeclared" in bad["ompcl_k2"]


@needs_clang
def test_an_error_before_every_function_is_every_kernels():
    bad = kernelcheck.rejected("typedef struct { nosuchtype x; } s;\n" + PROGRAM)
    assert set(bad) == {"ompcl_k0", "ompcl_k1", "ompcl_k2"}


def test_no_check_when_turned_off(monkeypatch):
    monkeypatch.setenv("OMPCL_KERNEL_CHECK", "0")
    assert kernelcheck.rejected(PROGRAM) == {}


TWO_LOOPS = r"""
#include <stdio.h>
#define N 4096
double a[N], b[N];
int main(void) {
  int i;
  double s = 0;
#pragma omp parallel for
  for (i = 0; i < N; i++) a[i] = i * 0.5;
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] = a[i] + 1.0;
  for (i = 0; i < N; i++) s += b[i];
  printf("%.1f\n", s);
  return 0;
}
"""


def test_a_rejected_kernel_leaves_the_others_on_the_device(tmp_path, monkeypatch):
    """The first loop's kernel rejected (as clang would an ompcl bug): it runs on the host
    with a 'kernel-build' remark, the second keeps its kernel, the answers stay right."""
    monkeypatch.setattr(pipeline, "rejected", lambda source: {"ompcl_k0": "an error"})
    src = tmp_path / "two.c"
    src.write_text(TWO_LOOPS)
    regions = translate(str(src)).regions
    assert [r.offload for r in regions] == [False, True]
    assert regions[0].reasons[0].id == "kernel-build"
    assert "an error" in regions[0].reasons[0].message


#: a struct typedef named like an OpenCL type (OmpSCR's mandelbrot 'complex') in a
#: bounds-checked build: the checker's helpers spell it as the kernels do
COMPLEX = r"""
#include <stdio.h>
typedef struct { double re, im; } complex;
complex pts[1000];
int main(void) {
  int i;
  double s = 0;
  for (i = 0; i < 1000; i++) { pts[i].re = i; pts[i].im = 0.5 * i; }
#pragma omp parallel for
  for (i = 0; i < 1000; i++) pts[i].re = pts[i].re + pts[i].im * 2.0;
  for (i = 0; i < 1000; i++) s += pts[i].re;
  printf("%.1f\n", s);
  return 0;
}
"""


def test_typedef_named_like_an_opencl_type_in_bounds_checked_kernels(tmp_path):
    ref, exe = build_both(tmp_path, COMPLEX, "complex.c")
    every_path(ref, exe, 0.0)
    assert translate(str(tmp_path / "complex.c")).regions[0].offload
    assert device_runs(exe, OMPCL_BOUNDS_CHECK="1") in (None, [1])


#: 'register' (old C, OmpSCR's FFT): OpenCL C before 2.0 rejects it; kernels drop it
REGISTER = r"""
#include <stdio.h>
double a[1000];
static double twice(register double x) { register double y = 2 * x; return y; }
int main(void) {
  register int i;
  double s = 0;
#pragma omp parallel for
  for (i = 0; i < 1000; i++) { register int j = i % 7; a[i] = twice(j); }
  for (i = 0; i < 1000; i++) s += a[i];
  printf("%.1f\n", s);
  return 0;
}
"""


def test_register_storage_is_dropped_in_kernels(tmp_path):
    ref, exe = build_both(tmp_path, REGISTER, "register.c")
    every_path(ref, exe, 0.0)
    assert translate(str(tmp_path / "register.c")).regions[0].offload
    assert device_runs(exe) in (None, [1])


#: a packed struct (the front end reads attributes as nothing): the kernels declare it packed
#: too, so the run-time layout check agrees and the file's loops run on the device (every
#: loop of the file ran on the host)
PACKED = r"""
#include <stdio.h>
#include <stdlib.h>
typedef struct __attribute__((packed)) { char tag; double x; } pk_t;
struct wide { char c; int v; } __attribute__((__packed__));
int main(void) {
  int n = 20000, i;
  double *a = malloc(n * sizeof(double)), s = 0.0;
  pk_t *p = malloc(n * sizeof(pk_t));
  struct wide *w = malloc(n * sizeof(struct wide));
#pragma omp parallel for
  for (i = 0; i < n; i++) a[i] = 0.5 * i;
  for (i = 0; i < n; i++) { p[i].tag = (char)(i % 7); p[i].x = i; w[i].c = 1; w[i].v = i; }
#pragma omp parallel for
  for (i = 0; i < n; i++) { p[i].x = p[i].x * 2.0 + p[i].tag; w[i].v += w[i].c; }
  for (i = 0; i < n; i++) s += a[i] + p[i].x + w[i].v;
  printf("%.1f\n", s);
  return 0;
}
"""


def test_packed_structs_keep_their_layout_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, PACKED, "packed.c")
    every_path(ref, exe, 0.0)
    assert device_runs(exe) in (None, [1, 1])
