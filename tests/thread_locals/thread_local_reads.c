/* Each thread's own copy of a _Thread_local (GNU __thread) variable, read in a parallel
   loop: the device would read the team thread's copy for every iteration (it printed
   00000000 where gcc's build prints 00001111 at 2 threads). */
#include <stdio.h>
#include <omp.h>
#define N 4096
static _Thread_local int tl;
static __thread int tg = 3;
static int b[N];
static int of_thread(void) { return tg; }
int main(void) {
  long s = 0;
  int i;
#pragma omp parallel
  {
    tl = omp_get_thread_num();
    tg = 10 * omp_get_thread_num() + 3;
  }
#pragma omp parallel for schedule(static)
  for (i = 0; i < N; i++) b[i] = tl;
  for (i = 0; i < N; i++) s = s * 3 + b[i];
  printf("%ld\n", s);
#pragma omp parallel for schedule(static)
  for (i = 0; i < N; i++) b[i] = of_thread() + i;
  for (i = 0; i < N; i++) s = s * 3 + b[i];
  printf("%ld\n", s);
  return 0;
}
