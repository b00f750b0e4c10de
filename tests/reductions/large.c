/* A large dot product and a map feeding a dot product in one loop (axpy + dot, one pass over
 * memory), repeated: the work-items' partial results are all that comes back. */
#include <stdio.h>
#include <stdlib.h>

static double axpy_dot(int n, double a, const double *x, double *y)
{
    int i;
    double s = 0.0;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < n; i++) {
        y[i] = y[i] + a * x[i];
        s += y[i] * x[i];
    }
    return s;
}

static double dot(int n, const double *x, const double *y)
{
    int i;
    double s = 0.0;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : (1 << 22) + 3, reps = 4, r, i;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), t = 0.0, d = 0.0;
    for (i = 0; i < n; i++) {
        unsigned h = (unsigned)i * 2654435761u % 1000003u;
        x[i] = h / 1000003.0;
        y[i] = (h % 1000u) / 1000.0;
    }
    for (r = 0; r < reps; r++) {
        t += axpy_dot(n, r % 2 ? 0.5 : -0.25, x, y);
        d += dot(n, x, x);
    }
    printf("%.12e %.12e %.12e %.12e\n", t, d, y[n / 3], y[n - 1]);
    return 0;
}
