"""Run-time faults on translated programs: with no OpenCL platform, a failing kernel build,
a failing device allocation or a failing launch, the program still prints the right results
(the OpenMP version ran) and warns once per failing thing, never crashes."""
from __future__ import annotations

import pytest

from conftest import CORPUS, compare_outputs, gcc_build, load_stats, ompcl_build, run

PROGRAM = CORPUS / "23_timestep_sync.c"  # several regions, time steps, host code between


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("faults")
    ref, exe = d / "ref", d / "exe"
    gcc_build(PROGRAM, ref)
    res = ompcl_build([PROGRAM], exe)
    assert res.returncode == 0, res.stderr
    return d, run(ref).stdout, exe


@pytest.mark.parametrize("fault", ["platform", "build", "alloc", "launch"])
def test_fault_falls_back_to_openmp(built, fault, opencl_available):
    d, expected, exe = built
    stats = d / f"{fault}.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_FAULT=fault, OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)
    warnings = [l for l in out.stderr.splitlines() if l.startswith("ompcl: warning:")]
    assert len(warnings) == 1, out.stderr  # warned once, although every region fell back
    regions = load_stats(stats)["regions"]
    assert regions and all(r["device_runs"] == 0 and r["host_runs"] == r["entries"] for r in regions)
    if opencl_available and fault in ("build", "alloc", "launch"):
        assert all(r["fallback"] for r in regions), regions


def test_unknown_device_setting_warns_and_runs(built):
    d, expected, exe = built
    out = run(exe, OMPCL_DEVICE="bogus")
    assert out.returncode == 0
    compare_outputs(expected, out.stdout, 1e-9)
    assert "OMPCL_DEVICE" in out.stderr
