/*
 * setiv.c - initial values of the dependent variables in the interior:
 * the transfinite (trilinear blending) interpolation of the boundary
 * values (NPB LU).
 */
#include "applu.h"

void setiv(void)
{
    int i, j, k, m;
    double xi, eta, zeta, pxi, peta, pzeta;
    double ue_1jk[5], ue_nx0jk[5], ue_i1k[5], ue_iny0k[5], ue_ij1[5], ue_ijnz[5];

#pragma omp parallel for schedule(static) \
        private(i, j, m, xi, eta, zeta, pxi, peta, pzeta, \
                ue_1jk, ue_nx0jk, ue_i1k, ue_iny0k, ue_ij1, ue_ijnz)
    for (k = 1; k < nz - 1; k++) {
        zeta = (double)k / (nz - 1);
        for (j = 1; j < ny - 1; j++) {
            eta = (double)j / (ny0 - 1);
            for (i = 1; i < nx - 1; i++) {
                xi = (double)i / (nx0 - 1);
                exact(0, j, k, ue_1jk);
                exact(nx0 - 1, j, k, ue_nx0jk);
                exact(i, 0, k, ue_i1k);
                exact(i, ny0 - 1, k, ue_iny0k);
                exact(i, j, 0, ue_ij1);
                exact(i, j, nz - 1, ue_ijnz);
                for (m = 0; m < 5; m++) {
                    pxi = (1.0 - xi) * ue_1jk[m] + xi * ue_nx0jk[m];
                    peta = (1.0 - eta) * ue_i1k[m] + eta * ue_iny0k[m];
                    pzeta = (1.0 - zeta) * ue_ij1[m] + zeta * ue_ijnz[m];
                    u[k][j][i][m] = pxi + peta + pzeta
                        - pxi * peta - peta * pzeta - pzeta * pxi
                        + pxi * peta * pzeta;
                }
            }
        }
    }
}
