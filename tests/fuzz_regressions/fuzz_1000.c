/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 1000: mismatch:opencl-copy: token 13: expected '15786084291730548628', got '15786084291730548142' (after '18445248063246530729 l5 6566081110507979274 p6') */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

float g1[6][3];
static double g3[3];

static int fi0(int a, int b)
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
    int n0 = 6;
    int n1 = 3;
    float c2 = -0.372f;
    unsigned char l0[6][3];
    int l2[6][3];
    short l5[6];
    short *p4 = malloc((size_t)3 * sizeof(short));
    int *p6 = malloc((size_t)6 * 3 * sizeof(int));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)c2; (void)fi0;
    for (h0 = 0; h0 < 6; h0++)
        for (h1 = 0; h1 < 3; h1++)
            l0[h0][h1] = (unsigned char)(h0 * 5 + h1 * 5 + 0);
    for (h0 = 0; h0 < 6; h0++)
        for (h1 = 0; h1 < 3; h1++)
            g1[h0][h1] = (float)(2.0 * sin(0.1 * (h0 * 13 + h1 * 7 + 1)) + 0.5);
    for (h0 = 0; h0 < 6; h0++)
        for (h1 = 0; h1 < 3; h1++)
            l2[h0][h1] = (h0 * 13 + h1 * 6 + 2) % 1009 - 500;
    for (h0 = 0; h0 < 3; h0++)
        g3[h0] = 2.0 * cos(0.01 * (h0 * 1 + 3)) - 0.25;
    for (h0 = 0; h0 < 3; h0++)
        p4[h0] = (short)((h0 * 9 + 4) % 3000 - 1500);
    for (h0 = 0; h0 < 6; h0++)
        l5[h0] = (short)((h0 * 10 + 5) % 3000 - 1500);
    for (h0 = 0; h0 < 6; h0++)
        for (h1 = 0; h1 < 3; h1++)
            p6[h0 * n1 + h1] = (h0 * 12 + h1 * 3 + 6) % 1009 - 500;
    /* -- body -- */
/* ompcl-loop: shadowing */
#pragma omp parallel for
    for (i = 5; i > 0; --i) {
        int j = 2;
        p6[i * n1 + j] = ((l0[i][j]) - 3 + 26) % 1009;
    }
    /* -- checksums -- */
    for (h0 = 0; h0 < 6; h0++)
        for (h1 = 0; h1 < 3; h1++)
            cu = cu * 1000003UL + (unsigned long)(long)p6[h0 * n1 + h1];
    printf("p6 %lu\n", cu);
    free(p4);
    free(p6);
    return 0;
}
