/*
 * NPB FT: 3-D FFT PDE solver (NAS Parallel Benchmarks 3 specification),
 * OpenMP C.
 *
 * Solves the diffusion equation du/dt = alpha * laplace(u) on a periodic
 * NX*NY*NZ grid spectrally: the pseudo-random complex initial field is
 * transformed once by a forward 3-D FFT; at time step t = 1..niter every
 * Fourier coefficient is multiplied by exp(-4 alpha pi^2 |k|^2) once more
 * (so the field holds the factor exp(-4 alpha pi^2 |k|^2 t)), the result is
 * transformed back by an (unnormalised) inverse 3-D FFT and a complex
 * checksum of 1024 elements is compared with the reference value.
 *
 * The 1-D transforms are radix-2 Stockham (self-sorting) FFTs applied to a
 * block of FFTBLOCK lines at a time: the lines are gathered into a
 * per-thread scratch buffer (threadprivate) with the line index fastest,
 * so every butterfly runs as a unit-stride loop over the block.
 *
 * Parallelisation: the timed section is one parallel region; the grid
 * routines share their outermost loop (planes or rows) with orphaned
 * "omp for" constructs.
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

#define T_TOTAL 0
#define T_SETUP 1

#define SEED       314159265.0
#define MULTIPLIER 1220703125.0
#define ALPHA      1.0e-6
#define PI         3.141592653589793238

/* lines transformed together by one call of cfft_block */
#define FFTBLOCK 16

#define FFT_FORWARD  1
#define FFT_INVERSE -1

#if (NX % FFTBLOCK) != 0 || (NY % FFTBLOCK) != 0
#error "FT: NX and NY must be multiples of FFTBLOCK"
#endif

typedef struct {
    double re, im;
} dcomplex;

/* u0: the field in Fourier space, u1: work array / result in real space */
static dcomplex u0[NZ][NY][NX];
static dcomplex u1[NZ][NY][NX];
/* exp(-4 alpha pi^2 |k|^2) for every Fourier mode */
static double twiddle[NZ][NY][NX];

/* roots of unity exp(-2 pi i j / n), j < n/2, of the x, y and z sizes */
static double root_re[3][MAXDIM / 2], root_im[3][MAXDIM / 2];
static const int dim_n[3] = { NX, NY, NZ };
static int dim_log[3];

/* per-thread scratch: two buffers of FFTBLOCK lines each, split into real
   and imaginary parts, element (position p, line b) at p*FFTBLOCK + b */
static double scr_re[2][MAXDIM * FFTBLOCK], scr_im[2][MAXDIM * FFTBLOCK];
#pragma omp threadprivate(scr_re, scr_im)

/* checksums: shared reduction targets and the results of all steps */
static double chk_re, chk_im;
static dcomplex sums[NITER_DEFAULT + 1];

static void fft_init(void);
static void compute_indexmap(void);
static void compute_initial_conditions(dcomplex u[NZ][NY][NX]);
static void evolve(dcomplex x[NZ][NY][NX], dcomplex y[NZ][NY][NX],
                   double tw[NZ][NY][NX]);
static void fft3d(int dir, dcomplex x[NZ][NY][NX], dcomplex y[NZ][NY][NX]);
static int cfft_block(int d, int dir);
static void checksum(int it, dcomplex u[NZ][NY][NX]);
static int verify(int niter);
static double ipow46(double a, int exponent);
static int ilog2(int n);

int main(void)
{
    int niter = NITER_DEFAULT, verified, i;
    double t, mflops, ntotal_f = (double)NTOTAL;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - FT Benchmark\n\n");
    printf(" Size                : %4dx%4dx%4d  (class %c)\n", NX, NY, NZ,
           NPB_CLASS);
    printf(" Iterations          :     %7d\n", niter);
    printf(" Number of available threads :     %7d\n\n", npb_num_threads());

    /* one untimed pass through the set-up to touch all data */
#pragma omp parallel
    {
#pragma omp single
        fft_init();
        compute_indexmap();
        compute_initial_conditions(u1);
        fft3d(FFT_FORWARD, u1, u0);
    }

    for (i = 0; i < 2; i++)
        timer_clear(i);

    timer_start(T_TOTAL);
#pragma omp parallel
    {
        int iter;

#pragma omp master
        timer_start(T_SETUP);
        compute_indexmap();
        compute_initial_conditions(u1);
#pragma omp single
        fft_init();
        fft3d(FFT_FORWARD, u1, u0);
#pragma omp master
        timer_stop(T_SETUP);

        for (iter = 1; iter <= niter; iter++) {
            evolve(u0, u1, twiddle);
            fft3d(FFT_INVERSE, u1, u1);
            checksum(iter, u1);
        }
    }
    verified = verify(niter);
    timer_stop(T_TOTAL);
    t = timer_read(T_TOTAL);

    printf(" Set-up (initial conditions and forward FFT): %10.3f seconds\n",
           timer_read(T_SETUP));
    if (t != 0.0)
        mflops = 1.0e-6 * ntotal_f
                 * (14.8157 + 7.19641 * log(ntotal_f)
                    + (5.23518 + 7.21113 * log(ntotal_f)) * niter) / t;
    else
        mflops = 0.0;

    print_results("FT", NPB_CLASS, NX, NY, NZ, niter, t, mflops,
                  "floating point", verified);
    return verified ? 0 : 1;
}

/* Roots of unity for the transforms along x, y and z. */
static void fft_init(void)
{
    int d, j, n;

    for (d = 0; d < 3; d++) {
        n = dim_n[d];
        dim_log[d] = ilog2(n);
        for (j = 0; j < n / 2; j++) {
            double ang = 2.0 * PI * (double)j / (double)n;
            root_re[d][j] = cos(ang);
            root_im[d][j] = -sin(ang);
        }
    }
}

static int ilog2(int n)
{
    int l = 0;

    while ((1 << l) < n)
        l++;
    if ((1 << l) != n) {
        fprintf(stderr, "FT: transform length %d is not a power of two\n", n);
        exit(1);
    }
    return l;
}

/*
 * twiddle = exp(-4 alpha pi^2 (ii^2 + jj^2 + kk^2)) with the wave numbers
 * ii, jj, kk of each index taken in -n/2 .. n/2-1.
 */
static void compute_indexmap(void)
{
    const double ap = -4.0 * ALPHA * PI * PI;
    int i, j, k;

#pragma omp for
    for (k = 0; k < NZ; k++) {
        int kk = ((k + NZ / 2) % NZ) - NZ / 2;
        for (j = 0; j < NY; j++) {
            int jj = ((j + NY / 2) % NY) - NY / 2;
            int kj2 = kk * kk + jj * jj;
            for (i = 0; i < NX; i++) {
                int ii = ((i + NX / 2) % NX) - NX / 2;
                twiddle[k][j][i] = exp(ap * (double)(ii * ii + kj2));
            }
        }
    }
}

/*
 * Pseudo-random initial field: one randlc stream (seed 314159265,
 * multiplier 5^13) filled plane by plane, x fastest, real part before
 * imaginary part.  Plane k starts 2*NX*NY numbers after plane k-1, so the
 * planes are generated in parallel from precomputed starting seeds.
 */
static void compute_initial_conditions(dcomplex u[NZ][NY][NX])
{
    static double starts[NZ];
    double row[2 * NX];
    int i, j, k;

#pragma omp single
    {
        double start = SEED;
        double an = ipow46(MULTIPLIER, 2 * NX * NY);

        for (k = 0; k < NZ; k++) {
            starts[k] = start;
            (void)randlc(&start, an);
        }
    }

#pragma omp for
    for (k = 0; k < NZ; k++) {
        double x0 = starts[k];
        for (j = 0; j < NY; j++) {
            vranlc(2 * NX, &x0, MULTIPLIER, row);
            for (i = 0; i < NX; i++) {
                u[k][j][i].re = row[2 * i];
                u[k][j][i].im = row[2 * i + 1];
            }
        }
    }
}

/* a^exponent modulo 2^46, by repeated squaring with randlc */
static double ipow46(double a, int exponent)
{
    double q = a, r = 1.0;
    int n = exponent;

    while (n != 0) {
        if (n % 2 == 1)
            (void)randlc(&r, q);
        (void)randlc(&q, q);
        n /= 2;
    }
    return r;
}

/* One time step in Fourier space: x = x * tw, y = x. */
static void evolve(dcomplex x[NZ][NY][NX], dcomplex y[NZ][NY][NX],
                   double tw[NZ][NY][NX])
{
    int i, j, k;

#pragma omp for
    for (k = 0; k < NZ; k++) {
        for (j = 0; j < NY; j++) {
            for (i = 0; i < NX; i++) {
                x[k][j][i].re *= tw[k][j][i];
                x[k][j][i].im *= tw[k][j][i];
                y[k][j][i] = x[k][j][i];
            }
        }
    }
}

/*
 * 3-D FFT y = F(x) (dir = FFT_FORWARD, exponent -2 pi i) or its
 * unnormalised inverse (dir = FFT_INVERSE); x and y may be the same array.
 * Transforms along x, then y, then z.
 */
static void fft3d(int dir, dcomplex x[NZ][NY][NX], dcomplex y[NZ][NY][NX])
{
    int i, j, k, b, ii, jj, res;

    /* along x: blocks of FFTBLOCK rows of one plane */
#pragma omp for
    for (k = 0; k < NZ; k++) {
        for (jj = 0; jj < NY; jj += FFTBLOCK) {
            for (i = 0; i < NX; i++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    scr_re[0][i * FFTBLOCK + b] = x[k][jj + b][i].re;
                    scr_im[0][i * FFTBLOCK + b] = x[k][jj + b][i].im;
                }
            }
            res = cfft_block(0, dir);
            for (i = 0; i < NX; i++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    y[k][jj + b][i].re = scr_re[res][i * FFTBLOCK + b];
                    y[k][jj + b][i].im = scr_im[res][i * FFTBLOCK + b];
                }
            }
        }
    }

    /* along y: blocks of FFTBLOCK columns of one plane */
#pragma omp for
    for (k = 0; k < NZ; k++) {
        for (ii = 0; ii < NX; ii += FFTBLOCK) {
            for (j = 0; j < NY; j++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    scr_re[0][j * FFTBLOCK + b] = y[k][j][ii + b].re;
                    scr_im[0][j * FFTBLOCK + b] = y[k][j][ii + b].im;
                }
            }
            res = cfft_block(1, dir);
            for (j = 0; j < NY; j++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    y[k][j][ii + b].re = scr_re[res][j * FFTBLOCK + b];
                    y[k][j][ii + b].im = scr_im[res][j * FFTBLOCK + b];
                }
            }
        }
    }

    /* along z: blocks of FFTBLOCK columns of one xz slice */
#pragma omp for
    for (j = 0; j < NY; j++) {
        for (ii = 0; ii < NX; ii += FFTBLOCK) {
            for (k = 0; k < NZ; k++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    scr_re[0][k * FFTBLOCK + b] = y[k][j][ii + b].re;
                    scr_im[0][k * FFTBLOCK + b] = y[k][j][ii + b].im;
                }
            }
            res = cfft_block(2, dir);
            for (k = 0; k < NZ; k++) {
                for (b = 0; b < FFTBLOCK; b++) {
                    y[k][j][ii + b].re = scr_re[res][k * FFTBLOCK + b];
                    y[k][j][ii + b].im = scr_im[res][k * FFTBLOCK + b];
                }
            }
        }
    }
}

/*
 * Radix-2 Stockham FFT of length n = dim_n[d] on the FFTBLOCK lines held in
 * scratch buffer 0 of the calling thread.  Stage with span s (= 1, 2, 4,
 * ...) and half length m = n / (2 s):
 *   y[q + s*2p]     = x[q + s*p] + x[q + s*(p+m)]
 *   y[q + s*(2p+1)] = (x[q + s*p] - x[q + s*(p+m)]) * w^(p*s),
 * w = exp(-2 pi i / n) (conjugated for the inverse), 0 <= q < s, 0 <= p < m;
 * for fixed p the indices q (and the lines b) form one contiguous run.
 * Returns the scratch buffer (0 or 1) holding the result in natural order.
 */
static int cfft_block(int d, int dir)
{
    const int n = dim_n[d];
    const double *wre = root_re[d], *wim = root_im[d];
    int stage, p, t, m, s = 1, len, src = 0;

    for (stage = 0; stage < dim_log[d]; stage++) {
        const double *xr = scr_re[src], *xi = scr_im[src];
        double *yr = scr_re[1 - src], *yi = scr_im[1 - src];

        m = n / (2 * s);
        len = s * FFTBLOCK;
        for (p = 0; p < m; p++) {
            const double wr = wre[p * s], wi = dir * wim[p * s];
            const double *ar = xr + p * len, *ai = xi + p * len;
            const double *br = xr + (p + m) * len, *bi = xi + (p + m) * len;
            double *c0r = yr + 2 * p * len, *c0i = yi + 2 * p * len;
            double *c1r = c0r + len, *c1i = c0i + len;

            for (t = 0; t < len; t++) {
                double dr = ar[t] - br[t], di = ai[t] - bi[t];
                c0r[t] = ar[t] + br[t];
                c0i[t] = ai[t] + bi[t];
                c1r[t] = dr * wr - di * wi;
                c1i[t] = dr * wi + di * wr;
            }
        }
        s *= 2;
        src = 1 - src;
    }
    return src;
}

/*
 * Checksum of step it: sum of u[5j mod NZ][3j mod NY][j mod NX] over
 * j = 1..1024, divided by the number of grid points.
 */
static void checksum(int it, dcomplex u[NZ][NY][NX])
{
    int j;

#pragma omp single
    {
        chk_re = 0.0;
        chk_im = 0.0;
    }
#pragma omp for reduction(+:chk_re, chk_im)
    for (j = 1; j <= 1024; j++) {
        int q = j % NX, r = (3 * j) % NY, s = (5 * j) % NZ;
        chk_re += u[s][r][q].re;
        chk_im += u[s][r][q].im;
    }
#pragma omp single
    {
        sums[it].re = chk_re / (double)NTOTAL;
        sums[it].im = chk_im / (double)NTOTAL;
        printf(" T = %5d     Checksum = %22.12E %22.12E\n", it, sums[it].re,
               sums[it].im);
    }
}

/* Compare every step's checksum with the reference (relative error of the
   complex difference). */
static int verify(int niter)
{
    static const double ref_re[] = CHECKSUM_RE_REF;
    static const double ref_im[] = CHECKSUM_IM_REF;
    int i, ok = 1;

    for (i = 1; i <= niter; i++) {
        double rr = NPB_REF(ref_re[i - 1]), ri = NPB_REF(ref_im[i - 1]);
        double er = sums[i].re - rr, ei = sums[i].im - ri;
        double err = sqrt(er * er + ei * ei) / sqrt(rr * rr + ri * ri);
        if (!(err <= VERIFY_EPSILON))
            ok = 0;
    }
    if (ok)
        printf(" Result verification successful\n");
    else
        printf(" Result verification failed\n");
    printf(" class = %c\n", NPB_CLASS);
    return ok;
}
