/* ompcl-expect: device=3 host=0 tolerance=1e-9 */
/* Orphaned omp for loops in functions called from a parallel region (MG/FT style) and also
   outside one: the decision is made where the loop is; inside the region's device version
   (a team of one) the loops run on the device, in the team the threads share them. */
#include <stdio.h>

#define N 777
static double u[N], r[N];

static void smooth(double *x, const double *y, int n, double w)
{
    int i;
#pragma omp for
    for (i = 1; i < n - 1; i++)
        x[i] = x[i] + w * (y[i - 1] - 2.0 * y[i] + y[i + 1]);
}

static void resid(double *res, const double *x, int n)
{
    int i;
    double t;
#pragma omp for
    for (i = 1; i < n - 1; i++) {
        t = x[i - 1] + x[i + 1];
        res[i] = 0.5 * t - x[i];
    }
}

static double norm(const double *x, int n)
{
    int i;
    double s = 0.0;
    for (i = 0; i < n; i++)
        s += x[i] * x[i];
    return s;
}

static void fill(double *x, int n)
{
    int i;
#pragma omp for
    for (i = 0; i < n; i++)
        x[i] = (double)((i * 37) % 101) / 101.0;
}

int main(void)
{
    int it;
    fill(u, N);  /* outside any parallel region: one thread runs it */
#pragma omp parallel private(it)
    {
        fill(r, N);
        for (it = 0; it < 4; it++) {
            resid(r, u, N);
            smooth(u, r, N, 0.25);
        }
    }
    printf("%.9f %.9f\n", norm(u, N), norm(r, N));
    return 0;
}
