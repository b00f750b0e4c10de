/* ompcl-expect: device=3 host=1 */
/* Device functions that use global arrays and read-only global scalars (passed as extra
   parameters), a private array passed to a function (a __private clone of it), and a
   function that writes a global scalar (kept on the host). */
#include <stdio.h>

#define N 503
static double coef[5][4];
static double gain = 1.25;
static double out[N][5];
static int hits;

static void fill5(double x, double v[5])
{
    int m;
    for (m = 0; m < 5; m++)
        v[m] = coef[m][0] + x * (coef[m][1] + x * coef[m][2]) * gain;
}

static double weight(int i)
{
    return coef[i % 5][3] * gain;
}

static double count_hit(double x)
{
    hits = hits + 1;
    return x;
}

int main(void)
{
    int i, m;
    double total = 0.0;
    for (m = 0; m < 5; m++)
        for (i = 0; i < 4; i++)
            coef[m][i] = 0.1 * (m + 1) - 0.05 * i;

#pragma omp parallel for private(m)
    for (i = 0; i < N; i++) {
        double v[5];
        fill5((double)i / N, v);
        for (m = 0; m < 5; m++)
            out[i][m] = v[m];
    }
#pragma omp parallel for reduction(+:total)
    for (i = 0; i < N; i++)
        total += weight(i) * out[i][i % 5];
#pragma omp parallel for private(m)
    for (i = 0; i < N; i++)
        for (m = 0; m < 5; m++)
            fill5(out[i][m], out[i]);
#pragma omp parallel for
    for (i = 0; i < 3; i++)
        out[i][0] = count_hit(out[i][0]);
    printf("%.9f %.9f %.9f %d\n", total, out[7][2], out[N - 1][4], hits);
    return 0;
}
