/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 5116: placement:opencl-copy: 4 regions ran on the device, expected 5; 0 declined by their run-time check, expected 0; fallbacks: ['line 145: two array arguments overlap partially'] */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

struct st72 {
    double x;
    int c;
    double v[3];
    float f;
};

double ra2[257][5];
double rb3[257][5];

static double fd0(double x, double y)
{
    return 0.375 * x / (1.0 + fabs(y)) + 0.125;
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
    int n0 = 257;
    int n1 = 7;
    int n2 = 7;
    float c3 = 0.224f;
    float c4 = 0.071f;
    int c5 = 5;
    int c6 = 9;
    double rp7 = 0.0;
    double rp8 = 0.0;
    long as9 = 0;
    double rp10 = 0.0;
    double tp11 = 0.0;
    double r12 = 1.0;
    double r13 = -1e30;
    double lp14 = -1.0;
    float l0[257];
    signed char l2[1][7];
    long l4[7];
    static int s6[1];
    double (*w1)[7] = malloc((size_t)1 * sizeof *w1);
    int *p3 = calloc((size_t)7, sizeof(int));
    unsigned int *p5 = calloc((size_t)1, sizeof(unsigned int));
    short *p7 = malloc((size_t)1 * 7 * sizeof(short));
    double *p8 = calloc((size_t)1 * 7, sizeof(double));
    unsigned int hg0[16];
    struct st72 *sa1 = malloc((size_t)1 * sizeof *sa1);
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)c3; (void)c4; (void)c5; (void)c6;
    (void)rp7; (void)rp8; (void)as9; (void)rp10; (void)tp11; (void)r12; (void)r13; (void)lp14;
    (void)fd0; (void)fi0;
    for (h0 = 0; h0 < 257; h0++)
        l0[h0] = (float)(2.0 * sin(0.1 * (h0 * 4 + 0)) + 0.5);
    for (h0 = 0; h0 < 1; h0++)
        for (h1 = 0; h1 < 7; h1++)
            w1[h0][h1] = 2.0 * cos(0.01 * (h0 * 11 + h1 * 7 + 1)) - 0.25;
    for (h0 = 0; h0 < 1; h0++)
        for (h1 = 0; h1 < 7; h1++)
            l2[h0][h1] = (signed char)((h0 * 1 + h1 * 7 + 2) % 200 - 100);
    for (h0 = 0; h0 < 7; h0++)
        p3[h0] = (h0 * 4 + 3) % 1009 - 500;
    for (h0 = 0; h0 < 7; h0++)
        l4[h0] = ((long)(h0 * 2 + 4) * 7919) % 100003;
    for (h0 = 0; h0 < 1; h0++)
        p5[h0] = (unsigned int)(h0 * 8 + 5) * 2654435761u;
    for (h0 = 0; h0 < 1; h0++)
        s6[h0] = (h0 * 3 + 6) % 1009 - 500;
    for (h0 = 0; h0 < 1; h0++)
        for (h1 = 0; h1 < 7; h1++)
            p7[h0 * n1 + h1] = (short)((h0 * 7 + h1 * 3 + 7) % 3000 - 1500);
    for (h0 = 0; h0 < 1; h0++)
        for (h1 = 0; h1 < 7; h1++)
            p8[h0 * n1 + h1] = 2.0 * cos(0.01 * (h0 * 3 + h1 * 4 + 8)) - 0.25;
    for (h0 = 0; h0 < 16; h0++)
        hg0[h0] = 0;
    for (h0 = 0; h0 < 1; h0++) {
        sa1[h0].x = 0.5 * cos(0.1 * h0);
        sa1[h0].c = (h0 * 7 + 2) % 1009;
        for (h1 = 0; h1 < 3; h1++)
            sa1[h0].v[h1] = 0.25 * h1 - 0.01 * h0;
        sa1[h0].f = (float)(0.125 * (h0 % 9));
    }
    for (h0 = 0; h0 < 257; h0++)
        for (h1 = 0; h1 < 5; h1++) {
            ra2[h0][h1] = 0.25 * h1 - 0.01 * h0 + 0.5;
            rb3[h0][h1] = 1.0;
        }
    /* -- body -- */
#pragma omp parallel default(shared)
    {
/* ompcl-loop: guarded,parallel_region,team2 */
#pragma omp for private(j) nowait
        for (i = 0; i >= 0; i--)
            for (j = 0; j <= 6; ++j) {
                if (1 <= i && p8[(i - 1) * n1 + j] > 0.0)
                    p7[i * n1 + j] = (short)((((int)(100.0 * (p8[(i - 1) * n1 + j]))) + 6 * ((int)(100.0 * (p8[(i - 1) * n1 + j])))) % 3000);
            }
    }
    /* -- checksums -- */
    free(w1);
    free(p3);
    free(p5);
    free(p7);
    free(p8);
    free(sa1);
    return 0;
}
