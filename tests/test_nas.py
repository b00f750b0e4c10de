"""Build and run the NAS Parallel Benchmarks (nas_benchmarks/) at class S.

Every directory nas_benchmarks/<bm>/ holding <bm>/<bm>.c is a benchmark; each
is built (sequential and OpenMP) into a temporary directory and must verify.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable

import pytest

NPB_DIR = Path(__file__).resolve().parent.parent / "nas_benchmarks"


def _discover() -> list[str]:
    if not NPB_DIR.is_dir():
        return []
    return sorted(d.name for d in NPB_DIR.iterdir()
                  if d.is_dir() and (d / f"{d.name}.c").is_file())


BENCHMARKS = _discover()

pytestmark = pytest.mark.skipif(shutil.which("make") is None or shutil.which("gcc") is None,
                                reason="make and gcc are required")


def _make(bindir: Path, benchmarks: str, *extra: str) -> None:
    cmd = ["make", "-C", str(NPB_DIR), "CLASS=S", f"BINDIR={bindir}",
           f"BENCHMARKS={benchmarks}", "-j2", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, f"build failed:\n{res.stdout}\n{res.stderr}"


@pytest.fixture(scope="session")
def build(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Builds one benchmark at class S (once per session); returns BINDIR."""
    bindir = tmp_path_factory.mktemp("npb_bin")
    built: set[str] = set()

    def _build(bm: str) -> Path:
        if bm not in built:
            _make(bindir, bm)
            built.add(bm)
        return bindir

    return _build


def _run(exe: Path, threads: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("OMP_NUM_THREADS", None)
    if threads is not None:
        env.update(OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, env=env)


def _verification(out: str) -> str:
    m = re.search(r"^ Verification\s+=\s+(\S+)\s*$", out, re.M)
    assert m, f"no Verification line in output:\n{out}"
    return m.group(1)


def test_benchmarks_discovered() -> None:
    assert {"ep", "is", "cg"} <= set(BENCHMARKS)


@pytest.mark.parametrize("variant", ["seq", "omp"])
@pytest.mark.parametrize("bm", BENCHMARKS)
def test_class_s_verifies(build: Callable[[str], Path], bm: str, variant: str) -> None:
    exe = build(bm) / f"{bm}.S.{variant}"
    assert exe.is_file()
    res = _run(exe, threads=2 if variant == "omp" else None)
    out = res.stdout + res.stderr
    assert _verification(out) == "SUCCESSFUL", out
    assert "UNSUCCESSFUL" not in out
    assert res.returncode == 0, out
    assert re.search(r"^ Class\s+=\s+S$", out, re.M), out
    threads = re.search(r"^ Total threads\s+=\s+(\d+)$", out, re.M)
    assert threads and int(threads.group(1)) == (2 if variant == "omp" else 1), out


@pytest.mark.parametrize("bm", ["cg", "is"])
def test_wrong_reference_fails(tmp_path: Path, bm: str) -> None:
    """-DNPB_FORCE_FAIL perturbs the reference values: must report failure."""
    if bm not in BENCHMARKS:
        pytest.skip(f"{bm} not present")
    _make(tmp_path, bm, "CPPFLAGS=-DNPB_FORCE_FAIL")
    res = _run(tmp_path / f"{bm}.S.omp", threads=2)
    out = res.stdout + res.stderr
    assert _verification(out) == "UNSUCCESSFUL", out
    assert res.returncode != 0
