"""Differential fuzzing, small: fixed seeds through the fuzz driver (gcc reference vs ompcl on
the OpenCL device, the OpenMP host and auto), the saved regressions, and the generator itself.

The long campaign is ``python -m ompcl.fuzz --count 2000 --jobs 2 --keep-going``.
"""
from __future__ import annotations

import subprocess

import pytest
from conftest import ROOT, need_gcc

from ompcl.fuzz import compare, generator as gen, oracle, reducer

SEEDS = (3, 17, 42, 101, 256, 777)
REGRESSIONS = sorted((ROOT / "tests" / "fuzz_regressions").glob("*.c"))


@pytest.fixture(scope="module")
def camp(tmp_path_factory, opencl_available):
    need_gcc()
    return oracle.setup(tmp_path_factory.mktemp("fuzz"), device=opencl_available)


def test_generator_is_deterministic():
    for seed in (0, 1, 12345):
        assert gen.generate(seed) == gen.generate(seed)
    assert gen.generate(1) != gen.generate(2)


def test_metadata_counts_match_pragmas():
    for seed in range(40):
        text = gen.generate(seed)
        assert gen.recount(text) == text, seed
        assert gen.expectations(text)[0] >= 1


@pytest.mark.parametrize("expected, actual, rtol, ok", [
    ("a 12 1.000000000e+00", "a 12 1.0000000001e+00", 1e-9, True),
    ("a 12", "a 13", 1e-3, False),  # integers are exact whatever the tolerance
    ("1.0e+00", "1.1e+00", 1e-6, False),
    ("1.0e+00", "1.1e+00", 0.1, True),
    ("1 2", "1", 1e-6, False),
    ("1", "1 2", 1e-6, False),
    ("x 1.5", "y 1.5", 1e-6, False),
    ("nan -nan inf", "-nan nan inf", 1e-9, True),
    ("inf", "-inf", 1.0, False),
    ("0.0", "1e-320", 1e-9, True),  # below the absolute floor (1e-300)
    ("0.0", "1e-3", 1e-9, False),
    ("2", "2.0", 1.0, False),  # an integer is not a floating-point token
])
def test_comparator(expected, actual, rtol, ok):
    res = compare.compare_outputs(expected, actual, rtol)
    assert res.ok == ok, res.message
    assert bool(res) == ok and (res.message == "") == ok


def test_comparator_reports_worst_error_and_position():
    res = compare.compare_outputs("a 1.0 b 2.0", "a 1.001 b 2.0000001", 1e-2)
    assert res.ok and abs(res.worst - 0.001 / 1.001) < 1e-12
    res = compare.compare_outputs("a 1.0 b 2.0", "a 1.0 b 2.5", 1e-2)
    assert not res.ok and res.message.startswith("token 3:") and "relative error 0.2" in res.message


def test_minimiser_candidates_compile(tmp_path):
    need_gcc()
    text = gen.generate(42)
    for n, cand in enumerate(reducer.candidates(text.split("\n"))):
        if n >= 30:
            break
        src = tmp_path / f"c{n}.c"
        src.write_text(gen.recount("\n".join(cand)))
        p = subprocess.run(["gcc", "-std=gnu99", "-fopenmp", "-fsyntax-only", str(src)],
                           capture_output=True, text=True, check=False)
        assert p.returncode == 0, p.stderr


def _check(text: str, camp, opencl_available: bool, what: str) -> None:
    v = oracle.check(text, camp)
    assert v.ok, f"{what}: " + "; ".join(f"{f.category}: {f.detail[:400]}" for f in v.failures)
    if not opencl_available:
        pytest.skip("no OpenCL device here: only the OpenMP-host and auto runs were compared")


@pytest.mark.parametrize("seed", SEEDS)
def test_fuzz_program(seed, camp, opencl_available):
    text = gen.generate(seed)
    assert gen.expectations(text)[0] >= 1
    _check(text, camp, opencl_available, f"seed {seed}")


@pytest.mark.skipif(not REGRESSIONS, reason="no saved fuzz failures (tests/fuzz_regressions/)")
@pytest.mark.parametrize("src", REGRESSIONS or [None], ids=lambda p: p.stem if p else "none")
def test_fuzz_regression(src, camp, opencl_available):
    _check(src.read_text(), camp, opencl_available, src.name)
