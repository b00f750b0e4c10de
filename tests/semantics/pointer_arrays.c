/* Local arrays of pointers read by constant or loop-invariant subscripts (double *d[3] =
 * {x, y, z}; d[2][i] = d[0][i] + ...): each element the loop reads is a pointer of the
 * region; a subscript the loop changes, an array whose address escapes and an element the
 * loop assigns keep their loops on the host, where their accesses through the array count as
 * any memory for the device's copies. */
#include <stdio.h>
#include <stdlib.h>

static double *pick(double **p, int k) { return p[k]; }

static void produce(int n, double *z)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        z[i] = (i % 11) * 0.5;
}

static void combine(int n, double *x, double *y, double *z, int src)
{
    double *d[3] = {x, y, z};
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        d[2][i] = d[0][i] + 0.5 * d[src][i];
}

/* a callee whose host loop reaches the device's data only through its pointer array: its
 * summary is "any memory", so the caller brings the device's copies back first */
static void planes(int n, double *x, double *y, double *z)
{
    double *p[3] = {x, y, z};
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
            p[k][i] += p[2][i] * (k + 1);       /* p[k]: k changes in the loop */
}

static void escaped(int n, double *x, double *y)
{
    double *e[2] = {x, y};
    double *first = pick(e, 0);                 /* e's address passed on */
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        e[1][i] = e[0][i] - first[i] * 0.25;
}

static void same(int n, double *x)
{
    double *s[2] = {x, x};                      /* two elements, one array */
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        s[1][i] = s[0][i] * 2.0 + 1.0;
}

static void reseat(int n, double *x, double *y)
{
    double *r[2] = {x, y};
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        r[1][i] = r[0][i] + i;
        if (i == n) r[0] = y;                   /* an element the loop assigns */
    }
}

int main(int argc, char **argv)
{
    int n = 1000 + argc, i;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
    double s = 0.0;
    for (i = 0; i < n; i++) {
        x[i] = i % 13;
        y[i] = 2.0 * (i % 7);
        z[i] = 0.0;
    }
    produce(n, z);
    planes(n, x, y, z);
    combine(n, x, y, z, 1);
    combine(n, z, y, x, 2);
    planes(n, x, y, z);
    escaped(n, y, z);
    same(n, x);
    reseat(n, z, y);
    for (i = 0; i < n; i++)
        s += (x[i] + 3.0 * y[i] + 7.0 * z[i]) * (i % 5 + 1);
    printf("%.6f\n", s);
    free(x);
    free(y);
    free(z);
    return 0;
}
