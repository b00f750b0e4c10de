"""Benchmark trees and their builds, for ``ompcl bench nas``.

Consumes a source tree: this project's ``nas_benchmarks/`` (``<bm>/<bm>.c``, one Makefile) or
an NPB 3.x OpenMP C tree in the layout users download (``EP/ep.c``, ``common/``,
``sys/setparams.c``, ``config/make.def``, a root Makefile: ``make EP CLASS=S`` writes
``bin/ep.S``). Produces one executable per benchmark, class and *flavour*: ``seq`` (no
OpenMP), ``omp`` (``-fopenmp``) and ``ompcl`` (``-fopenmp``, compiled by ``ompcl cc``), built
with each tree's own Makefiles. A build that crashes the compiler (an internal compiler error)
is retried with the fallback compiler, for every flavour of that benchmark alike.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Protocol

from ..diagnostics import InputError
from .build_speed import build_env, ompcl_cc
from .npb_native import NPB_DIR

FLAVOURS = ("seq", "omp", "ompcl")
#: a compiler that crashed rather than rejected the program
_ICE = re.compile(r"internal compiler error|clang frontend command failed|"
                  r"PLEASE submit a bug report", re.I)
_OPENMP_FLAG = re.compile(r"^(-fopenmp(=\S+)?|-qopenmp|-openmp|-fiopenmp)$")
#: a link that needed the OpenMP runtime
_NEEDS_OPENMP = re.compile(r"undefined reference to [`'\"]?(omp_|GOMP_)|"
                           r"undefined symbol: _?(omp_|GOMP_)", re.I)


class TreeError(InputError):
    """A benchmark tree that cannot be used (the message names it)."""


@dataclass
class Build:
    """One executable (or the failure to make it)."""
    benchmark: str
    cls: str
    flavour: str
    compiler: str
    ok: bool
    exe: Path | None
    log: str
    seconds: float
    crashed: bool = False  # the compiler crashed (internal compiler error)
    retried_from: str | None = None  # the compiler that crashed first
    #: a seq build made with -fopenmp (run at one thread): its sources call the OpenMP
    #: runtime unguarded, as NPB 3.3's OpenMP C does (omp_get_max_threads())
    openmp_one_thread: bool = False


class Tree(Protocol):
    root: Path
    layout: str
    classes: tuple[str, ...]

    def benchmarks(self) -> list[str]: ...

    def build(self, bm: str, cls: str, flavour: str, compiler: str, out: Path) -> Build: ...


def _make(cmd: list[str], cwd: Path | None = None, extra_env: dict | None = None,
          ) -> tuple[bool, str, float]:
    env = build_env()
    env.update(extra_env or {})
    t0 = time.perf_counter()
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    shown = [f"{k}={v}" for k, v in (extra_env or {}).items()] + cmd
    log = f"$ {shlex.join(shown)}\n{res.stdout}{res.stderr}"
    return res.returncode == 0, log, time.perf_counter() - t0


def _slug(compiler: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", compiler)


def _ompcl_cc() -> str:
    return shlex.join(ompcl_cc())


class OwnTree:
    """This project's ``nas_benchmarks/``: ``<bm>.<CLASS>.seq`` and ``.omp`` from one
    Makefile; the ompcl flavour is its ``.omp`` target built with ``CC="ompcl cc"``."""
    layout = "ompcl"
    classes = ("S", "W", "A", "B", "C")

    def __init__(self, root: Path = NPB_DIR):
        self.root = Path(root)

    def benchmarks(self) -> list[str]:
        return sorted(d.name for d in self.root.iterdir()
                      if d.is_dir() and (d / f"{d.name}.c").is_file())

    def build(self, bm: str, cls: str, flavour: str, compiler: str, out: Path) -> Build:
        bindir = (out / f"{flavour}-{_slug(compiler)}").resolve()
        exe = bindir / f"{bm}.{cls}.{'seq' if flavour == 'seq' else 'omp'}"
        cc, env = (_ompcl_cc(), {"OMPCL_CC": compiler}) if flavour == "ompcl" else (compiler, {})
        ok, log, secs = _make(["make", "-C", str(self.root), f"CLASS={cls}", f"BENCHMARKS={bm}",
                               f"BINDIR={bindir}", f"CC={cc}", str(exe)], extra_env=env)
        return Build(bm, cls, flavour, compiler, ok and exe.is_file(), exe, log, secs,
                     crashed=not ok and bool(_ICE.search(log)))


def _read_make_def(bench_dir: Path) -> dict[str, str]:
    """CFLAGS and CLINKFLAGS as the tree's ``config/make.def`` sets them (read by make)."""
    names = ("CFLAGS", "CLINKFLAGS")
    text = "include ../config/make.def\n" + "".join(
        f"$(info ompcl-var {n}=$({n}))\n" for n in names) + "all: ;@:\n"
    res = subprocess.run(["make", "-s", "-f", "-", "all"], input=text, cwd=bench_dir,
                         capture_output=True, text=True)
    found = dict(re.findall(r"^ompcl-var (\w+)=(.*)$", res.stdout, re.M))
    return {n: found.get(n, "") for n in names}


def _flags(flags: str, openmp: bool) -> str:
    words = [w for w in shlex.split(flags) if not _OPENMP_FLAG.match(w)]
    return shlex.join(words + (["-fopenmp"] if openmp else []))


class NpbTree:
    """An NPB 3.x tree: ``make <BM> CLASS=<c>`` at its root, in a private copy per flavour and
    compiler (objects of different flags never mix), with ``CC``, ``CLINK``, ``CFLAGS`` and
    ``CLINKFLAGS`` set on the command line (``make.def``'s flags, OpenMP flags removed for
    ``seq`` and ensured otherwise)."""
    layout = "npb"
    classes = ("S", "W", "A", "B", "C", "D", "E")

    def __init__(self, root: Path):
        self.root = Path(root)
        self._copies: set[Path] = set()

    def benchmarks(self) -> list[str]:
        return sorted(d.name.lower() for d in self.root.iterdir()
                      if d.is_dir() and (d / f"{d.name.lower()}.c").is_file()
                      and (d / "Makefile").is_file())

    def _copy(self, dest: Path) -> Path:
        """A fresh copy of the tree (once per harness run), with an empty ``bin/``."""
        if dest not in self._copies:
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(self.root, dest, symlinks=True,
                            ignore=shutil.ignore_patterns("*.o", "bin", ".git"))
            (dest / "bin").mkdir(exist_ok=True)
            _scripts_executable(dest / "sys")
            self._copies.add(dest)
        return dest

    def build(self, bm: str, cls: str, flavour: str, compiler: str, out: Path) -> Build:
        b = self._build(bm, cls, flavour, compiler, out, openmp=flavour != "seq")
        if flavour == "seq" and not b.ok and _NEEDS_OPENMP.search(b.log):
            # NPB's own users build it so: the OpenMP runtime linked, one thread at run time
            again = self._build(bm, cls, flavour, compiler, out, openmp=True, copy="seq1")
            again.log = f"{b.log}\n--- the sources call the OpenMP runtime: built with " \
                f"-fopenmp, run with OMP_NUM_THREADS=1\n{again.log}"
            again.openmp_one_thread = True
            b = again
        return b

    def _build(self, bm: str, cls: str, flavour: str, compiler: str, out: Path,
               openmp: bool, copy: str = "") -> Build:
        copy = self._copy((out / f"npb-{copy or flavour}-{_slug(compiler)}").resolve())
        made = _read_make_def(copy / bm.upper())
        cc, env = (_ompcl_cc(), {"OMPCL_CC": compiler}) if flavour == "ompcl" else (compiler, {})
        ok, log, secs = _make(["make", bm.upper(), f"CLASS={cls}", f"CC={cc}", f"CLINK={cc}",
                               f"CFLAGS={_flags(made['CFLAGS'], openmp)}",
                               f"CLINKFLAGS={_flags(made['CLINKFLAGS'], openmp)}"],
                              cwd=copy, extra_env=env)
        made_exe = next((p for p in (copy / "bin" / f"{bm}.{cls}", copy / "bin" / f"{bm}.{cls}.x")
                         if p.is_file()), None)
        exe = None
        if ok and made_exe is not None:
            exe = out.resolve() / "bin" / f"{bm}.{cls}.{flavour}"
            exe.unlink(missing_ok=True)
            exe.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(made_exe, exe)
        return Build(bm, cls, flavour, compiler, exe is not None, exe, log, secs,
                     crashed=not ok and bool(_ICE.search(log)))


def _scripts_executable(sys_dir: Path) -> None:
    """NPB's helper scripts (``sys/print_header``) lose their execute bit in some downloads
    (zip files, copies through other systems); make runs them: set it in the build copy."""
    for f in sys_dir.iterdir() if sys_dir.is_dir() else ():
        if f.is_file() and not f.is_symlink() and f.read_bytes()[:2] == b"#!":
            f.chmod(f.stat().st_mode | 0o111)


def open_tree(npb_dir: str | None) -> Tree:
    """The project's suite (``npb_dir`` None) or the NPB tree at ``npb_dir``."""
    if npb_dir is None:
        return OwnTree()
    root = Path(npb_dir)
    if not root.is_dir():
        raise TreeError(f"--npb-dir {npb_dir}: no such directory")
    missing = [p for p in ("Makefile", "config/make.def", "sys/setparams.c", "common")
               if not (root / p).exists()]
    if missing:
        raise TreeError(f"--npb-dir {npb_dir}: not an NPB 3.x tree (missing "
                        f"{', '.join(missing)}; copy config/make.def.template to "
                        "config/make.def if that is what is missing)")
    tree = NpbTree(root)
    if not tree.benchmarks():
        raise TreeError(f"--npb-dir {npb_dir}: no benchmarks (directories like EP/ with "
                        "EP/ep.c and EP/Makefile)")
    return tree


def build_benchmark(tree: Tree, bm: str, cls: str, flavours: list[str], compiler: str,
                    fallback: str | None, out: Path,
                    step: Callable[[str, Build | None], None] = lambda *_: None,
                    ) -> dict[str, Build]:
    """Every flavour of one benchmark with ``compiler``; if any flavour crashed the compiler
    (and a different ``fallback`` is given), every flavour again with ``fallback``. ``step``
    is told of each build as it starts (with None) and when it is done."""
    def build_all(cc: str) -> dict[str, Build]:
        out_builds = {}
        for f in flavours:
            what = f"build {bm} {cls} {f} ({cc})"
            step(what, None)
            out_builds[f] = tree.build(bm, cls, f, cc, out)
            step(what, out_builds[f])
        return out_builds

    builds = build_all(compiler)
    if fallback and fallback != compiler and any(b.crashed for b in builds.values()):
        first = builds
        builds = build_all(fallback)
        for f, b in builds.items():
            b.retried_from = compiler
            b.log = f"{first[f].log}\n--- {compiler} crashed: retried with {fallback}\n{b.log}"
    return builds
