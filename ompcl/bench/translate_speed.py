"""Translation speed benchmark: seconds per 1,000 source lines, per pipeline run.

Translates every program of the test corpus, the examples and the NAS benchmarks (class S)
and prints, per file and in total, user source lines, preprocessed lines, seconds, and
seconds per 1,000 lines of each. Usage: ``python -m ompcl.bench.translate_speed [--repeat N]``.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import click

from ..frontend.preprocess import CppOptions
from ..pipeline import Options, translate
from .command import bench_command, run_command

ROOT = Path(__file__).resolve().parents[2]


def _mpi_includes() -> tuple[str, ...] | None:
    """The include directories of Open MPI's ``mpicc`` (None without it)."""
    try:
        out = subprocess.run(["mpicc", "--showme:incdirs"], capture_output=True, text=True)
    except OSError:
        return None
    return tuple(out.stdout.split()) if out.returncode == 0 else None


def inputs() -> list[tuple[Path, CppOptions]]:
    """The files measured and the preprocessor options each needs."""
    files = [(p, CppOptions()) for p in sorted((ROOT / "tests" / "corpus").glob("*.c"))]
    mpi = _mpi_includes()
    for p in sorted((ROOT / "ompcl" / "examples").glob("*.c")):
        if "<mpi.h>" not in p.read_text():
            files.append((p, CppOptions()))
        elif mpi is not None:  # a hybrid example: MPI's headers where Open MPI has them
            files.append((p, CppOptions(mpi)))
    common = str(ROOT / "nas_benchmarks" / "common")
    for bm in ("ep", "is", "cg", "mg", "ft"):
        src = ROOT / "nas_benchmarks" / bm / f"{bm}.c"
        if src.exists():
            files.append((src, CppOptions((common,), ("CLASS_S",))))
    return files


def measure(repeat: int = 3) -> list[dict]:
    """Best-of-``repeat`` translation time for each input."""
    rows = []
    for path, cpp in inputs():
        best, t = float("inf"), None
        for _ in range(repeat):
            t0 = time.perf_counter()
            t = translate(str(path), Options(cpp))
            best = min(best, time.perf_counter() - t0)
        rows.append({"file": str(path.relative_to(ROOT)), "lines": len(t.program.lines),
                     "preprocessed_lines": t.program.preprocessed.count("\n"),
                     "loops": len(t.regions), "offloaded": len(t.offloaded), "seconds": best})
    return rows


@bench_command("translate",
               "Seconds per 1,000 source lines translated.",
               help=__doc__.splitlines()[0])
@click.option("--repeat", type=int, default=3, show_default=True,
              help="Translations of each file (the fastest is kept).")
@click.option("--json", "json_out", metavar="FILE", help="Also write the rows as JSON to FILE.")
def cli(repeat: int, json_out: str | None) -> int:
    """``ompcl bench translate``."""
    rows = measure(repeat)
    print(f"{'file':44} {'lines':>6} {'pp lines':>8} {'loops':>5} {'s':>7} {'s/kLOC':>7}")
    for r in rows:
        print(f"{r['file']:44} {r['lines']:6d} {r['preprocessed_lines']:8d} {r['loops']:5d} "
              f"{r['seconds']:7.3f} {1000 * r['seconds'] / r['lines']:7.3f}")
    lines = sum(r["lines"] for r in rows)
    pp = sum(r["preprocessed_lines"] for r in rows)
    secs = sum(r["seconds"] for r in rows)
    print(f"total: {lines} source lines ({pp} preprocessed) in {secs:.2f} s: "
          f"{1000 * secs / lines:.3f} s per 1,000 source lines, "
          f"{1000 * secs / pp:.4f} s per 1,000 preprocessed lines")
    if json_out:
        Path(json_out).write_text(json.dumps(rows, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m ompcl.bench.translate_speed``; returns the exit status."""
    return run_command(cli, argv, "ompcl bench translate")


if __name__ == "__main__":
    sys.exit(main())
