"""MPI benchmark: a hybrid MPI + OpenMP program built with the MPI compiler wrapper over gcc
and over ``ompcl cc``, run under ``mpirun -np N`` at each rank and thread count.

Builds the program twice (``mpicc -fopenmp``, and the same with the wrapper's compiler set to
``ompcl cc``: ``OMPI_CC`` for Open MPI, ``MPICH_CC`` for MPICH), runs each with the program's
first argument set to STEPS and to twice STEPS, and reports per step (the second run's less the
first's, so start-up and set-up cancel) the time (the program's ``time per step: X`` line when
it prints one) and, for the ompcl build, the bytes moved between host and device per rank
(``OMPCL_STATS`` written per rank); whether the ompcl build printed the gcc build's answer.

Usage: python -m ompcl.bench.mpi [SOURCE.c] [--np 1,2,4] [--threads 1,2] [--steps 20]
       [--cflags "-DNX=512"] [--env OMPCL_DEVICE=opencl] [--json FILE]
"""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import click

from .command import bench_command, run_command

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "heat2d_mpi.c"
#: every run: OpenMP threads that sleep while they wait (ranks and threads share the cores)
ENV = {"OMP_WAIT_POLICY": "passive", "OMPI_ALLOW_RUN_AS_ROOT": "1",
       "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1"}
_STEP_TIME = re.compile(r"time per step:\s*([0-9.eE+-]+)")
_NUMBER = re.compile(r"^[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$")


def flavour() -> str | None:
    """``openmpi`` or ``mpich``: whose ``mpicc`` and ``mpirun`` are on the path (None: no
    MPI)."""
    if not (shutil.which("mpicc") and shutil.which("mpirun")):
        return None
    try:
        show = subprocess.run(["mpicc", "--showme:version"], capture_output=True, text=True,
                              timeout=30)
    except OSError:
        return None
    return "openmpi" if show.returncode == 0 and "Open MPI" in show.stdout + show.stderr \
        else "mpich"


def ompcl_cc() -> str:
    """``ompcl cc`` as a command the wrappers can run: this interpreter and this ompcl."""
    return f"{shlex.quote(sys.executable)} -m ompcl cc"


def wrapper_env(cc: str, kind: str | None = None) -> dict[str, str]:
    """The environment that makes the MPI wrapper compile with ``cc`` (and this ompcl found
    by the interpreter)."""
    kind = kind or flavour()
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH", "")
    return {"OMPI_CC" if kind == "openmpi" else "MPICH_CC": cc,
            "PYTHONPATH": root + (os.pathsep + path if path else "")}


def build(src: Path, exe: Path, cflags: list[str], ompcl: bool) -> subprocess.CompletedProcess:
    """``mpicc -fopenmp -O2 CFLAGS src -o exe -lm``, over ``ompcl cc`` when ``ompcl``."""
    env = {**os.environ, **(wrapper_env(ompcl_cc()) if ompcl else {})}
    return subprocess.run(["mpicc", "-fopenmp", "-O2", *cflags, str(src), "-o", str(exe), "-lm"],
                          capture_output=True, text=True, env=env, timeout=600)


def mpirun_argv(np: int, kind: str | None = None) -> list[str]:
    """``mpirun`` for ``np`` ranks on this machine: more ranks than cores allowed, no binding
    (each rank's OpenMP threads and its OpenCL device's workers may use every core)."""
    kind = kind or flavour()
    if kind == "openmpi":
        return ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(np)]
    return ["mpirun", "-np", str(np)]


def run(exe: Path, np: int, threads: int, args: list[str], env: dict[str, str],
        stats_dir: Path | None = None, timeout: float = 600) -> dict:
    """One ``mpirun``: its output, wall seconds, the time per step the program printed and,
    with ``stats_dir``, each rank's ``OMPCL_STATS`` totals (by rank)."""
    full = {**os.environ, **ENV, "OMP_NUM_THREADS": str(threads), **env}
    if stats_dir is not None:
        for old in stats_dir.glob("stats-*.json"):
            old.unlink()
        full["OMPCL_STATS"] = str(stats_dir / "stats-%r.json")
    t0 = time.perf_counter()
    out = subprocess.run([*mpirun_argv(np), str(exe), *args], capture_output=True, text=True,
                         env=full, timeout=timeout)
    wall = time.perf_counter() - t0
    m = _STEP_TIME.search(out.stderr + out.stdout)
    ranks = {}
    for path in sorted(stats_dir.glob("stats-*.json")) if stats_dir is not None else ():
        st = json.loads(path.read_text())
        ranks[st.get("launcher", {}).get("rank", path.stem)] = st
    return {"rc": out.returncode, "stdout": out.stdout, "stderr": out.stderr, "wall_s": wall,
            "step_s": float(m.group(1)) if m else None, "ranks": ranks}


def per_step(short: dict, long: dict, steps: int) -> dict:
    """Per-step figures from a run of ``steps`` and one of twice as many: seconds (the
    program's own when it prints them), and bytes each way per rank (the ranks' mean and
    most)."""
    secs = long["step_s"] if long["step_s"] is not None else \
        (long["wall_s"] - short["wall_s"]) / steps
    moved = {}
    for rank, st in long["ranks"].items():
        a, b = short["ranks"].get(rank, {}).get("totals", {}), st.get("totals", {})
        moved[rank] = {k: (b.get(k, 0) - a.get(k, 0)) / steps
                       for k in ("bytes_to_device", "bytes_to_host")}
    both = [m["bytes_to_device"] + m["bytes_to_host"] for m in moved.values()]
    return {"step_s": secs, "bytes_per_rank": moved,
            "bytes_mean": sum(both) / len(both) if both else None,
            "bytes_max": max(both) if both else None}


def same_answer(expected: str, actual: str, rtol: float = 1e-9) -> bool:
    """Token by token: words equal, numbers within ``rtol`` (reductions sum in other orders)."""
    a, b = expected.split(), actual.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        if not (_NUMBER.match(x) and _NUMBER.match(y)):
            return False
        fx, fy = float(x), float(y)
        if abs(fx - fy) > rtol * max(abs(fx), abs(fy)):
            return False
    return True


def measure(exes: dict[str, Path], np: int, threads: int, steps: int, env: dict[str, str],
            scratch: Path) -> dict:
    """Both builds at one rank and thread count."""
    row = {"np": np, "threads": threads}
    for name, exe in exes.items():
        stats = scratch / f"{name}-{np}-{threads}" if name == "ompcl" else None
        if stats is not None:
            stats.mkdir(exist_ok=True)
        short = run(exe, np, threads, [str(steps)], env, stats)
        long = run(exe, np, threads, [str(2 * steps)], env, stats)
        ok = short["rc"] == 0 and long["rc"] == 0
        row[name] = {"ok": ok, "stdout": long["stdout"],
                     **(per_step(short, long, steps) if ok else {"error": long["stderr"][-2000:]})}
    g, o = row.get("gcc", {}), row.get("ompcl", {})
    row["same"] = bool(g.get("ok") and o.get("ok") and same_answer(g["stdout"], o["stdout"]))
    return row


def table(rows: list[dict]) -> str:
    head = (f"{'ranks':>5} {'threads':>7} {'gcc s/step':>11} {'ompcl s/step':>12} "
            f"{'ratio':>6} {'B/step/rank':>12} {'most':>10}  same answer")
    lines = [head, "-" * len(head)]
    for r in rows:
        g, o = r["gcc"], r["ompcl"]
        gs, os_ = g.get("step_s"), o.get("step_s")
        lines.append(
            f"{r['np']:>5} {r['threads']:>7} {gs if gs is not None else float('nan'):11.6f} "
            f"{os_ if os_ is not None else float('nan'):12.6f} "
            f"{(os_ / gs) if gs and os_ else float('nan'):6.2f} "
            f"{o.get('bytes_mean') or 0:12.0f} {o.get('bytes_max') or 0:10.0f}  "
            f"{'yes' if r['same'] else 'NO'}")
    return "\n".join(lines)


def _ints(text: str) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x]
    except ValueError:
        raise click.BadParameter(f"'{text}' is not a comma-separated list of numbers")
    if not out or min(out) < 1:
        raise click.BadParameter(f"'{text}': positive numbers, comma-separated")
    return out


@bench_command("mpi", "A hybrid MPI + OpenMP program: gcc and ompcl builds under mpirun.",
               help=__doc__.split("\n\n")[1])
@click.argument("source", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--np", "nps", default="1,2,4", show_default=True, help="Rank counts.")
@click.option("--threads", default="1,2", show_default=True, help="OpenMP threads per rank.")
@click.option("--steps", type=int, default=20, show_default=True,
              help="The program's first argument (runs at STEPS and twice STEPS).")
@click.option("--cflags", default="", help="More compiler options for both builds.")
@click.option("--env", "envs", multiple=True, metavar="NAME=VALUE",
              help="A variable for every run (repeatable), e.g. OMPCL_DEVICE=opencl.")
@click.option("--json", metavar="FILE", help="Also write the results to FILE.")
def cli(**params) -> int:
    """``ompcl bench mpi``; returns the exit status (1 when a build or run fails or the
    answers differ, 2 without MPI)."""
    args = SimpleNamespace(**params)
    if flavour() is None:
        print("ompcl: error: no mpicc/mpirun on the path (apt-get install openmpi-bin "
              "libopenmpi-dev)", file=sys.stderr)
        return 2
    env = dict(e.split("=", 1) for e in args.envs if "=" in e)
    src = Path(args.source or EXAMPLE)
    rows = []
    with tempfile.TemporaryDirectory(prefix="ompcl-mpi-") as tmp:
        scratch = Path(tmp)
        exes = {"gcc": scratch / "gcc.exe", "ompcl": scratch / "ompcl.exe"}
        for name, exe in exes.items():
            res = build(src, exe, shlex.split(args.cflags), name == "ompcl")
            if res.returncode != 0:
                print(f"{name} build failed:\n{res.stderr[-3000:]}", file=sys.stderr)
                return 1
        for np in _ints(args.nps):
            for threads in _ints(args.threads):
                print(f"running {np} rank(s) x {threads} thread(s) ...", file=sys.stderr,
                      flush=True)
                rows.append(measure(exes, np, threads, args.steps, env, scratch))
    print(f"{src.name}, {args.steps} and {2 * args.steps} steps; per step, bytes between host "
          f"and device per rank (mean, most); "
          f"{' '.join(args.envs) or 'default environment'}")
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2))
    return 0 if all(r["gcc"]["ok"] and r["ompcl"]["ok"] and r["same"] for r in rows) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.mpi``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench mpi")


if __name__ == "__main__":
    sys.exit(main())
