/* ompcl-expect: device=3 host=0 */
/* private, firstprivate and lastprivate scalars (lastprivate value used after the loop). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1234, i, last = -1, off = 17;
    double tmp = 0.0, scale = 0.5, lastval = 0.0;
    double *x = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));

#pragma omp parallel for private(tmp) firstprivate(scale, off)
    for (i = 0; i < n; i++) {
        tmp = (i + off) * scale;
        x[i] = tmp * tmp;
    }

#pragma omp parallel for lastprivate(last, lastval)
    for (i = 0; i < n; i++) {
        last = i * 2 + 1;
        lastval = x[i] - 1.0;
        y[i] = lastval;
    }

#pragma omp parallel for firstprivate(last) lastprivate(tmp)
    for (i = 0; i < n; i++) {
        tmp = y[i] + last;
        y[i] = tmp * 0.5;
    }

    printf("%d %.10e %.10e\n%.10e %.10e\n", last, lastval, tmp, y[0], y[n - 1]);
    free(x);
    free(y);
    return 0;
}
