/*
 * l2norm.c - RMS norms of the 5 components of a grid field over the
 * interior points (NPB LU).
 */
#include <math.h>
#include "applu.h"

void l2norm(double v[ISIZ3][ISIZ2P][ISIZ1P][5], double sum[5])
{
    int i, j, k;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;

#pragma omp parallel for schedule(static) private(i, j) \
        reduction(+:s0, s1, s2, s3, s4)
    for (k = 1; k < nz0 - 1; k++) {
        for (j = jst; j < jend; j++) {
            for (i = ist; i < iend; i++) {
                s0 = s0 + v[k][j][i][0] * v[k][j][i][0];
                s1 = s1 + v[k][j][i][1] * v[k][j][i][1];
                s2 = s2 + v[k][j][i][2] * v[k][j][i][2];
                s3 = s3 + v[k][j][i][3] * v[k][j][i][3];
                s4 = s4 + v[k][j][i][4] * v[k][j][i][4];
            }
        }
    }

    sum[0] = sqrt(s0 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    sum[1] = sqrt(s1 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    sum[2] = sqrt(s2 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    sum[3] = sqrt(s3 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
    sum[4] = sqrt(s4 / ((double)(nx0 - 2) * (ny0 - 2) * (nz0 - 2)));
}
