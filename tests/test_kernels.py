"""Kernel shapes: index narrowing facts, the text of both shapes (blocked chunks for CPU
devices, coalesced grid strides for GPUs), and both shapes executed on the OpenCL device here
(``OMPCL_SHAPE`` forces the GPU shape on a CPU device) against the original OpenMP program,
with copying and host-memory buffers and several work-group counts; the kernel benchmark's
own check that generated, hand-written and OpenMP code compute the same results.
"""
from __future__ import annotations

import json
import re
import subprocess

import pytest
from conftest import (CORPUS, ROOT, compare_outputs, gcc_build, load_stats, ompcl_build, run,
                      run_env)
from pycparser import c_parser

from ompcl.analysis.loops import canonical_loop
from ompcl.pipeline import translate
from ompcl.transform.narrowing import constant_step, constant_trip, fits_32_bits
from ompcl.transform.tiling import tiles

SHAPES = ROOT / "tests" / "kernels" / "shapes.c"
HEAT = ROOT / "ompcl" / "examples" / "heat2d.c"


def _loop(text: str):
    """The canonical loop of ``void f(long n, int s) { int i; <text> ; }``."""
    ast = c_parser.CParser().parse(f"void f(long n, int s) {{ int i; {text} ; }}")
    return canonical_loop(ast.ext[0].body.block_items[1])


@pytest.mark.parametrize("text, step, trip", [
    ("for (i = 0; i < 10; i++)", 1, 10),
    ("for (i = 1; i <= 10; i += 3)", 3, 4),
    ("for (i = 9; i >= 0; i -= 2)", -2, 5),
    ("for (i = 9; i > 0; i--)", -1, 9),
    ("for (i = 5; i < 5; i++)", 1, 0),
    ("for (i = 0; i < 1000 - 1; i++)", 1, 999),
    ("for (i = 0; i < n; i++)", 1, None),
    ("for (i = 0; i < 10; i += s)", None, None),
])
def test_constant_steps_and_trips(text, step, trip):
    loop = _loop(text)
    assert constant_step(loop) == step
    assert constant_trip(loop) == trip


@pytest.mark.parametrize("texts, fits", [
    (["for (i = 0; i < 1000; i++)", "for (i = 0; i < 1000; i++)"], True),
    (["for (i = 0; i < 1000000000; i++)"], True),
    (["for (i = 0; i < 1100000000; i++)"], False),       # the count itself
    (["for (i = 0; i < 40000; i++)", "for (i = 0; i < 40000; i++)"], False),  # the product
    (["for (i = 1080000000; i < 1080000010; i += 7)"], False),  # the loop variable's values
    (["for (i = 0; i < n; i++)"], False),                # known at run time only
])
def test_32_bit_counters_only_where_provable(texts, fits):
    assert fits_32_bits(tuple(_loop(t) for t in texts)) is fits


@pytest.mark.parametrize("body, dims, tiled", [
    ("b[j][i] = a[i][j];", "ij", True),            # a transposed write
    ("b[i][j] = a[j][i];", "ij", True),            # a transposed read
    ("b[i][j] = a[i][j] + a[i - 1][j];", "ij", False),
    ("b[j * 1024 + i] = a[i * 1024 + j];", "ij", True),  # flat, constant rows
    ("b[j * n + i] = a[i * n + j];", "ij", True),  # flat, run-time rows
    ("c[i][j] += a[i][k] * b[k][j];", "ij", False),  # matmul: j runs along rows
    ("x[j][0] = 1.0;", "ij", False),               # strided, but i does not run along it
    ("b[i][2 * j] = 0.0;", "ij", False),           # i picks the row
    ("b[2 * j][i] = 0.0;", "ij", True),
    ("b[j] = a[i];", "ij", False),
    ("b[k][j][i] = 0.0;", "ijk", False),           # j is no neighbour along k either
    ("c[i][k][j] = 0.0;", "ijk", True),            # the innermost two transposed
    ("b[i] = a[i * n];", "i", False),              # one loop: nothing to tile
])
def test_tiles_only_transposed_accesses(body, dims, tiled):
    ast = c_parser.CParser().parse(f"void f(void) {{ {body} }}")
    assert tiles(ast.ext[0].body, tuple(dims)) is tiled


def _kernel(source: str, name: str) -> str:
    m = re.search(rf"__kernel void {name}\(.*?\n}}\n", source, re.DOTALL)
    assert m, name
    return m[0]


def test_both_shapes_in_every_kernel(tmp_path, opencl_available):
    """Guards that every kernel carries both shapes: the demo's four kernels, run in the
    blocked shape and in the grid shape (an ND-range of up to two dimensions), copying and
    zero-copy buffers, give gcc's answer, every region on the device each step."""
    u = translate(str(HEAT))
    assert [k.name for k in u.kernels] == [f"ompcl_k{n}" for n in range(4)]
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(HEAT, ref)
    assert ompcl_build([HEAT], exe, "--model", "none").returncode == 0
    steps = "3"
    expected = subprocess.run([str(ref), steps], capture_output=True, text=True,
                              env=run_env(), check=True).stdout
    stats = tmp_path / "s.json"
    for shape, zero_copy in (("blocked", "0"), ("blocked", "1"), ("grid", "0"), ("grid", "1")):
        out = subprocess.run([str(exe), steps], capture_output=True, text=True, env=run_env(
            OMPCL_DEVICE="opencl", OMPCL_SHAPE=shape, OMPCL_ZERO_COPY=zero_copy,
            OMPCL_STATS=str(stats)))
        assert out.returncode == 0, out.stderr
        compare_outputs(_numbers(expected), _numbers(out.stdout), 1e-9)
        if opencl_available:
            regions = load_stats(stats)["regions"]
            assert len(regions) == 4, regions
            assert all(r["device_runs"] == r["entries"] > 0 and r["fallback"] is None
                       for r in regions), (shape, regions)


def _numbers(out: str) -> str:
    """The program's output without its timing line."""
    return "\n".join(line for line in out.splitlines() if not line.startswith("time"))


def test_run_loops_step_the_user_variable_by_a_constant():
    """The blocked shape's innermost loop steps the user's variable (an induction variable the
    vectoriser recognises) by its constant step, or by the run-time step when not constant."""
    src = translate(str(SHAPES)).kernel_source
    runs = re.findall(r"for \(; (ompcl_g\d+) < ompcl_e; \1\+\+, (.*)\)\n", src)
    assert ("ompcl_g0", "i -= 3") in runs        # for (i = n - 1; i >= 0; i -= 3)
    assert ("ompcl_g1", "j -= 3") in runs        # inner loop of a collapse(2), j -= 3
    assert ("ompcl_g2", "k++") in runs           # innermost of a collapse(3)
    assert ("ompcl_g1", "j += (int)ompcl_st1") in runs  # j += s: the step known at run time
    assert ("ompcl_g0", "u--") in runs           # unsigned, descending


def test_grid_counters_narrow_where_bounds_are_constant():
    """Guards the narrowing decision the kernel printer takes per region (32-bit counters
    where every term provably fits): the demo's stencil (i, j in 1 .. N-2 with N = 1000)
    narrows, a loop to a run-time bound does not. (Executed in both shapes:
    ``test_shapes_match_openmp``.)"""
    stencil = next(r for r in translate(str(HEAT)).offloaded
                   if r.bound.directive.loc.line == 46)
    assert fits_32_bits(stencil.loops) is True
    assert [constant_trip(loop) for loop in stencil.loops] == [998, 998]
    first = translate(str(SHAPES)).offloaded[0]  # i < n, a run-time bound
    assert fits_32_bits(first.loops) is False and constant_trip(first.loops[0]) is None


def test_constant_loop_terms_are_literals():
    """Constant bounds and steps print as literals (constant divisions, known run lengths);
    terms known only at run time stay the launch's parameters."""
    src = translate(str(SHAPES)).kernel_source
    k = _kernel(src, "ompcl_k2")  # i = 1 .. 59 step 2, j = 46 .. 2 step -3
    assert "const long ompcl_all = 30L * 15L," in k
    assert "int j = (int)(46L + ompcl_g1 * -3L);" in k
    k = _kernel(src, "ompcl_k4")  # i, j < 40, 50 step s
    assert "ompcl_st0" in k[k.index("{"):] and "ompcl_n1" in k[k.index("{"):]


def test_transposed_kernels_run_in_tiles(tmp_path, monkeypatch, opencl_available):
    """Guards tiling: with the layout passes off (they would reorder these arrays or loops so
    nothing is transposed) exactly the three kernels with a transposed access run their two
    innermost loops in 32 x 32 tiles in the blocked shape (the printer's ``tiles`` decision
    per kernel); built so and run in the blocked shape (ragged tiles at the edges, outer
    loops split off the tile index), they give gcc's answer on the device."""
    for knob in ("OMPCL_INTERCHANGE", "OMPCL_REORDER", "OMPCL_DYNREORDER"):
        monkeypatch.setenv(knob, "0")
    u = translate(str(SHAPES))
    tiled = [k.name for k in u.kernels if tiles(k.body, tuple(var for var, _ in k.dims))]
    assert tiled == ["ompcl_k14", "ompcl_k15", "ompcl_k16"]
    assert len(u.kernels[15].dims) == 3   # collapse(3): i, then tiles of j x k
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(SHAPES, ref)
    assert ompcl_build([SHAPES], exe, "--model", "none").returncode == 0
    stats = tmp_path / "s.json"
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE="blocked", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_BOUNDS_CHECK="1", OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        compare_outputs(run(ref).stdout, out.stdout, 1e-12)
        if opencl_available:
            assert all(r["device_runs"] == 1 and r["fallback"] is None
                       for r in load_stats(stats)["regions"])


def test_blocked_reductions_write_one_partial_per_work_item(shapes_built, opencl_available):
    """Guards the shapes' reductions (four doubles in ompcl_k5): the blocked shape launches
    work-groups of one work-item, each writing one partial per reduction, no work-group
    tree; the grid shape's groups of many work-items combine in local memory and write one
    partial each. Statistics: results read back = groups x 4 x 8 bytes either way."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    d, expected, exe = shapes_built
    for shape, wgsize in (("blocked", 1), ("grid", None)):
        for groups in (1, 3, 7):
            stats = d / f"partials-{shape}-{groups}.json"
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE=shape, OMPCL_MAX_GROUPS=str(groups),
                      OMPCL_STATS=str(stats))
            assert out.returncode == 0, out.stderr
            compare_outputs(expected, out.stdout, 1e-12)
            r = next(r for r in load_stats(stats)["regions"] if r["kernel"] == "ompcl_k5")
            (size,) = r["sizes"]
            assert (r["kernels_launched"], r["result_bytes"]) == (1, groups * 4 * 8), r
            assert size["wgsize"] == wgsize if wgsize else size["wgsize"] > 1, size


# -- executed: both shapes, copying and host-memory buffers, several work-group counts ---------

CONFIGS = [  # OMPCL_SHAPE, OMPCL_ZERO_COPY, OMPCL_MAX_GROUPS
    ("blocked", "0", ""), ("blocked", "1", "1"), ("blocked", "1", "3"), ("blocked", "0", "7"),
    ("blocked", "1", "100000"), ("grid", "0", ""), ("grid", "1", "3"), ("grid", "0", "1"),
]


@pytest.fixture(scope="module")
def shapes_built(tmp_path_factory):
    d = tmp_path_factory.mktemp("shapes")
    ref, exe = d / "ref", d / "exe"
    gcc_build(SHAPES, ref)
    expected = run(ref)
    assert expected.returncode == 0, expected.stderr
    res = ompcl_build([SHAPES], exe)
    assert res.returncode == 0, res.stderr
    return d, expected.stdout, exe


@pytest.mark.parametrize("shape, zero_copy, groups", CONFIGS,
                         ids=lambda v: v or "default")
def test_shapes_match_openmp(shapes_built, shape, zero_copy, groups, opencl_available):
    if not opencl_available:
        pytest.skip("no OpenCL device")
    d, expected, exe = shapes_built
    stats = d / f"{shape}-{zero_copy}-{groups}.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE=shape, OMPCL_ZERO_COPY=zero_copy,
              OMPCL_MAX_GROUPS=groups, OMPCL_BOUNDS_CHECK="1", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    err = compare_outputs(expected, out.stdout, 1e-12)
    regions = load_stats(stats)["regions"]
    assert len(regions) == 17
    assert all(r["device_runs"] == 1 and r["fallback"] is None for r in regions), regions
    print(f"{shape} zero-copy={zero_copy} groups={groups or 'default'}: max rel. error {err:.1e}")


def test_launch_sizes_follow_the_shape(shapes_built, opencl_available):
    """Blocked: a 1-D range of one-work-item groups, one per chunk, at most one per iteration
    (the 3- and 40-iteration loops get 3 and 40); grid: the loop's ND-range, capped."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    _, _, exe = shapes_built
    blocked = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE="blocked", OMPCL_LOG="1")
    assert "kernel shape: blocked" in blocked.stderr
    groups = dict(re.findall(r"launched (ompcl_k\d+) over (\d+) work-groups", blocked.stderr))
    assert groups.pop("ompcl_k10") == "3"  # for (i = 0; i < 3; i++)
    assert groups.pop("ompcl_k11") == "40"  # for (i = 0; i < 40; i++)
    assert len(set(groups.values())) == 1  # every other loop: the cap
    grid = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE="grid", OMPCL_LOG="1")
    assert "kernel shape: grid" in grid.stderr
    groups = dict(re.findall(r"launched (ompcl_k\d+) over (\d+) work-groups", grid.stderr))
    assert groups["ompcl_k3"] == "3"  # 5 x 7 x 11 in groups of 2 x 8 x 16 (256 work-items)


GRID_CORPUS = ["03_dot_normalize", "04_int_reductions", "05_double_reductions",
               "08_jacobi3d_static", "17_private_lastprivate", "21_collapse3", "27_atomic_hist",
               "40_team_regions"]


@pytest.mark.parametrize("name", GRID_CORPUS)
def test_gpu_shape_runs_the_corpus(name, tmp_path, opencl_available):
    """The GPU shape on this device, copying buffers as a discrete GPU does."""
    if not opencl_available:
        pytest.skip("no OpenCL device")
    src = CORPUS / f"{name}.c"
    rtol = float(m[1]) if (m := re.search(r"tolerance=(\S+)", src.read_text())) else 1e-9
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "stats.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_SHAPE="grid", OMPCL_ZERO_COPY="0",
              OMPCL_BOUNDS_CHECK="1", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    compare_outputs(run(ref).stdout, out.stdout, rtol)
    assert all(r["fallback"] is None for r in load_stats(stats)["regions"])


def test_kernel_benchmark_computes_the_same_results(tmp_path, opencl_available):
    """One call of a few benchmark shapes: generated, hand-written and OpenMP agree (the
    benchmark's exit status); times are not checked."""
    pytest.importorskip("pyopencl")
    if not opencl_available:
        pytest.skip("no OpenCL device")
    from ompcl.bench import kernels
    code = kernels.main(["--rounds", "1", "--calls", "1",
                         "--shapes", "stencil2d,sum,histogram,nbody", "--keep", str(tmp_path),
                         "--json", str(tmp_path / "k.json")])
    assert code == 0
    shapes = json.loads((tmp_path / "k.json").read_text())
    assert [r["shape"] for r in shapes] == ["stencil2d", "sum", "histogram", "nbody"]
    # the generated loops ran as kernels (device time from the translated program's runtime)
    assert all(r["same_result"] and r["generated_kernel_ms"] > 0 for r in shapes), shapes
