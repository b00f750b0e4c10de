/* ompcl-expect: device=4 host=0 tolerance=1e-9 */
/* Parallel regions holding several omp for loops (issue 9): code every thread runs, single
   and master blocks, barriers, nowait, region private/firstprivate/reduction clauses, loop
   reductions into shared variables and thread-private temporaries, a thread's count merged
   into the region's reduction variable; the device version runs the region as a team of
   one. (The region once added 1 per thread to cnt and printed cnt > 0: a count of threads,
   which a team of one cannot give, keeps a region on the host now.) */
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
        long mine = 0;
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
        for (i = 1; i < N - 1; i++) {
            b[i] = 0.5 * (c[i - 1] + c[i + 1]);
            mine++;
        }
        cnt += mine;
    }
    printf("%.6f %.6f %.6f %ld\n", s, m, b[N / 2], cnt);
    return 0;
}
