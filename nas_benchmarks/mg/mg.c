/*
 * NPB MG: V-cycle multigrid on a periodic 3-D grid (NAS Parallel
 * Benchmarks 3 specification), OpenMP C.
 *
 * The benchmark approximates the solution u of the discrete Poisson
 * problem  A u = v  on an nx*ny*nz grid with periodic boundaries, where v
 * is zero except for +1 at the ten largest and -1 at the ten smallest
 * entries of a pseudo-random field.  Each of the nit iterations is one
 * V-cycle (mg3P) followed by the evaluation of the residual r = v - A u;
 * the L2 norm of the final residual is checked against the reference.
 *
 * Grids of every level k = 1..lt (2^k interior points per dimension plus
 * one ghost plane on each side) share the arrays u[] and r[]; level k
 * starts at offset ir[k] and routines view it as a 3-D array through a
 * pointer to a variable-length array.  Index 0 and n-1 of every dimension
 * are the periodic ghost planes, 1..n-2 the interior.
 *
 * Parallelisation: the whole timed section runs in one parallel region;
 * every grid routine is called by all threads and shares its outermost
 * loop with an orphaned "omp for", the implicit barriers ordering the
 * steps of the V-cycle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#ifdef _OPENMP
#include <omp.h>
#elif defined(__GNUC__)
/* the OpenMP directives are meant to be ignored in the sequential build */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif
#include "../common/npb.h"
#include "params.h"

#define T_INIT  0
#define T_BENCH 1

/* number of +1 and -1 charges placed by zran3 */
#define MM 10

/* all levels of the solution and the residual, finest level at offset 0 */
static double u[NR], r[NR];
/* right-hand side, finest level only */
static double v[NZ_DEFAULT + 2][NY_DEFAULT + 2][NX_DEFAULT + 2];

/* grid hierarchy */
static int lt, lb;
static int nx[MAXLEVEL], ny[MAXLEVEL], nz[MAXLEVEL];
static int m1[MAXLEVEL], m2[MAXLEVEL], m3[MAXLEVEL];
static long ir[MAXLEVEL];

/* line buffers of the stencil routines, one set per thread */
static double buf1[NM], buf2[NM], buf3[NM];
#pragma omp threadprivate(buf1, buf2, buf3)

/* shared reduction targets of norm2u3 */
static double norm_sum, norm_max;

/* zran3: global lists of the MM largest / smallest values and positions */
static double ten[2][MM];
static int jpos[2][MM][3];

static void setup(int *n1, int *n2, int *n3);
static void mg3P(double *ou, double *ov, double *ores, const double a[4],
                 const double c[4], int n1, int n2, int n3);
static void psinv(double *ores, double *ou, int n1, int n2, int n3,
                  const double c[4], int k);
static void resid(double *ou, double *ov, double *ores, int n1, int n2, int n3,
                  const double a[4], int k);
static void rprj3(double *ores, int m1k, int m2k, int m3k,
                  double *os, int m1j, int m2j, int m3j, int k);
static void interp(double *oz, int mm1, int mm2, int mm3,
                   double *ou, int n1, int n2, int n3, int k);
static void norm2u3(double *ores, int n1, int n2, int n3, double *rnm2,
                    double *rnmu, int nxk, int nyk, int nzk);
static void comm3(double *ou, int n1, int n2, int n3, int kk);
static void zero3(double *oz, int n1, int n2, int n3);
static void zran3(double *oz, int n1, int n2, int n3, int nxk, int nyk, int k);
static double power(double a, int n);
static void bubble(double tv[MM], int jv[MM][3], int ind);

int main(void)
{
    double a[4], c[4];
    double rnm2 = 0.0, rnmu = 0.0, t, tinit, mflops, err;
    int n1, n2, n3, nit, verified, i;

    for (i = 0; i < 2; i++)
        timer_clear(i);
    timer_start(T_INIT);

    /* coefficients of the residual operator A ... */
    a[0] = -8.0 / 3.0;
    a[1] = 0.0;
    a[2] = 1.0 / 6.0;
    a[3] = 1.0 / 12.0;
    /* ... and of the smoother S */
#if SMOOTHER_SA
    c[0] = -3.0 / 8.0;
    c[1] = +1.0 / 32.0;
    c[2] = -1.0 / 64.0;
    c[3] = 0.0;
#else
    c[0] = -3.0 / 17.0;
    c[1] = +1.0 / 33.0;
    c[2] = -1.0 / 61.0;
    c[3] = 0.0;
#endif
    nit = NIT_DEFAULT;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - MG Benchmark\n\n");
    printf(" Size: %4dx%4dx%4d  (class %c)\n", NX_DEFAULT, NY_DEFAULT,
           NZ_DEFAULT, NPB_CLASS);
    printf(" Iterations: %3d\n", nit);
    printf(" Number of available threads: %5d\n\n", npb_num_threads());

    setup(&n1, &n2, &n3);

    /* one untimed iteration to touch all data, then a fresh start */
#pragma omp parallel
    {
        zero3(u, n1, n2, n3);
        zran3(&v[0][0][0], n1, n2, n3, nx[lt], ny[lt], lt);
        resid(u, &v[0][0][0], r, n1, n2, n3, a, lt);
        mg3P(u, &v[0][0][0], r, a, c, n1, n2, n3);
        resid(u, &v[0][0][0], r, n1, n2, n3, a, lt);
    }
    setup(&n1, &n2, &n3);
#pragma omp parallel
    {
        zero3(u, n1, n2, n3);
        zran3(&v[0][0][0], n1, n2, n3, nx[lt], ny[lt], lt);
    }
    timer_stop(T_INIT);
    tinit = timer_read(T_INIT);
    printf(" Initialization time: %15.3f seconds\n\n", tinit);

    timer_start(T_BENCH);
#pragma omp parallel
    {
        int it;

        resid(u, &v[0][0][0], r, n1, n2, n3, a, lt);
        norm2u3(r, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);
        for (it = 1; it <= nit; it++) {
#pragma omp master
            {
                if (it == 1 || it == nit || it % 5 == 0)
                    printf("  iter %3d\n", it);
            }
            mg3P(u, &v[0][0][0], r, a, c, n1, n2, n3);
            resid(u, &v[0][0][0], r, n1, n2, n3, a, lt);
        }
        norm2u3(r, n1, n2, n3, &rnm2, &rnmu, nx[lt], ny[lt], nz[lt]);
    }
    timer_stop(T_BENCH);
    t = timer_read(T_BENCH);

    printf("\n Benchmark completed\n");
    err = fabs(rnm2 - NPB_REF(VERIFY_VALUE)) / NPB_REF(VERIFY_VALUE);
    verified = (err <= VERIFY_EPSILON);
    if (verified) {
        printf(" VERIFICATION SUCCESSFUL\n");
        printf(" L2 Norm is %20.13E\n", rnm2);
        printf(" Error is   %20.13E\n", err);
    } else {
        printf(" VERIFICATION FAILED\n");
        printf(" L2 Norm is             %20.13E\n", rnm2);
        printf(" The correct L2 Norm is %20.13E\n", NPB_REF(VERIFY_VALUE));
    }

    if (t != 0.0)
        mflops = 58.0 * nit * ((double)NX_DEFAULT * NY_DEFAULT * NZ_DEFAULT)
                 * 1.0e-6 / t;
    else
        mflops = 0.0;

    print_results("MG", NPB_CLASS, NX_DEFAULT, NY_DEFAULT, NZ_DEFAULT, nit, t,
                  mflops, "floating point", verified);
    return verified ? 0 : 1;
}

/* Sizes and offsets of the grid levels 1..lt (level lt is the finest). */
static void setup(int *n1, int *n2, int *n3)
{
    int k;

    lt = LT_DEFAULT;
    lb = 1;
    nx[lt] = NX_DEFAULT;
    ny[lt] = NY_DEFAULT;
    nz[lt] = NZ_DEFAULT;
    for (k = lt - 1; k >= 1; k--) {
        nx[k] = nx[k + 1] / 2;
        ny[k] = ny[k + 1] / 2;
        nz[k] = nz[k + 1] / 2;
    }
    for (k = 1; k <= lt; k++) {
        m1[k] = nx[k] + 2;
        m2[k] = ny[k] + 2;
        m3[k] = nz[k] + 2;
    }
    ir[lt] = 0;
    for (k = lt - 1; k >= 1; k--)
        ir[k] = ir[k + 1] + (long)m1[k + 1] * m2[k + 1] * m3[k + 1];
    if (ir[1] + (long)m1[1] * m2[1] * m3[1] > NR) {
        fprintf(stderr, "MG: level storage too small\n");
        exit(1);
    }
    *n1 = m1[lt];
    *n2 = m2[lt];
    *n3 = m3[lt];
}

/*
 * One V-cycle: restrict the residual down to the coarsest level, solve
 * there approximately with the smoother, then interpolate the correction
 * up level by level, smoothing the new residual on each level.
 */
static void mg3P(double *ou, double *ov, double *ores, const double a[4],
                 const double c[4], int n1, int n2, int n3)
{
    int j, k;

    /* down cycle: restrict the residual from the fine to the coarse grids */
    for (k = lt; k >= lb + 1; k--) {
        j = k - 1;
        rprj3(ores + ir[k], m1[k], m2[k], m3[k],
              ores + ir[j], m1[j], m2[j], m3[j], k);
    }

    /* approximate solution on the coarsest grid */
    k = lb;
    zero3(ou + ir[k], m1[k], m2[k], m3[k]);
    psinv(ores + ir[k], ou + ir[k], m1[k], m2[k], m3[k], c, k);

    /* up cycle on the intermediate levels */
    for (k = lb + 1; k <= lt - 1; k++) {
        j = k - 1;
        /* prolongate from level k-1 to level k */
        zero3(ou + ir[k], m1[k], m2[k], m3[k]);
        interp(ou + ir[j], m1[j], m2[j], m3[j],
               ou + ir[k], m1[k], m2[k], m3[k], k);
        /* residual at level k, then smooth */
        resid(ou + ir[k], ores + ir[k], ores + ir[k], m1[k], m2[k], m3[k], a, k);
        psinv(ores + ir[k], ou + ir[k], m1[k], m2[k], m3[k], c, k);
    }

    /* finest level: correct the solution in place */
    j = lt - 1;
    k = lt;
    interp(ou + ir[j], m1[j], m2[j], m3[j], ou, n1, n2, n3, k);
    resid(ou, ov, ores, n1, n2, n3, a, k);
    psinv(ores, ou, n1, n2, n3, c, k);
}

/*
 * Smoother: u = u + S r with the 27-point operator S whose coefficients
 * c[0..3] weight the centre, the 6 face, 12 edge and 8 corner neighbours
 * (c[3] is zero for both smoothers and left out).
 */
static void psinv(double *ores, double *ou, int n1, int n2, int n3,
                  const double c[4], int k)
{
    double (*rr)[n2][n1] = (double (*)[n2][n1])ores;
    double (*uu)[n2][n1] = (double (*)[n2][n1])ou;
    int i1, i2, i3;

#pragma omp for
    for (i3 = 1; i3 < n3 - 1; i3++) {
        for (i2 = 1; i2 < n2 - 1; i2++) {
            for (i1 = 0; i1 < n1; i1++) {
                buf1[i1] = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                         + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                buf2[i1] = rr[i3 - 1][i2 - 1][i1] + rr[i3 - 1][i2 + 1][i1]
                         + rr[i3 + 1][i2 - 1][i1] + rr[i3 + 1][i2 + 1][i1];
            }
            for (i1 = 1; i1 < n1 - 1; i1++) {
                uu[i3][i2][i1] = uu[i3][i2][i1]
                    + c[0] * rr[i3][i2][i1]
                    + c[1] * (rr[i3][i2][i1 - 1] + rr[i3][i2][i1 + 1]
                              + buf1[i1])
                    + c[2] * (buf2[i1] + buf1[i1 - 1] + buf1[i1 + 1]);
            }
        }
    }

    /* periodic ghost planes */
    comm3(ou, n1, n2, n3, k);
}

/*
 * Residual r = v - A u with the 27-point operator A whose coefficients
 * a[0..3] weight centre, face, edge and corner neighbours (a[1] is zero
 * and left out).  v and r may be the same array.
 */
static void resid(double *ou, double *ov, double *ores, int n1, int n2, int n3,
                  const double a[4], int k)
{
    double (*uu)[n2][n1] = (double (*)[n2][n1])ou;
    double (*vv)[n2][n1] = (double (*)[n2][n1])ov;
    double (*rr)[n2][n1] = (double (*)[n2][n1])ores;
    int i1, i2, i3;

#pragma omp for
    for (i3 = 1; i3 < n3 - 1; i3++) {
        for (i2 = 1; i2 < n2 - 1; i2++) {
            for (i1 = 0; i1 < n1; i1++) {
                buf1[i1] = uu[i3][i2 - 1][i1] + uu[i3][i2 + 1][i1]
                         + uu[i3 - 1][i2][i1] + uu[i3 + 1][i2][i1];
                buf2[i1] = uu[i3 - 1][i2 - 1][i1] + uu[i3 - 1][i2 + 1][i1]
                         + uu[i3 + 1][i2 - 1][i1] + uu[i3 + 1][i2 + 1][i1];
            }
            for (i1 = 1; i1 < n1 - 1; i1++) {
                rr[i3][i2][i1] = vv[i3][i2][i1]
                    - a[0] * uu[i3][i2][i1]
                    - a[2] * (buf2[i1] + buf1[i1 - 1] + buf1[i1 + 1])
                    - a[3] * (buf2[i1 - 1] + buf2[i1 + 1]);
            }
        }
    }

    /* periodic ghost planes */
    comm3(ores, n1, n2, n3, k);
}

/*
 * Restriction: the coarse grid s (level k-1) receives the full-weighting
 * projection of the fine grid r (level k), 27-point stencil with weights
 * 1/2, 1/4, 1/8, 1/16 for centre, faces, edges, corners.
 */
static void rprj3(double *ores, int m1k, int m2k, int m3k,
                  double *os, int m1j, int m2j, int m3j, int k)
{
    double (*rr)[m2k][m1k] = (double (*)[m2k][m1k])ores;
    double (*ss)[m2j][m1j] = (double (*)[m2j][m1j])os;
    int j1, j2, j3, i1, i2, i3, d1, d2, d3;
    double x2, y2;

    d1 = (m1k == 3) ? 2 : 1;
    d2 = (m2k == 3) ? 2 : 1;
    d3 = (m3k == 3) ? 2 : 1;

#pragma omp for
    for (j3 = 1; j3 < m3j - 1; j3++) {
        i3 = 2 * j3 + 1 - d3;
        for (j2 = 1; j2 < m2j - 1; j2++) {
            i2 = 2 * j2 + 1 - d2;
            for (j1 = 1; j1 < m1j; j1++) {
                i1 = 2 * j1 + 1 - d1;
                buf1[i1 - 1] = rr[i3][i2 - 1][i1 - 1] + rr[i3][i2 + 1][i1 - 1]
                             + rr[i3 - 1][i2][i1 - 1] + rr[i3 + 1][i2][i1 - 1];
                buf2[i1 - 1] = rr[i3 - 1][i2 - 1][i1 - 1]
                             + rr[i3 + 1][i2 - 1][i1 - 1]
                             + rr[i3 - 1][i2 + 1][i1 - 1]
                             + rr[i3 + 1][i2 + 1][i1 - 1];
            }
            for (j1 = 1; j1 < m1j - 1; j1++) {
                i1 = 2 * j1 + 1 - d1;
                y2 = rr[i3 - 1][i2 - 1][i1] + rr[i3 + 1][i2 - 1][i1]
                   + rr[i3 - 1][i2 + 1][i1] + rr[i3 + 1][i2 + 1][i1];
                x2 = rr[i3][i2 - 1][i1] + rr[i3][i2 + 1][i1]
                   + rr[i3 - 1][i2][i1] + rr[i3 + 1][i2][i1];
                ss[j3][j2][j1] = 0.5 * rr[i3][i2][i1]
                    + 0.25 * (rr[i3][i2][i1 - 1] + rr[i3][i2][i1 + 1] + x2)
                    + 0.125 * (buf1[i1 - 1] + buf1[i1 + 1] + y2)
                    + 0.0625 * (buf2[i1 - 1] + buf2[i1 + 1]);
            }
        }
    }

    /* periodic ghost planes of the coarse grid */
    comm3(os, m1j, m2j, m3j, k - 1);
}

/*
 * Prolongation: add the trilinear interpolation of the coarse grid z
 * (mm1 x mm2 x mm3 with ghosts) to the fine grid u (n1 x n2 x n3).  Fine
 * point 2*i is coarse point i; the ghost planes of u are written as well.
 * The grids of all NPB classes are powers of two, so the fine grid never
 * has a single interior point per dimension.
 */
static void interp(double *oz, int mm1, int mm2, int mm3,
                   double *ou, int n1, int n2, int n3, int k)
{
    double (*zz)[mm2][mm1] = (double (*)[mm2][mm1])oz;
    double (*uu)[n2][n1] = (double (*)[n2][n1])ou;
    int i1, i2, i3;

    (void)n3;
    (void)k;
#pragma omp for
    for (i3 = 0; i3 < mm3 - 1; i3++) {
        for (i2 = 0; i2 < mm2 - 1; i2++) {
            for (i1 = 0; i1 < mm1; i1++) {
                buf1[i1] = zz[i3][i2 + 1][i1] + zz[i3][i2][i1];
                buf2[i1] = zz[i3 + 1][i2][i1] + zz[i3][i2][i1];
                buf3[i1] = zz[i3 + 1][i2 + 1][i1] + zz[i3 + 1][i2][i1]
                         + buf1[i1];
            }
            for (i1 = 0; i1 < mm1 - 1; i1++) {
                uu[2 * i3][2 * i2][2 * i1] += zz[i3][i2][i1];
                uu[2 * i3][2 * i2][2 * i1 + 1] +=
                    0.5 * (zz[i3][i2][i1 + 1] + zz[i3][i2][i1]);
            }
            for (i1 = 0; i1 < mm1 - 1; i1++) {
                uu[2 * i3][2 * i2 + 1][2 * i1] += 0.5 * buf1[i1];
                uu[2 * i3][2 * i2 + 1][2 * i1 + 1] +=
                    0.25 * (buf1[i1] + buf1[i1 + 1]);
            }
            for (i1 = 0; i1 < mm1 - 1; i1++) {
                uu[2 * i3 + 1][2 * i2][2 * i1] += 0.5 * buf2[i1];
                uu[2 * i3 + 1][2 * i2][2 * i1 + 1] +=
                    0.25 * (buf2[i1] + buf2[i1 + 1]);
            }
            for (i1 = 0; i1 < mm1 - 1; i1++) {
                uu[2 * i3 + 1][2 * i2 + 1][2 * i1] += 0.25 * buf3[i1];
                uu[2 * i3 + 1][2 * i2 + 1][2 * i1 + 1] +=
                    0.125 * (buf3[i1] + buf3[i1 + 1]);
            }
        }
    }
}

/*
 * L2 norm (sqrt of the mean square over the nxk*nyk*nzk interior points)
 * and maximum norm of r.  Called by all threads of the team; the results
 * are stored once.
 */
static void norm2u3(double *ores, int n1, int n2, int n3, double *rnm2,
                    double *rnmu, int nxk, int nyk, int nzk)
{
    double (*rr)[n2][n1] = (double (*)[n2][n1])ores;
    double dn = 1.0 * nxk * nyk * nzk;
    int i1, i2, i3;

#pragma omp single
    {
        norm_sum = 0.0;
        norm_max = 0.0;
    }
#pragma omp for reduction(+:norm_sum) reduction(max:norm_max)
    for (i3 = 1; i3 < n3 - 1; i3++) {
        for (i2 = 1; i2 < n2 - 1; i2++) {
            for (i1 = 1; i1 < n1 - 1; i1++) {
                double x = rr[i3][i2][i1];
                double ax = fabs(x);
                norm_sum += x * x;
                norm_max = (ax > norm_max) ? ax : norm_max;
            }
        }
    }
#pragma omp single
    {
        *rnm2 = sqrt(norm_sum / dn);
        *rnmu = norm_max;
    }
}

/*
 * Periodic boundary: copy the opposite interior planes into the ghost
 * planes, first along x and y within each z plane, then along z.
 */
static void comm3(double *ou, int n1, int n2, int n3, int kk)
{
    double (*uu)[n2][n1] = (double (*)[n2][n1])ou;
    int i1, i2, i3;

    (void)kk;
#pragma omp for
    for (i3 = 1; i3 < n3 - 1; i3++) {
        for (i2 = 1; i2 < n2 - 1; i2++) {
            uu[i3][i2][0] = uu[i3][i2][n1 - 2];
            uu[i3][i2][n1 - 1] = uu[i3][i2][1];
        }
        for (i1 = 0; i1 < n1; i1++) {
            uu[i3][0][i1] = uu[i3][n2 - 2][i1];
            uu[i3][n2 - 1][i1] = uu[i3][1][i1];
        }
    }
#pragma omp for
    for (i2 = 0; i2 < n2; i2++) {
        for (i1 = 0; i1 < n1; i1++) {
            uu[0][i2][i1] = uu[n3 - 2][i2][i1];
            uu[n3 - 1][i2][i1] = uu[1][i2][i1];
        }
    }
}

static void zero3(double *oz, int n1, int n2, int n3)
{
    double (*zz)[n2][n1] = (double (*)[n2][n1])oz;
    int i1, i2, i3;

#pragma omp for
    for (i3 = 0; i3 < n3; i3++)
        for (i2 = 0; i2 < n2; i2++)
            for (i1 = 0; i1 < n1; i1++)
                zz[i3][i2][i1] = 0.0;
}

/*
 * Right-hand side: fill the interior with the randlc stream (seed
 * 314159265, multiplier 5^13, x fastest, one stream for the whole grid),
 * then set the grid to zero except for -1 at the MM smallest and +1 at the
 * MM largest of those values.  Each z plane starts at seed * a^(i*nx*ny),
 * each row at a further a^(j*nx), so planes are generated in parallel.
 */
static void zran3(double *oz, int n1, int n2, int n3, int nxk, int nyk, int k)
{
    double (*zz)[n2][n1] = (double (*)[n2][n1])oz;
    const double amult = 1220703125.0; /* 5^13 */
    const double seed = 314159265.0;
    double a1, a2;
    double lten[2][MM];
    int ljpos[2][MM][3];
    int i, i1, i2, i3, ind;

    a1 = power(amult, nxk);
    a2 = power(amult, nxk * nyk);

    zero3(oz, n1, n2, n3);

#pragma omp for
    for (i3 = 1; i3 < n3 - 1; i3++) {
        double x0 = seed, x1, xx;
        if (i3 > 1)
            (void)randlc(&x0, power(a2, i3 - 1));
        x1 = x0;
        for (i2 = 1; i2 < n2 - 1; i2++) {
            xx = x1;
            vranlc(nxk, &xx, amult, &zz[i3][i2][1]);
            (void)randlc(&x1, a1);
        }
    }

    /* per-thread search: lten[1] holds the MM largest values in ascending
       order, lten[0] the MM smallest in descending order, so that element
       0 is the one to beat */
    for (i = 0; i < MM; i++) {
        lten[1][i] = 0.0;
        lten[0][i] = 1.0;
        for (ind = 0; ind < 2; ind++)
            ljpos[ind][i][0] = ljpos[ind][i][1] = ljpos[ind][i][2] = 0;
    }
#pragma omp single
    {
        for (i = 0; i < MM; i++) {
            ten[1][i] = 0.0;
            ten[0][i] = 1.0;
        }
    }
#pragma omp for nowait
    for (i3 = 1; i3 < n3 - 1; i3++) {
        for (i2 = 1; i2 < n2 - 1; i2++) {
            for (i1 = 1; i1 < n1 - 1; i1++) {
                double zv = zz[i3][i2][i1];
                if (zv > lten[1][0]) {
                    lten[1][0] = zv;
                    ljpos[1][0][0] = i1;
                    ljpos[1][0][1] = i2;
                    ljpos[1][0][2] = i3;
                    bubble(lten[1], ljpos[1], 1);
                }
                if (zv < lten[0][0]) {
                    lten[0][0] = zv;
                    ljpos[0][0][0] = i1;
                    ljpos[0][0][1] = i2;
                    ljpos[0][0][2] = i3;
                    bubble(lten[0], ljpos[0], 0);
                }
            }
        }
    }
    /* merge the per-thread lists into the global ones */
#pragma omp critical (mg_zran3_merge)
    {
        for (i = 0; i < MM; i++) {
            if (lten[1][i] > ten[1][0]) {
                ten[1][0] = lten[1][i];
                jpos[1][0][0] = ljpos[1][i][0];
                jpos[1][0][1] = ljpos[1][i][1];
                jpos[1][0][2] = ljpos[1][i][2];
                bubble(ten[1], jpos[1], 1);
            }
            if (lten[0][i] < ten[0][0]) {
                ten[0][0] = lten[0][i];
                jpos[0][0][0] = ljpos[0][i][0];
                jpos[0][0][1] = ljpos[0][i][1];
                jpos[0][0][2] = ljpos[0][i][2];
                bubble(ten[0], jpos[0], 0);
            }
        }
    }
#pragma omp barrier

    zero3(oz, n1, n2, n3);
#pragma omp single
    {
        for (i = MM - 1; i >= 0; i--)
            zz[jpos[0][i][2]][jpos[0][i][1]][jpos[0][i][0]] = -1.0;
        for (i = MM - 1; i >= 0; i--)
            zz[jpos[1][i][2]][jpos[1][i][1]][jpos[1][i][0]] = +1.0;
    }
    comm3(oz, n1, n2, n3, k);
}

/* a^n modulo 2^46, by repeated squaring with randlc */
static double power(double a, int n)
{
    double pw = 1.0, aj = a;
    int nj = n;

    while (nj != 0) {
        if (nj % 2 == 1)
            (void)randlc(&pw, aj);
        (void)randlc(&aj, aj);
        nj = nj / 2;
    }
    return pw;
}

/*
 * Move the new element 0 of a sorted list of MM values to its place:
 * ind = 1 keeps the list ascending, ind = 0 descending.
 */
static void bubble(double tv[MM], int jv[MM][3], int ind)
{
    double t;
    int i, j, tj;

    for (i = 0; i < MM - 1; i++) {
        if (ind ? (tv[i] > tv[i + 1]) : (tv[i] < tv[i + 1])) {
            t = tv[i + 1];
            tv[i + 1] = tv[i];
            tv[i] = t;
            for (j = 0; j < 3; j++) {
                tj = jv[i + 1][j];
                jv[i + 1][j] = jv[i][j];
                jv[i][j] = tj;
            }
        } else {
            return;
        }
    }
}
