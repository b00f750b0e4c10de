/*
 * z_solve.c - implicit step in the zeta direction: for every grid line
 * (i, j) solve the block-tridiagonal system along k (see x_solve.c),
 * overwriting rhs with the solution.  The lines are shared among the
 * threads, each line's work arrays being private to its iteration.
 */
#include "header.h"

void z_solve(void)
{
    int i, j, k, m, n, ksize;
    double tmp1, tmp2, tmp3;

    ksize = grid_points[2] - 1;

#pragma omp parallel for default(shared) private(k, m, n, tmp1, tmp2, tmp3) \
        collapse(2) schedule(static)
    for (j = 1; j <= grid_points[1] - 2; j++) {
        for (i = 1; i <= grid_points[0] - 2; i++) {
            double fjac[PROBLEM_SIZE+1][5][5];
            double njac[PROBLEM_SIZE+1][5][5];
            double lhs[PROBLEM_SIZE+1][3][5][5];

            /* Jacobians along the line */
            for (k = 0; k <= ksize; k++) {
                tmp1 = 1.0 / u[k][j][i][0];
                tmp2 = tmp1 * tmp1;
                tmp3 = tmp1 * tmp2;

                fjac[k][0][0] = 0.0;
                fjac[k][0][1] = 0.0;
                fjac[k][0][2] = 0.0;
                fjac[k][0][3] = 1.0;
                fjac[k][0][4] = 0.0;

                fjac[k][1][0] = -(u[k][j][i][1] * u[k][j][i][3]) * tmp2;
                fjac[k][1][1] = u[k][j][i][3] * tmp1;
                fjac[k][1][2] = 0.0;
                fjac[k][1][3] = u[k][j][i][1] * tmp1;
                fjac[k][1][4] = 0.0;

                fjac[k][2][0] = -(u[k][j][i][2] * u[k][j][i][3]) * tmp2;
                fjac[k][2][1] = 0.0;
                fjac[k][2][2] = u[k][j][i][3] * tmp1;
                fjac[k][2][3] = u[k][j][i][2] * tmp1;
                fjac[k][2][4] = 0.0;

                fjac[k][3][0] = -(u[k][j][i][3] * u[k][j][i][3] * tmp2) + c2 * qs[k][j][i];
                fjac[k][3][1] = -c2 * u[k][j][i][1] * tmp1;
                fjac[k][3][2] = -c2 * u[k][j][i][2] * tmp1;
                fjac[k][3][3] = (2.0 - c2) * u[k][j][i][3] * tmp1;
                fjac[k][3][4] = c2;

                fjac[k][4][0] = (c2 * 2.0 * square[k][j][i] - c1 * u[k][j][i][4])
                              * u[k][j][i][3] * tmp2;
                fjac[k][4][1] = -c2 * (u[k][j][i][1] * u[k][j][i][3]) * tmp2;
                fjac[k][4][2] = -c2 * (u[k][j][i][2] * u[k][j][i][3]) * tmp2;
                fjac[k][4][3] = c1 * (u[k][j][i][4] * tmp1)
                              - c2 * (qs[k][j][i] + u[k][j][i][3] * u[k][j][i][3] * tmp2);
                fjac[k][4][4] = c1 * u[k][j][i][3] * tmp1;

                njac[k][0][0] = 0.0;
                njac[k][0][1] = 0.0;
                njac[k][0][2] = 0.0;
                njac[k][0][3] = 0.0;
                njac[k][0][4] = 0.0;

                njac[k][1][0] = -c3c4 * tmp2 * u[k][j][i][1];
                njac[k][1][1] = c3c4 * tmp1;
                njac[k][1][2] = 0.0;
                njac[k][1][3] = 0.0;
                njac[k][1][4] = 0.0;

                njac[k][2][0] = -c3c4 * tmp2 * u[k][j][i][2];
                njac[k][2][1] = 0.0;
                njac[k][2][2] = c3c4 * tmp1;
                njac[k][2][3] = 0.0;
                njac[k][2][4] = 0.0;

                njac[k][3][0] = -con43 * c3c4 * tmp2 * u[k][j][i][3];
                njac[k][3][1] = 0.0;
                njac[k][3][2] = 0.0;
                njac[k][3][3] = con43 * c3c4 * tmp1;
                njac[k][3][4] = 0.0;

                njac[k][4][0] = -(c3c4 - c1345) * tmp3 * (u[k][j][i][1] * u[k][j][i][1])
                              - (c3c4 - c1345) * tmp3 * (u[k][j][i][2] * u[k][j][i][2])
                              - (con43 * c3c4 - c1345) * tmp3 * (u[k][j][i][3] * u[k][j][i][3])
                              - c1345 * tmp2 * u[k][j][i][4];
                njac[k][4][1] = (c3c4 - c1345) * tmp2 * u[k][j][i][1];
                njac[k][4][2] = (c3c4 - c1345) * tmp2 * u[k][j][i][2];
                njac[k][4][3] = (con43 * c3c4 - c1345) * tmp2 * u[k][j][i][3];
                njac[k][4][4] = c1345 * tmp1;
            }

            /* the block rows of the matrix; rows 0 and ksize are identity rows */
            lhsinit(lhs, ksize);
            tmp1 = dt * tz1;
            tmp2 = dt * tz2;
            for (k = 1; k <= ksize - 1; k++) {
                for (m = 0; m < 5; m++) {
                    for (n = 0; n < 5; n++) {
                        lhs[k][AA][m][n] = -tmp2 * fjac[k-1][m][n] - tmp1 * njac[k-1][m][n];
                        lhs[k][BB][m][n] = tmp1 * 2.0 * njac[k][m][n];
                        lhs[k][CC][m][n] = tmp2 * fjac[k+1][m][n] - tmp1 * njac[k+1][m][n];
                    }
                }
                lhs[k][AA][0][0] = lhs[k][AA][0][0] - tmp1 * dz1;
                lhs[k][AA][1][1] = lhs[k][AA][1][1] - tmp1 * dz2;
                lhs[k][AA][2][2] = lhs[k][AA][2][2] - tmp1 * dz3;
                lhs[k][AA][3][3] = lhs[k][AA][3][3] - tmp1 * dz4;
                lhs[k][AA][4][4] = lhs[k][AA][4][4] - tmp1 * dz5;

                lhs[k][BB][0][0] = 1.0 + lhs[k][BB][0][0] + tmp1 * 2.0 * dz1;
                lhs[k][BB][1][1] = 1.0 + lhs[k][BB][1][1] + tmp1 * 2.0 * dz2;
                lhs[k][BB][2][2] = 1.0 + lhs[k][BB][2][2] + tmp1 * 2.0 * dz3;
                lhs[k][BB][3][3] = 1.0 + lhs[k][BB][3][3] + tmp1 * 2.0 * dz4;
                lhs[k][BB][4][4] = 1.0 + lhs[k][BB][4][4] + tmp1 * 2.0 * dz5;

                lhs[k][CC][0][0] = lhs[k][CC][0][0] - tmp1 * dz1;
                lhs[k][CC][1][1] = lhs[k][CC][1][1] - tmp1 * dz2;
                lhs[k][CC][2][2] = lhs[k][CC][2][2] - tmp1 * dz3;
                lhs[k][CC][3][3] = lhs[k][CC][3][3] - tmp1 * dz4;
                lhs[k][CC][4][4] = lhs[k][CC][4][4] - tmp1 * dz5;
            }

            /* forward elimination */
            binvcrhs(lhs[0][BB], lhs[0][CC], rhs[0][j][i]);
            for (k = 1; k <= ksize - 1; k++) {
                matvec_sub(lhs[k][AA], rhs[k-1][j][i], rhs[k][j][i]);
                matmul_sub(lhs[k][AA], lhs[k-1][CC], lhs[k][BB]);
                binvcrhs(lhs[k][BB], lhs[k][CC], rhs[k][j][i]);
            }
            matvec_sub(lhs[ksize][AA], rhs[ksize-1][j][i], rhs[ksize][j][i]);
            matmul_sub(lhs[ksize][AA], lhs[ksize-1][CC], lhs[ksize][BB]);
            binvrhs(lhs[ksize][BB], rhs[ksize][j][i]);

            /* back substitution */
            for (k = ksize - 1; k >= 0; k--) {
                for (m = 0; m < 5; m++) {
                    for (n = 0; n < 5; n++) {
                        rhs[k][j][i][m] = rhs[k][j][i][m] - lhs[k][CC][m][n] * rhs[k+1][j][i][n];
                    }
                }
            }
        }
    }
}
