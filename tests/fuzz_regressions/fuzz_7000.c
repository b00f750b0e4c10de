/* ompcl-expect: device=2 host=0 tolerance=1e-6 */
/* fuzz seed 7000 (tree,member_chain; minimised by hand): verdict: 0 offloaded, expected 2: ["line 31: function 'mf10' has parameter 'o' of unsupported type; 'ms9' has a type ompcl cannot place on the device", "line 35: function 'mf11' has parameter 'o' of unsupported type; 'ms12' has a type ompcl cannot place on the device"] (a struct passed as &s or *p was not split into its members) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct { int n; double *w; } mcin16;
typedef struct { double *a; int *cnt; double *b; mcin16 *in; } mcs16;

static double mf10(mcs16 *o, int i)
{
    return 0.001 * o->cnt[i] + o->b[i] + 0.01 * o->in->n;
}

static double mf11(mcs16 o, int i)
{
    return 0.5 * o.b[i] + 0.25 * o.in->w[i] + 0.5 * mf10(&o, i);
}

int main(void)
{
    int i, h0;
    double cd = 0.0;
    mcs16 ms9, *ms12 = malloc(sizeof *ms12);
    ms9.in = malloc(sizeof *ms9.in);
    ms9.in->n = 72;
    ms9.a = malloc((size_t)72 * sizeof(*ms9.a));
    ms9.b = malloc((size_t)72 * sizeof(*ms9.b));
    ms9.cnt = malloc((size_t)72 * sizeof(*ms9.cnt));
    ms9.in->w = malloc((size_t)72 * sizeof(*ms9.in->w));
    for (h0 = 0; h0 < 72; h0++) {
        ms9.a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms9.b[h0] = 0.5 * cos(0.1 * h0 + 1) + 0.25;
        ms9.cnt[h0] = (h0 * 5 + 1) % 17;
        ms9.in->w[h0] = 0.5 * cos(0.1 * h0 + 3) + 0.25;
    }
    *ms12 = ms9;
    /* -- body -- */
/* ompcl-loop: member_chain */
#pragma omp parallel for
    for (i = 0; i < 72; i += 3)
        ms9.a[i] = 0.654 + 0.125 * ms9.b[i] + 0.125 * mf10(&ms9, i);
/* ompcl-loop: member_chain */
#pragma omp parallel for
    for (i = 1; i < 72; i++)
        ms12->in->w[i] = 0.5 * ms12->a[i - 1] + 0.125 * mf11(*ms12, i);
    /* -- checksums -- */
    for (h0 = 0; h0 < 72; h0++)
        cd += fabs(ms9.a[h0]) * (1.0 + 0.125 * (h0 % 8)) + fabs(ms9.in->w[h0]);
    printf("ms9 %.9e\n", cd);
    free(ms9.a);
    free(ms9.b);
    free(ms9.cnt);
    free(ms9.in->w);
    free(ms9.in);
    free(ms12);
    return 0;
}
