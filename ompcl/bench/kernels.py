"""Kernel benchmark: common loop shapes, each as ompcl generates and launches it, as plain
hand-written OpenCL doing the same work on the same device, and as the original OpenMP loop.

Consumes the shapes below (an OpenMP C program per shape, one or more hand-written OpenCL
kernels with their launch). Produces a table per shape: milliseconds per call (the fastest
call; the median with ``--stat median``; with ``--stat rounds`` the median over rounds of
each round's fastest call, which neither rewards one lucky call of a kernel whose speed is a
lottery, such as contended atomics, nor charges a load burst to one side) of the generated kernel (device time from
profiling events, and the whole call through the runtime), of the fastest hand-written kernel
(the same two), the generated/hand-written ratios, and the
OpenMP loop's time; the CPU time of the calls (every thread of the process) and its ratio;
the geometric mean of the ratios; a check that all three computed the same result. Each shape's program is built twice (``ompcl build``; ``gcc -fopenmp``); the runs
interleave (generated, hand-written, OpenMP, in rounds), with ``OMP_WAIT_POLICY=passive``:
many short rounds rather than a few long ones, so that both sides sample the same load.
The fastest call is the default statistic because this machine is shared: other processes
only ever add time, and a median of bursts minutes apart measures their load as much as the
kernels (ratios moved by 1.5x between runs of the same build). Under heavy load even the
fastest call may never see both cores free; the CPU time of a call is what it costs the
machine whatever else runs (it does not show a call that leaves a core idle, the wall times
do), so the two together tell a slower kernel from a busier machine.
Usage: ``ompcl bench kernels [--rounds 10] [--calls 20] [--stat min|median|rounds] [--shapes map,sum]
[--json out.json]``.
"""
from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import click

from . import roofline
from .command import bench_command, run_command
from .kernel_shapes import SHAPES, Hand, Shape

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Samples:
    """Per-call seconds of one way of running a shape: whole calls and device time."""

    wall: list[float] = field(default_factory=list)
    kernel: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)  # CPU seconds of the call, all threads
    check: float | None = None
    #: where each round's calls start in each list (one run of a program is one round)
    marks: list[dict[str, int]] = field(default_factory=list)
    #: how calls summarise: "min" (the fastest call), "median", or "rounds" (the median over
    #: rounds of each round's fastest call); set from ``--stat``
    stat: ClassVar[str] = "min"

    def new_round(self) -> None:
        self.marks.append({w: len(getattr(self, w)) for w in ("wall", "kernel", "cpu")})

    def per_round(self, which: str) -> list[list[float]]:
        values = getattr(self, which)
        starts = [m[which] for m in self.marks] or [0]
        ends = starts[1:] + [len(values)]
        return [values[a:b] for a, b in zip(starts, ends) if b > a]

    def ms(self, which: str) -> float:
        values = getattr(self, which)
        if not values:
            return float("nan")
        if self.stat == "rounds":
            return 1e3 * statistics.median(min(r) for r in self.per_round(which))
        pick = min if self.stat == "min" else statistics.median
        return 1e3 * pick(values)


# -- the C side: one program per shape, built through ompcl and with gcc -fopenmp -------------

_DRIVER = r"""
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#define BENCH_HASH(k) ((unsigned)(k) * 2654435761u %% 1000003u)
%(globals)s
%(loop)s
static double bench_kernel_seconds(void)
{
#ifdef OMPCL_RT_H
    return ompcl_rt_kernel_seconds();  /* the translated program: its runtime's device time */
#else
    return 0.0;
#endif
}

static double bench_cpu_seconds(void)  /* every thread of the process: PoCL's too */
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 10, c;
%(init)s
    %(call)s;  /* warm-up: program build, first-launch compilation */
    for (c = 0; c < calls; c++) {
        double k0 = bench_kernel_seconds(), c0 = bench_cpu_seconds(), t0 = omp_get_wtime();
        double t1, c1, k1;
        %(call)s;
        t1 = omp_get_wtime();
        c1 = bench_cpu_seconds();
        k1 = bench_kernel_seconds();
        printf("sample %%.9f %%.9f %%.9f\n", t1 - t0, k1 - k0, c1 - c0);
    }
    printf("check %%.17g\n", (double)(%(check)s));
    return 0;
}
"""


def c_program(shape: Shape) -> str:
    """The shape's OpenMP C program: its loop function, called once to warm up and then
    ``argv[1]`` times, each call timed (wall and, translated, the device's kernel time)."""
    return _DRIVER % {"globals": shape.c_globals, "loop": shape.c_loop, "init": shape.c_init,
                      "call": shape.c_call, "check": shape.c_check}


def build(shape: Shape, work: Path) -> tuple[Path, Path]:
    """The translated executable and the original OpenMP one."""
    src = work / f"{shape.name}.c"
    src.write_text(c_program(shape))
    gen, omp = work / f"{shape.name}_ompcl", work / f"{shape.name}_omp"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for cmd in ([sys.executable, "-m", "ompcl.cli", "build", str(src), "-o", str(gen),
                 "--cflags", "-O2"],
                ["gcc", "-O2", "-fopenmp", str(src), "-o", str(omp), "-lm"]):
        p = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
        if p.returncode:
            raise SystemExit(f"building {shape.name} failed: {' '.join(cmd)}\n{p.stderr}")
    return gen, omp


def run_program(exe: Path, calls: int, samples: Samples, **env: str) -> None:
    """Run a built program once, adding its per-call times to ``samples``."""
    full = dict(os.environ, OMP_WAIT_POLICY="passive", **env)
    full.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    p = subprocess.run([str(exe), str(calls)], capture_output=True, text=True, env=full,
                       check=True)
    samples.new_round()
    if "warning" in p.stderr:
        raise SystemExit(f"{exe.name}: {p.stderr.strip()}")
    for line in p.stdout.splitlines():
        parts = line.split()
        if parts[0] == "sample":
            samples.wall.append(float(parts[1]))
            samples.cpu.append(float(parts[3]))
            if env.get("OMPCL_DEVICE") == "opencl":
                samples.kernel.append(float(parts[2]))
        elif parts[0] == "check":
            samples.check = float(parts[1])


# -- the hand-written side: pyopencl in this process -------------------------------------------

class Device:
    """The OpenCL device the runtime would pick (here: the first device of the first
    platform), with a profiling queue."""

    def __init__(self):
        # the device as ompcl's runtime configures it (PoCL's workers pinned, POCL_AFFINITY),
        # so that both sides run on the same device
        os.environ.setdefault("POCL_AFFINITY", "1")
        import pyopencl as cl
        self.cl = cl
        self.ctx = cl.Context(cl.get_platforms()[0].get_devices()[:1])
        self.queue = cl.CommandQueue(
            self.ctx, properties=cl.command_queue_properties.PROFILING_ENABLE)
        self.name = self.ctx.devices[0].name
        self.units = self.ctx.devices[0].max_compute_units


def run_hand(dev: Device, shape: Shape, hand: Hand, calls: int, samples: Samples,
             prepared: dict) -> None:
    """Launch a hand-written kernel ``calls`` times (after one warm-up launch)."""
    launch = prepared[hand.name]
    launch()
    samples.new_round()
    for _ in range(calls):
        c0, t0 = time.process_time(), time.perf_counter()
        ev = launch()
        t1, c1 = time.perf_counter(), time.process_time()
        samples.wall.append(t1 - t0)
        samples.cpu.append(c1 - c0)
        samples.kernel.append(ev)
    samples.check = shape.hand_check(prepared["state"])


def prepare_hand(dev: Device, shape: Shape) -> dict:
    """Data on the device and a launcher per hand-written kernel of the shape."""
    state = shape.hand_setup(dev) | {"dev": dev}
    out: dict = {"state": state}
    for hand in shape.hands:
        prg = dev.cl.Program(dev.ctx, hand.source).build()
        out[hand.name] = _launcher(dev, hand, prg, state)
    return out


def _launcher(dev: Device, hand: Hand, prg, state: dict) -> Callable[[], float]:
    kernel = dev.cl.Kernel(prg, hand.kernel)
    kernel.set_args(*hand.args(state))
    geometry = hand.geometry(state, dev)

    def launch() -> float:
        global_size, local_size = geometry
        ev = dev.cl.enqueue_nd_range_kernel(dev.queue, kernel, global_size, local_size)
        ev.wait()
        seconds = 1e-9 * (ev.profile.end - ev.profile.start)
        if hand.finish is not None:
            hand.finish(state, dev)
        return seconds
    return launch


# -- the table -----------------------------------------------------------------------------

def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("nan")


def _agree(values: list[float | None], rtol: float) -> bool:
    vals = [v for v in values if v is not None]
    if len(vals) != len(values):
        return False
    ref = vals[0]
    return all(abs(v - ref) <= rtol * max(abs(ref), 1e-300) for v in vals)


@dataclass
class Row:
    shape: Shape
    gen: Samples
    hand: dict[str, Samples]
    omp: Samples
    #: the generated kernels again under other settings: label -> samples (``--sweep``,
    #: ``--env``)
    sweep: dict[str, Samples] = field(default_factory=dict)

    def best_hand(self, which: str) -> tuple[str, Samples]:
        return min(self.hand.items(), key=lambda kv: kv[1].ms(which))

    def ratios(self) -> tuple[float, float, float]:
        """Generated / fastest hand-written: kernel, call and CPU time."""
        k, w, c = (_ratio(self.gen.ms(x), self.best_hand(x)[1].ms(x))
                   for x in ("kernel", "wall", "cpu"))
        return k, w, c

    def agree(self) -> bool:
        checks = [self.gen.check, self.omp.check] + [s.check for s in self.hand.values()]
        return _agree(checks, self.shape.rtol)


def measure(shape: Shape, dev: Device, work: Path, rounds: int, calls: int,
            sweep: dict[str, dict[str, str]]) -> Row:
    """The shape's three ways (and the generated one under each ``sweep`` environment),
    interleaved in rounds."""
    gen_exe, omp_exe = build(shape, work)
    prepared = prepare_hand(dev, shape)
    row = Row(shape, Samples(), {h.name: Samples() for h in shape.hands}, Samples(),
              {label: Samples() for label in sweep})
    for _ in range(rounds):
        run_program(gen_exe, calls, row.gen, OMPCL_DEVICE="opencl")
        for hand in shape.hands:
            run_hand(dev, shape, hand, calls, row.hand[hand.name], prepared)
        run_program(omp_exe, calls, row.omp)
        for label, samples in row.sweep.items():
            run_program(gen_exe, calls, samples, OMPCL_DEVICE="opencl", **sweep[label])
    return row


def print_table(rows: list[Row], dev: Device, args) -> None:
    print(f"device: {dev.name} ({dev.units} compute units); OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', os.cpu_count())}, OMP_WAIT_POLICY=passive; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    what = {"min": "fastest", "median": "median",
            "rounds": "median over rounds of each round's fastest"}[args.stat]
    print(f"ms per call, {what} of {args.rounds} rounds x {args.calls} calls; kernel = device "
          f"time (profiling events), call = the whole call as the program sees it, cpu = the "
          f"call's CPU time (all threads)\n")
    head = (f"{'shape':12} {'gen kernel':>10} {'hand kernel':>11} {'ratio':>6} "
            f"{'gen call':>9} {'hand call':>9} {'ratio':>6} {'gen cpu':>8} {'hand cpu':>8} "
            f"{'ratio':>6} {'OpenMP':>8} {'gen/OMP':>7}  hand-written (fastest)  same result")
    print(head)
    print("-" * len(head))
    for r in rows:
        kname, hk = r.best_hand("kernel")
        _, hw = r.best_hand("wall")
        _, hc = r.best_hand("cpu")
        k, w, c = r.ratios()
        print(f"{r.shape.name:12} {r.gen.ms('kernel'):10.3f} {hk.ms('kernel'):11.3f} {k:6.2f} "
              f"{r.gen.ms('wall'):9.3f} {hw.ms('wall'):9.3f} {w:6.2f} {r.gen.ms('cpu'):8.3f} "
              f"{hc.ms('cpu'):8.3f} {c:6.2f} {r.omp.ms('wall'):8.3f} "
              f"{_ratio(r.gen.ms('wall'), r.omp.ms('wall')):7.2f}  {kname:22}  "
              f"{'yes' if r.agree() else 'NO'}")
    ks, ws, cs = zip(*(r.ratios() for r in rows))
    print(f"\ngeomean generated/hand-written: kernel {_geomean(ks):.3f}, call {_geomean(ws):.3f}"
          f", cpu {_geomean(cs):.3f}; worst: kernel {max(ks):.2f}, call {max(ws):.2f}, "
          f"cpu {max(cs):.2f}")


def print_roof(rows: list[Row], limits: roofline.Limits) -> None:
    """Each kernel's achieved bandwidth and FLOP rate against the device's measured limits:
    the share of the limit that bounds the shape (bandwidth below the machine's balance,
    else the FLOP rate), for the generated kernel, the fastest hand-written one and the
    OpenMP loop."""
    print(f"\nlimits measured in this run: triad {limits.bandwidth:.1f} GB/s, peak FP64 "
          f"{limits.flops:.1f} GFLOP/s (balance {limits.balance:.2f} FLOP/byte)")
    print(f"  {'shape':12} {'bound':>6} {'gen GB/s':>9} {'GFLOP/s':>8} {'gen roof':>9} "
          f"{'hand roof':>10} {'OpenMP roof':>12}")
    for r in rows:
        gen = roofline.roof(r.shape.name, r.gen.ms("kernel") / 1e3, limits)
        if gen is None:
            continue
        hand = roofline.roof(r.shape.name, r.best_hand("kernel")[1].ms("kernel") / 1e3, limits)
        omp = roofline.roof(r.shape.name, r.omp.ms("wall") / 1e3, limits)
        nbytes, flops = roofline.TRAFFIC[r.shape.name]
        bound = "flops" if flops / nbytes >= limits.balance else "memory"
        print(f"  {r.shape.name:12} {bound:>6} {gen[0]:9.1f} {gen[1]:8.2f} {gen[2]:9.0%} "
              f"{hand[2]:10.0%} {omp[2]:12.0%}")


def print_alternatives(rows: list[Row]) -> None:
    """Every hand-written form of the shapes that have several (ms per call, kernel/call)."""
    multi = [r for r in rows if len(r.hand) > 1]
    if not multi:
        return
    print("\nhand-written forms (kernel ms / call ms):")
    for r in multi:
        forms = ", ".join(f"{name} {s.ms('kernel'):.3f}/{s.ms('wall'):.3f}"
                          for name, s in r.hand.items())
        print(f"  {r.shape.name:12} {forms}")


def print_sweep(rows: list[Row]) -> None:
    """Generated kernels under other settings (``--sweep``'s work-group caps, ``--env``):
    kernel ms and call ms, each with its ratio to the default's."""
    labels = list(rows[0].sweep) if rows and rows[0].sweep else []
    if not labels:
        return
    print("\ngenerated kernels under other settings, kernel ms / call ms (ratio to the default):")
    width = max(24, *(len(x) for x in labels))
    print(f"  {'shape':12} {'default':>17} " + " ".join(f"{x:>{width}}" for x in labels))
    for r in rows:
        bk, bw = r.gen.ms("kernel"), r.gen.ms("wall")
        cells = " ".join(f"{_cell(s.ms('kernel'), s.ms('wall'), bw):>{width}}"
                         for s in (r.sweep[x] for x in labels))
        print(f"  {r.shape.name:12} {f'{bk:.3f}/{bw:.3f}':>17} {cells}")


def _cell(kernel_ms: float, call_ms: float, base_call_ms: float) -> str:
    return f"{kernel_ms:.3f}/{call_ms:.3f} ({_ratio(call_ms, base_call_ms):.2f})"


def _geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def _json(rows: list[Row], limits: roofline.Limits | None = None) -> list[dict]:
    out = []
    for r in rows:
        k, w, c = r.ratios()
        gen = roofline.roof(r.shape.name, r.gen.ms("kernel") / 1e3, limits) if limits else None
        omp = roofline.roof(r.shape.name, r.omp.ms("wall") / 1e3, limits) if limits else None
        out.append({"shape": r.shape.name, "what": r.shape.what,
                    "generated_kernel_ms": r.gen.ms("kernel"), "generated_call_ms":
                    r.gen.ms("wall"), "generated_cpu_ms": r.gen.ms("cpu"),
                    "openmp_ms": r.omp.ms("wall"), "openmp_cpu_ms": r.omp.ms("cpu"),
                    "hand_written": {n: {"kernel_ms": s.ms("kernel"), "call_ms": s.ms("wall"),
                                         "cpu_ms": s.ms("cpu")}
                                     for n, s in r.hand.items()},
                    "ratio_kernel": k, "ratio_call": w, "ratio_cpu": c,
                    "same_result": r.agree(),
                    "settings": {x: {"kernel_ms": s.ms("kernel"), "call_ms": s.ms("wall")}
                                 for x, s in r.sweep.items()},
                    "stat": Samples.stat,
                    "roof": {"triad_gbs": limits.bandwidth, "peak_gflops": limits.flops,
                             "generated": gen and dict(zip(("gbs", "gflops", "share"), gen)),
                             "openmp": omp and dict(zip(("gbs", "gflops", "share"), omp))}
                    if limits else None})
    return out


@bench_command("kernels",
               "Generated kernels against hand-written OpenCL and OpenMP, per loop shape.",
               help="Common loop shapes, each as ompcl generates and launches it, "
               "as hand-written OpenCL on the same device and as the original OpenMP loop: "
               "milliseconds per call and ratios (needs pyopencl). Exit status 1 when the "
               "three results disagree.")
@click.option("--rounds", type=int, default=10, show_default=True, help="Interleaved rounds.")
@click.option("--calls", type=int, default=20, show_default=True, help="Timed calls per round.")
@click.option("--stat", type=click.Choice(["min", "median", "rounds"]), default="min",
              show_default=True,
              help="Per-call statistic: the fastest call, the median, or the median over "
              "rounds of each round's fastest call (fair to kernels whose speed is a lottery, "
              "such as contended atomics).")
@click.option("--shapes", default="", help="Comma-separated subset of: " +
              ",".join(s.name for s in SHAPES) + ".")
@click.option("--json", "json_out", default="", metavar="FILE",
              help="Also write the results as JSON.")
@click.option("--keep", default="", metavar="DIR", help="Build in this directory and keep it.")
@click.option("--sweep", default="", metavar="N,N,...",
              help="Also run the generated kernels under these work-group caps "
              "(OMPCL_MAX_GROUPS), e.g. 2,16,64: what a first-launch autotuner of the group "
              "count could gain.")
@click.option("--env", "envs", multiple=True, metavar="VAR=VALUE[,VAR=VALUE]",
              help="Also run the generated kernels with these variables (repeatable), e.g. "
              "OMPCL_LANES=1: one accumulator per reduction, as before the lanes.")
def cli(**params) -> int:
    """``ompcl bench kernels``; returns the exit status (1 when the results disagree)."""
    args = SimpleNamespace(**params)
    Samples.stat = args.stat
    wanted = [s for s in SHAPES if not args.shapes or s.name in args.shapes.split(",")]
    if not wanted:
        raise click.UsageError(f"no such shape: {args.shapes}")
    sweep = {f"OMPCL_MAX_GROUPS={g}": {"OMPCL_MAX_GROUPS": g}
             for g in args.sweep.split(",") if g}
    for e in args.envs:
        pairs = [kv.split("=", 1) for kv in e.split(",") if kv]
        if any(len(kv) != 2 for kv in pairs):
            raise click.UsageError(f"--env wants VAR=VALUE: {e}")
        sweep[e] = dict(pairs)
    dev = Device()
    with tempfile.TemporaryDirectory(prefix="ompcl-bench-kernels-") as tmp:
        work = Path(args.keep or tmp)
        work.mkdir(parents=True, exist_ok=True)
        rows = []
        limits = [roofline.measure(dev)]  # before and after the shapes: the better of both
        for shape in wanted:
            print(f"  {shape.name}: {shape.what}", file=sys.stderr, flush=True)
            rows.append(measure(shape, dev, work, args.rounds, args.calls, sweep))
        limits.append(roofline.measure(dev))
    roof = roofline.Limits(max(x.bandwidth for x in limits), max(x.flops for x in limits))
    print_table(rows, dev, args)
    print_roof(rows, roof)
    print_alternatives(rows)
    print_sweep(rows)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(_json(rows, roof), indent=2) + "\n")
    return 0 if all(r.agree() for r in rows) else 1


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.kernels``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench kernels")


if __name__ == "__main__":
    sys.exit(main())
