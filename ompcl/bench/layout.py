"""Data-layout benchmark: the layout passes (loop interchange, global index reordering, dynamic
index reordering) off and on, side by side in one run, on the OpenCL device.

Builds each program with ``ompcl cc -Rompcl`` once per variant (``off``: every pass off,
``interchange``, ``reorder``, ``both``; ``dynamic``: the kernels' reordered variants alone,
run at every launch, ``dyn-auto``: the same chosen by the cost model, ``promote``: register
promotion, ``vectorize``: vector loads and stores, ``promote+vec``: both, ``all``: every pass
and the cost model), counts the remarks each pass gave, and runs every
variant with every offloaded loop on the device (``OMPCL_DEVICE=opencl``), repeats interleaved
across variants after a warm-up run. A variant in which no pass fired is the ``off`` program
and is not run again. Programs: NAS BT, SP, MG of ``nas_benchmarks/`` (their verification must
pass), ``probe``, a small program with one nest the interchange fixes and one array the
reordering fixes, one collapsed nest the interchange reorders (its output must equal the
``off`` variant's), and any PolyBench/ACC program by name (``gemm``, ``2mm``, ... from
``../shared/thirdparty``, built as its authors do at ``--dataset``; its array dump must equal
the ``off`` variant's). Prints whole-program seconds,
kernel seconds (profiling events, summed over regions, the transpositions of the reordered
variants included) and the ratios off / variant.

Usage: python -m ompcl.bench.layout [--class W] [--programs bt,sp,mg,probe,gemm]
       [--dataset STANDARD] [--repeats 3] [--variants off,promote,...] [--json FILE]
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import click

from . import polybench
from .command import bench_command, run_command
from .npb_native import NPB_DIR, parse_report

ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true",
       "OMPCL_DEVICE": "opencl"}
#: variant -> (OMPCL_INTERCHANGE, OMPCL_REORDER, OMPCL_DYNREORDER at translation,
#: OMPCL_DYNLAYOUT at run time: 1 the reordered kernels always, auto the cost model's choice,
#: OMPCL_PROMOTE, OMPCL_VECTORIZE at translation)
VARIANTS = {"off": ("0", "0", "0", "0", "0", "0"), "interchange": ("1", "0", "0", "0", "0", "0"),
            "reorder": ("0", "1", "0", "0", "0", "0"), "both": ("1", "1", "0", "0", "0", "0"),
            "dynamic": ("0", "0", "1", "1", "0", "0"), "dyn-auto": ("0", "0", "1", "auto", "0", "0"),
            "promote": ("0", "0", "0", "0", "1", "0"),
            "vectorize": ("0", "0", "0", "0", "0", "1"),
            "promote+vec": ("0", "0", "0", "0", "1", "1"),
            "all": ("1", "1", "1", "auto", "1", "1")}
#: the passes a variant turns on, by the remark each gives when it fires
FIRES = {"interchange": ("interchange", "distribute"), "reorder": ("reorder",),
         "both": ("interchange", "distribute", "reorder"), "dynamic": ("dynreorder",),
         "dyn-auto": ("dynreorder",), "promote": ("promote",), "vectorize": ("vectorize",),
         "promote+vec": ("promote", "vectorize"),
         "all": ("interchange", "distribute", "reorder", "dynreorder", "promote", "vectorize")}
REMARKS = ("interchange", "interchange-missed", "distribute", "distribute-missed", "reorder",
           "reorder-missed", "dynreorder", "dynreorder-missed", "promote", "promote-missed",
           "vectorize")
_REMARK = re.compile(r"\[(" + "|".join(REMARKS) + r")\]$", re.MULTILINE)
NAS = ("bt", "sp", "mg", "lu", "cg", "ft", "ep", "is")

PROBE = r"""#include <stdio.h>
#include <omp.h>
#define NK 48
#define NJ 160
#define NI 160
#define NY 1536
/* x: the inner nest walks a column (interchange puts i innermost); not static, so the
 * reordering leaves it to the interchange */
double x[NK][NJ][NI], xs[NK][NJ][NI];
/* y: the work-sharing loop runs over i, each iteration walks a column: only reordering
 * the array (y[i][j]) makes it contiguous */
static double y[NY][NY], ys[NY][NY];
/* z: collapse(2) over (j, i) with rows indexed by i: the interchange reorders the collapsed
 * loops */
double z[NY][NY], zs[NY][NY];

int main(void) {
  int i, j, k, t;
  double s = 0;
  for (k = 0; k < NK; k++)
    for (j = 0; j < NJ; j++)
      for (i = 0; i < NI; i++) { x[k][j][i] = 0; xs[k][j][i] = (i + 2 * j + 3 * k) % 17; }
  for (i = 0; i < NY; i++)
    for (j = 0; j < NY; j++) { y[j][i] = 0; ys[j][i] = (3 * i + j) % 13; }
  for (i = 0; i < NY; i++)
    for (j = 0; j < NY; j++) { z[i][j] = 0; zs[i][j] = (i + 5 * j) % 11; }
  for (t = 0; t < 10; t++) {
#pragma omp parallel for private(i, j)
    for (k = 0; k < NK; k++)
      for (i = 0; i < NI; i++)
        for (j = 0; j < NJ; j++)
          x[k][j][i] = 0.5 * xs[k][j][i] + 0.25 * x[k][j][i];
#pragma omp parallel for private(j)
    for (i = 0; i < NY; i++)
      for (j = 0; j < NY; j++)
        y[j][i] = 0.5 * ys[j][i] + 0.25 * y[j][i];
#pragma omp parallel for collapse(2)
    for (j = 0; j < NY; j++)
      for (i = 0; i < NY; i++)
        z[i][j] = 0.5 * zs[i][j] + 0.25 * z[i][j];
  }
  for (k = 0; k < NK; k++)
    for (j = 0; j < NJ; j++)
      for (i = 0; i < NI; i++) s += x[k][j][i] * (i % 7);
  for (i = 0; i < NY; i++)
    for (j = 0; j < NY; j++) s += y[j][i] * (j % 5) + z[i][j] * (i % 3);
  printf("checksum %.12e\n", s);
  return 0;
}
"""


def _cc(variant: str) -> tuple[str, dict[str, str]]:
    inter, reorder, dyn, _, promote, vector = VARIANTS[variant]
    return (f"{sys.executable} -m ompcl cc -Rompcl",
            {"OMPCL_INTERCHANGE": inter, "OMPCL_REORDER": reorder, "OMPCL_DYNREORDER": dyn,
             "OMPCL_PROMOTE": promote, "OMPCL_VECTORIZE": vector,
             "PYTHONPATH": str(NPB_DIR.parent)})


def _counts(log: str) -> dict[str, int]:
    found = _REMARK.findall(log)
    return {r: found.count(r) for r in REMARKS}


def build(program: str, cls: str, variant: str, bindir: Path, dataset: str = "STANDARD"
          ) -> tuple[Path | None, dict]:
    """The program built for one variant, and the layout remarks its translation gave."""
    cc, env = _cc(variant)
    bindir.mkdir(parents=True, exist_ok=True)
    cwd = None
    if program == "probe":
        src = bindir / "probe.c"
        src.write_text(PROBE)
        exe = bindir / "probe"
        cmd = [*cc.split(), "-O3", "-fopenmp", str(src), "-o", str(exe)]
    elif program in NAS:
        exe = bindir / f"{program}.{cls}.omp"
        cmd = ["make", "-s", "-C", str(NPB_DIR), f"CLASS={cls}", f"BENCHMARKS={program}",
               f"BINDIR={bindir}", f"CC={cc}", f"{bindir}/{program}.{cls}.omp"]
    else:
        root = polybench.find_root()
        found = {p.name: p for p in polybench.programs(root)} if root else {}
        if program not in found:
            print(f"ompcl bench layout: error: '{program}' is not a NAS benchmark, 'probe' or "
                  "a PolyBench/ACC program (../shared/thirdparty/polybench-acc)", file=sys.stderr)
            return None, {}
        exe, cwd = bindir / program, found[program].folder
        cmd = [f"-D{dataset}_DATASET" if a == "-DSMALL_DATASET" else a
               for a in polybench.command(found[program], root, cc.split(), exe)]
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                         env={**os.environ, **env})
    log = res.stdout + res.stderr
    if res.returncode != 0 or not exe.exists():
        print(f"{program} ({variant}): build failed\n{log[-3000:]}", file=sys.stderr)
        return None, {}
    return exe, _counts(log)


def run_once(exe: Path, stats: Path, dynlayout: str = "0") -> dict:
    stats.unlink(missing_ok=True)
    env = {**os.environ, **ENV, "OMPCL_STATS": str(stats), "OMPCL_DYNLAYOUT": dynlayout}
    out = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=3600)
    text = out.stdout + out.stderr
    st = json.loads(stats.read_text()) if stats.exists() else {}
    regions = st.get("regions", [])
    if exe.name == "probe":
        m = re.search(r"checksum (\S+)", text)
        verified, result = out.returncode == 0 and m is not None, m and m[1]
        seconds = sum(r["seconds_device"] + r["seconds_host"] for r in regions)
    elif "." not in exe.name:   # PolyBench: the array dump (stderr) is the result
        verified = out.returncode == 0 and bool(out.stderr.strip())
        result = hashlib.sha256(out.stderr.encode()).hexdigest()
        seconds = sum(r["seconds_device"] + r["seconds_host"] for r in regions)
    else:
        report = parse_report(text)
        verified = report["verification"] == "SUCCESSFUL" and out.returncode == 0
        result, seconds = None, report["time_s"]
    return {"verified": verified, "result": result, "time_s": seconds,
            # the device's transpositions for reordered kernels are kernel time too
            "kernel_s": st.get("totals", {}).get("kernel_seconds", 0.0) + sum(
                r.get("relayout_seconds", 0.0) for r in regions),
            "on_device": sum(1 for r in regions if r["device_runs"] > 0),
            "per_region": {f"{Path(r['file']).name}:{r['line']}": r["kernel_seconds"]
                           for r in regions}}


def measure(exes: dict[str, Path], repeats: int, scratch: Path) -> dict[str, dict]:
    """Median seconds per variant, repeats interleaved across variants."""
    runs: dict[str, list[dict]] = {v: [] for v in exes}
    for v, exe in exes.items():
        run_once(exe, scratch / f"warm-{v}.json", VARIANTS[v][3])  # binaries into the cache
    for k in range(repeats):
        for v, exe in exes.items():
            runs[v].append(run_once(exe, scratch / f"{v}-{k}.json", VARIANTS[v][3]))
    out = {}
    for v, rows in runs.items():
        med = {key: statistics.median(r[key] for r in rows if r[key] is not None)
               if any(r[key] is not None for r in rows) else None
               for key in ("time_s", "kernel_s")}
        regions = {name: statistics.median(r["per_region"][name] for r in rows)
                   for name in rows[-1]["per_region"]}
        out[v] = {**rows[-1], **med, "per_region": regions,
                  "verified": all(r["verified"] for r in rows)}
    return out


def bench_program(program: str, cls: str, repeats: int, work: Path,
                  dataset: str = "STANDARD", variants: tuple[str, ...] = tuple(VARIANTS)
                  ) -> dict:
    exes, remarks = {}, {}
    for v in ["off"] + [v for v in variants if v != "off"]:
        exe, counts = build(program, cls, v, work / program / v, dataset)
        if exe is None:
            return {}
        remarks[v] = counts
        fired = sum(counts.get(r, 0) for r in FIRES.get(v, ()))
        if v == "off" or fired:
            exes[v] = exe
    print(f"running {program} ({', '.join(exes)}) ...", file=sys.stderr, flush=True)
    results = measure(exes, repeats, work / program)
    if program not in NAS:   # the same answer from every variant
        same = {r["result"] for r in results.values()}
        for r in results.values():
            r["verified"] = r["verified"] and len(same) == 1
    return {"remarks": remarks, "results": results}


def _ratio(off, x) -> str:
    return f"{off / x:7.2f}x" if off and x else "       -"


def table(all_results: dict[str, dict]) -> str:
    head = (f"{'program':<8} {'variant':<12} {'fired':>5} {'missed':>6} {'loops':>5} "
            f"{'time s':>8} {'ratio':>8} {'kernel s':>9} {'ratio':>8}  verified")
    lines = [head, "-" * len(head)]
    for prog, data in all_results.items():
        res, rem = data["results"], data["remarks"]
        off = res["off"]
        for v in [v for v in VARIANTS if v in rem]:
            c = rem[v]
            fired = sum(c.get(r, 0) for r in FIRES.get(v, ()))
            missed = sum(c.get(r, 0) for r in REMARKS if r.endswith("-missed"))
            r = res.get(v)
            if r is None:
                lines.append(f"{prog:<8} {v:<12} {fired:>5} {missed:>6}   (nothing fired: "
                             "the 'off' program)")
                continue
            lines.append(f"{prog:<8} {v:<12} {fired:>5} {missed:>6} {r['on_device']:>5} "
                         f"{r['time_s'] or 0:8.3f} {_ratio(off['time_s'], r['time_s'])} "
                         f"{r['kernel_s']:9.4f} {_ratio(off['kernel_s'], r['kernel_s'])}  "
                         f"{'yes' if r['verified'] else 'NO'}")
    return "\n".join(lines)


def changed_regions(all_results: dict[str, dict], threshold: float = 1.15) -> list[str]:
    """Regions whose kernel seconds moved by more than ``threshold`` either way."""
    out = []
    for prog, data in all_results.items():
        off = data["results"]["off"]["per_region"]
        for v, r in data["results"].items():
            for name, s in r["per_region"].items() if v != "off" else ():
                o = off.get(name, 0)
                if o and s and max(o / s, s / o) > threshold:
                    out.append(f"{prog:<8} {v:<12} {name:<24} {o:9.4f} -> {s:9.4f} s "
                               f"({o / s:.2f}x)")
    return out


@bench_command("layout",
               "Layout passes off and on: NAS BT, SP, MG, a probe, PolyBench programs.",
               help=__doc__.split("\n\n")[1])
@click.option("--class", "cls", default="W", show_default=True, help="NAS problem class.")
@click.option("--programs", default="bt,sp,mg,probe", show_default=True,
              help="Comma-separated: NAS bt, sp, mg, the probe, PolyBench/ACC programs by name.")
@click.option("--dataset", default="STANDARD", show_default=True,
              help="PolyBench dataset (MINI, SMALL, STANDARD, LARGE).")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Timed runs of each variant (the median is shown).")
@click.option("--variants", default=",".join(VARIANTS), show_default=True,
              help="Comma-separated, of: " + ", ".join(VARIANTS) + " ('off' always runs).")
@click.option("--work", metavar="DIR", help="Build directory (default: a temporary one).")
@click.option("--json", metavar="FILE", help="Also write the results to FILE.")
def cli(**params) -> int:
    """``ompcl bench layout``; returns the exit status (1 when a program fails to build or
    verify)."""
    args = SimpleNamespace(**params)
    variants = tuple(v for v in args.variants.split(",") if v)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise click.UsageError(f"unknown variant {unknown[0]!r} (choose from "
                               f"{', '.join(VARIANTS)})")
    results, missing = {}, []   # missing: programs that did not build
    with tempfile.TemporaryDirectory(prefix="ompcl-layout-") as tmp:
        work = Path(args.work or tmp)
        for prog in [p for p in args.programs.split(",") if p]:
            data = bench_program(prog, args.cls, args.repeats, work, args.dataset, variants)
            if data:
                results[prog] = data
            else:
                missing.append(prog)
    print(f"layout passes off and on; NAS class {args.cls}, PolyBench {args.dataset}; every "
          f"offloaded loop on the device (OMPCL_DEVICE=opencl); {ENV['OMP_NUM_THREADS']} threads, OMP_WAIT_POLICY="
          f"{ENV['OMP_WAIT_POLICY']}, OMP_PROC_BIND={ENV['OMP_PROC_BIND']}; median of "
          f"{args.repeats}; ratio = off / variant (above 1: faster)")
    print(table(results))
    moved = changed_regions(results)
    if moved:
        print("\nkernels whose time moved (median kernel seconds, off -> variant):")
        print("\n".join(moved))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    verified = all(r["verified"] for d in results.values() for r in d["results"].values())
    return 0 if verified and not missing else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.layout``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench layout")


if __name__ == "__main__":
    sys.exit(main())
