/* ompcl-expect: device=3 host=0 tolerance=1e-8 */
/* Jacobi 2-D stencil on heap arrays (flat, a[i*m+j]) with time steps and a residual reduction;
   the host reads the residual between steps (data stays on the device across kernels). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(void)
{
    int n = 101, m = 93, i, j, t;
    double *u = malloc((size_t)n * m * sizeof(double));
    double *v = malloc((size_t)n * m * sizeof(double));
    double res = 0.0;

#pragma omp parallel for collapse(2)
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            double x = (double)i / (n - 1), y = (double)j / (m - 1);
            u[i * m + j] = (i == 0 || j == 0 || i == n - 1 || j == m - 1) ? x * x + y : 0.0;
            v[i * m + j] = u[i * m + j];
        }

    for (t = 0; t < 12; t++) {
#pragma omp parallel for private(j)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m - 1; j++)
                v[i * m + j] = 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j]
                                       + u[i * m + j - 1] + u[i * m + j + 1]);
        res = 0.0;
#pragma omp parallel for private(j) reduction(+:res)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m - 1; j++) {
                double d = v[i * m + j] - u[i * m + j];
                res += d * d;
                u[i * m + j] = v[i * m + j];
            }
        if (t % 4 == 0)
            printf("step %d res %.10e\n", t, sqrt(res));
    }
    printf("%.10e %.10e %.10e\n", u[1 * m + 1], u[3 * m + 3], u[(n - 2) * m + m - 2]);
    free(u);
    free(v);
    return 0;
}
