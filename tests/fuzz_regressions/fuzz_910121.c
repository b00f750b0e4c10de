/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 910121: placement:opencl-copy: 2 regions ran on the device, expected 3; 0 declined by their run-time check, expected 0; fallbacks: [] */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static float ra0[13][2];
float rb1[13][2];

static double fd0(double x, double y)
{
    return 0.5 * x + 0.25 * sin(y);
}

static double fd1(double x, double y)
{
    return 0.5 * x + 0.25 * sin(y);
}

static int fi0(int a, int b)
{
    return (a * 3 + b) % 1009;
}

static void kf0(int m0, unsigned int *q0, short *q1, unsigned int *q0a)
{
    int i, j, k;
    int r2 = -1000000;
    int r3 = 1000000;
    (void)i; (void)j; (void)k;
    (void)r2;
    (void)r3;
    r2 = -1000000;
/* ompcl-loop: func,map,reduction */
#pragma omp parallel for reduction(min:r3) reduction(max:r2)
    for (i = 0; i < 12; i += 1) {
        q0[i] = (unsigned int)(((int)(q0a[i] % 1000u)) / 9 + ((int)(q0[i] % 1000u))) * 3u;
        r2 = fi0(q1[i], (int)(q0a[i] % 1000u)) > r2 ? fi0(q1[i], (int)(q0a[i] % 1000u)) : r2;
        if ((int)(q0a[i] % 1000u) < r3)
            r3 = (int)(q0a[i] % 1000u);
    }
    printf("r2 %d\n", r2);
    printf("r3 %d\n", r3);
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    double c0 = -0.922;
    int r1 = 0;
    static float s1[13][47];
    unsigned int l2[13];
    short l3[13];
    int *p0 = calloc((size_t)13 * 47, sizeof(int));
    int *p4 = calloc((size_t)47, sizeof(int));
    long *p5 = calloc((size_t)47, sizeof(long));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)c0; (void)r1; (void)fd0; (void)fd1; (void)fi0;
    for (h0 = 0; h0 < 13; h0++)
        for (h1 = 0; h1 < 47; h1++)
            p0[h0 * 47 + h1] = (h0 * 6 + h1 * 6 + 0) % 1009 - 500;
    for (h0 = 0; h0 < 13; h0++)
        for (h1 = 0; h1 < 47; h1++)
            s1[h0][h1] = (float)(2.0 * sin(0.1 * (h0 * 13 + h1 * 9 + 1)) + 0.5);
    for (h0 = 0; h0 < 13; h0++)
        l2[h0] = (unsigned int)(h0 * 3 + 2) * 2654435761u;
    for (h0 = 0; h0 < 13; h0++)
        l3[h0] = (short)((h0 * 9 + 3) % 3000 - 1500);
    for (h0 = 0; h0 < 47; h0++)
        p4[h0] = (h0 * 1 + 4) % 1009 - 500;
    for (h0 = 0; h0 < 47; h0++)
        p5[h0] = ((long)(h0 * 11 + 5) * 7919) % 100003;
    for (h0 = 0; h0 < 13; h0++)
        for (h1 = 0; h1 < 2; h1++) {
            ra0[h0][h1] = 0.25 * h1 - 0.01 * h0 + 0.5;
            rb1[h0][h1] = 1.0;
        }
    /* -- body -- */
    kf0(13, l2, l3, l2);
    /* -- checksums -- */
    free(p0);
    free(p4);
    free(p5);
    return 0;
}
