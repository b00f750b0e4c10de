/* 2-D heat diffusion with an explicit 5-point stencil (Jacobi sweeps) and a residual norm.
 *
 * The demo program of ompcl: several OpenMP loops (initialisation, stencil, copy, reductions)
 * over statically sized global grids, inside a time-step loop whose data stays on the
 * OpenCL device between kernels.  Usage: heat2d [steps]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#ifndef N
#define N 1000
#endif
#define ALPHA 0.2

static double u[N][N], unew[N][N];

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + 1e-6 * tv.tv_usec;
}

static void initialise(void)
{
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            double x = (double)i / (N - 1), y = (double)j / (N - 1);
            u[i][j] = sin(M_PI * x) * sin(M_PI * y) + 0.5 * exp(-40.0 * ((x - 0.3) * (x - 0.3) + (y - 0.6) * (y - 0.6)));
        }
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 200, t, i, j;
    double change = 0.0, total = 0.0, t0;

    initialise();
    t0 = wall();
    /* only scalar code between the two sweeps: the grids stay on the device for all steps */
    for (t = 0; t < steps; t++) {
#pragma omp parallel for collapse(2)
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++)
                unew[i][j] = u[i][j] + ALPHA * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1]
                                                + u[i][j + 1] - 4.0 * u[i][j]);
        change = 0.0;
#pragma omp parallel for collapse(2) reduction(max:change)
        for (i = 1; i < N - 1; i++)
            for (j = 1; j < N - 1; j++) {
                double d = fabs(unew[i][j] - u[i][j]);
                change = d > change ? d : change;
                u[i][j] = unew[i][j];
            }
    }
#pragma omp parallel for private(j) reduction(+:total)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            total += u[i][j];
    printf("grid %dx%d, %d steps\n", N, N, steps);
    printf("last max change = %.12e\n", change);
    printf("heat content    = %.12e\n", total);
    printf("centre value    = %.12e\n", u[N / 2][N / 2]);
    fprintf(stderr, "time in steps: %.3f s\n", wall() - t0);
    return 0;
}
