"""``ompcl bench nas``: the benchmark harness over the NAS Parallel Benchmarks.

Consumes a benchmark tree (this project's ``nas_benchmarks/``, or ``--npb-dir`` an NPB 3.x
OpenMP C tree), the variants (``runs.VARIANTS``) and the measurement settings. Builds every
benchmark's flavours, runs warm-ups (filling the kernel binary cache) and timed repeats with
the variants interleaved in each repeat, verifies every run, and writes into ``-o DIR``:
``results.csv``, ``results.json``, the PNG figures, the training rows and per-run logs and
statistics. Exit status: 0 when every build succeeded and every run verified, 1 otherwise,
2 for a usage error.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import click
from tqdm import tqdm

from ..diagnostics import OmpclError
from ..predict.model import DEFAULT_MODEL
from ..predict.schema import ROW_COLUMNS
from . import machine, output, results, rows, trees
from .command import argv, bench_command, run_command
from .runs import DEFAULT_VARIANTS, VARIANTS, Run, Variant, run_env, run_once

DESCRIPTION = ("Builds and runs NAS benchmarks x classes x variants, verifies every run, and "
               "writes results.csv, results.json, PNG figures and training rows into DIR.")
OMP_DEFAULTS = {"OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true"}


class UsageError(Exception):
    """A bad command line (exit status 2)."""


def _options(f):
    """The command's options (``cli`` below)."""
    for decorator in reversed([
        click.option("--npb-dir", metavar="PATH",
                     help="An NPB 3.x OpenMP C tree (EP/ep.c, common/, sys/setparams.c, "
                     "config/make.def); default: this project's nas_benchmarks/."),
        click.option("--classes", default="S", show_default=True,
                     help="Comma-separated problem classes."),
        click.option("--benchmarks", help="Comma-separated benchmarks (default: all present)."),
        click.option("--variants", default=",".join(DEFAULT_VARIANTS), show_default=True,
                     help=f"Comma-separated, of {', '.join(VARIANTS)} (with ocl, host is run "
                     "too)."),
        click.option("--threads", default=str(os.cpu_count() or 1),
                     help="Comma-separated OpenMP thread counts (default: every CPU)."),
        click.option("--repeats", type=int, default=3, show_default=True,
                     help="Timed runs per variant."),
        click.option("--warmup", type=int, default=1, show_default=True,
                     help="Untimed runs of each device variant first."),
        click.option("-o", "--output", default="bench-nas", metavar="DIR", show_default=True,
                     help="Output directory."),
        click.option("--build-dir", metavar="DIR", help="Where to build (default DIR/build)."),
        click.option("--training-data", metavar="CSV",
                     help="Training rows file (default DIR/training_rows.csv)."),
        click.option("--cc", multiple=True, metavar="[BM=]CMD",
                     help="Compiler (default gcc), or the compiler of one benchmark; "
                     "repeatable."),
        click.option("--fallback-cc", metavar="CMD|none",
                     help="Compiler retried after an internal compiler error (default "
                     "clang-15 or clang)."),
        click.option("--model", metavar="FILE",
                     help="Dispatch model for the auto variant (OMPCL_MODEL; default: the "
                     "one compiled in)."),
        click.option("--env", multiple=True, metavar="VAR=VALUE",
                     help="Set a variable in every run (e.g. OMPCL_ZERO_COPY=0); repeatable."),
        click.option("--wait-policy", default=OMP_DEFAULTS["OMP_WAIT_POLICY"],
                     show_default=True, help="OMP_WAIT_POLICY of every OpenMP run."),
        click.option("--proc-bind", default=OMP_DEFAULTS["OMP_PROC_BIND"], show_default=True,
                     help="OMP_PROC_BIND of every OpenMP run."),
        click.option("--timeout", type=float,
                     help="Seconds a run may take (default: no limit)."),
        click.option("--no-plots", is_flag=True, help="Write no figures."),
        click.option("--corpus", is_flag=True,
                     help="Also measure many more kernels for the training rows: the test "
                     "corpus, PolyBench/ACC, the third-party programs of shared/thirdparty/"
                     "cases.txt and --fuzz programs of the fuzzer's generator (bench.collect, "
                     "in DIR/corpus)."),
        click.option("--fuzz", type=int, default=40, metavar="N", show_default=True,
                     help="Generated programs --corpus measures."),
    ]):
        f = decorator(f)
    return f


def _parse(argv: list[str]) -> argparse.Namespace:
    """The options of a command line (raises UsageError)."""
    try:
        with cli.make_context("ompcl bench nas", list(argv)) as ctx:
            return argparse.Namespace(**ctx.params)
    except click.UsageError as e:
        raise UsageError(e.format_message()) from None


@dataclass
class Plan:
    """Everything a round needs, checked."""
    tree: trees.Tree
    classes: list[str]
    benchmarks: list[str]
    variants: list[Variant]
    threads: list[int]
    repeats: int
    warmup: int
    out: Path
    build_dir: Path
    training: Path
    compiler: str
    per_benchmark_cc: dict[str, str]
    fallback: str | None
    omp_env: dict[str, str]
    extra_env: dict[str, str]
    model: str | None
    timeout: float | None
    plots: bool
    argv: list[str] = field(default_factory=list)
    corpus: bool = False
    fuzz: int = 40


def _list(text: str) -> list[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _pick(kind: str, wanted: list[str], known: list[str] | tuple[str, ...]) -> list[str]:
    bad = [w for w in wanted if w not in known]
    if bad:
        raise UsageError(f"unknown {kind} {', '.join(map(repr, bad))} (known: "
                         f"{', '.join(known)})")
    if not wanted:
        raise UsageError(f"no {kind} given")
    return list(dict.fromkeys(wanted))


def _positive(name: str, text: str) -> list[int]:
    try:
        vals = [int(x) for x in _list(text)]
    except ValueError:
        raise UsageError(f"{name} takes comma-separated whole numbers, not '{text}'") from None
    if not vals or min(vals) < 1:
        raise UsageError(f"{name} must be at least 1")
    return list(dict.fromkeys(vals))


def _compilers(values: list[str], benchmarks: list[str]) -> tuple[str, dict[str, str]]:
    default, per = "gcc", {}
    for v in values:
        m = re.match(r"^([A-Za-z]+)=(.+)$", v)
        if m and m.group(1).lower() in benchmarks:
            per[m.group(1).lower()] = m.group(2)
        elif m:
            raise UsageError(f"--cc {v}: no benchmark '{m.group(1)}' in this suite")
        else:
            default = v
    return default, per


def _fallback(value: str | None) -> str | None:
    if value is not None:
        return None if value == "none" else value
    return next((c for c in ("clang-15", "clang") if shutil.which(c)), None)


def _env_pairs(values: list[str]) -> dict[str, str]:
    out = {}
    for v in values:
        name, eq, val = v.partition("=")
        if not eq or not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise UsageError(f"--env takes VAR=VALUE, not '{v}'")
        out[name] = val
    return out


def _variants(names: list[str]) -> list[Variant]:
    names = _pick("variant", names, list(VARIANTS))
    if "ocl" in names and "host" not in names:
        names.append("host")  # the per-region oracle and the training rows need it
    return [VARIANTS[n] for n in names]


def make_plan(argv: list[str]) -> Plan:
    """The checked plan of a command line (raises UsageError or trees.TreeError)."""
    return plan_of(_parse(argv), argv)


def plan_of(a: argparse.Namespace, argv: list[str]) -> Plan:
    """The checked plan of parsed options (raises UsageError or trees.TreeError)."""
    tree = trees.open_tree(a.npb_dir)
    present = tree.benchmarks()
    classes = _pick("class", [c.upper() for c in _list(a.classes)], tree.classes)
    benchmarks = _pick("benchmark", [b.lower() for b in _list(a.benchmarks)], present) \
        if a.benchmarks is not None else present
    if a.repeats < 1 or a.warmup < 0 or a.fuzz < 0:
        raise UsageError("--repeats must be at least 1, --warmup and --fuzz at least 0")
    if a.model is not None and not Path(a.model).is_file():
        raise UsageError(f"--model {a.model}: no such file")
    out = Path(a.output)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {a.output}: exists and is not a directory")
    compiler, per_cc = _compilers(a.cc, present)
    return Plan(tree, classes, benchmarks, _variants(_list(a.variants)),
                _positive("--threads", a.threads), a.repeats, a.warmup, out,
                Path(a.build_dir) if a.build_dir else out / "build",
                Path(a.training_data) if a.training_data else out / "training_rows.csv",
                compiler, per_cc, _fallback(a.fallback_cc),
                {"OMP_WAIT_POLICY": a.wait_policy, "OMP_PROC_BIND": a.proc_bind},
                _env_pairs(a.env), str(Path(a.model).resolve()) if a.model else None,
                a.timeout, not a.no_plots, list(argv), a.corpus, a.fuzz)


# ---- the round -----------------------------------------------------------------------------

def _jobs(plan: Plan) -> list[tuple[Variant, int]]:
    """(variant, threads) pairs of one benchmark, in run order."""
    return [(v, t) for v in plan.variants for t in (plan.threads if v.threaded else [1])]


def _uses_device(v: Variant) -> bool:
    return dict(v.env).get("OMPCL_DEVICE") in ("opencl", "auto")


def _env_of(plan: Plan, v: Variant, threads: int) -> dict[str, str]:
    extra = dict(plan.extra_env)
    if v.name == "auto" and plan.model:
        extra["OMPCL_MODEL"] = plan.model
    return run_env(v, threads, plan.omp_env, extra)


class Round:
    """One invocation: builds, runs and their records, with a progress bar."""

    def __init__(self, plan: Plan, bar: tqdm):
        self.plan, self.bar = plan, bar
        self.builds: list[trees.Build] = []
        self.runs: list[Run] = []
        self.loads: list[dict] = []
        for d in ("logs", "stats"):
            (plan.out / d).mkdir(parents=True, exist_ok=True)

    def step(self, what: str) -> None:
        self.bar.set_description(what)

    def build_class(self, cls: str) -> dict[str, dict[str, trees.Build]]:
        flavours = list(dict.fromkeys(v.flavour for v in self.plan.variants))
        built = {}
        for bm in self.plan.benchmarks:
            cc = self.plan.per_benchmark_cc.get(bm, self.plan.compiler)
            bs = trees.build_benchmark(self.plan.tree, bm, cls, flavours, cc, self.plan.fallback,
                                       self.plan.build_dir, self._build_step)
            if any(b.retried_from for b in bs.values()):
                self.bar.total += len(flavours)
                self.bar.refresh()
                tqdm.write(f"ompcl: bench: warning: {cc} crashed building {bm} (internal "
                           f"compiler error); built it with {self.plan.fallback}",
                           file=sys.stderr)
            for b in bs.values():
                _build_log(self.plan, b).write_text(b.log)
            self.builds += bs.values()
            built[bm] = bs
        return built

    def _build_step(self, what: str, done: trees.Build | None) -> None:
        self.step(what)
        if done is not None:
            self.bar.update(1)

    def _run(self, bm: str, cls: str, exe: Path, v: Variant, threads: int, rep: int) -> None:
        self.step(f"run {bm} {cls} {v.name} {_threads(threads)}, "
                  + (f"repeat {rep}/{self.plan.repeats}" if rep else "warm-up"))
        p = self.plan
        self.runs.append(run_once(exe, v, threads, _env_of(p, v, threads), (bm, cls, rep),
                                  p.out / "logs", p.out / "stats", p.timeout))
        self.bar.update(1)

    def run_class(self, cls: str, built: dict[str, dict[str, trees.Build]]) -> None:
        jobs = _jobs(self.plan)
        ready = {bm: {f: b.exe for f, b in bs.items() if b.ok} for bm, bs in built.items()}
        for bm, exes in ready.items():
            for v, t in jobs:
                for _ in range(self.plan.warmup if _uses_device(v) and v.flavour in exes else 0):
                    self._run(bm, cls, exes[v.flavour], v, t, 0)
        for rep in range(1, self.plan.repeats + 1):
            self.loads.append({"class": cls, "repeat": rep, "load": machine.load_average()})
            shift = (rep - 1) % len(jobs)
            for bm, exes in ready.items():
                for v, t in jobs[shift:] + jobs[:shift]:  # interleaved, order rotated
                    if v.flavour in exes:
                        self._run(bm, cls, exes[v.flavour], v, t, rep)


def _total_steps(plan: Plan) -> int:
    jobs = _jobs(plan)
    flavours = {v.flavour for v in plan.variants}
    warm = sum(plan.warmup for v, _ in jobs if _uses_device(v))
    per_bm = len(flavours) + warm + plan.repeats * len(jobs)
    return len(plan.classes) * len(plan.benchmarks) * per_bm


# ---- results -------------------------------------------------------------------------------

def _build_note(b: trees.Build) -> str:
    return b.compiler + (f" ({b.retried_from} crashed)" if b.retried_from else "") + \
        (" -fopenmp, 1 thread (sources call OpenMP)" if b.openmp_one_thread else "")


def result_rows(plan: Plan, rnd: Round) -> tuple[list[dict], list[dict]]:
    """The result rows (measured, failed builds, derived) and the per-region table."""
    builds = {(b.benchmark, b.cls, b.flavour): b for b in rnd.builds}
    rows_ = results.summarise(rnd.runs)
    have = {(r["benchmark"], r["class"], r["variant"], r["threads"]) for r in rows_}
    for cls in plan.classes:
        for bm in plan.benchmarks:
            for v, t in _jobs(plan):
                b = builds.get((bm, cls, v.flavour))
                if (bm, cls, v.name, t) not in have and b is not None and not b.ok:
                    rows_.append(results.blank_row(bm, cls, v.name, t))
    for r in rows_:
        b = builds.get((r["benchmark"], r["class"], VARIANTS[r["variant"]].flavour))
        r["compiler"] = _build_note(b) if b else None
    names = {v.name for v in plan.variants}
    derived = results.best_single(rows_) + results.oracle(rows_) \
        if {"omp", "ocl"} <= names else []
    region_rows, table = results.region_oracle(rnd.runs, rows_)
    return rows_ + derived + region_rows, table


def _opencl(rnd: Round) -> dict | None:
    for r in rnd.runs:
        if r.variant == "ocl" and r.stats:
            return machine.opencl_of(results.load_stats(r.stats))
    return None


def _document(plan: Plan, rnd: Round, env: dict, rows_: list[dict], table: list[dict],
              training: dict, figures: list[Path]) -> dict:
    return {
        "command": ["ompcl", "bench", "nas", *plan.argv],
        "suite": {"path": str(plan.tree.root), "layout": plan.tree.layout},
        "settings": {"classes": plan.classes, "benchmarks": plan.benchmarks,
                     "variants": [v.name for v in plan.variants], "threads": plan.threads,
                     "repeats": plan.repeats, "warmup": plan.warmup,
                     "compiler": plan.compiler, "per_benchmark_compiler": plan.per_benchmark_cc,
                     "fallback_compiler": plan.fallback, "timeout": plan.timeout},
        "environment": env,
        "definitions": {"variants": {v.name: v.help for v in plan.variants},
                        "speedup": results.SPEEDUP, **results.DERIVED},
        "results": output.ordered(rows_),
        "regions": table,
        "training_rows": training,
        "figures": [p.name for p in figures],
        "builds": [{"benchmark": b.benchmark, "class": b.cls, "flavour": b.flavour,
                    "compiler": b.compiler, "ok": b.ok, "crashed": b.crashed,
                    "retried_from": b.retried_from, "seconds": round(b.seconds, 3),
                    "exe": str(b.exe) if b.ok else None,
                    "log": str(_build_log(plan, b))} for b in rnd.builds],
        "runs": [r.record() for r in rnd.runs],
    }


def _threads(n: int) -> str:
    return f"{n} thread{'s' if n > 1 else ''}"


def _report_failures(rows_: list[dict], rnd: Round) -> int:
    """One line per failed build and per measured variant that did not verify; the status."""
    for b in rnd.builds:
        if not b.ok:
            print(f"ompcl: bench: build of {b.benchmark} class {b.cls} ({b.flavour}, "
                  f"{b.compiler}) failed; see {_build_log(rnd.plan, b)}", file=sys.stderr)
    bad = [r for r in rows_ if not r["verified"] and r["variant"] in VARIANTS]
    for r in bad:
        print(f"ompcl: bench: {r['benchmark']} class {r['class']} {r['variant']} "
              f"{_threads(r['threads'])}: {r['status']}", file=sys.stderr)
    return 1 if bad else 0


def _build_log(plan: Plan, b: trees.Build) -> Path:
    return plan.out / "logs" / f"build.{b.benchmark}.{b.cls}.{b.flavour}.txt"


def _model_note(plan: Plan) -> str:
    if plan.model:
        return plan.model + " (OMPCL_MODEL)"
    return f"{DEFAULT_MODEL} (compiled in)" if DEFAULT_MODEL.is_file() else \
        "none: auto takes the device wherever one is ready"


def _corpus(plan: Plan) -> tuple[list[dict], dict]:
    """Rows and metadata of ``bench.collect`` over every source but NAS (measured above)."""
    from . import collect
    argv = ["-o", str(plan.out / "corpus_rows.csv"), "--sources",
            "corpus,polybench,thirdparty,fuzz", "--fuzz", str(plan.fuzz),
            "--repeats", str(plan.repeats), "--work", str(plan.out / "corpus")]
    if plan.timeout:
        argv += ["--timeout", str(plan.timeout)]
    return collect.gather(collect.parse_args(argv), (plan.out / "corpus").resolve(),
                          ["python -m ompcl.bench.collect", *argv])


def training_meta(plan: Plan, env: dict, kept: list[dict], merged: int) -> dict:
    """What ``ompcl train`` reads beside the training rows: where and how they were measured
    (the OpenCL device, the host, the compilers, the OpenMP settings, the load)."""
    ocl = env.get("opencl") or {}
    return {
        "collected": {"start": env["started"], "end": env.get("finished")},
        "command": " ".join(["ompcl", "bench", "nas", *plan.argv]),
        "platform": {"opencl_platform": ocl.get("platform") or "", "opencl_device":
                     ocl.get("device") or "", "zero_copy": ocl.get("zero_copy"),
                     "host_cpu": env["cpu"], "cores": env["logical_cpus"],
                     "openmp_threads": ",".join(map(str, plan.threads))},
        "compilers": env["compilers"], "ompcl": env["ompcl"],
        "env": {"OMP_NUM_THREADS": ",".join(map(str, plan.threads)), **plan.omp_env,
                **plan.extra_env},
        "load_average": {"start": env["load_before"], "end": env.get("load_after"),
                         "per_repeat": env.get("load_per_repeat")},
        "repeats": plan.repeats, "classes": plan.classes,
        "rows": len(kept), "programs": len({r["benchmark"] for r in kept}),
        "duplicates_merged": merged,
    }


def progress(total: int, file=None) -> tqdm:
    """The round's progress bar on ``file`` (stderr), only when it is a terminal: in a log or
    a pipe a bar is one long line of carriage returns, and the per-run logs and the table
    say what ran."""
    file = sys.stderr if file is None else file
    tty = hasattr(file, "isatty") and file.isatty()
    return tqdm(total=total, unit="step", file=file, dynamic_ncols=True, disable=not tty)


def execute(plan: Plan) -> int:
    """Runs the round and writes every output; returns the exit status."""
    plan.out.mkdir(parents=True, exist_ok=True)
    compilers = [plan.compiler, *plan.per_benchmark_cc.values(), *filter(None, [plan.fallback])]
    env = machine.describe(plan.omp_env, plan.threads, plan.extra_env, compilers,
                           _model_note(plan))
    if {**os.environ, **plan.extra_env}.get("OMPCL_CACHE_DIR") == "off":
        print("ompcl: bench: warning: OMPCL_CACHE_DIR=off: every device run builds its "
              "kernels, and the build is timed", file=sys.stderr)
    with progress(_total_steps(plan)) as bar:
        rnd = Round(plan, bar)
        for cls in plan.classes:
            rnd.run_class(cls, rnd.build_class(cls))
    env = machine.finish(env)
    env.update(opencl=_opencl(rnd), load_per_repeat=rnd.loads)
    rows_, table = result_rows(plan, rnd)
    plan.training.parent.mkdir(parents=True, exist_ok=True)
    measured = results.training_rows(rnd.runs, len(plan.threads) > 1)
    corpus_rows, corpus_meta = _corpus(plan) if plan.corpus else ([], None)
    kept = rows.dedupe(measured + corpus_rows)
    n = rows.write_csv(plan.training, kept, ROW_COLUMNS + ("threads",))
    meta = training_meta(plan, env, kept, len(measured) + len(corpus_rows) - n)
    meta = rows.write_meta(plan.training, {**meta, "corpus": corpus_meta} if plan.corpus
                           else meta)
    training = {"path": str(plan.training), "rows": n, "metadata": str(meta),
                "duplicates_merged": len(measured) + len(corpus_rows) - n,
                "corpus_rows": len(corpus_rows)}
    from . import plots  # matplotlib is slow to import; only a round that plots needs it
    figures = plots.write_figures(plan.out, rows_, table) if plan.plots else []
    output.write_csv(plan.out / "results.csv", rows_)
    output.write_json(plan.out / "results.json",
                      _document(plan, rnd, env, rows_, table, training, figures))
    print(output.format_table(rows_))
    _summary(plan, env, training, figures)
    return _report_failures(rows_, rnd)


def _summary(plan: Plan, env: dict, training: dict, figures: list[Path]) -> None:
    ocl = env.get("opencl") or {}
    print(f"\nOpenMP: {' '.join(f'{k}={v}' for k, v in plan.omp_env.items())}; load "
          f"{env['load_before']} before, {env['load_after']} after; OpenCL: "
          f"{ocl.get('platform', '-')} / {ocl.get('device', '-')}")
    print(f"wrote {plan.out / 'results.csv'}, {plan.out / 'results.json'}"
          + "".join(f", {plan.out / p.name}" for p in figures))
    print(f"wrote {training['rows']} training rows to {training['path']} "
          f"({training['duplicates_merged']} with the features of another merged into it; "
          f"metadata in {training['metadata']}; ompcl train reads both)")
    if ocl and not ocl.get("available"):
        print("ompcl: warning: no OpenCL device: the ocl and auto variants ran on the host",
              file=sys.stderr)


@bench_command("nas",
               "NAS benchmarks x classes x variants: verified times, speed-ups, oracles, figures.",
               help=DESCRIPTION)
@_options
def cli(**params) -> int:
    """``ompcl bench nas``; returns the exit status."""
    try:
        plan = plan_of(argparse.Namespace(**params), argv())
    except UsageError as e:
        print(f"ompcl: error: {e}", file=sys.stderr)
        return 2
    except OmpclError as e:
        print(e.format(), file=sys.stderr)
        return 1
    try:
        return execute(plan)
    except OmpclError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ompcl: interrupted", file=sys.stderr)
        return 130


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (``python -m ompcl.bench.nas``); returns the exit status."""
    return run_command(cli, argv, "ompcl bench nas")


if __name__ == "__main__":
    sys.exit(main())
