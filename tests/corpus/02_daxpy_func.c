/* ompcl-expect: device=2 host=0 */
/* daxpy inside functions taking restrict/const heap pointers and scalar arguments. */
#include <stdio.h>
#include <stdlib.h>

static void init(int n, double *restrict x, double *restrict y)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        x[i] = 0.5 * i + 1.0;
        y[i] = 3.0 - 0.25 * (i % 11);
    }
}

static void daxpy(int n, double a, const double *x, double *restrict y)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++)
        y[i] += a * x[i];
}

int main(void)
{
    int n = 997, i;
    double *x = malloc(n * sizeof(double));
    double *y = malloc(n * sizeof(double));
    double s = 0.0;
    init(n, x, y);
    daxpy(n, 1.5, x, y);
    daxpy(n, -0.5, x, y);
    for (i = 0; i < n; i++)
        s += y[i];
    printf("%.10e\n%.10e %.10e %.10e\n", s, y[0], y[n / 2], y[n - 1]);
    free(x);
    free(y);
    return 0;
}
