/* Shared declarations of the test tree (NPB's common/npb-C.h in miniature). */
#ifndef NPB_C_H
#define NPB_C_H
void timer_clear(int n);
void timer_start(int n);
void timer_stop(int n);
double timer_read(int n);
int npb_verification_forced_off(const char *benchmark);
void c_print_results(const char *name, char cls, long n1, int niter, int nthreads, double t,
                     double mops, const char *optype, int passed);
#endif
