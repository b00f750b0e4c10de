"""Dispatch overhead: ``python -m ompcl.bench.dispatch [--calls N] [--rounds R] [--threads 1,2]``.

Consumes nothing but a small OpenMP program (one region with tiny work, called ``--calls``
times after one untimed call); builds it with ``gcc -fopenmp`` (the original) and with ompcl
and a compiled-in model that always says "host", and runs, side by side in rotating order for
``--rounds`` rounds: the original, the ompcl build in auto mode (each call makes the cached
host decision: region entry, argument set-up, launch sizing, decision, the original loop) and
the ompcl build with ``OMPCL_DEVICE=openmp`` (no decision at all). Produces the median time
per call of each, the per-call difference and ratio against the original, and the compile-time
cost of a model (``gcc -O2 -c`` of a translated file with the model against ``--model none``);
``--json`` prints the same as JSON.

One OpenMP thread by default: the decision is made by the calling thread before the region's
team starts, and with more threads the team's start (a futex wake-up per region with
``OMP_WAIT_POLICY=passive``) costs tens of microseconds that vary with the machine's load far
more than the decision costs.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from ..predict.learners import constant
from ..predict.model import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[2]
PROGRAM = r"""#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#define N 16
double a[N], b[N];

static void step(long r)
{
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++)
    a[i] = b[i] * 0.5 + (double)r;
}

int main(int argc, char **argv)
{
  long calls = argc > 1 ? atol(argv[1]) : 100000, r;
  double t0, t1;
  for (r = 0; r < N; r++)
    b[r] = (double)r;
  step(0); /* untimed: runtime start, device set-up, the first (uncached) decision */
  t0 = omp_get_wtime();
  for (r = 0; r < calls; r++)
    step(r);
  t1 = omp_get_wtime();
  printf("per_call_ns %.3f check %.3f\n", (t1 - t0) / (double)calls * 1e9, a[N - 1]);
  return 0;
}
"""
ENV = {"OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true", "POCL_AFFINITY": "1"}
CONFIGS = (("openmp original (gcc -fopenmp)", "orig", {}),
           ("ompcl auto, cached host decision", "auto", {"OMPCL_DEVICE": "auto"}),
           ("ompcl OMPCL_DEVICE=openmp", "auto", {"OMPCL_DEVICE": "openmp"}))
_PER_CALL = re.compile(r"per_call_ns (\S+)")


def _env(threads: int, **extra: str) -> dict[str, str]:
    env = dict(os.environ, **ENV, OMP_NUM_THREADS=str(threads), **extra)
    env.pop("OMPCL_MODEL", None)  # the compiled-in model is what is measured
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    return env


def _sh(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True, check=True, **kw)


def build(work: Path) -> dict[str, Path]:
    """The original and the ompcl build (a compiled-in model that always says host)."""
    src, model = work / "dispatch.c", work / "host-model.json"
    src.write_text(PROGRAM)
    model.write_text(json.dumps(constant(False, "tree")))
    exes = {"orig": work / "orig", "auto": work / "auto"}
    _sh(["gcc", "-O2", "-fopenmp", str(src), "-o", str(exes["orig"])])
    _sh([sys.executable, "-m", "ompcl.cli", "build", str(src), "-o", str(exes["auto"]),
         "--model", str(model)], env=_env(1))
    return exes


def per_call_ns(exe: Path, calls: int, threads: int, **env: str) -> float:
    out = _sh([str(exe), str(calls)], env=_env(threads, **env)).stdout
    return float(_PER_CALL.search(out)[1])


def check_decisions(exe: Path, work: Path) -> dict:
    """Where the auto build's calls went (from OMPCL_STATS): they must be host decisions made
    with a device ready, or the benchmark does not measure the decision."""
    stats = work / "stats.json"
    _sh([str(exe), "100"], env=_env(1, OMPCL_STATS=str(stats)))
    st = json.loads(stats.read_text())
    r = st["regions"][0]
    return {"device_available": st["device"]["available"], "device": st["device"]["name"],
            "entries": r["entries"], "decisions_host": r["decisions_host"],
            "device_runs": r["device_runs"]}


def measure(exes: dict[str, Path], calls: int, rounds: int, threads: int) -> dict:
    """Median ns per call of each configuration over ``rounds`` rotating rounds."""
    times: dict[str, list[float]] = {name: [] for name, _, _ in CONFIGS}
    for k in range(rounds):
        order = CONFIGS[k % len(CONFIGS):] + CONFIGS[:k % len(CONFIGS)]
        for name, exe, env in order:
            times[name].append(per_call_ns(exes[exe], calls, threads, **env))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    orig, auto, omp = (med[c[0]] for c in CONFIGS)
    return {"threads": threads, "calls": calls, "rounds": rounds, "median_ns": med,
            "all_ns": times, "auto_minus_original_ns": auto - orig,
            "auto_over_original": auto / orig, "openmp_mode_minus_original_ns": omp - orig,
            "decision_ns": auto - omp}


def _compile_seconds(host: Path, repeats: int = 3) -> float:
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        _sh(["gcc", "-O2", "-fopenmp", "-c", str(host), "-o", str(host.with_suffix(".o"))],
            cwd=host.parent)
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def compile_cost(work: Path, model: Path) -> dict:
    """Seconds to compile a translated file with ``model`` compiled in, and without one."""
    out = {}
    for name, choice in (("with_model", str(model)), ("without_model", "none")):
        d = work / name
        _sh([sys.executable, "-m", "ompcl.cli", "translate", str(work / "dispatch.c"), "-o",
             str(d), "--model", choice], env=_env(1))
        out[name] = _compile_seconds(d / "dispatch_host.c")
    out["model"] = str(model)
    out["extra_seconds"] = out["with_model"] - out["without_model"]
    return out


def report(res: dict) -> str:
    lines = [f"dispatch overhead: one region with {16} iterations, called {res['runs'][0]['calls']}"
             f" times; medians of {res['runs'][0]['rounds']} rotating rounds"]
    c = res["check"]
    lines.append(f"auto build: {c['decisions_host']} host decisions in {c['entries']} entries, "
                 f"{c['device_runs']} on the device (device: {c['device'] or 'none'})")
    for run in res["runs"]:
        lines.append(f"\nOMP_NUM_THREADS={run['threads']}:")
        lines += [f"  {name:36}{ns:10.1f} ns/call" for name, ns in run["median_ns"].items()]
        lines.append(f"  auto - original: {run['auto_minus_original_ns']:.1f} ns/call "
                     f"(ratio {run['auto_over_original']:.2f}); of which the decision (auto - "
                     f"openmp mode): {run['decision_ns']:.1f} ns")
    if res.get("compile"):
        k = res["compile"]
        lines.append(f"\ncompiling a translated file (gcc -O2 -c): {k['with_model']:.3f} s with "
                     f"{k['model']}, {k['without_model']:.3f} s without (+{k['extra_seconds']:.3f}"
                     f" s)")
    worst = max(r["auto_minus_original_ns"] for r in res["runs"])
    lines.append(f"\ncached decision under a microsecond per call: "
                 f"{'yes' if worst < 1000 else 'NO'} ({worst:.0f} ns at most)")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m ompcl.bench.dispatch",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300000, help="region calls per run")
    ap.add_argument("--rounds", type=int, default=7, help="runs of each configuration")
    ap.add_argument("--threads", default="1", help="OpenMP thread counts, comma-separated")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL,
                    help="model whose compile-time cost is measured ('none': skip)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ompcl-dispatch-") as tmp:
        work = Path(tmp)
        exes = build(work)
        res = {"check": check_decisions(exes["auto"], work), "env": ENV,
               "load_average": list(os.getloadavg()),
               "runs": [measure(exes, args.calls, args.rounds, int(t))
                        for t in args.threads.split(",")]}
        if str(args.model) != "none" and args.model.exists():
            res["compile"] = compile_cost(work, args.model)
    print(json.dumps(res, indent=1) if args.json else report(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
