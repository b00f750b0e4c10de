/* ompcl-expect: device=4 host=0 */
/* Non-unit positive steps (+= 3, += k), <= bounds, and affine subscripts a[2*i+1], b[i-1]. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 600, i, k = 7;
    int *a = malloc((2 * n + 2) * sizeof(int));
    int *b = malloc((n + 1) * sizeof(int));
    long s = 0;

#pragma omp parallel for
    for (i = 0; i <= n; i++) {
        a[2 * i] = i;
        a[2 * i + 1] = -i;
        b[i] = 0;
    }

#pragma omp parallel for
    for (i = 1; i <= n; i += 3)
        b[i] = a[2 * i + 1] + a[2 * (i - 1)] * 2;

#pragma omp parallel for firstprivate(k)
    for (i = 5; i < n - 4; i += k)
        b[i - 1] = b[i] + 1000;

#pragma omp parallel for
    for (i = 2; i <= n; i += 2)
        a[2 * i] = b[i - 1] - b[i - 2];

    for (i = 0; i <= n; i++)
        s += (long)b[i] * (i % 4 + 1) + a[2 * i];
    printf("%ld\n%d %d %d\n", s, b[1], b[n - 1], a[2 * n]);
    free(a);
    free(b);
    return 0;
}
