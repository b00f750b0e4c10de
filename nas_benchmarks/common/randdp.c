/*
 * randdp.c - the NPB pseudo-random number generator.
 *
 * x_{k+1} = a * x_k mod 2^46, computed exactly in double precision by
 * splitting a and x into 23-bit halves.  Returns x_{k+1} * 2^-46.
 */
#include "npb.h"

#define R23 (0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * \
             0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5 * 0.5)
#define R46 (R23 * R23)
#define T23 (2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * \
             2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0 * 2.0)
#define T46 (T23 * T23)

double randlc(double *x, double a)
{
    double t1, t2, t3, t4, a1, a2, x1, x2, z;

    /* a = 2^23 * a1 + a2 */
    t1 = R23 * a;
    a1 = (double)(long long)t1;
    a2 = a - T23 * a1;

    /* x = 2^23 * x1 + x2 */
    t1 = R23 * (*x);
    x1 = (double)(long long)t1;
    x2 = *x - T23 * x1;

    /* z = a1 * x2 + a2 * x1 (mod 2^23); x = 2^23 * z + a2 * x2 (mod 2^46) */
    t1 = a1 * x2 + a2 * x1;
    t2 = (double)(long long)(R23 * t1);
    z  = t1 - T23 * t2;
    t3 = T23 * z + a2 * x2;
    t4 = (double)(long long)(R46 * t3);
    *x = t3 - T46 * t4;

    return R46 * (*x);
}

void vranlc(int n, double *x, double a, double y[])
{
    double t1, t2, t3, t4, a1, a2, x1, x2, z;
    double xv = *x;
    int i;

    t1 = R23 * a;
    a1 = (double)(long long)t1;
    a2 = a - T23 * a1;

    for (i = 0; i < n; i++) {
        t1 = R23 * xv;
        x1 = (double)(long long)t1;
        x2 = xv - T23 * x1;
        t1 = a1 * x2 + a2 * x1;
        t2 = (double)(long long)(R23 * t1);
        z  = t1 - T23 * t2;
        t3 = T23 * z + a2 * x2;
        t4 = (double)(long long)(R46 * t3);
        xv = t3 - T46 * t4;
        y[i] = R46 * xv;
    }
    *x = xv;
}
