"""EP as NPB 3.x's OpenMP C writes it (issue 37): a threadprivate scratch array ``x`` filled
through a shifted pointer (``vranlc(2*NK, &t1, A, x-1)``, the callee writing ``y[1..n]``), a
private histogram ``qq`` accumulated in the loop and merged under ``critical`` after it, and
a ``reduction(+:sx,sy)``. The loop runs on the device (the scratch proof follows the shifted
argument into the callee, whose own local ``x`` hides the global) and every path gives the
original's answer; a shift that leaves a read uncovered keeps the loop off the proof."""
from __future__ import annotations

from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path

EP = r"""
#include <stdio.h>
#include <math.h>
#include <omp.h>
#define MK 8
#define MM (16 - MK)
#define NN (1 << MM)
#define NK (1 << MK)
#define NQ 10
#define EPSILON 1.0e-8
#define A 1220703125.0
#define S 271828183.0
#define TIMERS_ENABLED 0
#define r23 (0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5*0.5)
#define r46 (r23*r23)
#define t23 (2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0*2.0)
#define t46 (t23*t23)
#define max(a,b) (((a) > (b)) ? (a) : (b))
#define pow2(a) ((a)*(a))
static double x[2*NK];
#pragma omp threadprivate(x)
static double q[NQ];
static int timers_enabled = 0;
static void timer_start(int n) { (void)n; }
static void timer_stop(int n) { (void)n; }
double randlc(double *x, double a) {
  double t1,t2,t3,t4,a1,a2,x1,x2,z;
  t1 = r23 * a; a1 = (int)t1; a2 = a - t23 * a1;
  t1 = r23 * (*x); x1 = (int)t1; x2 = (*x) - t23 * x1;
  t1 = a1 * x2 + a2 * x1; t2 = (int)(r23 * t1); z = t1 - t23 * t2;
  t3 = t23 * z + a2 * x2; t4 = (int)(r46 * t3); (*x) = t3 - t46 * t4;
  return (r46 * (*x));
}
void vranlc(int n, double *x_seed, double a, double y[]) {
  int i; double x,t1,t2,t3,t4,a1,a2,x1,x2,z;
  t1 = r23 * a; a1 = (int)t1; a2 = a - t23 * a1; x = *x_seed;
  for (i = 1; i <= n; i++) {
    t1 = r23 * x; x1 = (int)t1; x2 = x - t23 * x1;
    t1 = a1 * x2 + a2 * x1; t2 = (int)(r23 * t1); z = t1 - t23 * t2;
    t3 = t23 * z + a2 * x2; t4 = (int)(r46 * t3); x = t3 - t46 * t4;
    y[i] = r46 * x;
  }
  *x_seed = x;
}
int main(void) {
  double an, sx, sy, gc, t1, dum[3] = {1.0, 1.0, 1.0};
  int np, i, k, nit, k_offset, j;
  vranlc(0, &dum[0], dum[1], &dum[2]);
  dum[0] = randlc(&dum[1], dum[2]);
  for (i = 0; i < 2*NK; i++) x[i] = -1.0e99;
  t1 = A; vranlc(0, &t1, A, x);
  t1 = A;
  for (i = 1; i <= MK+1; i++) an = randlc(&t1, t1);
  an = t1; gc = 0.0; sx = 0.0; sy = 0.0;
  for (i = 0; i <= NQ - 1; i++) q[i] = 0.0;
  np = NN; k_offset = -1;
#pragma omp parallel copyin(x)
{
  double t1, t2, t3, t4, x1, x2;
  int kk, i, ik, l;
  double qq[NQ];
  for (i = 0; i < NQ; i++) qq[i] = 0.0;
#pragma omp for reduction(+:sx,sy) schedule(static) nowait
  for (k = 1; k <= np; k++) {
    kk = k_offset + k;
    t1 = S; t2 = an;
    for (i = 1; i <= 100; i++) {
      ik = kk / 2;
      if (2 * ik != kk) t3 = randlc(&t1, t2);
      if (ik == 0) break;
      t3 = randlc(&t2, t2);
      kk = ik;
    }
    if (timers_enabled) timer_start(3);
    vranlc(2*NK, &t1, A, x-1);
    if (timers_enabled) timer_stop(3);
    for (i = 0; i < NK; i++) {
      x1 = 2.0 * x[2*i] - 1.0;
      x2 = 2.0 * x[2*i+1] - 1.0;
      t1 = pow2(x1) + pow2(x2);
      if (t1 <= 1.0) {
        t2 = sqrt(-2.0 * log(t1) / t1);
        t3 = (x1 * t2); t4 = (x2 * t2);
        l = max(fabs(t3), fabs(t4));
        qq[l] += 1.0;
        sx = sx + t3; sy = sy + t4;
      }
    }
  }
#pragma omp critical
  {
    for (i = 0; i <= NQ - 1; i++) q[i] += qq[i];
  }
}
  for (i = 0; i <= NQ-1; i++) gc = gc + q[i];
  printf("sx=%.10e sy=%.10e gc=%.1f\n", sx, sy, gc);
  for (i = 0; i < NQ; i++) printf("q[%d]=%.1f\n", i, q[i]);
  return 0;
}
"""

#: the callee writes x[1..n] (y = x + 1): the loop's read of x[0] was not written first
UNCOVERED = r"""
static double x[64];
#pragma omp threadprivate(x)
void fill(int n, double y[]) { int i; for (i = 0; i < n; i++) y[i] = i; }
double f(int m) {
  double s = 0; int k;
#pragma omp parallel for reduction(+:s)
  for (k = 0; k < m; k++) {
    fill(63, x + 1);
    s += x[0] + x[5];
  }
  return s;
}
"""

COVERED = UNCOVERED.replace("x + 1);", "x - 1);").replace("fill(int n, double y[]) { int i; "
                                                          "for (i = 0;", "fill(int n, double "
                                                          "y[]) { int i; for (i = 1;") \
    .replace("fill(63", "fill(64")


def test_npb3_style_ep_runs_on_the_device(tmp_path):
    ref, exe = build_both(tmp_path, EP, "ep.c")
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])


def _offloaded(tmp_path, text: str) -> bool:
    src = tmp_path / "p.c"
    src.write_text(text)
    (region,) = translate(str(src)).regions
    return region.offload and not any(r.id == "thread-private" for r in region.reasons)


def test_a_shifted_argument_covers_what_the_callee_writes(tmp_path):
    assert _offloaded(tmp_path, COVERED)


def test_a_shift_that_leaves_a_read_uncovered_is_not_proven(tmp_path):
    src = tmp_path / "p.c"
    src.write_text(UNCOVERED)
    (region,) = translate(str(src)).regions
    assert not region.offload or region.scratch_check is not None, region
