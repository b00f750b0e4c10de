/*
 * ssor.c - the SSOR pseudo-time stepping of NPB LU.  Each step solves
 *
 *   (D + omega L) D^-1 (D + omega U) dU = dt R(u)
 *
 * by a lower (jacld/blts) and an upper (jacu/buts) block triangular
 * Gauss-Seidel sweep over the interior points, then updates
 * u += dU / (omega (2 - omega)) and recomputes the residual (rhs).
 *
 * Wavefront formulation: HYPERPLANES.  A point (i, j, k) of the lower
 * sweep depends on (i-1, j, k), (i, j-1, k) and (i, j, k-1), i.e. only on
 * points of the plane l-1 where l = i + j + k; a point of the upper sweep
 * depends only on points of the plane l+1.  The sweeps therefore visit
 * the planes l in order (ascending, resp. descending) and share the
 * points of one plane among the threads with an ordinary "omp for":
 * within a plane every point reads the finished values of the previous
 * plane (ordered by the implicit barrier at the end of its loop) and
 * writes only its own rsd entry, so the loop is race-free.  The points of
 * a plane are enumerated by (k, j) over the bounding box of the plane,
 * i = l - j - k, and a guard skips the box points off the plane, so the
 * loop nest is rectangular and collapsible (one work item per point on an
 * offload device).  schedule(static) gives each thread a contiguous block
 * of (k, j) rows that drifts only slowly from plane to plane, so most
 * neighbour values were produced by the same thread (schedule(static, 1)
 * balances the triangular planes better but moves every neighbour between
 * threads, and was slower).  No point-to-point synchronisation
 * (pipelining with spin-wait flags) is used.
 *
 * The sequential build (no OpenMP) visits the points in lexicographic
 * order instead, like the NPB serial code: any order that respects the
 * dependences computes every point from the same inputs, so the values
 * are identical bit for bit, and the lexicographic order has better
 * locality (each hyperplane touches rows all over the grid: on one core
 * the hyperplane order is ~2% slower at class W, ~7% at class A, and
 * suffers more when other jobs share the caches).
 *
 * The Jacobian blocks of a point are private 5x5 arrays of the loop
 * body, computed by jacld/jacu just before blts/buts use them.
 */
#include <stdio.h>
#include "applu.h"

#define T_SSOR 1

#ifdef _OPENMP
static int imax(int x, int y) { return x > y ? x : y; }
static int imin(int x, int y) { return x < y ? x : y; }
#endif

void ssor(int niter)
{
    int i, j, k, m, istep;
#ifdef _OPENMP
    int l, lmin, lmax, klo, khi, jlo, jhi;
#endif
    double tmp;
    double delunm[5];

    tmp = 1.0 / (omega * (2.0 - omega));

#ifdef _OPENMP
    /* the planes l = i + j + k of the interior points */
    lmin = ist + jst + 1;
    lmax = (iend - 1) + (jend - 1) + (nz - 2);
#endif

    /* the steady-state residual and its norm before the first step */
    rhs();
    l2norm(rsd, rsdnm);

    timer_clear(T_SSOR);
    timer_start(T_SSOR);

    for (istep = 1; istep <= niter; istep++) {
        if (istep % 20 == 0 || istep == itmax || istep == 1) {
            if (niter > 1)
                printf(" Time step %4d\n", istep);
        }

#ifdef _OPENMP
#pragma omp parallel default(shared) private(i, j, k, m, l, klo, khi, jlo, jhi)
#endif
        {
#ifdef _OPENMP
            /* lower sweep: planes in ascending order */
            for (l = lmin; l <= lmax; l++) {
                klo = imax(1, l - (iend - 1) - (jend - 1));
                khi = imin(nz - 2, l - ist - jst);
                jlo = imax(jst, l - khi - (iend - 1));
                jhi = imin(jend - 1, l - klo - ist);
#pragma omp for collapse(2) schedule(static)
                for (k = klo; k <= khi; k++) {
                    for (j = jlo; j <= jhi; j++) {
                        i = l - k - j;
                        if (i >= ist && i < iend) {
                            double a[5][5], b[5][5], c[5][5], d[5][5];
                            jacld(i, j, k, a, b, c, d);
                            blts(i, j, k, a, b, c, d);
                        }
                    }
                }
            }

            /* upper sweep: planes in descending order */
            for (l = lmax; l >= lmin; l--) {
                klo = imax(1, l - (iend - 1) - (jend - 1));
                khi = imin(nz - 2, l - ist - jst);
                jlo = imax(jst, l - khi - (iend - 1));
                jhi = imin(jend - 1, l - klo - ist);
#pragma omp for collapse(2) schedule(static)
                for (k = klo; k <= khi; k++) {
                    for (j = jlo; j <= jhi; j++) {
                        i = l - k - j;
                        if (i >= ist && i < iend) {
                            double a[5][5], b[5][5], c[5][5], d[5][5];
                            jacu(i, j, k, a, b, c, d);
                            buts(i, j, k, a, b, c, d);
                        }
                    }
                }
            }
#else
            /* sequential build: lexicographic order (see above) */
            for (k = 1; k < nz - 1; k++) {
                for (j = jst; j < jend; j++) {
                    for (i = ist; i < iend; i++) {
                        double a[5][5], b[5][5], c[5][5], d[5][5];
                        jacld(i, j, k, a, b, c, d);
                        blts(i, j, k, a, b, c, d);
                    }
                }
            }
            for (k = nz - 2; k >= 1; k--) {
                for (j = jend - 1; j >= jst; j--) {
                    for (i = iend - 1; i >= ist; i--) {
                        double a[5][5], b[5][5], c[5][5], d[5][5];
                        jacu(i, j, k, a, b, c, d);
                        buts(i, j, k, a, b, c, d);
                    }
                }
            }
#endif

            /* update the variables */
#pragma omp for schedule(static) nowait
            for (k = 1; k < nz - 1; k++)
                for (j = jst; j < jend; j++)
                    for (i = ist; i < iend; i++)
                        for (m = 0; m < 5; m++)
                            u[k][j][i][m] = u[k][j][i][m] + tmp * rsd[k][j][i][m];
        }

        /* RMS norm of the Newton-iteration corrections */
        if (istep % inorm == 0)
            l2norm(rsd, delunm);

        /* the steady-state residual and its norm */
        rhs();
        if (istep % inorm == 0 || istep == itmax)
            l2norm(rsd, rsdnm);

        /* convergence test against the tolerances */
        if (rsdnm[0] < tolrsd[0] && rsdnm[1] < tolrsd[1] && rsdnm[2] < tolrsd[2]
            && rsdnm[3] < tolrsd[3] && rsdnm[4] < tolrsd[4]) {
            printf(" convergence was achieved after %4d pseudo-time steps\n", istep);
            break;
        }
    }

    timer_stop(T_SSOR);
    maxtime = timer_read(T_SSOR);
}
