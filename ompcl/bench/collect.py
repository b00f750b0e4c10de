"""Training-data collection: ``python -m ompcl.bench.collect -o rows.csv [...]``.

Consumes the variants of ``bench.corpus`` (NAS, the test corpus at scaled sizes, PolyBench/ACC,
fuzzer programs; ``thirdparty``: the programs of ``shared/thirdparty/cases.txt``). Each variant
(program x problem size) is built once with ompcl (``--model none``); at each thread count
(``--threads``) it is warmed up once on the device (PoCL compiles kernels at first use), then
run ``--repeats`` times on the device (``OMPCL_DEVICE=opencl``) and on the host, alternating,
with ``OMPCL_STATS``; every run's output is verified (NAS: its own verification; the others:
the output of the program built with ``gcc -fopenmp``). Produces a CSV of training rows
(``bench.rows.rows_from_stats`` per repeat, the median of the repeats per region and size class;
extra columns ``threads``, ``source``, ``repeats``, ``agree``, ``spread_cpu``, ``spread_gpu``,
``load``), one row per distinct feature vector and thread count (``rows.dedupe``), and
``<name>.meta.json``: the platform, the compilers, the environment (OpenMP settings), load
averages, the command, and what was skipped and why.

The host side (``--host-mode``): ``model`` (default) runs the program in auto mode with a model
that always answers "host", so each offloadable loop runs its original OpenMP loop and is
timed, also the loops of parallel regions (``OMPCL_DEVICE=openmp`` runs those inside the
original region, untimed, so it gives no rows for them: NAS and PolyBench are mostly such
loops); ``openmp`` uses the ``OMPCL_DEVICE=openmp`` runs. Either way one ``OMPCL_DEVICE=openmp``
run per variant checks the plain OpenMP path.
"""
from __future__ import annotations

import argparse
import datetime
import fnmatch
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..predict.learners import constant
from ..predict.schema import ROW_COLUMNS
from ..predict.train import meta_path
from . import cases, machine
from .corpus import (DEFAULT_SOURCES, ROOT, SOURCES, Variant, build,
                     corpus_variants, fuzz_variants, nas_variants, polybench_variants,
                     thirdparty_variants)
from .rows import dedupe, load as load_stats, rows_from_stats, write_csv, write_meta

#: the measurement environment. POCL_AFFINITY=1: with OMP_PROC_BIND=true libgomp binds the
#: initial thread to one core before the runtime starts PoCL, whose worker threads inherit
#: that binding and all share one core (measured: PolyBench 2mm STANDARD on the device 13.8 s
#: bound, 4.3 s unbound, 4.6 s bound with POCL_AFFINITY=1, which pins PoCL's threads itself)
MEASURE_ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true",
               "POCL_AFFINITY": "1"}
EXTRA_COLUMNS = ("threads", "source", "repeats", "agree", "spread_cpu", "spread_gpu", "load")
_NAS_OK = re.compile(r"Verification\s*=\s*SUCCESSFUL")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


@dataclass
class Outcome:
    """What measuring a variant gave: its rows, or why it was skipped."""

    variant: str
    rows: list[dict] = field(default_factory=list)
    skipped: str = ""
    seconds: dict = field(default_factory=dict)  # wall seconds of the checking runs
    load: list[float] = field(default_factory=list)  # 1-minute load average per repeat
    device: dict = field(default_factory=dict)  # the OpenCL device the statistics name



# ---- running and checking ------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    ok: str            # '' when the run succeeded, else why not
    out: str
    seconds: float
    stats: dict | None


def _run(exe: Path, cwd: Path, timeout: float, stats: Path | None = None, **env: str) -> Run:
    e = {**os.environ, **MEASURE_ENV, **env}   # env may override the measurement's
    if stats is not None:
        e["OMPCL_STATS"] = str(stats)
        stats.unlink(missing_ok=True)
    t0 = time.perf_counter()
    try:
        res = subprocess.run([str(exe)], cwd=cwd, capture_output=True, text=True,
                             errors="replace", timeout=timeout, env=e)  # binary output too
    except subprocess.TimeoutExpired:
        return Run(f"timed out after {timeout:g} s", "", timeout, None)
    dt = time.perf_counter() - t0
    why = f"exit status {res.returncode}" if res.returncode else ""
    st = load_stats(stats) if stats is not None and stats.exists() and not why else None
    return Run(why, res.stdout + "\x00" + res.stderr, dt, st)


def _numbers_agree(x: str, y: str, rtol: float, atol: float) -> bool:
    if not (_FLOAT.fullmatch(x) and _FLOAT.fullmatch(y)):
        return False
    a, b = float(x), float(y)
    return abs(a - b) <= atol + rtol * max(abs(a), abs(b))


def same_output(expected: str, actual: str, rtol: float, atol: float = 0.0) -> bool:
    """Token by token: equal, or numbers within ``atol + rtol * magnitude``."""
    a, b = expected.split(), actual.split()
    return len(a) == len(b) and all(x == y or _numbers_agree(x, y, rtol, atol)
                                    for x, y in zip(a, b))


def _checked_text(v: Variant, out: str) -> str:
    if v.check == "case":   # compared by the case's spec, which may read both
        return out
    stdout, _, stderr = out.partition("\x00")
    if v.check == "stderr":  # PolyBench dumps its arrays there; drop the runtime's own lines
        return "\n".join(x for x in stderr.splitlines() if not x.startswith("ompcl: "))
    return stdout


def verify(v: Variant, run: Run, expected: str | None) -> str:
    """'' when the run is correct, else why not."""
    if run.ok:
        return run.ok
    if v.check == "nas":
        return "" if _NAS_OK.search(run.out) else "NAS verification failed"
    if v.check == "case" and expected is not None and v.case is not None:
        root = cases.find_root()
        ok = root is not None and cases.same(root, v.case, tuple(expected.split("\x00", 1)),
                                             tuple(run.out.split("\x00", 1)), v.cwd)
        return "" if ok else "output differs from the gcc build (the case's compare spec)"
    if expected is None or same_output(expected, _checked_text(v, run.out), v.rtol, v.atol):
        return ""
    return f"output differs from the gcc -fopenmp build ({v.check})"


# ---- rows ----------------------------------------------------------------------------

def _key(row: dict) -> tuple:
    return row["kernel"], row["work_items"]


def _spread(xs: Sequence[float]) -> float:
    m = statistics.median(xs)
    return (max(xs) - min(xs)) / m if m > 0 else 0.0


def aggregate(per_repeat: Sequence[list[dict]], source: str, load: float,
              min_seconds: float) -> tuple[list[dict], int]:
    """One row per region and size class seen in every repeat: the medians of its times;
    and how many were dropped as too small to measure (both medians below ``min_seconds``)."""
    keyed = [{_key(r): r for r in rows} for rows in per_repeat]
    out, dropped = [], 0
    for k, first in keyed[0].items() if keyed else ():
        same = [rep[k] for rep in keyed if k in rep]
        if len(same) < len(keyed):
            continue
        cpu = [r["runtime_cpu"] for r in same]
        gpu = [r["runtime_gpu"] for r in same]
        row = dict(first, runtime_cpu=statistics.median(cpu), runtime_gpu=statistics.median(gpu))
        if max(row["runtime_cpu"], row["runtime_gpu"]) < min_seconds:
            dropped += 1
            continue
        label = row["runtime_gpu"] < row["runtime_cpu"]
        row.update(source=source, repeats=len(same), load=round(load, 2),
                   agree=round(sum((g < c) == label for c, g in zip(cpu, gpu)) / len(same), 3),
                   spread_cpu=round(_spread(cpu), 4), spread_gpu=round(_spread(gpu), 4))
        out.append(row)
    return out, dropped


# ---- measuring a variant ---------------------------------------------------------------

@dataclass(frozen=True)
class Plan:
    """How every variant is measured."""

    work: Path
    repeats: int = 3
    host_mode: str = "model"
    min_seconds: float = 1e-5
    timeout: float = 120.0
    long_run: float = 5.0        # a variant whose device run takes longer is repeated once
    threads: tuple[int, ...] = (int(MEASURE_ENV["OMP_NUM_THREADS"]),)  # OpenMP thread counts

    @property
    def host_model(self) -> Path:
        return self.work / "host-model.json"


def _host_env(plan: Plan) -> dict[str, str]:
    if plan.host_mode == "openmp":
        return {"OMPCL_DEVICE": "openmp"}
    return {"OMPCL_DEVICE": "auto", "OMPCL_MODEL": str(plan.host_model)}


def _measure_once(v: Variant, plan: Plan, expected: str | None, r: int,
                  threads: dict[str, str]) -> tuple[str, dict, dict]:
    """One repeat: the device and host runs (their order alternates); (why failed, stats)."""
    d = plan.work / "stats"
    modes = [("device", {"OMPCL_DEVICE": "opencl"}), ("host", _host_env(plan))]
    got = {}
    for mode, env in (modes if r % 2 == 0 else modes[::-1]):
        run = _run(v.exe, v.cwd, plan.timeout, d / f"{v.name}.{mode}.json", **env, **threads)
        why = verify(v, run, expected) or ("" if run.stats else "no statistics written (no "
                                                 "offloaded loop ran)")
        if why:
            return f"{mode} run: {why}", {}, {}
        got[mode] = run.stats
    return "", got["device"], got["host"]


def _reference(v: Variant, plan: Plan, threads: dict[str, str]) -> tuple[str, str | None]:
    if v.ref_exe is None:
        return "", None
    run = _run(v.ref_exe, v.cwd, plan.timeout, **threads)
    return (f"reference run: {run.ok}", None) if run.ok else ("", _checked_text(v, run.out))


def _checked_run(v: Variant, plan: Plan, expected: str | None, label: str,
                 **env: str) -> tuple[Run, str]:
    run = _run(v.exe, v.cwd, plan.timeout, None, **env)
    why = verify(v, run, expected)
    return run, (f"{label}: {why}" if why else "")


def with_threads(v: Variant, threads: int, plan: Plan) -> Variant:
    """``v`` as measured with ``threads`` OpenMP threads: its dataset names the count where the
    plan runs several (rows of one size at two counts are distinct measurements)."""
    return replace(v, dataset=f"{v.dataset}-{threads}t") if len(plan.threads) > 1 else v


def measure(v: Variant, plan: Plan, threads: int | None = None) -> Outcome:
    """Warm up, then ``plan.repeats`` device and host runs with ``threads`` OpenMP threads
    (default: the plan's first count), verified; rows of the medians."""
    threads = threads or plan.threads[0]
    t_env = {"OMP_NUM_THREADS": str(threads)}
    out = Outcome(v.name)
    why, expected = _reference(v, plan, t_env)
    if not why:
        warm, why = _checked_run(v, plan, expected, "device warm-up", OMPCL_DEVICE="opencl",
                                 **t_env)
    if not why:
        omp, why = _checked_run(v, plan, expected, "openmp run", OMPCL_DEVICE="openmp", **t_env)
    if why:
        out.skipped = why
        return out
    out.seconds = {"opencl": round(warm.seconds, 4), "openmp": round(omp.seconds, 4)}
    per_repeat = []
    for r in range(1 if warm.seconds > plan.long_run else plan.repeats):
        out.load.append(os.getloadavg()[0])
        why, dev, host = _measure_once(v, plan, expected, r, t_env)
        if why:
            out.skipped = why
            return out
        out.device = out.device or dev.get("device", {})
        per_repeat.append(rows_from_stats(dev, host, v.benchmark, v.dataset))
    out.rows, dropped = aggregate(per_repeat, v.source, statistics.mean(out.load),
                                  plan.min_seconds)
    for row in out.rows:
        row["threads"] = threads
    out.seconds["dropped_small"] = dropped
    return out


# ---- the whole collection --------------------------------------------------------------

def _progress(items: Iterable, total: int, desc: str, quiet: bool):
    try:
        from tqdm import tqdm
    except ImportError:  # the bar is a convenience (extra 'bench')
        return items
    # disable=None: no bar when stderr is not a terminal (logs)
    return tqdm(items, total=total, desc=desc, unit="prog", disable=True if quiet else None,
                file=sys.stderr)


def build_all(variants: Sequence[Variant], jobs: int, resume: bool,
              quiet: bool) -> dict[str, str]:
    """Build every variant (``jobs`` at a time); {name: why it failed} for failures."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        results = _progress(pool.map(lambda v: build(v, resume), variants), len(variants),
                            "build", quiet)
        return {v.name: why for v, why in zip(variants, results) if why}


def _result_file(plan: Plan, v: Variant) -> Path:
    return plan.work / "results" / f"{v.name}.json"


def _jobs(variants: Sequence[Variant], plan: Plan) -> list[tuple[Variant, int]]:
    """(variant named for its thread count, threads) for every variant and thread count."""
    return [(with_threads(v, t, plan), t) for v in variants for t in plan.threads]


def measure_all(variants: Sequence[Variant], plan: Plan, resume: bool,
                quiet: bool) -> list[Outcome]:
    """Measure one variant and thread count at a time (timings must not overlap); results
    are kept per variant under the work directory, so ``resume`` skips those measured."""
    (plan.work / "results").mkdir(parents=True, exist_ok=True)
    (plan.work / "stats").mkdir(parents=True, exist_ok=True)
    plan.host_model.write_text(json.dumps(constant(False, "tree")))
    outcomes = []
    jobs = _jobs(variants, plan)
    for v, threads in _progress(jobs, len(jobs), "measure", quiet):
        f = _result_file(plan, v)
        if resume and f.exists():
            outcomes.append(Outcome(**json.loads(f.read_text())))
            continue
        o = measure(v, plan, threads)
        f.write_text(json.dumps(o.__dict__))
        outcomes.append(o)
    return outcomes


def assembled(variants: Sequence[Variant], plan: Plan) -> list[Outcome]:
    """The outcomes already measured in the work directory (a collection stopped early, or
    still running); a variant without one counts as skipped, not measured."""
    out = []
    for v, _ in _jobs(variants, plan):
        f = _result_file(plan, v)
        out.append(Outcome(**json.loads(f.read_text())) if f.exists()
                   else Outcome(v.name, skipped="not measured (--assemble)"))
    return out


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return "unknown"


def _git_commit() -> str:
    res = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                         text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return (res.stdout.strip() or "unknown") + ("+changes" if dirty else "")


def platform(outcomes: Sequence[Outcome], threads: Sequence[int] = ()) -> dict:
    """The machine: the OpenCL device (from the statistics) against the host CPU."""
    dev = next((o.device for o in outcomes if o.device), {})
    return {"opencl_platform": dev.get("platform", ""), "opencl_device": dev.get("name", ""),
            "zero_copy": dev.get("zero_copy"), "host_cpu": _cpu_name(),
            "cores": os.cpu_count(),
            "openmp_threads": ",".join(map(str, threads)) or MEASURE_ENV["OMP_NUM_THREADS"]}


def metadata(outcomes: Sequence[Outcome], plan: Plan, started: str, loads: dict,
             argv: Sequence[str], commit: str | None = None) -> dict:
    """The collection's metadata; ``commit``: ompcl's commit when its programs were built
    (taken now when not given)."""
    measured = [o for o in outcomes if not o.skipped]
    seen = [x for o in measured for x in o.load]
    rows = [r for o in measured for r in o.rows]
    return {
        "collected": {"start": started, "end": _now()}, "command": " ".join(argv),
        "env": {**MEASURE_ENV, "OMP_NUM_THREADS": ",".join(map(str, plan.threads))},
        "threads": list(plan.threads), "host_mode": plan.host_mode, "repeats": plan.repeats,
        "long_run_repeats_once": plan.long_run, "min_seconds": plan.min_seconds,
        "platform": platform(outcomes, plan.threads), "ompcl_commit": commit or _git_commit(),
        "compilers": machine.compiler_versions(["gcc"]),
        "load_average": {**loads, "end": list(os.getloadavg()),
                         "during": {"min": min(seen, default=0), "max": max(seen, default=0),
                                    "mean": statistics.mean(seen) if seen else 0}},
        "rows": len(rows), "programs": len({r["benchmark"] for r in rows}),
        "variants": {"measured": len(measured), "without_rows": sum(not o.rows for o in measured),
                     "dropped_small_rows": sum(o.seconds.get("dropped_small", 0)
                                               for o in measured),
                     "skipped": {o.variant: o.skipped for o in outcomes if o.skipped}},
        "program_seconds": {o.variant: o.seconds for o in measured},
    }


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _csv_list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m ompcl.bench.collect",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", required=True, type=Path, help="rows CSV to write")
    ap.add_argument("--sources", default=",".join(DEFAULT_SOURCES),
                    help=f"programs to measure, of {','.join(SOURCES)} (default: "
                    f"{','.join(DEFAULT_SOURCES)})")
    ap.add_argument("--only", default="", help="comma-separated patterns of program names "
                    "(e.g. 'nas-cg,corpus-0*')")
    ap.add_argument("--nas-classes", default="S,W")
    ap.add_argument("--corpus-scales", default="1,16,256",
                    help="problem volumes relative to the corpus programs' own sizes")
    ap.add_argument("--polybench-sizes", default="MINI,SMALL,STANDARD")
    ap.add_argument("--fuzz", type=int, default=60, metavar="N", help="generated programs")
    ap.add_argument("--fuzz-seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="device and host runs per variant")
    ap.add_argument("--threads", default=MEASURE_ENV["OMP_NUM_THREADS"],
                    help="OpenMP thread counts to measure each variant at (e.g. 1,2; default "
                    "%(default)s); the dataset names the count where there are several")
    ap.add_argument("--host-mode", choices=("model", "openmp"), default="model")
    ap.add_argument("--min-seconds", type=float, default=1e-5,
                    help="drop rows whose device and host times per entry are both below this")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run at most")
    ap.add_argument("--jobs", type=int, default=2, help="builds in parallel (runs never are)")
    ap.add_argument("--work", type=Path, default=None,
                    help="work directory (default: a temporary one, removed)")
    ap.add_argument("--resume", action="store_true",
                    help="reuse the builds and results already in --work")
    ap.add_argument("--list", action="store_true", help="list the variants and stop")
    ap.add_argument("--assemble", action="store_true",
                    help="only write the rows of the results already in --work (measure nothing)")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    if args.assemble and args.work is None:
        ap.error("--assemble needs the --work directory of a collection")
    unknown = set(_csv_list(args.sources)) - set(SOURCES)
    if unknown:
        ap.error(f"unknown source(s) {', '.join(sorted(unknown))}")
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    try:
        args.threads = tuple(int(t) for t in _csv_list(args.threads))
    except ValueError:
        args.threads = ()
    if not args.threads or min(args.threads) < 1:
        ap.error(f"--threads takes positive thread counts, e.g. 1,2 (not {args.threads!r})")
    return args


def variants(args: argparse.Namespace, work: Path) -> list[Variant]:
    srcs = _csv_list(args.sources)
    makers: dict[str, Callable[[], list[Variant]]] = {
        "nas": lambda: nas_variants(work, _csv_list(args.nas_classes)),
        "corpus": lambda: corpus_variants(work, [float(x) for x in _csv_list(args.corpus_scales)]),
        "polybench": lambda: polybench_variants(work, _csv_list(args.polybench_sizes)),
        "fuzz": lambda: fuzz_variants(work, args.fuzz, args.fuzz_seed),
        "thirdparty": lambda: thirdparty_variants(work)}
    out = [v for s in SOURCES if s in srcs for v in makers[s]()]
    pats = _csv_list(args.only)
    return [v for v in out if not pats or any(fnmatch.fnmatch(v.benchmark, p) for p in pats)]


def gather(args: argparse.Namespace, work: Path, argv: Sequence[str]) -> tuple[list[dict], dict]:
    """Build and measure the variants ``args`` name; their rows (one per distinct feature
    vector) and the metadata (empty with ``--list``, which prints the variants)."""
    started, loads = _now(), {"start": list(os.getloadavg())}
    commit = _git_commit()   # what the programs are built with (edits may follow)
    vs = variants(args, work)
    if args.list:
        print("\n".join(v.name for v in vs))
        return [], {}
    plan = Plan(work, args.repeats, args.host_mode, args.min_seconds, args.timeout,
                threads=args.threads)
    if args.assemble:
        outcomes = assembled(vs, plan)
    else:
        failed = build_all(vs, args.jobs, args.resume, args.quiet)
        outcomes = [Outcome(v.name, skipped=failed[v.name]) for v in vs if v.name in failed]
        outcomes += measure_all([v for v in vs if v.name not in failed], plan, args.resume,
                                args.quiet)
    measured = [r for o in outcomes for r in o.rows]
    rows = dedupe(measured)
    meta = metadata(outcomes, plan, started, loads, argv, commit)
    meta.update(rows=len(rows), duplicates_merged=len(measured) - len(rows))
    if args.assemble:
        meta.update(_assembly(plan, meta))
    return rows, meta


def _assembly(plan: Plan, meta: dict) -> dict:
    """--assemble's metadata: when the results were written (their files' times), and that
    the commit is the assembly's, not necessarily the one the programs were built at."""
    times = [f.stat().st_mtime for f in (plan.work / "results").glob("*.json")]
    iso = lambda t: datetime.datetime.fromtimestamp(   # noqa: E731
        t, datetime.timezone.utc).isoformat(timespec="seconds")
    return {"collected": {"first_result": iso(min(times)) if times else None,
                          "last_result": iso(max(times)) if times else None},
            "assembled": {**meta["collected"], "commit": meta["ompcl_commit"]},
            "ompcl_commit": None}


def collect(args: argparse.Namespace, work: Path, argv: Sequence[str]) -> dict:
    """``gather``, then write the rows CSV and its metadata; the metadata."""
    rows, meta = gather(args, work, argv)
    if meta:
        write_csv(args.output, rows, ROW_COLUMNS + EXTRA_COLUMNS)
        write_meta(args.output, meta)
    return meta


def summary(meta: dict, out: Path) -> str:
    v = meta["variants"]
    lines = [f"wrote {out}: {meta['rows']} rows from {meta['programs']} programs "
             f"({v['measured']} variants measured, {len(v['skipped'])} skipped, "
             f"{v['dropped_small_rows']} rows too small to measure dropped)",
             f"load average during the runs: {meta['load_average']['during']['min']:.2f} .. "
             f"{meta['load_average']['during']['max']:.2f}; metadata in {meta_path(out)}"]
    lines += [f"  skipped {k}: {why}" for k, why in sorted(v["skipped"].items())]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="ompcl-collect-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        meta = collect(args, work.resolve(), ["python -m ompcl.bench.collect", *argv])
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    if meta:
        print(summary(meta, args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
