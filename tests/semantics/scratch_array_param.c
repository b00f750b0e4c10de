#include <stdio.h>
#define NX 40
#define NY 30
static double v[NY][NX][5], d[NY][NX];

/* SNU LU's blts style: an orphaned loop writing through an array parameter, with the
 * function's own scratch vector (each thread's: the function runs in the team) */
static void sweep(int ist, int iend, int ny, int nx, double v[][nx][5], double d[][nx])
{
    int i, j, m;
    double tv[5];
#pragma omp for schedule(static)
    for (j = 1; j < ny; j++) {
        for (i = ist; i < iend; i++) {
            for (m = 0; m < 5; m++)
                tv[m] = v[j][i][m] - 0.25 * v[j][i - 1][m] * d[j][i];
            for (m = 0; m < 5; m++)
                v[j][i][m] = tv[m] * 0.5 + tv[(m + 1) % 5];
        }
    }
}

int main(void)
{
    int i, j, m, it;
    double s = 0.0;
    for (j = 0; j < NY; j++)
        for (i = 0; i < NX; i++) {
            d[j][i] = 0.01 * (i + j);
            for (m = 0; m < 5; m++)
                v[j][i][m] = 0.001 * (i * 3 + j * 7 + m);
        }
    for (it = 0; it < 3; it++) {
#pragma omp parallel
        sweep(1, NX - 1, NY, NX, v, d);
    }
    for (j = 0; j < NY; j++)
        for (i = 0; i < NX; i++)
            for (m = 0; m < 5; m++)
                s += v[j][i][m];
    printf("%.10f\n", s);
    return 0;
}
