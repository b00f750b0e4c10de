"""Translated corpus programs built with -fsanitize=address,undefined run clean on the device
and on the host (the runtime, the generated host code and the user's code together)."""
from __future__ import annotations

import pytest

from ompcl.fuzz.oracle import SAN_ENV

from conftest import CORPUS, compare_outputs, gcc_build, ompcl_build, run
from test_corpus import expectations

PROGRAMS = sorted(CORPUS.glob("*.c"))
SAN = "-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all"


@pytest.mark.parametrize("src", PROGRAMS, ids=lambda p: p.stem)
def test_sanitized_translation_runs_clean(src, tmp_path, opencl_available):
    _, _, rtol = expectations(src)
    ref = tmp_path / "ref"
    gcc_build(src, ref)
    expected = run(ref).stdout
    exe = tmp_path / "san"
    res = ompcl_build([src], exe, "--cflags", SAN, "--ldflags", "-fsanitize=address,undefined")
    assert res.returncode == 0, res.stderr
    modes = ["openmp", "opencl"] if opencl_available else ["openmp"]
    for mode in modes:
        # copying buffers: every transfer is a memcpy the sanitizer sees, so a mapped range
        # that leaves its object is caught
        out = run(exe, OMPCL_DEVICE=mode, OMPCL_ZERO_COPY="0", OMPCL_BOUNDS_CHECK="1", **SAN_ENV)
        assert out.returncode == 0, f"{mode}: {out.stderr[-3000:]}"
        assert "runtime error" not in out.stderr and "AddressSanitizer" not in out.stderr, out.stderr
        compare_outputs(expected, out.stdout, rtol)
