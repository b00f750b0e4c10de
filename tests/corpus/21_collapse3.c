/* ompcl-expect: device=3 host=0 */
/* collapse(3) on a heap flat 3-D array and on a stack 3-D float array; collapse(2) reduction. */
#include <stdio.h>
#include <stdlib.h>

#define P 11
#define Q 13
#define S 17

int main(void)
{
    int nx = 21, ny = 15, nz = 9, i, j, k;
    int *v = malloc((size_t)nx * ny * nz * sizeof(int));
    float g[P][Q][S];
    long sv = 0;
    double sg = 0.0;

#pragma omp parallel for collapse(3)
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            for (k = 0; k < nz; k++)
                v[(i * ny + j) * nz + k] = i * 10000 + j * 100 + k;

#pragma omp parallel for collapse(3)
    for (i = 0; i < P; i++)
        for (j = 0; j < Q; j++)
            for (k = 0; k < S; k++)
                g[i][j][k] = 0.5f * (float)(i + j * k % 7);

#pragma omp parallel for collapse(2) private(k) reduction(+:sv)
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++)
            for (k = 0; k < nz; k++)
                sv += v[(i * ny + j) * nz + k] % 1001;

    for (i = 0; i < P; i++)
        for (j = 0; j < Q; j++)
            for (k = 0; k < S; k++)
                sg += g[i][j][k];
    printf("%ld %d\n%.6e %.6e\n", sv, v[nx * ny * nz - 1], sg, (double)g[P - 1][Q - 1][S - 1]);
    free(v);
    return 0;
}
