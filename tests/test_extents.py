"""Never wrong on real code (issue 15): extents of heap arrays from loop-body variables, the
device bounds checker, and guarded accesses that must not map memory outside the object.

Each program is built with gcc -fopenmp and through ompcl and run on the device with copying
buffers (where a wrong extent changes the answer) and zero-copy buffers, with the bounds
checker on, and under AddressSanitizer.
"""
from __future__ import annotations

import pytest

from ompcl.fuzz.oracle import SAN_ENV
from ompcl.pipeline import translate

from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run

SAN = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"

PROGRAMS = {
    # the reported program: a body-local j shadows an unrelated outer j
    "shadowing": """#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 1000, i; int j = 0;
  double *a = malloc(sizeof(double) * n * 4);
  for (i = 0; i < n * 4; i++) a[i] = 0;
#pragma omp parallel for
  for (i = 0; i < n; i++) { int j = 3; a[i * 4 + j] = i * 0.5; }
  double s = 0; for (i = 0; i < n * 4; i++) s += a[i];
  printf("%.1f %d\\n", s, j);
  free(a);
  return 0;
}
""",
    # the same without an outer j: the host file once named a variable out of its scope
    "body_local_only": """#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 1000, i;
  double *a = calloc(n * 4, sizeof(double));
#pragma omp parallel for
  for (i = 0; i < n; i++) { int j = 3; a[i * 4 + j] = i * 0.5; }
  double s = 0; for (i = 0; i < n * 4; i++) s += a[i] * (i % 3);
  printf("%.1f\\n", s);
  free(a);
  return 0;
}
""",
    # an image filter's private flat index (was refused as 'not affine')
    "private_index": """#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int nr = 50, nc = 40, i, j, k;
  float *p = malloc(sizeof(float) * nr * nc);
#pragma omp parallel for private(j, k)
  for (i = 0; i < nc; i++)
    for (j = 0; j < nr; j++) { k = i + nc * j; p[k] = i * 2 + j; }
  double s = 0; for (i = 0; i < nr * nc; i++) s += p[i] * (i % 5);
  printf("%.1f\\n", s);
  free(p);
  return 0;
}
""",
    # a guarded neighbour: the mapped range of a must start at a[0], not a[-1]
    "guarded": """#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 1000, i;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  for (i = 0; i < n; i++) { a[i] = i; b[i] = 0; }
#pragma omp parallel for
  for (i = 0; i < n; i++) { if (i > 0) b[i] = a[i - 1]; }
  double s = 0; for (i = 0; i < n; i++) s += b[i] * (i % 7 + 1);
  printf("%.1f\\n", s);
  free(a); free(b);
  return 0;
}
""",
}


def _build(tmp_path, name: str, *args: str):
    src = tmp_path / f"{name}.c"
    src.write_text(PROGRAMS[name])
    ref = tmp_path / f"{name}.ref"
    gcc_build(src, ref)
    exe = tmp_path / f"{name}.{'san' if args else 'x'}"
    res = ompcl_build([src], exe, *args)
    assert res.returncode == 0, res.stderr
    return src, run(ref).stdout, exe


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_offloaded_with_exact_answer_in_both_buffer_modes(name, tmp_path, opencl_available):
    src, expected, exe = _build(tmp_path, name)
    assert len(translate(str(src)).offloaded) == 1
    if not opencl_available:
        pytest.skip("no OpenCL device")
    for zero_copy in ("0", "1"):
        stats = tmp_path / f"s{zero_copy}.json"
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy, OMPCL_BOUNDS_CHECK="1",
                  OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, 0)
        (region,) = load_stats(stats)["regions"]
        assert region["device_runs"] == 1 and region["fallback"] is None, region


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_clean_under_address_sanitizer_with_copying_buffers(name, tmp_path, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    _, expected, exe = _build(tmp_path, name, "--cflags", SAN, "--ldflags",
                              "-fsanitize=address,undefined")
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0", **SAN_ENV)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "AddressSanitizer" not in out.stderr and "runtime error" not in out.stderr
    compare_outputs(expected, out.stdout, 0)


def test_guard_bounds_the_mapped_range(tmp_path):
    src = tmp_path / "guarded.c"
    src.write_text(PROGRAMS["guarded"])
    (r,) = translate(str(src)).regions
    from ompcl.codegen import names
    a = next(x for x in r.arrays if x.name == "a")
    lo, _ = names.extent(a.extent, ())
    assert lo.startswith("ompcl_lmax(") and "(long)(1)" in lo, lo  # max(first i, 1) - 1


def test_bounds_checker_reports_a_wrong_extent(tmp_path, opencl_available):
    """The test hook narrows every mapped range by one element: the checker must stop the
    program at the first access past it, naming kernel, array, element and source line."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    src, _, exe = _build(tmp_path, "guarded")
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_BOUNDS_CHECK="1", OMPCL_FAULT="extent")
    assert out.returncode == 70, out.stderr
    line = [x for x in out.stderr.splitlines() if "out-of-bounds" in x]
    assert line and line[0].startswith("ompcl: error: out-of-bounds access in kernel 'ompcl_k0' ")
    assert f"{src}:8:" in line[0] and "array '" in line[0] and "outside the mapped range" in line[0]
    # without the checker the same run is still correct (the hook only narrows the check)
    assert run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT="extent").returncode == 0
