/*
 * npb.h - shared support code for the ompcl NAS Parallel Benchmarks
 * (independent OpenMP C implementation written from the NPB 3 specification).
 *
 * Provides the NPB linear congruential generator, wall-clock timers and the
 * NPB-style result report.  Compiles with and without OpenMP.
 */
#ifndef NPB_H
#define NPB_H

#ifdef _OPENMP
#include <omp.h>
#endif

/* NPB linear congruential generator x_{k+1} = a * x_k mod 2^46.
 * randlc returns a uniform number in (0,1) and updates *x. */
double randlc(double *x, double a);
/* Generates n uniforms into y[0..n-1], updating *x. */
void   vranlc(int n, double *x, double a, double y[]);

/* Accumulating wall-clock timers, 0 <= n < 64. */
void   timer_clear(int n);
void   timer_start(int n);
void   timer_stop(int n);
double timer_read(int n);

/* Wall-clock time in seconds. */
double wtime(void);

/* omp_get_max_threads(), or 1 when compiled without OpenMP. */
int    npb_num_threads(void);

/* Prints the NPB-style report.  When n2 == 0 and n3 == 0 the size is the
 * single number n1, otherwise n1 x n2 x n3. */
void   print_results(const char *name, char cls, long n1, long n2, long n3, int niter,
                     double t, double mops, const char *optype, int verified);

/* Class letter as a char, from -DCLASS_<X> (or -DNPB_CLASS='X'). */
#ifndef NPB_CLASS
#  if defined(CLASS_S)
#    define NPB_CLASS 'S'
#  elif defined(CLASS_W)
#    define NPB_CLASS 'W'
#  elif defined(CLASS_A)
#    define NPB_CLASS 'A'
#  elif defined(CLASS_B)
#    define NPB_CLASS 'B'
#  elif defined(CLASS_C)
#    define NPB_CLASS 'C'
#  else
#    error "define one of CLASS_S, CLASS_W, CLASS_A, CLASS_B, CLASS_C"
#  endif
#endif

/* Test hook: compiling with -DNPB_FORCE_FAIL perturbs every verification
 * reference value, so a correct run must report UNSUCCESSFUL. */
#ifdef NPB_FORCE_FAIL
#  define NPB_REF(x)     ((x) * 1.001 + 1.0)
#  define NPB_REF_INT(x) ((x) + 1)
#else
#  define NPB_REF(x)     (x)
#  define NPB_REF_INT(x) (x)
#endif

#endif /* NPB_H */
