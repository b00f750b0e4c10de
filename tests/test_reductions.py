"""Reductions on the device: every operator and type against gcc's OpenMP on every path, the
blocked shape's lanes (several accumulators per work-item) at several widths and the grid
shape, and a large dot product and a map feeding a dot product in one loop, with statistics
saying the device ran them and how few bytes of results came back."""
from __future__ import annotations

from pathlib import Path

import pytest
import kernelfacts as kf
from conftest import (ROOT, build_both, compare_outputs, device_runs, every_path, gcc_build,
                      load_stats, ompcl_build, run)

from ompcl.pipeline import translate

HERE = ROOT / "tests" / "reductions"
EVERY_OP, LARGE = HERE / "every_op.c", HERE / "large.c"
RTOL = 1e-9  # doubles summed in another order; the floats hold exact values


def _builds(src: Path, tmp_path: Path) -> tuple[Path, Path]:
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe, "-O2", "-lm", "--model", "none")
    assert res.returncode == 0, res.stderr
    return ref, exe


def _lanes(unit) -> dict[str, int]:
    """Accumulators per reduction and work-item each kernel's blocked shape may use (the
    kernel printer's decision: the unit carries no typed value for it)."""
    from ompcl.codegen.kernel import _lanes as lanes
    return {k.name: lanes(k, ()) for k in unit.kernels}


def _by_lanes(tmp_path: Path, text: str) -> dict[str, str] | None:
    """``text`` built by gcc and ompcl, run on the device in one blocked work-item
    (OMPCL_MAX_GROUPS=1) with one and with eight lanes, copying and zero-copy buffers: each
    output gcc's within RTOL; the outputs by lane count (None without a device)."""
    ref, exe = build_both(tmp_path, text)
    expected = run(ref).stdout
    outs: dict[str, set[str]] = {"1": set(), "8": set()}
    stats = tmp_path / "s.json"
    for lanes in outs:
        for zero_copy in ("0", "1"):
            out = run(exe, OMPCL_DEVICE="opencl", OMPCL_LANES=lanes, OMPCL_MAX_GROUPS="1",
                      OMPCL_SHAPE="blocked", OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats))
            assert out.returncode == 0, out.stderr
            compare_outputs(expected, out.stdout, RTOL)
            outs[lanes].add(out.stdout)
    if not load_stats(stats)["device"]["available"]:
        return None
    assert all(len(o) == 1 for o in outs.values()), outs
    return {k: o.pop() for k, o in outs.items()}


HARMONIC = """#include <stdio.h>
double x[20000];
int main(void) { int i; double s = 0;
  for (i = 0; i < 20000; i++) x[i] = 1.0 / (i + 1);
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < 20000; i++) s += x[i];
  printf("%.17g\\n", s); return 0; }
"""


def test_lanes_only_for_floating_point_reductions_over_small_bodies(tmp_path):
    """Guards the lanes: double and float reductions get them; integer ones (the device
    compiler vectorises them) and a body with an inner loop do not; every loop is
    offloaded. Run, a double sum in one work-item adds in another order with eight lanes
    than with one (the lanes are in the kernel), both gcc's answer within rounding."""
    u = translate(str(EVERY_OP))
    assert all(r.offload for r in u.regions), [r.reasons for r in u.regions if not r.offload]
    assert _lanes(u) == {"ompcl_k0": 8, "ompcl_k1": 8, "ompcl_k2": 0, "ompcl_k3": 0,
                         "ompcl_k4": 0, "ompcl_k5": 8, "ompcl_k6": 0, "ompcl_k7": 8,
                         "ompcl_k8": 8, "ompcl_k9": 8, "ompcl_k10": 0}
    # four reductions in one kernel, each with its own accumulators
    assert len(kf.kernel(u, "ompcl_k0").reductions) == 4
    outs = _by_lanes(tmp_path, HARMONIC)
    if outs is not None:
        assert outs["1"] != outs["8"], outs


def test_every_operator_and_type_on_every_path(tmp_path):
    ref, exe = _builds(EVERY_OP, tmp_path)
    every_path(ref, exe, RTOL)


@pytest.mark.parametrize("env", [{"OMPCL_LANES": "1"}, {"OMPCL_LANES": "3"},
                                 {"OMPCL_LANES": "8"}, {"OMPCL_SHAPE": "grid"}],
                         ids=["one-lane", "three-lanes", "eight-lanes", "grid"])
def test_lanes_and_shapes_agree_with_gcc(tmp_path, env):
    """Any lane count (3: runs not a multiple of it) and the GPU shape's work-group trees give
    gcc's results; every region ran on the device and read back only partial results."""
    ref, exe = _builds(EVERY_OP, tmp_path)
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats), **env)
    assert out.returncode == 0, out.stderr
    compare_outputs(run(ref).stdout, out.stdout, RTOL)
    st = load_stats(stats)
    if st["device"]["available"]:
        assert all(r["device_runs"] == r["entries"] > 0 for r in st["regions"]), st["regions"]
        assert all(0 < r["result_bytes"] <= 8 * 4 * 2048 for r in st["regions"])


def test_large_reduction_and_map_fed_dot_product_read_back_only_partials(tmp_path):
    """4M doubles, four times: an axpy feeding a dot product in one loop, and a dot product.
    On the device both ran every time; with host-memory buffers nothing but the partial
    results (a few dozen per launch) came back."""
    ref, exe = _builds(LARGE, tmp_path)
    expected = run(ref).stdout
    for zero_copy in ("1", "0"):
        stats = tmp_path / f"s{zero_copy}.json"
        out = run(exe, timeout=300, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_STATS=str(stats))
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, RTOL)
        st = load_stats(stats)
        if not st["device"]["available"]:
            continue
        regions = st["regions"]
        assert len(regions) == 2 and all(r["device_runs"] == r["entries"] == 4 for r in regions)
        for r in regions:
            per_launch = r["result_bytes"] / r["kernels_launched"]
            assert 8 <= per_launch <= 8 * 2048, r  # partials, not the 32 MB of each array
        assert st["totals"]["result_bytes"] == sum(r["result_bytes"] for r in regions)
        if zero_copy == "1" and st["device"]["zero_copy"]:
            assert st["totals"]["bytes_to_host"] == 0, st["totals"]


CALLS_A_FUNCTION = """
double x[1000];
static double batch(long k) { double t[4096]; int i; double s = 0;
  for (i = 0; i < 4096; i++) t[i] = (double)(k + i);
  for (i = 0; i < 4096; i++) s += t[i];
  return s; }
double f(void) { double s = 0; long k;
#pragma omp parallel for reduction(+:s)
  for (k = 0; k < 1000; k++) s += batch(k) + x[k];
  return s; }
"""


def test_no_lanes_for_a_body_that_calls_a_function(tmp_path):
    """Guards against lanes over a body that calls a function: its loops and arrays would
    run in every lane (NPB EP's do_batch holds a 1 MB array: eight of them overflowed the
    work-item's stack). Run, one lane or eight add in the same order (gcc's answer)."""
    src = tmp_path / "calls.c"
    src.write_text(CALLS_A_FUNCTION)
    u = translate(str(src))
    (r,) = u.regions
    assert r.offload and _lanes(u) == {"ompcl_k0": 0}
    outs = _by_lanes(tmp_path, "#include <stdio.h>\n" + CALLS_A_FUNCTION +
                     "int main(void) { long k;\n for (k = 0; k < 1000; k++) x[k] = 1.0 / "
                     "(k + 1);\n printf(\"%.17g\\n\", f()); return 0; }\n")
    if outs is not None:
        assert outs["1"] == outs["8"], outs



LOGICAL = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  int n = 100000, i, all = 1, any = 0, guarded = 1, *idx = malloc(n * sizeof(int));
  double *x = malloc(n * sizeof(double));
  for (i = 0; i < n; i++) { x[i] = (i * 37 % 1000) / 10.0; idx[i] = (i * 7) % n; }
#pragma omp parallel for reduction(&&:all) reduction(||:any)
  for (i = 0; i < n; i++) {
    all = all && x[i] < 99.95;
    any = (x[i] > 99.85 && i % 2) || any;
  }
#pragma omp parallel for reduction(&&:guarded)
  for (i = 0; i < n; i++)
    guarded = guarded && x[idx[i]] >= 0.0;
  printf("%d %d %d\n", all, any, guarded);
  return 0;
}
"""


def test_logical_reductions_without_a_branch(tmp_path):
    """'acc = acc && e' with e reading only what the extents cover is 'acc = acc & (e != 0)'
    in kernels (it vectorises); an e reading through an index array keeps its branch."""
    ref, exe = build_both(tmp_path, LOGICAL, "logical.c")
    every_path(ref, exe, 0.0)
    src = tmp_path / "logical.c"
    text = translate(str(src)).kernel_source
    assert "all = all & (" in text and "any = any | (" in text, text
    assert "guarded = guarded && (" in text, text
    assert device_runs(exe) in (None, [1, 1])
