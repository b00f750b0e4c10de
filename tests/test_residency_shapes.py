"""Residency on time loops whatever their shape (issue 36): with copying buffers (a discrete
device's transfers), a time loop of two kernels whose host code reads and writes a few
elements moves each array about once each way, whether its bound is a literal, a macro, a
variable, a parameter or a ``while`` condition, and whether the host accesses are written in
the loop, in a helper of the same file, or in a helper of another file; and when the time
loop itself sits in a file without directives that calls the kernels' functions (NPB's
``adi.c``). Each program is built as ``make`` would (``ompcl cc -c`` per file, then a link),
run on the device and compared with the original built by gcc."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import compare_outputs, every_path, load_stats, run

N, STEPS = 1 << 14, 12

HEAD = f"""#include <stdio.h>
#define N {N}
#define STEPS {STEPS}
"""
BOUNDS = {
    "literal": ("", f"for (t = 0; t < {STEPS}; t++) {{", "}"),
    "macro": ("", "for (t = 0; t < STEPS; t++) {", "}"),
    "variable": ("int nsteps = STEPS;", "for (t = 0; t < nsteps; t++) {", "}"),
    "parameter": ("", "for (t = 0; t < steps; t++) {", "}"),
    "while": ("t = 0;", "while (t < STEPS) {", "t++; }"),
}
ACCESS = {
    "inline": "a[0] = a[N - 2]; a[N - 1] = a[1]; trace += b[0] + b[N - 2];",
    "helper": "set_edges(a, N); trace += edge_sum(b, N - 1);",
    "other-file": "set_edges(a, N); trace += edge_sum(b, N - 1);",
}
HELPERS = """double edge_sum(const double *x, int n) { return x[0] + x[n - 1]; }
void set_edges(double *x, int n) { x[0] = x[n - 2]; x[n - 1] = x[1]; }
"""
KERNELS = """
    #pragma omp parallel for
    for (i = 1; i < N - 1; i++) b[i] = 0.5 * (a[i - 1] + a[i + 1]);
    #pragma omp parallel for
    for (i = 1; i < N - 1; i++) a[i] = b[i] + 1e-3;
"""
MAIN = """
int main(void) {
  int i; double s = 0;
  for (i = 0; i < N; i++) { a[i] = (i % 13) * 0.25; b[i] = 0; }
  double r = run(@ARG@);
  for (i = 0; i < N; i++) s += a[i] + 0.5 * b[i];
  printf("%.12e %.12e\\n", s, r);
  return 0;
}
"""


def _program(bound: str, access: str) -> dict[str, str]:
    """The program's files: main.c (and helpers.c)."""
    pre, head, tail = BOUNDS[bound]
    helpers = {"helper": "static " + HELPERS.replace("\nvoid", "\nstatic void"),
               "other-file": "double edge_sum(const double *x, int n);\n"
                             "void set_edges(double *x, int n);\n"}.get(access, "")
    src = HEAD + "static double a[N], b[N];\n" + helpers + f"""
static double run({"int steps" if bound == "parameter" else "void"}) {{
  int t, i; double trace = 0, probe = 0;
  {pre}
  {head}{KERNELS}    {ACCESS[access]}
    if (t % 5 == 4) probe += a[N / 2];
  {tail}
  return trace + probe;
}}
""" + MAIN.replace("@ARG@", "STEPS" if bound == "parameter" else "")
    files = {"main.c": src}
    if access == "other-file":
        files["helpers.c"] = HELPERS
    return files


def _caller_elsewhere() -> dict[str, str]:
    """The time loop in a file without directives; the kernels in functions of another."""
    kern = HEAD + "double a[N], b[N];\n" + f"""
void smooth(void) {{
  int i;{KERNELS}}}
"""
    main = HEAD + """extern double a[N], b[N];
void smooth(void);
static double edge_sum(const double *x, int n) { return x[0] + x[n - 1]; }
static double run(void) {
  int t; double trace = 0;
  for (t = 0; t < STEPS; t++) {
    smooth();
    a[0] = a[N - 2]; a[N - 1] = a[1];
    trace += edge_sum(b, N - 1);
  }
  return trace;
}
""" + MAIN.replace("@ARG@", "")
    return {"kern.c": kern, "main.c": main}


def _ompcl_cc(*args: str, cwd) -> None:
    res = subprocess.run([sys.executable, "-m", "ompcl", "cc", *args], cwd=cwd,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _build_and_check(files: dict[str, str], tmp_path) -> dict:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    srcs = sorted(files)
    subprocess.run(["gcc", "-O2", "-fopenmp", *srcs, "-o", "ref", "-lm"], cwd=tmp_path,
                   check=True, capture_output=True)
    for s in srcs:  # as make builds it: one compile per file, then the link
        _ompcl_cc("-O2", "-fopenmp", "-c", s, "-o", s[:-2] + ".o", cwd=tmp_path)
    _ompcl_cc("-fopenmp", *[s[:-2] + ".o" for s in srcs], "-o", "exe", "-lm", cwd=tmp_path)
    every_path(tmp_path / "ref", tmp_path / "exe", 1e-12)  # the host path, the team of one
    expected = run(tmp_path / "ref").stdout
    stats = tmp_path / "s.json"
    out = run(tmp_path / "exe", OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0",
              OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-12)
    return load_stats(stats)


def _assert_moves_each_array_once(st: dict) -> None:
    if not st["device"]["available"]:
        pytest.skip("no OpenCL device")
    assert all(r["device_runs"] > 0 for r in st["regions"]), st["regions"]
    t = st["totals"]
    data = 2 * N * 8
    assert t["data_bytes"] == data, t
    assert t["bytes_to_device"] <= 1.5 * data, t
    assert t["bytes_to_host"] <= 1.5 * data, t


@pytest.mark.parametrize("access", list(ACCESS))
@pytest.mark.parametrize("bound", list(BOUNDS))
def test_time_loop_moves_each_array_once(bound, access, tmp_path, opencl_available):
    _assert_moves_each_array_once(_build_and_check(_program(bound, access), tmp_path))


def test_time_loop_in_a_file_without_directives(tmp_path, opencl_available):
    """The caller of the kernels' function has no directive: ``ompcl cc`` still instruments
    its host code, so the data stays on the device across the calls."""
    _assert_moves_each_array_once(_build_and_check(_caller_elsewhere(), tmp_path))


FUNCTION_POINTER = HEAD + """static double a[N], b[N];
static void edge(double *x) { x[0] = x[N - 1]; }
int main(void) {
  void (*fix)(double *) = edge;
  int t, i; double s = 0;
  for (i = 0; i < N; i++) { a[i] = i % 5; b[i] = 0; }
  for (t = 0; t < STEPS; t++) {""" + KERNELS + """    fix(a);
  }
  for (i = 0; i < N; i++) s += a[i] + b[i];
  printf("%.12e\\n", s);
  return 0;
}
"""


def test_a_call_through_a_function_pointer_between_kernels(tmp_path, opencl_available):
    """Host code that calls through a pointer touches any memory (it was an internal error of
    the summaries: a call without a name)."""
    st = _build_and_check({"main.c": FUNCTION_POINTER}, tmp_path)
    if st["device"]["available"]:
        assert all(r["device_runs"] == STEPS for r in st["regions"])


GROWING = r"""#include <stdio.h>
#include <stdlib.h>
#define B 16
int main(void) {
  int n = 40 * B, blk, i, j;
  long *m = malloc(sizeof(long) * n * n);
  for (i = 0; i < n * n; i++) m[i] = i % 7;
  /* an anti-diagonal front (Needleman-Wunsch's blocks): each step maps a wider range */
  for (blk = 1; blk <= n / B; blk++) {
#pragma omp parallel for private(i, j)
    for (int bx = 0; bx < blk; bx++) {
      int by = blk - 1 - bx;
      for (i = 0; i < B; i++)
        for (j = 0; j < B; j++)
          m[n * (by * B + i) + bx * B + j] += m[n * (by * B + i) + bx * B + (j + B) % n] % 5 + blk;
    }
  }
  long s = 0;
  for (i = 0; i < n * n; i++) s += m[i] * (i % 13);
  printf("%ld\n", s);
  free(m);
  return 0;
}
"""


def test_a_range_growing_each_step_stays_on_the_device(tmp_path, opencl_available):
    """A region whose mapped range grows at every step (the front of a wave): the mapping is
    widened on the device (its resident part copied there), not read back and sent again
    whole at each step."""
    st = _build_and_check({"main.c": GROWING}, tmp_path)
    if not st["device"]["available"]:
        pytest.skip("no OpenCL device")
    t = st["totals"]
    assert st["regions"][0]["device_runs"] == 40
    assert t["bytes_to_device"] <= 1.5 * t["data_bytes"], t
    assert t["bytes_to_host"] <= 1.5 * t["data_bytes"], t
