"""Objects that ``ompcl cc -c`` writes of translated sources carry the runtime (weak
definitions): a link by another command than ``ompcl cc`` (plain gcc, as NPB's ``CLINK``;
g++, as a mixed C/C++ project's) works and the program runs its loops on the device, one
runtime for all files (data a kernel of one file leaves on the device is what the next
file's host code reads); linked by ``ompcl cc``, the objects take nothing of the archive."""
from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from conftest import load_stats, run
from test_cc import cc_env

OMPCL_CC = [sys.executable, "-m", "ompcl", "cc"]

COMMON = r"""typedef struct { int n; double *v; } vec_t;
double norm2(const vec_t *a);
void scale(vec_t *a, double s);
extern int g_iters;
"""

MAIN = r"""#include <stdio.h>
#include <stdlib.h>
#include "common.h"
static void fill(vec_t *a)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < a->n; i++)
        a->v[i] = (i % 11) * 0.01;
}
int main(void)
{
    vec_t a;
    int k, i;
    long s = 0;
    a.n = 30000;
    a.v = malloc(a.n * sizeof(double));
    fill(&a);
    for (k = 0; k < g_iters; k++)
        scale(&a, 2.0);
    for (i = 0; i < a.n; i++)   /* the host reads what the other file's kernel wrote */
        s += (long)(a.v[i] * 100.0 + 0.5);
    printf("%ld %.6f\n", s, norm2(&a));
    return 0;
}
"""

VEC = r"""#include "common.h"
int g_iters = 3;
double norm2(const vec_t *a)
{
    double s = 0.0;
    int i;
#pragma omp parallel for reduction(+:s)
    for (i = 0; i < a->n; i++)
        s += a->v[i] * a->v[i];
    return s;
}
void scale(vec_t *a, double s)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < a->n; i++)
        a->v[i] *= s;
}
"""

LINKERS = {"gcc": ["gcc"], "g++": ["g++"], "ompcl cc": OMPCL_CC}


@pytest.mark.parametrize("linker", sorted(LINKERS))
def test_objects_link_with_any_command(tmp_path, opencl_available, linker):
    if shutil.which(LINKERS[linker][0]) is None:
        pytest.skip(f"{linker} is not installed")
    for name, text in (("common.h", COMMON), ("main.c", MAIN), ("vec.c", VEC)):
        (tmp_path / name).write_text(text)
    env = cc_env(tmp_path)
    for src in ("main.c", "vec.c"):
        res = subprocess.run([*OMPCL_CC, "-O2", "-fopenmp", "-c", src], cwd=tmp_path, env=env,
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    subprocess.run(["gcc", "-O2", "-fopenmp", "main.c", "vec.c", "-o", "ref"], cwd=tmp_path,
                   check=True)
    res = subprocess.run([*LINKERS[linker], "-fopenmp", "main.o", "vec.o", "-o", "prog"],
                         cwd=tmp_path, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    nm = subprocess.run(["nm", str(tmp_path / "prog")], capture_output=True, text=True).stdout
    assert " W ompcl_rt_begin" in nm   # the objects' (weak) runtime, not the archive's
    for threads in ("1", "2"):
        expected = run(tmp_path / "ref", OMP_NUM_THREADS=threads).stdout
        for zero_copy in ("0", "1"):
            stats = tmp_path / "stats.json"
            out = run(tmp_path / "prog", OMP_NUM_THREADS=threads, OMPCL_DEVICE="opencl",
                      OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats))
            assert out.returncode == 0, out.stderr
            got, want = out.stdout.split(), expected.split()
            assert got[0] == want[0]
            assert float(got[1]) == pytest.approx(float(want[1]), rel=1e-12)
            if opencl_available:
                regions = load_stats(stats)["regions"]
                assert {r["file"] for r in regions if r["kernels_launched"]} >= {"main.c",
                                                                                 "vec.c"}
        assert run(tmp_path / "prog", OMP_NUM_THREADS=threads,
                   OMPCL_DEVICE="openmp").stdout == expected
