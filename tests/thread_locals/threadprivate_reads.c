#include <stdio.h>
#include <omp.h>
#define N 1000
static long acc;
#pragma omp threadprivate(acc)
static int base[4];
static int tidx;
#pragma omp threadprivate(tidx)
static int a[N], b[N];
static int get_tidx(void) { return tidx; }
int main(void) {
  long total = 0;
  for (int i = 0; i < N; i++) a[i] = i % 10;
#pragma omp parallel for
  for (int i = 0; i < N; i++) acc += a[i];
#pragma omp parallel
  {
#pragma omp critical
    total += acc;
  }
  printf("total=%ld\n", total);
#pragma omp parallel
  tidx = omp_get_thread_num() + 1;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < N; i++) b[i] = get_tidx();
  long s = 0; for (int i = 0; i < N; i++) s = s * 3 + b[i];
  printf("s=%ld\n", s);
  tidx = 7;
#pragma omp parallel copyin(tidx)
  {
#pragma omp for schedule(static)
    for (int i = 0; i < N; i++) b[i] = tidx + (tidx > 0);
  }
  s = 0; for (int i = 0; i < N; i++) s = s * 3 + b[i];
  printf("s2=%ld base=%d\n", s, base[0]);
  return 0;
}
