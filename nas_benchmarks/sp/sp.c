/*
 * SP: NAS Parallel Benchmarks "scalar pentadiagonal" pseudo-application,
 * OpenMP C.  Independent implementation written from the NPB 3
 * specification.
 *
 * Solves the 3-D compressible Navier-Stokes equations (five unknowns per
 * point) on a PROBLEM_SIZE^3 grid towards a steady state whose exact
 * solution is manufactured (exact_solution, forcing from exact_rhs).  Each
 * of the NITER_DEFAULT time steps is one ADI step of the diagonalised
 * Beam-Warming approximate factorisation (Pulliam-Chaussee): compute_rhs,
 * txinvr, scalar pentadiagonal line solves in x (then ninvr), y (pinvr) and
 * z (tzetar), add.  The RMS norms of the final residual and error are
 * compared with the NPB reference values.
 *
 * Set SP_TIMERS=1 in the environment for a per-phase time breakdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include "header.h"

/* ------------------------------------------------------------------ */
/* global data (declared in header.h)                                  */
/* ------------------------------------------------------------------ */

int    grid_points[3];
int    nx2, ny2, nz2;
double dt;

double ce[5][13];

double bt, dnxm1, dnym1, dnzm1;
double c1, c2, c3, c4, c5, c1c2, c1c5, c3c4, c1345, conz1;
double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
double dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4, dy5;
double dz1, dz2, dz3, dz4, dz5, dxmax, dymax, dzmax;
double dssp, c4dssp, c5dssp, dtdssp;
double dttx1, dttx2, dtty1, dtty2, dttz1, dttz2;
double c2dttx1, c2dtty1, c2dttz1;
double comz1, comz4, comz5, comz6;
double c3c4tx3, c3c4ty3, c3c4tz3;
double dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1;
double dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1;
double dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1;
double xxcon1, xxcon2, xxcon3, xxcon4, xxcon5;
double yycon1, yycon2, yycon3, yycon4, yycon5;
double zzcon1, zzcon2, zzcon3, zzcon4, zzcon5;
double c2iv, con43, con16;

double u      [KMAX][JMAXP + 1][IMAXP + 1][5];
double rhs    [KMAX][JMAXP + 1][IMAXP + 1][5];
double forcing[KMAX][JMAXP + 1][IMAXP + 1][5];

double us    [KMAX][JMAXP + 1][IMAXP + 1];
double vs    [KMAX][JMAXP + 1][IMAXP + 1];
double ws    [KMAX][JMAXP + 1][IMAXP + 1];
double qs    [KMAX][JMAXP + 1][IMAXP + 1];
double rho_i [KMAX][JMAXP + 1][IMAXP + 1];
double speed [KMAX][JMAXP + 1][IMAXP + 1];
double square[KMAX][JMAXP + 1][IMAXP + 1];

/* ------------------------------------------------------------------ */
/* timers                                                              */
/* ------------------------------------------------------------------ */

enum { T_TOTAL = 1, T_RHS, T_TXINVR, T_XSOLVE, T_YSOLVE, T_ZSOLVE, T_ADD, T_LAST = T_ADD };

static int timers_enabled;

static void phase_start(int t)
{
    if (timers_enabled)
        timer_start(t);
}

static void phase_stop(int t)
{
    if (timers_enabled)
        timer_stop(t);
}

/* one ADI time step */
static void adi(void)
{
    phase_start(T_RHS);
    compute_rhs();
    phase_stop(T_RHS);

    phase_start(T_TXINVR);
    txinvr();
    phase_stop(T_TXINVR);

    phase_start(T_XSOLVE);
    x_solve();
    phase_stop(T_XSOLVE);

    phase_start(T_YSOLVE);
    y_solve();
    phase_stop(T_YSOLVE);

    phase_start(T_ZSOLVE);
    z_solve();
    phase_stop(T_ZSOLVE);

    phase_start(T_ADD);
    add();
    phase_stop(T_ADD);
}

static void print_timers(double tmax)
{
    static const char *names[T_LAST + 1] = {
        "", "total", "rhs", "txinvr", "xsolve (+ninvr)", "ysolve (+pinvr)",
        "zsolve (+tzetar)", "add"
    };
    int t;

    if (tmax <= 0.0)
        tmax = 1.0;
    printf("  SECTION            Time (secs)\n");
    for (t = T_TOTAL; t <= T_LAST; t++)
        printf("  %-17s:%9.3f  (%6.2f%%)\n", names[t], timer_read(t),
               timer_read(t) * 100.0 / tmax);
}

int main(void)
{
    const char *env;
    double tmax, mflops, n3, t;
    int niter, step, verified, i;

    env = getenv("SP_TIMERS");
    timers_enabled = (env != NULL && env[0] != '\0' && env[0] != '0');

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - SP Benchmark\n\n");

    niter = NITER_DEFAULT;
    dt = DT_DEFAULT;
    grid_points[0] = PROBLEM_SIZE;
    grid_points[1] = PROBLEM_SIZE;
    grid_points[2] = PROBLEM_SIZE;

    printf(" Size: %4dx%4dx%4d  (class %c)\n", grid_points[0], grid_points[1],
           grid_points[2], NPB_CLASS);
    printf(" Iterations: %4d    dt: %11.7f\n", niter, dt);
    printf(" Number of available threads: %5d\n\n", npb_num_threads());

    nx2 = grid_points[0] - 2;
    ny2 = grid_points[1] - 2;
    nz2 = grid_points[2] - 2;

    set_constants();

    for (i = 1; i <= T_LAST; i++)
        timer_clear(i);

    exact_rhs();
    initialize();

    /* one time step to touch all code and data, then a fresh start */
    adi();
    initialize();

    for (i = 1; i <= T_LAST; i++)
        timer_clear(i);
    timer_start(T_TOTAL);

    for (step = 1; step <= niter; step++) {
        if ((step % 20) == 0 || step == 1)
            printf(" Time step %4d\n", step);
        adi();
    }

    timer_stop(T_TOTAL);
    tmax = timer_read(T_TOTAL);

    verified = verify(niter);

    mflops = 0.0;
    if (tmax != 0.0) {
        n3 = (double)grid_points[0] * grid_points[1] * grid_points[2];
        t = (grid_points[0] + grid_points[1] + grid_points[2]) / 3.0;
        mflops = (881.174 * n3 - 4683.91 * (t * t) + 11484.5 * t - 19272.4) *
                 (double)niter / (tmax * 1000000.0);
    }

    print_results("SP", NPB_CLASS, grid_points[0], grid_points[1], grid_points[2],
                  niter, tmax, mflops, "floating point", verified);

    if (timers_enabled)
        print_timers(tmax);

    return verified ? 0 : 1;
}
