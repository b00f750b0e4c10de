/* Every conversion to _Bool in an offloaded loop and its callees: stores of int, float and
 * masked values into bool arrays, typedef-d flags and struct members, compound |= and ^=,
 * initialised locals, casts, a bool-returning callee and a bool parameter. */
#include <stdio.h>
#include <stdbool.h>
#define N 64
typedef _Bool flag_t;
struct cell { int v; bool on; flag_t seen; };
static struct cell cells[N];
static bool mask[N], acc[N];
static flag_t marks[N];
static int out[N];
static bool odd(int i) { return i & 5; }
static int weigh(bool b, int w) { return b * w; }
int main(void)
{
  for (int i = 0; i < N; i++) { cells[i].v = i * 7; acc[i] = i % 3 == 0; }
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    bool b = i & 2;
    _Bool c = 0.25 * i;
    mask[i] = i & 4;
    marks[i] = (flag_t)(i & 8);
    acc[i] |= i & 16;
    acc[i] ^= (i & 32) ? 2 : 0;
    cells[i].on = cells[i].v & 24;
    cells[i].seen = (bool)(i % 5);
    cells[i].seen &= i & 6;
    out[i] = b * 100 + c * 10 + odd(i) + weigh(i & 12, 1000) + (bool)(i * 3) * 10000;
  }
  long s = 0;
  for (int i = 0; i < N; i++)
    s = s * 3 + out[i] + mask[i] * 2 + marks[i] * 5 + acc[i] * 7 + cells[i].on * 11 + cells[i].seen * 13;
  printf("%ld\n", s % 1000000007);
  for (int i = 0; i < N; i++) printf("%d%d%d%d%d ", mask[i], marks[i], acc[i], cells[i].on, cells[i].seen);
  printf("\n");
  return 0;
}
