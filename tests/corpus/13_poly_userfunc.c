/* ompcl-expect: device=2 host=0 */
/* Polynomial evaluation via user functions: a scalar-only Horner function and one that reads
   a coefficient array passed as a parameter. */
#include <stdio.h>
#include <stdlib.h>

static double horner4(double x, double c0, double c1, double c2, double c3)
{
    return ((c3 * x + c2) * x + c1) * x + c0;
}

static double poly(const double *c, int deg, double x)
{
    int k;
    double r = c[deg];
    for (k = deg - 1; k >= 0; k--)
        r = r * x + c[k];
    return r;
}

int main(void)
{
    int n = 1500, i, deg = 6;
    double coef[7] = {1.0, -0.5, 0.25, 0.125, -0.0625, 0.03125, 0.015625};
    double *y = malloc(n * sizeof(double)), *z = malloc(n * sizeof(double));
    double s = 0.0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        y[i] = horner4(-1.0 + 2.0 * i / (n - 1), 0.5, -1.0, 0.75, 2.0);

#pragma omp parallel for firstprivate(deg)
    for (i = 0; i < n; i++)
        z[i] = poly(coef, deg, 0.001 * i) + y[i];

    for (i = 0; i < n; i++)
        s += z[i];
    printf("%.10e\n%.10e %.10e %.10e\n", s, z[0], z[n / 3], z[n - 1]);
    free(y);
    free(z);
    return 0;
}
