/* ompcl-expect: device=1 host=0 tolerance=1e-6 */
/* fuzz seed 7009 (tree,member_chain; minimised by hand): crash:opencl-copy: exit code -11 (SIGSEGV in PoCL's memcpy: the copy-in of the hoisted ms10.ex->v, a null pointer the loop writes only under a false guard, reads from NULL + 2 * 8); placement:opencl-zc: the region ran on the device, expected declined (the chain's own value is never checked for null, only the pointers on the way); since the runtime binds a null pointer argument as OpenCL's null buffer, the loop runs on the device (the guard keeps the kernel from it) */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct { double *v; } mcex39;
typedef struct { double *a; double *b; mcex39 *ex; } mcs39;
int mcoff39 = 0;

int main(void)
{
    int i, h0;
    double cd = 0.0;
    mcs39 ms10;
    ms10.ex = malloc(sizeof *ms10.ex);
    ms10.ex->v = NULL;
    ms10.a = malloc((size_t)98 * sizeof(*ms10.a));
    ms10.b = malloc((size_t)98 * sizeof(*ms10.b));
    for (h0 = 0; h0 < 98; h0++) {
        ms10.a[h0] = 0.5 * cos(0.1 * h0 + 0) + 0.25;
        ms10.b[h0] = 0.5 * cos(0.1 * h0 + 1) + 0.25;
    }
    /* -- body -- */
/* ompcl-loop: member_chain */
#pragma omp parallel for
    for (i = 2; i < 98; i++) {
        ms10.a[i] = 0.271 + -0.25 * ms10.b[i - 2];
        if (mcoff39)
            ms10.ex->v[i] = 0.5 * ms10.b[i];
    }
    /* -- checksums -- */
    for (h0 = 0; h0 < 98; h0++)
        cd += fabs(ms10.a[h0]) * (1.0 + 0.125 * (h0 % 8));
    printf("ms10 %.9e\n", cd);
    free(ms10.a);
    free(ms10.b);
    free(ms10.ex);
    return 0;
}
