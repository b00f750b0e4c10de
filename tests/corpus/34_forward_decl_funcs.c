/* ompcl-expect: device=2 host=0 */
/* Device functions calling functions defined later (prototypes), array parameters
   'double a[][N]', a const coefficient table, a size_t bound and schedule/if clauses. */
#include <stdio.h>
#define N 513
static double g(double x);
static double f(double x) { return g(x) * 2.0; }
static double g(double x) { return x + 1.0; }
static const double w[5] = {0.1, 0.2, 0.4, 0.2, 0.1};
static void smooth(int n, double out[][N], double in[][N]) {
  int i, j, k;
#pragma omp parallel for private(j, k) schedule(static, 1) if(n > 0)
  for (i = 2; i < n - 2; i++)
    for (j = 0; j < N; j++) {
      double s = 0;
      for (k = -2; k <= 2; k++) s += w[k + 2] * in[i + k][j];
      out[i][j] = f(s);
    }
}
double A[N][N], B[N][N];
int main(void) {
  long i; size_t n = N;
#pragma omp parallel for
  for (i = 0; i < (long)n; i++) for (int j = 0; j < N; j++) A[i][j] = (i * 31 + j) % 7;
  smooth(N, B, A);
  double s = 0; for (i = 0; i < N; i++) s += B[i][i] + B[i][N-1-i];
  printf("%.10e\n", s);
  return 0;
}
