/*
 * initialize.c - initial solution of BT, and the boundary rows of a
 * line solver's block-tridiagonal matrix.
 */
#include "header.h"

/*
 * Initial field: on the whole grid, the transfinite (trilinear blending)
 * interpolation of the exact solution from the six faces of the unit
 * cube; then the exact solution on the boundary faces.
 */
void initialize(void)
{
    int i, j, k, m, ix, iy, iz;
    double xi, eta, zeta, Pxi, Peta, Pzeta;
    double Pface[2][3][5], temp[5];

#pragma omp parallel default(shared) \
        private(i, j, k, m, ix, iy, iz, xi, eta, zeta, Pxi, Peta, Pzeta, Pface, temp)
    {
        /* compute_rhs takes 1/u[..][0] everywhere, the unused corners
         * included: start from a non-zero value on the whole array */
#pragma omp for schedule(static)
        for (k = 0; k <= grid_points[2] - 1; k++) {
            for (j = 0; j <= grid_points[1] - 1; j++) {
                for (i = 0; i <= grid_points[0] - 1; i++) {
                    for (m = 0; m < 5; m++) {
                        u[k][j][i][m] = 1.0;
                    }
                }
            }
        }

        /* interpolated values everywhere */
#pragma omp for schedule(static)
        for (k = 0; k <= grid_points[2] - 1; k++) {
            zeta = (double)k * dnzm1;
            for (j = 0; j <= grid_points[1] - 1; j++) {
                eta = (double)j * dnym1;
                for (i = 0; i <= grid_points[0] - 1; i++) {
                    xi = (double)i * dnxm1;
                    for (ix = 0; ix < 2; ix++)
                        exact_solution((double)ix, eta, zeta, Pface[ix][0]);
                    for (iy = 0; iy < 2; iy++)
                        exact_solution(xi, (double)iy, zeta, Pface[iy][1]);
                    for (iz = 0; iz < 2; iz++)
                        exact_solution(xi, eta, (double)iz, Pface[iz][2]);
                    for (m = 0; m < 5; m++) {
                        Pxi   = xi   * Pface[1][0][m] + (1.0 - xi)   * Pface[0][0][m];
                        Peta  = eta  * Pface[1][1][m] + (1.0 - eta)  * Pface[0][1][m];
                        Pzeta = zeta * Pface[1][2][m] + (1.0 - zeta) * Pface[0][2][m];
                        u[k][j][i][m] = Pxi + Peta + Pzeta
                                      - Pxi * Peta - Pxi * Pzeta - Peta * Pzeta
                                      + Pxi * Peta * Pzeta;
                    }
                }
            }
        }

        /* exact values on the west (i = 0) and east (i = nx-1) faces */
#pragma omp for schedule(static)
        for (k = 0; k <= grid_points[2] - 1; k++) {
            zeta = (double)k * dnzm1;
            for (j = 0; j <= grid_points[1] - 1; j++) {
                eta = (double)j * dnym1;
                exact_solution(0.0, eta, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][j][0][m] = temp[m];
                exact_solution(1.0, eta, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][j][grid_points[0] - 1][m] = temp[m];
            }
        }

        /* south (j = 0) and north (j = ny-1) faces */
#pragma omp for schedule(static)
        for (k = 0; k <= grid_points[2] - 1; k++) {
            zeta = (double)k * dnzm1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                xi = (double)i * dnxm1;
                exact_solution(xi, 0.0, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][0][i][m] = temp[m];
                exact_solution(xi, 1.0, zeta, temp);
                for (m = 0; m < 5; m++)
                    u[k][grid_points[1] - 1][i][m] = temp[m];
            }
        }

        /* bottom (k = 0) and top (k = nz-1) faces */
#pragma omp for schedule(static)
        for (j = 0; j <= grid_points[1] - 1; j++) {
            eta = (double)j * dnym1;
            for (i = 0; i <= grid_points[0] - 1; i++) {
                xi = (double)i * dnxm1;
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

/*
 * Rows 0 and size of a line's block-tridiagonal matrix (the boundary
 * points): identity on the diagonal, zero off-diagonal blocks, so the
 * boundary values of rhs pass through the solve unchanged.
 */
void lhsinit(double lhs[PROBLEM_SIZE+1][3][5][5], int size)
{
    int b, m, n;

    for (b = 0; b < 3; b++) {
        for (m = 0; m < 5; m++) {
            for (n = 0; n < 5; n++) {
                lhs[0][b][m][n] = 0.0;
                lhs[size][b][m][n] = 0.0;
            }
        }
    }
    for (m = 0; m < 5; m++) {
        lhs[0][BB][m][m] = 1.0;
        lhs[size][BB][m][m] = 1.0;
    }
}
