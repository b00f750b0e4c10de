/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 1002: host-build: /tmp/fz/camp/pbjho_eqx/fuzz.c: In function ‘ompcl_region_1’: /tmp/fz/camp/pbjho_eqx/fuzz.c:82:56: error: ‘ix0’ undeclared (first use in this function)    82 |             }       |                                                        ^   /tmp/fz/camp/pbjho_eqx/fuzz.c:82:56: note: each undeclared i */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

double g2[19][8];
long g5[91][66];

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 19;
    int n1 = 91;
    int n2 = 66;
    double c3 = 0.617;
    int r4 = -1000000;
    long r5 = 1;
    int r6 = 0;
    int r7 = 1;
    float *p0 = malloc((size_t)19 * 8 * sizeof(float));
    int (*w1)[8] = malloc((size_t)19 * sizeof *w1);
    signed char (*w3)[66] = malloc((size_t)91 * sizeof *w3);
    int *p4 = calloc((size_t)91 * 66, sizeof(int));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)c3; (void)r4; (void)r5; (void)r6;
    (void)r7;
    for (h0 = 0; h0 < 19; h0++)
        for (h1 = 0; h1 < 8; h1++)
            p0[h0 * 8 + h1] = (float)(2.0 * sin(0.1 * (h0 * 5 + h1 * 10 + 0)) + 0.5);
    for (h0 = 0; h0 < 19; h0++)
        for (h1 = 0; h1 < 8; h1++)
            w1[h0][h1] = (h0 * 9 + h1 * 5 + 1) % 1009 - 500;
    for (h0 = 0; h0 < 19; h0++)
        for (h1 = 0; h1 < 8; h1++)
            g2[h0][h1] = 2.0 * cos(0.01 * (h0 * 3 + h1 * 9 + 2)) - 0.25;
    for (h0 = 0; h0 < 91; h0++)
        for (h1 = 0; h1 < 66; h1++)
            w3[h0][h1] = (signed char)((h0 * 6 + h1 * 8 + 3) % 200 - 100);
    for (h0 = 0; h0 < 91; h0++)
        for (h1 = 0; h1 < 66; h1++)
            p4[h0 * n2 + h1] = (h0 * 11 + h1 * 4 + 4) % 1009 - 500;
    for (h0 = 0; h0 < 91; h0++)
        for (h1 = 0; h1 < 66; h1++)
            g5[h0][h1] = ((long)(h0 * 5 + h1 * 12 + 5) * 7919) % 100003;
    /* -- body -- */
/* ompcl-loop: body_local,map,reduction */
#pragma omp parallel
    {
#pragma omp for collapse(2) reduction(*:r5) reduction(max:r4)
        for (i = 8; i <= 25; i += 1)
            for (j = -1; j < 5; j += 1) {
                int ix0 = (j + 1) + 8 * (i - 7);
                double bt = -0.933 + 0.125 * (g2[i - 8][j + 1]);
                p0[ix0] = (float)(0.151 + 0.5 * bt + 0.3 * bt);
            }
    }
    /* -- checksums -- */
    printf("g5 %lu\n", cu);
    printf("hs %.9e hl %ld\n", hs, hl);
    free(p0);
    free(w1);
    free(w3);
    free(p4);
    return 0;
}
