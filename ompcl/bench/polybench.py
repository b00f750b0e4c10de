"""PolyBench/ACC's OpenMP programs (``../shared/thirdparty/polybench-acc``), built as their
authors build them, for the build tests and the build-time benchmark.

Consumes the corpus folder; produces each program's folder and command line, and what its
README measured about it (deterministic, racy, rejected by gcc, broken).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: what ../shared/thirdparty/README.md measured (SMALL_DATASET, serial vs gcc -fopenmp), but
#: cholesky is racy: 'x' is shared in kernel_cholesky, and gcc's own build gave two different
#: dumps over 10 runs with 2 threads (the README lists it as "same output")
DETERMINISTIC = ("covariance", "2mm", "3mm", "doitgen", "gemm", "gemver", "gesummv", "mvt",
                 "syr2k", "syrk", "lu", "convolution-2d", "fdtd-apml", "correlation",
                 "convolution-3d")
RACY = ("atax", "bicg", "symm", "trmm", "durbin", "gramschmidt", "cholesky")
REJECTED = ("trisolv", "dynprog", "ludcmp", "reg_detect", "adi", "fdtd-2d", "jacobi-1d-imper",
            "jacobi-2d-imper", "seidel-2d")
BROKEN = ("floyd-warshall",)
FLAGS = ("-O2", "-fopenmp", "-DSMALL_DATASET", "-DPOLYBENCH_DUMP_ARRAYS")


@dataclass(frozen=True)
class Program:
    name: str
    folder: Path          # the program's own folder: commands run there

    @property
    def builds(self) -> bool:
        """Whether ``gcc -fopenmp`` builds it (per the corpus README)."""
        return self.name not in REJECTED + BROKEN


def find_root(start: Path | None = None) -> Path | None:
    """The corpus folder: ``$OMPCL_THIRDPARTY/polybench-acc``, else ``shared/thirdparty/
    polybench-acc`` beside the project (or beside a folder above it, for worktrees)."""
    env = os.environ.get("OMPCL_THIRDPARTY")
    candidates = [Path(env) / "polybench-acc"] if env else []
    here = (start or Path(__file__)).resolve()
    candidates += [p / "shared" / "thirdparty" / "polybench-acc" for p in here.parents]
    return next((c for c in candidates if (c / "OpenMP").is_dir()), None)


def programs(root: Path) -> list[Program]:
    """Every program under ``OpenMP/``: a folder holding ``<name>/<name>.c``."""
    out = []
    for src in sorted((root / "OpenMP").glob("**/*.c")):
        if src.stem == src.parent.name:
            out.append(Program(src.stem, src.parent))
    return out


def command(prog: Program, root: Path, cc: list[str], exe: Path) -> list[str]:
    """The authors' command line (corpus README), run in ``prog.folder``."""
    common = os.path.relpath(root / "common", prog.folder)
    return [*cc, *FLAGS, f"-I{common}", "-I.", f"{common}/polybench.c", f"{prog.name}.c",
            "-o", str(exe), "-lm"]
