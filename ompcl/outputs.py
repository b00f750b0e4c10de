"""Writing results: translated files and the runtime, all-or-nothing; building executables."""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from .diagnostics import BuildError, InputError
from .runtime import LINK_FLAGS, RUNTIME_DIR, RUNTIME_FILES, RUNTIME_SOURCES
from .pipeline import Unit



def output_names(t: Unit, outdir: Path) -> dict[str, Path]:
    base = Path(t.program.path).stem
    return {"host": outdir / f"{base}_host.c", "kernel": outdir / f"{base}_kernel.cl"}


def write_outputs(ts: list[Unit], outdir: Path, emit: str = "all") -> list[Path]:
    """Write every translation's files and the runtime; nothing is written on failure."""
    files: dict[Path, str] = {}
    for t in ts:
        names = output_names(t, outdir)
        if emit in ("all", "host"):
            files[names["host"]] = t.host_source
        if emit in ("all", "kernel"):
            files[names["kernel"]] = t.kernel_source
    if emit in ("all", "host"):
        for f in RUNTIME_FILES:
            files[outdir / f] = (RUNTIME_DIR / f).read_text()
    try:
        outdir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(f"cannot create output directory '{outdir}': {e.strerror}") from None
    staged = []
    try:
        for path, text in files.items():
            fd, tmp = tempfile.mkstemp(dir=outdir, prefix=".ompcl-", suffix=path.suffix)
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
            staged.append((tmp, path))
        for tmp, path in staged:
            os.replace(tmp, path)
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return list(files)


def build_executable(host_files: list[Path], outdir: Path, exe: Path, cc: str = "gcc",
                     cflags: str = "-O2", ldflags: str = "", extra: list[str] = ()) -> None:
    """Compile translated host files with the runtime into ``exe`` (OpenMP enabled)."""
    if shutil.which(cc) is None:
        raise InputError(f"C compiler '{cc}' not found (use --cc)")
    if not exe.resolve().parent.is_dir():
        raise InputError(f"cannot write '{exe}': directory '{exe.parent}' does not exist")
    cmd = [cc, *shlex.split(cflags), "-fopenmp", f"-I{outdir}", *extra,
           *map(str, host_files), *(str(outdir / f) for f in RUNTIME_SOURCES), "-o", str(exe),
           *shlex.split(ldflags), "-lm", *LINK_FLAGS]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BuildError(f"host compiler failed ({shlex.join(cmd)}):\n{proc.stderr.strip()}")
