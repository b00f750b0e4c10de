/*
 * jacu.c - the Jacobian blocks of the upper triangular part of the SSOR
 * system at one grid point (i, j, k) (NPB LU):
 *   d: block diagonal (at (i, j, k), the same as in jacld),
 *   a: coupling with (i+1, j, k)   (xi direction),
 *   b: coupling with (i, j+1, k)   (eta direction),
 *   c: coupling with (i, j, k+1)   (zeta direction).
 * They are the lower blocks of jacld evaluated at the forward neighbour,
 * with the sign of the convective (central difference) part reversed.
 * A point helper called inside the hyperplane loops of ssor(); it only
 * reads u and the coefficients.  1/rho and |momentum|^2/(2 rho) are
 * recomputed from u (as in NPB 3.2; they equal rhs()'s rho_i and qs bit
 * for bit): reading the rho_i and qs arrays instead adds two cache lines
 * per point, which costs more than the divisions in the hyperplane order.
 * Blocks are row-major: X[m][n] = d(equation m) / d(variable n).
 */
#include "applu.h"

void jacu(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5])
{
    const double r43 = 4.0 / 3.0;
    const double c1345 = C1 * C3 * C4 * C5;
    const double c34 = C3 * C4;
    double tmp1, tmp2, tmp3, v1, v2, v3, v4, qq;

    /* ---------------- block diagonal ---------------- */
    tmp1 = 1.0 / u[k][j][i][0];
    tmp2 = tmp1 * tmp1;
    tmp3 = tmp1 * tmp2;
    v1 = u[k][j][i][1];
    v2 = u[k][j][i][2];
    v3 = u[k][j][i][3];
    v4 = u[k][j][i][4];

    d[0][0] = 1.0 + dt * 2.0 * (tx1 * dx1 + ty1 * dy1 + tz1 * dz1);
    d[0][1] = 0.0;
    d[0][2] = 0.0;
    d[0][3] = 0.0;
    d[0][4] = 0.0;

    d[1][0] = - dt * 2.0 * (tx1 * r43 + ty1 + tz1) * c34 * tmp2 * v1;
    d[1][1] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 * r43 + ty1 + tz1)
                  + dt * 2.0 * (tx1 * dx2 + ty1 * dy2 + tz1 * dz2);
    d[1][2] = 0.0;
    d[1][3] = 0.0;
    d[1][4] = 0.0;

    d[2][0] = - dt * 2.0 * (tx1 + ty1 * r43 + tz1) * c34 * tmp2 * v2;
    d[2][1] = 0.0;
    d[2][2] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 + ty1 * r43 + tz1)
                  + dt * 2.0 * (tx1 * dx3 + ty1 * dy3 + tz1 * dz3);
    d[2][3] = 0.0;
    d[2][4] = 0.0;

    d[3][0] = - dt * 2.0 * (tx1 + ty1 + tz1 * r43) * c34 * tmp2 * v3;
    d[3][1] = 0.0;
    d[3][2] = 0.0;
    d[3][3] = 1.0 + dt * 2.0 * c34 * tmp1 * (tx1 + ty1 + tz1 * r43)
                  + dt * 2.0 * (tx1 * dx4 + ty1 * dy4 + tz1 * dz4);
    d[3][4] = 0.0;

    d[4][0] = - dt * 2.0
        * (((tx1 * (r43 * c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (c34 - c1345)) * (v1 * v1)
          + (tx1 * (c34 - c1345) + ty1 * (r43 * c34 - c1345) + tz1 * (c34 - c1345)) * (v2 * v2)
          + (tx1 * (c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (r43 * c34 - c1345)) * (v3 * v3)
           ) * tmp3
           + (tx1 + ty1 + tz1) * c1345 * tmp2 * v4);
    d[4][1] = dt * 2.0 * tmp2 * v1
        * (tx1 * (r43 * c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (c34 - c1345));
    d[4][2] = dt * 2.0 * tmp2 * v2
        * (tx1 * (c34 - c1345) + ty1 * (r43 * c34 - c1345) + tz1 * (c34 - c1345));
    d[4][3] = dt * 2.0 * tmp2 * v3
        * (tx1 * (c34 - c1345) + ty1 * (c34 - c1345) + tz1 * (r43 * c34 - c1345));
    d[4][4] = 1.0 + dt * 2.0 * (tx1 + ty1 + tz1) * c1345 * tmp1
                  + dt * 2.0 * (tx1 * dx5 + ty1 * dy5 + tz1 * dz5);

    /* ---------------- xi direction: (i+1, j, k) ---------------- */
    tmp1 = 1.0 / u[k][j][i + 1][0];
    tmp2 = tmp1 * tmp1;
    tmp3 = tmp1 * tmp2;
    v1 = u[k][j][i + 1][1];
    v2 = u[k][j][i + 1][2];
    v3 = u[k][j][i + 1][3];
    v4 = u[k][j][i + 1][4];
    qq = 0.50 * (v1 * v1 + v2 * v2 + v3 * v3) * tmp1;

    a[0][0] = - dt * tx1 * dx1;
    a[0][1] = dt * tx2;
    a[0][2] = 0.0;
    a[0][3] = 0.0;
    a[0][4] = 0.0;

    a[1][0] = dt * tx2 * (-(v1 * tmp1) * (v1 * tmp1) + C2 * qq * tmp1)
              - dt * tx1 * (-r43 * c34 * tmp2 * v1);
    a[1][1] = dt * tx2 * ((2.0 - C2) * (v1 * tmp1))
              - dt * tx1 * (r43 * c34 * tmp1)
              - dt * tx1 * dx2;
    a[1][2] = dt * tx2 * (-C2 * (v2 * tmp1));
    a[1][3] = dt * tx2 * (-C2 * (v3 * tmp1));
    a[1][4] = dt * tx2 * C2;

    a[2][0] = dt * tx2 * (-(v1 * v2) * tmp2)
              - dt * tx1 * (-c34 * tmp2 * v2);
    a[2][1] = dt * tx2 * (v2 * tmp1);
    a[2][2] = dt * tx2 * (v1 * tmp1)
              - dt * tx1 * (c34 * tmp1)
              - dt * tx1 * dx3;
    a[2][3] = 0.0;
    a[2][4] = 0.0;

    a[3][0] = dt * tx2 * (-(v1 * v3) * tmp2)
              - dt * tx1 * (-c34 * tmp2 * v3);
    a[3][1] = dt * tx2 * (v3 * tmp1);
    a[3][2] = 0.0;
    a[3][3] = dt * tx2 * (v1 * tmp1)
              - dt * tx1 * (c34 * tmp1)
              - dt * tx1 * dx4;
    a[3][4] = 0.0;

    a[4][0] = dt * tx2 * ((C2 * 2.0 * qq - C1 * v4) * v1 * tmp2)
              - dt * tx1 * (-(r43 * c34 - c1345) * tmp3 * (v1 * v1)
                            - (c34 - c1345) * tmp3 * (v2 * v2)
                            - (c34 - c1345) * tmp3 * (v3 * v3)
                            - c1345 * tmp2 * v4);
    a[4][1] = dt * tx2 * (C1 * (v4 * tmp1) - C2 * (v1 * v1 * tmp2 + qq * tmp1))
              - dt * tx1 * (r43 * c34 - c1345) * tmp2 * v1;
    a[4][2] = dt * tx2 * (-C2 * (v2 * v1) * tmp2)
              - dt * tx1 * (c34 - c1345) * tmp2 * v2;
    a[4][3] = dt * tx2 * (-C2 * (v3 * v1) * tmp2)
              - dt * tx1 * (c34 - c1345) * tmp2 * v3;
    a[4][4] = dt * tx2 * (C1 * (v1 * tmp1))
              - dt * tx1 * c1345 * tmp1
              - dt * tx1 * dx5;

    /* ---------------- eta direction: (i, j+1, k) ---------------- */
    tmp1 = 1.0 / u[k][j + 1][i][0];
    tmp2 = tmp1 * tmp1;
    tmp3 = tmp1 * tmp2;
    v1 = u[k][j + 1][i][1];
    v2 = u[k][j + 1][i][2];
    v3 = u[k][j + 1][i][3];
    v4 = u[k][j + 1][i][4];
    qq = 0.50 * (v1 * v1 + v2 * v2 + v3 * v3) * tmp1;

    b[0][0] = - dt * ty1 * dy1;
    b[0][1] = 0.0;
    b[0][2] = dt * ty2;
    b[0][3] = 0.0;
    b[0][4] = 0.0;

    b[1][0] = dt * ty2 * (-(v1 * v2) * tmp2)
              - dt * ty1 * (-c34 * tmp2 * v1);
    b[1][1] = dt * ty2 * (v2 * tmp1)
              - dt * ty1 * (c34 * tmp1)
              - dt * ty1 * dy2;
    b[1][2] = dt * ty2 * (v1 * tmp1);
    b[1][3] = 0.0;
    b[1][4] = 0.0;

    b[2][0] = dt * ty2 * (-(v2 * tmp1) * (v2 * tmp1) + C2 * (qq * tmp1))
              - dt * ty1 * (-r43 * c34 * tmp2 * v2);
    b[2][1] = dt * ty2 * (-C2 * (v1 * tmp1));
    b[2][2] = dt * ty2 * ((2.0 - C2) * (v2 * tmp1))
              - dt * ty1 * (r43 * c34 * tmp1)
              - dt * ty1 * dy3;
    b[2][3] = dt * ty2 * (-C2 * (v3 * tmp1));
    b[2][4] = dt * ty2 * C2;

    b[3][0] = dt * ty2 * (-(v2 * v3) * tmp2)
              - dt * ty1 * (-c34 * tmp2 * v3);
    b[3][1] = 0.0;
    b[3][2] = dt * ty2 * (v3 * tmp1);
    b[3][3] = dt * ty2 * (v2 * tmp1)
              - dt * ty1 * (c34 * tmp1)
              - dt * ty1 * dy4;
    b[3][4] = 0.0;

    b[4][0] = dt * ty2 * ((C2 * 2.0 * qq - C1 * v4) * (v2 * tmp2))
              - dt * ty1 * (-(c34 - c1345) * tmp3 * (v1 * v1)
                            - (r43 * c34 - c1345) * tmp3 * (v2 * v2)
                            - (c34 - c1345) * tmp3 * (v3 * v3)
                            - c1345 * tmp2 * v4);
    b[4][1] = dt * ty2 * (-C2 * (v1 * v2) * tmp2)
              - dt * ty1 * (c34 - c1345) * tmp2 * v1;
    b[4][2] = dt * ty2 * (C1 * (v4 * tmp1) - C2 * (qq * tmp1 + v2 * v2 * tmp2))
              - dt * ty1 * (r43 * c34 - c1345) * tmp2 * v2;
    b[4][3] = dt * ty2 * (-C2 * (v2 * v3) * tmp2)
              - dt * ty1 * (c34 - c1345) * tmp2 * v3;
    b[4][4] = dt * ty2 * (C1 * (v2 * tmp1))
              - dt * ty1 * c1345 * tmp1
              - dt * ty1 * dy5;

    /* ---------------- zeta direction: (i, j, k+1) ---------------- */
    tmp1 = 1.0 / u[k + 1][j][i][0];
    tmp2 = tmp1 * tmp1;
    tmp3 = tmp1 * tmp2;
    v1 = u[k + 1][j][i][1];
    v2 = u[k + 1][j][i][2];
    v3 = u[k + 1][j][i][3];
    v4 = u[k + 1][j][i][4];
    qq = 0.50 * (v1 * v1 + v2 * v2 + v3 * v3) * tmp1;

    c[0][0] = - dt * tz1 * dz1;
    c[0][1] = 0.0;
    c[0][2] = 0.0;
    c[0][3] = dt * tz2;
    c[0][4] = 0.0;

    c[1][0] = dt * tz2 * (-(v1 * v3) * tmp2)
              - dt * tz1 * (-c34 * tmp2 * v1);
    c[1][1] = dt * tz2 * (v3 * tmp1)
              - dt * tz1 * c34 * tmp1
              - dt * tz1 * dz2;
    c[1][2] = 0.0;
    c[1][3] = dt * tz2 * (v1 * tmp1);
    c[1][4] = 0.0;

    c[2][0] = dt * tz2 * (-(v2 * v3) * tmp2)
              - dt * tz1 * (-c34 * tmp2 * v2);
    c[2][1] = 0.0;
    c[2][2] = dt * tz2 * (v3 * tmp1)
              - dt * tz1 * (c34 * tmp1)
              - dt * tz1 * dz3;
    c[2][3] = dt * tz2 * (v2 * tmp1);
    c[2][4] = 0.0;

    c[3][0] = dt * tz2 * (-(v3 * tmp1) * (v3 * tmp1) + C2 * qq * tmp1)
              - dt * tz1 * (-r43 * c34 * tmp2 * v3);
    c[3][1] = dt * tz2 * (-C2 * (v1 * tmp1));
    c[3][2] = dt * tz2 * (-C2 * (v2 * tmp1));
    c[3][3] = dt * tz2 * (2.0 - C2) * (v3 * tmp1)
              - dt * tz1 * (r43 * c34 * tmp1)
              - dt * tz1 * dz4;
    c[3][4] = dt * tz2 * C2;

    c[4][0] = dt * tz2 * ((C2 * 2.0 * qq - C1 * v4) * v3 * tmp2)
              - dt * tz1 * (-(c34 - c1345) * tmp3 * (v1 * v1)
                            - (c34 - c1345) * tmp3 * (v2 * v2)
                            - (r43 * c34 - c1345) * tmp3 * (v3 * v3)
                            - c1345 * tmp2 * v4);
    c[4][1] = dt * tz2 * (-C2 * (v1 * v3) * tmp2)
              - dt * tz1 * (c34 - c1345) * tmp2 * v1;
    c[4][2] = dt * tz2 * (-C2 * (v2 * v3) * tmp2)
              - dt * tz1 * (c34 - c1345) * tmp2 * v2;
    c[4][3] = dt * tz2 * (C1 * (v4 * tmp1) - C2 * (qq * tmp1 + v3 * v3 * tmp2))
              - dt * tz1 * (r43 * c34 - c1345) * tmp2 * v3;
    c[4][4] = dt * tz2 * (C1 * (v3 * tmp1))
              - dt * tz1 * c1345 * tmp1
              - dt * tz1 * dz5;
}
