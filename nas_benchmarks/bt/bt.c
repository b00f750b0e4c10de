/*
 * BT: NAS Parallel Benchmarks "Block Tridiagonal" pseudo-application,
 * OpenMP C.  Independent implementation written from the NPB 3
 * specification.
 *
 * BT integrates the 3-D compressible Navier-Stokes equations (five
 * unknowns per grid point) towards a steady state with an implicit,
 * approximately factored (ADI) scheme.  The forcing term is manufactured
 * from a known smooth exact solution, so the final error can be measured.
 * Each time step (adi) evaluates the explicit right-hand side
 * (compute_rhs: central differences plus fourth-order artificial
 * dissipation), then solves three sets of independent block-tridiagonal
 * systems with 5x5 blocks, one set per direction (x_solve, y_solve,
 * z_solve: one system per grid line, Gaussian elimination without
 * pivoting along the line), and finally adds the increment to the
 * solution (add).
 *
 * Parallelisation: every routine holds its own parallel region; the line
 * solvers share the lines of the two other dimensions among the threads
 * (omp for collapse(2)), each line being solved sequentially with work
 * arrays private to the iteration.
 *
 * Files: bt.c (globals, constants, main, adi, add), initialize.c,
 * exact.c, rhs.c, x_solve.c, y_solve.c, z_solve.c, solve_subs.c (5x5
 * block helpers), error.c (norms), verify.c.
 */
#include <stdio.h>
#include <math.h>
#include "header.h"

#define T_TOTAL 0

/* problem definition */
int    grid_points[3];
int    niter;
double dt;

double ce[5][13];

double dnxm1, dnym1, dnzm1;
double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
double dx1, dx2, dx3, dx4, dx5;
double dy1, dy2, dy3, dy4, dy5;
double dz1, dz2, dz3, dz4, dz5;
double dssp;
double c1, c2, c3, c4, c5, c1c2, c1c5, c3c4, c1345, conz1, con43, con16;
double dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1;
double dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1;
double dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1;
double xxcon1, xxcon2, xxcon3, xxcon4, xxcon5;
double yycon1, yycon2, yycon3, yycon4, yycon5;
double zzcon1, zzcon2, zzcon3, zzcon4, zzcon5;

double u      [KMAX][JMAXP+1][IMAXP+1][5];
double rhs    [KMAX][JMAXP+1][IMAXP+1][5];
double forcing[KMAX][JMAXP+1][IMAXP+1][5];

double us     [KMAX][JMAXP+1][IMAXP+1];
double vs     [KMAX][JMAXP+1][IMAXP+1];
double ws     [KMAX][JMAXP+1][IMAXP+1];
double qs     [KMAX][JMAXP+1][IMAXP+1];
double rho_i  [KMAX][JMAXP+1][IMAXP+1];
double square [KMAX][JMAXP+1][IMAXP+1];

/* coefficients of the exact solution: row m holds the constant term, then
 * the xi, eta, zeta coefficients of degree 1, 2, 3, 4 (interleaved) */
static const double ce_init[5][13] = {
    { 2.0, 0.0, 0.0, 4.0, 5.0, 3.0, 0.5, 0.02, 0.01, 0.03, 0.5, 0.4, 0.3 },
    { 1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 0.01, 0.03, 0.02, 0.4, 0.3, 0.5 },
    { 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.04, 0.03, 0.05, 0.3, 0.5, 0.4 },
    { 2.0, 2.0, 0.0, 0.0, 0.0, 2.0, 3.0, 0.03, 0.05, 0.04, 0.2, 0.1, 0.3 },
    { 5.0, 4.0, 3.0, 2.0, 0.1, 0.4, 0.3, 0.05, 0.04, 0.03, 0.1, 0.3, 0.2 },
};

void set_constants(void)
{
    int m, n;
    double c3c4tx3, c3c4ty3, c3c4tz3;

    for (m = 0; m < 5; m++)
        for (n = 0; n < 13; n++)
            ce[m][n] = ce_init[m][n];

    c1 = 1.4;
    c2 = 0.4;
    c3 = 0.1;
    c4 = 1.0;
    c5 = 1.4;

    dnxm1 = 1.0 / (double)(grid_points[0] - 1);
    dnym1 = 1.0 / (double)(grid_points[1] - 1);
    dnzm1 = 1.0 / (double)(grid_points[2] - 1);

    c1c2  = c1 * c2;
    c1c5  = c1 * c5;
    c3c4  = c3 * c4;
    c1345 = c1c5 * c3c4;
    conz1 = 1.0 - c1c5;

    tx1 = 1.0 / (dnxm1 * dnxm1);
    tx2 = 1.0 / (2.0 * dnxm1);
    tx3 = 1.0 / dnxm1;
    ty1 = 1.0 / (dnym1 * dnym1);
    ty2 = 1.0 / (2.0 * dnym1);
    ty3 = 1.0 / dnym1;
    tz1 = 1.0 / (dnzm1 * dnzm1);
    tz2 = 1.0 / (2.0 * dnzm1);
    tz3 = 1.0 / dnzm1;

    dx1 = 0.75; dx2 = 0.75; dx3 = 0.75; dx4 = 0.75; dx5 = 0.75;
    dy1 = 0.75; dy2 = 0.75; dy3 = 0.75; dy4 = 0.75; dy5 = 0.75;
    dz1 = 1.0;  dz2 = 1.0;  dz3 = 1.0;  dz4 = 1.0;  dz5 = 1.0;

    dssp = 0.25 * fmax(dx1, fmax(dy1, dz1));

    c3c4tx3 = c3c4 * tx3;
    c3c4ty3 = c3c4 * ty3;
    c3c4tz3 = c3c4 * tz3;

    dx1tx1 = dx1 * tx1; dx2tx1 = dx2 * tx1; dx3tx1 = dx3 * tx1;
    dx4tx1 = dx4 * tx1; dx5tx1 = dx5 * tx1;
    dy1ty1 = dy1 * ty1; dy2ty1 = dy2 * ty1; dy3ty1 = dy3 * ty1;
    dy4ty1 = dy4 * ty1; dy5ty1 = dy5 * ty1;
    dz1tz1 = dz1 * tz1; dz2tz1 = dz2 * tz1; dz3tz1 = dz3 * tz1;
    dz4tz1 = dz4 * tz1; dz5tz1 = dz5 * tz1;

    con43 = 4.0 / 3.0;
    con16 = 1.0 / 6.0;

    xxcon1 = c3c4tx3 * con43 * tx3;
    xxcon2 = c3c4tx3 * tx3;
    xxcon3 = c3c4tx3 * conz1 * tx3;
    xxcon4 = c3c4tx3 * con16 * tx3;
    xxcon5 = c3c4tx3 * c1c5 * tx3;

    yycon1 = c3c4ty3 * con43 * ty3;
    yycon2 = c3c4ty3 * ty3;
    yycon3 = c3c4ty3 * conz1 * ty3;
    yycon4 = c3c4ty3 * con16 * ty3;
    yycon5 = c3c4ty3 * c1c5 * ty3;

    zzcon1 = c3c4tz3 * con43 * tz3;
    zzcon2 = c3c4tz3 * tz3;
    zzcon3 = c3c4tz3 * conz1 * tz3;
    zzcon4 = c3c4tz3 * con16 * tz3;
    zzcon5 = c3c4tz3 * c1c5 * tz3;
}

/* u += rhs on the interior points */
void add(void)
{
    int i, j, k, m;

#pragma omp parallel for default(shared) private(i, j, m) schedule(static)
    for (k = 1; k <= grid_points[2] - 2; k++) {
        for (j = 1; j <= grid_points[1] - 2; j++) {
            for (i = 1; i <= grid_points[0] - 2; i++) {
                for (m = 0; m < 5; m++) {
                    u[k][j][i][m] = u[k][j][i][m] + rhs[k][j][i][m];
                }
            }
        }
    }
}

/* one time step of the approximately factored implicit scheme */
void adi(void)
{
    compute_rhs();
    x_solve();
    y_solve();
    z_solve();
    add();
}

int main(void)
{
    int step, verified;
    double tmax, n3, navg, mflops;

    grid_points[0] = PROBLEM_SIZE;
    grid_points[1] = PROBLEM_SIZE;
    grid_points[2] = PROBLEM_SIZE;
    niter = NITER_DEFAULT;
    dt = DT_DEFAULT;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - BT Benchmark\n\n");
    printf(" Size: %4dx%4dx%4d\n", grid_points[0], grid_points[1], grid_points[2]);
    printf(" Iterations: %4d    dt: %10.6f\n", niter, dt);
    printf(" Number of available threads: %5d\n\n", npb_num_threads());

    set_constants();
    timer_clear(T_TOTAL);

    initialize();
    exact_rhs();

    /* one untimed time step touches all code and data, then restart */
    adi();
    initialize();

    timer_clear(T_TOTAL);
    timer_start(T_TOTAL);
    for (step = 1; step <= niter; step++) {
        if (step % 20 == 0 || step == 1)
            printf(" Time step %4d\n", step);
        adi();
    }
    timer_stop(T_TOTAL);
    tmax = timer_read(T_TOTAL);

    verify(niter, &verified);

    n3 = (double)grid_points[0] * grid_points[1] * grid_points[2];
    navg = (grid_points[0] + grid_points[1] + grid_points[2]) / 3.0;
    mflops = 0.0;
    if (tmax > 0.0)
        mflops = 1.0e-6 * (double)niter
               * (3478.8 * n3 - 17655.7 * navg * navg + 28023.7 * navg) / tmax;

    print_results("BT", NPB_CLASS, grid_points[0], grid_points[1], grid_points[2], niter,
                  tmax, mflops, "floating point", verified);
    return verified ? 0 : 1;
}
