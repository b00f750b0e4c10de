/*
 * timers.c - wall-clock timers for the NPB kernels.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "npb.h"

#define NPB_MAX_TIMERS 64

static double elapsed[NPB_MAX_TIMERS];
static double start[NPB_MAX_TIMERS];

double wtime(void)
{
#ifdef _OPENMP
    return omp_get_wtime();
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1.0e-9 * (double)ts.tv_nsec;
#endif
}

void timer_clear(int n)
{
    if (n >= 0 && n < NPB_MAX_TIMERS)
        elapsed[n] = 0.0;
}

void timer_start(int n)
{
    if (n >= 0 && n < NPB_MAX_TIMERS)
        start[n] = wtime();
}

void timer_stop(int n)
{
    if (n >= 0 && n < NPB_MAX_TIMERS)
        elapsed[n] += wtime() - start[n];
}

double timer_read(int n)
{
    if (n >= 0 && n < NPB_MAX_TIMERS)
        return elapsed[n];
    return 0.0;
}

int npb_num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
