"""Four shapes of real code whose loops run on the device: ``static const`` lookup tables
declared in called functions and in loop bodies (private copies, ``analysis.statics``),
subscripted string literals (``"ACGT"[k]``, ``*("TGCA" + k)``), local unions (anonymous,
named, typedef'd; type punning included) and locals declared with GNU's ``__typeof__``,
``typeof`` and ``__auto_type`` in the kernel-style ``MAX``/``MIN`` statement-expression
macros (``analysis.typeofs``). Each program is built by gcc -fopenmp and by ompcl, run on
the device in both buffer modes (and on every path) and compared."""
from __future__ import annotations

from conftest import build_both, every_path, same_output_on_device

from ompcl.pipeline import translate

PROGRAM = r"""#include <stdio.h>
#include <math.h>
#define N 2000
#define MAX(p, q) ({ __typeof__(p) _p = (p); __typeof__(q) _q = (q); _p > _q ? _p : _q; })
#define MIN(p, q) ({ typeof(p) _a = (p); typeof(q) _b = (q); _a < _b ? _a : _b; })
#define SWAP(x, y) do { __auto_type _t = (x); (x) = (y); (y) = _t; } while (0)
enum { K0 = 3, K1 = 5 };
typedef union { double d; unsigned long u; unsigned char c[8]; } pun_t;
union fi { float f; int i; };
static const double tab[4] = {1.0, 2.0, 3.0, 4.0};
static double look(int k) { static const double t2[4] = {0.5, 1.5, 2.5, 3.5}; return t2[k & 3]; }
static int code(int k) {
  static const int codes[] = {K0, K1, -7, 11 * 2};
  static const int one = 1;
  return codes[k % 4] + one;
}
static long sign_bit(double x) { pun_t p; p.d = x; return (long)(p.u >> 63); }
static double clampf(double x) { __auto_type lo = 0.25; return MIN(MAX(x, lo), 10.0); }
double a[N], b[N], c[N]; long bits[N]; int iv[N]; char seq[N], rev[N];
int main(void) {
  int i;
  for (i = 0; i < N; i++) {
    a[i] = sin(i * 0.37) * 20.0; b[i] = c[i] = 0; iv[i] = (i * 37) % 101 - 50;
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] += look(i) + tab[i & 3] + code(i);
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    static const short w[3] = {2, -1, 4};
    c[i] = a[i] * w[i % 3];
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) { seq[i] = "ACGT"[i & 3]; rev[i] = *("TGCA" + (i & 3)); }
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    union { double d; long l; } u;
    u.d = a[i];
    bits[i] = (u.l & 0xff) + sign_bit(a[i]);
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    pun_t p; union fi q;
    p.d = a[i]; q.f = (float)a[i];
    bits[i] += p.c[7] + (q.i >> 23);
  }
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] += MAX(a[i], 3.0) + MIN(MAX(iv[i], -10), 10) + clampf(a[i]);
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    double x = a[i], y = c[i];
    SWAP(x, y);
    __auto_type z = iv[i] * 2u;
    c[i] = x - y + z;
  }
  double s = 0; long t = 0;
  for (i = 0; i < N; i++) { s += b[i] + c[i]; t += bits[i] + seq[i] * (i % 7) + rev[i]; }
  printf("%.9g %ld\n", s, t);
  return 0;
}
"""


def _launched(regions) -> bool:
    return all(r["kernels_launched"] >= 1 for r in regions)


def test_tables_literals_unions_and_typeof_on_the_device(tmp_path):
    src = tmp_path / "shapes.c"
    src.write_text(PROGRAM)
    regions = translate(str(src)).regions
    assert [r.offload for r in regions] == [True] * 7, [r.reasons for r in regions]
    same_output_on_device(src, tmp_path, 1e-12,
                          ran=lambda regions: regions[0]["kernels_launched"] >= 1
                          and _launched(regions))


def test_every_path_agrees(tmp_path):
    ref, exe = build_both(tmp_path, PROGRAM, "shapes.c")
    every_path(ref, exe, 1e-12)  # the host path and the team of one at 1, 2, 3 and 7 threads


HOST_ONLY = r"""#include <stdio.h>
#define N 100
double a[N], b[N];
static double counted(int k) { static int calls; calls++; return k + calls * 0.0; }
static double table(int k) { static double t[2] = {1, 2}; return t[k & 1]; }
int main(void) {
  int i;
  for (i = 0; i < N; i++) a[i] = i;
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] = counted(i);
#pragma omp parallel for
  for (i = 0; i < N; i++) b[i] += table(i);
#pragma omp parallel for
  for (i = 0; i < N; i++) { __typeof__(i ? a : b) p = a; b[i] += p[i]; }
#pragma omp parallel for
  for (i = 0; i < N; i++) { typeof(i ? a : b) q; b[i] += i; }
  printf("%f\n", b[N - 1]);
  return 0;
}
"""


def test_shared_statics_and_unknown_types_stay_on_the_host(tmp_path):
    """A ``static`` that is not ``const`` is state every call shares; a ``typeof`` whose
    type ompcl does not work out keeps today's remark."""
    src = tmp_path / "host.c"
    src.write_text(HOST_ONLY)
    regions = translate(str(src)).regions
    assert [r.offload for r in regions] == [False] * 4
    ids = [[x.id for x in r.reasons] for r in regions]
    assert ids[0] == ["callee-body"] and ids[1] == ["callee-body"], ids
    assert any("typeof" in x.message for x in regions[3].reasons), regions[3].reasons
