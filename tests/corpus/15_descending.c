/* ompcl-expect: device=4 host=0 */
/* Descending loops: i--, i -= 2, i -= 3 with > and >= bounds; global int arrays. */
#include <stdio.h>

#define N 1003
int a[N], b[N];

int main(void)
{
    int i, n = N;
    long s = 0;

#pragma omp parallel for
    for (i = n - 1; i >= 0; i--)
        a[i] = 3 * i - 100;

#pragma omp parallel for
    for (i = n - 1; i > 0; i -= 2)
        b[i] = a[i] + a[i - 1];

#pragma omp parallel for
    for (i = n - 2; i >= 0; i -= 2)
        b[i] = -a[i];

#pragma omp parallel for
    for (i = n - 1; i > 10; i -= 3)
        a[i] = b[i] * 2;

    for (i = 0; i < n; i++)
        s += (long)a[i] * (i % 9 + 1) + b[i];
    printf("%ld\n%d %d %d %d\n", s, a[0], a[n - 1], b[1], b[n - 2]);
    return 0;
}
