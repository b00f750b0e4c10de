/* ompcl-expect: device=1 host=2 */
/* Host loops: one calls printf (I/O) for a single index; one calls a user function that
   updates a static counter under "#pragma omp critical". One offloadable loop. */
#include <stdio.h>
#include <stdlib.h>

static long counter = 0;

static void log_event(int v)
{
#pragma omp critical
    {
        counter += v;
    }
}

int main(void)
{
    int n = 700, i;
    int *a = malloc(n * sizeof(int));
    long s = 0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] = (i * i) % 1013;

    /* host: I/O in the body (only i == 17 prints, so output order is fixed) */
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        if (i == 17)
            printf("a[17] = %d\n", a[i]);
        a[i] += 1;
    }

    /* host: calls a function with a side effect under critical */
#pragma omp parallel for
    for (i = 0; i < n; i++)
        if (a[i] % 3 == 0)
            log_event(a[i]);

    for (i = 0; i < n; i++)
        s += a[i];
    printf("%ld %ld\n", s, counter);
    free(a);
    return 0;
}
