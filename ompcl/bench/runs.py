"""Runs of benchmark executables, for ``ompcl bench nas``: the variants and one verified run.

Consumes an executable built by ``trees`` and a variant (which build, which environment).
Produces a ``Run``: the benchmark's own report (time, Mop/s, verification line), its exit
status, the wall-clock seconds of the process and, for builds made with ompcl, the path of its
``OMPCL_STATS`` report. A run counts as verified only when its report says SUCCESSFUL and it
exited with status 0.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from .npb_native import parse_report


@dataclass(frozen=True)
class Variant:
    """How a variant runs: the build it uses and the environment it adds."""
    name: str
    flavour: str          # the build (trees.FLAVOURS)
    env: tuple[tuple[str, str], ...]
    threaded: bool        # runs with OMP_NUM_THREADS=N
    help: str

    @property
    def stats(self) -> bool:
        """Builds made with ompcl write runtime statistics."""
        return self.flavour == "ompcl"


VARIANTS: dict[str, Variant] = {v.name: v for v in (
    Variant("seq", "seq", (), False, "sequential build (no OpenMP)"),
    Variant("omp", "omp", (), True, "OpenMP build, N threads"),
    Variant("ocl", "ompcl", (("OMPCL_DEVICE", "opencl"),), True,
            "built with ompcl, every offloaded region forced to the OpenCL device"),
    Variant("auto", "ompcl", (("OMPCL_DEVICE", "auto"),), True,
            "built with ompcl, learned dispatch (the compiled-in model, or --model)"),
    Variant("host", "ompcl", (("OMPCL_DEVICE", "openmp"),), True,
            "built with ompcl, every region on the OpenMP host (measured with ocl, for the "
            "per-region oracle and the training rows)"),
)}
DEFAULT_VARIANTS = ("seq", "omp", "ocl", "auto")


@dataclass
class Run:
    """One execution of one variant."""
    benchmark: str
    cls: str
    variant: str
    threads: int
    repeat: int            # 0: a warm-up run (never a timing)
    verified: bool
    status: str            # SUCCESSFUL, UNSUCCESSFUL, NO REPORT, TIMEOUT, EXIT <n>
    returncode: int | None
    time_s: float | None   # the benchmark's own timer
    mops: float | None
    wall_s: float          # the whole process
    stats: str | None      # OMPCL_STATS file, when it was written
    log: str

    @property
    def timed(self) -> bool:
        return self.repeat > 0 and self.verified

    def record(self) -> dict:
        d = asdict(self)
        d["class"] = d.pop("cls")
        return d


def run_env(variant: Variant, threads: int, omp_env: dict[str, str],
            extra: dict[str, str]) -> dict[str, str]:
    """The variables a run sets (recorded with it): the OpenMP settings for threaded
    variants, the variant's own, then the user's ``--env``."""
    env: dict[str, str] = {}
    if variant.threaded:
        env.update(OMP_NUM_THREADS=str(threads), **omp_env)
    else:  # a seq build that needed the OpenMP runtime (trees.Build.openmp_one_thread)
        env.update(OMP_NUM_THREADS="1")
    env.update(dict(variant.env))
    env.update(extra)
    return env


def _status(report: dict, rc: int | None) -> str:
    if rc is None:
        return "TIMEOUT"
    if report["verification"] is None:
        return "NO REPORT" if rc == 0 else f"EXIT {rc}"
    if report["verification"] == "SUCCESSFUL" and rc != 0:
        return f"EXIT {rc}"
    return report["verification"]


def run_once(exe: Path, variant: Variant, threads: int, env_vars: dict[str, str],
             where: tuple[str, str, int], log_dir: Path, stats_dir: Path,
             timeout: float | None = None) -> Run:
    """Runs ``exe`` once as ``variant`` (``where``: benchmark, class, repeat) and keeps its
    output in ``log_dir`` and its statistics in ``stats_dir``."""
    bm, cls, rep = where
    name = f"{bm}.{cls}.{variant.name}.t{threads}.{'warmup' if rep == 0 else f'r{rep}'}"
    env = {k: v for k, v in os.environ.items()
           if k not in ("OMP_NUM_THREADS", "OMPCL_STATS", "OMPCL_DEVICE")}
    env.update(env_vars)
    stats = stats_dir / f"{name}.json" if variant.stats else None
    if stats is not None:
        stats.unlink(missing_ok=True)
        env["OMPCL_STATS"] = str(stats)
    t0 = time.perf_counter()
    try:
        res = subprocess.run([str(exe)], capture_output=True, text=True, env=env,
                             timeout=timeout)
        output, rc = res.stdout + res.stderr, res.returncode
    except subprocess.TimeoutExpired:
        output, rc = f"timeout after {timeout} s\n", None
    wall = time.perf_counter() - t0
    log = log_dir / f"{name}.txt"
    log.write_text(f"$ {shlex.join(f'{k}={v}' for k, v in env_vars.items())} {exe}\n{output}")
    report = parse_report(output)
    status = _status(report, rc)
    return Run(bm, cls, variant.name, threads, rep, status == "SUCCESSFUL", status, rc,
               report["time_s"], report["mops"], wall,
               str(stats) if stats is not None and stats.is_file() else None, str(log))
