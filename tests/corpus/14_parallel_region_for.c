/* ompcl-expect: device=3 host=0 */
/* Work-sharing loops inside "#pragma omp parallel { #pragma omp for ... }" regions:
   a plain one, one with a reduction on the for, and a combined parallel for for comparison. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 999, i;
    long *a = malloc(n * sizeof(long));
    long *b = malloc(n * sizeof(long));
    long s = 0;

#pragma omp parallel shared(a, n)
    {
#pragma omp for
        for (i = 0; i < n; i++)
            a[i] = (long)i * i - 3 * i;
    }

#pragma omp parallel
    {
#pragma omp for reduction(+:s)
        for (i = 0; i < n; i++)
            s += a[i] % 1000;
    }

#pragma omp parallel for
    for (i = 0; i < n; i++)
        b[i] = a[n - 1 - i] + s;

    printf("%ld\n%ld %ld %ld\n", s, b[0], b[n / 2], b[n - 1]);
    free(a);
    free(b);
    return 0;
}
