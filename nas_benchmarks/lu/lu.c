/*
 * NPB LU: SSOR (symmetric successive over-relaxation) solution of the
 * block lower/upper triangular systems arising from an implicit finite
 * difference discretisation of the 3-D compressible Navier-Stokes
 * equations (NAS Parallel Benchmarks 3 specification), OpenMP C.
 *
 * The forcing term is built from a manufactured exact solution (erhs);
 * starting from a transfinite interpolation of the boundary values
 * (setbv, setiv), itmax SSOR steps are taken (ssor).  Verification
 * compares the RMS norms of the final residual, of the error against the
 * exact solution and a surface integral (pintgr) with the NPB reference
 * values.
 *
 * Files: lu.c (main, global data, domain set-up, report), setcoeff.c,
 * setbv.c, setiv.c, exact.c, erhs.c, rhs.c, ssor.c (with the point
 * routines jacld.c/blts.c of the lower and jacu.c/buts.c of the upper
 * sweep), l2norm.c, error.c, pintgr.c, verify.c; globals in applu.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include "applu.h"

/* ------------------------------------------------------------------ */
/* global data (declared in applu.h)                                   */
/* ------------------------------------------------------------------ */
int nx0, ny0, nz0;
int nx, ny, nz;
int ist, iend, jst, jend;
int ii1, ii2, ji1, ji2, ki1, ki2;

double dxi, deta, dzeta;
double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
double dx1, dx2, dx3, dx4, dx5;
double dy1, dy2, dy3, dy4, dy5;
double dz1, dz2, dz3, dz4, dz5;
double dssp;
double ce[5][13];

int itmax, inorm;
double dt, omega;
double tolrsd[5];

double u[ISIZ3][ISIZ2P][ISIZ1P][5];
double rsd[ISIZ3][ISIZ2P][ISIZ1P][5];
double frct[ISIZ3][ISIZ2P][ISIZ1P][5];
double rho_i[ISIZ3][ISIZ2P][ISIZ1P];
double qs[ISIZ3][ISIZ2P][ISIZ1P];

double rsdnm[5], errnm[5], frc;
double maxtime;

static void read_input(void);
static void domain(void);

int main(void)
{
    double mflops, n3;
    int verified;

    read_input();
    domain();

    /* coefficients, boundary values, initial guess, forcing term */
    setcoeff();
    setbv();
    setiv();
    erhs();

    /* one SSOR step to touch all data, then a fresh start */
    ssor(1);
    setbv();
    setiv();

    /* the timed SSOR iterations */
    ssor(itmax);

    /* solution error, surface integral, verification */
    error();
    pintgr();
    verify(rsdnm, errnm, frc, &verified);

    n3 = (double)(nx0 + ny0 + nz0) / 3.0;
    mflops = maxtime > 0.0
        ? (double)itmax * (1984.77 * (double)nx0 * (double)ny0 * (double)nz0
                           - 10923.3 * n3 * n3 + 27770.9 * n3 - 144010.0)
              / (maxtime * 1.0e6)
        : 0.0;

    print_results("LU", NPB_CLASS, nx0, ny0, nz0, itmax, maxtime, mflops,
                  "floating point", verified);
    return verified ? 0 : 1;
}

/* Run parameters: the compiled class defaults (NPB reads them from
 * inputlu.data when present; this implementation has no input file). */
static void read_input(void)
{
    int m;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - LU Benchmark\n\n");

    itmax = ITMAX_DEFAULT;
    inorm = INORM_DEFAULT;
    dt = DT_DEFAULT;
    omega = OMEGA_DEFAULT;
    for (m = 0; m < 5; m++)
        tolrsd[m] = TOLRSD_DEFAULT;
    nx0 = ISIZ1;
    ny0 = ISIZ2;
    nz0 = ISIZ3;

    printf(" Size: %4dx%4dx%4d  (class %c)\n", nx0, ny0, nz0, NPB_CLASS);
    printf(" Iterations: %4d\n", itmax);
    printf(" Number of available threads: %5d\n\n", npb_num_threads());
}

/* Grid size and loop bounds.  Index ranges are half-open (lo <= i < hi)
 * and 0-based; ii*, ji*, ki* are the ranges of the surface integral. */
static void domain(void)
{
    nx = nx0;
    ny = ny0;
    nz = nz0;

    if (nx < 4 || ny < 4 || nz < 4) {
        printf("     SUBDOMAIN SIZE IS TOO SMALL - \n"
               "     ADJUST PROBLEM SIZE OR NUMBER OF PROCESSORS\n"
               "     SO THAT NX, NY AND NZ ARE GREATER THAN OR EQUAL\n"
               "     TO 4 THEY ARE CURRENTLY%3d%3d%3d\n", nx, ny, nz);
        exit(1);
    }
    if (nx > ISIZ1 || ny > ISIZ2 || nz > ISIZ3) {
        printf("     SUBDOMAIN SIZE IS TOO LARGE - \n"
               "     ADJUST PROBLEM SIZE OR NUMBER OF PROCESSORS\n"
               "     SO THAT NX, NY AND NZ ARE LESS THAN OR EQUAL TO \n"
               "     ISIZ1, ISIZ2 AND ISIZ3 RESPECTIVELY.  THEY ARE\n"
               "     CURRENTLY%4d%4d%4d\n", nx, ny, nz);
        exit(1);
    }

    ist = 1;
    iend = nx - 1;
    jst = 1;
    jend = ny - 1;
    ii1 = 1;
    ii2 = nx0 - 1;
    ji1 = 1;
    ji2 = ny0 - 2;
    ki1 = 2;
    ki2 = nz0 - 1;
}
