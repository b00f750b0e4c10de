/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 7002 (tree,member_chain; minimised by hand): placement:opencl-copy: 0 regions ran on the device, expected 1; fallbacks: ['line 27: OpenCL program build failed'] (build log: unknown type name 'mvec18': the split copy of mf10 takes 'mvec18 *o__p', a pointer to an array typedef, not spelled out in the device function) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef double mvec18[3];
typedef struct { int n; double *w; } mcin18;
typedef struct { double *a; mvec18 *p; int *cnt; mcin18 *in; } mcs18;

static double mf10(mcs18 o, int i)
{
    return 0.01 * o.in->n + 0.25 * o.p[i][1] + 0.001 * o.cnt[i];
}

int main(void)
{
    int i, h0, h1;
    double cd = 0.0;
    unsigned long cu = 0UL;
    mcs18 ms9;
    ms9.in = malloc(sizeof *ms9.in);
    ms9.in->n = 124;
    ms9.p = malloc((size_t)124 * sizeof *ms9.p);
    ms9.a = malloc((size_t)124 * sizeof(*ms9.a));
    ms9.cnt = malloc((size_t)124 * sizeof(*ms9.cnt));
    for (h0 = 0; h0 < 124; h0++) {
        ms9.a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms9.cnt[h0] = (h0 * 5 + 1) % 17;
        for (h1 = 0; h1 < 3; h1++)
            ms9.p[h0][h1] = 0.125 * h1 - 0.01 * h0;
    }
    /* -- body -- */
/* ompcl-loop: member_chain */
#pragma omp parallel for
    for (i = 0; i < 122; i += 2) {
        ms9.a[i] = 0.5 * ms9.a[i] + 0.125 * mf10(ms9, i);
    }
    /* -- checksums -- */
    for (h0 = 0; h0 < 124; h0++) {
        cd += fabs(ms9.a[h0]) * (1.0 + 0.125 * (h0 % 8));
        cu = cu * 1000003UL + (unsigned long)(long)ms9.cnt[h0];
    }
    printf("ms9 %.9e %lu\n", cd, cu);
    free(ms9.a);
    free(ms9.cnt);
    free(ms9.p);
    free(ms9.in);
    return 0;
}
