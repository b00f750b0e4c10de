"""``ompcl cc`` as a drop-in compiler in existing builds: separate compilation and linking,
and the NAS Makefile run with CC="ompcl cc" (IS offloads its key-generation loops)."""
from __future__ import annotations

import json
import subprocess
import sys

from conftest import ROOT, run
from test_cli import _project

OMPCL_CC = f"{sys.executable} -m ompcl.cli cc"


def test_separate_compile_and_link(tmp_path, opencl_available):
    a, b = _project(tmp_path)
    inc = f"-I{tmp_path / 'inc'}"
    cc = OMPCL_CC.split()
    for src in (a, b):
        res = subprocess.run([*cc, "-O2", "-fopenmp", inc, "-DSCALE=2.0", "-c", src.name],
                             cwd=tmp_path, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    assert (tmp_path / "a.o").exists() and (tmp_path / "b.o").exists()
    res = subprocess.run([*cc, "-fopenmp", "a.o", "b.o", "-o", "app", "-lm"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "s.json"
    out = run(tmp_path / "app", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.stdout.strip() == "500500.000000"
    if opencl_available:
        regions = json.loads(stats.read_text())["regions"]
        assert len(regions) == 2 and all(r["device_runs"] == 1 for r in regions)


def test_syntax_error_through_cc(tmp_path):
    (tmp_path / "bad.c").write_text("int main( {\n")
    res = subprocess.run([*OMPCL_CC.split(), "-c", "bad.c"], cwd=tmp_path, capture_output=True,
                         text=True)
    assert res.returncode == 1
    assert res.stderr.splitlines() == ["bad.c:1:11: error: syntax error before '{'"]
    assert not (tmp_path / "bad.o").exists()


def test_nas_is_built_with_ompcl_cc(tmp_path, opencl_available):
    res = subprocess.run(["make", "-C", str(ROOT / "nas_benchmarks"), "CLASS=S", "BENCHMARKS=is",
                          f"CC={OMPCL_CC}", f"BINDIR={tmp_path}"], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    stats = tmp_path / "is.json"
    out = run(tmp_path / "is.S.omp", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0 and "SUCCESSFUL" in out.stdout, out.stdout[-2000:]
    if opencl_available:
        regions = json.loads(stats.read_text())["regions"]
        assert regions and all(r["device_runs"] >= 1 and r["fallback"] is None for r in regions)
