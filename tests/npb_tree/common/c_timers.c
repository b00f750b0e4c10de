/* Wall-clock timers, as NPB's c_timers.c. */
#include <time.h>
#include "npb-C.h"

static double start[8], elapsed[8];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void timer_clear(int n) { elapsed[n] = 0.0; }
void timer_start(int n) { start[n] = now(); }
void timer_stop(int n) { elapsed[n] += now() - start[n]; }
double timer_read(int n) { return elapsed[n]; }
