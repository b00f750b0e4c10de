"""The machine and settings a benchmark round ran with, for ``ompcl bench nas``.

Consumes the host (``/proc/cpuinfo``, the load average, the compilers' ``--version``, git) and
the ``OMPCL_STATS`` report of a device run (the OpenCL platform and device). Produces a JSON-able
record of the environment, so results from different machines and days can be told apart.
"""
from __future__ import annotations

import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _first_line(cmd: list[str]) -> str | None:
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (res.stdout or res.stderr).strip().splitlines()
    return lines[0] if res.returncode == 0 and lines else None


def compiler_versions(compilers: list[str]) -> dict[str, str | None]:
    """``--version`` of each compiler command (None: it does not run)."""
    return {cc: _first_line([*cc.split(), "--version"]) for cc in dict.fromkeys(compilers)}


def ompcl_revision() -> str | None:
    return _first_line(["git", "-C", str(ROOT), "describe", "--always", "--dirty"])


#: variables of the caller's environment that change how the runs behave
_RUN_PREFIXES = ("OMP_", "GOMP_", "KMP_", "OMPCL_", "POCL_", "OCL_ICD")


def inherited_env() -> dict[str, str]:
    """The runtime-affecting variables every run inherits (OMP_NUM_THREADS, OMPCL_DEVICE and
    OMPCL_STATS are set per run instead)."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith(_RUN_PREFIXES)
            and k not in ("OMP_NUM_THREADS", "OMPCL_DEVICE", "OMPCL_STATS")}


def describe(omp_env: dict[str, str], threads: list[int], extra_env: dict[str, str],
             compilers: list[str], model: str | None) -> dict:
    """The environment record, taken before the first run."""
    return {
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": platform.node(),
        "cpu": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "ompcl": ompcl_revision(),
        "compilers": compiler_versions(compilers),
        "OMP_NUM_THREADS": threads,
        **omp_env,
        "extra_env": extra_env,
        "inherited_env": inherited_env(),
        "OMPCL_CACHE_DIR": os.environ.get("OMPCL_CACHE_DIR", "~/.cache/ompcl (default)"),
        "model": model,
        "opencl": None,
        "load_before": load_average(),
    }


def opencl_of(stats: dict | None) -> dict | None:
    """The OpenCL platform and device a run used, from its statistics report."""
    dev = (stats or {}).get("device")
    if not dev:
        return None
    return {"available": dev.get("available"), "platform": dev.get("platform"),
            "device": dev.get("name"), "zero_copy": dev.get("zero_copy")}


def finish(env: dict) -> dict:
    """Adds the load average after the last run and the finishing time."""
    env.update(finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"), load_after=load_average())
    return env
