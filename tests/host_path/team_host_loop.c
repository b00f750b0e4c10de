/* A team whose first loop stays on the host (it may call fputs, which the device lacks) beside an
 * offloaded loop, reducing into locals of the function (gcc rejected the team of one's
 * orphaned copy of it); its sum of one huge and many small terms rounds differently with
 * one thread than with two, so the output shows how many threads ran it. */
#include <stdio.h>
#include <math.h>
#define H 300
#define W 200
static double pa[H * W], pb[H * W];
static double rowavg(const double *p, int w)
{
  double s = 0;
  int j;
  for (j = 0; j < w; j++)
    s += p[j];
  return s / w;
}
int main(void)
{
  int h = H, w = W, i, j, t;
  double alpha = 0.25, r1 = 0.0;
  for (i = 0; i < h * w; i++) {
    pb[i] = (i % 17) * 0.5;
    pa[i] = 0;
  }
  for (t = 0; t < 3; t++) {
    double r0 = 0.0, big = 0.0;
#pragma omp parallel firstprivate(alpha) shared(pa, pb, r0, big)
    {
#pragma omp for reduction(max:r0) reduction(+:big) private(j) schedule(static)
      for (i = 0; i < h; i++) {
        for (j = 0; j < w - 1; j++) {
          pa[i * w + j] = (1.0 - alpha) * rowavg(pb + i * w, w);
          r0 = fmax(r0, pa[i * w + j]);
        }
        big += i == 0 ? 1e16 : 1.0;
        if (i == h)
          fputs("never\n", stderr);
      }
#pragma omp barrier
#pragma omp for reduction(+:r1) private(j)
      for (i = 0; i < h; i++)
        for (j = 0; j < w; j++)
          r1 += pa[i * w + j] * 0.5 + pb[i * w + j];
    }
    printf("%.6f %.6f %.1f\n", r0, r1, big);
  }
  return 0;
}
