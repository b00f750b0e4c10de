/* ompcl-expect: device=4 host=0 */
/* Heap subscripts through scalars declared in the loop body (issue 15): a body-local 'j'
   shadowing an unrelated outer 'j', a flat index 'k' defined from both loop variables, a
   body-local offset redefined in a nested block, and a local that changes inside an inner
   loop (its extent still comes from the index it stands for). */
#include <stdio.h>
#include <stdlib.h>

static double checksum(const double *a, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += a[i] * (double)(i % 7 + 1);
    return s;
}

int main(void)
{
    int n = 1003, i, j = 0, r;
    const int w = 4;
    double *a = calloc((size_t)n * w, sizeof(double));
    double *b = calloc((size_t)n * w, sizeof(double));

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        int j = 3;
        a[i * 4 + j] = i * 0.5;
    }

#pragma omp parallel for private(r)
    for (i = 0; i < n; i++)
        for (r = 0; r < w; r++) {
            int k = i * w + r;
            b[k] = a[k] + r;
        }

#pragma omp parallel for
    for (i = 1; i < n; i++) {
        int off = i * w;
        {
            int off2 = off - w;
            a[off2 + 1] = b[off + 2] - b[off2 + 2];
        }
    }

#pragma omp parallel for private(r)
    for (i = 0; i < n; i++) {
        int k = i * w;
        for (r = 0; r < w; r++)
            b[k + r] = b[k + r] * 2.0 + (double)r;
    }

    printf("%.6f %.6f %d\n", checksum(a, n * w), checksum(b, n * w), j);
    free(a);
    free(b);
    return 0;
}
