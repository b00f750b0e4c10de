/* NPB LU rhs.c: private(flux) of a file-scope array on a region with two work-sharing loops (issue 34). */
#include <stdio.h>
#define N 64
#define M 2000
double flux[N + 2];
double a[M][N], out[M][N], b[M][N];
int timeron = 0;
static void step(void) {
  int k, i;
  #pragma omp parallel default(shared) private(k, i, flux)
  {
    #pragma omp for schedule(static)
    for (k = 0; k < M; k++)
      for (i = 0; i < N; i++) b[k][i] = a[k][i] * 0.5;
    #pragma omp master
    if (timeron) printf("x\n");
    #pragma omp for schedule(static) nowait
    for (k = 0; k < M; k++) {
      for (i = 0; i < N + 2; i++) flux[i] = b[k][i % N] * (i + 1);
      for (i = 1; i < N - 1; i++) out[k][i] += flux[i + 1] - flux[i - 1];
    }
  }
}
int main(void) {
  int k, i, t; double s = 0;
  for (k = 0; k < M; k++) for (i = 0; i < N; i++) { a[k][i] = (k * 7 + i * 3) % 11; out[k][i] = 0; }
  for (t = 0; t < 50; t++) step();
  for (k = 0; k < M; k++) for (i = 0; i < N; i++) s += out[k][i] * (k + 1);
  printf("%.6f\n", s);
  return 0;
}
