/* ompcl-expect: device=3 host=0 tolerance=1e-9 */
/* 1-D heat equation with time steps; between kernels the host updates boundary values and
   reads interior values of the same arrays (forces device/host synchronisation). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 803, i, t;
    double *u = malloc(n * sizeof(double)), *un = malloc(n * sizeof(double));
    double c = 0.3;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        u[i] = (i > n / 3 && i < 2 * n / 3) ? 1.0 : 0.0;

    for (t = 0; t < 20; t++) {
        /* host writes boundaries */
        u[0] = 0.5 + 0.01 * t;
        u[n - 1] = 0.25;
#pragma omp parallel for firstprivate(c)
        for (i = 1; i < n - 1; i++)
            un[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma omp parallel for
        for (i = 1; i < n - 1; i++)
            u[i] = un[i];
        /* host reads and modifies a middle point */
        if (t % 5 == 4) {
            printf("t=%d %.10e %.10e\n", t, u[1], u[n / 2]);
            u[n / 2] *= 0.5;
        }
    }
    printf("%.10e %.10e\n", u[n / 3 - 5], u[n - 2]);
    free(u);
    free(un);
    return 0;
}
