"""GNU C's bit counts (``__builtin_popcount``, ``clz``, ``ctz`` of int, long and long long)
and ``__builtin_expect`` in kernels: an int result as C's (a difference below zero stays
negative), executed on the device in both buffer modes against gcc -fopenmp."""
from __future__ import annotations

from conftest import same_output_on_device

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
int main(void)
{
    int n = 100000, i;
    uint64_t *w = malloc(n * sizeof(uint64_t));
    int *c = malloc(n * sizeof(int));
    long s = 0;
    for (i = 0; i < n; i++)
        w[i] = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        uint64_t x = w[i] | 1u << (i % 7);
        unsigned u = (unsigned)(x >> (i % 29)) | 2u;
        if (__builtin_expect(x != 0, 1))
            c[i] = __builtin_popcountll(x) + 3 * __builtin_ctzll(x) + 5 * __builtin_clzll(x)
                   + 7 * __builtin_popcount(u) + 11 * __builtin_ctz(u) + 13 * __builtin_clz(u)
                   + 17 * __builtin_popcountl((unsigned long)x) + (__builtin_clz(u) - 40 < 0);
        else
            c[i] = -1;
    }
    for (i = 0; i < n; i++)
        s += (long)c[i] * (i % 13 + 1);
    printf("%ld\n", s);
    return 0;
}
"""


def test_bit_counts_on_the_device(tmp_path):
    src = tmp_path / "bits.c"
    src.write_text(PROGRAM)
    same_output_on_device(src, tmp_path, 0.0,
                          ran=lambda regions: regions[0]["kernels_launched"] >= 1)
