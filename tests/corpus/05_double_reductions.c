/* ompcl-expect: device=3 host=0 tolerance=1e-8 */
/* Double reductions: + and * in one loop, max/min in another, int + double mixed in a third. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(void)
{
    int n = 777, i, cnt = 0;
    double *x = malloc(n * sizeof(double));
    double s = 0.0, p = 1.0, mx = -1e300, mn = 1e300, s2 = 0.0;

    for (i = 0; i < n; i++)
        x[i] = sin(0.01 * i) + 2.0;

#pragma omp parallel for reduction(+:s) reduction(*:p)
    for (i = 0; i < n; i++) {
        s += x[i];
        p *= 1.0 + (x[i] - 2.0) * 1e-3;
    }

#pragma omp parallel for reduction(max:mx) reduction(min:mn)
    for (i = 0; i < n; i++) {
        mx = fmax(mx, x[i] * x[i]);
        mn = fmin(mn, x[i] - 0.5 * (i % 3));
    }

#pragma omp parallel for reduction(+:cnt, s2)
    for (i = 0; i < n; i++) {
        if (x[i] > 2.5) {
            cnt += 1;
            s2 += x[i];
        }
    }

    printf("%.10e %.10e\n%.10e %.10e\n%d %.10e\n", s, p, mx, mn, cnt, s2);
    free(x);
    return 0;
}
