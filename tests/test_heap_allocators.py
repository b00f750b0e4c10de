"""Heap blocks from every common allocator: a loop over a block that ``memalign``, ``valloc``,
``pvalloc``, ``reallocarray``, ``strdup`` or ``strndup`` returned, with subscripts no analysis
bounds (an index read from another array, a value computed in the body), runs on the device
with the block as its extent, as one from ``malloc`` does: the runtime sees each through the
linker's ``--wrap`` (``ompcl.runtime.WRAPPED``), in every build mode (``ompcl build``,
``ompcl cc`` linking at once or objects of ``-c``, the documented gcc line). ``realloc`` and
``free`` of such blocks are seen too. Each program runs on every path against the original
built with gcc, and the statistics say the device ran every call of the loop."""
from __future__ import annotations

import os
import re
import subprocess
import sys

from conftest import ROOT, build_both, device_runs, every_path

from ompcl.runtime import LINK_FLAGS, WRAPPED

#: memalign, valloc and pvalloc blocks (pvalloc's rounded up to whole pages), one grown by
#: realloc (moved: the old block is forgotten), each freed and the address space reused
ALIGNED = r"""
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
static void gather(const double *a, const int *idx, int n, double *out) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) out[i] = a[idx[i]] * 2.0 + 1.0;
}
static double sum(const double *out, int n) {
  double t = 0;
  for (int i = 0; i < n; i++) t += out[i];
  return t;
}
int main(void) {
  int n = 6000, m = 5000, i, k, round;
  double *blocks[3], t = 0;
  int *idx = malloc(n * sizeof(int));
  double *out = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) idx[i] = (i * 7 + 3) % m;
  for (round = 0; round < 2; round++) {
    blocks[0] = memalign(64, m * sizeof(double));
    blocks[1] = valloc(m * sizeof(double));
    blocks[2] = pvalloc(m * sizeof(double) - 100);  /* a whole page more than asked */
    for (k = 0; k < 3; k++) {
      for (i = 0; i < m; i++) blocks[k][i] = i * 0.5 + k + round;
      gather(blocks[k], idx, n, out);
      t += sum(out, n);
    }
    blocks[0] = realloc(blocks[0], 2 * m * sizeof(double));
    for (i = m; i < 2 * m; i++) blocks[0][i] = -i;
    for (i = 0; i < n; i++) idx[i] += m / 2;
    gather(blocks[0], idx, n, out);
    t += sum(out, n);
    for (i = 0; i < n; i++) idx[i] -= m / 2;
    for (k = 0; k < 3; k++) free(blocks[k]);
  }
  printf("%.3f\n", t);
  free(idx); free(out);
  return 0;
}
"""

#: reallocarray from nothing, grown (and moved) by reallocarray, and one refused for an
#: overflowing count (null, ENOMEM, the block untouched); the subscript is computed in the body
ARRAYS = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static void scale(float *a, const double *x, int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) {
    int j = (int)(x[i] * 3.0);
    a[j] = a[j] * 0.5f + (float)i;
  }
}
int main(int argc, char **argv) {
  int n = 4000, m = 12000, i;
  double *x = reallocarray(NULL, n, sizeof(double)), t = 0;
  float *a = reallocarray(NULL, m, sizeof(float));
  char *grow = reallocarray(NULL, 100, 1);
  for (i = 0; i < n; i++) x[i] = i;
  for (i = 0; i < m; i++) a[i] = i % 13;
  scale(a, x, n);
  for (i = 0; i < m; i++) t += a[i];
  grow = reallocarray(grow, 1000, 1000);   /* another block: a moves or not, both work */
  a = reallocarray(a, 4 * m, sizeof(float));
  for (i = m; i < 4 * m; i++) a[i] = 1;
  for (i = 0; i < n; i++) x[i] = 3 * i + 1;
  scale(a, x, n);
  for (i = 0; i < 4 * m; i++) t += a[i];
  errno = 0;
  float *none = reallocarray(a, SIZE_MAX / argc, sizeof(float));
  printf("%.3f %s %d %.1f\n", t, none ? "block" : "null", errno == ENOMEM, a[5]);
  free(a); free(x); free(grow);
  return 0;
}
"""

#: strings copied by strdup and strndup, long (the table of blocks) and short (the ring of
#: small blocks), one grown by realloc, read at positions from an index array
STRINGS = r"""
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void pick(const char *s, const int *pos, int n, int *out) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) out[i] = s[pos[i]] * 3 + i;
}
int main(void) {
  int n = 5000, m = 3000, i, k;
  long t = 0;
  char *text = malloc(m + 1), *s[4];
  int *pos = malloc(n * sizeof(int)), *out = malloc(n * sizeof(int));
  for (i = 0; i < m; i++) text[i] = 'a' + (i * 7) % 26;
  text[m] = 0;
  s[0] = strdup(text);
  s[1] = strndup(text + 11, 2500);
  s[2] = strdup("a short string of forty characters, or so");
  s[3] = strndup(text, 37);
  for (k = 0; k < 4; k++) {
    int len = (int)strlen(s[k]);
    for (i = 0; i < n; i++) pos[i] = (i * 13 + k) % len;
    pick(s[k], pos, n, out);
    for (i = 0; i < n; i++) t += out[i] * (k + 1);
  }
  s[0] = realloc(s[0], 2 * m);
  memset(s[0] + m, 'z', m);
  for (i = 0; i < n; i++) pos[i] = m + (i * 5) % m;
  pick(s[0], pos, n, out);
  for (i = 0; i < n; i++) t += out[i];
  printf("%ld\n", t);
  for (k = 0; k < 4; k++) free(s[k]);
  free(text); free(pos); free(out);
  return 0;
}
"""


def _on_device(exe, calls: list[int]) -> None:
    """Forced to the device, every call of each region ran there (none declined for want of
    its block); nothing to check where no OpenCL device exists."""
    runs = device_runs(exe)
    assert runs is None or runs == calls, runs


def test_memalign_valloc_pvalloc_blocks_reach_the_device(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, ALIGNED)
    every_path(ref, exe, 1e-12)
    _on_device(exe, [8])


def test_reallocarray_blocks_reach_the_device(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, ARRAYS)
    refs = every_path(ref, exe, 1e-6)
    assert " null 1 " in refs["2"], refs   # the overflowing count refused, as glibc does
    _on_device(exe, [2])


def test_strdup_strndup_copies_reach_the_device(tmp_path, opencl_available):
    ref, exe = build_both(tmp_path, STRINGS)
    every_path(ref, exe, 0)
    _on_device(exe, [5])


def test_ompcl_cc_links_the_same_wrappers(tmp_path, opencl_available):
    """``ompcl cc`` linking at once, and objects of ``ompcl cc -c`` linked by ``ompcl cc``."""
    src = tmp_path / "p.c"
    src.write_text(ALIGNED)
    cc = [sys.executable, "-m", "ompcl", "cc", "-fopenmp", "-O2"]
    env = {**os.environ, "OMPCL_STRICT": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    steps = ([[*cc, str(src), "-o", str(tmp_path / "once")]],
             [[*cc, "-c", str(src), "-o", str(tmp_path / "p.o")],
              [*cc, str(tmp_path / "p.o"), "-o", str(tmp_path / "twice")]])
    for build in steps:
        for cmd in build:
            res = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env)
            assert res.returncode == 0, res.stderr
    for exe in ("once", "twice"):
        _on_device(tmp_path / exe, [8])


def test_the_documented_link_line_wraps_every_allocator():
    """docs/runtime.md's gcc line for a translation built by hand: the flags ompcl links with."""
    doc = (ROOT / "docs" / "runtime.md").read_text()
    line = re.search(r"-ldl\s+(-Wl,[^`]*)`", doc)
    assert line, "docs/runtime.md lost its gcc line"
    assert re.sub(r"\s+", "", line.group(1)) == LINK_FLAGS[1]
    assert {"memalign", "valloc", "pvalloc", "reallocarray", "strdup", "strndup"} <= set(WRAPPED)
