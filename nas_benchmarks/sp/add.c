/*
 * add.c - SP: adds the update to the solution at the interior points.
 */
#include "header.h"

void add(void)
{
    int i, j, k, m;

#pragma omp parallel for private(i, j, m)
    for (k = 1; k <= nz2; k++) {
        for (j = 1; j <= ny2; j++) {
            for (i = 1; i <= nx2; i++) {
                for (m = 0; m < 5; m++)
                    u[k][j][i][m] = u[k][j][i][m] + rhs[k][j][i][m];
            }
        }
    }
}
