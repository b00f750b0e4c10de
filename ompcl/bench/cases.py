"""The third-party programs of ``shared/thirdparty/cases.txt`` (STREAM, RSBench, the Parallel
Research Kernels, OmpSCR, CoMD, NPB 3.0 in C, benchmark-game programs), for training-data
collection.

Consumes the cases file (``name | dir | build | run | compare | tolerance`` a line; the grammar
of the last two is ``compare.py``'s, beside it); produces ``Case``s, writable copies of their
folders (made at build time), the build command with ``gcc`` replaced by another compiler, and a
runner script that runs a case as its authors do and maps the exit statuses it allows to 0.
"""
from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from . import polybench

_GCC = re.compile(r"(?<![\w/.-])gcc(?![\w.-])")


@dataclass(frozen=True)
class Case:
    name: str
    dir: str            # relative to the cases file's folder; its first part is the suite
    build: str          # sh command lines, run in dir
    run: str
    compare: str        # compare.py's spec, without its rc: parts
    tolerance: str
    allowed_rc: tuple[int, ...] = (0,)

    @property
    def suite(self) -> str:
        return self.dir.split("/")[0]


def find_root() -> Path | None:
    """The folder of ``cases.txt`` (beside PolyBench/ACC: ``$OMPCL_THIRDPARTY`` or
    ``shared/thirdparty``), or None."""
    pb = polybench.find_root()
    return pb.parent if pb is not None and (pb.parent / "cases.txt").is_file() else None


def _case(fields: list[str]) -> Case:
    name, folder, build, run, spec, tol = fields
    parts = [p.strip() for p in spec.split(";;")]
    rc = [p for p in parts if p.startswith("rc:")]
    allowed = tuple(int(x) for x in rc[0][3:].split(",")) if rc else (0,)
    return Case(name, folder, build, run, " ;; ".join(p for p in parts if p not in rc), tol,
                allowed)


def read(root: Path) -> list[Case]:
    """The cases of ``root/cases.txt``, in order."""
    out = []
    for line in (root / "cases.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            fields = [x.strip() for x in line.split(" | ")]
            if len(fields) == 6:
                out.append(_case(fields))
    return out


def program(case: Case, cases: list[Case]) -> str:
    """The program a case runs (leave-one-program-out's group): cases built alike in one
    folder run one program with other inputs (RSBench's two modes, CoMD's two potentials)."""
    alike = [c for c in cases if c.dir == case.dir and c.build == case.build]
    return f"tp-{case.dir.replace('/', '.')}" if len(alike) > 1 else f"tp-{case.name}"


def copy_command(src: Path, dst: Path) -> str:
    """A shell command making ``dst`` a writable copy of the suite ``src`` (kept if there)."""
    q = shlex.quote
    return (f"{{ [ -d {q(str(dst))} ] || {{ mkdir -p {q(str(dst.parent))} && "
            f"cp -R {q(str(src))} {q(str(dst))} && chmod -R u+w {q(str(dst))}; }}; }}")


def compiler_shim(path: Path, argv: list[str]) -> Path:
    """An executable script that runs ``argv`` with its arguments (put where gcc was)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\nexec {shlex.join(argv)} \"$@\"\n")
    path.chmod(0o755)
    return path


def build_command(case: Case, cc: Path | None) -> str:
    """The case's build with ``gcc`` replaced by ``cc`` (None: gcc itself)."""
    return case.build if cc is None else _GCC.sub(str(cc), case.build)


def runner(case: Case, folder: Path) -> str:
    """The text of a script that runs ``case`` in ``folder`` and exits 0 for every exit
    status the case allows (RSBench's checksums fail at its small inputs: status 1)."""
    ok = " ".join(map(str, case.allowed_rc))
    return (f"#!/bin/sh\ncd {shlex.quote(str(folder))} || exit 127\n"
            f"sh -c {shlex.quote(case.run)}\nrc=$?\n"
            f"for ok in {ok}; do [ $rc -eq $ok ] && exit 0; done\nexit $rc\n")


def same(root: Path, case: Case, ref: tuple[str, str], got: tuple[str, str],
         scratch: Path) -> bool:
    """Whether two runs' (stdout, stderr) agree under the case's compare spec."""
    files = []
    for side, (out, err) in (("ref", ref), ("got", got)):
        for ext, text in (("out", out), ("err", err), ("rc", "0\n")):
            p = scratch / f"{case.name}.{side}.{ext}"
            p.write_text(text)
            files.append(str(p))
    res = subprocess.run([sys.executable, str(root / "compare.py"), case.compare or "rc:0",
                          case.tolerance, *files], capture_output=True, text=True)
    return res.returncode == 0
