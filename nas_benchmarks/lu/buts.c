/*
 * buts.c - one point of the upper triangular solve of the SSOR step
 * (NPB LU):
 *
 *   v(i,j,k) <- v(i,j,k) - D^-1 omega ( C v(i,j,k+1)
 *                                     + B v(i,j+1,k) + A v(i+1,j,k) )
 *
 * with v stored in place in rsd and the blocks a, b, c, d from jacu().
 * The three neighbours must hold their final values (they lie on the
 * following hyperplane, which the upper sweep visits first).
 * The 5x5 diagonal block is solved by Gaussian elimination without
 * pivoting; d is overwritten.
 */
#include "applu.h"

void buts(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5])
{
    int m, n, p;
    double tv[5], tmp, tmp1;

    /* coupling with the upper zeta neighbour */
    for (m = 0; m < 5; m++) {
        tv[m] = omega * (c[m][0] * rsd[k + 1][j][i][0]
                       + c[m][1] * rsd[k + 1][j][i][1]
                       + c[m][2] * rsd[k + 1][j][i][2]
                       + c[m][3] * rsd[k + 1][j][i][3]
                       + c[m][4] * rsd[k + 1][j][i][4]);
    }
    /* coupling with the upper eta and xi neighbours */
    for (m = 0; m < 5; m++) {
        tv[m] = tv[m]
            + omega * (b[m][0] * rsd[k][j + 1][i][0]
                     + a[m][0] * rsd[k][j][i + 1][0]
                     + b[m][1] * rsd[k][j + 1][i][1]
                     + a[m][1] * rsd[k][j][i + 1][1]
                     + b[m][2] * rsd[k][j + 1][i][2]
                     + a[m][2] * rsd[k][j][i + 1][2]
                     + b[m][3] * rsd[k][j + 1][i][3]
                     + a[m][3] * rsd[k][j][i + 1][3]
                     + b[m][4] * rsd[k][j + 1][i][4]
                     + a[m][4] * rsd[k][j][i + 1][4]);
    }

    /* diagonal block: forward elimination ... */
    for (p = 0; p < 4; p++) {
        tmp1 = 1.0 / d[p][p];
        for (m = p + 1; m < 5; m++) {
            tmp = tmp1 * d[m][p];
            for (n = p + 1; n < 5; n++)
                d[m][n] = d[m][n] - tmp * d[p][n];
            tv[m] = tv[m] - tv[p] * tmp;
        }
    }
    /* ... and back substitution */
    for (m = 4; m >= 0; m--) {
        tmp = tv[m];
        for (n = m + 1; n < 5; n++)
            tmp = tmp - d[m][n] * tv[n];
        tv[m] = tmp / d[m][m];
    }

    for (m = 0; m < 5; m++)
        rsd[k][j][i][m] = rsd[k][j][i][m] - tv[m];
}
