"""Shared fixtures: building and running original and translated programs."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.fuzz import compare, oracle

ROOT = Path(__file__).resolve().parents[1]
# every translation in the tests (in process and through the command line) checks the
# pipeline's unit between passes
os.environ["OMPCL_CHECK_IR"] = "1"
# no compile server outlives the tests: `ompcl cc` runs in process unless a test (test_server)
# starts one of its own
os.environ["OMPCL_SERVER"] = "0"
CORPUS = ROOT / "tests" / "corpus"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/expected from the current compiler output")


def run_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    # OMPCL_STARTUP=0: auto mode follows the model from the first loop (tests of its
    # decisions; the start-up deferral has tests of its own)
    env.update({"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMPCL_STARTUP": "0"})
    env.update(extra)
    return env


def gcc_build(src: Path, exe: Path, flags: list[str] = ()) -> None:
    cmd = ["gcc", "-std=gnu99", "-O2", "-fopenmp", *flags, str(src), "-o", str(exe), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)


def ompcl_build(srcs: list[Path], exe: Path, *args: str, keep: Path | None = None):
    cmd = [sys.executable, "-m", "ompcl.cli", "build", *map(str, srcs), "-o", str(exe), *args]
    if keep is not None:
        cmd += ["--keep", str(keep)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)


def build_both(tmp_path: Path, text: str, name: str = "p.c") -> tuple[Path, Path]:
    """``text`` written to ``name`` and built by gcc (``ref``) and by ``ompcl build --model
    none`` (``exe``)."""
    src = tmp_path / name
    src.write_text(text)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe, "--model", "none")
    assert res.returncode == 0, res.stderr
    return ref, exe


def run(exe: Path, *args: str, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                          env=run_env(**env))


#: the paths a translated program may take (issue 34), as the fuzzer runs them: the host path,
#: the device path with copying and with zero-copy buffers, and the team of one's host path
#: (every launch failing); each at every thread count of the fuzzer's reference
PATHS: dict[str, dict[str, str]] = {m: oracle.MODE_ENV[m] for m in oracle.PATH_MODES}
THREAD_COUNTS = tuple(sorted(oracle.THREADS, key=int))


def every_path(ref_exe: Path, exe: Path, rtol: float, threads=THREAD_COUNTS, paths=PATHS,
               **env: str) -> dict[str, str]:
    """Run the original ``ref_exe`` and the translation ``exe`` on every path at each thread
    count, the translation against the original at the same count; returns the original's
    output by thread count."""
    refs = {}
    for n in threads:
        ref = run(ref_exe, OMP_NUM_THREADS=n, **env)
        assert ref.returncode == 0, f"the original at {n} threads: {ref.stderr[-2000:]}"
        refs[n] = ref.stdout
        for name, penv in paths.items():
            out = run(exe, OMP_NUM_THREADS=n, **penv, **env)
            assert out.returncode == 0, f"{name} at {n} threads: rc={out.returncode} " \
                f"{out.stdout[-500:]} {out.stderr[-2000:]}"
            res = compare.compare_outputs(ref.stdout, out.stdout, rtol)
            assert res.ok, f"{name} at {n} threads: {res.message}"
    return refs


def same_output_on_device(src: Path, tmp_path: Path, rtol: float, ran=None, **env: str) -> None:
    """Build ``src`` with gcc and with ``ompcl build --model none``; run the translation on
    the device (with ``env``) with copying and zero-copy buffers and compare with gcc's
    output; where a device exists, ``ran(regions)`` (the statistics' regions) must hold."""
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe, "--model", "none")
    assert res.returncode == 0, res.stderr
    expected = run(ref).stdout
    stats = tmp_path / "s.json"
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats),
                  **env)
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, rtol)
        st = load_stats(stats)
        if ran is not None and st["device"]["available"]:
            assert ran(st["regions"]), st["regions"]


def compare_outputs(expected: str, actual: str, rtol: float) -> float:
    """Token-wise comparison with the fuzzer's comparator (ompcl.fuzz.compare): integers exact,
    floating-point numbers within rtol. Returns the largest relative error seen; raises
    AssertionError on a mismatch."""
    res = compare.compare_outputs(expected, actual, rtol)
    assert res.ok, f"{res.message}\n--- expected\n{expected[-2000:]}\n--- got\n{actual[-2000:]}"
    return res.worst


def load_stats(path: Path) -> dict:
    return json.loads(path.read_text())


def device_runs(exe: Path, *args: str, **env: str) -> list[int] | None:
    """The device runs of each region of ``exe`` forced to the device with copying buffers
    (statistics), or None where no OpenCL device exists; the run must succeed."""
    stats = exe.parent / f"{exe.name}-runs.json"
    out = run(exe, *args, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY="0", OMPCL_STATS=str(stats),
              **env)
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    return [r["device_runs"] for r in st["regions"]] if st["device"]["available"] else None


def report_lines(tmp_path: Path, text: str, name: str = "p.c") -> list[str]:
    """The ``ompcl translate --report`` lines about the loops of ``text`` (written to
    ``name``), in order; the translation must succeed."""
    src = tmp_path / name
    src.write_text(text)
    rep = subprocess.run([sys.executable, "-m", "ompcl.cli", "translate", str(src), "--report",
                          "-o", str(tmp_path / "report-out")], capture_output=True, text=True,
                         cwd=ROOT)
    assert rep.returncode == 0, rep.stderr
    return [ln for ln in rep.stdout.splitlines() if f"{name}:" in ln]


def kernels_launched(exe: Path, *args: str, **env: str) -> list[int] | None:
    """The kernels each region of ``exe`` launched forced to the device (copying buffers
    unless ``env`` says otherwise), or None where no OpenCL device exists; the run must
    succeed."""
    stats = exe.parent / f"{exe.name}-launched.json"
    env = {"OMPCL_ZERO_COPY": "0", **env}
    out = run(exe, *args, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats), **env)
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    return [r["kernels_launched"] for r in st["regions"]] if st["device"]["available"] else None


def device_output(exe: Path, **env: str) -> str:
    """``exe``'s output with OMPCL_DEVICE=opencl, the same with copying and with zero-copy
    buffers; where a device exists, every region in its statistics ran there."""
    outs = set()
    for zero_copy in ("0", "1"):
        stats = exe.parent / f"{exe.name}-stats-{zero_copy}.json"
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_STATS=str(stats), **env)
        assert out.returncode == 0, out.stderr
        st = load_stats(stats)
        if st["device"]["available"]:
            assert st["regions"] and all(r["device_runs"] > 0 for r in st["regions"])
        outs.add(out.stdout)
    assert len(outs) == 1, outs
    return outs.pop()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("clcache")
    os.environ["OMPCL_CACHE_DIR"] = str(d)
    return d


@pytest.fixture(scope="session")
def opencl_available(tmp_path_factory, cache_dir) -> bool:
    """Whether the runtime finds an OpenCL device here (probed with a translated program)."""
    d = tmp_path_factory.mktemp("probe")
    src = d / "probe.c"
    src.write_text("#include <stdio.h>\nint a[100];\nint main(void){int i;\n"
                   "#pragma omp parallel for\nfor(i=0;i<100;i++) a[i]=i;\n"
                   "printf(\"%d\\n\", a[99]); return 0;}\n")
    exe = d / "probe"
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    stats = d / "stats.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    return bool(load_stats(stats)["device"]["available"])


def need_gcc():
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
