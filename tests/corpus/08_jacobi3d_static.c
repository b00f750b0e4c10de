/* ompcl-expect: device=3 host=0 tolerance=1e-8 */
/* Jacobi 3-D 7-point stencil on static file-scope 3-D arrays, collapse(3), time steps, copy-back. */
#include <stdio.h>

#define NX 23
#define NY 19
#define NZ 27

static double a[NX][NY][NZ], b[NX][NY][NZ];

int main(void)
{
    int i, j, k, t;
    double s = 0.0;

#pragma omp parallel for collapse(3)
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NZ; k++) {
                a[i][j][k] = (i == 0 || i == NX - 1) ? 1.0 : (double)((i * 3 + j * 5 + k) % 10) * 0.1;
                b[i][j][k] = a[i][j][k];
            }

    for (t = 0; t < 6; t++) {
#pragma omp parallel for collapse(3)
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++)
                for (k = 1; k < NZ - 1; k++)
                    b[i][j][k] = (a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k]
                                  + a[i][j + 1][k] + a[i][j][k - 1] + a[i][j][k + 1]
                                  + 2.0 * a[i][j][k]) * 0.125;
#pragma omp parallel for collapse(2) private(k)
        for (i = 1; i < NX - 1; i++)
            for (j = 1; j < NY - 1; j++)
                for (k = 1; k < NZ - 1; k++)
                    a[i][j][k] = b[i][j][k];
    }

    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NZ; k++)
                s += a[i][j][k];
    printf("%.10e\n%.10e %.10e\n", s, a[1][1][1], a[NX / 2][NY / 2][NZ / 2]);
    return 0;
}
