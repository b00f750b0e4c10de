/*
 * pintgr.c - the surface integral of NPB LU: the pressure-like quantity
 * phi = c2 (E - |momentum|^2 / (2 rho)) integrated (trapezoidal rule) over
 * three pairs of faces of a box inside the grid,
 *   k = ki1 and k = ki2-1   (over ii1 <= i < ii2, ji1 <= j < ji2),
 *   j = ji1 and j = ji2-1   (over ii1 <= i < ii2, ki1 <= k < ki2),
 *   i = ii1 and i = ii2-1   (over ji1 <= j < ji2, ki1 <= k < ki2),
 * with the NPB box bounds set in domain() (note ji2 = ny0-2, ii2 = nx0-1).
 * Result in frc.
 */
#include "applu.h"

/* phi on the two faces of a pair, indexed [outer][inner] */
static double phi1[ISIZMAX + 2][ISIZMAX + 2];
static double phi2[ISIZMAX + 2][ISIZMAX + 2];

void pintgr(void)
{
    int i, j, k;
    int ibeg, ifin, ifin1, jbeg, jfin, jfin1;
    double frc1 = 0.0, frc2 = 0.0, frc3 = 0.0;

    ibeg = ii1;
    ifin = ii2;
    jbeg = ji1;
    jfin = ji2;
    ifin1 = ifin - 1;
    jfin1 = jfin - 1;

#pragma omp parallel default(shared) private(i, j, k)
    {
        /* faces k = ki1 and k = ki2-1 */
#pragma omp for schedule(static)
        for (j = jbeg; j < jfin; j++) {
            for (i = ibeg; i < ifin; i++) {
                phi1[j][i] = C2 * (u[ki1][j][i][4]
                    - 0.50 * (u[ki1][j][i][1] * u[ki1][j][i][1]
                            + u[ki1][j][i][2] * u[ki1][j][i][2]
                            + u[ki1][j][i][3] * u[ki1][j][i][3]) / u[ki1][j][i][0]);
                phi2[j][i] = C2 * (u[ki2 - 1][j][i][4]
                    - 0.50 * (u[ki2 - 1][j][i][1] * u[ki2 - 1][j][i][1]
                            + u[ki2 - 1][j][i][2] * u[ki2 - 1][j][i][2]
                            + u[ki2 - 1][j][i][3] * u[ki2 - 1][j][i][3]) / u[ki2 - 1][j][i][0]);
            }
        }
#pragma omp for schedule(static) reduction(+:frc1)
        for (j = jbeg; j < jfin1; j++) {
            for (i = ibeg; i < ifin1; i++) {
                frc1 = frc1 + (phi1[j][i] + phi1[j][i + 1] + phi1[j + 1][i] + phi1[j + 1][i + 1]
                             + phi2[j][i] + phi2[j][i + 1] + phi2[j + 1][i] + phi2[j + 1][i + 1]);
            }
        }

        /* faces j = jbeg and j = jfin-1 */
#pragma omp for schedule(static)
        for (k = ki1; k < ki2; k++) {
            for (i = ibeg; i < ifin; i++) {
                phi1[k][i] = C2 * (u[k][jbeg][i][4]
                    - 0.50 * (u[k][jbeg][i][1] * u[k][jbeg][i][1]
                            + u[k][jbeg][i][2] * u[k][jbeg][i][2]
                            + u[k][jbeg][i][3] * u[k][jbeg][i][3]) / u[k][jbeg][i][0]);
                phi2[k][i] = C2 * (u[k][jfin - 1][i][4]
                    - 0.50 * (u[k][jfin - 1][i][1] * u[k][jfin - 1][i][1]
                            + u[k][jfin - 1][i][2] * u[k][jfin - 1][i][2]
                            + u[k][jfin - 1][i][3] * u[k][jfin - 1][i][3]) / u[k][jfin - 1][i][0]);
            }
        }
#pragma omp for schedule(static) reduction(+:frc2)
        for (k = ki1; k < ki2 - 1; k++) {
            for (i = ibeg; i < ifin1; i++) {
                frc2 = frc2 + (phi1[k][i] + phi1[k][i + 1] + phi1[k + 1][i] + phi1[k + 1][i + 1]
                             + phi2[k][i] + phi2[k][i + 1] + phi2[k + 1][i] + phi2[k + 1][i + 1]);
            }
        }

        /* faces i = ibeg and i = ifin-1 */
#pragma omp for schedule(static)
        for (k = ki1; k < ki2; k++) {
            for (j = jbeg; j < jfin; j++) {
                phi1[k][j] = C2 * (u[k][j][ibeg][4]
                    - 0.50 * (u[k][j][ibeg][1] * u[k][j][ibeg][1]
                            + u[k][j][ibeg][2] * u[k][j][ibeg][2]
                            + u[k][j][ibeg][3] * u[k][j][ibeg][3]) / u[k][j][ibeg][0]);
                phi2[k][j] = C2 * (u[k][j][ifin - 1][4]
                    - 0.50 * (u[k][j][ifin - 1][1] * u[k][j][ifin - 1][1]
                            + u[k][j][ifin - 1][2] * u[k][j][ifin - 1][2]
                            + u[k][j][ifin - 1][3] * u[k][j][ifin - 1][3]) / u[k][j][ifin - 1][0]);
            }
        }
#pragma omp for schedule(static) reduction(+:frc3) nowait
        for (k = ki1; k < ki2 - 1; k++) {
            for (j = jbeg; j < jfin1; j++) {
                frc3 = frc3 + (phi1[k][j] + phi1[k][j + 1] + phi1[k + 1][j] + phi1[k + 1][j + 1]
                             + phi2[k][j] + phi2[k][j + 1] + phi2[k + 1][j] + phi2[k + 1][j + 1]);
            }
        }
    }

    frc1 = dxi * deta * frc1;
    frc2 = dxi * dzeta * frc2;
    frc3 = deta * dzeta * frc3;
    frc = 0.25 * (frc1 + frc2 + frc3);
}
