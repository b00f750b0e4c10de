/* Runtime test program: a region whose kernel does not compile (see tests/test_runtime.py).
 *
 * Consumes: nothing.  Produces "45 OK" on stdout after running the loop three times through the
 * host fallback; the runtime is expected to warn once, with the build log and the saved source.
 */
#include "ompcl_rt.h"

#include <stdio.h>

static const char ompcl_src[] =
    "__kernel void ompcl_k0(__global int *ompcl_b0, const long ompcl_o0, long ompcl_lo0, long ompcl_hi0,\n"
    "    long ompcl_lb0, long ompcl_st0, long ompcl_n0, __global int *ompcl_err) {\n"
    "  ompcl_b0[ompcl_o0 + get_global_id(0)] = ompcl_undeclared;\n"
    "}\n";
static ompcl_program ompcl_prog = {.source = ompcl_src, .file = "rt_bad_kernel.c"};
static ompcl_region ompcl_r0 = {.prog = &ompcl_prog, .file = "rt_bad_kernel.c", .line = 9,
                                .kernel = "ompcl_k0"};

/* for (i = 0; i < n; i++) a[i] += i; */
static void ompcl_region_0(int *a, int n) {
  long ompcl_lb[3] = {0, 0, 0}, ompcl_st[3] = {1, 1, 1}, ompcl_n[3] = {1, 1, 1};
  int ompcl_done = 0;
  ompcl_launch ompcl_L;
  ompcl_n[0] = ompcl_trip(ompcl_lb[0], (long)n, ompcl_st[0], 0);
  if (ompcl_rt_begin(&ompcl_r0, &ompcl_L, ompcl_n[0] * ompcl_n[1] * ompcl_n[2])) {
    ompcl_rt_arg_array(&ompcl_L, (void *)a, 0, n - 1, sizeof(int), OMPCL_READWRITE);
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_lb[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_st[0], sizeof(long));
    ompcl_rt_arg_scalar(&ompcl_L, &ompcl_n[0], sizeof(long));
    if (ompcl_rt_launch(&ompcl_L, 1, ompcl_n)) ompcl_done = 1;
    ompcl_rt_launch_release(&ompcl_L);
  }
  if (!ompcl_done) {
    ompcl_rt_host(&ompcl_r0);
#pragma omp parallel for
    for (int i = 0; i < n; i++) a[i] += i;
  }
  ompcl_rt_end(&ompcl_r0, 0);
}

int main(void) {
  int a[10] = {0}, sum = 0;
  for (int rep = 0; rep < 3; rep++) ompcl_region_0(a, 10);
  for (int i = 0; i < 10; i++) sum += a[i];
  printf("%d %s\n", sum / 3, sum == 135 ? "OK" : "FAILED");
  return sum == 135 ? 0 : 1;
}
