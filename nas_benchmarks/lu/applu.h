/*
 * applu.h - global data and routines of the NPB LU benchmark (ompcl
 * OpenMP C implementation written from the NPB 3 specification).
 *
 * Grid layout (NPB): u[k][j][i][m] with 0 <= i < nx, 0 <= j < ny,
 * 0 <= k < nz and the 5 conserved variables m innermost.  The two inner
 * grid dimensions are padded to an odd extent (ISIZ/2*2+1), as in NPB.
 * Planes i = 0, nx-1, j = 0, ny-1, k = 0, nz-1 hold the boundary values.
 *
 * 5x5 Jacobian blocks are stored row-major: X[m][n] is the derivative of
 * equation m with respect to variable n.
 */
#ifndef APPLU_H
#define APPLU_H

#include "../common/npb.h"
#include "params.h"

/* padded inner extents of the grid arrays */
#define ISIZ1P (ISIZ1 / 2 * 2 + 1)
#define ISIZ2P (ISIZ2 / 2 * 2 + 1)
/* largest grid dimension (extent of the line buffers of rhs/erhs) */
#define ISIZMAX (ISIZ1 > ISIZ2 ? (ISIZ1 > ISIZ3 ? ISIZ1 : ISIZ3) \
                               : (ISIZ2 > ISIZ3 ? ISIZ2 : ISIZ3))

/* physical constants of the Navier-Stokes model */
#define C1 1.40e+00
#define C2 0.40e+00
#define C3 1.00e-01
#define C4 1.00e+00
#define C5 1.40e+00

/* ------------------------------------------------------------------ */
/* grid size and loop bounds (domain(), lu.c)                          */
/* ------------------------------------------------------------------ */
extern int nx0, ny0, nz0;      /* global grid size                       */
extern int nx, ny, nz;         /* local grid size (= global here)        */
extern int ist, iend;          /* interior i range: ist <= i < iend      */
extern int jst, jend;          /* interior j range: jst <= j < jend      */
extern int ii1, ii2;           /* pintgr ranges (NPB conventions)        */
extern int ji1, ji2;
extern int ki1, ki2;

/* ------------------------------------------------------------------ */
/* coefficients (setcoeff.c)                                           */
/* ------------------------------------------------------------------ */
extern double dxi, deta, dzeta;
extern double tx1, tx2, tx3;
extern double ty1, ty2, ty3;
extern double tz1, tz2, tz3;
extern double dx1, dx2, dx3, dx4, dx5;
extern double dy1, dy2, dy3, dy4, dy5;
extern double dz1, dz2, dz3, dz4, dz5;
extern double dssp;
/* coefficients of the manufactured exact solution */
extern double ce[5][13];

/* ------------------------------------------------------------------ */
/* run parameters                                                      */
/* ------------------------------------------------------------------ */
extern int itmax, inorm;
extern double dt, omega;
extern double tolrsd[5];

/* ------------------------------------------------------------------ */
/* field arrays                                                        */
/* ------------------------------------------------------------------ */
extern double u[ISIZ3][ISIZ2P][ISIZ1P][5];     /* solution              */
extern double rsd[ISIZ3][ISIZ2P][ISIZ1P][5];   /* residual / correction */
extern double frct[ISIZ3][ISIZ2P][ISIZ1P][5];  /* forcing term          */
extern double rho_i[ISIZ3][ISIZ2P][ISIZ1P];    /* 1 / u[..][0]          */
extern double qs[ISIZ3][ISIZ2P][ISIZ1P];       /* 0.5 |momentum|^2 / rho */

/* ------------------------------------------------------------------ */
/* results                                                             */
/* ------------------------------------------------------------------ */
extern double rsdnm[5], errnm[5], frc;
extern double maxtime;

/* ------------------------------------------------------------------ */
/* routines                                                            */
/* ------------------------------------------------------------------ */
void setcoeff(void);
void setbv(void);
void setiv(void);
void erhs(void);
void rhs(void);
void ssor(int niter);
void l2norm(double v[ISIZ3][ISIZ2P][ISIZ1P][5], double sum[5]);
void error(void);
void pintgr(void);
void verify(const double xcr[5], const double xce[5], double xci, int *verified);

/* point helpers, called inside parallel loops */
void exact(int i, int j, int k, double u000ijk[5]);
void jacld(int i, int j, int k, double a[5][5], double b[5][5],
           double c[5][5], double d[5][5]);
void blts(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5]);
void jacu(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5]);
void buts(int i, int j, int k, double a[5][5], double b[5][5],
          double c[5][5], double d[5][5]);

#endif /* APPLU_H */
