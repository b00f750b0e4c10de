"""Links and dialects as real builds write them (found by a scout of build systems), each
built by gcc and by ``ompcl cc`` and run: a ``-x c`` before the last input of a link (the
runtime archive after it was compiled as C), a relocatable link (``-r``: the allocator was
wrapped twice and ``__wrap_malloc`` called itself), a static program (it crashed loading
OpenCL: it now runs every loop on the host), and ISO C89's ``//`` (``12 //* c */ 4``
divides there and is a comment in the C99 a translated file is compiled as: such a file is
built as it is; GNU's C89 has ``//`` comments)."""
from __future__ import annotations

import subprocess

import pytest

from conftest import run
from test_cc import ompcl_cc

WORK = r"""
#include <stdlib.h>
double work(int n) {
  double *a = malloc(n * sizeof *a), s = 0;
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) a[i] = i * 0.5;
  for (i = 0; i < n; i++) s += a[i];
  free(a);
  return s;
}
"""
MAIN = "#include <stdio.h>\ndouble work(int n);\n" \
       "int main(void) { printf(\"%.1f\\n\", work(100000)); return 0; }\n"
C89 = r"""
#include <stdio.h>
int main(void) {
  int i, a[64], s = 0;
#pragma omp parallel for
  for (i = 0; i < 64; i++) {
    a[i] = 12 //* divides in C89, a comment in C99 */ 4
      ;
  }
  for (i = 0; i < 64; i++) s += a[i];
  printf("%d\n", s);
  return 0;
}
"""


def _both(tmp_path, *steps: list[str]) -> tuple[str, str]:
    """Run each step's arguments with gcc (outputs prefixed g_) and with ompcl cc (o_)."""
    for cc in ("g", "o"):
        for step in steps:
            args = [a.replace("@", f"{cc}_") for a in step]
            if cc == "g":
                subprocess.run(["gcc", *args], cwd=tmp_path, check=True, capture_output=True)
            else:
                res = ompcl_cc(tmp_path, *args)
                assert res.returncode == 0, res.stderr
    return run(tmp_path / "g_app").stdout, run(tmp_path / "o_app").stdout


def test_a_link_after_x_c(tmp_path):
    (tmp_path / "work.inc").write_text(WORK + MAIN)
    want, got = _both(tmp_path, ["-O2", "-fopenmp", "-x", "c", "work.inc", "-o", "@app"])
    assert got == want and want.strip() == "2499975000.0"


def test_a_relocatable_link_then_the_program(tmp_path):
    (tmp_path / "lib.c").write_text(WORK)
    (tmp_path / "main.c").write_text(MAIN)
    want, got = _both(tmp_path, ["-O2", "-fopenmp", "-c", "lib.c", "-o", "@lib.o"],
                      ["-O2", "-fopenmp", "-c", "main.c", "-o", "@main.o"],
                      ["-fopenmp", "-r", "@lib.o", "-o", "@part.o"],
                      ["-fopenmp", "@part.o", "@main.o", "-o", "@app"])
    assert got == want


def test_a_static_program_runs_on_the_host(tmp_path):
    (tmp_path / "p.c").write_text(WORK + MAIN)
    probe = subprocess.run(["gcc", "-fopenmp", "-static", "p.c", "-o", "probe"], cwd=tmp_path,
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("no static C and OpenMP libraries")
    want, got = _both(tmp_path, ["-O2", "-fopenmp", "-static", "p.c", "-o", "@app"])
    assert got == want
    assert run(tmp_path / "o_app", OMPCL_DEVICE="opencl").stdout == want


@pytest.mark.parametrize("std", ["-std=c89", "-ansi", "-std=gnu89"])
def test_c89_slashes_keep_their_meaning(std, tmp_path):
    (tmp_path / "c89.c").write_text(C89)
    want, got = _both(tmp_path, [std, "-fopenmp", "c89.c", "-o", "@app"])
    assert got == want and want.strip() == ("768" if "gnu" in std else "192")
