/*
 * header.h - SP (NAS Parallel Benchmarks "scalar pentadiagonal"
 * pseudo-application), shared declarations.
 *
 * Independent OpenMP C implementation written from the NPB 3 specification.
 * The global arrays use the NPB layout: the point (i, j, k) of a grid array
 * is a[k][j][i], and the five solution components are the innermost index.
 * Every dimension is a compile-time constant (params.h).
 */
#ifndef SP_HEADER_H
#define SP_HEADER_H

#include "npb.h"
#include "params.h"

/* grid extents; the i and j dimensions are padded to an odd size */
#define IMAX  PROBLEM_SIZE
#define JMAX  PROBLEM_SIZE
#define KMAX  PROBLEM_SIZE
#define IMAXP (IMAX / 2 * 2)
#define JMAXP (JMAX / 2 * 2)

/* maximum of two doubles (both arguments are evaluated twice) */
#define SP_MAX(a, b) ((a) > (b) ? (a) : (b))

/* problem size: grid_points[d] points along dimension d, nd2 = interior */
extern int    grid_points[3];
extern int    nx2, ny2, nz2;
extern double dt;

/* coefficients of the manufactured exact solution */
extern double ce[5][13];

/* constants of the discretisation, set by set_constants() */
extern double bt, dnxm1, dnym1, dnzm1;
extern double c1, c2, c3, c4, c5, c1c2, c1c5, c3c4, c1345, conz1;
extern double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
extern double dx1, dx2, dx3, dx4, dx5, dy1, dy2, dy3, dy4, dy5;
extern double dz1, dz2, dz3, dz4, dz5, dxmax, dymax, dzmax;
extern double dssp, c4dssp, c5dssp, dtdssp;
extern double dttx1, dttx2, dtty1, dtty2, dttz1, dttz2;
extern double c2dttx1, c2dtty1, c2dttz1;
extern double comz1, comz4, comz5, comz6;
extern double c3c4tx3, c3c4ty3, c3c4tz3;
extern double dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1;
extern double dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1;
extern double dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1;
extern double xxcon1, xxcon2, xxcon3, xxcon4, xxcon5;
extern double yycon1, yycon2, yycon3, yycon4, yycon5;
extern double zzcon1, zzcon2, zzcon3, zzcon4, zzcon5;
extern double c2iv, con43, con16;

/* solution, right-hand side (the update), and the exact forcing term */
extern double u      [KMAX][JMAXP + 1][IMAXP + 1][5];
extern double rhs    [KMAX][JMAXP + 1][IMAXP + 1][5];
extern double forcing[KMAX][JMAXP + 1][IMAXP + 1][5];

/* pointwise auxiliaries computed from u by compute_rhs() */
extern double us    [KMAX][JMAXP + 1][IMAXP + 1];
extern double vs    [KMAX][JMAXP + 1][IMAXP + 1];
extern double ws    [KMAX][JMAXP + 1][IMAXP + 1];
extern double qs    [KMAX][JMAXP + 1][IMAXP + 1];
extern double rho_i [KMAX][JMAXP + 1][IMAXP + 1];
extern double speed [KMAX][JMAXP + 1][IMAXP + 1];
extern double square[KMAX][JMAXP + 1][IMAXP + 1];

/* set_constants.c */
void set_constants(void);
/* exact_solution.c: the exact solution at (xi, eta, zeta) */
void exact_solution(double xi, double eta, double zeta, double dtemp[5]);
/* exact_rhs.c */
void exact_rhs(void);
/* initialize.c */
void initialize(void);
/* rhs.c */
void compute_rhs(void);
/* txinvr.c */
void txinvr(void);
/* x_solve.c, y_solve.c, z_solve.c */
void x_solve(void);
void y_solve(void);
void z_solve(void);
/* ninvr.c, pinvr.c, tzetar.c: block-diagonal transforms between the sweeps */
void ninvr(void);
void pinvr(void);
void tzetar(void);
/* add.c */
void add(void);
/* error.c */
void error_norm(double rms[5]);
void rhs_norm(double rms[5]);
/* verify.c */
int  verify(int no_time_steps);

#endif /* SP_HEADER_H */
