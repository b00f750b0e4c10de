"""Oracle (stage 2 of the fuzzer): build one generated program with gcc -fopenmp (the reference)
and through ompcl, run the translation in every mode, and compare outputs, exit codes and where
each loop ran.

Consumes a program's text (its first line says what ompcl should offload); produces a
``Verdict``: the failures found, at most one per mode, each classified by kind (``KINDS``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..predict.learners import constant
from ..runtime import LINK_FLAGS, RUNTIME_FILES, RUNTIME_SOURCES
from .compare import compare_outputs
from .generator import (NEW_FAMILIES, SECOND_FILE, declined, expectations, families,
                        generate)

RUNTIME_DIR = Path(__file__).resolve().parents[1] / "runtime"
RUN_TIMEOUT = 60.0  # a cold OpenCL build of a large program on a loaded 2-core machine
ASAN_TIMEOUT = 120.0
# How each run of the translated program is made. Copying buffers behave like a discrete GPU;
# zero-copy buffers (the default on a CPU device) hide extent bugs.
MODE_ENV: dict[str, dict[str, str]] = {
    "opencl-copy": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"},
    "opencl-zc": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "1"},
    "auto": {"OMPCL_DEVICE": "auto"},
    # every launch declined by the model: the teams of one's host paths (OMPCL_MODEL names
    # the campaign's always-host model, see run_mode)
    "auto-host": {"OMPCL_DEVICE": "auto"},
    "openmp": {"OMPCL_DEVICE": "openmp"},
    # the device path with every launch failing: each team of one runs its loops on the host,
    # each as a parallel loop of its own (the host path of the device version)
    "team1": {"OMPCL_DEVICE": "opencl", "OMPCL_FAULT": "launch"},
    "asan": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"},  # with --asan only
}
MODES = ("opencl-copy", "opencl-zc", "team1", "auto", "auto-host", "openmp")
DEVICE_MODES = ("opencl-copy", "opencl-zc", "team1", "asan")  # need an OpenCL device
#: the paths a translated program may take, each run at every count of THREADS against the
#: original at the same count (the other modes run at the reference's 2 threads)
PATH_MODES = ("openmp", "opencl-copy", "opencl-zc", "team1")
PLACED_MODES = ("opencl-copy", "opencl-zc")  # every offloaded loop must run on the device
# The runtime's device bounds checker (OMPCL_BOUNDS_CHECK=1): a kernel access outside the
# mapped range of its buffer exits with this status and message.
BOUNDS_EXIT = 70
BOUNDS_MESSAGE = "ompcl: error: out-of-bounds"
SAN_CFLAGS = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined",
              "-fno-sanitize-recover=all"]
#: leaks inside the OpenCL implementation (PoCL, LLVM) are suppressed: they are not ompcl's
LSAN_SUPPRESSIONS = Path(__file__).with_name("lsan.supp")
SAN_ENV = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0",
           "LSAN_OPTIONS": f"suppressions={LSAN_SUPPRESSIONS}:print_suppressions=0",
           "UBSAN_OPTIONS": "print_stacktrace=1"}
SAN_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:")
# the thread counts of every run of the reference (2 first; 1, 3 and 7 must agree with it) and
# of the translation on each path (PATH_MODES)
THREADS = ("2", "1", "3", "7")
# Failure kinds, from the program's side to ompcl's: a program the generator got wrong; ompcl
# raising; expectations of what is offloaded not met; the translation not compiling; then the
# run-time failures.
KINDS = ("generator", "translate", "verdict", "host-build", "timeout", "bounds", "sanitizer",
         "crash", "mismatch", "placement", "stats")


@dataclass(frozen=True)
class Failure:
    """One way a program failed: kind (one of KINDS), the mode it failed in, if any, details."""

    kind: str
    detail: str
    mode: str = ""

    @property
    def category(self) -> str:
        """``kind`` or ``kind:mode``, e.g. ``mismatch:opencl-copy``."""
        return f"{self.kind}:{self.mode}" if self.mode else self.kind


@dataclass
class Verdict:
    """Everything the oracle found about one program."""

    failures: list[Failure] = field(default_factory=list)
    ran_on_device: dict[str, int] = field(default_factory=dict)  # per mode, regions on device
    modes: list[str] = field(default_factory=list)  # modes that ran

    @property
    def ok(self) -> bool:
        return not self.failures

    @property
    def first(self) -> Failure | None:
        return self.failures[0] if self.failures else None


@dataclass
class Campaign:
    """Per-campaign state: a work directory, the runtime compiled once, the cache directory."""

    work: Path
    rt_obj: Path
    rt_dir: Path
    device: bool = True  # whether the OpenCL runs happen
    asan: bool = False  # whether the sanitized translation is built and run too
    rt_asan_obj: Path | None = None

    @property
    def modes(self) -> tuple[str, ...]:
        return MODES + (("asan",) if self.asan else ())


@dataclass
class Outcome:
    """One program of a campaign: its seed, what was found, and what it contained."""

    seed: int
    failures: list[Failure]
    families: dict[str, int]
    n_device: int = 0
    n_host: int = 0
    ran_on_device: int = 0
    seconds: float = 0.0
    text: str = ""  # kept only for failing programs

    @property
    def failure(self) -> Failure | None:
        return self.failures[0] if self.failures else None


def _gcc(args: list[str], flags: list[str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["gcc", "-std=gnu99", *(flags or ["-O2"]), "-fopenmp", *args],
                          capture_output=True, text=True, check=False)


def setup(work: Path, device: bool = True, asan: bool = False) -> Campaign:
    """Snapshot the runtime (others may edit it) and compile it once (twice with ``asan``)."""
    work.mkdir(parents=True, exist_ok=True)
    rt_dir = work / "rt"
    rt_dir.mkdir(exist_ok=True)
    for f in RUNTIME_FILES:
        shutil.copy(RUNTIME_DIR / f, rt_dir / f)
    obj = rt_dir / "libompcl_rt.a"
    for o, flags in ((obj, ["-O2"]), (rt_dir / "libompcl_rt_asan.a", SAN_CFLAGS))[:1 + asan]:
        _archive_runtime(rt_dir, o, flags)
    (work / "clcache").mkdir(exist_ok=True)
    (work / "host-model.json").write_text(json.dumps(constant(False, "tree")))
    return Campaign(work, obj, rt_dir, device, asan,
                    rt_dir / "libompcl_rt_asan.a" if asan else None)


def _archive_runtime(rt_dir: Path, lib: Path, flags: list[str]) -> None:
    """Compile the runtime's files in ``rt_dir`` with ``flags`` into the archive ``lib``."""
    objs = rt_dir / lib.stem
    objs.mkdir(exist_ok=True)
    p = subprocess.run(["gcc", "-std=gnu99", *flags, "-fopenmp", "-c",
                        *(str(rt_dir / f) for f in RUNTIME_SOURCES)],
                       capture_output=True, text=True, check=False, cwd=objs)
    if p.returncode == 0:
        p = subprocess.run(["ar", "rcs", str(lib), *sorted(map(str, objs.glob("*.o")))],
                           capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"cannot compile the runtime: {p.stderr[-2000:]}")


def run_env(camp: Campaign, **extra: str) -> dict[str, str]:
    """The environment of every run: 2 passive OpenMP threads, the campaign's kernel cache, no
    logging or fault injection, then ``extra``."""
    env = dict(os.environ)
    env.update({"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "passive",
                "OMPCL_CACHE_DIR": str(camp.work / "clcache")})
    for var in ("OMPCL_LOG", "OMPCL_FAULT", "OMPCL_ZERO_COPY", "OMPCL_BOUNDS_CHECK",
                "OMPCL_DEVICE", "OMPCL_STATS", "OMPCL_MODEL"):
        env.pop(var, None)
    env.update(extra)
    return env


def execute(exe: Path, env: dict[str, str],
            timeout: float = RUN_TIMEOUT) -> tuple[int | None, str, str]:
    """Run exe; rc None on timeout."""
    try:
        p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=timeout,
                           env=env, check=False)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout, p.stderr


def write_program(text: str, d: Path) -> Path:
    """Write a generated program into ``d``: ``fuzz.c``, and ``second.c`` when the text holds
    a second file (after ``SECOND_FILE``: definitions of the main file's extern variables,
    compiled as they are); returns the main file's path."""
    main, sep, second = text.partition(SECOND_FILE + "\n")
    src = d / "fuzz.c"
    src.write_text(main)
    if sep:
        (d / "second.c").write_text(second)
    return src


def _others(src: Path) -> list[str]:
    """The program's other source files (beside ``src``)."""
    second = src.parent / "second.c"
    return [str(second)] if second.exists() else []


# -- the reference ------------------------------------------------------------------------------

def reference(src: Path, d: Path, camp: Campaign, rtol: float,
              strict: bool = True) -> tuple[Failure | None, dict[str, str]]:
    """gcc's build and its output at each count of ``THREADS``; a generator failure if it
    does not compile, warns under -Wall (``strict``), fails, or gives another answer with 1,
    3 or 7 threads than with 2."""
    exe = d / "ref"
    p = _gcc([str(src), *_others(src), "-o", str(exe), "-lm"], ["-O2", "-Wall"])
    if p.returncode != 0:
        return Failure("generator", "gcc: " + p.stderr[-2000:]), {}
    if strict and p.stderr.strip():
        return Failure("generator", "gcc -Wall: " + p.stderr[-2000:]), {}
    outs = {}
    for n in THREADS:
        rc, out, err = execute(exe, run_env(camp, OMP_NUM_THREADS=n))
        if rc != 0:
            return Failure("generator", f"reference run ({n} threads): rc={rc} {err[-500:]}"), {}
        outs[n] = out
        res = compare_outputs(outs[THREADS[0]], out, rtol)
        if not res.ok:
            return Failure("generator", f"nondeterministic: {n} threads vs "
                                        f"{THREADS[0]}: {res.message}"), {}
    return None, outs


def reference_is_clean_under_asan(src: Path, d: Path, camp: Campaign) -> bool:
    """Whether the original program itself runs clean with the sanitizers (else the generator,
    not ompcl, made undefined behaviour)."""
    exe = d / "ref_asan"
    p = _gcc([str(src), *_others(src), "-o", str(exe), "-lm"], SAN_CFLAGS)
    if p.returncode != 0:
        return False
    rc, _, err = execute(exe, run_env(camp, **SAN_ENV), ASAN_TIMEOUT)
    return rc == 0 and not any(m in err for m in SAN_MARKS)


# -- the translation ----------------------------------------------------------------------------

def translate_and_check(src: Path, d: Path, n_dev: int,
                        n_host: int) -> tuple[list[Failure], Path | None, int]:
    """Translate in-process and write the outputs: (failures, the host file written or None when
    nothing can be built, the number of loops really offloaded)."""
    from ompcl.outputs import output_names, write_outputs
    from ompcl.pipeline import translate
    try:
        t = translate(str(src))
    except Exception as e:  # noqa: BLE001 - any compiler exception is a finding
        return [Failure("translate", f"{type(e).__name__}: {str(e)[:2000]}")], None, 0
    fails = []
    if len(t.offloaded) != n_dev:
        why = [f"line {r.loc.line}: {'; '.join(f'{x.message} [{x.id}]' for x in r.reasons)}" for r in t.regions if not r.offload]
        fails.append(Failure("verdict", f"{len(t.offloaded)} offloaded, expected {n_dev}: "
                                        f"{why}"))
    host = [m for m in t.remarks if m.missed]
    if len(host) != n_host and len(t.offloaded) == n_dev:
        fails.append(Failure("verdict", f"{len(host)} host remarks, expected {n_host}: "
                                        f"{[m.format() for m in host]}"))
    out = d / "out"
    try:
        write_outputs([t], out)
    except Exception as e:  # noqa: BLE001
        return fails + [Failure("translate", f"writing: {type(e).__name__}: {e}")], None, 0
    return fails, output_names(t, out)["host"], len(t.offloaded)


def build_translated(host: Path, d: Path, camp: Campaign, name: str = "translated",
                     asan: bool = False) -> tuple[Failure | None, Path]:
    """Compile the translated host file with the campaign's runtime (sanitized: ``asan``),
    linked as ompcl links it."""
    out = host.parent
    shutil.copy(camp.rt_dir / "ompcl_rt.h", out / "ompcl_rt.h")
    exe = d / name
    rt = camp.rt_asan_obj if asan else camp.rt_obj
    flags = SAN_CFLAGS if asan else ["-O2"]
    extra = ["-fsanitize=address,undefined"] if asan else []
    # linked as ompcl links (LINK_FLAGS: the heap blocks seen through --wrap of malloc)
    p = _gcc([f"-I{out}", str(host), *_others(d / "fuzz.c"), str(rt), "-o", str(exe), "-lm",
              *LINK_FLAGS, *extra], flags)
    if p.returncode != 0:
        return Failure("host-build", p.stderr[-3000:], "asan" if asan else ""), exe
    return None, exe


# -- the runs -----------------------------------------------------------------------------------

def classify_run(mode: str, rc: int | None, out: str, err: str, ref: str,
                 rtol: float) -> Failure | None:
    """What went wrong in one run, from its exit status, its stderr and its output."""
    if rc is None:
        return Failure("timeout", f"no exit within {RUN_TIMEOUT:g} s", mode)
    if rc == BOUNDS_EXIT or BOUNDS_MESSAGE in err:
        line = next((ln for ln in err.splitlines() if BOUNDS_MESSAGE in ln), err[-500:])
        return Failure("bounds", f"exit code {rc}: {line}", mode)
    if mode == "asan" and any(m in err for m in SAN_MARKS):
        return Failure("sanitizer", _sanitizer_summary(err), mode)
    if rc != 0:
        return Failure("crash", f"exit code {rc}: {err[-1500:]}", mode)
    res = compare_outputs(ref, out, rtol)
    if not res.ok:
        return Failure("mismatch", res.message, mode)
    return None


def _sanitizer_summary(err: str) -> str:
    lines = err.splitlines()
    first = next((ln for ln in lines if any(m in ln for m in SAN_MARKS)), "")
    frames = [ln.strip() for ln in lines if ln.strip().startswith("#")][:6]
    return " | ".join([first.strip()] + frames)[:1500]


def check_placement(mode: str, stats_file: Path, n_dev: int, n_declined: int = 0
                    ) -> tuple[Failure | None, int]:
    """Where the loops ran, from the run's statistics: nothing on the device under openmp,
    every offloaded loop on it (without fallback) in the OpenCL modes, except the
    ``n_declined`` loops whose run-time scratch check declines every time (on the host)."""
    if n_dev == 0 and not stats_file.exists():
        return None, 0  # nothing offloaded: the runtime has no region to report
    try:
        st = json.loads(stats_file.read_text())
    except (OSError, ValueError) as e:
        return Failure("stats", f"unreadable statistics: {e}", mode), 0
    regions = st.get("regions", [])
    on_dev = [r for r in regions if r["device_runs"] > 0]
    if mode == "openmp" and on_dev:
        return Failure("placement", f"ran on the device under OMPCL_DEVICE=openmp: {on_dev}",
                       mode), 0
    if mode in PLACED_MODES:
        if not st["device"]["available"]:
            return Failure("placement", "OpenCL device not available", mode), 0
        bad = [r for r in on_dev if r["fallback"] is not None or r["host_runs"] != 0]
        declined = [r for r in regions if r["device_runs"] == 0 and (
            r.get("check_declines") or r.get("block_declines") or r.get("alias_declines"))]
        if len(on_dev) != n_dev - n_declined or len(declined) != n_declined or bad:
            fell = [f"line {r['line']}: {r['fallback']}" for r in regions if r["fallback"]]
            return Failure("placement", f"{len(on_dev)} regions ran on the device, expected "
                                        f"{n_dev - n_declined}; {len(declined)} declined by "
                                        f"their run-time check, expected {n_declined}; "
                                        f"fallbacks: {fell}", mode), len(on_dev)
    return None, len(on_dev)


def run_mode(exe: Path, d: Path, camp: Campaign, mode: str, ref: str, rtol: float,
             n_dev: int, n_declined: int = 0, threads: str = "2"
             ) -> tuple[Failure | None, int]:
    """One run of the translated program in ``mode`` with ``threads`` OpenMP threads, the
    device bounds checker on."""
    stats = d / f"stats_{mode}.json"
    env = run_env(camp, **MODE_ENV[mode], OMPCL_BOUNDS_CHECK="1", OMPCL_STATS=str(stats),
                  OMP_NUM_THREADS=threads)
    if mode == "auto-host":
        env["OMPCL_MODEL"] = str(camp.work / "host-model.json")
    if mode == "asan":
        env.update(SAN_ENV)
    rc, out, err = execute(exe, env, ASAN_TIMEOUT if mode == "asan" else RUN_TIMEOUT)
    fail = classify_run(mode, rc, out, err, ref, rtol)
    if fail and threads != "2":
        fail = Failure(fail.kind, f"({threads} threads) {fail.detail}", fail.mode)
    if fail or mode == "asan":
        return fail, 0
    return check_placement(mode, stats, n_dev, n_declined)


def check(text: str, camp: Campaign, modes: tuple[str, ...] | None = None,
          strict: bool = True) -> Verdict:
    """Build and run one program every way (``modes``, default: the campaign's); every failure
    found, at most one per mode. ``strict``: gcc -Wall warnings count as generator failures."""
    n_dev, n_host, rtol = expectations(text)
    modes = camp.modes if modes is None else modes
    v = Verdict()
    d = Path(tempfile.mkdtemp(dir=camp.work, prefix="p"))
    try:
        src = write_program(text, d)
        fail, ref = reference(src, d, camp, rtol, strict)
        if fail:
            v.failures.append(fail)
            return v
        fails, host, n_off = translate_and_check(src, d, n_dev, n_host)
        v.failures += fails
        if host is None:
            return v
        fail, exe = build_translated(host, d, camp)
        if fail:
            v.failures.append(fail)
            return v
        for mode in modes:
            if mode in DEVICE_MODES and not camp.device:
                continue
            run_exe = exe
            if mode == "asan":
                fail, run_exe = build_translated(host, d, camp, "translated_asan", asan=True)
                if fail:
                    v.failures.append(fail)
                    continue
            fail, k = None, 0
            for n in (THREADS if mode in PATH_MODES else THREADS[:1]):
                fail, k = run_mode(run_exe, d, camp, mode, ref[n], rtol, n_off,
                                   declined(text), n)
                if fail:
                    break
            v.modes.append(mode)
            v.ran_on_device[mode] = k
            if fail and fail.kind == "sanitizer" and not reference_is_clean_under_asan(src, d,
                                                                                        camp):
                fail = Failure("generator", "the original program fails under the sanitizers: "
                               + fail.detail)
            if fail:
                v.failures.append(fail)
        return v
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fuzz_one(seed: int, camp: Campaign, fams: Iterable[str] = NEW_FAMILIES) -> Outcome:
    """Generate and check the program of ``seed`` (a process-pool job)."""
    t0 = time.monotonic()
    text = generate(seed, fams)
    v = check(text, camp)
    n_dev, n_host, _ = expectations(text)
    return Outcome(seed, v.failures, dict(Counter(families(text))), n_dev, n_host,
                   max(v.ran_on_device.values(), default=0), time.monotonic() - t0,
                   text if v.failures else "")


def probe_device(camp: Campaign) -> bool:
    """Whether the runtime finds an OpenCL device (one tiny translated program)."""
    text = ("/* ompcl-expect: device=1 host=0 */\n#include <stdio.h>\nint a[100];\n"
            "int main(void)\n{\n    int i;\n#pragma omp parallel for\n"
            "    for (i = 0; i < 100; i++)\n"
            "        a[i] = i;\n    printf(\"%d\\n\", a[99]);\n    return 0;\n}\n")
    v = check(text, camp, ("opencl-zc",))
    return v.ok and v.ran_on_device.get("opencl-zc") == 1
