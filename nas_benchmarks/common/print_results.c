/*
 * print_results.c - NPB-style benchmark report.
 */
#include <stdio.h>
#include "npb.h"

void print_results(const char *name, char cls, long n1, long n2, long n3, int niter,
                   double t, double mops, const char *optype, int verified)
{
    char size[64];
    int nthreads = npb_num_threads();

    printf("\n\n %s Benchmark Completed.\n", name);
    printf(" Class           = %24c\n", cls);
    if (n2 == 0 && n3 == 0)
        snprintf(size, sizeof size, "%ld", n1);
    else
        snprintf(size, sizeof size, "%ldx%ldx%ld", n1, n2, n3);
    printf(" Size            = %24s\n", size);
    printf(" Iterations      = %24d\n", niter);
    printf(" Time in seconds = %24.2f\n", t);
    printf(" Total threads   = %24d\n", nthreads);
    printf(" Mop/s total     = %24.2f\n", mops);
    printf(" Mop/s/thread    = %24.2f\n", mops / (double)nthreads);
    printf(" Operation type  = %24s\n", optype);
    printf(" Verification    = %24s\n", verified ? "SUCCESSFUL" : "UNSUCCESSFUL");
#ifdef _OPENMP
    printf(" Parallel        = %24s\n", "OpenMP");
#else
    printf(" Parallel        = %24s\n", "sequential");
#endif
    printf("\n");
    fflush(stdout);
}
