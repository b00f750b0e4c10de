"""The programs a training-data collection measures (``bench.collect``): each *variant* is a
program at one problem size with the commands that build it with ompcl and its reference (the
original built by ``gcc -fopenmp``) and how its output is checked.

Consumes what the project and its neighbours hold: our NAS benchmarks (``nas_benchmarks/``), the
test corpus (``tests/corpus``, at its own sizes and scaled through its ``#define`` sizes),
PolyBench/ACC's deterministic OpenMP programs, the third-party programs of
``shared/thirdparty/cases.txt`` (built by their authors' commands with ``ompcl cc`` in gcc's
place, ``bench.cases``) and programs of the fuzzer's generator (many small distinct kernels).
Produces ``Variant`` lists, and builds them (``build``).
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from . import cases, polybench

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("nas", "corpus", "polybench", "fuzz", "thirdparty")
DEFAULT_SOURCES = SOURCES[:4]
_EXPECT = re.compile(r"ompcl-expect:.*?tolerance=(\S+)")
_DEFINE = re.compile(r"^#define ([A-Z_][A-Z0-9_]*) (\d+)[ \t]*$", re.M)
#: the fuzzer's generator, driven as a tool in a child process (bench and fuzz are peers)
_GENERATE = ("import sys, pathlib\nfrom ompcl.fuzz.generator import generate\n"
             "for s in sys.argv[2:]:\n"
             "    pathlib.Path(sys.argv[1], f'fuzz{s}.c').write_text(generate(int(s)))\n")


@dataclass(frozen=True)
class Variant:
    """One program at one problem size, and how to build, run and check it."""

    benchmark: str                      # the program (leave-one-program-out's group)
    dataset: str                        # the problem size
    source: str                         # one of SOURCES
    exe: Path                           # the ompcl build
    build: tuple[str, ...]              # command building exe (run in cwd)
    cwd: Path
    ref_exe: Path | None = None         # the gcc -fopenmp build of the original, if checked so
    ref_build: tuple[str, ...] = ()
    check: str = "stdout"               # "nas" | "stdout" | "stderr" | "case"
    rtol: float = 1e-9
    atol: float = 0.0
    case: cases.Case | None = None      # check "case": compared by the case's spec

    @property
    def name(self) -> str:
        return f"{self.benchmark}.{self.dataset}"




def _ompcl(*args: str) -> tuple[str, ...]:
    return (sys.executable, "-m", "ompcl.cli", *args)


def _gcc(src: Path, exe: Path) -> tuple[str, ...]:
    return ("gcc", "-std=gnu99", "-O2", "-fopenmp", str(src), "-o", str(exe), "-lm")


def nas_variants(work: Path, classes: Sequence[str]) -> list[Variant]:
    nas = ROOT / "nas_benchmarks"
    names = sorted(p.name for p in nas.iterdir() if (p / f"{p.name}.c").is_file())
    cc = " ".join(_ompcl("cc", "--ompcl-model=none"))
    out = []
    for c in classes:
        for b in names:
            make = ("make", "-s", "-C", str(nas), f"CLASS={c}", f"BENCHMARKS={b}",
                    f"BINDIR={work / 'nas'}", f"CC={cc}")
            out.append(Variant(f"nas-{b}", c, "nas", work / "nas" / f"{b}.{c}.omp", make, nas,
                               check="nas"))
    return out


def scaled_source(text: str, scale: float) -> str | None:
    """``text`` with its ``#define NAME number`` sizes scaled so that their product grows by
    ``scale``; None when it has none (or scale is 1)."""
    sizes = _DEFINE.findall(text)
    if not sizes or scale == 1:
        return None
    f = scale ** (1.0 / len(sizes))
    return _DEFINE.sub(lambda m: f"#define {m[1]} {max(1, round(int(m[2]) * f))}", text)


def _tolerance(text: str) -> float:
    m = _EXPECT.search(text.splitlines()[0] if text else "")
    return float(m[1]) if m else 1e-9


def _c_variant(src: Path, text: str, work: Path, source: str, bench: str, ds: str) -> Variant:
    d = work / source / f"{bench}.{ds}"
    d.mkdir(parents=True, exist_ok=True)
    copy = d / src.name
    copy.write_text(text)
    return Variant(bench, ds, source, d / "prog", _ompcl("build", str(copy), "-o", str(d / "prog"),
                                                         "--model", "none"), d,
                   d / "ref", _gcc(copy, d / "ref"), "stdout", _tolerance(text))


def corpus_variants(work: Path, scales: Sequence[float]) -> list[Variant]:
    out = []
    for src in sorted((ROOT / "tests" / "corpus").glob("*.c")):
        text = src.read_text()
        for s in scales:
            scaled = text if s == 1 else scaled_source(text, s)
            if scaled is not None:
                out.append(_c_variant(src, scaled, work, "corpus", f"corpus-{src.stem}",
                                      f"x{s:g}"))
    return out


def fuzz_variants(work: Path, count: int, seed: int) -> list[Variant]:
    """Programs ``seed .. seed+count-1`` of the fuzzer's generator (written by a child
    process: the fuzzer is a peer package, driven as a tool)."""
    if count <= 0:
        return []
    d = work / "fuzz-src"
    d.mkdir(parents=True, exist_ok=True)
    seeds = [str(s) for s in range(seed, seed + count)]
    subprocess.run([sys.executable, "-c", _GENERATE, str(d), *seeds], check=True, cwd=ROOT,
                   env=_py_env())
    return [_c_variant(d / f"fuzz{s}.c", (d / f"fuzz{s}.c").read_text(), work, "fuzz",
                       f"fuzz-{s}", "default") for s in seeds]


def thirdparty_variants(work: Path) -> list[Variant]:
    """The programs of ``cases.txt``, each built in its own writable copy of its suite by
    its authors' command, with gcc (the reference) and with ``ompcl cc`` in gcc's place."""
    root = cases.find_root()
    if root is None:
        return []
    shim = cases.compiler_shim(work / "thirdparty" / "bin" / "ompcl-cc",
                               list(_ompcl("cc", "--ompcl-model=none")))
    all_cases = cases.read(root)
    out = []
    for c in all_cases:
        d = work / "thirdparty" / c.name
        builds = []
        for side, cc in (("ref", None), ("test", shim)):
            d.mkdir(parents=True, exist_ok=True)
            runner = d / f"{side}.sh.in"
            runner.write_text(cases.runner(c, d / side / c.dir))
            runner.chmod(0o755)
            builds.append(("sh", "-c", f"{cases.copy_command(root / c.suite, d / side / c.suite)}"
                           f" && cd {d / side / c.dir} && {cases.build_command(c, cc)}"
                           f" && cp {runner} {d / side}.sh"))
        out.append(Variant(cases.program(c, all_cases), c.name, "thirdparty", d / "test.sh",
                           builds[1], d, d / "ref.sh", builds[0], "case", case=c))
    return out


def polybench_variants(work: Path, sizes: Sequence[str]) -> list[Variant]:
    root = polybench.find_root()
    if root is None:
        return []
    cc = list(_ompcl("cc", "--ompcl-model=none"))
    out = []
    for prog in polybench.programs(root):
        if prog.name not in polybench.DETERMINISTIC:
            continue
        for size in sizes:
            d = work / "polybench" / f"{prog.name}.{size}"
            d.mkdir(parents=True, exist_ok=True)
            build = _sized(polybench.command(prog, root, cc, d / "prog"), size)
            ref = _sized(polybench.command(prog, root, ["gcc"], d / "ref"), size)
            out.append(Variant(f"polybench-{prog.name}", size, "polybench", d / "prog",
                               tuple(build), prog.folder, d / "ref", tuple(ref), "stderr",
                               1e-6, 0.011))  # dumps print 2 decimals
    return out


def _sized(cmd: list[str], size: str) -> list[str]:
    """The authors' command for another dataset (STANDARD is their default: no flag)."""
    flag = [] if size == "STANDARD" else [f"-D{size}_DATASET"]
    return [a for x in cmd for a in (flag if x == "-DSMALL_DATASET" else [x])]


# ---- building ------------------------------------------------------------------------

def _py_env(**extra: str) -> dict[str, str]:
    """This ompcl first on the path (make and the drivers start new interpreters)."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in
                                                       env.get("PYTHONPATH", "").split(os.pathsep)
                                                       if p])
    return env


def build(v: Variant, resume: bool = False, timeout: float = 900) -> str:
    """Build the variant (and its reference; with ``resume``, only what is missing); '' or
    why it failed."""
    for cmd, exe in ((v.ref_build, v.ref_exe), (v.build, v.exe)):
        if not cmd or (resume and exe and exe.exists()):
            continue
        if exe:
            exe.unlink(missing_ok=True)
        try:
            res = subprocess.run(cmd, cwd=v.cwd, capture_output=True, text=True,
                                 timeout=timeout, env=_py_env())
        except subprocess.TimeoutExpired:
            return f"build timed out: {' '.join(cmd[:4])}"
        if res.returncode != 0 or (exe and not exe.exists()):
            last = (res.stderr.strip().splitlines() or ["?"])[-1]
            return f"build failed ({'reference' if exe == v.ref_exe else 'ompcl'}): {last[:200]}"
    return ""
