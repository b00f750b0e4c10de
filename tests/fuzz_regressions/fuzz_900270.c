/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 900270: placement:opencl-copy: 2 regions ran on the device, expected 3; 0 declined by their run-time check, expected 0; fallbacks: [] */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>


static double fd0(double x, double y)
{
    return 0.375 * x / (1.0 + fabs(y)) + 0.125;
}

static void kf0(int m0, unsigned char *q0, unsigned char *q0a)
{
    int i, j, k;
    double tp3 = 0.0;
    double r4 = 1.0;
    (void)i; (void)j; (void)k;
    (void)tp3;
    (void)r4;
    r4 = 1.0;
/* ompcl-loop: func,map,reduction */
#pragma omp parallel for reduction(*:r4) private(tp3)
    for (i = 9; i < 170; i++) {
        tp3 = 0.18 + -0.375 * (exp(-fabs(0.001 * (q0a[i - 7]))));
        q0[i - 7] = (unsigned char)((q0a[i - 7]) * 3 + (q0a[i - 7]));
        r4 *= 1.0 + 1e-6 * (-0.554 + -0.375 * (0.001 * i) + -0.375 * tp3);
    }
    printf("r4 %.9e\n", (double)r4);
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 164;
    double c1 = -0.191;
    double c2 = -0.991;
    unsigned long r5 = 1UL;
    double tp6 = 0.0;
    static unsigned char s0[164];
    float *p1 = calloc((size_t)164, sizeof(float));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)c1; (void)c2; (void)r5; (void)tp6; (void)fd0;
    for (h0 = 0; h0 < 164; h0++)
        s0[h0] = (unsigned char)(h0 * 6 + 0);
    for (h0 = 0; h0 < 164; h0++)
        p1[h0] = (float)(2.0 * sin(0.1 * (h0 * 10 + 1)) + 0.5);
    /* -- body -- */
    kf0(n0, s0, s0);
    /* -- checksums -- */
    free(p1);
    return 0;
}
