/* ompcl-expect: device=1 host=1 */
/* A loop calling omp_get_thread_num() (stays on host); the id only feeds a per-thread counter
   that is summed, so output does not depend on the thread count. */
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXT 256

int main(void)
{
    int n = 1111, i, t, tid = 0;
    double *x = malloc(n * sizeof(double));
    int per_thread[MAXT] = {0};
    long total = 0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        x[i] = 1.0 / (1.0 + i);

    /* host: omp_get_thread_num() in the body */
#pragma omp parallel for private(tid)
    for (i = 0; i < n; i++) {
#ifdef _OPENMP
        tid = omp_get_thread_num() % MAXT;
#else
        tid = 0;
#endif
        per_thread[tid] += 1; /* each thread owns its slot: no race */
        x[i] = x[i] * 2.0;
    }

    for (t = 0; t < MAXT; t++)
        total += per_thread[t];
    printf("%ld %.10e %.10e\n", total, x[0], x[n - 1]);
    free(x);
    return 0;
}
