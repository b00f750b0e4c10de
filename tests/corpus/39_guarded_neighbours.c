/* ompcl-expect: device=4 host=0 */
/* Guarded neighbour accesses on heap arrays over the whole index range (issue 15): the guard
   bounds the subscript, so no mapped range leaves its allocation (run under AddressSanitizer
   with copying buffers by the sanitizer tests). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1001, i;
    double *a = malloc(sizeof(double) * n);
    double *b = malloc(sizeof(double) * n);
    double *c = malloc(sizeof(double) * n);
    double s = 0.0;

    for (i = 0; i < n; i++)
        a[i] = (double)(i % 13) - 6.0;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        b[i] = 0.0;
        if (i > 0)
            b[i] = a[i - 1];
    }

#pragma omp parallel for
    for (i = 0; i < n; i++)
        c[i] = (i < n - 1 ? a[i + 1] : 0.0) + (i >= 1 && a[i - 1] > 0.0 ? 1.0 : 0.0);

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        if (i == 0 || i == n - 1)
            b[i] += 100.0;
        else
            b[i] += 0.5 * (a[i - 1] + a[i + 1]);
    }

#pragma omp parallel for
    for (i = 0; i < n; i++)
        if (!(i < 2))
            c[i] -= a[i - 2];

    for (i = 0; i < n; i++)
        s += (b[i] + 2.0 * c[i]) * (i % 7 + 1);
    printf("%.6f\n", s);
    free(a);
    free(b);
    free(c);
    return 0;
}
