"""C semantics the device must keep where OpenCL C differs from C: each program in
``tests/semantics`` is built with gcc -fopenmp and with ``ompcl build``, run on every path
(host, device with copying and zero-copy buffers, the team of one's host path) at every thread
count and compared with the original's output exactly; where a device exists, the statistics
show the device ran each loop the program expects it to."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.driver.args import cpp_options
from ompcl.pipeline import Options, translate

from conftest import device_runs, every_path, gcc_build, ompcl_build

HERE = Path(__file__).parent / "semantics"

#: program -> whether each of its loops must run on the device (else it stays on the host)
PROGRAMS = {
    "bool_conversions.c": [True],
    "int128_in_callee.c": [False, False],
    "thread_local_scratch.c": [True],
    "file_scope_gnu.c": [True, True, False, False],
    "self_referential_struct.c": [False, True],
    "null_array_args.c": [True, True],
    "gnu_bodies.c": [True, True, True, True, True, False, True],
    "scratch_array_param.c": [True],
    "nonrectangular_collapse.c": [True, True, True, False, True],
    "member_extents.c": [True, True, True, False, False],
    "pointer_arrays.c": [True, True, False, False, True, False],
    "math_classify.c": [True, True],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_answer_on_every_path(tmp_path, name):
    src = HERE / name
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    every_path(ref, exe, 0.0)
    _ran_as_expected(src, exe, PROGRAMS[name])


def test_null_arrays_reach_the_device(tmp_path):
    """A null pointer argument (an optional array the run leaves out) binds OpenCL's null
    buffer: both loops run on the device in both modes, and the kernel's test of the pointer
    reads null as the original's does (the answers above)."""
    exe = tmp_path / "exe"
    assert ompcl_build([HERE / "null_array_args.c"], exe).returncode == 0
    assert device_runs(exe) in (None, [2, 2])


def _ran_as_expected(src: Path, exe: Path, expected: list[bool], *flags: str) -> None:
    """The loops' verdicts are ``expected``, and the device ran each offloaded loop."""
    unit = translate(str(src), Options(cpp=cpp_options(tuple(flags))))
    assert [r.offload for r in unit.regions] == expected
    if any(expected):
        runs = device_runs(exe)
        assert runs is None or (len(runs) == sum(expected) and all(r >= 1 for r in runs)), runs


def test_file_scope_declarations_set_aside_are_named():
    unit = translate(str(HERE / "file_scope_gnu.c"))
    named = sorted(m.message.split("'")[1] for m in unit.remarks
                   if m.id == "declaration-fallback")
    assert named == ["count_t", "kind", "same", "shifted", "twice"]
    assert not any(m.id == "parse-fallback" for m in unit.remarks)


@pytest.mark.parametrize("flags", [["-std=c99", "-O2"], ["-std=gnu11", "-O0"],
                                   ["-ansi", "-O1"]])
def test_predefined_macros_of_the_build(tmp_path, flags):
    """The device version of a loop reads the code the build's flags select: the language
    standard (``__STDC_VERSION__``, ``__STRICT_ANSI__``) and the optimisation level
    (``__OPTIMIZE__``) reach ompcl's reading, with ``ompcl cc`` as with gcc."""
    _built_with_flags(tmp_path, "compiler_macros.c", flags, [False, True])


@pytest.mark.parametrize("flags", [["-O2", "-march=native"], ["-O2", "-march=native", "-std=c99"],
                                   ["-O2", "-march=native", "-ffp-contract=off"],
                                   ["-O2", "-std=c11", "-mfma", "-ffp-contract=fast"],
                                   ["-O2"]])
def test_kernels_fuse_multiply_add_where_the_host_compile_does(tmp_path, flags):
    """gcc fuses ``a * b - c`` on an FMA target in GNU C (``-ffp-contract=fast``): the
    kernels then do too, and not otherwise, so every path prints the original's bits."""
    _built_with_flags(tmp_path, "fma_contraction.c", flags, [True])


def _built_with_flags(tmp_path: Path, name: str, flags: list[str], expected: list[bool]):
    """``name`` built with ``flags`` by gcc and by ``ompcl cc`` (translated, no fallback),
    the same answer on every path, the loops' verdicts ``expected``."""
    src = HERE / name
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    subprocess.run(["gcc", *flags, "-fopenmp", str(src), "-o", str(ref)], check=True)
    res = subprocess.run([sys.executable, "-m", "ompcl", "cc", *flags, "-fopenmp", str(src),
                          "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0 and "fallback" not in res.stderr, res.stderr
    every_path(ref, exe, 0.0)
    _ran_as_expected(src, exe, expected, *flags)

