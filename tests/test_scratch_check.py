"""Run-time checks of thread-private scratch arrays (analysis.scratchcheck, codegen.scratchcheck,
the runtime's ompcl_sc_*): when the static proof cannot show that every iteration writes
what it reads of a thread's scratch array, the host replays a slice of the loop (its control
flow and addresses only) before the device runs it. Built and run against the OpenMP
original; the statistics show the check ran, was reused, and declined when it had to."""
from __future__ import annotations

import re

import pytest
from pycparser import c_generator

from ompcl.pipeline import Options, PASSES, Unit, translate

from conftest import gcc_build, load_stats, ompcl_build, run

# FT's shape: rows gathered into a threadprivate scratch, a callee ping-pongs between its two
# halves through pointers and returns the half holding the result; how many elements the
# callee reads comes from a global array, how many the loop gathers from a global scalar
PINGPONG = r"""#include <stdio.h>
#define N 64
#define B 4
static int len_of[2] = {N, N / 2};
static int gathered = N / 2;            /* columns gathered into the scratch rows */
static double scr[2][N * B];
#pragma omp threadprivate(scr)
double a[N][N], out[N][N];

/* three passes ping-ponging between scr[0] and scr[1]: which one holds the result is
   known only when it returns */
static int sweep(int d) {
  const int n = len_of[d];
  int s, src = 0, t;
  for (s = 0; s < 3; s++) {
    const double *x = scr[src];
    double *y = scr[1 - src];
    for (t = 0; t < n * B; t++)
      y[t] = x[t] * 0.5 + x[(t + B) % (n * B)];
    src = 1 - src;
  }
  return src;
}

static void rows(int d) {
  int i, j, b, res;
#pragma omp parallel for private(j, b, res) schedule(static)
  for (i = 0; i < N / B; i++) {
    for (j = 0; j < gathered; j++)
      for (b = 0; b < B; b++)
        scr[0][j * B + b] = a[i * B + b][j] + d;
    res = sweep(d);
    for (j = 0; j < len_of[d]; j++)
      for (b = 0; b < B; b++)
        out[i * B + b][j] = scr[res][j * B + b];
  }
}

static double checksum(void) {
  double s = 0;
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      s += out[i][j] * ((i + 2 * j) % 7);
  return s;
}

int main(void) {
  int i, j, pass;
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      a[i][j] = (i * 31 + j * 17) % 23 * 0.25;
  for (pass = 0; pass < 5; pass++) {
    if (pass == 1) gathered = N;   /* from now on every element read was written */
    rows(pass % 2);
    printf("pass %d: %.6f\n", pass, checksum());
  }
  return 0;
}
"""

DATA_INDEX = r"""#include <stdio.h>
#define M 256
double a[M][8], out[M];
static double w[8];
#pragma omp threadprivate(w)
int main(void) {
  int i, j;
  for (i = 0; i < M; i++) for (j = 0; j < 8; j++) a[i][j] = (i * 7 + j) % 11;
#pragma omp parallel for private(j)
  for (i = 0; i < M; i++) {
    for (j = 0; j < 8; j++) w[j] = a[i][j];
    out[i] = w[(int)w[0] % 8];
  }
  printf("%f\n", out[5]);
  return 0;
}
"""


def _analysed(tmp_path, text: str) -> Unit:
    src = tmp_path / "p.c"
    src.write_text(text)
    u = Unit(str(src), Options())
    for p in PASSES:
        u = p.run(u)
        if p.name == "analyze":
            return u
    raise AssertionError("no analyze pass")


def test_slice_keeps_control_and_addresses_only(tmp_path):
    """The slice of the loop: scratch writes and reads marked, the callee sliced too, the
    arithmetic on values gone, values read from memory recorded."""
    u = _analysed(tmp_path, PINGPONG)
    (region,) = u.regions
    assert region.offload, region.reasons
    check = region.scratch_check
    assert check is not None and check.arrays == (("scr", "double"),)
    gen = c_generator.CGenerator()
    body = gen.visit(check.body)
    funcs = "\n".join(gen.visit(f) for f in check.functions)
    assert "OMPCL_SC_W(scr[0][(j * 4) + b])" in body
    assert "OMPCL_SC_R(scr[res][(j * 4) + b])" in body
    assert "OMPCL_SC_IN(gathered)" in body and "res = ompcl_sc0_sweep_0(d)" in body
    assert "OMPCL_SC_IN(len_of[d])" in funcs
    assert "OMPCL_SC_R(x[t])" in funcs and "OMPCL_SC_W(y[t])" in funcs
    assert "0.5" not in body + funcs  # values are not computed
    assert check.inputs == ("d",) and check.globals_read == ("gathered", "len_of")
    # the loop's own arrays are checked apart from the scratch once, not access by access;
    # then nothing in the slice depends on the loop variable: one iteration stands for all
    assert "a[" not in body and "out[" not in body and check.uniform


def test_no_check_when_an_address_depends_on_data(tmp_path):
    u = _analysed(tmp_path, DATA_INDEX)
    (region,) = u.regions
    assert not region.offload and region.scratch_check is None
    assert "no run-time check: a scratch address depends on values the loop computes" in \
        region.reasons[0].message


@pytest.mark.parametrize("threads", ["1", "2"])
def test_checked_loop_runs_on_the_device_when_the_check_passes(tmp_path, opencl_available,
                                                                threads):
    """Pass 0 reads scratch elements no iteration wrote (only half the columns are gathered):
    the check declines and the original loop runs. Later passes pass the check (one run per
    distinct entry: d = 1, d = 0 with every column gathered), later calls reuse its answer,
    and the device runs the loop; every pass prints what the OpenMP original prints."""
    exe, expected = _built(tmp_path, PINGPONG, threads)
    for r in _device_runs(tmp_path, exe, expected, threads, opencl_available):
        assert (r["device_runs"], r["host_runs"]) == (4, 1)
        assert (r["check_runs"], r["check_hits"], r["check_declines"]) == (3, 2, 1)
    out = run(exe, OMPCL_DEVICE="auto", OMP_NUM_THREADS=threads)
    assert out.stdout == expected


def _built(tmp_path, text: str, threads: str):
    """The program built by ompcl (strict, as the suite runs), and what its gcc -fopenmp
    build prints with ``threads`` threads."""
    src = tmp_path / "p.c"
    src.write_text(text)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    return exe, run(ref, OMP_NUM_THREADS=threads).stdout


def _device_runs(tmp_path, exe, expected: str, threads: str, opencl_available: bool):
    """Runs on the device with copying and with zero-copy buffers, each printing
    ``expected``; yields the one region's statistics of each (where a device exists)."""
    stats = tmp_path / "s.json"
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_STATS=str(stats), OMP_NUM_THREADS=threads)
        assert out.returncode == 0, out.stderr
        assert out.stdout == expected
        if opencl_available:
            (r,) = load_stats(stats)["regions"]
            yield r


VALUE_CALLEE = r"""#include <stdio.h>
#define M 64
static int len[2] = {8, 4};
static double w[8];
#pragma omp threadprivate(w)
double out[M];
static double clip(double x) { if (x > 2.0) return 2.0; return x; }   /* branches on data */
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < M; i++) {
    const int d = i % 2;
    double s = 0.0;
    for (int q = 0; q < len[d]; q++) w[q] = clip(0.25 * (i + q));
    for (int q = 0; q < len[d]; q++) s += w[q];
    out[i] = s;
  }
  printf("%f\n", out[5]);
  return 0;
}
"""


def test_a_callee_computing_values_is_not_followed(tmp_path):
    """A called function that takes no pointer and names no scratch array only computes
    a value: its branches on data do not stop the check, and the slice does not call it."""
    u = _analysed(tmp_path, VALUE_CALLEE)
    (region,) = u.regions
    assert region.offload, region.reasons
    check = region.scratch_check
    assert check is not None and not check.functions and not check.uniform
    assert "clip" not in c_generator.CGenerator().visit(check.body)


def test_no_check_when_a_global_the_slice_reads_may_change(tmp_path):
    """The slice reads len[] as it is at entry; a pointer to it that the loop writes through
    would change what the loop reads, so there is no check."""
    text = VALUE_CALLEE.replace("    const int d = i % 2;\n",
                                "    const int d = i % 2;\n    int *lp = len;\n"
                                "    if (i == M) lp[0] = 1;\n")
    u = _analysed(tmp_path, text)
    (region,) = u.regions
    assert region.scratch_check is None
    assert "the address of 'len' is taken" in " ".join(r.message for r in region.reasons)


# the scratch array is private to the parallel region (declared in it), not threadprivate
REGION_PRIVATE = r"""#include <stdio.h>
#define M 64
static int len[2] = {8, 4};
double out[M];
int main(void) {
  int i;
#pragma omp parallel
  {
    double w[8];
#pragma omp for
    for (i = 0; i < M; i++) {
      const int d = i % 2;
      double s = 0.0;
      for (int q = 0; q < len[d]; q++) w[q] = 0.25 * (i + q);
      for (int q = 0; q < len[d]; q++) s += w[q];
      out[i] = s;
    }
  }
  printf("%f %f\n", out[5], out[6]);
  return 0;
}
"""


# ... threadprivate, but static inside the function that holds the loop
FUNCTION_STATIC = r"""#include <stdio.h>
#define M 64
static int len[2] = {8, 4};
double out[M];
static void work(void) {
  static double w[8];
#pragma omp threadprivate(w)
  int i;
#pragma omp parallel for
  for (i = 0; i < M; i++) {
    const int d = i % 2;
    double s = 0.0;
    for (int q = 0; q < len[d]; q++) w[q] = 0.25 * (i + q);
    for (int q = 0; q < len[d]; q++) s += w[q];
    out[i] = s;
  }
}
int main(void) {
  work();
  printf("%f %f\n", out[5], out[6]);
  return 0;
}
"""


# ... static in main and passed to the callee by rows, which it picks with a ternary (the
# device's pointer locals then point to private memory); main's heap array is accessed too
ROWS_PASSED = r"""#include <stdio.h>
#include <stdlib.h>
#define M 64
static int len[2] = {8, 4};
static int sweep(int d, double *r0, double *r1) {
  const int n = len[d];
  int s, src = 0, t;
  for (s = 0; s < 3; s++) {
    const double *x = src ? r1 : r0;
    double *y = src ? r0 : r1;
    for (t = 0; t < n; t++) y[t] = x[t] * 0.5 + x[(t + 1) % n];
    src = 1 - src;
  }
  return src;
}
int main(void) {
  static double w[2][8];
#pragma omp threadprivate(w)
  double *out = malloc(M * sizeof(double));
  int i;
#pragma omp parallel for
  for (i = 0; i < M; i++) {
    const int d = i % 2;
    double s = 0.0;
    for (int q = 0; q < len[d]; q++) w[0][q] = 0.25 * (i + q);
    const int h = sweep(d, w[0], w[1]);
    for (int q = 0; q < len[d]; q++) s += w[h][q];
    out[i] = s;
  }
  printf("%f %f\n", out[5], out[6]);
  free(out);
  return 0;
}
"""


@pytest.mark.parametrize("threads", ["1", "2"])
@pytest.mark.parametrize("text", [REGION_PRIVATE, FUNCTION_STATIC, ROWS_PASSED],
                         ids=["region-private", "function-static", "rows-passed"])
def test_scratch_the_region_function_cannot_name_is_checked(tmp_path, opencl_available,
                                                              threads, text):
    """A scratch array declared in the parallel region, or static (threadprivate) in the
    loop's function: the check declares its own copy once (the region function cannot name
    the real one) and marks it like a file-scope one; strict build, the device runs the
    loop in both buffer modes, the OpenMP original's output."""
    exe, expected = _built(tmp_path, text, threads)
    for r in _device_runs(tmp_path, exe, expected, threads, opencl_available):
        assert (r["device_runs"], r["check_runs"], r["check_declines"]) == (1, 1, 0)


def test_loops_with_the_same_slices_share_their_functions(tmp_path, opencl_available):
    """FT's three FFT loops call the one callee alike: its slice is compiled once (the
    translated FT held three copies), and every loop's check still runs it."""
    twice = PINGPONG.replace("static double checksum", RENAMED := PINGPONG[
        PINGPONG.index("static void rows"):PINGPONG.index("static double checksum")].replace(
        "rows(", "rows_again(") + "static double checksum").replace(
        "    rows(pass % 2);", "    rows(pass % 2);\n    rows_again(pass % 2);")
    assert "rows_again" in RENAMED
    src = tmp_path / "p.c"
    src.write_text(twice)
    host = translate(str(src), Options()).host_source
    assert len(re.findall(r"^static int ompcl_sc\d+_sweep_\d+\(int d\)$", host, re.M)) == 1
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0 and out.stdout == run(ref).stdout, out.stderr
    if opencl_available:
        regions = load_stats(stats)["regions"]
        assert [r["check_runs"] > 0 for r in regions] == [True, True], regions


def test_only_argument_glue_is_compiled_unoptimised(tmp_path):
    """A region function that only hands arguments to the runtime is marked OMPCL_GLUE (built
    without optimisation: cheaper to compile); one that runs a scratch check, a loop over the
    iterations, is optimised as the user asked."""
    src = tmp_path / "p.c"
    src.write_text(PINGPONG)
    host = translate(str(src)).host_source
    found = {}
    for m in re.finditer(r"(OMPCL_GLUE )?static int (ompcl_region_\d+)\(", host):
        body = host[m.end():host.index("\n}\n", m.end())]
        found[m[2]] = (bool(m[1]), "ompcl_rt_decide(" in body)
    assert (False, True) in found.values(), found        # the checked region: optimised
    assert all(glue != checked for glue, checked in found.values()), found
