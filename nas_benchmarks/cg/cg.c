/*
 * CG: NAS Parallel Benchmarks "Conjugate Gradient" kernel, OpenMP C.
 * Independent implementation written from the NPB 3 specification.
 *
 * An inverse power iteration estimates the smallest eigenvalue of a random
 * sparse symmetric positive definite matrix A of order NA.  A is assembled
 * by makea as a weighted sum of NA outer products of random sparse vectors
 * (each with NONZER random non-zeros plus a 0.5 on the diagonal position),
 * with geometrically decreasing weights (ratio rcond^(1/NA)), plus
 * (rcond - shift) * I.  Each of the NITER outer iterations solves A z = x
 * with CGITMAX (= 25) unpreconditioned conjugate-gradient steps and sets
 * zeta = shift + 1 / (x . z), x = z / ||z||.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "npb.h"
#include "params.h"

#define NZ  ((long)NA * (NONZER + 1) * (NONZER + 1))
#define NAZ ((long)NA * (NONZER + 1))

/* CSR matrix */
static int    colidx[NZ];
static int    rowstr[NA + 1];
static double a[NZ];

/* generation workspace: random sparse vector of every outer product */
static int    arow[NA];
static int    acol[NA][NONZER + 1];
static double aelt[NA][NONZER + 1];
static int    iv[NA];

/* vectors */
static double x[NA + 2];
static double z[NA + 2];
static double p[NA + 2];
static double q[NA + 2];
static double r[NA + 2];

/* random number generator state used by makea */
static double tran, amult;

/* reduction targets shared by the threads of a parallel region */
static double rho, rho0, dsum, rsum, norm_temp1, norm_temp2;

/* ------------------------------------------------------------------ */
/* matrix generation                                                   */
/* ------------------------------------------------------------------ */

/* scale a uniform x in (0,1) to an integer in [0, ipwr2) */
static int icnvrt(double xv, int ipwr2)
{
    return (int)(ipwr2 * xv);
}

/* Random sparse vector: nz distinct positions in 1..n (drawn as integers
 * below nn1 = next power of two >= n, rejecting those > n) with uniform
 * values. */
static void sprnvc(int n, int nz, int nn1, double v[], int ivv[])
{
    int nzv = 0, ii, i;
    double vecelt, vecloc;

    while (nzv < nz) {
        int was_gen = 0;
        vecelt = randlc(&tran, amult);
        vecloc = randlc(&tran, amult);
        i = icnvrt(vecloc, nn1) + 1;
        if (i > n)
            continue;
        for (ii = 0; ii < nzv; ii++) {
            if (ivv[ii] == i) {
                was_gen = 1;
                break;
            }
        }
        if (was_gen)
            continue;
        v[nzv] = vecelt;
        ivv[nzv] = i;
        nzv++;
    }
}

/* Set element i of the sparse vector (v, ivv) to val, appending it if absent. */
static void vecset(double v[], int ivv[], int *nzv, int i, double val)
{
    int k, set = 0;

    for (k = 0; k < *nzv; k++) {
        if (ivv[k] == i) {
            v[k] = val;
            set = 1;
        }
    }
    if (!set) {
        v[*nzv] = val;
        ivv[*nzv] = i;
        (*nzv)++;
    }
}

/* Assemble the CSR matrix from the outer products, summing duplicates. */
static void sparse(int n, int nrows)
{
    int i, j, j1, j2, k, kk, nza, nzrow, jcol;
    double size, scale, ratio, va;

    /* upper bound of the entries of each row: every outer product with a
     * non-zero in row j contributes at most arow[i] entries */
    for (j = 0; j < nrows + 1; j++)
        rowstr[j] = 0;
    for (i = 0; i < n; i++)
        for (nza = 0; nza < arow[i]; nza++)
            rowstr[acol[i][nza] + 1] += arow[i];
    rowstr[0] = 0;
    for (j = 1; j < nrows + 1; j++)
        rowstr[j] += rowstr[j - 1];
    if ((long)rowstr[nrows] > NZ) {
        fprintf(stderr, "CG sparse: too many non-zeros (%d > %ld)\n", rowstr[nrows], (long)NZ);
        exit(2);
    }

    for (j = 0; j < nrows; j++) {
        for (k = rowstr[j]; k < rowstr[j + 1]; k++) {
            a[k] = 0.0;
            colidx[k] = -1;
        }
        iv[j] = 0;     /* number of duplicates found in row j */
    }

    /* accumulate the weighted outer products, rows kept sorted by column */
    size = 1.0;
    ratio = pow(RCOND, 1.0 / (double)n);
    for (i = 0; i < n; i++) {
        for (nza = 0; nza < arow[i]; nza++) {
            j = acol[i][nza];
            scale = size * aelt[i][nza];
            for (nzrow = 0; nzrow < arow[i]; nzrow++) {
                int found = 0;
                jcol = acol[i][nzrow];
                va = aelt[i][nzrow] * scale;
                /* shift the spectrum: add rcond - shift on the diagonal */
                if (jcol == j && j == i)
                    va = va + RCOND - SHIFT;

                for (k = rowstr[j]; k < rowstr[j + 1]; k++) {
                    if (colidx[k] > jcol) {
                        /* insert before k, shifting the used tail right */
                        for (kk = rowstr[j + 1] - 2; kk >= k; kk--) {
                            if (colidx[kk] > -1) {
                                a[kk + 1] = a[kk];
                                colidx[kk + 1] = colidx[kk];
                            }
                        }
                        colidx[k] = jcol;
                        a[k] = 0.0;
                        found = 1;
                        break;
                    } else if (colidx[k] == -1) {
                        colidx[k] = jcol;
                        found = 1;
                        break;
                    } else if (colidx[k] == jcol) {
                        iv[j]++;
                        found = 1;
                        break;
                    }
                }
                if (!found) {
                    fprintf(stderr, "CG sparse: internal error in row %d\n", j);
                    exit(2);
                }
                a[k] += va;
            }
        }
        size *= ratio;
    }

    /* compact: drop the unused tail of every row */
    for (j = 1; j < nrows; j++)
        iv[j] += iv[j - 1];
    for (j = 0; j < nrows; j++) {
        j1 = (j > 0) ? rowstr[j] - iv[j - 1] : 0;
        j2 = rowstr[j + 1] - iv[j];
        nza = rowstr[j];
        for (k = j1; k < j2; k++) {
            a[k] = a[nza];
            colidx[k] = colidx[nza];
            nza++;
        }
    }
    for (j = 1; j < nrows + 1; j++)
        rowstr[j] -= iv[j - 1];
}

static void makea(int n)
{
    int iouter, ivelt, nzv, nn1;
    int ivc[NONZER + 1];
    double vc[NONZER + 1];

    /* nn1: smallest power of two >= n */
    nn1 = 1;
    do {
        nn1 *= 2;
    } while (nn1 < n);

    for (iouter = 0; iouter < n; iouter++) {
        nzv = NONZER;
        sprnvc(n, nzv, nn1, vc, ivc);
        vecset(vc, ivc, &nzv, iouter + 1, 0.5);
        arow[iouter] = nzv;
        for (ivelt = 0; ivelt < nzv; ivelt++) {
            acol[iouter][ivelt] = ivc[ivelt] - 1;
            aelt[iouter][ivelt] = vc[ivelt];
        }
    }
    sparse(n, n);
}

/* ------------------------------------------------------------------ */
/* conjugate gradient                                                  */
/* ------------------------------------------------------------------ */

/* y = A v for rows in the current thread's share (called inside omp for) */
static inline double row_dot(int j, const double v[])
{
    double s = 0.0;
    int k;
    for (k = rowstr[j]; k < rowstr[j + 1]; k++)
        s += a[k] * v[colidx[k]];
    return s;
}

/* CGITMAX CG steps on A z = x from z = 0; returns ||x - A z||. */
static double conj_grad(void)
{
#pragma omp parallel
    {
        int j, cgit;
        double alpha, beta;

#pragma omp for schedule(static)
        for (j = 0; j < NA + 1; j++) {
            q[j] = 0.0;
            z[j] = 0.0;
            r[j] = x[j];
            p[j] = x[j];
        }

#pragma omp single
        rho = 0.0;

#pragma omp for schedule(static) reduction(+:rho)
        for (j = 0; j < NA; j++)
            rho += r[j] * r[j];

        /* rho0 = r . r; the accumulators start at zero */
#pragma omp single
        {
            rho0 = rho;
            rho = 0.0;
            dsum = 0.0;
        }

        /* Three barriers per step, those ending the three loops.  The
         * accumulators for the next step are reset by the master thread at
         * points where every thread has already read them and an implicit
         * barrier separates the reset from their next reduction. */
        for (cgit = 1; cgit <= CGITMAX; cgit++) {
            /* q = A p and d = p . q */
#pragma omp for schedule(static) reduction(+:dsum)
            for (j = 0; j < NA; j++) {
                double qj = row_dot(j, p);
                q[j] = qj;
                dsum += p[j] * qj;
            }

            alpha = rho0 / dsum;

            /* z += alpha p, r -= alpha q, rho = r . r */
#pragma omp for schedule(static) reduction(+:rho)
            for (j = 0; j < NA; j++) {
                z[j] += alpha * p[j];
                r[j] -= alpha * q[j];
                rho += r[j] * r[j];
            }

            beta = rho / rho0;

            /* all threads have read dsum (barrier above) */
#pragma omp master
            dsum = 0.0;

#pragma omp for schedule(static)
            for (j = 0; j < NA; j++)
                p[j] = r[j] + beta * p[j];

            /* all threads have computed beta (barrier above) */
#pragma omp master
            {
                rho0 = rho;
                rho = 0.0;
            }
        }

        /* explicit residual norm ||x - A z|| */
#pragma omp single
        rsum = 0.0;

#pragma omp for schedule(static) reduction(+:rsum)
        for (j = 0; j < NA; j++) {
            double d = x[j] - row_dot(j, z);
            rsum += d * d;
        }
    }
    return sqrt(rsum);
}

/* norm_temp1 = x . z, norm_temp2 = 1 / ||z||, then x = z / ||z|| */
static void normalize(void)
{
    norm_temp1 = 0.0;
    norm_temp2 = 0.0;
#pragma omp parallel
    {
        int j;
#pragma omp for schedule(static) reduction(+:norm_temp1, norm_temp2)
        for (j = 0; j < NA; j++) {
            norm_temp1 += x[j] * z[j];
            norm_temp2 += z[j] * z[j];
        }
        /* implicit barrier: both sums complete */
        {
            double scale = 1.0 / sqrt(norm_temp2);
#pragma omp for schedule(static)
            for (j = 0; j < NA; j++)
                x[j] = scale * z[j];
        }
    }
    norm_temp2 = 1.0 / sqrt(norm_temp2);
}

int main(void)
{
    int it, j, verified;
    double zeta, rnorm = 0.0, t, mflops, err;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - CG Benchmark\n\n");
    printf(" Size: %11d\n", NA);
    printf(" Iterations: %5d\n", NITER);
    printf(" Number of available threads: %5d\n\n", npb_num_threads());

    timer_clear(0);
    timer_clear(1);
    timer_start(1);

    tran = CG_RNG_SEED;
    amult = CG_RNG_MULT;
    zeta = randlc(&tran, amult);
    makea(NA);

    timer_stop(1);
    printf(" Matrix generation: %d non-zeros, %.3f s\n\n", rowstr[NA], timer_read(1));

    for (j = 0; j < NA + 1; j++)
        x[j] = 1.0;

    /* one untimed iteration to touch all code and data */
    rnorm = conj_grad();
    normalize();

    for (j = 0; j < NA + 1; j++)
        x[j] = 1.0;
    zeta = 0.0;

    timer_start(0);
    printf("   iteration           ||r||                 zeta\n");
    for (it = 1; it <= NITER; it++) {
        rnorm = conj_grad();
        normalize();
        zeta = SHIFT + 1.0 / norm_temp1;
        printf("    %5d       %20.14e%20.13f\n", it, rnorm, zeta);
    }
    timer_stop(0);
    t = timer_read(0);

    err = fabs(zeta - NPB_REF(ZETA_VERIFY_VALUE)) / NPB_REF(ZETA_VERIFY_VALUE);
    verified = err <= CG_EPSILON;
    printf("\n Zeta            %20.13e\n", zeta);
    printf(" Reference zeta  %20.13e\n", NPB_REF(ZETA_VERIFY_VALUE));
    printf(" Relative error  %20.13e\n", err);

    mflops = 0.0;
    if (t > 0.0)
        mflops = (2.0 * NITER * NA)
               * (3.0 + (double)(NONZER * (NONZER + 1))
                  + 25.0 * (5.0 + (double)(NONZER * (NONZER + 1))) + 3.0)
               / t / 1.0e6;

    print_results("CG", NPB_CLASS, NA, 0, 0, NITER, t, mflops, "floating point", verified);
    return verified ? 0 : 1;
}
