/* ompcl-expect: device=3 host=0 */
/* Indirect store a[idx[i]] through a heap pointer (scatter with a permutation: race-free);
   the written extent cannot be derived from the subscripts, so it is the heap block 'a'
   points into, found by the runtime at entry (issue 37). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1000, i;
    int *idx = malloc(n * sizeof(int));
    double *a = malloc(n * sizeof(double));
    double *b = malloc(n * sizeof(double));
    double s = 0.0;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        idx[i] = (i * 7) % n; /* permutation: gcd(7, 1000) == 1 */
        b[i] = 0.5 * i + 1.0;
    }

    /* indirect store: the whole block of a */
#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[idx[i]] = b[i] * 2.0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        b[i] = a[i] - b[i];

    for (i = 0; i < n; i++)
        s += b[i] * (i % 5 + 1);
    printf("%.10e %.10e %.10e\n", s, b[7], b[n - 1]);
    free(idx);
    free(a);
    free(b);
    return 0;
}
