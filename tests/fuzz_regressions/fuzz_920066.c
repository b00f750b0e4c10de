/* ompcl-expect: device=2 host=0 tolerance=1e-6 */
/* fuzz seed 920066: host-build: /tmp/fzw920/px0da5syj/fuzz.c: In function ‘ompcl_host_0’: /tmp/fzw920/px0da5syj/fuzz.c:54:9: error: firstprivate variable ‘c1’ is private in outer context    54 | #pragma omp for firstprivate(c1) schedule(dynamic, 2)       |         ^~~  */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>


static double fd0(double x, double y)
{
    return 0.5 * x + 0.25 * sin(y);
}

static int fi0(int a, int b)
{
    return ((a & 255) ^ (b & 1023)) - 300;
}

static int fi1(int a, int b)
{
    return ((a & 255) ^ (b & 1023)) - 300;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    double c0 = 0.319;
    float c1 = 0.834f;
    int c2 = 8;
    int c3 = 6;
    unsigned long r4 = 1UL;
    double r5 = -1e30;
    double sv6 = 0.0;
    int l1[32];
    static double s2[32];
    double *p0 = malloc((size_t)32 * sizeof(double));
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)c0; (void)c1; (void)c2; (void)c3; (void)r4; (void)r5; (void)sv6;
    (void)fd0; (void)fi0; (void)fi1;
    for (h0 = 0; h0 < 32; h0++)
        p0[h0] = 2.0 * cos(0.01 * (h0 * 4 + 0)) - 0.25;
    for (h0 = 0; h0 < 32; h0++)
        l1[h0] = (h0 * 13 + 1) % 1009 - 500;
    for (h0 = 0; h0 < 32; h0++)
        s2[h0] = 2.0 * cos(0.01 * (h0 * 5 + 2)) - 0.25;
    /* -- body -- */
#pragma omp parallel default(shared)
    {
/* ompcl-loop: map,parallel_region,team1 */
#pragma omp for firstprivate(c1) schedule(dynamic, 2)
        for (i = 1; i <= 31; ++i) {
        }
#pragma omp barrier
/* ompcl-loop: map,parallel_region,reduction,team1 */
#pragma omp for reduction(*:r4) nowait collapse(2) reduction(max:r5)
        for (i = 7; i <= 12; i += 2)
            for (j = 9; j < 13; j += 1)
                for (int k = -1; k < 0; k += 3) {
                }
    }
    /* -- checksums -- */
    free(p0);
    return 0;
}
