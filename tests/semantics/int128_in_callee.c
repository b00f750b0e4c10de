/* A 128-bit product in a callee (the high half of a 64x64 multiply, as hash functions and
 * random generators take it) and in the loop body: the loops stay on the host. */
#include <stdio.h>
#include <stdint.h>
typedef unsigned __int128 wide_t;
#define N 32
static uint64_t hi[N], lo[N];
static uint64_t high_half(uint64_t a, uint64_t b)
{
  wide_t p = (wide_t)a * b;
  return (uint64_t)(p >> 64);
}
int main(void)
{
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    hi[i] = high_half(0xfedcba9876543210ull - (uint64_t)i * 977, 0x9e3779b97f4a7c15ull);
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    unsigned __int128 s = (unsigned __int128)hi[i] * hi[(i + 1) % N];
    lo[i] = (uint64_t)(s >> 61) ^ (uint64_t)s;
  }
  for (int i = 0; i < N; i++)
    printf("%016llx %016llx\n", (unsigned long long)hi[i], (unsigned long long)lo[i]);
  return 0;
}
