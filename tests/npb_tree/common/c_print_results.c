/* The NPB report (the lines of NPB's c_print_results.c that tools read). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "npb-C.h"

/* NPB_TEST_FAIL=<benchmark> makes that benchmark fail its verification (tests only). */
int npb_verification_forced_off(const char *benchmark) {
  const char *s = getenv("NPB_TEST_FAIL");
  return s && !strcmp(s, benchmark);
}

void c_print_results(const char *name, char cls, long n1, int niter, int nthreads, double t,
                     double mops, const char *optype, int passed) {
  printf("\n\n %s Benchmark Completed\n", name);
  printf(" Class           =                        %c\n", cls);
  printf(" Size            =             %12ld\n", n1);
  printf(" Iterations      =             %12d\n", niter);
  printf(" Threads         =             %12d\n", nthreads);
  printf(" Time in seconds =             %12.2f\n", t);
  printf(" Mop/s total     =             %12.2f\n", mops);
  printf(" Operation type  = %24s\n", optype);
  printf(" Verification    =             %s\n", passed ? "  SUCCESSFUL" : "UNSUCCESSFUL");
  printf(" Version         =           %12s\n", "3.0-test");
}
