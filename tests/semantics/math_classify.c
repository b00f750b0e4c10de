/* C99 classification macros and functions with a second result through a pointer in kernels:
 * signbit and isinf (glibc expands them to __signbit*, __isinf* for a compiler that is not GNU C,
 * as ompcl reads the file) with the host compile's values (an infinity's sign, gcc's INT_MIN for
 * the sign of a float), isfinite, frexp and modf into private locals. */
#include <stdio.h>
#include <math.h>
#define N 1000
double x[N], m[N], f[N]; float xf[N]; int o[N], e[N], of[N];
int main(int argc, char **argv) {
  for (int i = 0; i < N; i++) { x[i] = (i - 500) * 0.75; xf[i] = (float)(i - 501) * 0.5f; }
  x[3] = -INFINITY; x[7] = INFINITY; x[9] = NAN; x[11] = -0.0; xf[5] = -INFINITY;
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    o[i] = signbit(x[i]) + 2 * isinf(1.0 / x[i]) + 4 * isinf(x[i]) + 8 * (isfinite(x[i]) != 0);
    of[i] = signbit(xf[i]) / 65536 + isinf(xf[i]);
  }
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    int ex; double ip;
    m[i] = frexp(x[i], &ex); e[i] = ex;
    f[i] = modf(x[i], &ip) + ip * 0.5;
  }
  long s = 0, t = 0; double d = 0;
  for (int i = 0; i < N; i++) { s += o[i] * (i % 7) + of[i] * (i % 5); t += e[i] * (i % 3);
    if (i != 9 && isfinite(x[i])) d += m[i] + f[i]; }
  printf("%ld %ld %.6f %d %d\n", s, t, d, o[3], of[5]);
  return 0;
}
