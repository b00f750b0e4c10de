/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 9186: mismatch:auto: token 66: expected '527470165011854104', got '11201159501540894232' (after '17886788171167372007 p7 6.767745225e+02 g8') */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double tps1[4];
static double tpc2[4];
#pragma omp threadprivate(tps1, tpc2)
static unsigned int g5[11][7][7];
static long g8[7];

static double fd0(double x, double y)
{
    return 0.5 * x + 0.25 * sin(y);
}

static int fi0(int a, int b)
{
    return a > b ? (a - b) % 1009 : (b - a) % 1009;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 31;
    int n1 = 31;
    int n2 = 61;
    int n3 = 7;
    int c4 = 8;
    long as5 = 0;
    double rp6 = 0.0;
    int r7 = 0;
    int r8 = 1;
    double sv9 = 0.0;
    double tp10 = 0.0;
    double rp11 = 0.0;
    double tp12 = 0.0;
    int r13 = 1000000;
    int r14 = 0;
    double lp15 = -1.0;
    double tp16 = 0.0;
    unsigned int r17 = 0xffffffffu;
    double r18 = 0.0;
    static int s2[61][31];
    short l3[31];
    static int s9[7];
    unsigned int l10[11];
    double *p0 = malloc((size_t)61 * 31 * sizeof(double));
    double (*w1)[31] = malloc((size_t)61 * sizeof *w1);
    double *p4 = malloc((size_t)61 * sizeof(double));
    short (*w6)[7][7] = malloc((size_t)11 * sizeof *w6);
    float *p7 = malloc((size_t)11 * 7 * 7 * sizeof(float));
    unsigned int hg0[7];
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)n3; (void)c4; (void)as5; (void)rp6;
    (void)r7; (void)r8; (void)sv9; (void)tp10; (void)rp11; (void)tp12; (void)r13; (void)r14;
    (void)lp15; (void)tp16; (void)r17; (void)r18; (void)fd0; (void)fi0; (void)tps1; (void)tpc2;
    for (h0 = 0; h0 < 61; h0++)
        for (h1 = 0; h1 < 31; h1++)
            p0[h0 * 31 + h1] = 2.0 * cos(0.01 * (h0 * 2 + h1 * 2 + 0)) - 0.25;
    for (h0 = 0; h0 < 61; h0++)
        for (h1 = 0; h1 < 31; h1++)
            w1[h0][h1] = 2.0 * cos(0.01 * (h0 * 6 + h1 * 3 + 1)) - 0.25;
    for (h0 = 0; h0 < 61; h0++)
        for (h1 = 0; h1 < 31; h1++)
            s2[h0][h1] = (h0 * 6 + h1 * 8 + 2) % 1009 - 500;
    for (h0 = 0; h0 < 31; h0++)
        l3[h0] = (short)((h0 * 2 + 3) % 3000 - 1500);
    for (h0 = 0; h0 < 61; h0++)
        p4[h0] = 2.0 * cos(0.01 * (h0 * 12 + 4)) - 0.25;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            for (h2 = 0; h2 < 7; h2++)
                g5[h0][h1][h2] = (unsigned int)(h0 * 2 + h1 * 11 + h2 * 9 + 5) * 2654435761u;
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            for (h2 = 0; h2 < 7; h2++)
                w6[h0][h1][h2] = (short)((h0 * 7 + h1 * 9 + h2 * 8 + 6) % 3000 - 1500);
    for (h0 = 0; h0 < 11; h0++)
        for (h1 = 0; h1 < 7; h1++)
            for (h2 = 0; h2 < 7; h2++)
                p7[(h0 * 7 + h1) * n3 + h2] = (float)(2.0 * sin(0.1 * (h0 * 10 + h1 * 6 + h2 * 9 + 7)) + 0.5);
    for (h0 = 0; h0 < 7; h0++)
        g8[h0] = ((long)(h0 * 2 + 8) * 7919) % 100003;
    for (h0 = 0; h0 < 7; h0++)
        s9[h0] = (h0 * 10 + 9) % 1009 - 500;
    for (h0 = 0; h0 < 11; h0++)
        l10[h0] = (unsigned int)(h0 * 2 + 10) * 2654435761u;
    for (h0 = 0; h0 < 7; h0++)
        hg0[h0] = 0;
    /* -- body -- */
    for (h0 = 0; h0 < 4; h0++)
        tpc2[h0] = 0.25 * h0 - 0.5;
#pragma omp parallel default(none) num_threads(2) private(i) copyin(tpc2) firstprivate(c4) shared(g5, g8, n3, p7, r7, r8, sv9, w6)
    {
#pragma omp barrier
/* ompcl-loop: parallel_region,team1,threadprivate */
#pragma omp for
        for (i = 6; i > 0; i -= 1) {
            g8[i] = ((long)c4 * 1 + ((((int)(100.0 * (tpc2[(i % 4 + 4) % 4]))) & 255) ^ ((int)(100.0 * (tpc2[(i % 4 + 4) % 4]))))) % 100003;
        }
    }
    /* -- checksums -- */
    for (h0 = 0; h0 < 7; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)g8[h0];
    printf("l10 %lu\n", cu);
    free(p0);
    free(w1);
    free(p4);
    free(w6);
    free(p7);
    return 0;
}
