/* a * b - c where c is the rounded product a * b: fused (one rounding) it is the product's
 * rounding error, unfused it is 0. The device must fuse where the host compile does (an FMA
 * target in GNU C) and not otherwise (-std=c99, -ffp-contract=off, no FMA in the target). */
#include <stdio.h>
#define N 777
static double a[N], b[N], p[N], err[N];
int main(void)
{
  int i, fused = 0;
  double total = 0.0;
  for (i = 0; i < N; i++) {
    a[i] = 1.0 + i / 3000.0;
    b[i] = 3.0 - i / 7000.0;
    p[i] = a[i] * b[i];
  }
#pragma omp parallel for
  for (i = 0; i < N; i++)
    err[i] = a[i] * b[i] - p[i];
  for (i = 0; i < N; i++) {
    fused += err[i] != 0.0;
    total += err[i] * 1e16;
  }
  printf("%d %.17g\n", fused, total);
  return 0;
}
