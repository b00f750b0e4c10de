/* A file-scope _Thread_local scratch array (and a __thread counter) written and read by a
 * callee of an offloaded loop: each thread, and each work-item, has its own. The loop
 * also prefetches (a hint, read past the array's end). */
#include <stdio.h>
#define N 2000
static _Thread_local double scratch[3];
static __thread int calls;
static double x[N], y[N];
static double work(double v)
{
  scratch[0] = v * 2.0;
  scratch[1] = v + 1.0;
  scratch[2] = scratch[0] * scratch[1];
  return scratch[2] - scratch[0];
}
int main(void)
{
  int i;
  double s = 0.0;
  for (i = 0; i < N; i++)
    x[i] = i * 0.001;
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    __builtin_prefetch(&x[i + 16], 0, 1);  /* a hint past the end: nothing on the device */
    y[i] = work(x[i]);
  }
  calls = 1;
  for (i = 0; i < N; i++)
    s += y[i];
  printf("%.9f %d\n", s, calls);
  return 0;
}
