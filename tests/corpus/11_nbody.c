/* ompcl-expect: device=3 host=0 tolerance=1e-7 */
/* n-body style force computation (inner sequential loop with sqrt), then position update, 3 steps. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(void)
{
    int n = 513, i, j, t;
    double *px = malloc(n * sizeof(double)), *py = malloc(n * sizeof(double));
    double *pz = malloc(n * sizeof(double)), *m = malloc(n * sizeof(double));
    double *fx = malloc(n * sizeof(double)), *fy = malloc(n * sizeof(double));
    double *fz = malloc(n * sizeof(double));
    double dt = 1e-6, eps = 5e-2, ek = 0.0;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        px[i] = cos(0.37 * i) * (1.0 + 0.001 * i);
        py[i] = sin(0.23 * i) * (1.0 + 0.002 * i);
        pz[i] = 0.01 * (i % 31) - 0.15;
        m[i] = 1.0 + (i % 3) * 0.5;
    }

    for (t = 0; t < 3; t++) {
#pragma omp parallel for private(j)
        for (i = 0; i < n; i++) {
            double ax = 0.0, ay = 0.0, az = 0.0;
            for (j = 0; j < n; j++) {
                double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
                double r2 = dx * dx + dy * dy + dz * dz + eps;
                double inv = 1.0 / (r2 * sqrt(r2));
                ax += m[j] * dx * inv;
                ay += m[j] * dy * inv;
                az += m[j] * dz * inv;
            }
            fx[i] = ax;
            fy[i] = ay;
            fz[i] = az;
        }
#pragma omp parallel for firstprivate(dt)
        for (i = 0; i < n; i++) {
            px[i] += dt * fx[i];
            py[i] += dt * fy[i];
            pz[i] += dt * fz[i];
        }
    }

    for (i = 0; i < n; i++)
        ek += m[i] * (fx[i] * fx[i] + fy[i] * fy[i] + fz[i] * fz[i]);
    printf("%.10e\n%.10e %.10e %.10e\n", ek, px[0], py[n / 2], pz[n - 1]);
    free(px); free(py); free(pz); free(m); free(fx); free(fy); free(fz);
    return 0;
}
