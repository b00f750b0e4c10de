/*
 * setbv.c - boundary values of the dependent variables: the exact
 * solution on the six faces of the grid (NPB LU).
 */
#include "applu.h"

void setbv(void)
{
    int i, j, k, m;

#pragma omp parallel private(i, j, k, m)
    {
        double temp1[5], temp2[5];

        /* bottom (k = 0) and top (k = nz-1) faces.  The faces share their
         * edges; the barriers after the first two loops keep the (equal)
         * edge writes of different loops from racing. */
#pragma omp for schedule(static)
        for (j = 0; j < ny; j++) {
            for (i = 0; i < nx; i++) {
                exact(i, j, 0, temp1);
                exact(i, j, nz - 1, temp2);
                for (m = 0; m < 5; m++) {
                    u[0][j][i][m] = temp1[m];
                    u[nz - 1][j][i][m] = temp2[m];
                }
            }
        }

        /* south (j = 0) and north (j = ny-1) faces */
#pragma omp for schedule(static)
        for (k = 0; k < nz; k++) {
            for (i = 0; i < nx; i++) {
                exact(i, 0, k, temp1);
                exact(i, ny - 1, k, temp2);
                for (m = 0; m < 5; m++) {
                    u[k][0][i][m] = temp1[m];
                    u[k][ny - 1][i][m] = temp2[m];
                }
            }
        }

        /* west (i = 0) and east (i = nx-1) faces */
#pragma omp for schedule(static) nowait
        for (k = 0; k < nz; k++) {
            for (j = 0; j < ny; j++) {
                exact(0, j, k, temp1);
                exact(nx - 1, j, k, temp2);
                for (m = 0; m < 5; m++) {
                    u[k][j][0][m] = temp1[m];
                    u[k][j][nx - 1][m] = temp2[m];
                }
            }
        }
    }
}
