/* Runtime test program: hand-written "generated" code for ompcl_rt (see tests/test_runtime.py).
 *
 * Consumes: nothing (sizes are fixed).  Produces on stdout one line per result and "OK" when
 * every result equals a sequential reference; exit status 1 on a mismatch.  Values are small
 * integers held in doubles, so device, OpenMP and sequential sums agree exactly.
 * Regions: r0 1-D read-write + lastprivate (kept resident), r1 reduction through an interior
 * pointer of r0's arrays, r2 2-D 37x41 launch, r3 2-D reduction, r4/r5 partially overlapping
 * ranges (r4 kept resident), r6 an empty loop, r7 an orphaned `omp for` run by every thread of
 * a parallel region (host path only, as generated code does inside a parallel region).  Designated initializers keep -Wextra quiet.
 */
#include "ompcl_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
extern int omp_in_parallel(void);
#define OMPCL_IN_PARALLEL() omp_in_parallel()
#else
#define OMPCL_IN_PARALLEL() 0
#endif

#define N 1000
#define N1 37
#define M 41

static const char ompcl_src[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "#define OMPCL_WG 128\n"
    "#define OMPCL_LID (get_local_id(0) + get_local_size(0) * (get_local_id(1) + "
    "get_local_size(1) * get_local_id(2)))\n"
    "#define OMPCL_WGS (get_local_size(0) * get_local_size(1) * get_local_size(2))\n"
    "#define OMPCL_GID (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + "
    "get_num_groups(1) * get_group_id(2)))\n"
    /* tree reduction over the work-group; needs a power-of-two work-group size */
    "void ompcl_reduce(__local double *buf, double v, __global double *out) {\n"
    "  int lid = OMPCL_LID;\n"
    "  buf[lid] = v;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int h = OMPCL_WGS / 2; h > 0; h >>= 1) {\n"
    "    if (lid < h) buf[lid] += buf[lid + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (lid == 0) out[OMPCL_GID] = buf[0];\n"
    "}\n"
    "__kernel void ompcl_k0(__global double *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0,\n"
    "    __global double *ompcl_b1, const long ompcl_o1, long ompcl_lo1, long ompcl_hi1, const int n,\n"
    "    long ompcl_lb0, long ompcl_st0, long ompcl_n0, __global double *ompcl_r0, __global int *ompcl_err) {\n"
    "  __global double *a = ompcl_b0 + ompcl_o0; __global double *b = ompcl_b1 + ompcl_o1;\n"
    "  for (long ompcl_g0 = get_global_id(0); ompcl_g0 < ompcl_n0;\n"
    "       ompcl_g0 += get_global_size(0)) {\n"
    "    long i = ompcl_lb0 + ompcl_g0 * ompcl_st0;\n"
    "    a[i] = 2 * a[i] + b[i];\n"
    "    if (i == n - 1) ompcl_r0[0] = a[i];\n"
    "  }\n"
    "}\n"
    "__kernel void ompcl_k1(__global double *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0,\n"
    "    __global double *ompcl_b1, const long ompcl_o1, long ompcl_lo1, long ompcl_hi1,\n"
    "    long ompcl_lb0, long ompcl_st0, long ompcl_n0, __global double *ompcl_r0, __global int *ompcl_err) {\n"
    "  __local double buf[OMPCL_WG];\n"
    "  __global double *x = ompcl_b0 + ompcl_o0; __global double *b = ompcl_b1 + ompcl_o1;\n"
    "  double s = 0;\n"
    "  for (long ompcl_g0 = get_global_id(0); ompcl_g0 < ompcl_n0;\n"
    "       ompcl_g0 += get_global_size(0)) {\n"
    "    long i = ompcl_lb0 + ompcl_g0 * ompcl_st0;\n"
    "    s += x[i] * b[i];\n"
    "  }\n"
    "  ompcl_reduce(buf, s, ompcl_r0);\n"
    "}\n"
    "__kernel void ompcl_k2(__global double *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0,\n"
    "    __global double *ompcl_b1, const long ompcl_o1, long ompcl_lo1, long ompcl_hi1,\n"
    "    __global double *ompcl_b2, const long ompcl_o2, long ompcl_lo2, long ompcl_hi2, const int m,\n"
    "    long ompcl_lb0, long ompcl_st0, long ompcl_n0,\n"
    "    long ompcl_lb1, long ompcl_st1, long ompcl_n1, __global int *ompcl_err) {\n"
    "  __global double *c = ompcl_b0 + ompcl_o0; __global double *a = ompcl_b1 + ompcl_o1;\n"
    "  __global double *b = ompcl_b2 + ompcl_o2;\n"
    "  for (long ompcl_g0 = get_global_id(1); ompcl_g0 < ompcl_n0;\n"
    "       ompcl_g0 += get_global_size(1))\n"
    "  for (long ompcl_g1 = get_global_id(0); ompcl_g1 < ompcl_n1;\n"
    "       ompcl_g1 += get_global_size(0)) {\n"
    "    long i = ompcl_lb0 + ompcl_g0 * ompcl_st0, j = ompcl_lb1 + ompcl_g1 * ompcl_st1;\n"
    "    c[i * m + j] = a[i] + b[j] * i;\n"
    "  }\n"
    "}\n"
    "__kernel void ompcl_k3(__global double *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0, const int m,\n"
    "    long ompcl_lb0, long ompcl_st0, long ompcl_n0,\n"
    "    long ompcl_lb1, long ompcl_st1, long ompcl_n1, __global double *ompcl_r0, __global int *ompcl_err) {\n"
    "  __local double buf[OMPCL_WG];\n"
    "  __global double *c = ompcl_b0 + ompcl_o0;\n"
    "  double t = 0;\n"
    "  for (long ompcl_g0 = get_global_id(1); ompcl_g0 < ompcl_n0;\n"
    "       ompcl_g0 += get_global_size(1))\n"
    "  for (long ompcl_g1 = get_global_id(0); ompcl_g1 < ompcl_n1;\n"
    "       ompcl_g1 += get_global_size(0)) {\n"
    "    long i = ompcl_lb0 + ompcl_g0 * ompcl_st0, j = ompcl_lb1 + ompcl_g1 * ompcl_st1;\n"
    "    t += c[i * m + j] * (j % 3);\n"
    "  }\n"
    "  ompcl_reduce(buf, t, ompcl_r0);\n"
    "}\n"
    "__kernel void ompcl_k4(__global double *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0,\n"
    "    const double mul, const double add, long ompcl_lb0, long ompcl_st0, long ompcl_n0, __global int *ompcl_err) {\n"
    "  __global double *d = ompcl_b0 + ompcl_o0;\n"
    "  for (long ompcl_g0 = get_global_id(0); ompcl_g0 < ompcl_n0;\n"
    "       ompcl_g0 += get_global_size(0)) {\n"
    "    long i = ompcl_lb0 + ompcl_g0 * ompcl_st0;\n"
    "    d[i] = d[i] * mul + add;\n"
    "  }\n"
    "}\n";

static ompcl_program ompcl_prog = {.source = ompcl_src, .file = "rt_regions.c"};
static ompcl_region ompcl_r0 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 10, .kernel = "ompcl_k0"};
static ompcl_region ompcl_r1 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 20, .kernel = "ompcl_k1"};
static ompcl_region ompcl_r2 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 30, .kernel = "ompcl_k2"};
static ompcl_region ompcl_r3 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 40, .kernel = "ompcl_k3"};
static ompcl_region ompcl_r4 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 50, .kernel = "ompcl_k4"};
static ompcl_region ompcl_r5 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 60, .kernel = "ompcl_k4"};
static ompcl_region ompcl_r6 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 70, .kernel = "ompcl_k4"};
static ompcl_region ompcl_r7 = {.prog = &ompcl_prog, .file = "rt_regions.c", .line = 80, .kernel = "ompcl_k4"};

/* r0: for (i = 0; i < n; i++) { a[i] = 2*a[i] + b[i]; last = a[i]; }  lastprivate(last) */
static void ompcl_region_0(double *a, double *b, int *ompcl_p_n, double *ompcl_p_last) {
  int n = *ompcl_p_n;
  double last = *ompcl_p_last;
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)n, ompcl_st[0], 0);
  if (ompcl_rt_begin(&ompcl_r0, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)a, 0, n - 1, sizeof(double), OMPCL_READWRITE);
    ompcl_rt_arg_array(&ompcl_L, (void *)b, 0, n - 1, sizeof(double), OMPCL_READ);
    { int v = n; ompcl_rt_arg_scalar(&ompcl_L, &v, sizeof v); }
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[0], sizeof(long));
    ompcl_rt_arg_result(&ompcl_L, sizeof(double), 0);
    if (ompcl_rt_launch(&ompcl_L, 1, ompcl_n)) {
      long c;
      const double *p = ompcl_rt_result(&ompcl_L, 0, &c);
      last = p[0];
      ompcl_done = 1;
    }
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(&ompcl_r0);
#pragma omp parallel for lastprivate(last)
    for (int i = 0; i < n; i++) { a[i] = 2 * a[i] + b[i]; last = a[i]; }
  }
  ompcl_rt_end(&ompcl_r0, 1);
  *ompcl_p_last = last;
}

/* r1: for (i = 0; i < n; i++) s += x[i] * b[i];  reduction(+:s), x points into a */
static void ompcl_region_1(double *x, double *b, int *ompcl_p_n, double *ompcl_p_s) {
  int n = *ompcl_p_n;
  double s = *ompcl_p_s;
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)n, ompcl_st[0], 0);
  if (ompcl_rt_begin(&ompcl_r1, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)x, 0, n - 1, sizeof(double), OMPCL_READ);
    ompcl_rt_arg_array(&ompcl_L, (void *)b, 0, n - 1, sizeof(double), OMPCL_READ);
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[0], sizeof(long));
    ompcl_rt_arg_result(&ompcl_L, sizeof(double), 1);
    if (ompcl_rt_launch(&ompcl_L, 1, ompcl_n)) {
      long c;
      const double *p = ompcl_rt_result(&ompcl_L, 0, &c);
      for (long k = 0; k < c; k++) s = s + p[k];
      ompcl_done = 1;
    }
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(&ompcl_r1);
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++) s += x[i] * b[i];
  }
  ompcl_rt_end(&ompcl_r1, 0);
  *ompcl_p_s = s;
}

/* r2: for (i = 0; i < N1; i++) for (j = 0; j < m; j++) c[i*m+j] = a[i] + b[j]*i;  collapse(2) */
static void ompcl_region_2(double *c, double *a, double *b, int *ompcl_p_m) {
  int m = *ompcl_p_m;
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)N1, ompcl_st[0], 0);
  ompcl_n[1] = ompcl_trip(ompcl_lb[1], (long)m, ompcl_st[1], 0);
  if (ompcl_rt_begin(&ompcl_r2, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)c, 0, (N1 - 1) * m + m - 1, sizeof(double),
                       OMPCL_WRITE);
    ompcl_rt_arg_array(&ompcl_L, (void *)a, 0, N1 - 1, sizeof(double), OMPCL_READ);
    ompcl_rt_arg_array(&ompcl_L, (void *)b, 0, m - 1, sizeof(double), OMPCL_READ);
    { int v = m; ompcl_rt_arg_scalar(&ompcl_L, &v, sizeof v); }
    for (int d = 0; d < 2; d++) {
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[d], sizeof(long));
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[d], sizeof(long));
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[d], sizeof(long));
    }
    if (ompcl_rt_launch(&ompcl_L, 2, ompcl_n)) ompcl_done = 1;
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(&ompcl_r2);
#pragma omp parallel for collapse(2)
    for (int i = 0; i < N1; i++)
      for (int j = 0; j < m; j++) c[i * m + j] = a[i] + b[j] * i;
  }
  ompcl_rt_end(&ompcl_r2, 0);
}

/* r3: for (i..N1) for (j..m) t += c[i*m+j] * (j % 3);  collapse(2) reduction(+:t) */
static void ompcl_region_3(double *c, int *ompcl_p_m, double *ompcl_p_t) {
  int m = *ompcl_p_m;
  double t = *ompcl_p_t;
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)N1, ompcl_st[0], 0);
  ompcl_n[1] = ompcl_trip(ompcl_lb[1], (long)m, ompcl_st[1], 0);
  if (ompcl_rt_begin(&ompcl_r3, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)c, 0, (N1 - 1) * m + m - 1, sizeof(double),
                       OMPCL_READ);
    { int v = m; ompcl_rt_arg_scalar(&ompcl_L, &v, sizeof v); }
    for (int d = 0; d < 2; d++) {
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[d], sizeof(long));
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[d], sizeof(long));
      ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[d], sizeof(long));
    }
    ompcl_rt_arg_result(&ompcl_L, sizeof(double), 1);
    if (ompcl_rt_launch(&ompcl_L, 2, ompcl_n)) {
      long k, cnt;
      const double *p = ompcl_rt_result(&ompcl_L, 0, &cnt);
      for (k = 0; k < cnt; k++) t = t + p[k];
      ompcl_done = 1;
    }
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(&ompcl_r3);
#pragma omp parallel for collapse(2) reduction(+ : t)
    for (int i = 0; i < N1; i++)
      for (int j = 0; j < m; j++) t += c[i * m + j] * (j % 3);
  }
  ompcl_rt_end(&ompcl_r3, 0);
  *ompcl_p_t = t;
}

/* r4, r5, r6: for (i = lo; i < hi; i++) d[i] = d[i]*mul + add; */
static void ompcl_region_scale(ompcl_region *r, double *d, int lo, int hi, double mul,
                               double add, int keep) {
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_lb[0] = lo;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)hi, ompcl_st[0], 0);
  if (!OMPCL_IN_PARALLEL() && ompcl_rt_begin(r, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)d, lo, hi - 1, sizeof(double), OMPCL_READWRITE);
    ompcl_rt_arg_scalar(&ompcl_L, &mul, sizeof mul);
    ompcl_rt_arg_scalar(&ompcl_L, &add, sizeof add);
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[0], sizeof(long));
    if (ompcl_rt_launch(&ompcl_L, 1, ompcl_n)) ompcl_done = 1;
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(r);
    if (OMPCL_IN_PARALLEL()) {
#pragma omp for
      for (int i = lo; i < hi; i++) d[i] = d[i] * mul + add;
    } else {
#pragma omp parallel for
      for (int i = lo; i < hi; i++) d[i] = d[i] * mul + add;
    }
  }
  ompcl_rt_end(r, keep);
}

static void init(double *a, double *b, double *d) {
  for (int i = 0; i < N; i++) {
    a[i] = i % 7;
    b[i] = i % 5;
    d[i] = i % 11;
  }
}

/* The same computation, sequentially and without the runtime. */
static void reference(double *a, double *b, double *c, double *d, double res[3]) {
  init(a, b, d);
  for (int i = 0; i < N; i++) { a[i] = 2 * a[i] + b[i]; res[0] = a[i]; }
  res[1] = 0;
  for (int i = 0; i < N - 8; i++) res[1] += a[i + 8] * b[i];
  for (int i = 0; i < N1; i++)
    for (int j = 0; j < M; j++) c[i * M + j] = a[i] + b[j] * i;
  res[2] = 0;
  for (int i = 0; i < N1; i++)
    for (int j = 0; j < M; j++) res[2] += c[i * M + j] * (j % 3);
  for (int i = 0; i < 50; i++) d[i] = d[i] * 2 + 1;
  for (int i = 25; i < 100; i++) d[i] = d[i] * 3 - 1;
  for (int i = 100; i < 200; i++) d[i] = d[i] * 2 + 2;
}

static int same(const char *what, const double *x, const double *y, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] != y[i]) {
      printf("MISMATCH %s[%d]: %g != %g\n", what, i, x[i], y[i]);
      return 0;
    }
  return 1;
}

/* One pass over every region; 1 when all results match the reference. */
static int run_once(void) {
  static double a[N], b[N], c[N1 * M], d[N], ra[N], rb[N], rc[N1 * M], rd[N];
  double res[3], last = -1, s = 0, t = 0;
  int n = N, nx = N - 8, m = M, ok;
  reference(ra, rb, rc, rd, res);
  init(a, b, d);
  ompcl_region_0(a, b, &n, &last);
  ompcl_region_1(a + 8, b, &nx, &s);
  ompcl_region_2(c, a, b, &m);
  ompcl_region_3(c, &m, &t);
  ompcl_region_scale(&ompcl_r4, d, 0, 50, 2, 1, 1);
  ompcl_region_scale(&ompcl_r5, d, 25, 100, 3, -1, 0);
  ompcl_region_scale(&ompcl_r6, d, 7, 7, 5, 5, 0);
#pragma omp parallel num_threads(4)
  ompcl_region_scale(&ompcl_r7, d, 100, 200, 2, 2, 0);
  printf("last %.1f\ns %.1f\nt %.1f\n", last, s, t);
  ok = same("last", &last, &res[0], 1) & same("s", &s, &res[1], 1) & same("t", &t, &res[2], 1);
  ok &= same("a", a, ra, N) & same("c", c, rc, N1 * M) & same("d", d, rd, N);
  return ok;
}

/* argv[1]: number of passes (default 1), to show that warnings come once per region. */
int main(int argc, char **argv) {
  int passes = argc > 1 ? atoi(argv[1]) : 1, ok = 1;
  for (int p = 0; p < passes; p++) ok &= run_once();
  puts(ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
