/*
 * tzetar.c - SP: block-diagonal matrix-vector multiplication after the
 * zeta-direction solves: back from the characteristic variables of the
 * zeta direction to the conserved variables (multiplication by T_zeta).
 */
#include "header.h"

void tzetar(void)
{
    int i, j, k;

#pragma omp parallel for private(i, j)
    for (k = 1; k <= nz2; k++) {
        for (j = 1; j <= ny2; j++) {
            for (i = 1; i <= nx2; i++) {
                double xvel, yvel, zvel, ac, ac2u, uzik1, btuz;
                double r1, r2, r3, r4, r5, t1, t2, t3;

                xvel = us[k][j][i];
                yvel = vs[k][j][i];
                zvel = ws[k][j][i];
                ac   = speed[k][j][i];

                ac2u = ac * ac;

                r1 = rhs[k][j][i][0];
                r2 = rhs[k][j][i][1];
                r3 = rhs[k][j][i][2];
                r4 = rhs[k][j][i][3];
                r5 = rhs[k][j][i][4];

                uzik1 = u[k][j][i][0];
                btuz  = bt * uzik1;

                t1 = btuz / ac * (r4 + r5);
                t2 = r3 + t1;
                t3 = btuz * (r4 - r5);

                rhs[k][j][i][0] = t2;
                rhs[k][j][i][1] = -uzik1 * r2 + xvel * t2;
                rhs[k][j][i][2] =  uzik1 * r1 + yvel * t2;
                rhs[k][j][i][3] =  zvel * t2 + t3;
                rhs[k][j][i][4] =  uzik1 * (-xvel * r2 + yvel * r1) +
                                   qs[k][j][i] * t2 + c2iv * ac2u * t1 + zvel * t3;
            }
        }
    }
}
