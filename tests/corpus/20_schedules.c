/* ompcl-expect: device=5 host=0 */
/* schedule(static,7), schedule(dynamic), schedule(guided,3), num_threads(2) and if(...) clauses. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1013, i;
    int *a = malloc(n * sizeof(int)), *b = malloc(n * sizeof(int));
    long s = 0;

#pragma omp parallel for schedule(static, 7)
    for (i = 0; i < n; i++)
        a[i] = (i * 31) % 97;

#pragma omp parallel for schedule(dynamic)
    for (i = 0; i < n; i++)
        b[i] = a[i] * a[i] - i;

#pragma omp parallel for schedule(guided, 3) num_threads(2)
    for (i = 0; i < n; i++)
        a[i] += b[n - 1 - i] > 0 ? 1 : -1;

#pragma omp parallel for if(n > 100) schedule(runtime)
    for (i = 0; i < n; i++)
        b[i] = a[i] ^ (i & 15);

#pragma omp parallel for schedule(static) reduction(+:s)
    for (i = 0; i < n; i++)
        s += (long)a[i] * b[i];

    printf("%ld %d %d\n", s, a[n - 1], b[n / 2]);
    free(a);
    free(b);
    return 0;
}
