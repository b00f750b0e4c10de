"""C runtime (ompcl/runtime/ompcl_rt*.c): build tests/runtime/*.c, hand-written the way ompcl
generates host code, and run them on the OpenCL device, on OpenMP, with injected faults and under
sanitizers.  Device checks skip with a reason where no OpenCL device exists.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ompcl.runtime import RUNTIME_SOURCES

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "ompcl" / "runtime"
PROGRAM = ROOT / "tests" / "runtime" / "rt_regions.c"
BAD_KERNEL = ROOT / "tests" / "runtime" / "rt_bad_kernel.c"
N = 1000  # array length in rt_regions.c
DEVICE_LINES = [10, 20, 30, 40, 50, 60]  # 70: an empty loop; 80: run inside a parallel region
WARNING = "ompcl: warning:"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is required")


def _build(out: Path, flags: tuple[str, ...] = (), program: Path = PROGRAM) -> Path:
    cmd = ["gcc", "-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror", *flags, str(program),
           *(str(RUNTIME / f) for f in RUNTIME_SOURCES), f"-I{RUNTIME}", "-lm", "-ldl", "-o",
           str(out)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return out


class Run:
    """One execution: exit status, output, and the OMPCL_STATS report by region line."""

    def __init__(self, exe: Path, base_env: dict[str, str], stats: Path, args: tuple[str, ...],
                 **env: str):
        full = {**base_env, **env, "OMPCL_STATS": str(stats)}
        proc = subprocess.run([str(exe), *args], env=full, capture_output=True, text=True,
                              timeout=60, check=False)
        self.rc, self.stdout, self.stderr = proc.returncode, proc.stdout, proc.stderr
        self.stats = json.loads(stats.read_text())
        self.regions = {r["line"]: r for r in self.stats["regions"]}
        self.warnings = [ln for ln in self.stderr.splitlines() if ln.startswith(WARNING)]

    def check_ok(self) -> None:
        assert self.rc == 0 and self.stdout.endswith("OK\n"), self.stdout + self.stderr


@pytest.fixture(scope="module")
def base_env(tmp_path_factory) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPCL_", "ASAN_"))}
    env["OMPCL_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    env["TMPDIR"] = str(tmp_path_factory.mktemp("tmp"))  # sources of failed builds land here
    env["OMP_WAIT_POLICY"] = "passive"  # spinning OpenMP threads starve PoCL's (DESIGN.md 8)
    return env


@pytest.fixture(scope="module")
def exe(tmp_path_factory) -> Path:
    return _build(tmp_path_factory.mktemp("bin") / "rt_regions")


@pytest.fixture
def run(exe, base_env, tmp_path):
    def _run(*args: str, program: Path | None = None, **env: str) -> Run:
        stats = tmp_path / f"stats{len(list(tmp_path.iterdir()))}.json"
        return Run(program or exe, base_env, stats, args, **env)
    return _run


@pytest.fixture(scope="module")
def device_run(exe, base_env, tmp_path_factory) -> Run:
    """A run in auto mode with copying buffers (so transfers are counted); skips the test
    where no OpenCL device is available."""
    r = Run(exe, base_env, tmp_path_factory.mktemp("dev") / "stats.json", (),
            OMPCL_ZERO_COPY="0")
    if not r.stats["device"]["available"]:
        pytest.skip("no OpenCL platform/device on this machine (device checks need one)")
    return r


@pytest.mark.parametrize("flags", [[], ["-fopenmp"], ["-fsanitize=address,undefined"]],
                         ids=["plain", "openmp", "sanitize"])
def test_runtime_compiles_warning_free(flags, tmp_path):
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", *flags, "-c",
                    *(str(RUNTIME / f) for f in RUNTIME_SOURCES), f"-I{RUNTIME}"],
                   check=True, cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.glob("*.o")) == sorted(
        f[:-2] + ".o" for f in RUNTIME_SOURCES)


@pytest.fixture(scope="module")
def openmp_run(exe, base_env, tmp_path_factory) -> Run:
    return Run(exe, base_env, tmp_path_factory.mktemp("omp") / "stats.json", (),
               OMPCL_DEVICE="openmp")


def test_device_results(device_run, openmp_run):
    device_run.check_ok()
    assert device_run.stdout == openmp_run.stdout
    assert device_run.warnings == []
    for line in DEVICE_LINES:
        r = device_run.regions[line]
        assert r["device_runs"] == 1 and r["kernels_launched"] == 1 and r["host_runs"] == 0, r
        assert r["fallback"] is None
    assert device_run.regions[70]["host_runs"] == 1  # zero iterations: never the device
    assert device_run.regions[80]["device_runs"] == 0  # every thread of the team ran the host path
    assert device_run.regions[80]["host_runs"] == device_run.regions[80]["entries"] >= 1


def test_openmp_never_touches_the_device(openmp_run):
    r = openmp_run
    r.check_ok()
    assert r.stats["mode"] == "openmp" and not r.stats["device"]["available"]
    assert r.warnings == []
    for region in r.stats["regions"]:
        assert region["device_runs"] == 0 and region["host_runs"] == region["entries"] >= 1


def test_zero_copy_buffers(device_run, exe, base_env, tmp_path):
    """Over host memory (CL_MEM_USE_HOST_PTR) results are the same and nothing is copied."""
    r = Run(exe, base_env, tmp_path / "zc.json", (), OMPCL_ZERO_COPY="1")
    r.check_ok()
    assert r.stdout == device_run.stdout
    assert r.stats["device"]["zero_copy"] is True
    assert all(x["bytes_to_device"] == 0 and x["bytes_to_host"] == 0 for x in r.stats["regions"])
    assert sum(x["device_runs"] for x in r.stats["regions"]) > 0


def test_residency(device_run):
    regions = device_run.regions
    # r0 (kept resident) uploads a and b; r1 reads both through the same mappings
    assert regions[10]["bytes_to_device"] == 2 * N * 8
    assert regions[20]["bytes_to_device"] == 0
    assert regions[10]["bytes_to_host"] == N * 8  # only a was written, read back once
    # r5's range overlaps r4's resident d[0:50]: the mapping grows to d[0:100] on the device
    # (d[0:50] copied there), only d[50:100] is sent, nothing read back
    assert regions[50]["bytes_to_host"] == 0
    assert regions[60]["bytes_to_device"] == 50 * 8


def test_binary_cache(device_run, run, base_env):
    assert list(Path(base_env["OMPCL_CACHE_DIR"]).glob("*.bin"))
    r = run(OMPCL_LOG="1")
    r.check_ok()
    assert "built rt_regions.c from cache" in r.stderr


def test_binary_cache_keeps_its_size(device_run, run, tmp_path):
    """Past OMPCL_CACHE_MB the least recently used binaries go (a loaded one counts as used),
    down to three quarters of the limit; the binary just built stays."""
    cache = tmp_path / "cache"
    cache.mkdir()
    for k in range(4):
        old = cache / f"{k:016x}.bin"
        old.write_bytes(b"\0" * 1048576)
        os.utime(old, (1000 + k, 1000 + k))
    keep = cache / "notes.txt"
    keep.write_text("not a binary")
    r = run(OMPCL_CACHE_DIR=str(cache), OMPCL_CACHE_MB="2.5", OMPCL_LOG="1")
    r.check_ok()
    assert "pruned the kernel cache" in r.stderr
    left = sorted(p.name for p in cache.glob("*.bin"))
    assert len(left) == 2 and left[0] == f"{3:016x}.bin", left  # the newest fake, the new one
    assert keep.exists()


def test_no_platform_runs_on_host_quietly(run):
    r = run(OMPCL_PLATFORM="no-such-platform")
    r.check_ok()
    assert not r.stats["device"]["available"] and r.warnings == []
    assert all(region["device_runs"] == 0 for region in r.stats["regions"])


@pytest.mark.parametrize("fault", ["platform", "build", "alloc", "launch"])
def test_fault_falls_back_to_host(fault, run, request):
    if fault != "platform":
        request.getfixturevalue("device_run")  # skips without a device
    r = run("2", OMPCL_DEVICE="opencl", OMPCL_FAULT=fault)  # two passes over every region
    r.check_ok()
    for line in DEVICE_LINES:
        region = r.regions[line]
        assert region["device_runs"] == 0 and region["host_runs"] == 2
        assert region["fallback"], region
    # one warning for the process, however many regions fail and however often
    assert len(r.warnings) == 1, r.stderr


def test_build_failure_warns_once_with_log_and_source(device_run, run, tmp_path, base_env):
    r = run(program=_build(tmp_path / "rt_bad", program=BAD_KERNEL), OMPCL_DEVICE="opencl")
    r.check_ok()
    assert len(r.warnings) == 1 and "build failed" in r.warnings[0], r.stderr
    assert "build log:" in r.stderr and "ompcl_undeclared" in r.stderr
    saved = Path(r.warnings[0].rsplit("source: ", 1)[1])
    assert saved.parent == Path(base_env["TMPDIR"]) and "ompcl_undeclared" in saved.read_text()
    region = r.regions[9]
    assert region["host_runs"] == 3 and region["fallback"] == "OpenCL program build failed"


def test_sanitizers(tmp_path, run, base_env):
    asan = _build(tmp_path / "rt_asan", ("-g", "-fsanitize=address,undefined",
                                         "-fno-omit-frame-pointer"))
    opts = {"UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1"}
    host = run("2", program=asan, OMPCL_DEVICE="openmp", **opts)
    host.check_ok()
    dev = run("2", program=asan, **opts)
    dev.check_ok()
    assert "runtime error" not in host.stderr + dev.stderr
