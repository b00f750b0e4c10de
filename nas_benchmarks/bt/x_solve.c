/*
 * x_solve.c - implicit step in the xi direction: for every grid line
 * (j, k) solve the block-tridiagonal system
 *     A(i) x(i-1) + B(i) x(i) + C(i) x(i+1) = rhs(i),   i = 0..nx-1
 * with 5x5 blocks built from the inviscid flux Jacobian (fjac) and the
 * viscous Jacobian (njac), overwriting rhs with the solution.  Forward
 * elimination with block Gaussian elimination (binvcrhs), then back
 * substitution.  The lines are independent: they are shared among the
 * threads, each line's work arrays being private to its iteration.
 */
#include "header.h"

void x_solve(void)
{
    int i, j, k, m, n, isize;
    double tmp1, tmp2, tmp3;

    isize = grid_points[0] - 1;

#pragma omp parallel for default(shared) private(i, m, n, tmp1, tmp2, tmp3) \
        collapse(2) schedule(static)
    for (k = 1; k <= grid_points[2] - 2; k++) {
        for (j = 1; j <= grid_points[1] - 2; j++) {
            double fjac[PROBLEM_SIZE+1][5][5];
            double njac[PROBLEM_SIZE+1][5][5];
            double lhs[PROBLEM_SIZE+1][3][5][5];

            /* Jacobians along the line */
            for (i = 0; i <= isize; i++) {
                tmp1 = rho_i[k][j][i];
                tmp2 = tmp1 * tmp1;
                tmp3 = tmp1 * tmp2;

                fjac[i][0][0] = 0.0;
                fjac[i][0][1] = 1.0;
                fjac[i][0][2] = 0.0;
                fjac[i][0][3] = 0.0;
                fjac[i][0][4] = 0.0;

                fjac[i][1][0] = -(u[k][j][i][1] * tmp2 * u[k][j][i][1]) + c2 * qs[k][j][i];
                fjac[i][1][1] = (2.0 - c2) * (u[k][j][i][1] / u[k][j][i][0]);
                fjac[i][1][2] = -c2 * (u[k][j][i][2] * tmp1);
                fjac[i][1][3] = -c2 * (u[k][j][i][3] * tmp1);
                fjac[i][1][4] = c2;

                fjac[i][2][0] = -(u[k][j][i][1] * u[k][j][i][2]) * tmp2;
                fjac[i][2][1] = u[k][j][i][2] * tmp1;
                fjac[i][2][2] = u[k][j][i][1] * tmp1;
                fjac[i][2][3] = 0.0;
                fjac[i][2][4] = 0.0;

                fjac[i][3][0] = -(u[k][j][i][1] * u[k][j][i][3]) * tmp2;
                fjac[i][3][1] = u[k][j][i][3] * tmp1;
                fjac[i][3][2] = 0.0;
                fjac[i][3][3] = u[k][j][i][1] * tmp1;
                fjac[i][3][4] = 0.0;

                fjac[i][4][0] = (c2 * 2.0 * square[k][j][i] - c1 * u[k][j][i][4])
                              * (u[k][j][i][1] * tmp2);
                fjac[i][4][1] = c1 * u[k][j][i][4] * tmp1
                              - c2 * (u[k][j][i][1] * u[k][j][i][1] * tmp2 + qs[k][j][i]);
                fjac[i][4][2] = -c2 * (u[k][j][i][2] * u[k][j][i][1]) * tmp2;
                fjac[i][4][3] = -c2 * (u[k][j][i][3] * u[k][j][i][1]) * tmp2;
                fjac[i][4][4] = c1 * (u[k][j][i][1] * tmp1);

                njac[i][0][0] = 0.0;
                njac[i][0][1] = 0.0;
                njac[i][0][2] = 0.0;
                njac[i][0][3] = 0.0;
                njac[i][0][4] = 0.0;

                njac[i][1][0] = -con43 * c3c4 * tmp2 * u[k][j][i][1];
                njac[i][1][1] = con43 * c3c4 * tmp1;
                njac[i][1][2] = 0.0;
                njac[i][1][3] = 0.0;
                njac[i][1][4] = 0.0;

                njac[i][2][0] = -c3c4 * tmp2 * u[k][j][i][2];
                njac[i][2][1] = 0.0;
                njac[i][2][2] = c3c4 * tmp1;
                njac[i][2][3] = 0.0;
                njac[i][2][4] = 0.0;

                njac[i][3][0] = -c3c4 * tmp2 * u[k][j][i][3];
                njac[i][3][1] = 0.0;
                njac[i][3][2] = 0.0;
                njac[i][3][3] = c3c4 * tmp1;
                njac[i][3][4] = 0.0;

                njac[i][4][0] = -(con43 * c3c4 - c1345) * tmp3 * (u[k][j][i][1] * u[k][j][i][1])
                              - (c3c4 - c1345) * tmp3 * (u[k][j][i][2] * u[k][j][i][2])
                              - (c3c4 - c1345) * tmp3 * (u[k][j][i][3] * u[k][j][i][3])
                              - c1345 * tmp2 * u[k][j][i][4];
                njac[i][4][1] = (con43 * c3c4 - c1345) * tmp2 * u[k][j][i][1];
                njac[i][4][2] = (c3c4 - c1345) * tmp2 * u[k][j][i][2];
                njac[i][4][3] = (c3c4 - c1345) * tmp2 * u[k][j][i][3];
                njac[i][4][4] = c1345 * tmp1;
            }

            /* the block rows of the matrix; rows 0 and isize are identity rows */
            lhsinit(lhs, isize);
            tmp1 = dt * tx1;
            tmp2 = dt * tx2;
            for (i = 1; i <= isize - 1; i++) {
                for (m = 0; m < 5; m++) {
                    for (n = 0; n < 5; n++) {
                        lhs[i][AA][m][n] = -tmp2 * fjac[i-1][m][n] - tmp1 * njac[i-1][m][n];
                        lhs[i][BB][m][n] = tmp1 * 2.0 * njac[i][m][n];
                        lhs[i][CC][m][n] = tmp2 * fjac[i+1][m][n] - tmp1 * njac[i+1][m][n];
                    }
                }
                lhs[i][AA][0][0] = lhs[i][AA][0][0] - tmp1 * dx1;
                lhs[i][AA][1][1] = lhs[i][AA][1][1] - tmp1 * dx2;
                lhs[i][AA][2][2] = lhs[i][AA][2][2] - tmp1 * dx3;
                lhs[i][AA][3][3] = lhs[i][AA][3][3] - tmp1 * dx4;
                lhs[i][AA][4][4] = lhs[i][AA][4][4] - tmp1 * dx5;

                lhs[i][BB][0][0] = 1.0 + lhs[i][BB][0][0] + tmp1 * 2.0 * dx1;
                lhs[i][BB][1][1] = 1.0 + lhs[i][BB][1][1] + tmp1 * 2.0 * dx2;
                lhs[i][BB][2][2] = 1.0 + lhs[i][BB][2][2] + tmp1 * 2.0 * dx3;
                lhs[i][BB][3][3] = 1.0 + lhs[i][BB][3][3] + tmp1 * 2.0 * dx4;
                lhs[i][BB][4][4] = 1.0 + lhs[i][BB][4][4] + tmp1 * 2.0 * dx5;

                lhs[i][CC][0][0] = lhs[i][CC][0][0] - tmp1 * dx1;
                lhs[i][CC][1][1] = lhs[i][CC][1][1] - tmp1 * dx2;
                lhs[i][CC][2][2] = lhs[i][CC][2][2] - tmp1 * dx3;
                lhs[i][CC][3][3] = lhs[i][CC][3][3] - tmp1 * dx4;
                lhs[i][CC][4][4] = lhs[i][CC][4][4] - tmp1 * dx5;
            }

            /* forward elimination: C(0) = B(0)^-1 C(0), rhs(0) = B(0)^-1 rhs(0) */
            binvcrhs(lhs[0][BB], lhs[0][CC], rhs[k][j][0]);
            for (i = 1; i <= isize - 1; i++) {
                /* rhs(i) -= A(i) rhs(i-1); B(i) -= A(i) C(i-1) */
                matvec_sub(lhs[i][AA], rhs[k][j][i-1], rhs[k][j][i]);
                matmul_sub(lhs[i][AA], lhs[i-1][CC], lhs[i][BB]);
                /* C(i) = B(i)^-1 C(i), rhs(i) = B(i)^-1 rhs(i) */
                binvcrhs(lhs[i][BB], lhs[i][CC], rhs[k][j][i]);
            }
            matvec_sub(lhs[isize][AA], rhs[k][j][isize-1], rhs[k][j][isize]);
            matmul_sub(lhs[isize][AA], lhs[isize-1][CC], lhs[isize][BB]);
            binvrhs(lhs[isize][BB], rhs[k][j][isize]);

            /* back substitution: rhs(i) -= C(i) rhs(i+1) */
            for (i = isize - 1; i >= 0; i--) {
                for (m = 0; m < 5; m++) {
                    for (n = 0; n < 5; n++) {
                        rhs[k][j][i][m] = rhs[k][j][i][m] - lhs[i][CC][m][n] * rhs[k][j][i+1][n];
                    }
                }
            }
        }
    }
}
