/* ompcl-expect: device=1 host=1 */
/* A loop with an "ordered" clause and "#pragma omp ordered" block (stays on host): an
   order-dependent running hash. One offloadable loop before it. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 501, i;
    unsigned int *a = malloc(n * sizeof(unsigned int));
    unsigned int hash = 2166136261U;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] = (unsigned int)(i * 2654435761U) >> 7;

    /* host: ordered */
#pragma omp parallel for ordered schedule(static, 5)
    for (i = 0; i < n; i++) {
        unsigned int v = a[i] ^ (unsigned int)i;
#pragma omp ordered
        {
            hash = (hash ^ v) * 16777619U;
        }
    }

    printf("%u %u\n", hash, a[n - 1]);
    free(a);
    return 0;
}
