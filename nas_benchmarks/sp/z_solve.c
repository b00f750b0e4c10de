/*
 * z_solve.c - SP: line solves in the zeta direction.
 *
 * Same scheme as x_solve: every (j, i) line along k carries three scalar
 * pentadiagonal systems (lhs for the w eigenvalue, lhsp for w+c, lhsm for
 * w-c), assembled into per-iteration work arrays and solved by forward
 * elimination and back substitution along k, overwriting rhs.  tzetar()
 * follows, back to the conserved variables.
 */
#include "header.h"

void z_solve(void)
{
    int i, j;

#pragma omp parallel for collapse(2) schedule(static)
    for (j = 1; j <= ny2; j++) {
        for (i = 1; i <= nx2; i++) {
            double lhs[KMAX][5], lhsp[KMAX][5], lhsm[KMAX][5];
            double cv[KMAX], rhos[KMAX];
            double fac1, fac2, ru1;
            int k, k1, k2, m;
            int ni = grid_points[2] - 1;

            /* the w eigenvalue and the largest viscous coefficient */
            for (k = 0; k <= grid_points[2] - 1; k++) {
                ru1 = c3c4 * rho_i[k][j][i];
                cv[k] = ws[k][j][i];
                rhos[k] = SP_MAX(SP_MAX(dz4 + con43 * ru1, dz5 + c1c5 * ru1),
                                 SP_MAX(dzmax + ru1, dz1));
            }

            /* boundary rows: the identity */
            for (m = 0; m < 5; m++) {
                lhs[0][m]   = 0.0;
                lhsp[0][m]  = 0.0;
                lhsm[0][m]  = 0.0;
                lhs[ni][m]  = 0.0;
                lhsp[ni][m] = 0.0;
                lhsm[ni][m] = 0.0;
            }
            lhs[0][2]   = 1.0;
            lhsp[0][2]  = 1.0;
            lhsm[0][2]  = 1.0;
            lhs[ni][2]  = 1.0;
            lhsp[ni][2] = 1.0;
            lhsm[ni][2] = 1.0;

            /* the w-eigenvalue factor */
            for (k = 1; k <= nz2; k++) {
                lhs[k][0] = 0.0;
                lhs[k][1] = -dttz2 * cv[k - 1] - dttz1 * rhos[k - 1];
                lhs[k][2] = 1.0 + c2dttz1 * rhos[k];
                lhs[k][3] = dttz2 * cv[k + 1] - dttz1 * rhos[k + 1];
                lhs[k][4] = 0.0;
            }

            /* fourth-order dissipation */
            k = 1;
            lhs[k][2] = lhs[k][2] + comz5;
            lhs[k][3] = lhs[k][3] - comz4;
            lhs[k][4] = lhs[k][4] + comz1;
            lhs[k + 1][1] = lhs[k + 1][1] - comz4;
            lhs[k + 1][2] = lhs[k + 1][2] + comz6;
            lhs[k + 1][3] = lhs[k + 1][3] - comz4;
            lhs[k + 1][4] = lhs[k + 1][4] + comz1;
            for (k = 3; k <= grid_points[2] - 4; k++) {
                lhs[k][0] = lhs[k][0] + comz1;
                lhs[k][1] = lhs[k][1] - comz4;
                lhs[k][2] = lhs[k][2] + comz6;
                lhs[k][3] = lhs[k][3] - comz4;
                lhs[k][4] = lhs[k][4] + comz1;
            }
            k = grid_points[2] - 3;
            lhs[k][0] = lhs[k][0] + comz1;
            lhs[k][1] = lhs[k][1] - comz4;
            lhs[k][2] = lhs[k][2] + comz6;
            lhs[k][3] = lhs[k][3] - comz4;
            lhs[k + 1][0] = lhs[k + 1][0] + comz1;
            lhs[k + 1][1] = lhs[k + 1][1] - comz4;
            lhs[k + 1][2] = lhs[k + 1][2] + comz5;

            /* the w+c and w-c factors: the w factor plus the sound speed
             * in the convection terms */
            for (k = 1; k <= nz2; k++) {
                lhsp[k][0] = lhs[k][0];
                lhsp[k][1] = lhs[k][1] - dttz2 * speed[k - 1][j][i];
                lhsp[k][2] = lhs[k][2];
                lhsp[k][3] = lhs[k][3] + dttz2 * speed[k + 1][j][i];
                lhsp[k][4] = lhs[k][4];
                lhsm[k][0] = lhs[k][0];
                lhsm[k][1] = lhs[k][1] + dttz2 * speed[k - 1][j][i];
                lhsm[k][2] = lhs[k][2];
                lhsm[k][3] = lhs[k][3] - dttz2 * speed[k + 1][j][i];
                lhsm[k][4] = lhs[k][4];
            }

            /* forward elimination of the three systems */
            for (k = 0; k <= grid_points[2] - 3; k++) {
                k1 = k + 1;
                k2 = k + 2;

                fac1 = 1.0 / lhs[k][2];
                lhs[k][3] = fac1 * lhs[k][3];
                lhs[k][4] = fac1 * lhs[k][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhs[k1][2] = lhs[k1][2] - lhs[k1][1] * lhs[k][3];
                lhs[k1][3] = lhs[k1][3] - lhs[k1][1] * lhs[k][4];
                for (m = 0; m < 3; m++)
                    rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhs[k1][1] * rhs[k][j][i][m];
                lhs[k2][1] = lhs[k2][1] - lhs[k2][0] * lhs[k][3];
                lhs[k2][2] = lhs[k2][2] - lhs[k2][0] * lhs[k][4];
                for (m = 0; m < 3; m++)
                    rhs[k2][j][i][m] = rhs[k2][j][i][m] - lhs[k2][0] * rhs[k][j][i][m];

                m = 3;
                fac1 = 1.0 / lhsp[k][2];
                lhsp[k][3] = fac1 * lhsp[k][3];
                lhsp[k][4] = fac1 * lhsp[k][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsp[k1][2] = lhsp[k1][2] - lhsp[k1][1] * lhsp[k][3];
                lhsp[k1][3] = lhsp[k1][3] - lhsp[k1][1] * lhsp[k][4];
                rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhsp[k1][1] * rhs[k][j][i][m];
                lhsp[k2][1] = lhsp[k2][1] - lhsp[k2][0] * lhsp[k][3];
                lhsp[k2][2] = lhsp[k2][2] - lhsp[k2][0] * lhsp[k][4];
                rhs[k2][j][i][m] = rhs[k2][j][i][m] - lhsp[k2][0] * rhs[k][j][i][m];

                m = 4;
                fac1 = 1.0 / lhsm[k][2];
                lhsm[k][3] = fac1 * lhsm[k][3];
                lhsm[k][4] = fac1 * lhsm[k][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsm[k1][2] = lhsm[k1][2] - lhsm[k1][1] * lhsm[k][3];
                lhsm[k1][3] = lhsm[k1][3] - lhsm[k1][1] * lhsm[k][4];
                rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhsm[k1][1] * rhs[k][j][i][m];
                lhsm[k2][1] = lhsm[k2][1] - lhsm[k2][0] * lhsm[k][3];
                lhsm[k2][2] = lhsm[k2][2] - lhsm[k2][0] * lhsm[k][4];
                rhs[k2][j][i][m] = rhs[k2][j][i][m] - lhsm[k2][0] * rhs[k][j][i][m];
            }

            /* the last two rows */
            k  = grid_points[2] - 2;
            k1 = grid_points[2] - 1;

            fac1 = 1.0 / lhs[k][2];
            lhs[k][3] = fac1 * lhs[k][3];
            lhs[k][4] = fac1 * lhs[k][4];
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhs[k1][2] = lhs[k1][2] - lhs[k1][1] * lhs[k][3];
            lhs[k1][3] = lhs[k1][3] - lhs[k1][1] * lhs[k][4];
            for (m = 0; m < 3; m++)
                rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhs[k1][1] * rhs[k][j][i][m];
            /* scale the last row immediately */
            fac2 = 1.0 / lhs[k1][2];
            for (m = 0; m < 3; m++)
                rhs[k1][j][i][m] = fac2 * rhs[k1][j][i][m];

            m = 3;
            fac1 = 1.0 / lhsp[k][2];
            lhsp[k][3] = fac1 * lhsp[k][3];
            lhsp[k][4] = fac1 * lhsp[k][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsp[k1][2] = lhsp[k1][2] - lhsp[k1][1] * lhsp[k][3];
            lhsp[k1][3] = lhsp[k1][3] - lhsp[k1][1] * lhsp[k][4];
            rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhsp[k1][1] * rhs[k][j][i][m];

            m = 4;
            fac1 = 1.0 / lhsm[k][2];
            lhsm[k][3] = fac1 * lhsm[k][3];
            lhsm[k][4] = fac1 * lhsm[k][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsm[k1][2] = lhsm[k1][2] - lhsm[k1][1] * lhsm[k][3];
            lhsm[k1][3] = lhsm[k1][3] - lhsm[k1][1] * lhsm[k][4];
            rhs[k1][j][i][m] = rhs[k1][j][i][m] - lhsm[k1][1] * rhs[k][j][i][m];

            /* scale the last row immediately */
            rhs[k1][j][i][3] = rhs[k1][j][i][3] / lhsp[k1][2];
            rhs[k1][j][i][4] = rhs[k1][j][i][4] / lhsm[k1][2];

            /* back substitution */
            k  = grid_points[2] - 2;
            k1 = grid_points[2] - 1;
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = rhs[k][j][i][m] - lhs[k][3] * rhs[k1][j][i][m];
            rhs[k][j][i][3] = rhs[k][j][i][3] - lhsp[k][3] * rhs[k1][j][i][3];
            rhs[k][j][i][4] = rhs[k][j][i][4] - lhsm[k][3] * rhs[k1][j][i][4];

            for (k = grid_points[2] - 3; k >= 0; k--) {
                k1 = k + 1;
                k2 = k + 2;
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = rhs[k][j][i][m] -
                                      lhs[k][3] * rhs[k1][j][i][m] -
                                      lhs[k][4] * rhs[k2][j][i][m];
                rhs[k][j][i][3] = rhs[k][j][i][3] -
                                  lhsp[k][3] * rhs[k1][j][i][3] -
                                  lhsp[k][4] * rhs[k2][j][i][3];
                rhs[k][j][i][4] = rhs[k][j][i][4] -
                                  lhsm[k][3] * rhs[k1][j][i][4] -
                                  lhsm[k][4] * rhs[k2][j][i][4];
            }
        }
    }

    tzetar();
}
