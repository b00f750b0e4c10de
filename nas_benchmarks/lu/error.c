/*
 * error.c - RMS norms of the error of the computed solution against the
 * exact solution over the interior points (NPB LU); result in errnm.
 */
#include <math.h>
#include "applu.h"

void error(void)
{
    int i, j, k;
    double tmp, u000ijk[5];
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;

#pragma omp parallel for schedule(static) private(i, j, tmp, u000ijk) \
        reduction(+:s0, s1, s2, s3, s4)
    for (k = 1; k < nz - 1; k++) {
        for (j = jst; j < jend; j++) {
            for (i = ist; i < iend; i++) {
                exact(i, j, k, u000ijk);
                tmp = u000ijk[0] - u[k][j][i][0];
                s0 = s0 + tmp * tmp;
                tmp = u000ijk[1] - u[k][j][i][1];
                s1 = s1 + tmp * tmp;
                tmp = u000ijk[2] - u[k][j][i][2];
                s2 = s2 + tmp * tmp;
                tmp = u000ijk[3] - u[k][j][i][3];
                s3 = s3 + tmp * tmp;
                tmp = u000ijk[4] - u[k][j][i][4];
                s4 = s4 + tmp * tmp;
            }
        }
    }

    errnm[0] = sqrt(s0 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    errnm[1] = sqrt(s1 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    errnm[2] = sqrt(s2 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    errnm[3] = sqrt(s3 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    errnm[4] = sqrt(s4 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
}
