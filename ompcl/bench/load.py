"""Controlled background load for the benchmarks: bounded, self-stopping load generators on
the host's cores and on the OpenCL device, the load measured as the runtime measures it, and
``ompcl bench load``, which runs benchmarks under several load levels.

Every generator is a process of its own that stops itself, whatever happens to whoever
started it: at its deadline (checked by the process, and again by the kernel through
``RLIMIT_CPU``), when its parent dies (``PR_SET_PDEATHSIG``, and a check of ``getppid()``),
and when the context that started it ends. ``python -m ompcl.bench.load spin`` is the host
generator's process; the device generator is a small OpenMP program built with ompcl and
forced onto the device, which checks the same bounds itself.
"""
from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click

#: no generator runs longer than this, whatever it is asked (seconds)
MAX_SECONDS = 900.0
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Level:
    """A background load: busy host cores, and whether a second process runs kernels."""
    name: str
    host_cores: int
    device: bool


LEVELS: dict[str, Level] = {lv.name: lv for lv in (
    Level("none", 0, False), Level("host1", 1, False), Level("host2", 2, False),
    Level("device", 0, True))}


# -- the load, measured as the runtime measures it (ompcl_rt_load.c) ---------------------

def _proc_stat(cpus: set[int]) -> tuple[int, int, int]:
    """procs_running, and the busy and total jiffies of ``cpus``."""
    running = busy = total = 0
    with open("/proc/stat") as fh:
        for line in fh:
            f = line.split()
            if f[0] == "procs_running":
                running = int(f[1])
            elif f[0].startswith("cpu") and f[0][3:].isdigit() and int(f[0][3:]) in cpus:
                v = [int(x) for x in f[1:9]]
                total += sum(v)
                busy += sum(v) - v[3] - v[4]
    return running, busy, total


def measure(seconds: float = 0.3, interval: float = 0.01) -> dict:
    """The load on this process's cores over ``seconds``: other processes' runnable tasks per
    core (mean of samples, this process's one thread taken out) and the busy share of the
    cores (jiffies; this process sleeps meanwhile)."""
    cpus = os.sched_getaffinity(0)
    online = os.cpu_count() or len(cpus)
    t_end = time.monotonic() + seconds
    _, busy0, total0 = _proc_stat(cpus)
    runnable = []
    while time.monotonic() < t_end:
        running, _, _ = _proc_stat(cpus)
        runnable.append(max(running - 1, 0) / online)   # spread evenly over the CPUs
        time.sleep(interval)
    _, busy1, total1 = _proc_stat(cpus)
    share = (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0
    return {"cores": len(cpus), "runnable": round(sum(runnable) / max(len(runnable), 1), 3),
            "busy": round(min(max(share, 0.0), 1.0), 3)}


# -- the host generator ------------------------------------------------------------------

def _die_with_parent() -> None:
    """The kernel kills this process when its parent dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _bound_cpu(seconds: float) -> None:
    """The kernel stops this process once it has used ``seconds`` of CPU (and a second)."""
    limit = int(seconds) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (limit, limit + 1))


def spin(seconds: float, parent: int) -> int:
    """One busy core until ``seconds`` have passed or ``parent`` is gone (the generator's
    process: ``python -m ompcl.bench.load spin SECONDS PARENT``)."""
    seconds = min(seconds, MAX_SECONDS)
    _die_with_parent()
    _bound_cpu(seconds)
    deadline = time.monotonic() + seconds
    x = 0
    while time.monotonic() < deadline and os.getppid() == parent:
        for _ in range(20000):  # about a millisecond between checks
            x += 1
    return 0


class _Processes:
    """Generator processes, stopped when the context ends (each stops itself anyway)."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def alive(self) -> int:
        return sum(p.poll() is None for p in self.procs)

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


class HostLoad(_Processes):
    """``cores`` busy processes, one pinned to each of the first ``cores`` CPUs this process
    may use, for at most ``seconds``."""

    def __init__(self, cores: int, seconds: float = 300.0):
        super().__init__()
        self.cores, self.seconds = cores, min(seconds, MAX_SECONDS)

    def __enter__(self):
        cpus = sorted(os.sched_getaffinity(0))
        for k in range(self.cores):
            cpu = cpus[k % len(cpus)]
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "ompcl.bench.load", "spin", str(self.seconds),
                 str(os.getpid())], preexec_fn=lambda c=cpu: self._bound(c),
                env=_module_env(), stdin=subprocess.DEVNULL))
        return self


    def _bound(self, cpu: int) -> None:
        """In the child before it runs Python: its core, and the kernel's bounds from the
        start (the parent's death, the CPU time)."""
        os.sched_setaffinity(0, {cpu})
        _die_with_parent()
        _bound_cpu(self.seconds)


def _module_env() -> dict[str, str]:
    """This process's environment, with this ompcl importable."""
    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


# -- the device generator ----------------------------------------------------------------

DEVICE_PROGRAM = r"""
/* ompcl's device load: kernels until the deadline (argv[1] seconds) or the parent's death */
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#define N (1 << 20)
static double a[N], b[N];
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}
int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 10, t_end;
  pid_t parent = argc > 2 ? (pid_t)atol(argv[2]) : getppid();
  struct rlimit cpu;
  long steps = 0;
  int i;
  if (seconds > 900) seconds = 900;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  cpu.rlim_cur = (rlim_t)(2 * seconds) + 4;  /* two cores of kernels at most */
  cpu.rlim_max = cpu.rlim_cur + 1;
  setrlimit(RLIMIT_CPU, &cpu);
  t_end = now() + seconds;
  for (i = 0; i < N; i++) a[i] = i * 1e-6;
  while (now() < t_end && getppid() == parent) {
#pragma omp parallel for
    for (i = 0; i < N; i++)
      b[i] = a[i] * 1.0000001 + b[i] * 0.5;
    steps++;
  }
  printf("%ld %g\n", steps, b[N / 2]);
  return 0;
}
"""


def device_program(build_dir: Path) -> Path:
    """The device load's executable, built with ompcl once in ``build_dir``."""
    build_dir.mkdir(parents=True, exist_ok=True)
    src, exe = build_dir / "device_load.c", build_dir / "device_load"
    if exe.is_file() and src.is_file() and src.read_text() == DEVICE_PROGRAM:
        return exe
    src.write_text(DEVICE_PROGRAM)
    subprocess.run([sys.executable, "-m", "ompcl.cli", "build", str(src), "-o", str(exe)],
                   check=True, capture_output=True, text=True, env=_module_env())
    return exe


class DeviceLoad(_Processes):
    """A second process running kernels on the OpenCL device for at most ``seconds``."""

    def __init__(self, build_dir: Path, seconds: float = 300.0):
        super().__init__()
        self.exe, self.seconds = device_program(build_dir), min(seconds, MAX_SECONDS)

    def __enter__(self):
        env = dict(os.environ, OMPCL_DEVICE="opencl", OMP_NUM_THREADS="1")
        env.pop("OMPCL_STATS", None)
        self.procs.append(subprocess.Popen(
            [str(self.exe), str(self.seconds), str(os.getpid())], env=env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        return self


class Background(_Processes):
    """The generators of a load level, started together."""

    def __init__(self, level: Level, build_dir: Path, seconds: float = 300.0):
        super().__init__()
        self.parts: list[_Processes] = []
        if level.host_cores:
            self.parts.append(HostLoad(level.host_cores, seconds))
        if level.device:
            self.parts.append(DeviceLoad(build_dir, seconds))

    def __enter__(self):
        for p in self.parts:
            p.__enter__()
            self.procs += p.procs
        time.sleep(0.3 if self.parts else 0)  # the load is on before anything is measured
        return self


# -- ompcl bench load: benchmarks under each load level -----------------------------------

#: configurations a benchmark runs in at each level: forced to the device, on the host at
#: each thread count (hostN, the oracle's choices and the training rows), and learned
#: dispatch with the load-blind and the load-aware model
FORCED_DEVICE = {"OMPCL_DEVICE": "opencl"}
HOST = {"OMPCL_DEVICE": "openmp"}
AUTO = {"OMPCL_DEVICE": "auto"}
OMP_DEFAULTS = {"OMP_WAIT_POLICY": "passive", "OMP_PROC_BIND": "true"}


def config_env(config: str, threads: int, models: dict[str, Path], bm: str) -> dict[str, str]:
    """The environment of one configuration: ``device``, ``hostN``, ``blind`` or ``aware``
    (with ``models[kind]``: a model file, or a directory holding ``KIND-minus-BM.json``, the
    model trained without this benchmark's rows, else ``KIND.json``)."""
    env = dict(OMP_DEFAULTS, OMP_NUM_THREADS=str(threads))
    if config == "device":
        return {**env, **FORCED_DEVICE}
    if config.startswith("host") and config[4:].isdigit():
        return {**env, **HOST, "OMP_NUM_THREADS": config[4:]}
    if config in ("blind", "aware", "default"):  # default: the compiled-in model
        env.update(AUTO)
        if config in models:
            env["OMPCL_MODEL"] = str(model_file(models[config], config, bm))
        return env
    raise ValueError(f"unknown configuration '{config}'")


def model_file(where: Path, kind: str, bm: str) -> Path:
    if where.is_file():
        return where
    held_out = where / f"{kind}-minus-{bm}.json"
    return held_out if held_out.is_file() else where / f"{kind}.json"


def _region_seconds(stats: dict | None) -> dict[tuple, float]:
    if not stats:
        return {}
    return {(os.path.basename(r["file"]), r["line"], r.get("kernel")):
            r["seconds_device"] + r["seconds_host"] for r in stats.get("regions", [])}


def oracles(times: dict[str, float], stats: dict[str, dict | None], choices: list[str]
            ) -> tuple[float | None, float | None]:
    """The whole-program oracle (the fastest of ``choices``) and the per-region one: the
    fastest choice's time outside its regions plus each region's fastest choice."""
    have = [c for c in choices if times.get(c) is not None]
    if not have:
        return None, None
    whole = min(times[c] for c in have)
    per = {c: _region_seconds(stats.get(c)) for c in have}
    if not all(per.values()):
        return whole, None
    keys = set.intersection(*(set(p) for p in per.values()))
    outside = min(times[c] - sum(per[c][k] for k in keys) for c in have)
    return whole, min(whole, max(outside, 0.0) + sum(min(per[c][k] for c in have) for k in keys))


def load_rows(device: dict, host: dict, threads: int, bm: str, cls: str, level: str
              ) -> list[dict]:
    """Training rows of one level (``rows.rows_from_stats``) with the load features: the
    runtime's at the device run's decisions, the host run's thread count."""
    from ..predict.schema import LOAD
    from .rows import rows_from_stats
    seen = {}
    for r in device.get("regions", []):
        for z in r.get("sizes", []):
            seen[(os.path.basename(r["file"]), r["line"], r.get("kernel"), z["work_items"])] = \
                z.get("load")
    out = []
    for row in rows_from_stats(device, host, f"{bm}-{level}", cls):
        f, line, kernel = row["kernel"].split(":", 2)
        load = list(seen.get((f, int(line), kernel, row["work_items"])) or [0] * len(LOAD))
        load[LOAD.index("host_threads")] = threads
        out.append({**row, **dict(zip(LOAD, load)), "level": level})
    return out


@dataclass
class LoadRound:
    """What ``ompcl bench load`` measured."""
    runs: list[dict]
    rows: list[dict]
    table: list[dict]


def _median(xs: list[float]) -> float | None:
    xs = sorted(x for x in xs if x is not None)
    return xs[len(xs) // 2] if xs else None


def run_level(exe: Path, bm: str, cls: str, level: Level, configs: list[str], threads: int,
              models: dict[str, Path], repeats: int, out: Path, timeout: float) -> list[dict]:
    """Every configuration of one benchmark under one load level, the load measured before
    each run; the generators stop with the level (and by themselves, whatever happens)."""
    from .runs import Variant, run_once
    (out / "logs").mkdir(parents=True, exist_ok=True)
    (out / "stats").mkdir(parents=True, exist_ok=True)
    bound = min(MAX_SECONDS, (timeout + 2) * len(configs) * repeats + 30)
    records = []
    with Background(level, out / "build", bound):
        for rep in range(1, repeats + 1):
            for c in configs:
                bg = measure(0.3)
                env = config_env(c, threads, models, bm)
                v = Variant(f"{level.name}.{c}", "ompcl", tuple(env.items()), False, c)
                run = run_once(exe, v, threads, env, (bm, cls, rep), out / "logs",
                               out / "stats", timeout)
                stats = _read_json(run.stats)
                rt = (stats or {}).get("totals", {}).get("load", {})
                records.append({"benchmark": bm, "class": cls, "level": level.name,
                                "config": c, "repeat": rep, "verified": run.verified,
                                "time_s": run.time_s, "wall_s": round(run.wall_s, 3),
                                "bg_runnable": bg["runnable"], "bg_busy": bg["busy"],
                                "rt_runnable": rt.get("runnable_mean"),
                                "rt_busy": rt.get("busy_mean"), "stats": run.stats})
    return records


def _read_json(path: str | None) -> dict | None:
    import json
    try:
        return json.loads(Path(path).read_text()) if path else None
    except (OSError, ValueError):
        return None


def summarise(runs: list[dict], threads: int) -> tuple[list[dict], list[dict]]:
    """Per benchmark and level: each configuration's median time, the oracles, the learned
    configurations against them; and the training rows of the forced runs."""
    table, rows = [], []
    keys = sorted({(r["benchmark"], r["class"], r["level"]) for r in runs})
    for bm, cls, level in keys:
        mine = [r for r in runs if (r["benchmark"], r["class"], r["level"]) == (bm, cls, level)]
        configs = sorted({r["config"] for r in mine})
        times = {c: _median([r["time_s"] for r in mine if r["config"] == c and r["verified"]])
                 for c in configs}
        stats = {c: _read_json(next((r["stats"] for r in mine if r["config"] == c
                                     and r["verified"]), None)) for c in configs}
        choices = [c for c in configs if c == "device" or c.startswith("host")]
        whole, per_region = oracles(times, stats, choices)
        row = {"benchmark": bm, "class": cls, "level": level,
               "bg_busy": _median([r["bg_busy"] for r in mine]),
               "bg_runnable": _median([r["bg_runnable"] for r in mine]),
               **{f"t_{c}": times[c] for c in configs},
               "oracle": whole, "oracle_regions": per_region}
        for c in ("blind", "aware"):
            if times.get(c) and whole:
                row[f"{c}_vs_oracle"] = round(times[c] / whole, 3)
        table.append(row)
        for c in choices:
            if c.startswith("host") and stats.get("device") and stats.get(c):
                rows += load_rows(stats["device"], stats[c], int(c[4:]), bm, cls, level)
    return table, rows


def read_runs(path: str | Path) -> list[dict]:
    """The runs of an earlier round's runs.csv, typed as ``run_level`` makes them."""
    import csv
    out = []
    for r in csv.DictReader(open(path)):
        num = {k: float(r[k]) if r[k] not in ("", None) else None
               for k in ("time_s", "wall_s", "bg_runnable", "bg_busy", "rt_runnable",
                         "rt_busy")}
        out.append({**r, **num, "repeat": int(r["repeat"]), "verified": r["verified"] == "True",
                    "stats": r["stats"] or None})
    return out


def write_csv(path: Path, records: list[dict]) -> None:
    import csv
    cols: list[str] = []
    for r in records:
        cols += [k for k in r if k not in cols]
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        w.writerows(records)


def _bench_options(f):
    for d in reversed([
        click.option("--benchmarks", default="cg,mg,ft,is,ep", show_default=True),
        click.option("--class", "cls", default="W", show_default=True),
        click.option("--levels", default="none,host1,host2,device", show_default=True,
                     help=f"Comma-separated, of {', '.join(LEVELS)}."),
        click.option("--configs", default="device,host1,host2,blind,aware", show_default=True,
                     help="device, hostN (N threads), blind, aware."),
        click.option("--threads", type=int, default=os.cpu_count() or 1,
                     help="OMP_NUM_THREADS of device, blind and aware (the upper bound)."),
        click.option("--blind-model", metavar="FILE|DIR"),
        click.option("--aware-model", metavar="FILE|DIR"),
        click.option("--repeats", type=int, default=1, show_default=True),
        click.option("--timeout", type=float, default=120.0, show_default=True),
        click.option("--build-dir", metavar="DIR", help="The ompcl builds (default DIR/build)."),
        click.option("-o", "--output", default="bench-load", show_default=True),
        click.option("--merge", metavar="CSV", multiple=True,
                     help="runs.csv of an earlier round, whose runs join this one's table."),
    ]):
        f = d(f)
    return f


def execute(benchmarks: list[str], cls: str, levels: list[Level], configs: list[str],
            threads: int, models: dict[str, Path], repeats: int, out: Path, build_dir: Path,
            timeout: float) -> LoadRound:
    from . import trees
    tree = trees.open_tree(None)
    runs = []
    for bm in benchmarks:
        b = tree.build(bm, cls, "ompcl", "gcc", build_dir)
        if not b.ok:
            print(f"ompcl: warning: {bm}.{cls} did not build ({b.log[-300:]})", file=sys.stderr)
            continue
        for level in levels:
            runs += run_level(b.exe, bm, cls, level, configs, threads, models, repeats, out,
                              timeout)
            print(f"{bm}.{cls} {level.name}: done", file=sys.stderr, flush=True)
    table, rows = summarise(runs, threads)
    return LoadRound(runs, rows, table)


def _check_choices(levels: str, configs: str) -> None:
    """Bad ``--levels``/``--configs`` as usage errors, before anything runs."""
    bad = [x for x in levels.split(",") if x not in LEVELS]
    if bad:
        raise click.BadParameter(f"unknown level {bad[0]!r} (known: {', '.join(LEVELS)})",
                                 param_hint="--levels")
    for c in configs.split(","):
        try:
            config_env(c, 1, {}, "")
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--configs") from None


def _command():
    from . import load_table
    from .command import bench_command

    @bench_command("load", "Benchmarks under controlled background load.")
    @_bench_options
    def command(benchmarks, cls, levels, configs, threads, blind_model, aware_model, repeats,
                timeout, build_dir, output, merge) -> int:
        """Runs NAS benchmarks under background load levels (none, busy host cores, a second
        process running kernels), each in every configuration, the load measured before each
        run; writes runs.csv, table.csv and training_rows.csv (with the load features)."""
        _check_choices(levels, configs)
        out = Path(output)
        out.mkdir(parents=True, exist_ok=True)
        models = {k: Path(v) for k, v in (("blind", blind_model), ("aware", aware_model)) if v}
        rnd = execute(benchmarks.split(","), cls.upper(),
                      [LEVELS[x] for x in levels.split(",")], configs.split(","), threads,
                      models, repeats, out, Path(build_dir) if build_dir else out / "build",
                      timeout)
        write_csv(out / "runs.csv", rnd.runs)
        if merge:
            rnd.table, rnd.rows = summarise(rnd.runs + [r for m in merge for r in read_runs(m)],
                                            threads)
        write_csv(out / "table.csv", rnd.table)
        if rnd.rows:
            write_csv(out / "training_rows.csv", rnd.rows)
        for row in rnd.table:
            print(" ".join(f"{k}={v}" for k, v in row.items()))
        levels_summary = load_table.level_summary(rnd.table, list(LEVELS))
        write_csv(out / "levels.csv", levels_summary)
        print("\n".join(load_table.summary_lines(levels_summary)))
        return 0 if all(r["verified"] for r in rnd.runs) else 1
    return command


cli = _command()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 3 and args[0] == "spin":
        return spin(float(args[1]), int(args[2]))
    if len(args) >= 3 and args[0] == "train":
        from .load_models import main as train
        return train(args[1:])
    from .command import run_command
    return run_command(cli, args, "ompcl bench load")


if __name__ == "__main__":
    sys.exit(main())
