"""Oracle (stage 2 of the fuzzer): build one generated program with gcc -fopenmp (the reference)
and through ompcl, run the translation in every mode, and compare outputs, exit codes and where
each loop ran. Consumes a program's text; produces the failures found (none: the program passed).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .compare import compare_outputs
from .generator import expectations, generate

RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"
MODES = ("opencl", "openmp", "auto")
RUN_TIMEOUT = 10.0

@dataclass
class Campaign:
    """Per-campaign state: a work directory, the runtime compiled once, the cache directory."""

    work: Path
    rt_obj: Path
    rt_dir: Path
    device: bool = True  # whether the OpenCL half of the check runs


@dataclass
class Failure:
    category: str  # e.g. "mismatch:opencl", "verdict", "translate-exception:KeyError"
    detail: str


@dataclass
class Outcome:
    seed: int
    failure: Failure | None
    n_device: int = 0
    ran_on_device: int = 0
    seconds: float = 0.0
    text: str = ""


def setup(work: Path, device: bool = True) -> Campaign:
    """Snapshot the runtime (others may edit it) and compile it once."""
    work.mkdir(parents=True, exist_ok=True)
    rt_dir = work / "rt"
    rt_dir.mkdir(exist_ok=True)
    for f in ("ompcl_rt.h", "ompcl_rt.c"):
        shutil.copy(RUNTIME_DIR / f, rt_dir / f)
    obj = rt_dir / "ompcl_rt.o"
    subprocess.run(["gcc", "-O2", "-fopenmp", "-c", str(rt_dir / "ompcl_rt.c"), "-o", str(obj)],
                   check=True, capture_output=True, text=True)
    (work / "clcache").mkdir(exist_ok=True)
    return Campaign(work, obj, rt_dir, device)


def run_env(camp: Campaign, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive",
                "OMPCL_CACHE_DIR": str(camp.work / "clcache")})
    env.pop("OMPCL_LOG", None)
    env.pop("OMPCL_FAULT", None)
    env.update(extra)
    return env


def execute(exe: Path, env: dict[str, str]) -> tuple[int | None, str, str]:
    """Run exe; rc None on timeout."""
    try:
        p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=RUN_TIMEOUT,
                           env=env, check=False)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout, p.stderr


def _gcc(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", "-std=gnu99", "-O2", "-fopenmp", *args], capture_output=True,
                          text=True, check=False)


def reference(src: Path, d: Path, camp: Campaign) -> tuple[Failure | None, str]:
    exe = d / "ref"
    p = _gcc([str(src), "-o", str(exe), "-lm"])
    if p.returncode != 0:
        return Failure("generator:gcc", p.stderr[-2000:]), ""
    rc, out, err = execute(exe, run_env(camp))
    if rc != 0:
        return Failure("generator:ref-run", f"rc={rc} {err[-500:]}"), ""
    return None, out


def translated(src: Path, d: Path, camp: Campaign, n_dev: int,
               n_host: int) -> tuple[Failure | None, Path]:
    from ompcl.outputs import output_names, write_outputs
    from ompcl.pipeline import translate
    try:
        t = translate(str(src))
    except Exception as e:  # noqa: BLE001 - any compiler exception is a finding
        return Failure(f"translate-exception:{type(e).__name__}", str(e)[:2000]), d
    if len(t.offloaded) != n_dev:
        why = [f"line {r.loc.line}: {'; '.join(r.reasons)}" for r in t.regions if not r.offload]
        return Failure("verdict", f"{len(t.offloaded)} offloaded, expected {n_dev}: {why}"), d
    host = [m for m in t.diags.remarks if "not offloaded" in m.message]
    if len(host) != n_host:
        return Failure("verdict-host", f"{len(host)} host remarks, expected {n_host}: "
                                       f"{[m.format() for m in host]}"), d
    out = d / "out"
    try:
        write_outputs([t], out)
    except Exception as e:  # noqa: BLE001
        return Failure(f"write-exception:{type(e).__name__}", str(e)), d
    shutil.copy(camp.rt_dir / "ompcl_rt.h", out / "ompcl_rt.h")
    exe = d / "translated"
    p = _gcc([f"-I{out}", str(output_names(t, out)["host"]), str(camp.rt_obj), "-o", str(exe),
              "-lm", "-ldl"])
    if p.returncode != 0:
        return Failure("host-build", p.stderr[-3000:]), d
    return None, exe


def run_mode(exe: Path, d: Path, camp: Campaign, mode: str, ref: str, rtol: float,
             n_dev: int) -> tuple[Failure | None, int]:
    stats = d / f"stats_{mode}.json"
    rc, out, err = execute(exe, run_env(camp, OMPCL_DEVICE=mode, OMPCL_STATS=str(stats)))
    if rc is None:
        return Failure(f"timeout:{mode}", f"no exit within {RUN_TIMEOUT:g} s"), 0
    if rc != 0:
        return Failure(f"exit:{mode}", f"exit code {rc}: {err[-1500:]}"), 0
    res = compare_outputs(ref, out, rtol)
    if not res.ok:
        return Failure(f"mismatch:{mode}", res.message), 0
    try:
        st = json.loads(stats.read_text())
    except (OSError, ValueError) as e:
        return Failure(f"stats:{mode}", f"unreadable statistics: {e}"), 0
    regions = st.get("regions", [])
    on_dev = [r for r in regions if r["device_runs"] > 0]
    if mode == "openmp" and on_dev:
        return Failure("placement:openmp",
                       f"ran on the device under OMPCL_DEVICE=openmp: {on_dev}"), 0
    if mode == "opencl":
        if not st["device"]["available"]:
            return Failure("no-device", "OpenCL device not available"), 0
        bad = [r for r in on_dev if r["fallback"] is not None or r["host_runs"] != 0]
        if len(on_dev) != n_dev or bad:
            return Failure("placement:opencl", f"{len(on_dev)} regions ran on the device, "
                                               f"expected {n_dev}: {regions}"), 0
    return None, len(on_dev)


def check(text: str, camp: Campaign, modes: tuple[str, ...] = MODES) -> tuple[Failure | None, int]:
    """Build and run one program every way; the first failure found, and the number of regions
    that ran on the device under OMPCL_DEVICE=opencl."""
    n_dev, n_host, rtol = expectations(text)
    d = Path(tempfile.mkdtemp(dir=camp.work, prefix="p"))
    try:
        src = d / "fuzz.c"
        src.write_text(text)
        fail, ref = reference(src, d, camp)
        if fail:
            return fail, 0
        fail, exe = translated(src, d, camp, n_dev, n_host)
        if fail:
            return fail, 0
        ran = 0
        for mode in modes:
            if mode == "opencl" and not camp.device:
                continue
            fail, k = run_mode(exe, d, camp, mode, ref, rtol, n_dev)
            if fail:
                return fail, 0
            ran = max(ran, k) if mode == "opencl" else ran
        return None, ran
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fuzz_one(seed: int, camp: Campaign) -> Outcome:
    t0 = time.monotonic()
    text = generate(seed)
    fail, ran = check(text, camp)
    return Outcome(seed, fail, expectations(text)[0], ran, time.monotonic() - t0,
                   text if fail else "")


# ---------------------------------------------------------------------------------------------