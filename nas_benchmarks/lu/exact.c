/*
 * exact.c - the manufactured exact solution of NPB LU at grid point
 * (i, j, k).  A point helper: it is called inside the parallel loops of
 * setbv, setiv and error and only reads global scalars and ce[][].
 */
#include "applu.h"

void exact(int i, int j, int k, double u000ijk[5])
{
    int m;
    double xi, eta, zeta;

    xi = (double)i / (nx0 - 1);
    eta = (double)j / (ny0 - 1);
    zeta = (double)k / (nz - 1);

    for (m = 0; m < 5; m++) {
        u000ijk[m] = ce[m][0]
            + (ce[m][1] + (ce[m][4] + (ce[m][7] + ce[m][10] * xi) * xi) * xi) * xi
            + (ce[m][2] + (ce[m][5] + (ce[m][8] + ce[m][11] * eta) * eta) * eta) * eta
            + (ce[m][3] + (ce[m][6] + (ce[m][9] + ce[m][12] * zeta) * zeta) * zeta) * zeta;
    }
}
