"""Variable-length arrays in a loop body (issue 37; the benchmark game's fannkuch-redux
style): each iteration's scratch ``T a[n]`` runs on the device at a fixed capacity, checked
when the loop starts (``analysis.vla``); a length past the capacity runs the original on the
host. A variable-length table of the function (``long fact[n + 1]``, ``n`` never assigned
again, named by the loop or not) goes to the device whole. And a regression: a variable
declared in a non-canonical inner loop's init
(``for (long i = n - 1, p = k; i > 0; --i)``) is not its initial value throughout the loop
(its extent was one element: wrong data with copying buffers). Run on every path against
gcc's build."""
from __future__ import annotations

from ompcl.analysis.vla import CAPACITY
from ompcl.pipeline import translate

from conftest import build_both, device_runs, every_path, run

PERMS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
int main(int argc, char **argv) {
  const long n = argc > 1 ? atol(argv[1]) : 9, blocks = 240;
  long fact[n + 1], best = 0, sum = 0;
  fact[0] = 1;
  for (long i = 1; i <= n; i++) fact[i] = i * fact[i - 1];
#pragma omp parallel for reduction(max:best) reduction(+:sum)
  for (long b = 0; b < blocks; b++) {
    int8_t perm[n], tmp[n];
    long idx = (b * 7919) % fact[n];
    for (long i = 0; i < n; i++) perm[i] = i;
    for (long i = n - 1, p = idx; i > 0; --i) {
      long d = p / fact[i];
      p = p % fact[i];
      for (long j = 0; j < n; j++) tmp[j] = perm[j];
      for (long j = 0; j <= i; j++) perm[j] = j + d <= i ? tmp[j + d] : tmp[j + d - i - 1];
    }
    long flips = 0;
    while (perm[0] != 0) {
      int8_t f = perm[0];
      for (long j = 0, k = f; j < k; j++, k--) { int8_t t = perm[j]; perm[j] = perm[k]; perm[k] = t; }
      flips++;
    }
    if (flips > best) best = flips;
    sum += flips * (b % 2 ? -1 : 1);
  }
  printf("%ld %ld\n", best, sum);
  return 0;
}
"""

COMMA_INIT = r"""
#include <stdio.h>
int main(void) {
  long n = 20, s = 0, k;
  long t[n + 44];
  for (k = 0; k < n + 44; k++) t[k] = k * k;
#pragma omp parallel for reduction(+:s)
  for (k = 0; k < 100; k++)
    for (long i = n - 1, p = k; i > 0; --i) { s += t[i] + p; p++; }
  printf("%ld\n", s);
  return 0;
}
"""


#: a scratch VLA whose length comes from the command line
LENGTH = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  const int n = atoi(argv[1]);
  double s = 0;
#pragma omp parallel for reduction(+:s)
  for (int b = 0; b < 1000; b++) {
    double w[n];
    for (int i = 0; i < n; i++) w[i] = b + i;
    for (int i = n - 1; i >= 0; i--) s += w[i] * (i % 3);
  }
  printf("%.1f\n", s);
  return 0;
}
"""


def test_scratch_vlas_run_on_the_device_at_a_fixed_capacity(tmp_path):
    ref, exe = build_both(tmp_path, PERMS, "perms.c")
    every_path(ref, exe, 0)
    assert device_runs(exe) in (None, [1])


def test_a_length_past_the_capacity_runs_the_original(tmp_path):
    ref, exe = build_both(tmp_path, LENGTH, "length.c")
    for n, device in (("7", 1), (str(CAPACITY), 1), (str(CAPACITY + 1), 0)):
        assert run(exe, n, OMPCL_DEVICE="opencl").stdout == run(ref, n).stdout
        assert device_runs(exe, n) in (None, [device]), n


def test_a_variable_of_a_loop_init_is_not_its_initial_value_in_the_loop(tmp_path):
    ref, exe = build_both(tmp_path, COMMA_INIT, "comma.c")
    every_path(ref, exe, 0)
    src = tmp_path / "c.c"
    src.write_text(COMMA_INIT)
    (region,) = translate(str(src)).regions
    assert not region.offload or region.arrays[0].extent is None or \
        "n - 1" not in str(region.arrays[0].extent.lo), region.arrays[0].extent


def test_a_table_whose_length_may_change_is_not_taken_whole(tmp_path):
    text = PERMS.replace("const long n = argc > 1 ? atol(argv[1]) : 9, blocks = 240;",
                         "long n = argc > 1 ? atol(argv[1]) : 9, blocks = 240;")
    src = tmp_path / "p.c"
    src.write_text(text)
    assert translate(str(src)).regions[0].offload
    src.write_text(text.replace("fact[0] = 1;", "fact[0] = 1; n += 0;"))
    assert not translate(str(src)).regions[0].offload


#: a table whose length (m) the loop does not name: the region evaluates the extent from m,
#: so m reaches it as an argument (it was left out: the host file did not compile)
UNNAMED_LENGTH = r"""
#include <stdio.h>
#include <stdlib.h>
static double lookup(int m, const int *idx, int n, double *out) {
  double v[m];
  int i;
  for (i = 0; i < m; i++) v[i] = i * 0.5;
#pragma omp parallel for
  for (i = 0; i < n; i++) out[i] = v[idx[i]] + 1.0;
  return out[n - 1];
}
int main(int argc, char **argv) {
  int n = 5000, i;
  int *idx = malloc(n * sizeof(int));
  double *out = malloc(n * sizeof(double)), t = 0;
  for (i = 0; i < n; i++) idx[i] = (i * 13) % 3000;
  t += lookup(3000 + argc, idx, n, out);
  for (i = 0; i < n; i++) t += out[i];
  printf("%.3f\n", t);
  return 0;
}
"""


def test_a_table_whose_length_the_loop_does_not_name(tmp_path):
    ref, exe = build_both(tmp_path, UNNAMED_LENGTH)
    every_path(ref, exe, 1e-12)
    assert device_runs(exe) in (None, [1])
