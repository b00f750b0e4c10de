/* The Parallel Research Kernels' check: the region asks its team size and compares it with
 * the threads asked for (a team of one would answer 1). */
#include <stdio.h>
#include <omp.h>
#define N 200000
static double a[N], b[N];
int main(void)
{
  int i, want = omp_get_max_threads(), got = 0;
  for (i = 0; i < N; i++)
    b[i] = i * 0.5;
#pragma omp parallel private(i)
  {
#pragma omp master
    got = omp_get_num_threads();
#pragma omp for
    for (i = 0; i < N; i++)
      a[i] = b[i] * 2.0 + 1.0;
  }
  if (got != want) {
    printf("ERROR: number of requested threads %d does not equal number of spawned threads %d\n",
           want, got);
    return 1;
  }
  printf("%d %f\n", got, a[N - 1]);
  return 0;
}
