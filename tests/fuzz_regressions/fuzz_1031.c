/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 1031: verdict: 0 offloaded, expected 1: ["line 93: contains '#pragma omp atomic' (line 96); shared variable 'hc6' is written in the loop (make it private, lastprivate or a reduction)", "line 103: the region has a 'copyin' clause", "line 117: cannot derive the extent of 'p0': subscript 'kx7' is not affine in the lo */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double tps0[4];
static double tpc1[4];
#pragma omp threadprivate(tps0, tpc1)
static double g9[13];

static double fd0(double x, double y)
{
    return 0.25 * fmax(x, y) + 0.5 * cos(x);
}

static double fd1(double x, double y)
{
    return 0.5 * sqrt(fabs(x) + 1.0) - 0.25 * y;
}

static int fi0(int a, int b)
{
    return ((a & 255) ^ (b & 1023)) - 300;
}

static int fi1(int a, int b)
{
    int s = 0, q;
    for (q = 0; q < 3; q++)
        s += (a + q) % 7;
    return (s + b) % 1009;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 41;
    int n1 = 21;
    int n2 = 9;
    double c3 = -0.676;
    float c4 = 0.256f;
    int c5 = 6;
    long hc6 = 0;
    int kx7 = 0;
    unsigned short r8 = 0;
    unsigned char l4[21][9][13];
    long l6[9];
    static int s7[21];
    short l8[21];
    double l10[13];
    int *p0 = malloc((size_t)1 * 41 * sizeof(int));
    float *p1 = malloc((size_t)1 * sizeof(float));
    long *p2 = calloc((size_t)1, sizeof(long));
    signed char *p3 = calloc((size_t)21 * 9 * 13, sizeof(signed char));
    int *p5 = calloc((size_t)9, sizeof(int));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)c3; (void)c4; (void)c5; (void)hc6;
    (void)kx7; (void)r8; (void)fd0; (void)fd1; (void)fi0; (void)fi1; (void)tps0; (void)tpc1;
    for (h0 = 0; h0 < 1; h0++)
        for (h1 = 0; h1 < 41; h1++)
            p0[h0 * n0 + h1] = (h0 * 7 + h1 * 9 + 0) % 1009 - 500;
    for (h0 = 0; h0 < 1; h0++)
        p1[h0] = (float)(2.0 * sin(0.1 * (h0 * 3 + 1)) + 0.5);
    for (h0 = 0; h0 < 1; h0++)
        p2[h0] = ((long)(h0 * 1 + 2) * 7919) % 100003;
    for (h0 = 0; h0 < 21; h0++)
        for (h1 = 0; h1 < 9; h1++)
            for (h2 = 0; h2 < 13; h2++)
                p3[(h0 * 9 + h1) * 13 + h2] = (signed char)((h0 * 3 + h1 * 7 + h2 * 11 + 3) % 200 - 100);
    for (h0 = 0; h0 < 21; h0++)
        for (h1 = 0; h1 < 9; h1++)
            for (h2 = 0; h2 < 13; h2++)
                l4[h0][h1][h2] = (unsigned char)(h0 * 1 + h1 * 8 + h2 * 7 + 4);
    for (h0 = 0; h0 < 9; h0++)
        p5[h0] = (h0 * 7 + 5) % 1009 - 500;
    for (h0 = 0; h0 < 9; h0++)
        l6[h0] = ((long)(h0 * 3 + 6) * 7919) % 100003;
    for (h0 = 0; h0 < 21; h0++)
        s7[h0] = (h0 * 11 + 7) % 1009 - 500;
    for (h0 = 0; h0 < 21; h0++)
        l8[h0] = (short)((h0 * 8 + 8) % 3000 - 1500);
    for (h0 = 0; h0 < 13; h0++)
        g9[h0] = 2.0 * cos(0.01 * (h0 * 8 + 9)) - 0.25;
    for (h0 = 0; h0 < 13; h0++)
        l10[h0] = 2.0 * cos(0.01 * (h0 * 3 + 10)) - 0.25;
    /* -- body -- */
/* ompcl-loop: body_local,map,reduction */
#pragma omp parallel for private(kx7) reduction(+:r8)
    for (i = -1; i <= -1; i += 1)
        for (int j = 7; j <= n0 + 5; j += 3) {
            kx7 = (j - 7) + n0 * (i + 1);
            r8 += (unsigned short)((fi1(p0[kx7], p0[kx7])) & 255);
        }
    /* -- checksums -- */
    printf("p3 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 21; h0++)
        for (h1 = 0; h1 < 9; h1++)
            for (h2 = 0; h2 < 13; h2++)
                cu = cu * 1000003UL + (unsigned long)(long)l4[h0][h1][h2];
    printf("l4 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 9; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p5[h0];
    printf("p5 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 9; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)l6[h0];
    printf("l6 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 21; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)s7[h0];
    printf("s7 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 21; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)l8[h0];
    printf("l8 %lu\n", cu);
    cd = 0.0;
    for (h0 = 0; h0 < 13; h0++)
        cd += fabs((double)g9[h0]) * (1.0 + 0.125 * ((h0) % 8));
    printf("g9 %.9e\n", cd);
    cd = 0.0;
    for (h0 = 0; h0 < 13; h0++)
        cd += fabs((double)l10[h0]) * (1.0 + 0.125 * ((h0) % 8));
    printf("l10 %.9e\n", cd);
    printf("hs %.9e hl %ld\n", hs, hl);
    free(p0);
    free(p1);
    free(p2);
    free(p3);
    free(p5);
    return 0;
}
