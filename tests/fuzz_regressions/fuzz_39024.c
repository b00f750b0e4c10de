/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 39024 (member_chain beside a pointer tree): placement:opencl-copy: 1 regions ran on the device, expected 2; 1 declined by their run-time check, expected 0 (a null chain value, ex->v, was bound as OpenCL's null only in launches without pointer trees; now in any launch, a tree's own staging block aside) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int tsl1[2] = {8, 4};
typedef double mvec30[3];
typedef struct { int n; double *w; } mcin30;
typedef struct { double *v; } mcex30;
typedef struct { double *a; mvec30 *p; int *cnt; double *b; mcin30 *in; mcin30 emb; mcex30 *ex; double **g; } mcs30;
int mcoff30 = 0;
static double g2[25];
static double g4[5];
unsigned char g6[192];

static double fd0(double x, double y)
{
    double z = x * 0.5;
    if (y > 0.0)
        z = z + 0.25 * exp(-fabs(y));
    return z;
}

static int fi0(int a, int b)
{
    int s = 0, q;
    for (q = 0; q < 3; q++)
        s += (a + q) % 7;
    return (s + b) % 1009;
}

static int fi1(int a, int b)
{
    int s = 0, q;
    for (q = 0; q < 3; q++)
        s += (a + q) % 7;
    return (s + b) % 1009;
}

static int tsp2(int d, double *r0, double *r1)
{
    const int n = tsl1[d];
    int s, src = 0, t;
    for (s = 0; s < 2; s++) {
        const double *x = src ? r1 : r0;
        double *y = src ? r0 : r1;
        for (t = 0; t < n; t++)
            y[t] = x[t] * 0.5 + x[(t + 1) % n];
        src = 1 - src;
    }
    return src;
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 25;
    int n1 = 3;
    int n2 = 3;
    int n3 = 192;
    double c4 = -0.516;
    int c5 = 8;
    short l1[25][3][5];
    double l5[3];
    int (*w0)[3][5] = malloc((size_t)25 * sizeof *w0);
    short *p3 = calloc((size_t)5, sizeof(short));
    int *p7 = calloc((size_t)192, sizeof(int));
    static double tsc0[2][9];
    #pragma omp threadprivate(tsc0)
    mcs30 *ms3 = malloc(sizeof *ms3);
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)n2; (void)n3; (void)c4; (void)c5; (void)fd0;
    (void)fi0; (void)fi1;
    for (h0 = 0; h0 < 25; h0++)
        for (h1 = 0; h1 < 3; h1++)
            for (h2 = 0; h2 < 5; h2++)
                w0[h0][h1][h2] = (h0 * 8 + h1 * 10 + h2 * 2 + 0) % 1009 - 500;
    for (h0 = 0; h0 < 25; h0++)
        for (h1 = 0; h1 < 3; h1++)
            for (h2 = 0; h2 < 5; h2++)
                l1[h0][h1][h2] = (short)((h0 * 1 + h1 * 1 + h2 * 8 + 1) % 3000 - 1500);
    for (h0 = 0; h0 < 25; h0++)
        g2[h0] = 2.0 * cos(0.01 * (h0 * 12 + 2)) - 0.25;
    for (h0 = 0; h0 < 5; h0++)
        p3[h0] = (short)((h0 * 11 + 3) % 3000 - 1500);
    for (h0 = 0; h0 < 5; h0++)
        g4[h0] = 2.0 * cos(0.01 * (h0 * 2 + 4)) - 0.25;
    for (h0 = 0; h0 < 3; h0++)
        l5[h0] = 2.0 * cos(0.01 * (h0 * 10 + 5)) - 0.25;
    for (h0 = 0; h0 < 192; h0++)
        g6[h0] = (unsigned char)(h0 * 2 + 6);
    for (h0 = 0; h0 < 192; h0++)
        p7[h0] = (h0 * 2 + 7) % 1009 - 500;
    ms3->in = malloc(sizeof *ms3->in);
    ms3->in->n = 247;
    ms3->emb.n = 247;
    ms3->p = malloc((size_t)247 * sizeof *ms3->p);
    ms3->ex = malloc(sizeof *ms3->ex);
    ms3->ex->v = NULL;
    ms3->a = malloc((size_t)247 * sizeof(*ms3->a));
    ms3->b = malloc((size_t)247 * sizeof(*ms3->b));
    ms3->cnt = malloc((size_t)247 * sizeof(*ms3->cnt));
    ms3->in->w = malloc((size_t)247 * sizeof(*ms3->in->w));
    ms3->emb.w = malloc((size_t)247 * sizeof(*ms3->emb.w));
    ms3->g = malloc((size_t)247 * sizeof *ms3->g);
    for (h0 = 0; h0 < 247; h0++) {
        ms3->g[h0] = malloc(5 * sizeof **ms3->g);
        for (h1 = 0; h1 < 5; h1++)
            ms3->g[h0][h1] = 0.25 * h1 + 0.001 * h0;
    }
    for (h0 = 0; h0 < 247; h0++) {
        ms3->a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms3->b[h0] = 0.5 * cos(0.1 * h0 + 1) + 0.25;
        ms3->cnt[h0] = (h0 * 5 + 1) % 17;
        ms3->in->w[h0] = 0.5 * cos(0.1 * h0 + 3) + 0.25;
        ms3->emb.w[h0] = 0.5 * cos(0.1 * h0 + 4) + 0.25;
        for (h1 = 0; h1 < 3; h1++)
            ms3->p[h0][h1] = 0.125 * h1 - 0.01 * h0;
    }
    /* -- body -- */
/* ompcl-loop: member_chain */
#pragma omp parallel for schedule(guided)
    for (i = 2; i < 245; i += 2) {
        ms3->emb.w[i] = -0.998 + -0.375 * c4 + 0.5 * (ms3->g[i][4]);
        if (mcoff30)
            ms3->ex->v[i] = 0.458 + 0.25 * (fd0(ms3->g[i][4], ms3->g[i][4]));
    }
    /* -- checksums -- */
    free(w0);
    free(p3);
    free(p7);
    for (h0 = 0; h0 < 247; h0++)
        free(ms3->g[h0]);
    free(ms3->g);
    free(ms3->a);
    free(ms3->b);
    free(ms3->cnt);
    free(ms3->in->w);
    free(ms3->emb.w);
    free(ms3->p);
    free(ms3->in);
    free(ms3->ex);
    free(ms3);
    return 0;
}
