/*
 * error.c - RMS norms of BT: of the error against the exact solution
 * (error_norm) and of the right-hand side, i.e. the steady-state residual
 * (rhs_norm), per solution component.
 */
#include <math.h>
#include "header.h"

/* RMS norm of u - u_exact over the whole grid, per component */
void error_norm(double rms[5])
{
    int i, j, k, m, d;
    double xi, eta, zeta, add;
    double u_exact[5];
    double rms0 = 0.0, rms1 = 0.0, rms2 = 0.0, rms3 = 0.0, rms4 = 0.0;

#pragma omp parallel for default(shared) private(i, j, xi, eta, zeta, add, u_exact) \
        reduction(+:rms0, rms1, rms2, rms3, rms4) schedule(static)
    for (k = 0; k <= grid_points[2] - 1; k++) {
        zeta = (double)k * dnzm1;
        for (j = 0; j <= grid_points[1] - 1; j++) {
            eta = (double)j * dnym1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                xi = (double)i * dnxm1;
                exact_solution(xi, eta, zeta, u_exact);
                add = u[k][j][i][0] - u_exact[0];
                rms0 = rms0 + add * add;
                add = u[k][j][i][1] - u_exact[1];
                rms1 = rms1 + add * add;
                add = u[k][j][i][2] - u_exact[2];
                rms2 = rms2 + add * add;
                add = u[k][j][i][3] - u_exact[3];
                rms3 = rms3 + add * add;
                add = u[k][j][i][4] - u_exact[4];
                rms4 = rms4 + add * add;
            }
        }
    }

    rms[0] = rms0;
    rms[1] = rms1;
    rms[2] = rms2;
    rms[3] = rms3;
    rms[4] = rms4;
    for (m = 0; m < 5; m++) {
        for (d = 0; d < 3; d++)
            rms[m] = rms[m] / (double)(grid_points[d] - 2);
        rms[m] = sqrt(rms[m]);
    }
}

/* RMS norm of rhs over the interior points, per component */
void rhs_norm(double rms[5])
{
    int i, j, k, m, d;
    double add;
    double rms0 = 0.0, rms1 = 0.0, rms2 = 0.0, rms3 = 0.0, rms4 = 0.0;

#pragma omp parallel for default(shared) private(i, j, add) \
        reduction(+:rms0, rms1, rms2, rms3, rms4) schedule(static)
    for (k = 1; k <= grid_points[2] - 2; k++) {
        for (j = 1; j <= grid_points[1] - 2; j++) {
            for (i = 1; i <= grid_points[0] - 2; i++) {
                add = rhs[k][j][i][0];
                rms0 = rms0 + add * add;
                add = rhs[k][j][i][1];
                rms1 = rms1 + add * add;
                add = rhs[k][j][i][2];
                rms2 = rms2 + add * add;
                add = rhs[k][j][i][3];
                rms3 = rms3 + add * add;
                add = rhs[k][j][i][4];
                rms4 = rms4 + add * add;
            }
        }
    }

    rms[0] = rms0;
    rms[1] = rms1;
    rms[2] = rms2;
    rms[3] = rms3;
    rms[4] = rms4;
    for (m = 0; m < 5; m++) {
        for (d = 0; d < 3; d++)
            rms[m] = rms[m] / (double)(grid_points[d] - 2);
        rms[m] = sqrt(rms[m]);
    }
}
