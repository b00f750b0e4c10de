/* ompcl-expect: device=2 host=0 */
/* static arrays at function scope; the function is called several times, keeping state. */
#include <stdio.h>

#define N 517

static double accumulate(int call)
{
    static double acc[N];
    static int w[N];
    int i;
    double s = 0.0;

#pragma omp parallel for
    for (i = 0; i < N; i++) {
        w[i] = (i + call) % 5;
        acc[i] += 0.5 * w[i] + call;
    }

#pragma omp parallel for reduction(+:s)
    for (i = 0; i < N; i++)
        s += acc[i] * w[i];
    return s;
}

int main(void)
{
    int c;
    for (c = 0; c < 4; c++)
        printf("%.10e\n", accumulate(c));
    return 0;
}
