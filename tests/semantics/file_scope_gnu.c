/* GNU C at file scope that the parser cannot read (typeof in declarations and typedefs, a
 * range designator, __builtin_types_compatible_p in an initialiser, a function whose
 * declarator uses typeof): the declarations are set aside one by one, the loops that use
 * one stay on the host, the others reach the device. */
#include <stdio.h>
#define N 512
static double base[N];
static typeof(base[0]) shifted[N];
typedef typeof(int) count_t;
static const unsigned char kind[256] = { [0 ... 47] = 1, ['0' ... '9'] = 2, [58 ... 255] = 3 };
static const int same = __builtin_types_compatible_p(int[4], int[4]);
static double out[N], twice_out[N];
static typeof(base[0]) twice(typeof(base[0]) v) { return 2 * v; }
int main(void)
{
  int i;
  long total = 0;
  count_t hits = 0;
#pragma omp parallel for
  for (i = 0; i < N; i++)
    base[i] = i * 0.25 + same;
#pragma omp parallel for
  for (i = 0; i < N; i++)
    out[i] = base[i] * kind[i % 256];
#pragma omp parallel for
  for (i = 0; i < N; i++)
    shifted[i] = base[(i + 1) % N];
#pragma omp parallel for
  for (i = 0; i < N; i++)
    twice_out[i] = twice(base[i]);
  for (i = 0; i < N; i++) {
    total += (long)twice_out[i];
    total += (long)(out[i] * 4 + shifted[i] * 8);
    hits += kind[i % 256] == 2;
  }
  printf("%ld %d\n", total, hits);
  return 0;
}
