/*
 * ninvr.c - SP: block-diagonal matrix-vector multiplication after the
 * xi-direction solves (N^-1 = T_xi^-1 T_eta, in characteristic variables).
 */
#include "header.h"

void ninvr(void)
{
    int i, j, k;

#pragma omp parallel for private(i, j)
    for (k = 1; k <= nz2; k++) {
        for (j = 1; j <= ny2; j++) {
            for (i = 1; i <= nx2; i++) {
                double r1, r2, r3, r4, r5, t1, t2;

                r1 = rhs[k][j][i][0];
                r2 = rhs[k][j][i][1];
                r3 = rhs[k][j][i][2];
                r4 = rhs[k][j][i][3];
                r5 = rhs[k][j][i][4];

                t1 = bt * r3;
                t2 = 0.5 * (r4 + r5);

                rhs[k][j][i][0] = -r2;
                rhs[k][j][i][1] =  r1;
                rhs[k][j][i][2] = bt * (r4 - r5);
                rhs[k][j][i][3] = -t1 + t2;
                rhs[k][j][i][4] =  t1 + t2;
            }
        }
    }
}
