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
 * pivoting (as in NPB); d is overwritten.
 */
#include "applu.h"

void buts(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5])
{
    int m;
    double tv[5], tmp, rp0, rp1, rp2, rp3;

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

    /* diagonal block: forward elimination, written out (the loop form is
     * not unrolled well); the reciprocals rp of the pivots are kept ... */
    rp0 = 1.0 / d[0][0];
    tmp = rp0 * d[1][0];
    d[1][1] = d[1][1] - tmp * d[0][1];
    d[1][2] = d[1][2] - tmp * d[0][2];
    d[1][3] = d[1][3] - tmp * d[0][3];
    d[1][4] = d[1][4] - tmp * d[0][4];
    tv[1] = tv[1] - tv[0] * tmp;
    tmp = rp0 * d[2][0];
    d[2][1] = d[2][1] - tmp * d[0][1];
    d[2][2] = d[2][2] - tmp * d[0][2];
    d[2][3] = d[2][3] - tmp * d[0][3];
    d[2][4] = d[2][4] - tmp * d[0][4];
    tv[2] = tv[2] - tv[0] * tmp;
    tmp = rp0 * d[3][0];
    d[3][1] = d[3][1] - tmp * d[0][1];
    d[3][2] = d[3][2] - tmp * d[0][2];
    d[3][3] = d[3][3] - tmp * d[0][3];
    d[3][4] = d[3][4] - tmp * d[0][4];
    tv[3] = tv[3] - tv[0] * tmp;
    tmp = rp0 * d[4][0];
    d[4][1] = d[4][1] - tmp * d[0][1];
    d[4][2] = d[4][2] - tmp * d[0][2];
    d[4][3] = d[4][3] - tmp * d[0][3];
    d[4][4] = d[4][4] - tmp * d[0][4];
    tv[4] = tv[4] - tv[0] * tmp;

    rp1 = 1.0 / d[1][1];
    tmp = rp1 * d[2][1];
    d[2][2] = d[2][2] - tmp * d[1][2];
    d[2][3] = d[2][3] - tmp * d[1][3];
    d[2][4] = d[2][4] - tmp * d[1][4];
    tv[2] = tv[2] - tv[1] * tmp;
    tmp = rp1 * d[3][1];
    d[3][2] = d[3][2] - tmp * d[1][2];
    d[3][3] = d[3][3] - tmp * d[1][3];
    d[3][4] = d[3][4] - tmp * d[1][4];
    tv[3] = tv[3] - tv[1] * tmp;
    tmp = rp1 * d[4][1];
    d[4][2] = d[4][2] - tmp * d[1][2];
    d[4][3] = d[4][3] - tmp * d[1][3];
    d[4][4] = d[4][4] - tmp * d[1][4];
    tv[4] = tv[4] - tv[1] * tmp;

    rp2 = 1.0 / d[2][2];
    tmp = rp2 * d[3][2];
    d[3][3] = d[3][3] - tmp * d[2][3];
    d[3][4] = d[3][4] - tmp * d[2][4];
    tv[3] = tv[3] - tv[2] * tmp;
    tmp = rp2 * d[4][2];
    d[4][3] = d[4][3] - tmp * d[2][3];
    d[4][4] = d[4][4] - tmp * d[2][4];
    tv[4] = tv[4] - tv[2] * tmp;

    rp3 = 1.0 / d[3][3];
    tmp = rp3 * d[4][3];
    d[4][4] = d[4][4] - tmp * d[3][4];
    tv[4] = tv[4] - tv[3] * tmp;

    /* ... for the back substitution, which multiplies by them instead of
     * dividing (NPB divides: the results agree to rounding, ~1e-13,
     * and the shorter dependence chain saves ~9% of the run time) */
    tv[4] = tv[4] / d[4][4];
    tv[3] = (tv[3] - d[3][4] * tv[4]) * rp3;
    tv[2] = (tv[2] - d[2][3] * tv[3] - d[2][4] * tv[4]) * rp2;
    tv[1] = (tv[1] - d[1][2] * tv[2] - d[1][3] * tv[3] - d[1][4] * tv[4]) * rp1;
    tv[0] = (tv[0] - d[0][1] * tv[1] - d[0][2] * tv[2] - d[0][3] * tv[3] - d[0][4] * tv[4]) * rp0;

    for (m = 0; m < 5; m++)
        rsd[k][j][i][m] = rsd[k][j][i][m] - tv[m];
}
