"""Private copies of small arrays a kernel only updates atomically (transform.privatize,
pass 'privatize'): which arrays qualify (golden checks on the kernel text), and programs built
and run against gcc -fopenmp on the device in both buffer modes, in the GPU shape (direct
atomics) and bounds-checked (direct atomics), with 1 and 2 OpenMP threads."""
from __future__ import annotations

import pytest
from pycparser import c_ast

from ompcl.analysis.ctypes_ import walk
from ompcl.transform.privatize import macro
from ompcl.pipeline import Options, translate

from conftest import gcc_build, load_stats, ompcl_build, run

HEAD = r"""#include <stdio.h>
#define N 100000
static int key[N];
static unsigned mask[8];
static int h2[4][16];
int hist[64];
double hd[32];
long lh[16];
"""

PROGRAMS = {
    # name: (loop code, arrays expected to get a private copy)
    "increment": (r"""
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic
    hist[key[i] % 64]++;
  }""", {"hist"}),
    "two_dimensional_add_sub": (r"""
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    int r = key[i] % 4, c = (key[i] / 4) % 16;
#pragma omp atomic
    h2[r][c] += key[i] % 5;
#pragma omp atomic
    h2[3 - r][c] -= 1;
  }""", {"h2"}),
    "bitwise_or": (r"""
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic
    mask[key[i] % 8] |= 1u << (key[i] % 32);
  }""", {"mask"}),
    "read_in_the_loop": (r"""
#pragma omp parallel for
  for (i = 0; i < N; i++) {
    int seen;
#pragma omp atomic read
    seen = hist[0];
#pragma omp atomic
    hist[key[i] % 64] += seen >= 0;
  }""", set()),
    "team_array": (r"""
#pragma omp parallel
  {
    int local[64], j;
    for (j = 0; j < 64; j++) local[j] = 0;
#pragma omp for
    for (i = 0; i < N; i++)
      local[key[i] % 64]++;
#pragma omp critical
    for (j = 0; j < 64; j++) hist[j] += local[j];
  }""", {"local"}),
    # floating-point partial sums only where the program allows any grouping
    "double_array_reduction": (r"""
#pragma omp parallel for reduction(+:hd[0:32])
  for (i = 0; i < N; i++) {
    hd[key[i] % 32] += (key[i] % 7) * 0.5;
    hd[(key[i] / 32) % 32] -= 0.25;
  }""", {"hd"}),
    "double_team_array_of_one_constant": (r"""
#pragma omp parallel
  {
    double local[32];
    int j;
    for (j = 0; j < 32; j++) local[j] = 0.0;
#pragma omp for
    for (i = 0; i < N; i++)
      local[key[i] % 32] += 1.0;
#pragma omp critical
    for (j = 0; j < 32; j++) hd[j] += local[j];
  }""", set()),
    "long_atomics": (r"""
#pragma omp parallel for
  for (i = 0; i < N; i++) {
#pragma omp atomic
    lh[key[i] % 16] += (long)key[i] * 40000;
  }""", {"lh"}),
}


def _program(loop: str) -> str:
    return (HEAD + "int main(void) {\n  int i; long s = 0;\n"
            "  for (i = 0; i < N; i++) key[i] = (int)((i * 2654435761u) % 100003u);\n"
            + loop + "\n  for (i = 0; i < 64; i++) s += (long)hist[i] * (i + 1);\n"
            "  for (i = 0; i < 64; i++) s += (long)h2[i / 16][i % 16] * (i + 3);\n"
            "  for (i = 0; i < 8; i++) s += mask[i] % 1000;\n"
            "  for (i = 0; i < 32; i++) s += (long)(hd[i] * 4) * (i + 5);\n"
            "  for (i = 0; i < 16; i++) s += lh[i] % 1000003 * (i + 7);\n"
            "  printf(\"%ld\\n\", s);\n  return 0;\n}\n")


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_which_arrays_get_a_private_copy(tmp_path, name):
    """Guards the choice of private copies (the 'privatize' pass's records per kernel):
    exactly the expected arrays get one, and each of their update sites calls a merge macro
    of the copy (the copies' answers: ``test_private_copies_give_the_original_output``)."""
    loop, expected = PROGRAMS[name]
    src = tmp_path / f"{name}.c"
    src.write_text(_program(loop))
    unit = translate(str(src), Options())
    regions = {r.id: r for r in unit.regions}
    got = set()
    for k in unit.programs[0].kernels:  # the kernels' program, as printed
        found = k.copies  # the 'privatize' pass's records
        got |= {regions[k.region_id].arrays[p.k].name for p in found}
        macros = {macro(*m) for p in found for m in p.macros}
        called = {getattr(n.name, "name", "") for n in walk(k.body)
                  if isinstance(n, c_ast.FuncCall)}
        assert macros <= called, (macros, called)
    assert got == expected


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_private_copies_give_the_original_output(tmp_path, opencl_available, name):
    loop, _ = PROGRAMS[name]
    src = tmp_path / f"{name}.c"
    src.write_text(_program(loop))
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    for threads in ("1", "2"):
        expected = run(ref, OMP_NUM_THREADS=threads).stdout
        for env in ({"OMPCL_ZERO_COPY": "1"}, {"OMPCL_ZERO_COPY": "0"},
                    {"OMPCL_SHAPE": "grid"}, {"OMPCL_BOUNDS_CHECK": "1"}):
            stats = tmp_path / "stats.json"
            out = run(exe, OMP_NUM_THREADS=threads, OMPCL_DEVICE="opencl",
                      OMPCL_STATS=str(stats), **env)
            assert out.returncode == 0, out.stderr
            assert out.stdout == expected, (threads, env)
            if opencl_available:
                assert sum(r["kernels_launched"] for r in load_stats(stats)["regions"]) >= 1
