"""Residency benchmark: what ompcl moves between host and device on a discrete-style device.

Builds each NAS benchmark of ``nas_benchmarks/`` with ``ompcl cc`` and runs it with every
offloaded loop on the OpenCL device and copying buffers (``OMPCL_ZERO_COPY=0``, the
transfers of a discrete GPU), once with residency (data left on the device across kernels,
loops and calls; host code syncs what it touches) and once without (``OMPCL_RESIDENCY=0``:
each region copies its arrays in and out), interleaved per repeat. Prints bytes moved each way
(and over the data bytes the device held, ``data_bytes`` of ``OMPCL_STATS``) and run time,
with the ratios naive / resident, from one run.

Usage: python -m ompcl.bench.residency [--class S] [--benchmarks bt,cg] [--repeats 3]
       [--json FILE]
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import click

from .command import bench_command, run_command
from .npb_native import NPB_DIR, available_benchmarks, parse_report

ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true",
       "OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"}
MODES = (("resident", {}), ("naive", {"OMPCL_RESIDENCY": "0"}))


def build(bm: str, cls: str, bindir: Path) -> Path | None:
    cc = f"{sys.executable} -m ompcl cc"
    res = subprocess.run(["make", "-s", "-C", str(NPB_DIR), f"CLASS={cls}", f"BENCHMARKS={bm}",
                          f"BINDIR={bindir}", f"CC={cc}"], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(NPB_DIR.parent)})
    exe = bindir / f"{bm}.{cls}.omp"
    if res.returncode != 0 or not exe.exists():
        print(f"{bm}: build failed\n{res.stdout[-2000:]}{res.stderr[-2000:]}", file=sys.stderr)
        return None
    return exe


def run_once(exe: Path, extra: dict[str, str], stats: Path) -> dict:
    stats.unlink(missing_ok=True)  # a program without regions writes none
    env = {**os.environ, **ENV, **extra, "OMPCL_STATS": str(stats)}
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=1800)
    report = parse_report(out.stdout + out.stderr)
    st = json.loads(stats.read_text()) if stats.exists() else {}
    tot = st.get("totals", {})
    return {"verified": report["verification"] == "SUCCESSFUL" and out.returncode == 0,
            "time_s": report["time_s"], "bytes_to_device": tot.get("bytes_to_device", 0),
            "bytes_to_host": tot.get("bytes_to_host", 0), "data_bytes": tot.get("data_bytes", 0),
            "transfers": tot.get("transfers_to_device", 0) + tot.get("transfers_to_host", 0),
            "on_device": sum(1 for r in st.get("regions", []) if r["device_runs"] > 0)}


def measure(exe: Path, repeats: int, scratch: Path) -> dict[str, dict]:
    runs: dict[str, list[dict]] = {m: [] for m, _ in MODES}
    run_once(exe, {}, scratch / f"{exe.name}.warm.json")  # fills the kernel binary cache
    for k in range(repeats):
        for mode, extra in MODES:
            runs[mode].append(run_once(exe, extra, scratch / f"{exe.name}.{mode}{k}.json"))
    out = {}
    for mode, rows in runs.items():
        times = [r["time_s"] for r in rows if r["time_s"] is not None]
        out[mode] = {**rows[-1], "verified": all(r["verified"] for r in rows),
                     "time_s": statistics.median(times) if times else None}
    return out


def _ratio(a, b) -> str:
    return f"{a / b:8.1f}x" if a and b else "       -"


def _mb(x: float) -> str:
    return f"{x / 1e6:10.1f}"


def _over(x: float, data: float) -> str:
    return f"{x / data:7.2f}x" if data else "       -"


def table(results: dict[str, dict[str, dict]]) -> str:
    """Bytes each way with residency (and over the data the device held: 1.0x moves each
    byte once) and without, run times, whether both verified."""
    head = (f"{'bench':<6} {'loops':>5} {'MB data':>8} {'MB to dev':>10} {'/data':>8} "
            f"{'naive':>10} {'ratio':>9} {'MB to host':>10} {'/data':>8} {'naive':>10} "
            f"{'ratio':>9} {'time s':>7} {'naive':>7} {'ratio':>9}  verified")
    lines = [head, "-" * len(head)]
    for bm, r in results.items():
        a, b = r["resident"], r["naive"]
        data = a.get("data_bytes", 0)
        lines.append(
            f"{bm:<6} {a['on_device']:>5} {data / 1e6:8.2f} {_mb(a['bytes_to_device'])} "
            f"{_over(a['bytes_to_device'], data)} {_mb(b['bytes_to_device'])} "
            f"{_ratio(b['bytes_to_device'], a['bytes_to_device'])} {_mb(a['bytes_to_host'])} "
            f"{_over(a['bytes_to_host'], data)} {_mb(b['bytes_to_host'])} "
            f"{_ratio(b['bytes_to_host'], a['bytes_to_host'])} "
            f"{a['time_s'] or 0:7.2f} {b['time_s'] or 0:7.2f} {_ratio(b['time_s'], a['time_s'])}"
            f"  {'yes' if a['verified'] and b['verified'] else 'NO'}")
    return "\n".join(lines)


@bench_command("residency",
               "Bytes moved and time with copying buffers, residency on and off (NAS).",
               help=__doc__.split("\n\n")[1])
@click.option("--class", "cls", default="S", show_default=True, help="NAS problem class.")
@click.option("--benchmarks", default="", help="Comma-separated (default: all).")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Runs of each way (the median is shown).")
@click.option("--json", metavar="FILE", help="Also write the results to FILE.")
def cli(**params) -> int:
    """``ompcl bench residency``; returns the exit status (1 when a run fails to verify)."""
    args = SimpleNamespace(**params)
    names = [b for b in args.benchmarks.split(",") if b] or available_benchmarks()
    results = {}
    with tempfile.TemporaryDirectory(prefix="ompcl-residency-") as tmp:
        for bm in names:
            exe = build(bm, args.cls, Path(tmp))
            if exe is None:
                continue
            print(f"running {bm}.{args.cls} ...", file=sys.stderr, flush=True)
            results[bm] = measure(exe, args.repeats, Path(tmp))
    print(f"NAS class {args.cls}, every offloaded loop on the device, copying buffers; "
          f"{ENV['OMP_NUM_THREADS']} threads, OMP_WAIT_POLICY={ENV['OMP_WAIT_POLICY']}; "
          f"median of {args.repeats}")
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0 if all(r["resident"]["verified"] and r["naive"]["verified"]
                    for r in results.values()) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.residency``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench residency")


if __name__ == "__main__":
    sys.exit(main())
