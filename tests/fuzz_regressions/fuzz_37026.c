/* ompcl-expect: device=2 host=0 tolerance=1e-6 */
/* fuzz seed 37026: sanitizer:asan: ==10370==LeakSanitizer has encountered a fatal error. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static double tps0[4];
static double tpc1[4];
#pragma omp threadprivate(tps0, tpc1)
typedef double mvec69[3];
typedef struct { int n; double *w; } mcin69;
typedef struct { double *v; } mcex69;
typedef struct { double *a; mvec69 *p; int *cnt; double *b; mcin69 *in; mcin69 emb; mcex69 *ex; double **g; } mcs69;
int mcoff69 = 0;
static unsigned char g0[5][20][30];

static double fd0(double x, double y)
{
    return 0.375 * x / (1.0 + fabs(y)) + 0.125;
}

static void tf10(double **tr6, double **tr7, double **tr9, int m0, int m1)
{
    int i, j, k;
    (void)i; (void)j; (void)k;
    (void)m0;
    (void)m1;
/* ompcl-loop: declined,tree */
#pragma omp parallel for collapse(2)
    for (i = 1; i <= m0 - 3; i += 3)
        for (j = m1 - 280; j < 280; j += 3) {
            tr6[i][j] = 0.83 + 0.25 * (tr9[i][j]) + -0.375 * (0.001 * j) + 0.125 * (tr9[i][j]);
        }
}

static double mf14(mcs69 o, int i)
{
    return o.b[i] + 0.01 * o.emb.n + 0.01 * o.in->n + 0.25 * o.p[i][0];
}

static double mf13(mcs69 o, int i)
{
    return 0.25 * o.p[i][2] + o.b[i] + 0.5 * mf14(o, i);
}

int main(void)
{
    int i, j, k, t, h0, h1, h2;
    double cd = 0.0, hs = 0.0;
    unsigned long cu = 0UL;
    long hl = 0;
    int n0 = 5;
    int n1 = 30;
    float c2 = 0.759f;
    int c3 = 1;
    double r4 = 0.0;
    int tn5 = 44;
    double ***tr2 = malloc((size_t)8 * sizeof *tr2);
    int ***tr3 = malloc((size_t)8 * sizeof *tr3);
    int ***tr4 = malloc((size_t)8 * sizeof *tr4);
    double **tr6 = malloc((size_t)58 * sizeof *tr6);
    double **tr7 = malloc((size_t)58 * sizeof *tr7);
    double *tb8 = calloc((size_t)16298, sizeof *tb8);
    double **tr9 = malloc((size_t)58 * sizeof *tr9);
    mcs69 *ms11 = malloc(sizeof *ms11);
    mcs69 ms12;
    (void)i; (void)j; (void)k; (void)t; (void)h0; (void)h1; (void)h2; (void)cd;
    (void)cu; (void)n0; (void)n1; (void)c2; (void)c3; (void)r4; (void)tn5; (void)fd0;
    (void)tps0; (void)tpc1;
    for (h0 = 0; h0 < 5; h0++)
        for (h1 = 0; h1 < 20; h1++)
            for (h2 = 0; h2 < 30; h2++)
                g0[h0][h1][h2] = (unsigned char)(h0 * 12 + h1 * 13 + h2 * 8 + 0);
    for (h0 = 0; h0 < 8; h0++)
        tr2[h0] = malloc((size_t)4 * sizeof **tr2);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            tr2[h0][h1] = malloc((size_t)(44) * sizeof *tr2[h0][h1]);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            for (h2 = 0; h2 < 44; h2++)
                tr2[h0][h1][h2] = 2.0 * cos(0.01 * (h0 * 11 + h1 * 11 + h2 * 5 + 3)) - 0.25;
    for (h0 = 0; h0 < 8; h0++)
        tr3[h0] = malloc((size_t)4 * sizeof **tr3);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            tr3[h0][h1] = malloc((size_t)(44) * sizeof *tr3[h0][h1]);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            for (h2 = 0; h2 < 44; h2++)
                tr3[h0][h1][h2] = (h0 * 7 + h1 * 8 + h2 * 3 + 4) % 1009 - 500;
    for (h0 = 0; h0 < 8; h0++)
        tr4[h0] = malloc((size_t)4 * sizeof **tr4);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            tr4[h0][h1] = tr3[7 - h0][3 - h1];
    for (h0 = 0; h0 < 58; h0++)
        tr6[h0] = malloc((size_t)(281 + h0 % 3) * sizeof *tr6[h0]);
    for (h0 = 0; h0 < 58; h0++)
        for (h1 = 0; h1 < 281; h1++)
            tr6[h0][h1] = 2.0 * cos(0.01 * (h0 * 4 + h1 * 1 + 7)) - 0.25;
    for (h0 = 0; h0 < 58; h0++)
        tr7[h0] = tb8 + h0 * 281;
    for (h0 = 0; h0 < 58; h0++)
        for (h1 = 0; h1 < 281; h1++)
            tr7[h0][h1] = 2.0 * cos(0.01 * (h0 * 4 + h1 * 2 + 9)) - 0.25;
    for (h0 = 0; h0 < 58; h0++)
        tr9[h0] = tr6[h0];
    ms11->in = malloc(sizeof *ms11->in);
    ms11->in->n = 1086;
    ms11->emb.n = 1086;
    ms11->p = malloc((size_t)1086 * sizeof *ms11->p);
    ms11->ex = malloc(sizeof *ms11->ex);
    ms11->a = malloc((size_t)1086 * sizeof(*ms11->a));
    ms11->b = malloc((size_t)1086 * sizeof(*ms11->b));
    ms11->cnt = malloc((size_t)1086 * sizeof(*ms11->cnt));
    ms11->in->w = malloc((size_t)1086 * sizeof(*ms11->in->w));
    ms11->emb.w = malloc((size_t)1086 * sizeof(*ms11->emb.w));
    ms11->ex->v = malloc((size_t)1086 * sizeof(*ms11->ex->v));
    ms11->g = malloc((size_t)1086 * sizeof *ms11->g);
    for (h0 = 0; h0 < 1086; h0++) {
        ms11->g[h0] = malloc(2 * sizeof **ms11->g);
        for (h1 = 0; h1 < 2; h1++)
            ms11->g[h0][h1] = 0.25 * h1 + 0.001 * h0;
    }
    for (h0 = 0; h0 < 1086; h0++) {
        ms11->a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms11->b[h0] = 0.5 * cos(0.1 * h0 + 1) + 0.25;
        ms11->cnt[h0] = (h0 * 5 + 1) % 17;
        ms11->in->w[h0] = 0.5 * cos(0.1 * h0 + 3) + 0.25;
        ms11->emb.w[h0] = 0.5 * cos(0.1 * h0 + 4) + 0.25;
        ms11->ex->v[h0] = 0.5 * cos(0.1 * h0 + 5) + 0.25;
        for (h1 = 0; h1 < 3; h1++)
            ms11->p[h0][h1] = 0.125 * h1 - 0.01 * h0;
    }
    ms12.in = malloc(sizeof *ms12.in);
    ms12.in->n = 187;
    ms12.emb.n = 187;
    ms12.p = malloc((size_t)187 * sizeof *ms12.p);
    ms12.ex = malloc(sizeof *ms12.ex);
    ms12.a = malloc((size_t)187 * sizeof(*ms12.a));
    ms12.b = malloc((size_t)187 * sizeof(*ms12.b));
    ms12.cnt = malloc((size_t)187 * sizeof(*ms12.cnt));
    ms12.in->w = malloc((size_t)187 * sizeof(*ms12.in->w));
    ms12.emb.w = malloc((size_t)187 * sizeof(*ms12.emb.w));
    ms12.ex->v = malloc((size_t)187 * sizeof(*ms12.ex->v));
    ms12.g = malloc((size_t)187 * sizeof *ms12.g);
    for (h0 = 0; h0 < 187; h0++) {
        ms12.g[h0] = malloc(2 * sizeof **ms12.g);
        for (h1 = 0; h1 < 2; h1++)
            ms12.g[h0][h1] = 0.25 * h1 + 0.001 * h0;
    }
    for (h0 = 0; h0 < 187; h0++) {
        ms12.a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms12.b[h0] = 0.5 * cos(0.1 * h0 + 1) + 0.25;
        ms12.cnt[h0] = (h0 * 5 + 1) % 17;
        ms12.in->w[h0] = 0.5 * cos(0.1 * h0 + 3) + 0.25;
        ms12.emb.w[h0] = 0.5 * cos(0.1 * h0 + 4) + 0.25;
        ms12.ex->v[h0] = 0.5 * cos(0.1 * h0 + 5) + 0.25;
        for (h1 = 0; h1 < 3; h1++)
            ms12.p[h0][h1] = 0.125 * h1 - 0.01 * h0;
    }
    /* -- body -- */
/* ompcl-loop: member_chain */
#pragma omp parallel for
    for (i = 0; i < 187; i++) {
    }
    /* -- checksums -- */
    free(tb8);
    for (h0 = 0; h0 < 58; h0++)
        free(tr6[h0]);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            free(tr3[h0][h1]);
    for (h0 = 0; h0 < 8; h0++)
        for (h1 = 0; h1 < 4; h1++)
            free(tr2[h0][h1]);
    for (h0 = 0; h0 < 8; h0++)
        free(tr2[h0]);
    free(tr2);
    for (h0 = 0; h0 < 8; h0++)
        free(tr3[h0]);
    free(tr3);
    for (h0 = 0; h0 < 8; h0++)
        free(tr4[h0]);
    free(tr4);
    free(tr6);
    free(tr7);
    free(tr9);
    for (h0 = 0; h0 < 1086; h0++)
        free(ms11->g[h0]);
    free(ms11->g);
    free(ms11->a);
    free(ms11->b);
    free(ms11->cnt);
    free(ms11->in->w);
    free(ms11->emb.w);
    free(ms11->ex->v);
    free(ms11->p);
    free(ms11->in);
    free(ms11->ex);
    free(ms11);
    for (h0 = 0; h0 < 187; h0++)
        free(ms12.g[h0]);
    free(ms12.g);
    free(ms12.a);
    free(ms12.b);
    free(ms12.cnt);
    free(ms12.in->w);
    free(ms12.emb.w);
    free(ms12.ex->v);
    free(ms12.p);
    free(ms12.in);
    free(ms12.ex);
    return 0;
}
