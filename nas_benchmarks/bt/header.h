/*
 * header.h - shared declarations of NPB BT (block tridiagonal ADI solver).
 *
 * Grid arrays use the NPB layout: the innermost index is the solution
 * component m = 0..4, then i (xi), j (eta), k (zeta).  The i and j
 * extents are padded to an odd size (IMAXP+1, JMAXP+1) as in NPB.
 * All arrays and constants are defined in bt.c.
 */
#ifndef BT_HEADER_H
#define BT_HEADER_H

#if !defined(_OPENMP) && defined(__GNUC__)
/* the OpenMP directives are meant to be ignored in the sequential build */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#endif

#include "npb.h"
#include "params.h"

#define IMAX   PROBLEM_SIZE
#define JMAX   PROBLEM_SIZE
#define KMAX   PROBLEM_SIZE
#define IMAXP  (IMAX / 2 * 2)
#define JMAXP  (JMAX / 2 * 2)

/* the three 5x5 blocks of a block-tridiagonal row: sub-, main and super-diagonal */
#define AA 0
#define BB 1
#define CC 2

/* problem definition */
extern int    grid_points[3];
extern int    niter;
extern double dt;

/* coefficients of the exact solution (a polynomial in xi, eta, zeta) */
extern double ce[5][13];

/* constants of the discretisation (set_constants) */
extern double dnxm1, dnym1, dnzm1;
extern double tx1, tx2, tx3, ty1, ty2, ty3, tz1, tz2, tz3;
extern double dx1, dx2, dx3, dx4, dx5;
extern double dy1, dy2, dy3, dy4, dy5;
extern double dz1, dz2, dz3, dz4, dz5;
extern double dssp;
extern double c1, c2, c3, c4, c5, c1c2, c1c5, c3c4, c1345, conz1, con43, con16;
extern double dx1tx1, dx2tx1, dx3tx1, dx4tx1, dx5tx1;
extern double dy1ty1, dy2ty1, dy3ty1, dy4ty1, dy5ty1;
extern double dz1tz1, dz2tz1, dz3tz1, dz4tz1, dz5tz1;
extern double xxcon1, xxcon2, xxcon3, xxcon4, xxcon5;
extern double yycon1, yycon2, yycon3, yycon4, yycon5;
extern double zzcon1, zzcon2, zzcon3, zzcon4, zzcon5;

/* solution, right-hand side and exact forcing term: [k][j][i][m] */
extern double u      [KMAX][JMAXP+1][IMAXP+1][5];
extern double rhs    [KMAX][JMAXP+1][IMAXP+1][5];
extern double forcing[KMAX][JMAXP+1][IMAXP+1][5];

/* auxiliary fields of compute_rhs, also read by the line solvers: [k][j][i] */
extern double us     [KMAX][JMAXP+1][IMAXP+1];
extern double vs     [KMAX][JMAXP+1][IMAXP+1];
extern double ws     [KMAX][JMAXP+1][IMAXP+1];
extern double qs     [KMAX][JMAXP+1][IMAXP+1];
extern double rho_i  [KMAX][JMAXP+1][IMAXP+1];
extern double square [KMAX][JMAXP+1][IMAXP+1];

/* bt.c */
void set_constants(void);
void adi(void);
void add(void);

/* initialize.c */
void initialize(void);
void lhsinit(double lhs[PROBLEM_SIZE+1][3][5][5], int size);

/* exact.c */
void exact_solution(double xi, double eta, double zeta, double dtemp[5]);
void exact_rhs(void);

/* rhs.c */
void compute_rhs(void);

/* x_solve.c, y_solve.c, z_solve.c */
void x_solve(void);
void y_solve(void);
void z_solve(void);

/* solve_subs.c: 5x5 block operations of the line solvers */
void matvec_sub(double ablock[5][5], double avec[5], double bvec[5]);
void matmul_sub(double ablock[5][5], double bblock[5][5], double cblock[5][5]);
void binvcrhs(double lhs[5][5], double c[5][5], double r[5]);
void binvrhs(double lhs[5][5], double r[5]);

/* error.c */
void error_norm(double rms[5]);
void rhs_norm(double rms[5]);

/* verify.c */
void verify(int no_time_steps, int *verified);

#endif /* BT_HEADER_H */
