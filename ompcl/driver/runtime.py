"""The C runtime as a prebuilt static library, for the link step of ``ompcl cc``.

Consumes the compiler command and the user's ABI-relevant flags; produces
``libompcl_rt.a``, built once per (compiler, ABI flags, runtime source) in the cache
directory. It is compiled apart from the user's include paths and macros, so a program that
ships a header named like a system one (``unistd.h``) cannot break it; as an archive it is
linked into every program and pulled in only where translated code calls it.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"
RUNTIME_SOURCES = ("ompcl_rt.c", "ompcl_rt.h")
#: libraries the runtime needs, placed after it on the link line
LINK_LIBS = ("-ldl",)
#: user flags that change the ABI of object code (other -m* are harmless and kept too)
_ABI_WITH_VALUE = ("-target", "--sysroot", "-isysroot", "-B")
_ABI_PREFIXES = ("-m", "--target=", "--sysroot=", "-B")
_NOT_ABI = ("-mllvm",)


class RuntimeBuildError(Exception):
    """The runtime library could not be built (messages in ``log``)."""

    def __init__(self, message: str, log: str):
        super().__init__(message)
        self.log = log


def abi_flags(args: tuple[str, ...] | list[str]) -> list[str]:
    """The flags of a command line that the runtime must be compiled with too."""
    out, take = [], False
    for a in args:
        if take:
            out.append(a)
            take = False
        elif a in _ABI_WITH_VALUE:
            out.append(a)
            take = True
        elif a.startswith(_ABI_PREFIXES) and a not in _NOT_ABI:
            out.append(a)
    return out


def cache_root() -> Path | None:
    """Where built runtimes are kept (shared with the kernel cache), or None when off."""
    d = os.environ.get("OMPCL_CACHE_DIR", "")
    if d == "off":
        return None
    if d:
        return Path(d)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ompcl"


def runtime_library(compiler: tuple[str, ...], flags: list[str], scratch: Path) -> Path:
    """Path of the runtime archive for ``compiler`` and ``flags``, building it when missing.
    ``scratch`` holds it when there is no usable cache directory."""
    key = _key(compiler, flags)
    root = cache_root()
    if root is not None:
        lib = root / "cc-runtime" / key / "libompcl_rt.a"
        if lib.exists():
            return lib
        try:
            lib.parent.mkdir(parents=True, exist_ok=True)
            _build(compiler, flags, lib)
            return lib
        except OSError:
            pass  # unwritable cache: build for this command only
    lib = scratch / "libompcl_rt.a"
    if not lib.exists():
        _build(compiler, flags, lib)
    return lib


def _key(compiler: tuple[str, ...], flags: list[str]) -> str:
    h = hashlib.sha256()
    exe = shutil.which(compiler[0]) or compiler[0]
    try:
        st = os.stat(os.path.realpath(exe))
        h.update(f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}".encode())
    except OSError:
        h.update(exe.encode())
    h.update("\0".join((*compiler[1:], "|", *flags)).encode())
    for name in RUNTIME_SOURCES:
        h.update((RUNTIME_DIR / name).read_bytes())
    return h.hexdigest()[:20]


def _build(compiler: tuple[str, ...], flags: list[str], lib: Path) -> None:
    """Compile the runtime and archive it as ``lib``, atomically (parallel builds may race)."""
    with tempfile.TemporaryDirectory(prefix=".ompcl-rt-", dir=lib.parent) as tmp:
        obj, arch = Path(tmp) / "ompcl_rt.o", Path(tmp) / "libompcl_rt.a"
        cmd = [*compiler, *flags, "-O2", "-fPIC", "-w", "-c",
               str(RUNTIME_DIR / "ompcl_rt.c"), "-o", str(obj)]
        _run(cmd)
        _run([_archiver(), "rcs", str(arch), str(obj)])
        os.replace(arch, lib)


def _archiver() -> str:
    for name in ("ar", "llvm-ar", "gcc-ar"):
        if shutil.which(name):
            return name
    raise RuntimeBuildError("no archiver (ar) found", "")


def _run(cmd: list[str]) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    except OSError as e:
        raise RuntimeBuildError(f"cannot run '{cmd[0]}': {e.strerror}", "") from None
    if proc.returncode != 0:
        raise RuntimeBuildError(f"'{cmd[0]}' failed building the ompcl runtime",
                                " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
