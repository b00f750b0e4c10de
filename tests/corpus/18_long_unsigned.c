/* ompcl-expect: device=3 host=0 */
/* long and unsigned arithmetic: an integer hash (wrapping unsigned), long accumulators, xor reduction. */
#include <stdio.h>
#include <stdlib.h>

static unsigned int hash32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

int main(void)
{
    int n = 1111, i;
    unsigned int *h = malloc(n * sizeof(unsigned int));
    long *l = malloc(n * sizeof(long));
    unsigned int x = 0u;
    long s = 0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        h[i] = hash32((unsigned int)i * 2654435761U);

#pragma omp parallel for
    for (i = 0; i < n; i++)
        l[i] = (long)(h[i] % 100003U) * 1000003L - (long)(h[i] >> 20);

#pragma omp parallel for reduction(^:x) reduction(+:s)
    for (i = 0; i < n; i++) {
        x ^= h[i];
        s += l[i] % 1000000007L;
    }

    printf("%u %ld\n%u %ld\n", x, s, h[n - 1], l[n / 2]);
    free(h);
    free(l);
    return 0;
}
