/* ompcl-expect: device=3 host=1 tolerance=1e-6 */
/* Single-precision time-stepped relaxation on a global 2-D float array: device loops inside the
   step loop, and a "#pragma omp parallel { #pragma omp for }" region whose loop contains
   "#pragma omp critical" (stays on host), reading the arrays between kernels. */
#include <stdio.h>

#define RH 43
#define RW 71

float g[RH][RW], tmp[RH][RW];

int main(void)
{
    int i, j, t, crossings = 0;
    float lim = 0.5f;
    double s = 0.0;

#pragma omp parallel for collapse(2)
    for (i = 0; i < RH; i++)
        for (j = 0; j < RW; j++)
            g[i][j] = (float)((i * 17 + j * 3) % 23) / 23.0f;

    for (t = 0; t < 6; t++) {
#pragma omp parallel for collapse(2)
        for (i = 1; i < RH - 1; i++)
            for (j = 1; j < RW - 1; j++)
                tmp[i][j] = 0.2f * (g[i][j] + g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1]);
#pragma omp parallel for private(j)
        for (i = 1; i < RH - 1; i++)
            for (j = 1; j < RW - 1; j++)
                g[i][j] = tmp[i][j];
    }

    /* host: critical inside the work-sharing loop of a parallel region */
#pragma omp parallel
    {
#pragma omp for private(j)
        for (i = 0; i < RH; i++)
            for (j = 0; j < RW; j++)
                if (g[i][j] > lim + 0.25f || g[i][j] < lim - 0.4f) {
#pragma omp critical
                    crossings++;
                }
    }

    for (i = 0; i < RH; i++)
        for (j = 0; j < RW; j++)
            s += g[i][j];
    printf("%.6e %.6e\n", s, (double)g[RH / 2][RW / 2]);
    printf("crossings %d\n", crossings);
    return 0;
}
