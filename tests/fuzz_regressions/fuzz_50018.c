/* ompcl-expect: device=2 host=0 tolerance=1e-6 */
/* fuzz seed 50018: mismatch:opencl-copy: token 21: expected 7.227702329e+02, got 7.229296552e+02 (relative error 0.000221 > 1e-06; after '1.658025000e+02 hc4 21 g0') */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double tps0[8];
static double tpc1[8];
#pragma omp threadprivate(tps0, tpc1)
float g0[7][24][4];

static int fi0(int a, int b)
{
    int s = 0, q;
    for (q = 0; q < 3; q++)
        s += (a + q) % 7;
    return (s + b) % 1009;
}

static void kf0(int m0, int m1, int m2, float (*q0)[24][4])
{
    int i, j, k;
    unsigned int r1 = 0u;
    (void)i; (void)j; (void)k;
    (void)r1;
/* ompcl-loop: func,map,reduction */
#pragma omp parallel
    {
#pragma omp for reduction(^:r1) schedule(static, 7)
        for (i = m0 - 7; i <= m0 - 3; i += 2)
            for (int j = m1 - 27; j <= m1 - 4; j += 1)
                for (int k = m2 + 5; k < 11; k++) {
                    q0[i][j + 3][k - 7] = (float)(0.023 + -0.25 * ((0.125) / (1.0 + fabs(0.001 * i))) + -0.5 * (exp(-fabs(0.001 * i))));
                    r1 ^= (unsigned int)(j) * 2654435761u;
                }
    }
    printf("r1 %u\n", r1);
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 24;
    double r2 = 0.0;
    double tp3 = 0.0;
    long hc4 = 0;
    double *p1 = malloc((size_t)7 * 24 * 4 * sizeof(double));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)r2; (void)tp3; (void)hc4; (void)fi0; (void)tps0; (void)tpc1;
    for (h0 = 0; h0 < 7; h0++)
        for (h1 = 0; h1 < 24; h1++)
            for (h2 = 0; h2 < 4; h2++)
                g0[h0][h1][h2] = (float)(2.0 * sin(0.1 * (h0 * 11 + h1 * 11 + h2 * 8 + 0)) + 0.5);
    for (h0 = 0; h0 < 7; h0++)
        for (h1 = 0; h1 < 24; h1++)
            for (h2 = 0; h2 < 4; h2++)
                p1[(h0 * n0 + h1) * 4 + h2] = 2.0 * cos(0.01 * (h0 * 13 + h1 * 6 + h2 * 5 + 1)) - 0.25;
    /* -- body -- */
    kf0(7, n0, 4, g0);
    for (t = 0; t < 4; t++) {
        g0[5][5][0] = (float)(-0.934 + 0.125 * (g0[0][21][1]));
/* ompcl-loop: map */
#pragma omp parallel for schedule(dynamic)
        for (i = -1; i < 6; i += 2)
            for (int j = 2; j <= 23; j++)
                for (int k = -3; k < 1; k += 1) {
                    g0[i + 1][j - 1][k + 3] = (float)(-0.361 + -0.25 * (0.001 * j));
                }
    }
    /* -- checksums -- */
    for (h0 = 0; h0 < 7; h0++)
        for (h1 = 0; h1 < 24; h1++)
            for (h2 = 0; h2 < 4; h2++)
                cd += fabs((double)g0[h0][h1][h2]) * (1.0 + 0.125 * ((h0 + h1 + h2) % 8));
    printf("p1 %.9e\n", cd);
    free(p1);
    return 0;
}
