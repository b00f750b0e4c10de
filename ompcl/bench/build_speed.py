"""Build-time benchmark: real trees built with ``CC=gcc`` and with ``CC="ompcl cc"``.

Builds the project's NAS tree (``make -C nas_benchmarks CLASS=W`` into fresh BINDIRs) and
the PolyBench/ACC programs that gcc builds (their authors' command lines), both ways,
interleaved, and prints the median wall and CPU seconds of each and their ratio per tree: a
fresh build (empty translation cache, no compile server running at its start) and a rebuild
(translations cached, the fresh build's compile server still up, as when a user rebuilds
soon after). CPU seconds include the compile server's (its own and its workers'); the wall
seconds of a command with several sources are those of its compiles run side by side
(``OMPCL_JOBS``; ``OMPCL_JOBS=1`` measures them one after the other).
Usage: ``python -m ompcl.bench.build_speed [--repeats 5] [--trees nas,polybench]``.
"""
from __future__ import annotations

import atexit
import os
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from . import polybench
from .command import bench_command, run_command

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_ROOT = ROOT  # the ompcl package measured is this one


_LAUNCHER: list[str] | None = None


def ompcl_cc() -> list[str]:
    """``ompcl cc`` as a build runs it after ``make install``: the native launcher, built
    for this interpreter and this ompcl package (in a temporary directory); this
    interpreter's ``-m ompcl`` where it cannot be built."""
    global _LAUNCHER
    if _LAUNCHER is None:
        from ..driver import launcher
        d = tempfile.mkdtemp(prefix="ompcl-bench-launcher-")
        atexit.register(shutil.rmtree, d, True)
        try:
            _LAUNCHER = [str(launcher.install(d)[0]), "cc"]
        except (launcher.LauncherBuildError, OSError) as e:
            print(f"native launcher not built ({e}): measuring the Python command")
            _LAUNCHER = [sys.executable, "-m", "ompcl", "cc"]
    return _LAUNCHER


def build_env(pycache: str | None = None) -> dict[str, str]:
    """The builds' environment: this package; with ``pycache``, Python bytecode kept there
    as an installed package has it, even where ``PYTHONDONTWRITEBYTECODE`` is set."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT),
                                                      env.get("PYTHONPATH", "")]))
    env.pop("OMPCL_REMARKS", None)
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    return env


def _timed(cmds: list[tuple[list[str], Path | None]], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (children's user + system, and the compile server's) seconds of running
    ``cmds`` in turn."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = _server_cpu(env)
    t0 = time.perf_counter()
    for cmd, cwd in cmds:
        subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu + _server_cpu(env) - server_before


def _server_pids(env: dict[str, str]) -> list[int]:
    """The compile servers answering in ``env``'s server directory."""
    from ..driver import client
    replies = [client.request(s, "ping") for s in client.sockets(env["OMPCL_SERVER_DIR"])]
    return [r["pid"] for r in replies if r]


def _server_cpu(env: dict[str, str]) -> float:
    """CPU seconds of the servers (user + system, their reaped workers included)."""
    total = 0.0
    for pid in _server_pids(env):
        try:
            with open(f"/proc/{pid}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def _stop_servers(env: dict[str, str]) -> None:
    from ..driver import client
    for s in client.sockets(env["OMPCL_SERVER_DIR"]):
        client.request(s, "stop")


def nas_build(cc: list[str], out: Path, cls: str, only: str = ""
              ) -> list[tuple[list[str], Path | None]]:
    only = [f"BENCHMARKS={only}"] if only else []
    return [(["make", "-s", "-C", str(ROOT / "nas_benchmarks"), f"CLASS={cls}",
              f"BINDIR={out}", f"CC={shlex.join(cc)}", *only], None)]


def polybench_build(cc: list[str], out: Path, cls: str, only: str = ""
                    ) -> list[tuple[list[str], Path | None]]:
    root = polybench.find_root()
    return [(polybench.command(p, root, cc, out / p.name), p.folder)
            for p in polybench.programs(root) if p.builds]


TREES = {"nas": nas_build, "polybench": polybench_build}


def measure(tree: str, repeats: int, cls: str, only: str = "") -> dict:
    """Median wall/CPU seconds of building ``tree`` with gcc, with ompcl cc from an empty
    translation cache (a fresh build), and again with that cache (a rebuild), interleaved.
    One untimed warm-up round first (file cache; it also builds the runtime library,
    ompcl's bytecode and its compiled templates, which every round then starts with, as an
    installed ompcl has them)."""
    times: dict[str, list[tuple[float, float]]] = {"gcc": [], "ompcl": [], "rebuild": []}
    with tempfile.TemporaryDirectory(prefix="ompcl-bench-") as work:
        env = build_env(os.path.join(work, "pycache"))
        warm = Path(work) / "warm-cache"
        for k in range(repeats + 1):
            with tempfile.TemporaryDirectory(prefix="round-", dir=work) as rnd:
                out, cache = Path(rnd), Path(rnd) / "cache"
                for kept in ("cc-runtime", "templates"):   # what ompcl keeps once installed
                    if (warm / kept).is_dir():
                        shutil.copytree(warm / kept, cache / kept)
                runs = [("gcc", ["gcc"]), ("ompcl", ompcl_cc()), ("rebuild", ompcl_cc())]
                server = dict(OMPCL_SERVER_DIR=str(out / "server"))
                for name, cc in runs:
                    (out / name).mkdir()
                    run_env = dict(env, OMPCL_CACHE_DIR=str(cache if k else warm),
                                   TMPDIR=rnd, **server)   # fallback reports stay in the round
                    t = _timed(TREES[tree](cc, out / name, cls, only), run_env)
                    if k:
                        times[name].append(t)
                _stop_servers(dict(env, **server))
    med = {n: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for n, v in times.items()}
    return {"tree": tree, **med,
            "wall_ratio": med["ompcl"][0] / med["gcc"][0],
            "cpu_ratio": med["ompcl"][1] / med["gcc"][1],
            "rebuild_ratio": med["rebuild"][0] / med["gcc"][0]}


@bench_command("build",
               'Build time of real trees with CC="ompcl cc" against plain gcc.',
               help=__doc__.splitlines()[0])
@click.option("--repeats", type=int, default=5, show_default=True,
              help="Timed rounds (the median is shown).")
@click.option("--trees", default="nas,polybench", show_default=True,
              help="Comma list: nas, polybench.")
@click.option("--class", "cls", default="W", show_default=True, help="NAS class.")
@click.option("--nas-benchmarks", default="", help="e.g. 'ep is' (default: all).")
def cli(repeats: int, trees: str, cls: str, nas_benchmarks: str) -> int:
    """``ompcl bench build``; returns the exit status."""
    trees = [t for t in trees.split(",") if t]
    if "polybench" in trees and polybench.find_root() is None:
        print("polybench: skipped (../shared/thirdparty/polybench-acc not found)")
        trees.remove("polybench")
    from ..driver.cc import jobs
    print(f"CC=gcc vs CC=\"{shlex.join(ompcl_cc())}\", median of {repeats} "
          f"interleaved rounds after one warm-up; ompcl cc runs up to {jobs()} compilers at "
          f"once in a command with several sources (OMPCL_JOBS)")
    print(f"{'tree':12} {'gcc wall':>9} {'ompcl wall':>10} {'ratio':>6}   "
          f"{'gcc cpu':>8} {'ompcl cpu':>9} {'ratio':>6}   {'rebuild wall':>12} {'ratio':>6}")
    for tree in trees:
        r = measure(tree, repeats, cls, nas_benchmarks if tree == "nas" else "")
        label = f"nas {cls}" if tree == "nas" else tree
        print(f"{label:12} {r['gcc'][0]:8.2f}s {r['ompcl'][0]:9.2f}s {r['wall_ratio']:5.2f}x   "
              f"{r['gcc'][1]:7.2f}s {r['ompcl'][1]:8.2f}s {r['cpu_ratio']:5.2f}x   "
              f"{r['rebuild'][0]:11.2f}s {r['rebuild_ratio']:5.2f}x")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.build_speed``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench build")


if __name__ == "__main__":
    sys.exit(main())
