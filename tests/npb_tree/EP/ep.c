/* EP (test tree): sums of squares, a parallel loop and a reduction per iteration; verified
 * against the closed form n(n-1)(2n-1)/6. */
#include <math.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "npb-C.h"
#include "npbparams.h"

static double x[NPOINTS];

int main(void) {
  long i;
  int it, nthreads = 1, passed;
  double s = 0.0, want, t;
  const double n = (double)NPOINTS;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  timer_clear(0);
  timer_start(0);
#pragma omp parallel for
  for (i = 0; i < NPOINTS; i++)
    x[i] = (double)i;
  for (it = 0; it < NITER; it++) {
    s = 0.0;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < NPOINTS; i++)
      s += x[i] * x[i];
  }
  timer_stop(0);
  t = timer_read(0);
  want = n * (n - 1.0) * (2.0 * n - 1.0) / 6.0;
  passed = fabs(s - want) <= 1e-9 * want && !npb_verification_forced_off("ep");
  c_print_results("EP", CLASS, NPOINTS, NITER, nthreads, t,
                  t > 0 ? 2.0 * NPOINTS * NITER / t / 1e6 : 0.0, "sums of squares", passed);
  return 0;
}
