/* An offloaded loop writes q; a parallel region kept on the host (it asks for the thread
 * number) calls functions whose orphaned 'omp for' loops read q and write r (NPB LU's ssor
 * calling jacld/blts after rhs's kernels), then an offloaded loop reads r: every thread of
 * the team reads host copies brought up to date, and the device sees the team's writes. */
#include <stdio.h>
#include <omp.h>
#define N 1000
double u[N], q[N], r[N], w[N];
int owner[N];

static void orphan_read(int step) {
  int i;
#pragma omp for
  for (i = 0; i < N; i++) r[i] = q[i] + step;
}

static void orphan_write(void) {
  int i;
#pragma omp for nowait
  for (i = 0; i < N; i++) q[i] += 0.5 * r[i];
}

int main(void) {
  int i, step;
  double s = 0.0;
  for (i = 0; i < N; i++) u[i] = i;
  for (step = 0; step < 3; step++) {
#pragma omp parallel for
    for (i = 0; i < N; i++) q[i] = u[i] * 2.0 + step;
#pragma omp parallel
    {
      int me = omp_get_thread_num();
      orphan_read(step);
#pragma omp for
      for (i = 0; i < N; i++) owner[i] = me >= 0;
      orphan_write();
    }
#pragma omp parallel for
    for (i = 0; i < N; i++) w[i] = q[i] + r[i] * owner[i];
    for (i = 0; i < N; i++) s += w[i] * (i % 5 + 1);
  }
  printf("sum = %.6f\n", s);
  return 0;
}
