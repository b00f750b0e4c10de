"""The C runtime as a prebuilt static library, for the link step of ``ompcl cc``.

Consumes the compiler command and the user's ABI-relevant flags; produces
``libompcl_rt.a``, built once per (compiler, ABI flags, runtime files) in the cache
directory. It is compiled apart from the user's include paths and macros, so a program that
ships a header named like a system one (``unistd.h``) cannot break it; as an archive it is
linked into every program and pulled in only where translated code calls it.
"""
from __future__ import annotations

import hashlib
import os
import re

from ..runtime import LINK_FLAGS, RUNTIME_FILES, RUNTIME_SOURCES, cache_root

RUNTIME_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "runtime")
#: libraries the runtime needs, placed after it on the link line
LINK_LIBS = LINK_FLAGS


def relocatable(args) -> bool:
    """A relocatable link (``-r``): its output is linked again, where the runtime and the
    allocator's ``--wrap`` are added (wrapped twice, ``__wrap_malloc`` called itself)."""
    return any(a in ("-r", "-Wl,-r", "-Wl,--relocatable") for a in args)


def link_tail(lib: str) -> list[str]:
    """What a link appends: the runtime archive and its libraries, after ``-x none`` (a
    ``-x c`` before the last input would make them C sources)."""
    return ["-x", "none", lib, *LINK_LIBS]
#: user flags that change the ABI of object code (other -m* are harmless and kept too)
_ABI_WITH_VALUE = ("-target", "--sysroot", "-isysroot", "-B")
_ABI_PREFIXES = ("-m", "--target=", "--sysroot=", "-B")
_NOT_ABI = ("-mllvm",)


#: the symbol a translated file names to link only with a runtime of its interface number
ABI_SYMBOL = re.compile(rb"ompcl_rt_abi_(\d+)_rebuild_objects_translated_by_another_ompcl")
_ABI_LINE = re.compile(rb"#define OMPCL_RT_ABI (\d+)")


def other_interface(args: tuple[str, ...]) -> tuple[str, str] | None:
    """The first object or archive among a link's arguments translated by an ompcl of
    another runtime interface, and the interface symbol it names (its objects carry their
    own runtime, weak: a linker would take one copy for all); None when there is none."""
    ours = None
    for a in args:
        if not a.endswith((".o", ".a")) or not os.path.isfile(a):
            continue
        with open(a, "rb") as fh:
            found = {m.group(1): m.group(0) for m in ABI_SYMBOL.finditer(fh.read())}
        if found and ours is None:
            with open(os.path.join(RUNTIME_DIR, "ompcl_rt.h"), "rb") as fh:
                ours = _ABI_LINE.search(fh.read()).group(1)
        other = next((sym for n, sym in found.items() if n != ours), None)
        if other is not None:
            return a, other.decode()
    return None


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


def runtime_library(compiler: tuple[str, ...], flags: list[str], scratch: str | None
                    ) -> str | None:
    """Path of the runtime archive for ``compiler`` and ``flags``, building it when missing.
    ``scratch`` holds it when there is no usable cache directory (None: then return None)."""
    key = _key(compiler, flags)
    root = cache_root()
    if root is not None:
        lib = os.path.join(root, "cc-runtime", key, "libompcl_rt.a")
        if os.path.exists(lib):
            return lib
        try:
            os.makedirs(os.path.dirname(lib), exist_ok=True)
            _build(compiler, flags, lib)
            return lib
        except OSError:
            pass  # unwritable cache: build for this command only
    if scratch is None:
        return None
    lib = os.path.join(scratch, "libompcl_rt.a")
    if not os.path.exists(lib):
        _build(compiler, flags, lib)
    return lib


def weak_runtime(compiler: tuple[str, ...], lib: str) -> str | None:
    """The runtime of archive ``lib`` as one relocatable object whose global symbols are weak
    (beside the archive, built once), or None where it cannot be made (no ``objcopy``)."""
    obj = os.path.join(os.path.dirname(lib), "ompcl_rt_weak.o")
    if os.path.exists(obj):
        return obj
    objcopy, nm = which("objcopy"), which("nm")
    if objcopy is None or nm is None:
        return None
    import subprocess
    import tempfile
    try:
        with tempfile.TemporaryDirectory(prefix=".ompcl-rtw-", dir=os.path.dirname(lib)) as tmp:
            whole, weak = os.path.join(tmp, "all.o"), os.path.join(tmp, "weak.o")
            names = os.path.join(tmp, "defined.txt")
            _run([*compiler, "-r", "-nostdlib", "-o", whole, "-Wl,--whole-archive", lib,
                  "-Wl,--no-whole-archive"])
            listed = subprocess.run([nm, "-g", "--defined-only", "--format=posix", whole],
                                    capture_output=True, text=True, check=True).stdout
            with open(names, "w") as fh:  # its definitions only: its references stay strong
                fh.writelines(line.split()[0] + "\n" for line in listed.splitlines() if line)
            _run([objcopy, f"--weaken-symbols={names}", whole, weak])
            os.replace(weak, obj)
    except (OSError, RuntimeBuildError, subprocess.CalledProcessError):
        return None
    return obj


def embed_runtime(compiler: tuple[str, ...], obj: str, weak: str) -> None:
    """Make ``obj`` (an object of a translated source) carry the weak runtime ``weak``, so
    that a link by any command (a C++ compiler, plain gcc: NPB's ``CLINK``) finds the
    runtime; the first object's copy serves the whole program, and a link by ``ompcl cc``,
    which every symbol then finds defined, takes nothing of the archive."""
    tmp = obj + ".ompcl-tmp.o"
    try:
        _run([*compiler, "-r", "-nostdlib", "-o", tmp, obj, weak])
        os.replace(tmp, obj)
    except (OSError, RuntimeBuildError):  # the object stays as compiled (as before 2254bdd)
        if os.path.exists(tmp):
            os.unlink(tmp)


def which(name: str) -> str | None:
    """``shutil.which`` without importing shutil (start-up time)."""
    if os.sep in name:
        return name if os.access(name, os.X_OK) else None
    for d in os.environ.get("PATH", os.defpath).split(os.pathsep):
        p = os.path.join(d or ".", name)
        if os.access(p, os.X_OK) and not os.path.isdir(p):
            return p
    return None


def _key(compiler: tuple[str, ...], flags: list[str]) -> str:
    h = hashlib.sha256()
    exe = os.path.realpath(which(compiler[0]) or compiler[0])
    try:
        st = os.stat(exe)
        h.update(f"{exe}:{st.st_size}:{st.st_mtime_ns}".encode())
    except OSError:
        h.update(exe.encode())
    h.update("\0".join((*compiler[1:], "|", *flags)).encode())
    for name in RUNTIME_FILES:
        h.update(name.encode() + b"\0")
        with open(os.path.join(RUNTIME_DIR, name), "rb") as fh:
            h.update(fh.read())
    return h.hexdigest()[:20]


def _build(compiler: tuple[str, ...], flags: list[str], lib: str) -> None:
    """Compile the runtime's files and archive them as ``lib``, atomically (parallel builds
    may race)."""
    import tempfile
    with tempfile.TemporaryDirectory(prefix=".ompcl-rt-", dir=os.path.dirname(lib)) as tmp:
        objs = [os.path.join(tmp, name[:-2] + ".o") for name in RUNTIME_SOURCES]
        _run_all([[*compiler, *flags, "-O2", "-fPIC", "-w", "-c",
                   os.path.join(RUNTIME_DIR, name), "-o", obj]
                  for name, obj in zip(RUNTIME_SOURCES, objs)])
        arch = os.path.join(tmp, "libompcl_rt.a")
        _run([_archiver(), "rcs", arch, *objs])
        os.replace(arch, lib)


def _archiver() -> str:
    for name in ("ar", "llvm-ar", "gcc-ar"):
        if which(name):
            return name
    raise RuntimeBuildError("no archiver (ar) found", "")


def _run(cmd: list[str]) -> None:
    _run_all([cmd])


def _run_all(cmds: list[list[str]]) -> None:
    """Run ``cmds`` side by side (as many at once as there are CPUs); the first failure
    raises, after every command has ended."""
    import subprocess
    from concurrent.futures import ThreadPoolExecutor

    def one(cmd: list[str]) -> tuple[list[str], subprocess.CompletedProcess | OSError]:
        try:
            return cmd, subprocess.run(cmd, capture_output=True, text=True, errors="replace")
        except OSError as e:
            return cmd, e

    with ThreadPoolExecutor(max_workers=min(len(cmds), os.cpu_count() or 1)) as pool:
        results = list(pool.map(one, cmds))
    for cmd, proc in results:
        if isinstance(proc, OSError):
            raise RuntimeBuildError(f"cannot run '{cmd[0]}': {proc.strerror}", "")
        if proc.returncode != 0:
            raise RuntimeBuildError(f"'{cmd[0]}' failed building the ompcl runtime",
                                    " ".join(cmd) + "\n" + proc.stdout + proc.stderr)
