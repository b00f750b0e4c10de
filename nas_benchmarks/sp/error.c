/*
 * error.c - SP: RMS norms of the error against the exact solution and of
 * the residual.  One reduction variable per solution component.
 */
#include <math.h>
#include "header.h"

/* rms[m] = RMS over the whole grid of u - exact solution, component m */
void error_norm(double rms[5])
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;
    int i, j, k, d, m;

#pragma omp parallel for private(i, j) reduction(+:s0, s1, s2, s3, s4)
    for (k = 0; k <= grid_points[2] - 1; k++) {
        double zeta = (double)k * dnzm1;
        for (j = 0; j <= grid_points[1] - 1; j++) {
            double eta = (double)j * dnym1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                double xi = (double)i * dnxm1;
                double u_exact[5], e0, e1, e2, e3, e4;

                exact_solution(xi, eta, zeta, u_exact);
                e0 = u[k][j][i][0] - u_exact[0];
                e1 = u[k][j][i][1] - u_exact[1];
                e2 = u[k][j][i][2] - u_exact[2];
                e3 = u[k][j][i][3] - u_exact[3];
                e4 = u[k][j][i][4] - u_exact[4];
                s0 = s0 + e0 * e0;
                s1 = s1 + e1 * e1;
                s2 = s2 + e2 * e2;
                s3 = s3 + e3 * e3;
                s4 = s4 + e4 * e4;
            }
        }
    }

    rms[0] = s0;
    rms[1] = s1;
    rms[2] = s2;
    rms[3] = s3;
    rms[4] = s4;
    for (m = 0; m < 5; m++) {
        for (d = 0; d < 3; d++)
            rms[m] = rms[m] / (double)(grid_points[d] - 2);
        rms[m] = sqrt(rms[m]);
    }
}

/* rms[m] = RMS over the interior of rhs, component m */
void rhs_norm(double rms[5])
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;
    int i, j, k, d, m;

#pragma omp parallel for private(i, j) reduction(+:s0, s1, s2, s3, s4)
    for (k = 1; k <= nz2; k++) {
        for (j = 1; j <= ny2; j++) {
            for (i = 1; i <= nx2; i++) {
                s0 = s0 + rhs[k][j][i][0] * rhs[k][j][i][0];
                s1 = s1 + rhs[k][j][i][1] * rhs[k][j][i][1];
                s2 = s2 + rhs[k][j][i][2] * rhs[k][j][i][2];
                s3 = s3 + rhs[k][j][i][3] * rhs[k][j][i][3];
                s4 = s4 + rhs[k][j][i][4] * rhs[k][j][i][4];
            }
        }
    }

    rms[0] = s0;
    rms[1] = s1;
    rms[2] = s2;
    rms[3] = s3;
    rms[4] = s4;
    for (m = 0; m < 5; m++) {
        for (d = 0; d < 3; d++)
            rms[m] = rms[m] / (double)(grid_points[d] - 2);
        rms[m] = sqrt(rms[m]);
    }
}
