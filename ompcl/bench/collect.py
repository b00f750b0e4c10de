"""Training-data collection: ``python -m ompcl.bench.collect -o rows.csv [...]``.

Consumes the programs at hand: our NAS benchmarks (classes S and W), the test corpus
(``tests/corpus``, at its own sizes and scaled through its ``#define`` sizes), PolyBench/ACC's
deterministic OpenMP programs (MINI, SMALL, STANDARD datasets), programs of the fuzzer's
generator and (source ``thirdparty``, not in the default ``--sources``) the third-party programs
of ``shared/thirdparty/cases.txt`` built by their own build commands with ``ompcl cc`` in gcc's
place (``bench.cases``). Each variant (program x problem size) is built once with ompcl
(``--model none``), warmed up once on the device (PoCL compiles kernels at first use), then run
``--repeats`` times on the device (``OMPCL_DEVICE=opencl``) and on the host, with
``OMPCL_STATS``; every run's output is verified (NAS: its own verification; the others: the
output of the program built with ``gcc -fopenmp``). Produces a CSV of training rows
(``bench.rows.rows_from_stats`` per repeat, the median of the repeats per region and size class;
extra columns ``source``, ``repeats``, ``agree``, ``spread_cpu``, ``spread_gpu``, ``load``), one
row per distinct feature vector (``rows.dedupe``), and ``<name>.meta.json``: the platform, the
compilers, the environment (OpenMP settings), load averages, the command, and what was skipped
and why.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..predict.learners import constant
from ..predict.schema import ROW_COLUMNS
from ..predict.train import meta_path
from . import cases, machine, polybench
from .rows import dedupe, load as load_stats, rows_from_stats, write_csv, write_meta

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("nas", "corpus", "polybench", "fuzz", "thirdparty")
DEFAULT_SOURCES = SOURCES[:4]
#: the measurement environment. POCL_AFFINITY=1: with OMP_PROC_BIND=true libgomp binds the
#: initial thread to one core before the runtime starts PoCL, whose worker threads inherit
#: that binding and all share one core (measured: PolyBench 2mm STANDARD on the device 13.8 s
#: bound, 4.3 s unbound, 4.6 s bound with POCL_AFFINITY=1, which pins PoCL's threads itself)
MEASURE_ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true",
               "POCL_AFFINITY": "1"}
EXTRA_COLUMNS = ("source", "repeats", "agree", "spread_cpu", "spread_gpu", "load")
_EXPECT = re.compile(r"ompcl-expect:.*?tolerance=(\S+)")
_DEFINE = re.compile(r"^#define ([A-Z_][A-Z0-9_]*) (\d+)[ \t]*$", re.M)
_NAS_OK = re.compile(r"Verification\s*=\s*SUCCESSFUL")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_GENERATE = ("import sys, pathlib\nfrom ompcl.fuzz.generator import generate\n"
             "for s in sys.argv[2:]:\n"
             "    pathlib.Path(sys.argv[1], f'fuzz{s}.c').write_text(generate(int(s)))\n")


@dataclass(frozen=True)
class Variant:
    """One program at one problem size, and how to build, run and check it."""

    benchmark: str                      # the program (leave-one-program-out's group)
    dataset: str                        # the problem size
    source: str                         # one of SOURCES
    exe: Path                           # the ompcl build
    build: tuple[str, ...]              # command building exe (run in cwd)
    cwd: Path
    ref_exe: Path | None = None         # the gcc -fopenmp build of the original, if checked so
    ref_build: tuple[str, ...] = ()
    check: str = "stdout"               # "nas" | "stdout" | "stderr" | "case"
    rtol: float = 1e-9
    atol: float = 0.0
    case: cases.Case | None = None      # check "case": compared by the case's spec

    @property
    def name(self) -> str:
        return f"{self.benchmark}.{self.dataset}"


@dataclass
class Outcome:
    """What measuring a variant gave: its rows, or why it was skipped."""

    variant: str
    rows: list[dict] = field(default_factory=list)
    skipped: str = ""
    seconds: dict = field(default_factory=dict)  # wall seconds of the checking runs
    load: list[float] = field(default_factory=list)  # 1-minute load average per repeat
    device: dict = field(default_factory=dict)  # the OpenCL device the statistics name


# ---- the programs --------------------------------------------------------------------

def _ompcl(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "ompcl.cli", *args)


def _gcc(src: Path, exe: Path) -> tuple[str, ...]:
    return ("gcc", "-std=gnu99", "-O2", "-fopenmp", str(src), "-o", str(exe), "-lm")


def nas_variants(work: Path, classes: Sequence[str]) -> list[Variant]:
    nas = ROOT / "nas_benchmarks"
    names = sorted(p.name for p in nas.iterdir() if (p / f"{p.name}.c").is_file())
    cc = " ".join(_ompcl("cc", "--ompcl-model=none"))
    out = []
    for c in classes:
        for b in names:
            make = ("make", "-s", "-C", str(nas), f"CLASS={c}", f"BENCHMARKS={b}",
                    f"BINDIR={work / 'nas'}", f"CC={cc}")
            out.append(Variant(f"nas-{b}", c, "nas", work / "nas" / f"{b}.{c}.omp", make, nas,
                               check="nas"))
    return out


def scaled_source(text: str, scale: float) -> str | None:
    """``text`` with its ``#define NAME number`` sizes scaled so that their product grows by
    ``scale``; None when it has none (or scale is 1)."""
    sizes = _DEFINE.findall(text)
    if not sizes or scale == 1:
        return None
    f = scale ** (1.0 / len(sizes))
    return _DEFINE.sub(lambda m: f"#define {m[1]} {max(1, round(int(m[2]) * f))}", text)


def _tolerance(text: str) -> float:
    m = _EXPECT.search(text.splitlines()[0] if text else "")
    return float(m[1]) if m else 1e-9


def _c_variant(src: Path, text: str, work: Path, source: str, bench: str, ds: str) -> Variant:
    d = work / source / f"{bench}.{ds}"
    d.mkdir(parents=True, exist_ok=True)
    copy = d / src.name
    copy.write_text(text)
    return Variant(bench, ds, source, d / "prog", _ompcl("build", str(copy), "-o", str(d / "prog"),
                                                         "--model", "none"), d,
                   d / "ref", _gcc(copy, d / "ref"), "stdout", _tolerance(text))


def corpus_variants(work: Path, scales: Sequence[float]) -> list[Variant]:
    out = []
    for src in sorted((ROOT / "tests" / "corpus").glob("*.c")):
        text = src.read_text()
        for s in scales:
            scaled = text if s == 1 else scaled_source(text, s)
            if scaled is not None:
                out.append(_c_variant(src, scaled, work, "corpus", f"corpus-{src.stem}",
                                      f"x{s:g}"))
    return out


def fuzz_variants(work: Path, count: int, seed: int) -> list[Variant]:
    """Programs ``seed .. seed+count-1`` of the fuzzer's generator (written by a child
    process: the fuzzer is a peer package, driven as a tool)."""
    if count <= 0:
        return []
    d = work / "fuzz-src"
    d.mkdir(parents=True, exist_ok=True)
    seeds = [str(s) for s in range(seed, seed + count)]
    subprocess.run([sys.executable, "-c", _GENERATE, str(d), *seeds], check=True, cwd=ROOT,
                   env=_py_env())
    return [_c_variant(d / f"fuzz{s}.c", (d / f"fuzz{s}.c").read_text(), work, "fuzz",
                       f"fuzz-{s}", "default") for s in seeds]


def thirdparty_variants(work: Path) -> list[Variant]:
    """The programs of ``cases.txt``, each built in its own writable copy of its suite by
    its authors' command, with gcc (the reference) and with ``ompcl cc`` in gcc's place."""
    root = cases.find_root()
    if root is None:
        return []
    shim = cases.compiler_shim(work / "thirdparty" / "bin" / "ompcl-cc",
                               list(_ompcl("cc", "--ompcl-model=none")))
    all_cases = cases.read(root)
    out = []
    for c in all_cases:
        d = work / "thirdparty" / c.name
        builds = []
        for side, cc in (("ref", None), ("test", shim)):
            d.mkdir(parents=True, exist_ok=True)
            runner = d / f"{side}.sh.in"
            runner.write_text(cases.runner(c, d / side / c.dir))
            runner.chmod(0o755)
            builds.append(("sh", "-c", f"{cases.copy_command(root / c.suite, d / side / c.suite)}"
                           f" && cd {d / side / c.dir} && {cases.build_command(c, cc)}"
                           f" && cp {runner} {d / side}.sh"))
        out.append(Variant(cases.program(c, all_cases), c.name, "thirdparty", d / "test.sh",
                           builds[1], d, d / "ref.sh", builds[0], "case", case=c))
    return out


def polybench_variants(work: Path, sizes: Sequence[str]) -> list[Variant]:
    root = polybench.find_root()
    if root is None:
        return []
    cc = list(_ompcl("cc", "--ompcl-model=none"))
    out = []
    for prog in polybench.programs(root):
        if prog.name not in polybench.DETERMINISTIC:
            continue
        for size in sizes:
            d = work / "polybench" / f"{prog.name}.{size}"
            d.mkdir(parents=True, exist_ok=True)
            build = _sized(polybench.command(prog, root, cc, d / "prog"), size)
            ref = _sized(polybench.command(prog, root, ["gcc"], d / "ref"), size)
            out.append(Variant(f"polybench-{prog.name}", size, "polybench", d / "prog",
                               tuple(build), prog.folder, d / "ref", tuple(ref), "stderr",
                               1e-6, 0.011))  # dumps print 2 decimals
    return out


def _sized(cmd: list[str], size: str) -> list[str]:
    """The authors' command for another dataset (STANDARD is their default: no flag)."""
    flag = [] if size == "STANDARD" else [f"-D{size}_DATASET"]
    return [a for x in cmd for a in (flag if x == "-DSMALL_DATASET" else [x])]


# ---- building ------------------------------------------------------------------------

def _py_env(**extra: str) -> dict[str, str]:
    """This ompcl first on the path (make and the drivers start new interpreters)."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in
                                                       env.get("PYTHONPATH", "").split(os.pathsep)
                                                       if p])
    return env


def build(v: Variant, resume: bool = False, timeout: float = 900) -> str:
    """Build the variant (and its reference; with ``resume``, only what is missing); '' or
    why it failed."""
    for cmd, exe in ((v.ref_build, v.ref_exe), (v.build, v.exe)):
        if not cmd or (resume and exe and exe.exists()):
            continue
        if exe:
            exe.unlink(missing_ok=True)
        try:
            res = subprocess.run(cmd, cwd=v.cwd, capture_output=True, text=True,
                                 timeout=timeout, env=_py_env())
        except subprocess.TimeoutExpired:
            return f"build timed out: {' '.join(cmd[:4])}"
        if res.returncode != 0 or (exe and not exe.exists()):
            last = (res.stderr.strip().splitlines() or ["?"])[-1]
            return f"build failed ({'reference' if exe == v.ref_exe else 'ompcl'}): {last[:200]}"
    return ""


# ---- running and checking ------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    ok: str            # '' when the run succeeded, else why not
    out: str
    seconds: float
    stats: dict | None


def _run(exe: Path, cwd: Path, timeout: float, stats: Path | None = None, **env: str) -> Run:
    e = dict(os.environ, **MEASURE_ENV, **env)
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

    @property
    def host_model(self) -> Path:
        return self.work / "host-model.json"


def _host_env(plan: Plan) -> dict[str, str]:
    if plan.host_mode == "openmp":
        return {"OMPCL_DEVICE": "openmp"}
    return {"OMPCL_DEVICE": "auto", "OMPCL_MODEL": str(plan.host_model)}


def _measure_once(v: Variant, plan: Plan, expected: str | None, r: int) -> tuple[str, dict, dict]:
    """One repeat: the device and host runs (their order alternates); (why failed, stats)."""
    d = plan.work / "stats"
    modes = [("device", {"OMPCL_DEVICE": "opencl"}), ("host", _host_env(plan))]
    got = {}
    for mode, env in (modes if r % 2 == 0 else modes[::-1]):
        run = _run(v.exe, v.cwd, plan.timeout, d / f"{v.name}.{mode}.json", **env)
        why = verify(v, run, expected) or ("" if run.stats else "no statistics written (no "
                                                 "offloaded loop ran)")
        if why:
            return f"{mode} run: {why}", {}, {}
        got[mode] = run.stats
    return "", got["device"], got["host"]


def _reference(v: Variant, plan: Plan) -> tuple[str, str | None]:
    if v.ref_exe is None:
        return "", None
    run = _run(v.ref_exe, v.cwd, plan.timeout)
    return (f"reference run: {run.ok}", None) if run.ok else ("", _checked_text(v, run.out))


def _checked_run(v: Variant, plan: Plan, expected: str | None, label: str,
                 **env: str) -> tuple[Run, str]:
    run = _run(v.exe, v.cwd, plan.timeout, None, **env)
    why = verify(v, run, expected)
    return run, (f"{label}: {why}" if why else "")


def measure(v: Variant, plan: Plan) -> Outcome:
    """Warm up, then ``plan.repeats`` device and host runs, verified; rows of the medians."""
    out = Outcome(v.name)
    why, expected = _reference(v, plan)
    if not why:
        warm, why = _checked_run(v, plan, expected, "device warm-up", OMPCL_DEVICE="opencl")
    if not why:
        omp, why = _checked_run(v, plan, expected, "openmp run", OMPCL_DEVICE="openmp")
    if why:
        out.skipped = why
        return out
    out.seconds = {"opencl": round(warm.seconds, 4), "openmp": round(omp.seconds, 4)}
    per_repeat = []
    for r in range(1 if warm.seconds > plan.long_run else plan.repeats):
        out.load.append(os.getloadavg()[0])
        why, dev, host = _measure_once(v, plan, expected, r)
        if why:
            out.skipped = why
            return out
        out.device = out.device or dev.get("device", {})
        per_repeat.append(rows_from_stats(dev, host, v.benchmark, v.dataset))
    out.rows, dropped = aggregate(per_repeat, v.source, statistics.mean(out.load),
                                  plan.min_seconds)
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


def measure_all(variants: Sequence[Variant], plan: Plan, resume: bool,
                quiet: bool) -> list[Outcome]:
    """Measure one variant at a time (timings must not overlap); results are kept per
    variant under the work directory, so ``resume`` skips those already measured."""
    (plan.work / "results").mkdir(parents=True, exist_ok=True)
    (plan.work / "stats").mkdir(parents=True, exist_ok=True)
    plan.host_model.write_text(json.dumps(constant(False, "tree")))
    outcomes = []
    for v in _progress(variants, len(variants), "measure", quiet):
        f = _result_file(plan, v)
        if resume and f.exists():
            outcomes.append(Outcome(**json.loads(f.read_text())))
            continue
        o = measure(v, plan)
        f.write_text(json.dumps(o.__dict__))
        outcomes.append(o)
    return outcomes


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


def platform(outcomes: Sequence[Outcome]) -> dict:
    """The machine: the OpenCL device (from the statistics) against the host CPU."""
    dev = next((o.device for o in outcomes if o.device), {})
    return {"opencl_platform": dev.get("platform", ""), "opencl_device": dev.get("name", ""),
            "zero_copy": dev.get("zero_copy"), "host_cpu": _cpu_name(),
            "cores": os.cpu_count(), "openmp_threads": MEASURE_ENV["OMP_NUM_THREADS"]}


def metadata(outcomes: Sequence[Outcome], plan: Plan, started: str, loads: dict,
             argv: Sequence[str], commit: str | None = None) -> dict:
    """The collection's metadata; ``commit``: ompcl's commit when its programs were built
    (taken now when not given)."""
    measured = [o for o in outcomes if not o.skipped]
    seen = [x for o in measured for x in o.load]
    rows = [r for o in measured for r in o.rows]
    return {
        "collected": {"start": started, "end": _now()}, "command": " ".join(argv),
        "env": dict(MEASURE_ENV), "host_mode": plan.host_mode, "repeats": plan.repeats,
        "long_run_repeats_once": plan.long_run, "min_seconds": plan.min_seconds,
        "platform": platform(outcomes), "ompcl_commit": commit or _git_commit(),
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
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    args = ap.parse_args(argv)
    unknown = set(_csv_list(args.sources)) - set(SOURCES)
    if unknown or args.repeats < 1:
        ap.error(f"unknown source(s) {', '.join(sorted(unknown))}" if unknown
                 else "--repeats must be at least 1")
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
    plan = Plan(work, args.repeats, args.host_mode, args.min_seconds, args.timeout)
    failed = build_all(vs, args.jobs, args.resume, args.quiet)
    outcomes = [Outcome(v.name, skipped=failed[v.name]) for v in vs if v.name in failed]
    outcomes += measure_all([v for v in vs if v.name not in failed], plan, args.resume,
                            args.quiet)
    measured = [r for o in outcomes for r in o.rows]
    rows = dedupe(measured)
    meta = metadata(outcomes, plan, started, loads, argv, commit)
    meta.update(rows=len(rows), duplicates_merged=len(measured) - len(rows))
    return rows, meta


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
