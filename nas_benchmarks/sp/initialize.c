/*
 * initialize.c - SP: initial solution.
 *
 * The interior is a transfinite (trilinear blending) interpolation of the
 * exact solution on the six faces of the unit cube; the boundary points get
 * the exact solution.
 */
#include "header.h"

void initialize(void)
{
#pragma omp parallel
    {
        int i, j, k, m;

        /* compute_rhs() takes 1/u[..][0] over the whole grid: make every
         * point valid first (the loops below overwrite all of them) */
#pragma omp for
        for (k = 0; k <= grid_points[2] - 1; k++) {
            for (j = 0; j <= grid_points[1] - 1; j++) {
                for (i = 0; i <= grid_points[0] - 1; i++) {
                    u[k][j][i][0] = 1.0;
                    u[k][j][i][1] = 0.0;
                    u[k][j][i][2] = 0.0;
                    u[k][j][i][3] = 0.0;
                    u[k][j][i][4] = 1.0;
                }
            }
        }

        /* the "interpolated" values everywhere on the grid */
#pragma omp for
        for (k = 0; k <= grid_points[2] - 1; k++) {
            double zeta = (double)k * dnzm1;
            for (j = 0; j <= grid_points[1] - 1; j++) {
                double eta = (double)j * dnym1;
                for (i = 0; i <= grid_points[0] - 1; i++) {
                    double xi = (double)i * dnxm1;
                    double pxi0[5], pxi1[5], peta0[5], peta1[5], pzeta0[5], pzeta1[5];
                    double pxi, peta, pzeta;

                    exact_solution(0.0, eta, zeta, pxi0);
                    exact_solution(1.0, eta, zeta, pxi1);
                    exact_solution(xi, 0.0, zeta, peta0);
                    exact_solution(xi, 1.0, zeta, peta1);
                    exact_solution(xi, eta, 0.0, pzeta0);
                    exact_solution(xi, eta, 1.0, pzeta1);

                    for (m = 0; m < 5; m++) {
                        pxi   = xi   * pxi1[m]   + (1.0 - xi)   * pxi0[m];
                        peta  = eta  * peta1[m]  + (1.0 - eta)  * peta0[m];
                        pzeta = zeta * pzeta1[m] + (1.0 - zeta) * pzeta0[m];

                        u[k][j][i][m] = pxi + peta + pzeta -
                                        pxi * peta - pxi * pzeta - peta * pzeta +
                                        pxi * peta * pzeta;
                    }
                }
            }
        }

        /* the exact values on the boundaries: west (xi = 0) and east (xi = 1) */
#pragma omp for
        for (k = 0; k <= grid_points[2] - 1; k++) {
            double zeta = (double)k * dnzm1;
            for (j = 0; j <= grid_points[1] - 1; j++) {
                double eta = (double)j * dnym1;
                double temp[5];
                exact_solution(0.0, eta, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][j][0][m] = temp[m];
                exact_solution(1.0, eta, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][j][grid_points[0] - 1][m] = temp[m];
            }
        }

        /* south (eta = 0) and north (eta = 1) */
#pragma omp for
        for (k = 0; k <= grid_points[2] - 1; k++) {
            double zeta = (double)k * dnzm1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                double xi = (double)i * dnxm1;
                double temp[5];
                exact_solution(xi, 0.0, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][0][i][m] = temp[m];
                exact_solution(xi, 1.0, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][grid_points[1] - 1][i][m] = temp[m];
            }
        }

        /* bottom (zeta = 0) and top (zeta = 1) */
#pragma omp for
        for (j = 0; j <= grid_points[1] - 1; j++) {
            double eta = (double)j * dnym1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                double xi = (double)i * dnxm1;
                double temp[5];
                exact_solution(xi, eta, 0.0, temp);
                for (m = 0; m < 5; m++)
                    u[0][j][i][m] = temp[m];
                exact_solution(xi, eta, 1.0, temp);
                for (m = 0; m < 5; m++)
                    u[grid_points[2] - 1][j][i][m] = temp[m];
            }
        }
    }
}
