/* ompcl-expect: device=4 host=0 tolerance=1e-9 */
/* Parallel regions holding several omp for loops (issue 9): code every thread runs, single
   and master blocks, barriers, nowait, region private/firstprivate/reduction clauses, loop
   reductions into shared variables and thread-private temporaries; the device version runs
   the region as a team of one. */
#include <stdio.h>

#define N 1001
static double a[N], b[N], c[N];

int main(void)
{
    int i, k, steps = 3;
    double s = 0.0, m = -1.0, tmp, scale = 0.5;
    long cnt = 0;

#pragma omp parallel private(tmp, k) firstprivate(scale) reduction(+:cnt)
    {
        double w = 2.0 * scale;  /* every thread computes the same value */
#pragma omp for
        for (i = 0; i < N; i++) {
            a[i] = (i % 17) * w;
            b[i] = (i % 5) - 2.0;
        }
#pragma omp single
        printf("init %.3f\n", a[N - 1]);
        for (k = 0; k < steps; k++) {
#pragma omp for nowait
            for (i = 0; i < N; i++) {
                tmp = a[i] + b[i] * k;
                c[i] = tmp * tmp;
            }
#pragma omp barrier
#pragma omp for reduction(+:s) reduction(max:m)
            for (i = 0; i < N; i++) {
                s += c[i];
                m = c[i] > m ? c[i] : m;
            }
        }
#pragma omp master
        {
            s = s / steps;
        }
#pragma omp barrier
#pragma omp for
        for (i = 1; i < N - 1; i++)
            b[i] = 0.5 * (c[i - 1] + c[i + 1]);
        cnt += 1;
    }
    printf("%.6f %.6f %.6f %ld\n", s, m, b[N / 2], cnt > 0 ? 1L : 0L);
    return 0;
}
