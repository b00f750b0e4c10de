/* Code chosen by the compiler's predefined macros: a branch on __GNUC__ in the loop's
 * function (kept on the host: ompcl reads the other branch), and branches on the language
 * standard and the optimisation level, which must be read as the build's flags set them. */
#include <stdio.h>
#define N 100
#ifdef __GNUC__
#define SCALE 2.0
#else
#define SCALE 3.0
#endif
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define STD_TERM 1.0
#else
#define STD_TERM 10.0
#endif
#ifdef __OPTIMIZE__
#define OPT_TERM 100.0
#else
#define OPT_TERM 1000.0
#endif
#ifdef __STRICT_ANSI__
#define ANSI_TERM 10000.0
#else
#define ANSI_TERM 100000.0
#endif
static double a[N], b[N];
static void scaled(void)
{
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++)
    a[i] = i * SCALE;
}
static void dialect(void)
{
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++)
    b[i] = i + STD_TERM + OPT_TERM + ANSI_TERM;
}
int main(void)
{
  scaled();
  dialect();
  printf("%g %g\n", a[N - 1], b[N - 1]);
  return 0;
}
