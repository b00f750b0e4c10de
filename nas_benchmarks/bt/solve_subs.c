/*
 * solve_subs.c - 5x5 block operations of the block-tridiagonal line
 * solvers.  A block is indexed [row][column].  These functions are called
 * inside the parallel loops of x_solve.c, y_solve.c and z_solve.c; they
 * only touch their arguments.
 */
#include "header.h"

/* bvec = bvec - ablock * avec */
void matvec_sub(double ablock[5][5], double avec[5], double bvec[5])
{
    int m;

    for (m = 0; m < 5; m++) {
        bvec[m] = bvec[m] - ablock[m][0] * avec[0]
                          - ablock[m][1] * avec[1]
                          - ablock[m][2] * avec[2]
                          - ablock[m][3] * avec[3]
                          - ablock[m][4] * avec[4];
    }
}

/* cblock = cblock - ablock * bblock */
void matmul_sub(double ablock[5][5], double bblock[5][5], double cblock[5][5])
{
    int m, n;

    for (m = 0; m < 5; m++) {
        for (n = 0; n < 5; n++) {
            cblock[m][n] = cblock[m][n] - ablock[m][0] * bblock[0][n]
                                        - ablock[m][1] * bblock[1][n]
                                        - ablock[m][2] * bblock[2][n]
                                        - ablock[m][3] * bblock[3][n]
                                        - ablock[m][4] * bblock[4][n];
        }
    }
}

/*
 * Gauss-Jordan elimination without pivoting of lhs, applied to c and r:
 * on return c = lhs^-1 c and r = lhs^-1 r (lhs is overwritten).
 */
void binvcrhs(double lhs[5][5], double c[5][5], double r[5])
{
    int p, m, n;
    double pivot, coeff;

    for (p = 0; p < 5; p++) {
        pivot = 1.0 / lhs[p][p];
        for (n = p + 1; n < 5; n++)
            lhs[p][n] = lhs[p][n] * pivot;
        for (n = 0; n < 5; n++)
            c[p][n] = c[p][n] * pivot;
        r[p] = r[p] * pivot;

        for (m = 0; m < 5; m++) {
            if (m != p) {
                coeff = lhs[m][p];
                for (n = p + 1; n < 5; n++)
                    lhs[m][n] = lhs[m][n] - coeff * lhs[p][n];
                for (n = 0; n < 5; n++)
                    c[m][n] = c[m][n] - coeff * c[p][n];
                r[m] = r[m] - coeff * r[p];
            }
        }
    }
}

/* the same for the last block of a line, without c: r = lhs^-1 r */
void binvrhs(double lhs[5][5], double r[5])
{
    int p, m, n;
    double pivot, coeff;

    for (p = 0; p < 5; p++) {
        pivot = 1.0 / lhs[p][p];
        for (n = p + 1; n < 5; n++)
            lhs[p][n] = lhs[p][n] * pivot;
        r[p] = r[p] * pivot;

        for (m = 0; m < 5; m++) {
            if (m != p) {
                coeff = lhs[m][p];
                for (n = p + 1; n < 5; n++)
                    lhs[m][n] = lhs[m][n] - coeff * lhs[p][n];
                r[m] = r[m] - coeff * r[p];
            }
        }
    }
}
