/*
 * EP: NAS Parallel Benchmarks "Embarrassingly Parallel" kernel, OpenMP C.
 * Independent implementation written from the NPB 3 specification.
 *
 * 2^(M+1) uniform numbers from the NPB linear congruential generator
 * (a = 5^13, seed 271828183) are taken as 2^M candidate pairs (x, y) in
 * (-1,1)^2.  Pairs with t = x^2 + y^2 <= 1 are turned into independent
 * Gaussian deviates X = x sqrt(-2 ln t / t), Y = y sqrt(-2 ln t / t)
 * (Marsaglia polar method).  The benchmark reports the sums of X and Y and
 * the counts of pairs whose max(|X|,|Y|) falls in the square annuli
 * l <= max(|X|,|Y|) < l+1, l = 0..NQ-1.
 *
 * The work is split into batches of 2^MK pairs; the generator seed of each
 * batch is computed directly with a binary-exponentiation jump-ahead, so the
 * batches are independent and can be distributed over the threads.
 */
#include <stdio.h>
#include <math.h>
#include "npb.h"
#include "params.h"

#define MM (M - MK)
#define NN (1L << MM)          /* number of batches */
#define NK (1 << MK)           /* pairs per batch */

/* per-thread batch of uniforms */
static double x[2 * NK];
#pragma omp threadprivate(x)

/* seed of batch kk (0-based): s * a^(2*NK*kk) mod 2^46; an = a^(2*NK) */
static double batch_seed(long kk, double an)
{
    double t1 = EP_S, t2 = an;
    while (kk > 0) {
        long ik = kk / 2;
        if (2 * ik != kk)
            (void)randlc(&t1, t2);
        if (ik == 0)
            break;
        (void)randlc(&t2, t2);
        kk = ik;
    }
    return t1;
}

/* Generates one batch and accumulates its deviates into sx, sy, q. */
static void do_batch(long kk, double an, double *sx, double *sy, double q[NQ])
{
    double t1 = batch_seed(kk, an);
    double lsx = 0.0, lsy = 0.0;
    int i;

    vranlc(2 * NK, &t1, EP_A, x);
    for (i = 0; i < NK; i++) {
        double x1 = 2.0 * x[2 * i] - 1.0;
        double x2 = 2.0 * x[2 * i + 1] - 1.0;
        double t = x1 * x1 + x2 * x2;
        if (t <= 1.0) {
            double f = sqrt(-2.0 * log(t) / t);
            double t3 = x1 * f, t4 = x2 * f;
            int l = (int)fmax(fabs(t3), fabs(t4));
            q[l] += 1.0;
            lsx += t3;
            lsy += t4;
        }
    }
    *sx += lsx;
    *sy += lsy;
}

int main(void)
{
    double q[NQ];
    double sx = 0.0, sy = 0.0, gc = 0.0, an, t1, tm, mops;
    double sx_err, sy_err;
    int i, verified;
    char size[32];

    snprintf(size, sizeof size, "%.0f", pow(2.0, M + 1));
    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - EP Benchmark\n\n");
    printf(" Number of random numbers generated: %15s\n", size);
    printf(" Number of available threads:        %15d\n", npb_num_threads());

    /* touch the code and data of the generator once, untimed */
    t1 = EP_A;
    vranlc(0, &t1, EP_A, x);

    timer_clear(0);
    timer_start(0);

    /* an = a^(2*NK) mod 2^46 by MK+1 squarings */
    t1 = EP_A;
    for (i = 0; i < MK + 1; i++)
        (void)randlc(&t1, t1);
    an = t1;

    for (i = 0; i < NQ; i++)
        q[i] = 0.0;

#pragma omp parallel default(shared) private(i)
    {
        double qq[NQ];
        double psx = 0.0, psy = 0.0;
        long k;

        for (i = 0; i < NQ; i++)
            qq[i] = 0.0;

#pragma omp for schedule(static) reduction(+:sx, sy)
        for (k = 0; k < NN; k++) {
            psx = 0.0;
            psy = 0.0;
            do_batch(k, an, &psx, &psy, qq);
            sx += psx;
            sy += psy;
        }

#pragma omp critical(ep_q)
        {
            for (i = 0; i < NQ; i++)
                q[i] += qq[i];
        }
    }

    for (i = 0; i < NQ; i++)
        gc += q[i];

    timer_stop(0);
    tm = timer_read(0);

    sx_err = fabs((sx - NPB_REF(SX_VERIFY_VALUE)) / NPB_REF(SX_VERIFY_VALUE));
    sy_err = fabs((sy - NPB_REF(SY_VERIFY_VALUE)) / NPB_REF(SY_VERIFY_VALUE));
    verified = (sx_err <= EP_EPSILON) && (sy_err <= EP_EPSILON);

    mops = pow(2.0, M + 1) / tm / 1.0e6;

    printf("\n EP Benchmark Results:\n\n");
    printf(" CPU Time =%10.4f\n", tm);
    printf(" N = 2^%5d\n", M);
    printf(" No. Gaussian Pairs = %15.0f\n", gc);
    printf(" Sums = %25.15e %25.15e\n", sx, sy);
    printf(" Relative errors = %10.3e %10.3e\n", sx_err, sy_err);
    printf(" Counts: \n");
    for (i = 0; i < NQ; i++)
        printf("%3d%15.0f\n", i, q[i]);

    print_results("EP", NPB_CLASS, (long)pow(2.0, M + 1), 0, 0, 0, tm, mops,
                  "Random numbers generated", verified);
    return verified ? 0 : 1;
}
