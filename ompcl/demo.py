"""``make demo``: translate the shipped heat-diffusion example, build it, run it on the OpenCL
device and on the OpenMP host, and show that the results agree, with timings.

Usage: ``python -m ompcl.demo [--steps N] [--out DIR]``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
from pathlib import Path

from .outputs import build_executable, output_names, write_outputs
from .pipeline import translate

EXAMPLE = Path(__file__).with_name("examples") / "heat2d.c"
_VALUE = re.compile(r"=\s*(\S+)$")


def _run(exe: Path, steps: int, **env: str) -> tuple[str, float, str]:
    full = dict(os.environ, OMP_WAIT_POLICY="passive", **env)
    t0 = time.perf_counter()
    p = subprocess.run([str(exe), str(steps)], capture_output=True, text=True, env=full, check=True)
    return p.stdout, time.perf_counter() - t0, p.stderr


def _values(out: str) -> list[float]:
    return [float(m[1]) for line in out.splitlines() if (m := _VALUE.search(line))]


def _rel_diff(ref: list[float], vals: list[float]) -> float:
    """Largest relative difference between two runs' values (inf if they differ in count)."""
    if len(ref) != len(vals):
        return float("inf")
    return max((abs(a - b) / max(abs(a), 1e-300) for a, b in zip(ref, vals)), default=0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--out", default="demo_out")
    args = ap.parse_args()
    out = Path(args.out)
    print(f"== translating {EXAMPLE.name}")
    t = translate(str(EXAMPLE))
    for m in t.remarks:
        print("  " + m.format().replace(str(EXAMPLE.parent) + "/", ""))
    write_outputs([t], out)
    exe, ref = out / "heat2d", out / "heat2d_ref"
    build_executable([output_names(t, out)["host"]], out, exe)
    subprocess.run(["gcc", "-O2", "-fopenmp", str(EXAMPLE), "-o", str(ref), "-lm"], check=True)
    print(f"== built {exe} (translated) and {ref} (original, gcc -fopenmp)\n")
    runs = {"original OpenMP": _run(ref, args.steps)}
    stats = out / "stats_opencl.json"
    runs["ompcl, OMPCL_DEVICE=opencl"] = _run(exe, args.steps, OMPCL_DEVICE="opencl",
                                              OMPCL_STATS=str(stats))
    runs["ompcl, OMPCL_DEVICE=openmp"] = _run(exe, args.steps, OMPCL_DEVICE="openmp")
    ref_vals = _values(runs["original OpenMP"][0])
    print(runs["original OpenMP"][0])
    print(f"{'run':30} {'wall s':>8} {'max rel. diff vs original':>27}")
    diffs = {name: _rel_diff(ref_vals, _values(out)) for name, (out, _, _) in runs.items()}
    for name, (_, secs, _) in runs.items():
        print(f"{name:30} {secs:8.3f} {diffs[name]:27.2e}")
    data = json.loads(stats.read_text())
    dev = data["device"]
    print(f"\nOpenCL device: {dev.get('name') or 'none'} ({dev.get('platform') or '-'})")
    for r in data["regions"]:
        print(f"  {Path(r['file']).name}:{r['line']}: {r['kernel']}: device runs {r['device_runs']}, "
              f"host runs {r['host_runs']}, kernels {r['kernels_launched']}, "
              f"{r['bytes_to_device'] / 1e6:.1f} MB to device, {r['bytes_to_host'] / 1e6:.1f} MB back")
    agree = max(diffs.values()) < 1e-9
    print("\nresults agree (relative difference < 1e-9)" if agree else "\nRESULTS DIFFER")
    raise SystemExit(0 if agree else 1)


if __name__ == "__main__":
    main()
