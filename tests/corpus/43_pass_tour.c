/* ompcl-expect: device=4 host=0 */
/* One of each kernel pass (pipeline.PASSES, tests/test_passes.py): a device function using a
 * global (device, callargs, rename), a pointer to variable-length rows (linearize), a
 * reduction (reductions), an atomic update of a small array (atomics, privatize) and a
 * transposed copy (tiling, dynreorder). */
#include <stdio.h>
#include <stdlib.h>
#define N 67
int hist[16];
double a[N][N], b[N][N];
double scale = 2.0;

static double twice(double x) { return scale * x; }

static void fill(int n, double (*u)[n]) {
  int i, j;
#pragma omp parallel for private(j)
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      u[i][j] = i - j;
}

int main(void) {
  int i, j;
  double sum = 0.0, (*u)[N] = malloc(sizeof(double[N][N]));
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      a[i][j] = i + j;
  fill(N, u);
#pragma omp parallel for reduction(+:sum)
  for (i = 0; i < N; i++)
    sum += twice(a[i][0]) + u[i][1];
#pragma omp parallel for
  for (i = 0; i < N * N; i++) {
#pragma omp atomic
    hist[i % 16]++;
  }
#pragma omp parallel for collapse(2)
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      b[j][i] = a[i][j];
  printf("%g %d %g\n", sum, hist[3], b[1][2]);
  free(u);
  return 0;
}
