/* collapse(n) over non-rectangular nests (an inner loop's bounds name an outer loop's
 * variable): the device distributes the loops outside it and each work-item runs the inner
 * ones in order; lastprivate keeps the whole nest on the host. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 157

static double pairs[N][N];

int main(int argc, char **argv)
{
    int n = N - argc % 2, m = 101 + argc, i, j, k;
    double *a = malloc((size_t)n * n * sizeof *a), *x = malloc((size_t)n * sizeof *x);
    double *cube = calloc((size_t)n * 16 * 16, sizeof *cube);
    double tr = 0.0, last = -1.0, sum = 0.0;
    long count = 0;
    for (k = 0; k < n * n; k++)
        a[k] = (k % 17) * 0.25;
    for (k = 0; k < n; k++)
        x[k] = sin(0.37 * k);

    /* triangular, the loop variables declared outside; some rows (i > m) have no columns */
#pragma omp parallel for collapse(2) reduction(+:tr)
    for (i = 1; i < n - 1; i++)
        for (j = i; j < m; j++)
            tr += a[i * n + j] * 0.5;

    /* strictly upper triangle of pair distances, declared in the loops */
#pragma omp parallel for collapse(2)
    for (int p = 0; p < n; p++)
        for (int q = p + 1; q < n; q++)
            pairs[p][q] = fabs(x[p] - x[q]);

    /* the third loop depends on the second: two loops distributed */
#pragma omp parallel for collapse(3) reduction(+:count)
    for (i = 0; i < n; i++)
        for (j = 0; j < 16; j++)
            for (k = j; k < 16; k++) {
                cube[(i * 16 + j) * 16 + k] = i + 0.5 * j - k;
                count++;
            }

    /* lastprivate: the collapsed space's last iteration, so the nest stays on the host */
#pragma omp parallel for collapse(2) lastprivate(last)
    for (i = 0; i < n; i++)
        for (j = 0; j <= i; j++)
            last = a[i * n + j] + i;

    /* lower triangle, descending inner loop */
#pragma omp parallel for collapse(2) reduction(+:sum)
    for (i = 0; i < n; i++)
        for (j = i; j >= 0; j--)
            sum += a[i * n + j] * (j + 1);

    double ps = 0.0, cs = 0.0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            ps += pairs[i][j] * (i + 1);
    for (k = 0; k < n * 16 * 16; k++)
        cs += cube[k] * (k % 7);
    printf("%.6f %.9f %ld %.6f %.6f %.6f\n", tr, ps, count, cs, last, sum);
    free(a);
    free(x);
    free(cube);
    return 0;
}
