/* Every reduction operator and type, on ragged and large ranges: several reductions in one
 * loop, 2-D and 3-D ranges, a body with private temporaries and 'continue', an inner loop, a
 * map feeding a dot product in one loop, and a team of one (omp for inside parallel). Floats
 * hold exact values (sums of quarters), so any order gives the same bits. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define R 37
#define C 29
static double A[R][C], B[5][R][C];

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3001, i, j, k;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *w = malloc(n * sizeof *w);
    float *f = malloc(n * sizeof *f);
    int *v = malloc(n * sizeof *v);
    long *l = malloc(n * sizeof *l);
    double dsum = 0.0, dprod = 1.0, dmax = -INFINITY, dmin = INFINITY, dot = 0.0, t2 = 0.0;
    double m2 = -1.0, s3 = 0.0, skip = 0.0, inner = 0.0, tsum = 0.0, tmax = -1.0;
    float fsum = 0.0f, flmax = -1.0f, flmin = 1e30f, fprod = 1.0f;
    int isum = 0, iprod = 1, imax = INT_MIN, imin = INT_MAX, land = 1, lor = 0, band = -1;
    int bor = 0, bxor = 0, tcount = 0;
    long lsum = 0, lmax = LONG_MIN, lxor = 0;
    unsigned ux = 0;
    for (i = 0; i < n; i++) {
        unsigned h = (unsigned)i * 2654435761u % 1000003u;
        x[i] = h / 1000003.0;
        y[i] = (h % 1000u) / 1000.0;
        f[i] = (float)(h % 64u) * 0.25f;
        v[i] = (int)(h % 2001u) - 1000;
        l[i] = (long)h * 40000L - 20000000000L;
    }
    for (i = 0; i < R * C; i++) A[i / C][i % C] = sin(0.01 * i);
    for (i = 0; i < 5 * R * C; i++) B[i / (R * C)][i / C % R][i % C] = cos(0.003 * i);

#pragma omp parallel for reduction(+:dsum) reduction(*:dprod) reduction(max:dmax) reduction(min:dmin)
    for (i = 0; i < n; i++) {
        dsum += x[i] * y[i];
        dprod *= 1.0 + 1e-6 * x[i];
        dmax = x[i] * y[i] > dmax ? x[i] * y[i] : dmax;
        dmin = fmin(dmin, x[i] - y[i]);
    }
#pragma omp parallel for reduction(+:fsum) reduction(max:flmax) reduction(min:flmin) reduction(*:fprod)
    for (i = 0; i < n; i++) {
        fsum += f[i];
        flmax = f[i] > flmax ? f[i] : flmax;
        flmin = f[i] < flmin ? f[i] : flmin;
        if (i % 211 == 0)
            fprod *= f[i] > 8.0f ? 2.0f : 1.0f;
    }
#pragma omp parallel for reduction(+:isum) reduction(max:imax) reduction(min:imin) reduction(&&:land) reduction(||:lor)
    for (i = 0; i < n; i++) {
        isum += v[i];
        imax = v[i] > imax ? v[i] : imax;
        imin = v[i] < imin ? v[i] : imin;
        land = land && x[i] < 0.9999995;
        lor = lor || v[i] == 999;
    }
#pragma omp parallel for reduction(*:iprod) reduction(&:band) reduction(|:bor) reduction(^:bxor)
    for (i = 0; i < n; i++) {
        if (i % 401 == 0)
            iprod *= v[i] % 2 ? -2 : 1;
        band &= v[i] | 0x100;
        bor |= v[i] & 0x7;
        bxor ^= v[i] * 7;
    }
#pragma omp parallel for reduction(+:lsum) reduction(max:lmax) reduction(^:lxor) reduction(^:ux)
    for (i = 0; i < n; i++) {
        lsum += l[i];
        lmax = l[i] > lmax ? l[i] : lmax;
        lxor ^= l[i];
        ux ^= (unsigned)v[i] * 2654435761u;
    }
    /* a map feeding a dot product, one loop; a private temporary and a skipped iteration */
#pragma omp parallel for reduction(+:dot) reduction(+:skip)
    for (i = 0; i < n; i++) {
        double t = y[i] + 1.5 * x[i];
        w[i] = t;
        dot += t * x[i];
        if (x[i] < 0.25)
            continue;
        skip += t;
    }
    /* an inner loop in the body (one accumulator chain per work-item there) */
#pragma omp parallel for reduction(+:inner) private(j)
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++)
            inner += A[i][j] * A[i][j];
#pragma omp parallel for collapse(2) reduction(+:t2) reduction(max:m2)
    for (i = 0; i < R; i++)
        for (j = 0; j < C; j++) {
            t2 += A[i][j] * (i + 1);
            m2 = A[i][j] > m2 ? A[i][j] : m2;
        }
#pragma omp parallel for collapse(3) reduction(+:s3)
    for (k = 0; k < 5; k++)
        for (i = 0; i < R; i++)
            for (j = 0; j < C; j++)
                s3 += B[k][i][j] * (k - 2);
    /* a team of one: omp for reductions inside a parallel region */
#pragma omp parallel
    {
#pragma omp for reduction(+:tsum) reduction(max:tmax)
        for (i = 0; i < n; i++) {
            tsum += w[i] * y[i];
            tmax = w[i] > tmax ? w[i] : tmax;
        }
#pragma omp for reduction(+:tcount)
        for (i = 0; i < n; i++)
            tcount += w[i] > 1.0;
    }
    printf("%.12e %.12e %.12e %.12e\n", dsum, dprod, dmax, dmin);
    printf("%.9e %.9e %.9e %.9e\n", fsum, flmax, flmin, fprod);
    printf("%d %d %d %d %d %d %d %d %d\n", isum, iprod, imax, imin, land, lor, band, bor, bxor);
    printf("%ld %ld %ld %u\n", lsum, lmax, lxor, ux);
    printf("%.12e %.12e %.12e %.12e\n", dot, skip, w[n / 2], w[n - 1]);
    printf("%.12e %.12e %.12e %.12e\n", inner, t2, m2, s3);
    printf("%.12e %.12e %d\n", tsum, tmax, tcount);
    return 0;
}
