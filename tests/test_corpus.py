"""Executed corpus: every tests/corpus/*.c program is built with gcc -fopenmp and through
ompcl, run on the OpenCL device and on the OpenMP host, and the outputs compared.

The first line of each program states how many loops must run on the device and how many
must stay on the host; the runtime statistics prove where each loop ran.
"""
from __future__ import annotations

import re

import pytest

from ompcl.pipeline import translate

from conftest import (CORPUS, compare_outputs, every_path, gcc_build, load_stats, ompcl_build,
                      run)

PROGRAMS = sorted(CORPUS.glob("*.c"))
_META = re.compile(r"ompcl-expect:\s*device=(\d+)\s+host=(\d+)(?:\s+tolerance=(\S+))?")


def expectations(src):
    m = _META.search(src.read_text().splitlines()[0])
    assert m, f"{src.name}: missing ompcl-expect line"
    return int(m[1]), int(m[2]), float(m[3]) if m[3] else 1e-9


def test_corpus_is_large_enough():
    assert len(PROGRAMS) >= 25


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.stem)
def test_translation_verdicts(src):
    """The compiler offloads exactly the loops meant for the device, with a remark for others."""
    device, host, _ = expectations(src)
    t = translate(str(src))
    assert len(t.offloaded) == device, [r.reasons for r in t.regions]
    not_offloaded = [m for m in t.remarks if "not offloaded" in m.message]
    assert len(not_offloaded) == host, [m.format() for m in not_offloaded]
    for m in not_offloaded:
        assert m.loc.file == str(src) and m.loc.line > 0


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.stem)
def test_corpus_program(src, tmp_path, opencl_available):
    device, host, rtol = expectations(src)
    ref_exe = tmp_path / "ref"
    gcc_build(src, ref_exe)
    ref = run(ref_exe)
    assert ref.returncode == 0, ref.stderr

    exe = tmp_path / "translated"
    res = ompcl_build([src], exe, keep=tmp_path / "out")
    assert res.returncode == 0, res.stderr

    # forced host: same results, nothing on the device
    stats_h = tmp_path / "host.json"
    out_h = run(exe, OMPCL_DEVICE="openmp", OMPCL_STATS=str(stats_h))
    assert out_h.returncode == 0, out_h.stderr
    compare_outputs(ref.stdout, out_h.stdout, rtol)
    assert all(r["device_runs"] == 0 for r in load_stats(stats_h)["regions"])

    if not opencl_available:
        pytest.skip("no OpenCL device: device half of the check not run")
    # copying buffers (discrete devices) with the default launch shape and every kernel access
    # checked against its mapped range, then host-memory buffers with at most 3 work-groups,
    # so every work-item strides over many iterations
    for zero_copy, groups, check in (("0", "", "1"), ("1", "3", "0")):
        stats_d = tmp_path / f"device{zero_copy}.json"
        out_d = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats_d),
                    OMPCL_ZERO_COPY=zero_copy, OMPCL_MAX_GROUPS=groups,
                    OMPCL_BOUNDS_CHECK=check)
        assert out_d.returncode == 0, out_d.stderr
        err = compare_outputs(ref.stdout, out_d.stdout, rtol)
        regions = load_stats(stats_d)["regions"]
        on_device = [r for r in regions if r["device_runs"] > 0]
        assert len(on_device) == device, regions
        for r in on_device:
            assert r["fallback"] is None and r["host_runs"] == 0 and r["kernels_launched"] > 0, r
    print(f"{src.name}: max relative error {err:.2e} (tolerance {rtol:g})")


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.stem)
def test_corpus_program_on_every_path(src, tmp_path):
    """Every path (host, device with both buffer modes, the team of one's host path) at 1,
    2, 3 and 7 threads gives the original's answer at the same thread count."""
    _, _, rtol = expectations(src)
    ref_exe, exe = tmp_path / "ref", tmp_path / "translated"
    gcc_build(src, ref_exe)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    every_path(ref_exe, exe, rtol)
