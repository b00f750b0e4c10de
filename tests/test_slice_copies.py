"""Slice copies (transform.privatize, runtime ompcl_rt_arg_copy): arrays a kernel only updates
with operations that may be grouped, whose size is known only at run time (heap arrays,
``reduction(+:h[0:n])``) or too large for a work-item's memory, are updated in a slice per
work-item of a buffer the runtime provides, merged at the work-item's end. Which arrays get
one (the translation), and programs built and run against gcc -fopenmp on the device with
1 and 2 threads, in both buffer modes (slices: the runtime's log says so), in the GPU shape
and bounds-checked (direct atomics), and where the slices would cost more than they save."""
from __future__ import annotations

import re

import pytest

from ompcl.pipeline import Options, translate

from conftest import build_both, every_path, gcc_build, load_stats, ompcl_build, run

PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
static int big[6000];  /* 24000 bytes */  /* too large for private memory: a slice copy */
int main(int argc, char **argv)
{
    int n = 600000, nb = argc > 1 ? atoi(argv[1]) : 1000, i, k = 7, j;
    int *key = malloc(n * sizeof *key), *h = calloc(nb, sizeof *h);
    double *w = calloc(nb, sizeof *w), *c = calloc(k * 3, sizeof *c);
    unsigned *bits = calloc(nb, sizeof *bits);
    long s = 0;
    double t = 0;
    for (i = 0; i < n; i++)
        key[i] = (int)((i * 2654435761u) % 1000003u);
    for (j = 0; j < 2; j++) {
#pragma omp parallel for
        for (i = 0; i < n; i++) {
#pragma omp atomic
            h[key[i] % nb]++;
#pragma omp atomic
            big[key[i] % 6000] += 2;
        }
#pragma omp parallel for reduction(+:w[0:nb])
        for (i = 0; i < n; i++) {
            w[key[i] % nb] += (key[i] % 8) * 0.125;
            w[(key[i] / 7) % nb] -= 0.5;
        }
#pragma omp parallel for reduction(+:c[0:k*3])
        for (i = 0; i < n; i++)
            c[(key[i] % k) * 3 + i % 3] += 0.25;
#pragma omp parallel for
        for (i = 0; i < n; i++) {
#pragma omp atomic
            bits[key[i] % nb] |= 1u << (key[i] % 32);
        }
    }
    for (i = 0; i < nb; i++) {
        s += (long)h[i] * (i + 1) + bits[i] % 1009;
        t += w[i] * (i % 13);
    }
    for (i = 0; i < 6000; i++)
        s += (long)big[i] * (i % 17);
    for (i = 0; i < k * 3; i++)
        t += c[i] * i;
    printf("%ld %.6f\n", s, t);
    free(key); free(h); free(w); free(c); free(bits);
    return 0;
}
"""


def test_which_arrays_get_a_slice_copy(tmp_path):
    """Heap arrays and a file-scope array over private memory's limit get slice copies; the
    kernels take each one's buffer and length before the check report, and the host passes
    them (ompcl_rt_arg_copy)."""
    src = tmp_path / "slices.c"
    src.write_text(PROGRAM)
    unit = translate(str(src), Options())
    regions = {r.id: r for r in unit.regions}
    sliced = {regions[k.region_id].arrays[p.k].name
              for k in unit.programs[0].kernels for p in k.copies if p.sliced}
    assert sliced == {"h", "big", "w", "c", "bits"}
    assert unit.host_source.count("ompcl_rt_arg_copy(") == 5
    text = unit.kernel_source
    assert "__global int *ompcl_pv0, const long ompcl_pn0" in text
    assert "OMPCL_PRIVD_add_double" in text and "OMPCL_PRIVD_or_uint" in text


@pytest.mark.parametrize("nb", ["1000", "400000"])
def test_slice_copies_give_the_original_output(tmp_path, opencl_available, nb):
    """nb 1000: every launch has slices; nb 400000: h, w and bits have more elements than a
    work-item's iterations (600000 over the CPU shape's 64 work-items at most: their direct
    atomics), c and big still slices."""
    src = tmp_path / "slices.c"
    src.write_text(PROGRAM)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    for threads in ("1", "2"):
        expected = run(ref, nb, OMP_NUM_THREADS=threads).stdout
        for env in ({"OMPCL_ZERO_COPY": "1"}, {"OMPCL_ZERO_COPY": "0"},
                    {"OMPCL_SHAPE": "grid"}, {"OMPCL_BOUNDS_CHECK": "1"}):
            stats = tmp_path / "stats.json"
            out = run(exe, nb, OMP_NUM_THREADS=threads, OMPCL_DEVICE="opencl", OMPCL_LOG="1",
                      OMPCL_STATS=str(stats), **env)
            assert out.returncode == 0, out.stderr
            assert out.stdout == expected, (threads, env)
            if not opencl_available:
                continue
            launched = sum(r["kernels_launched"] for r in load_stats(stats)["regions"])
            assert launched == 8, (threads, env)
            slices = out.stderr.count("a private copy of")
            if "OMPCL_ZERO_COPY" not in env:  # the grid shape, checked: direct atomics
                assert slices == 0, (env, out.stderr)
            else:  # 5 copies in 4 kernels, twice, those no longer than a work-item's share
                groups = int(re.search(r"over (\d+) work-groups", out.stderr).group(1))
                lengths = (int(nb), int(nb), int(nb), 21, 6000)  # h w bits c big
                assert slices == 2 * sum(n <= 600000 // groups for n in lengths), out.stderr
        assert run(exe, nb, OMP_NUM_THREADS=threads, OMPCL_DEVICE="openmp").stdout == expected


def test_slice_copies_on_every_path(tmp_path):
    """The host path, both buffer modes and the team of one at 1, 2, 3 and 7 threads."""
    ref, exe = build_both(tmp_path, PROGRAM, "slices.c")
    every_path(ref, exe, 0.0)
