"""Micro-benchmarks that fit dynamic index reordering's cost model (``models/layout-cost.json``).

Builds small programs with ``ompcl build`` whose kernels walk arrays along a dimension that is
not their last (a line solver along ``k`` of ``u[k][j][i][m]``, one along ``j``), at several
sizes, and runs each on the OpenCL device with the reordered variant off
(``OMPCL_DYNLAYOUT=0``) and forced (``=1``), side by side. From the statistics
(``OMPCL_STATS``): the seconds one access to a permuted array saves (kernel seconds without
the variant minus those with it, transpositions excluded, over the accesses made; a least-
squares slope through zero), and what a transposition costs (its seconds against the bytes
it moves: a least-squares line). The runtime weighs the two at each launch (ompcl_rt.c
``use_variant``).

Usage: python -m ompcl.bench.layout_cost [--sizes 16,32,48,64] [--steps 4] [--repeats 3]
       [-o models/layout-cost.json]
"""
from __future__ import annotations

import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import click

from .command import argv as command_argv, bench_command, run_command

ROOT = Path(__file__).resolve().parents[2]
ENV = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive", "OMPCL_DEVICE": "opencl"}

#: a kernel per walk: (name, loop nest of the work-sharing loop) over u/r[K][J][I][5]
PATTERNS = {
    "k-line": ("j", "i", "k"),
    "j-line": ("k", "i", "j"),
}

PROGRAM = r"""#include <stdio.h>
#define K {n}
#define J {n}
#define I {n}
double u[K][J][I][5], r[K][J][I][5];
static void sweep(void) {{
    int i, j, k, m;
#pragma omp parallel for private({c}, m) collapse(2)
    for ({a} = 0; {a} < {A}; {a}++)
        for ({b} = 0; {b} < {B}; {b}++) {{
            double acc[5] = {{0, 0, 0, 0, 0}};
            for ({c} = 0; {c} < {C}; {c}++)
                for (m = 0; m < 5; m++) {{
                    acc[m] = 0.5 * acc[m] + u[k][j][i][m] * u[k][j][i][(m + 1) % 5];
                    r[k][j][i][m] = acc[m];
                }}
        }}
}}
int main(void) {{
    int i, j, k, m, s;
    double sum = 0;
    for (k = 0; k < K; k++) for (j = 0; j < J; j++) for (i = 0; i < I; i++)
        for (m = 0; m < 5; m++) u[k][j][i][m] = 1.0 + 0.001 * ((k + 2 * j + 3 * i + m) % 13);
    for (s = 0; s < {steps}; s++) {{
        sweep();
        u[s % K][0][0][0] += 1e-3;   /* the host writes: the permuted copy is made again */
    }}
    for (k = 0; k < K; k++) for (j = 0; j < J; j++) for (i = 0; i < I; i++)
        for (m = 0; m < 5; m++) sum += r[k][j][i][m];
    printf("%.10e\n", sum);
    return 0;
}}
"""


def program(n: int, loops: tuple[str, str, str], steps: int) -> str:
    a, b, c = loops
    size = {"k": "K", "j": "J", "i": "I"}
    return PROGRAM.format(n=n, a=a, b=b, c=c, A=size[a], B=size[b], C=size[c], steps=steps)


def build(src: str, work: Path, name: str) -> Path:
    c = work / f"{name}.c"
    c.write_text(src)
    exe = work / name
    subprocess.run([sys.executable, "-m", "ompcl", "build", str(c), "-o", str(exe)],
                   check=True, capture_output=True, cwd=work)
    return exe


def run(exe: Path, layout: str, work: Path) -> tuple[str, dict]:
    stats = work / "stats.json"
    env = dict(os.environ, **ENV, OMPCL_DYNLAYOUT=layout, OMPCL_STATS=str(stats))
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, env=env,
                         cwd=work).stdout
    region = next(r for r in json.loads(stats.read_text())["regions"] if r.get("kernel"))
    return out, region


def measure(sizes: list[int], steps: int, repeats: int, work: Path) -> list[dict]:
    """One point per (pattern, size): seconds saved, accesses, transpositions and bytes."""
    points = []
    for pattern, loops in PATTERNS.items():
        for n in sizes:
            exe = build(program(n, loops, steps), work, f"{pattern}-{n}")
            run(exe, "0", work)  # warm-up: kernel binaries built and cached
            off, on = [], []
            for _ in range(repeats):  # interleaved
                out0, r0 = run(exe, "0", work)
                out1, r1 = run(exe, "1", work)
                if out0 != out1:
                    raise SystemExit(f"{pattern} n={n}: the variant changed the answer")
                off.append(r0["kernel_seconds"])
                on.append(r1)
            best = min(on, key=lambda r: r["kernel_seconds"])
            kernel_on = best["kernel_seconds"]  # transpositions are counted apart
            accesses = best["relayout_accesses"] * n * n * best["device_runs"]
            points.append({
                "pattern": pattern, "n": n, "kernel_off": min(off), "kernel_on": kernel_on,
                "saved": min(off) - kernel_on, "accesses": accesses,
                "copies": best["relayout_copies"], "copy_seconds": best["relayout_seconds"],
                "copy_bytes": 8.0 * n ** 3 * 5})
    return points


def fit(points: list[dict]) -> dict[str, float]:
    """Least squares: saved = gain * accesses; seconds per copy = copy + byte * bytes."""
    gain = sum(p["saved"] * p["accesses"] for p in points) / sum(
        p["accesses"] ** 2 for p in points)
    xs = [p["copy_bytes"] for p in points]
    ys = [p["copy_seconds"] / p["copies"] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    byte = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0
    return {"gain_per_access": gain, "seconds_per_copy": max(my - byte * mx, 0.0),
            "seconds_per_byte": max(byte, 0.0)}


def table(points: list[dict]) -> str:
    rows = [f"{'pattern':8s} {'n':>4s} {'kernel off':>11s} {'kernel on':>10s} {'ratio':>6s} "
            f"{'copy s':>9s} {'copies':>6s}"]
    for p in points:
        rows.append(f"{p['pattern']:8s} {p['n']:4d} {p['kernel_off']:11.5f} "
                    f"{p['kernel_on']:10.5f} {p['kernel_off'] / p['kernel_on']:6.2f} "
                    f"{p['copy_seconds'] / p['copies']:9.6f} {p['copies']:6d}")
    return "\n".join(rows)


@bench_command("layout-cost",
               "Fit dynamic reordering's cost model (models/layout-cost.json).",
               help=__doc__.splitlines()[0])
@click.option("--sizes", default="16,32,48,64", show_default=True,
              help="Cube edges (comma list).")
@click.option("--steps", type=int, default=4, show_default=True, help="Kernel entries per run.")
@click.option("--repeats", type=int, default=3, show_default=True,
              help="Interleaved runs (the best is kept).")
@click.option("-o", "--output", default=str(ROOT / "models" / "layout-cost.json"),
              metavar="FILE", help="Where the fitted model goes [default: "
              "models/layout-cost.json].")
def cli(**params) -> int:
    """``ompcl bench layout-cost``; returns the exit status."""
    args = SimpleNamespace(**params)
    try:
        sizes = [int(x) for x in args.sizes.split(",")]
    except ValueError:
        raise click.UsageError(f"--sizes takes integers, not {args.sizes!r}") from None
    with tempfile.TemporaryDirectory(prefix="ompcl-layout-cost-") as work:
        points = measure(sizes, args.steps, args.repeats, Path(work))
    coef = fit(points)
    print(table(points))
    print("fitted: " + ", ".join(f"{k} {v:.3e}" for k, v in coef.items()))
    from .machine import cpu_model  # noqa: PLC0415
    record = {"coefficients": coef, "points": points, "cpu": cpu_model(),
              "measured": datetime.date.today().isoformat(), "env": ENV,
              "command": "python -m ompcl.bench.layout_cost " + " ".join(
                  command_argv())}
    Path(args.output).write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.layout_cost``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench layout-cost")


if __name__ == "__main__":
    sys.exit(main())
