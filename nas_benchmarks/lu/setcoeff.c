/*
 * setcoeff.c - grid spacings, difference and dissipation coefficients,
 * and the coefficients of the manufactured exact solution (NPB LU).
 */
#include "applu.h"

/* coefficients of the exact solution: u_m(xi, eta, zeta) is a quartic
 * polynomial in each coordinate (see exact.c) */
static const double ce_init[5][13] = {
    { 2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3 },
    { 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5 },
    { 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4 },
    { 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3 },
    { 5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2 },
};

void setcoeff(void)
{
    int m, n;
    double dmax;

    /* grid spacings of the unit cube */
    dxi = 1.0 / (nx0 - 1);
    deta = 1.0 / (ny0 - 1);
    dzeta = 1.0 / (nz0 - 1);

    /* second difference, central difference and first difference factors */
    tx1 = 1.0 / (dxi * dxi);
    tx2 = 1.0 / (2.0 * dxi);
    tx3 = 1.0 / dxi;

    ty1 = 1.0 / (deta * deta);
    ty2 = 1.0 / (2.0 * deta);
    ty3 = 1.0 / deta;

    tz1 = 1.0 / (dzeta * dzeta);
    tz2 = 1.0 / (2.0 * dzeta);
    tz3 = 1.0 / dzeta;

    /* diffusion coefficients */
    dx1 = 0.75;
    dx2 = dx1;
    dx3 = dx1;
    dx4 = dx1;
    dx5 = dx1;

    dy1 = 0.75;
    dy2 = dy1;
    dy3 = dy1;
    dy4 = dy1;
    dy5 = dy1;

    dz1 = 1.00;
    dz2 = dz1;
    dz3 = dz1;
    dz4 = dz1;
    dz5 = dz1;

    /* fourth difference dissipation */
    dmax = dx1;
    if (dy1 > dmax)
        dmax = dy1;
    if (dz1 > dmax)
        dmax = dz1;
    dssp = dmax / 4.0;

    for (m = 0; m < 5; m++)
        for (n = 0; n < 13; n++)
            ce[m][n] = ce_init[m][n];
}
