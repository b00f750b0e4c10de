/* VA (test tree): vector updates y += a*x in a parallel region of work-sharing loops, and a
 * checksum reduction; verified against the closed form. */
#include <math.h>
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "npb-C.h"
#include "npbparams.h"

static double x[NPOINTS], y[NPOINTS];

int main(void) {
  long i;
  int it, nthreads = 1, passed;
  double sum = 0.0, want, t;
  const double a = 0.5, n = (double)NPOINTS;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  timer_clear(0);
  timer_start(0);
#pragma omp parallel
  {
#pragma omp for
    for (i = 0; i < NPOINTS; i++)
      x[i] = (double)i;
#pragma omp for
    for (i = 0; i < NPOINTS; i++)
      y[i] = 1.0;
  }
  for (it = 0; it < NITER; it++) {
#pragma omp parallel for
    for (i = 0; i < NPOINTS; i++)
      y[i] = y[i] + a * x[i];
  }
#pragma omp parallel for reduction(+:sum)
  for (i = 0; i < NPOINTS; i++)
    sum += y[i];
  timer_stop(0);
  t = timer_read(0);
  want = n + NITER * a * n * (n - 1.0) / 2.0;
  passed = fabs(sum - want) <= 1e-9 * want && !npb_verification_forced_off("va");
  c_print_results("VA", CLASS, NPOINTS, NITER, nthreads, t,
                  t > 0 ? 2.0 * NPOINTS * NITER / t / 1e6 : 0.0, "vector updates", passed);
  return 0;
}
