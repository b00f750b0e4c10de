"""Dispatch overhead and whole-program effect: ``python -m ompcl.bench.dispatch [--calls N]
[--rounds R] [--threads 1,2]`` and ``python -m ompcl.bench.dispatch --nas W,A [--repeats 3]``.

Consumes nothing but a small OpenMP program (one region with tiny work, called ``--calls``
times after one untimed call); builds it with ``gcc -fopenmp`` (the original) and with ompcl
and a compiled-in model that always says "host", and runs, side by side in rotating order for
``--rounds`` rounds: the original, the ompcl build in auto mode (each call makes the cached
host decision: region entry, argument set-up, launch sizing, decision, the original loop) and
the ompcl build with ``OMPCL_DEVICE=openmp`` (no decision at all). Produces the median time
per call of each, the per-call difference and ratio against the original, and the compile-time
cost of a model (``gcc -O2 -c`` of a translated file with the model against ``--model none``);
``--json`` prints the same as JSON.

With ``--nas CLASSES`` it measures instead what the dispatch model (the default model, or
``--model``) does to whole programs: each NAS benchmark built with ``gcc -fopenmp`` (the
original) and with ``ompcl cc``, run in rotating order: the original, ompcl with every region on
the host (auto mode with an always-host model, so every region is timed), on the device
(``OMPCL_DEVICE=opencl``), ``model`` (auto mode with the model alone, ``OMPCL_PROBE=0``) and
``auto`` (the model checked by measurement, the default). Reported per benchmark and class: the
NAS timed section of each, the per-program oracle's (the faster of the original and the
all-device run: what choosing one device per program gets) and the per-region oracle's,
estimated from the host and device runs' statistics (the host run's time less, for each region,
what the device would have saved); ratios ``auto / original`` (must not exceed 1.05),
``program oracle / auto`` (auto's share of the per-program oracle, at least 0.95 asked) and
``oracle / auto`` (its share of the per-region oracle).

One OpenMP thread by default: the decision is made by the calling thread before the region's
team starts, and with more threads the team's start (a futex wake-up per region with
``OMP_WAIT_POLICY=passive``) costs tens of microseconds that vary with the machine's load far
more than the decision costs.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from ..diagnostics import FALLBACK_TAG
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
    """Where the auto build's calls went (from OMPCL_STATS): they must be host decisions, or
    the benchmark does not measure the decision. A model that says host whatever the device
    never starts OpenCL (``device_started`` false)."""
    stats = work / "stats.json"
    _sh([str(exe), "100"], env=_env(1, OMPCL_STATS=str(stats)))
    st = json.loads(stats.read_text())
    r = st["regions"][0]
    device = st.get("device") or {}
    return {"device_started": bool(device.get("available")), "device": device.get("name"),
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


# ---- whole programs: auto against the original, each device alone and the oracle ---------

NAS_ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true",
           "POCL_AFFINITY": "1"}
_NAS_TIME = re.compile(r"Time in seconds\s*=\s*(\S+)")
_NAS_OK = re.compile(r"Verification\s*=\s*SUCCESSFUL")


def nas_build(bm: str, cls: str, work: Path, model: str) -> dict[str, Path]:
    """The original (gcc -fopenmp) and the ompcl build (``model`` compiled in)."""
    nas = ROOT / "nas_benchmarks"
    cc = " ".join([sys.executable, "-m", "ompcl.cli", "cc"]
                  + ([f"--ompcl-model={model}"] if model else []))
    exes = {}
    for name, extra in (("orig", []), ("ompcl", [f"CC={cc}"])):
        d = work / name
        made = _sh(["make", "-s", "-C", str(nas), f"CLASS={cls}", f"BENCHMARKS={bm}",
                    f"BINDIR={d}", *extra], env=_env(2))
        if FALLBACK_TAG in made.stderr:  # a bad --model, a translation error: no ompcl
            raise RuntimeError(f"{bm}.{cls}: ompcl cc built originals: {made.stderr[-300:]}")
        exes[name] = d / f"{bm}.{cls}.omp"
    return exes


def nas_run(exe: Path, stats: Path | None, **env: str) -> tuple[float, float, dict]:
    """Wall seconds of the whole run, the NAS timed section's seconds (printed with two
    decimals: too coarse for small classes), and the statistics when asked for."""
    extra = dict(NAS_ENV, **env)
    if stats is not None:
        stats.unlink(missing_ok=True)
        extra["OMPCL_STATS"] = str(stats)
    e = _env(2)
    e.update(extra)  # after _env, which drops OMPCL_MODEL
    t0 = time.perf_counter()
    res = subprocess.run([str(exe)], capture_output=True, text=True, env=e, timeout=1800)
    wall = time.perf_counter() - t0
    if res.returncode or not _NAS_OK.search(res.stdout) or not _NAS_TIME.search(res.stdout):
        raise RuntimeError(f"{exe.name} ({env}) failed verification or exited "
                           f"{res.returncode}: {res.stderr[-300:]}")
    st = json.loads(stats.read_text()) if stats is not None and stats.exists() else {}
    return wall, float(_NAS_TIME.search(res.stdout)[1]), st


def region_seconds(stats: dict) -> dict[tuple, float]:
    """Seconds per region (host and device time alike) of one run's statistics."""
    return {(r["file"], r["line"]): r["seconds_host"] + r["seconds_device"]
            for r in stats.get("regions", [])}


def oracle_seconds(t_host: float, host: dict, device: dict) -> float:
    """The host run's time less what the device would have saved, region by region."""
    h, d = region_seconds(host), region_seconds(device)
    return t_host - sum(max(0.0, h[k] - d[k]) for k in h if k in d)


def nas_measure(bm: str, cls: str, work: Path, model: str, repeats: int) -> dict:
    exes = nas_build(bm, cls, work / f"{bm}.{cls}", model)
    host_model = work / "host-model.json"
    configs = (("original", "orig", {}),
               ("host", "ompcl", {"OMPCL_DEVICE": "auto", "OMPCL_MODEL": str(host_model),
                                  "OMPCL_PROBE": "0"}),
               ("device", "ompcl", {"OMPCL_DEVICE": "opencl"}),
               ("model", "ompcl", {"OMPCL_DEVICE": "auto", "OMPCL_PROBE": "0"}),
               ("auto", "ompcl", {"OMPCL_DEVICE": "auto"}))
    nas_run(exes["ompcl"], None, OMPCL_DEVICE="opencl")  # PoCL compiles kernels at first use
    times: dict[str, list[float]] = {c[0]: [] for c in configs}
    timed: dict[str, list[float]] = {c[0]: [] for c in configs}
    times["oracle"] = []
    for k in range(repeats):
        got = {}
        for name, exe, env in configs[k % len(configs):] + configs[:k % len(configs)]:
            stats = work / f"{bm}.{cls}.{name}.json" if exe == "ompcl" else None
            got[name] = nas_run(exes[exe], stats, **env)
            times[name].append(got[name][0])
            timed[name].append(got[name][1])
        times["oracle"].append(oracle_seconds(got["host"][0], got["host"][2], got["device"][2]))
    med = {name: statistics.median(ts) for name, ts in times.items()}
    med["program_oracle"] = min(med["original"], med["device"])
    # loops, and parallel regions run as a team of one (EP's one loop stands in such a team)
    regions = got["auto"][2].get("regions", []) + got["auto"][2].get("teams", [])
    return {"benchmark": bm, "class": cls, "median_s": med, "all_s": times,
            "nas_timed_median_s": {n: statistics.median(ts) for n, ts in timed.items()},
            "auto_over_original": med["auto"] / med["original"],
            "program_oracle_share": med["program_oracle"] / med["auto"],
            "oracle_share": min(1.0, med["oracle"] / med["auto"]),
            "regions": len(regions), "regions_on_device": sum(r["device_runs"] > 0
                                                               for r in regions)}


def _geomean(xs: Sequence[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


_COLS = ("original", "host", "device", "model", "auto", "program_oracle", "oracle")
_HEADS = ("original", "host", "device", "model", "auto", "prog.orc", "reg.orc")


def _nas_line(name: str, m: dict) -> str:
    """One row of the table: the seconds, auto/original, auto's oracle shares."""
    return (f"{name:10}" + "".join(f"{m[c]:>10.3f}" for c in _COLS)
            + f"{m['auto'] / m['original']:>10.3f}{m['program_oracle'] / m['auto']:>10.1%}"
            f"{min(1.0, m['oracle'] / m['auto']):>10.1%}")


def nas_report(res: dict) -> str:
    lines = [f"whole programs, model {res['model'] or 'default'}: wall seconds per run, medians"
             f" of {res['repeats']} rotating rounds; prog.orc: the faster of original and device"
             f" per program, reg.orc: each region on its faster side (estimated); load "
             f"{res['load_average']}",
             f"{'program':10}" + "".join(f"{c:>10}" for c in _HEADS)
             + f"{'auto/orig':>10}{'prog/auto':>10}{'reg/auto':>10}{'on device':>10}"]
    for r in res["programs"]:
        lines.append(_nas_line(r["benchmark"] + "." + r["class"], r["median_s"])
                     + f"{r['regions_on_device']:>6}/{r['regions']}")
    ps = res["programs"]
    if ps:
        lines.append(_nas_line("geomean", {c: _geomean([p["median_s"][c] for p in ps])
                                           for c in _COLS}))
        worst = max(p["auto_over_original"] for p in ps)
        share = min(p["program_oracle_share"] for p in ps)
        lines.append(f"auto at most 5% slower than the original on every program: "
                     f"{'yes' if worst <= 1.05 else 'NO'} (worst {worst:.3f}); at least 95% of "
                     f"the per-program oracle: {'yes' if share >= 0.95 else 'NO'} (least "
                     f"{share:.1%})")
    return "\n".join(lines)


def nas_main(args: argparse.Namespace) -> int:
    known = sorted(p.name for p in (ROOT / "nas_benchmarks").iterdir()
                   if (p / f"{p.name}.c").is_file())
    bms = re.split(r"[\s,]+", args.benchmarks.strip()) if args.benchmarks.strip() else known
    unknown = [b for b in bms if b not in known]
    if unknown:
        raise SystemExit(f"ompcl bench dispatch: error: unknown benchmark(s): "
                         f"{', '.join(unknown)}; available: {', '.join(known)}")
    model = str(args.model)
    if model != "none":  # the builds run make in the NAS tree: no relative path
        given = Path(model).resolve()
        model = "" if given == Path(DEFAULT_MODEL).resolve() else str(given)
    res = {"model": model, "repeats": args.repeats, "env": NAS_ENV, "programs": [],
           "failed": {}, "load_average": [round(x, 2) for x in os.getloadavg()]}
    with tempfile.TemporaryDirectory(prefix="ompcl-dispatch-") as tmp:
        work = Path(tmp)
        (work / "host-model.json").write_text(json.dumps(constant(False, "tree")))
        for cls in args.nas.split(","):
            for bm in bms:
                try:
                    res["programs"].append(nas_measure(bm, cls, work, model, args.repeats))
                except (RuntimeError, subprocess.CalledProcessError) as e:
                    res["failed"][f"{bm}.{cls}"] = str(e)[:300]
    print(json.dumps(res, indent=1) if args.json else nas_report(res))
    for name, why in res["failed"].items():
        print(f"{name}: {why}", file=sys.stderr)
    return 1 if res["failed"] else 0


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m ompcl.bench.dispatch",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300000, help="region calls per run")
    ap.add_argument("--rounds", type=int, default=7, help="runs of each configuration")
    ap.add_argument("--threads", default="1", help="OpenMP thread counts, comma-separated")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL,
                    help="model whose compile-time cost is measured ('none': skip); with --nas "
                    "the model compiled into the programs")
    ap.add_argument("--nas", default="", metavar="CLASSES",
                    help="whole programs instead: NAS classes, comma-separated (e.g. W,A)")
    ap.add_argument("--benchmarks", default="", help="NAS benchmarks, separated by commas or "
                    "spaces (default: all)")
    ap.add_argument("--repeats", type=int, default=3, help="rounds of the --nas runs")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    return ap.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.nas:
        return nas_main(args)
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
