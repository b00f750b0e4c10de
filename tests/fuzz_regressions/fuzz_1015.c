/* ompcl-expect: device=1 host=0 tolerance=1e-9 */
/* fuzz seed 1015: crash:opencl-copy: exit code -6: corrupted double-linked list  */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

signed char g2[26];

static double fd0(double x, double y)
{
    return 0.5 * sqrt(fabs(x) + 1.0) - 0.25 * y;
}

static int fi0(int a, int b)
{
    return ((a & 255) ^ (b & 1023)) - 300;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 16;
    double rp1 = 0.0;
    long r2 = 1;
    int r3 = -1000000;
    static long s3[26];
    int *p0 = malloc((size_t)16 * 26 * 13 * sizeof(int));
    double (*w1)[26][13] = malloc((size_t)16 * sizeof *w1);
    double *p4 = malloc((size_t)13 * sizeof(double));
    int *p5 = calloc((size_t)13, sizeof(int));
    signed char *p6 = calloc((size_t)26, sizeof(signed char));
    unsigned int hg0[31];
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)rp1; (void)r2; (void)r3; (void)fd0; (void)fi0;
    for (h0 = 0; h0 < 16; h0++)
        for (h1 = 0; h1 < 26; h1++)
            for (h2 = 0; h2 < 13; h2++)
                p0[(h0 * 26 + h1) * 13 + h2] = (h0 * 2 + h1 * 4 + h2 * 11 + 0) % 1009 - 500;
    for (h0 = 0; h0 < 16; h0++)
        for (h1 = 0; h1 < 26; h1++)
            for (h2 = 0; h2 < 13; h2++)
                w1[h0][h1][h2] = 2.0 * cos(0.01 * (h0 * 4 + h1 * 11 + h2 * 12 + 1)) - 0.25;
    for (h0 = 0; h0 < 26; h0++)
        g2[h0] = (signed char)((h0 * 7 + 2) % 200 - 100);
    for (h0 = 0; h0 < 26; h0++)
        s3[h0] = ((long)(h0 * 4 + 3) * 7919) % 100003;
    for (h0 = 0; h0 < 13; h0++)
        p4[h0] = 2.0 * cos(0.01 * (h0 * 5 + 4)) - 0.25;
    for (h0 = 0; h0 < 13; h0++)
        p5[h0] = (h0 * 13 + 5) % 1009 - 500;
    for (h0 = 0; h0 < 26; h0++)
        p6[h0] = (signed char)((h0 * 5 + 6) % 200 - 100);
    for (h0 = 0; h0 < 31; h0++)
        hg0[h0] = 0;
    /* -- body -- */
    j = 0;
    k = 10;
/* ompcl-loop: shadowing */
#pragma omp parallel for
    for (i = 2; i <= 15; i += 2) {
        {
            int j = 24;
            int k = 0;
            p0[(i * 26 + j) * 13 + k] = ((k % 3 == 0 ? 29 : p0[(i * 26 + j) * 13 + k])) % 1009;
        }
    }
    /* -- checksums -- */
    cu = 0UL;
    for (h0 = 0; h0 < 16; h0++)
        for (h1 = 0; h1 < 26; h1++)
            for (h2 = 0; h2 < 13; h2++)
                cu = cu * 1000003UL + (unsigned long)(long)p0[(h0 * 26 + h1) * 13 + h2];
    printf("p0 %lu\n", cu);
    cd = 0.0;
    for (h0 = 0; h0 < 16; h0++)
        for (h1 = 0; h1 < 26; h1++)
            for (h2 = 0; h2 < 13; h2++)
                cd += fabs((double)w1[h0][h1][h2]) * (1.0 + 0.125 * ((h0 + h1 + h2) % 8));
    printf("w1 %.9e\n", cd);
    cu = 0UL;
    for (h0 = 0; h0 < 26; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)g2[h0];
    printf("g2 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 26; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)s3[h0];
    printf("s3 %lu\n", cu);
    cd = 0.0;
    for (h0 = 0; h0 < 13; h0++)
        cd += fabs((double)p4[h0]) * (1.0 + 0.125 * ((h0) % 8));
    printf("p4 %.9e\n", cd);
    cu = 0UL;
    for (h0 = 0; h0 < 13; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p5[h0];
    printf("p5 %lu\n", cu);
    cu = 0UL;
    for (h0 = 0; h0 < 26; h0++)
        cu = cu * 1000003UL + (unsigned long)(long)p6[h0];
    printf("p6 %lu\n", cu);
    printf("hs %.9e hl %ld\n", hs, hl);
    free(p0);
    free(w1);
    free(p4);
    free(p5);
    free(p6);
    return 0;
}
