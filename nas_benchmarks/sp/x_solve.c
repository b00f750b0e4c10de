/*
 * x_solve.c - SP: line solves in the xi direction.
 *
 * After txinvr the xi-direction factor of the approximate factorisation is
 * diagonal in the characteristic variables: every grid line along i carries
 * three scalar pentadiagonal systems, lhs for the u eigenvalue (components
 * 0..2), lhsp for u+c (component 3) and lhsm for u-c (component 4).  Each
 * (k, j) line is independent: it is assembled into per-iteration work arrays
 * and solved by Gaussian elimination without pivoting (forward elimination
 * along i, then back substitution), overwriting rhs.  ninvr() follows.
 */
#include "header.h"

void x_solve(void)
{
    int j, k;

#pragma omp parallel for collapse(2) schedule(static)
    for (k = 1; k <= nz2; k++) {
        for (j = 1; j <= ny2; j++) {
            double lhs[IMAX][5], lhsp[IMAX][5], lhsm[IMAX][5];
            double cv[IMAX], rhon[IMAX];
            double fac1, fac2, ru1;
            int i, i1, i2, m;
            int ni = grid_points[0] - 1;

            /* the u eigenvalue and the largest viscous coefficient */
            for (i = 0; i <= grid_points[0] - 1; i++) {
                ru1 = c3c4 * rho_i[k][j][i];
                cv[i] = us[k][j][i];
                rhon[i] = SP_MAX(SP_MAX(dx2 + con43 * ru1, dx5 + c1c5 * ru1),
                                 SP_MAX(dxmax + ru1, dx1));
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

            /* the u-eigenvalue factor */
            for (i = 1; i <= nx2; i++) {
                lhs[i][0] = 0.0;
                lhs[i][1] = -dttx2 * cv[i - 1] - dttx1 * rhon[i - 1];
                lhs[i][2] = 1.0 + c2dttx1 * rhon[i];
                lhs[i][3] = dttx2 * cv[i + 1] - dttx1 * rhon[i + 1];
                lhs[i][4] = 0.0;
            }

            /* fourth-order dissipation */
            i = 1;
            lhs[i][2] = lhs[i][2] + comz5;
            lhs[i][3] = lhs[i][3] - comz4;
            lhs[i][4] = lhs[i][4] + comz1;
            lhs[i + 1][1] = lhs[i + 1][1] - comz4;
            lhs[i + 1][2] = lhs[i + 1][2] + comz6;
            lhs[i + 1][3] = lhs[i + 1][3] - comz4;
            lhs[i + 1][4] = lhs[i + 1][4] + comz1;
            for (i = 3; i <= grid_points[0] - 4; i++) {
                lhs[i][0] = lhs[i][0] + comz1;
                lhs[i][1] = lhs[i][1] - comz4;
                lhs[i][2] = lhs[i][2] + comz6;
                lhs[i][3] = lhs[i][3] - comz4;
                lhs[i][4] = lhs[i][4] + comz1;
            }
            i = grid_points[0] - 3;
            lhs[i][0] = lhs[i][0] + comz1;
            lhs[i][1] = lhs[i][1] - comz4;
            lhs[i][2] = lhs[i][2] + comz6;
            lhs[i][3] = lhs[i][3] - comz4;
            lhs[i + 1][0] = lhs[i + 1][0] + comz1;
            lhs[i + 1][1] = lhs[i + 1][1] - comz4;
            lhs[i + 1][2] = lhs[i + 1][2] + comz5;

            /* the u+c and u-c factors: the u factor plus the sound speed
             * in the convection terms */
            for (i = 1; i <= nx2; i++) {
                lhsp[i][0] = lhs[i][0];
                lhsp[i][1] = lhs[i][1] - dttx2 * speed[k][j][i - 1];
                lhsp[i][2] = lhs[i][2];
                lhsp[i][3] = lhs[i][3] + dttx2 * speed[k][j][i + 1];
                lhsp[i][4] = lhs[i][4];
                lhsm[i][0] = lhs[i][0];
                lhsm[i][1] = lhs[i][1] + dttx2 * speed[k][j][i - 1];
                lhsm[i][2] = lhs[i][2];
                lhsm[i][3] = lhs[i][3] - dttx2 * speed[k][j][i + 1];
                lhsm[i][4] = lhs[i][4];
            }

            /* forward elimination of the three systems */
            for (i = 0; i <= grid_points[0] - 3; i++) {
                i1 = i + 1;
                i2 = i + 2;

                fac1 = 1.0 / lhs[i][2];
                lhs[i][3] = fac1 * lhs[i][3];
                lhs[i][4] = fac1 * lhs[i][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhs[i1][2] = lhs[i1][2] - lhs[i1][1] * lhs[i][3];
                lhs[i1][3] = lhs[i1][3] - lhs[i1][1] * lhs[i][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhs[i1][1] * rhs[k][j][i][m];
                lhs[i2][1] = lhs[i2][1] - lhs[i2][0] * lhs[i][3];
                lhs[i2][2] = lhs[i2][2] - lhs[i2][0] * lhs[i][4];
                for (m = 0; m < 3; m++)
                    rhs[k][j][i2][m] = rhs[k][j][i2][m] - lhs[i2][0] * rhs[k][j][i][m];

                m = 3;
                fac1 = 1.0 / lhsp[i][2];
                lhsp[i][3] = fac1 * lhsp[i][3];
                lhsp[i][4] = fac1 * lhsp[i][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsp[i1][2] = lhsp[i1][2] - lhsp[i1][1] * lhsp[i][3];
                lhsp[i1][3] = lhsp[i1][3] - lhsp[i1][1] * lhsp[i][4];
                rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhsp[i1][1] * rhs[k][j][i][m];
                lhsp[i2][1] = lhsp[i2][1] - lhsp[i2][0] * lhsp[i][3];
                lhsp[i2][2] = lhsp[i2][2] - lhsp[i2][0] * lhsp[i][4];
                rhs[k][j][i2][m] = rhs[k][j][i2][m] - lhsp[i2][0] * rhs[k][j][i][m];

                m = 4;
                fac1 = 1.0 / lhsm[i][2];
                lhsm[i][3] = fac1 * lhsm[i][3];
                lhsm[i][4] = fac1 * lhsm[i][4];
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
                lhsm[i1][2] = lhsm[i1][2] - lhsm[i1][1] * lhsm[i][3];
                lhsm[i1][3] = lhsm[i1][3] - lhsm[i1][1] * lhsm[i][4];
                rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhsm[i1][1] * rhs[k][j][i][m];
                lhsm[i2][1] = lhsm[i2][1] - lhsm[i2][0] * lhsm[i][3];
                lhsm[i2][2] = lhsm[i2][2] - lhsm[i2][0] * lhsm[i][4];
                rhs[k][j][i2][m] = rhs[k][j][i2][m] - lhsm[i2][0] * rhs[k][j][i][m];
            }

            /* the last two rows */
            i  = grid_points[0] - 2;
            i1 = grid_points[0] - 1;

            fac1 = 1.0 / lhs[i][2];
            lhs[i][3] = fac1 * lhs[i][3];
            lhs[i][4] = fac1 * lhs[i][4];
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhs[i1][2] = lhs[i1][2] - lhs[i1][1] * lhs[i][3];
            lhs[i1][3] = lhs[i1][3] - lhs[i1][1] * lhs[i][4];
            for (m = 0; m < 3; m++)
                rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhs[i1][1] * rhs[k][j][i][m];
            /* scale the last row immediately */
            fac2 = 1.0 / lhs[i1][2];
            for (m = 0; m < 3; m++)
                rhs[k][j][i1][m] = fac2 * rhs[k][j][i1][m];

            m = 3;
            fac1 = 1.0 / lhsp[i][2];
            lhsp[i][3] = fac1 * lhsp[i][3];
            lhsp[i][4] = fac1 * lhsp[i][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsp[i1][2] = lhsp[i1][2] - lhsp[i1][1] * lhsp[i][3];
            lhsp[i1][3] = lhsp[i1][3] - lhsp[i1][1] * lhsp[i][4];
            rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhsp[i1][1] * rhs[k][j][i][m];

            m = 4;
            fac1 = 1.0 / lhsm[i][2];
            lhsm[i][3] = fac1 * lhsm[i][3];
            lhsm[i][4] = fac1 * lhsm[i][4];
            rhs[k][j][i][m] = fac1 * rhs[k][j][i][m];
            lhsm[i1][2] = lhsm[i1][2] - lhsm[i1][1] * lhsm[i][3];
            lhsm[i1][3] = lhsm[i1][3] - lhsm[i1][1] * lhsm[i][4];
            rhs[k][j][i1][m] = rhs[k][j][i1][m] - lhsm[i1][1] * rhs[k][j][i][m];

            /* scale the last row immediately */
            rhs[k][j][i1][3] = rhs[k][j][i1][3] / lhsp[i1][2];
            rhs[k][j][i1][4] = rhs[k][j][i1][4] / lhsm[i1][2];

            /* back substitution */
            i  = grid_points[0] - 2;
            i1 = grid_points[0] - 1;
            for (m = 0; m < 3; m++)
                rhs[k][j][i][m] = rhs[k][j][i][m] - lhs[i][3] * rhs[k][j][i1][m];
            rhs[k][j][i][3] = rhs[k][j][i][3] - lhsp[i][3] * rhs[k][j][i1][3];
            rhs[k][j][i][4] = rhs[k][j][i][4] - lhsm[i][3] * rhs[k][j][i1][4];

            for (i = grid_points[0] - 3; i >= 0; i--) {
                i1 = i + 1;
                i2 = i + 2;
                for (m = 0; m < 3; m++)
                    rhs[k][j][i][m] = rhs[k][j][i][m] -
                                      lhs[i][3] * rhs[k][j][i1][m] -
                                      lhs[i][4] * rhs[k][j][i2][m];
                rhs[k][j][i][3] = rhs[k][j][i][3] -
                                  lhsp[i][3] * rhs[k][j][i1][3] -
                                  lhsp[i][4] * rhs[k][j][i2][3];
                rhs[k][j][i][4] = rhs[k][j][i][4] -
                                  lhsm[i][3] * rhs[k][j][i1][4] -
                                  lhsm[i][4] * rhs[k][j][i2][4];
            }
        }
    }

    ninvr();
}
