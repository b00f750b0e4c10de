"""The native ``ompcl`` launcher: builds ``launcher.c`` for this interpreter and package.

Consumes a C compiler and a destination; produces an executable that runs ``ompcl cc``
commands in the compile server without starting Python (what a build's hundreds of compiler
commands pay for start-up: about a millisecond instead of 80-180 ms here), and hands every
other command to this interpreter's ``ompcl``. ``install`` puts it in place of the Python
scripts ``ompcl`` and ``ompcl-cc`` that pip installed (``make install`` does;
``python -m ompcl.driver.launcher [DIR]``); a reinstall with pip puts the Python scripts
back, which behave the same, only slower to start.
"""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from . import client

SOURCE = Path(__file__).with_name("launcher.c")
NAMES = ("ompcl", "ompcl-cc")


class LauncherBuildError(Exception):
    """The C compiler could not build the launcher (its messages in ``log``)."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


def c_string(text: str) -> str:
    """``text`` (a path, as the OS spells it) as a C string literal."""
    out = []
    for b in os.fsencode(text):
        ch = chr(b)
        out.append(ch if 32 <= b < 127 and ch not in '"\\?' else f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def build(dest: str | os.PathLike, python: str = sys.executable,
          package: str = client._PACKAGE, cc: str | None = None) -> Path:
    """Compile the launcher for ``python`` and ``package`` into ``dest`` (replaced
    atomically: a build running the old one is never left without a command)."""
    dest = Path(dest)
    cc = cc or os.environ.get("CC") or "cc"
    with tempfile.TemporaryDirectory(prefix="ompcl-launcher-") as tmp:
        (Path(tmp) / "launcher_config.h").write_text(
            f"#define OMPCL_PYTHON {c_string(python)}\n"
            f"#define OMPCL_PACKAGE {c_string(package)}\n")
        out = Path(tmp) / "ompcl"
        cmd = [cc, "-O2", "-std=c99", "-Wall", f"-I{tmp}", str(SOURCE), "-o", str(out)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        except OSError as e:
            raise LauncherBuildError(f"cannot run {cc}: {e}") from None
        if proc.returncode != 0:
            raise LauncherBuildError(f"{cc} failed to build the launcher", proc.stderr)
        dest.parent.mkdir(parents=True, exist_ok=True)
        _place(out, dest)
    return dest


def _place(src: Path, dest: Path) -> None:
    """Copy the executable ``src`` to ``dest`` atomically (a temporary file beside it)."""
    tmp = dest.with_name(f".{dest.name}.tmp{os.getpid()}")
    with open(src, "rb") as fin, open(tmp, "wb") as fout:
        fout.write(fin.read())
    os.chmod(tmp, 0o755)
    os.replace(tmp, dest)


def install(directory: str | os.PathLike | None = None) -> list[Path]:
    """Build the launcher as ``ompcl`` and ``ompcl-cc`` in ``directory`` (default: this
    interpreter's scripts directory, where pip put the Python ones)."""
    directory = Path(directory or sysconfig.get_path("scripts"))
    first = build(directory / NAMES[0])
    for name in NAMES[1:]:
        _place(first, directory / name)
    return [directory / name for name in NAMES]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) > 1 or argv[:1] in (["-h"], ["--help"]):
        print("usage: python -m ompcl.driver.launcher [DIR]  (default: this interpreter's "
              "scripts directory)", file=sys.stderr)
        return 2
    try:
        for path in install(argv[0] if argv else None):
            print(f"ompcl: installed the native launcher {path}")
    except (LauncherBuildError, OSError) as e:
        log = getattr(e, "log", "")
        print(f"ompcl: warning: native launcher not installed ({e}); the Python command "
              f"stays{': ' + log.strip() if log else ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
