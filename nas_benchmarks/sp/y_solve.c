/*
 * y_solve.c - SP: line solves in the eta direction.
 *
 * Same scheme as x_solve: every (k, i) line along j carries three scalar
 * pentadiagonal systems (lhs for the v eigenvalue, lhsp for v+c, lhsm for
 * v-c), assembled into per-iteration work arrays and solved by forward
 * elimination and back substitution along j, overwriting rhs.  pinvr()
 * follows.
 */
#include "header.h"

void y_solve(void)
{
    int i, k;

#pragma omp parallel for collapse(2) schedule(static)
    for (k = 1; k <= nz2; k++) {
        for (i = 1; i <= nx2; i++) {
            double lhs[JMAX][5], lhsp[JMAX][5], lhsm[JMAX][5];
            double cv[JMAX], rhoq[JMAX];
            double fac1, fac2, ru1;
            int j, j1, j2, m;
            int ni = grid_points[1] - 1;

            /* the v eigenvalue and the largest viscous coefficient */
            for (j = 0; j <= grid_points[1] - 1; j++) {
                ru1 = c3c4 * rho_i[k][j][i];
                cv[j] = vs[k][j][i];
                rhoq[j] = SP_MAX(SP_MAX(dy3 + con43 * ru1, dy5 + c1c5 * ru1),
                                 SP_MAX(dymax + ru1, dy1));
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

            /* the v-eigenvalue factor */
            for (j = 1; j <= ny2; j++) {
                lhs[j][0] = 0.0;
                lhs[j][1] = -dtty2 * cv[j - 1] - dtty1 * rhoq[j - 1];
                lhs[j][2] = 1.0 + c2dtty1 * rhoq[j];
                lhs[j][3] = dtty2 * cv[j + 1] - dtty1 * rhoq[j + 1];
                lhs[j][4] = 0.0;
            }

            /* fourth-order dissipation */
            j = 1;
            lhs[j][2] = lhs[j][2] + comz5;
            lhs[j][3] = lhs[j][3] - comz4;
            lhs[j][4] = lhs[j][4] + comz1;
            lhs[j + 1][1] = lhs[j + 1][1] - comz4;
            lhs[j + 1][2] = lhs[j + 1][2] + comz6;
            lhs[j + 1][3] = lhs[j + 1][3] - comz4;
            lhs[j + 1][4] = lhs[j + 1][4] + comz1;
            for (j = 3; j <= grid_points[1] - 4; j++) {
                lhs[j][0] = lhs[j][0] + comz1;
                lhs[j][1] = lhs[j][1] - comz4;
                lhs[j][2] = lhs[j][2] + comz6;
                lhs[j][3] = lhs[j][3] - comz4;
                lhs[j][4] = lhs[j][4] + comz1;
            }
            j = grid_points[1] - 3;
            lhs[j][0] = lhs[j][0] + comz1;
            lhs[j][1] = lhs[j][1] - comz4;
            lhs[j][2] = lhs[j][2] + comz6;
            lhs[j][3] = lhs[j][3] - comz4;
            lhs[j + 1][0] = lhs[j + 1][0] + comz1;
            lhs[j + 1][1] = lhs[j + 1][1] - comz4;
            lhs[j + 1][2] = lhs[j + 1][2] + comz5;

            /* the v+c and v-c factors: the v factor plus the sound speed
             * in the convection terms */
            for (j = 1; j <= ny2; j++) {
                lhsp[j][0] = lhs[j][0];
                lhsp[j][1] = lhs[j][1] - dtty2 * speed[k][j - 1][i];
                lhsp[j][2] = lhs[j][2];
                lhsp[j][3] = lhs[j][3] + dtty2 * speed[k][j + 1][i];
                lhsp[j][4] = lhs[j][4];
                lhsm[j][0] = lhs[j][0];
                lhsm[j][1] = lhs[j][1] + dtty2 * speed[k][j - 1][i];
                lhsm[j][2] = lhs[j][2];
                lhsm[j][3] = lhs[j][3] - dtty2 * speed[k][j + 1][i];
                lhsm[j][4] = lhs[j][4];
            }

            /* forward elimination of the three systems */
            for (j = 0; j <= grid_points[1] - 3; j++) {
                j1 = j + 1;
                j2 = j + 2;

                fac1 = 1.0 / lhs[j][2];
                lhs[j][3] = fac1 * lhs[j][3];
                lhs[j][4] = fac1 * lhs[j][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhs[j1][2] = lhs[j1][2] - lhs[j1][1] * lhs[j][3];
                lhs[j1][3] = lhs[j1][3] - lhs[j1][1] * lhs[j][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhs[j1][1] * rhs[k][j][i][m];
                lhs[j2][1] = lhs[j2][1] - lhs[j2][0] * lhs[j][3];
                lhs[j2][2] = lhs[j2][2] - lhs[j2][0] * lhs[j][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j2][i][m] = rhs[k][j2][i][m] - lhs[j2][0] * rhs[k][j][i][m];

                m = 3;
                fac1 = 1.0 / lhsp[j][2];
                lhsp[j][3] = fac1 * lhsp[j][3];
                lhsp[j][4] = fac1 * lhsp[j][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsp[j1][2] = lhsp[j1][2] - lhsp[j1][1] * lhsp[j][3];
                lhsp[j1][3] = lhsp[j1][3] - lhsp[j1][1] * lhsp[j][4];
                rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhsp[j1][1] * rhs[k][j][i][m];
                lhsp[j2][1] = lhsp[j2][1] - lhsp[j2][0] * lhsp[j][3];
                lhsp[j2][2] = lhsp[j2][2] - lhsp[j2][0] * lhsp[j][4];
                rhs[k][j2][i][m] = rhs[k][j2][i][m] - lhsp[j2][0] * rhs[k][j][i][m];

                m = 4;
                fac1 = 1.0 / lhsm[j][2];
                lhsm[j][3] = fac1 * lhsm[j][3];
                lhsm[j][4] = fac1 * lhsm[j][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsm[j1][2] = lhsm[j1][2] - lhsm[j1][1] * lhsm[j][3];
                lhsm[j1][3] = lhsm[j1][3] - lhsm[j1][1] * lhsm[j][4];
                rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhsm[j1][1] * rhs[k][j][i][m];
                lhsm[j2][1] = lhsm[j2][1] - lhsm[j2][0] * lhsm[j][3];
                lhsm[j2][2] = lhsm[j2][2] - lhsm[j2][0] * lhsm[j][4];
                rhs[k][j2][i][m] = rhs[k][j2][i][m] - lhsm[j2][0] * rhs[k][j][i][m];
            }

            /* the last two rows */
            j  = grid_points[1] - 2;
            j1 = grid_points[1] - 1;

            fac1 = 1.0 / lhs[j][2];
            lhs[j][3] = fac1 * lhs[j][3];
            lhs[j][4] = fac1 * lhs[j][4];
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhs[j1][2] = lhs[j1][2] - lhs[j1][1] * lhs[j][3];
            lhs[j1][3] = lhs[j1][3] - lhs[j1][1] * lhs[j][4];
            for (m = 0; m < 3; m++)
                rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhs[j1][1] * rhs[k][j][i][m];
            /* scale the last row immediately */
            fac2 = 1.0 / lhs[j1][2];
            for (m = 0; m < 3; m++)
                rhs[k][j1][i][m] = fac2 * rhs[k][j1][i][m];

            m = 3;
            fac1 = 1.0 / lhsp[j][2];
            lhsp[j][3] = fac1 * lhsp[j][3];
            lhsp[j][4] = fac1 * lhsp[j][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsp[j1][2] = lhsp[j1][2] - lhsp[j1][1] * lhsp[j][3];
            lhsp[j1][3] = lhsp[j1][3] - lhsp[j1][1] * lhsp[j][4];
            rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhsp[j1][1] * rhs[k][j][i][m];

            m = 4;
            fac1 = 1.0 / lhsm[j][2];
            lhsm[j][3] = fac1 * lhsm[j][3];
            lhsm[j][4] = fac1 * lhsm[j][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsm[j1][2] = lhsm[j1][2] - lhsm[j1][1] * lhsm[j][3];
            lhsm[j1][3] = lhsm[j1][3] - lhsm[j1][1] * lhsm[j][4];
            rhs[k][j1][i][m] = rhs[k][j1][i][m] - lhsm[j1][1] * rhs[k][j][i][m];

            /* scale the last row immediately */
            rhs[k][j1][i][3] = rhs[k][j1][i][3] / lhsp[j1][2];
            rhs[k][j1][i][4] = rhs[k][j1][i][4] / lhsm[j1][2];

            /* back substitution */
            j  = grid_points[1] - 2;
            j1 = grid_points[1] - 1;
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = rhs[k][j][i][m] - lhs[j][3] * rhs[k][j1][i][m];
            rhs[k][j][i][3] = rhs[k][j][i][3] - lhsp[j][3] * rhs[k][j1][i][3];
            rhs[k][j][i][4] = rhs[k][j][i][4] - lhsm[j][3] * rhs[k][j1][i][4];

            for (j = grid_points[1] - 3; j >= 0; j--) {
                j1 = j + 1;
                j2 = j + 2;
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = rhs[k][j][i][m] -
                                      lhs[j][3] * rhs[k][j1][i][m] -
                                      lhs[j][4] * rhs[k][j2][i][m];
                rhs[k][j][i][3] = rhs[k][j][i][3] -
                                  lhsp[j][3] * rhs[k][j1][i][3] -
                                  lhsp[j][4] * rhs[k][j2][i][3];
                rhs[k][j][i][4] = rhs[k][j][i][4] -
                                  lhsm[j][3] * rhs[k][j1][i][4] -
                                  lhsm[j][4] * rhs[k][j2][i][4];
            }
        }
    }

    pinvr();
}
