"""``ompcl cc`` on commands with several C sources: one compile per source, run side by side
(and beside the next source's translation), then a link, where that is exactly what the
compiler would have done (``driver/split.py``); the same executables, messages in the same
order and the same safety net as one compiler command (``OMPCL_JOBS=1``).

In-process tables for which commands split and into what; then real builds compared with
``OMPCL_JOBS=1`` and with gcc, and the commands a fake compiler receives."""
from __future__ import annotations

import filecmp

import pytest

from ompcl.driver import split
from ompcl.driver.args import classify
from conftest import run
from test_cc import (RUNTIME_DIR, _gcc, fake_calls, fake_compiler, ompcl_cc, write_project)

SPLIT = [
    (["-O2", "-fopenmp", "-I.", "a.c", "b.c", "-o", "app", "-lm"], True),
    (["-fopenmp", "-c", "a.c", "b.c"], True),
    (["-fopenmp", "-g", "-Wall", "-DX=1", "-D", "Y", "-I", "inc", "-isystem", "sys",
      "-include", "pre.h", "-std=c99", "-pthread", "a.c", "x.o", "b.c", "lib.a",
      "-Wl,--as-needed", "-L", "lib", "-lfoo", "-Xlinker", "-O1", "-static", "-o", "app"], True),
    (["-fopenmp", "-oapp", "a.c", "b.c"], True),
    (["-fopenmp", "a.c", "-o", "app"], False),               # one source: nothing beside it
    (["-fopenmp", "-MD", "a.c", "b.c"], False),              # dependency files
    (["-fopenmp", "-Wp,-MD,x.d", "a.c", "b.c"], False),
    (["-fopenmp", "-save-temps", "a.c", "b.c"], False),
    (["-fopenmp", "-flto", "a.c", "b.c"], False),
    (["-fopenmp", "-flto=auto", "a.c", "b.c"], False),
    (["-fopenmp", "-fprofile-generate", "a.c", "b.c"], False),
    (["-fopenmp", "--coverage", "a.c", "b.c"], False),
    (["-fopenmp", "-fdump-tree-all", "a.c", "b.c"], False),
    (["-fopenmp", "-gsplit-dwarf", "a.c", "b.c"], False),
    (["-fopenmp", "-x", "c", "a.c", "b.c"], False),          # a language for every operand
    (["-fopenmp", "a.c", "b.c", "s.s"], False),              # another compiler's input
    (["-fopenmp", "-c", "a.c", "b.c", "x.o"], False),        # gcc warns once: unused input
    (["-fopenmp", "-c", "a.c", "b.c", "-o", "x.o"], False),  # gcc's error, as gcc says it
    (["-fopenmp", "-c", "a.c", "sub/a.c"], False),           # both write a.o, in turn
    (["-fopenmp", "a.c", "sub/a.c", "-o", "app"], True),     # (temporary objects)
    (["-fopenmp", "--frobnicate", "a.c", "b.c"], False),     # an option not known here
    (["-fopenmp", "-E", "a.c", "b.c"], False),               # query: passes through
]


@pytest.mark.parametrize("argv,expected", SPLIT, ids=[" ".join(a) for a, _ in SPLIT])
def test_which_commands_split(argv, expected):
    assert split.separable(classify(argv)) is expected


def test_split_commands():
    cmd = classify(["-O2", "-fopenmp", "-Iinc", "a.c", "x.o", "b.c", "-o", "app", "-lm",
                    "-Wl,-O1", "-Xlinker", "-z", "-static"])
    assert split.compile_args(cmd, 5, "/t/b.c", "/t/5.o") == \
        ["-O2", "-fopenmp", "-Iinc", "/t/b.c", "-c", "-o", "/t/5.o"]
    assert split.link_args(cmd, {3: "/t/3.o", 5: "/t/5.o"}) == [
        "-O2", "-fopenmp", "-Iinc", "/t/3.o", "x.o", "/t/5.o", "-o", "app", "-lm", "-Wl,-O1",
        "-Xlinker", "-z", "-static"]
    cmd = classify(["-c", "-O2", "a.c", "b.c", "-DX"])
    assert split.compile_args(cmd, 2, "b.c", None) == ["-c", "-O2", "b.c", "-DX"]


@pytest.mark.parametrize("compiler,text,said", [
    (("gcc",), "gcc: warning: x", True), (("/usr/bin/gcc",), "gcc: error: y", True),
    (("clang-15",), "clang: warning: z", True), (("ccache", "gcc"), "ccache: error: w", True),
    (("gcc",), "a.c:3:1: warning: unused", False), (("gcc",), "cc1: warning: -std", False),
    (("gcc",), "In file included from gcc.h:1:\ngcc.h:2: note: x", False)])
def test_driver_messages(compiler, text, said):
    assert split.driver_message(compiler, text) is said


LIB = """#include <stdio.h>
double y[50];
void fill(void) {
  int i, unused;
#pragma omp parallel for
  for (i = 0; i < 50; i++) y[i] = i;
}
"""
MAIN = """#include <stdio.h>
extern double x[], y[];
void fill(void);
int twice(int v);
int off_main(void);
int main(void) {
  int k;
  off_main();
  fill();
  printf("%.1f %.1f %d\\n", y[49], x[999], twice(21));
  return 0;
}
"""


def _program(tmp_path) -> list[str]:
    """Four sources: two offloading, two not (one with a warning under -Wall)."""
    write_project(tmp_path)
    (tmp_path / "off.c").write_text((tmp_path / "off.c").read_text().replace(
        "int main(void)", "int off_main(void)"))
    (tmp_path / "lib.c").write_text(LIB)
    (tmp_path / "main.c").write_text(MAIN)
    return ["-O2", "-Wall", "-fopenmp", "-Rompcl", "main.c", "off.c", "plain.c", "lib.c",
            "-lm"]


def test_split_build_is_the_one_command_build(tmp_path):
    """The same executable byte for byte, the same remarks and warnings in the same order,
    as the command run as one compiler command; the program runs."""
    args = _program(tmp_path)
    one = ompcl_cc(tmp_path, *args, "-o", "one", OMPCL_JOBS="1")
    assert one.returncode == 0, one.stderr
    for jobs in ("2", "3"):
        res = ompcl_cc(tmp_path, *args, "-o", f"app{jobs}", OMPCL_JOBS=jobs)
        assert res.returncode == 0, res.stderr
        assert res.stderr == one.stderr
        assert filecmp.cmp(tmp_path / "one", tmp_path / f"app{jobs}", shallow=False)
    lines = one.stderr.splitlines()
    said = [m.split(":")[0] for m in lines if "remark: loop offloaded" in m or
            "[-Wunused-variable]" in m]
    assert said == ["off.c", "lib.c", "main.c", "lib.c"], one.stderr   # remarks, then gcc
    assert run(tmp_path / "app2").stdout == "1998.0\n49.0 1998.0 42\n"
    assert run(tmp_path / "app2", OMPCL_DEVICE="opencl").stdout == "1998.0\n49.0 1998.0 42\n"


def test_split_compile_only(tmp_path):
    args = _program(tmp_path)
    one = ompcl_cc(tmp_path, *args[:-1], "-c", OMPCL_JOBS="1")
    assert one.returncode == 0, one.stderr
    objects = {f: (tmp_path / f).read_bytes() for f in ("main.o", "off.o", "plain.o", "lib.o")}
    for f in objects:
        (tmp_path / f).unlink()
    res = ompcl_cc(tmp_path, *args[:-1], "-c", OMPCL_JOBS="2")
    assert (res.returncode, res.stderr) == (0, one.stderr)
    assert {f: (tmp_path / f).read_bytes() for f in objects} == objects


@pytest.mark.parametrize("fault,says", [
    ("cc-translation:lib.c", "lib.c: warning: ompcl: translated file failed to compile; "),
    ("cc-crash:lib.c", "lib.c: warning: ompcl: cannot translate this file (internal error: ")])
def test_split_safety_net_names_only_the_file_that_failed(tmp_path, fault, says):
    """One of two translated files fails (its translation does not compile, or the
    translator crashes): one warning, for that file; the other stays translated."""
    args = _program(tmp_path)
    res = ompcl_cc(tmp_path, *args, "-o", "app", "--ompcl-keep=kept", OMPCL_STRICT="0",
                   OMPCL_FAULT=fault, OMPCL_JOBS="2")
    assert res.returncode == 0, res.stderr
    (line,) = [m for m in res.stderr.splitlines() if "[ompcl-fallback]" in m]
    assert line.startswith(says), line
    assert "kernel 'ompcl_k0'" in res.stderr          # off.c's remark: still offloaded
    assert run(tmp_path / "app", OMPCL_DEVICE="opencl").stdout == "1998.0\n49.0 1998.0 42\n"
    strict = ompcl_cc(tmp_path, *args, "-o", "app", OMPCL_FAULT=fault, OMPCL_JOBS="2")
    assert strict.returncode == 1
    assert strict.stderr.splitlines()[-1].startswith("lib.c: error: ompcl: ")


@pytest.mark.parametrize("extra,broken", [
    ([], "int broken(void) { return 1 }\n"),             # the user's syntax error
    (["-fnot-an-option"], ""),                           # the driver's own error, once
    (["-Wl,--no-such-linker-option"], ""),               # the link fails
    ([], "int twice(int v) { return v; }\n"),            # twice defined twice: link error
])
def test_split_failures_are_the_compilers_own(tmp_path, extra, broken):
    """Whatever fails in a split command, the user sees what gcc says, and its status."""
    args = _program(tmp_path)
    if broken:
        (tmp_path / "bad.c").write_text(broken)
    srcs = ["main.c", "off.c", "plain.c", "lib.c"] + (["bad.c"] if broken else [])
    ref = _gcc(tmp_path, "-fopenmp", *extra, *srcs, "-o", "ref")
    res = ompcl_cc(tmp_path, "-fopenmp", *extra, *srcs, "-o", "app", OMPCL_JOBS="2")
    assert ref.returncode != 0
    assert res.returncode == ref.returncode
    assert [m for m in res.stderr.splitlines() if "/tmp" not in m] == \
        [m for m in ref.stderr.splitlines() if "/tmp" not in m]   # (temporary objects)


def test_split_commands_a_compiler_receives(tmp_path):
    """One compile per source (the translated one with the runtime's header directory), a
    link of the objects in the sources' places; OMPCL_JOBS=1: one command, as before."""
    write_project(tmp_path)
    exe, log = fake_compiler(tmp_path)
    res = ompcl_cc(tmp_path, "-O2", "-fopenmp", "plain.c", "off.c", "-o", "app", "-lm",
                   OMPCL_CC=str(exe), FAKECC_LOG=str(log), OMPCL_JOBS="2")
    assert res.returncode == 0, res.stderr
    calls = fake_calls(log)
    assert len(calls) == 3
    (plain,) = [c for c in calls if "plain.c" in c]
    (off,) = [c for c in calls if "-idirafter" in c]
    (link,) = [c for c in calls if "app" in c]
    assert plain[:3] == ["-O2", "-fopenmp", "plain.c"] and plain[3:5] == ["-c", "-o"]
    assert off[:2] == ["-idirafter", str(RUNTIME_DIR)]
    assert off[2:4] == ["-O2", "-fopenmp"] and off[4].endswith("/off.c") and off[4] != "off.c"
    assert link[:4] == ["-O2", "-fopenmp", plain[-1], off[-1]]
    assert link[4:7] == ["-o", "app", "-lm"] and link[7:9] == ["-x", "none"]
    assert link[9].endswith("libompcl_rt.a")
    log.unlink()
    res = ompcl_cc(tmp_path, "-O2", "-fopenmp", "plain.c", "off.c", "-o", "app", "-lm",
                   OMPCL_CC=str(exe), FAKECC_LOG=str(log), OMPCL_JOBS="1")
    (one,) = fake_calls(log)
    assert one[:5] == ["-idirafter", str(RUNTIME_DIR), "-O2", "-fopenmp", "plain.c"]


def test_split_without_the_compiler(tmp_path):
    """A compiler that cannot be run: the driver's one error, as for one command."""
    _program(tmp_path)
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "main.c", "off.c", "lib.c",
                   OMPCL_CC=str(tmp_path / "no-such-cc"), OMPCL_JOBS="2")
    assert res.returncode == 1
    assert res.stderr.splitlines() == [f"ompcl: error: cannot run the compiler "
                                       f"'{tmp_path / 'no-such-cc'}': No such file or directory "
                                       "(set OMPCL_CC or --ompcl-compiler=)"]


def test_compiles_start_when_one_ends_without_being_pumped(tmp_path):
    """A queued compile starts as soon as a running one ends, while the driver is busy
    translating (it does not wait for the next ``pump``); results come back per source."""
    import time
    from ompcl.driver.cc import _Compiles
    jobs = _Compiles(("sh", "-c"))
    for k in range(3):
        jobs.add(k, [f"sleep 0.2; date +%s.%N > {tmp_path}/{k}; echo msg{k} >&2"],
                 tmp_path / f"{k}.err")
    jobs.pump(1)
    time.sleep(1.5)    # "translating": no pump, no finish
    assert all((tmp_path / str(k)).exists() for k in range(3))
    results = jobs.finish(2)
    assert results == {k: (0, f"msg{k}\n") for k in range(3)}


def test_compiles_without_the_compiler(tmp_path):
    from ompcl.driver.cc import NoCompiler, _Compiles
    jobs = _Compiles((str(tmp_path / "no-such-compiler"),))
    with pytest.raises(NoCompiler):
        jobs.add(0, ["x.c"], tmp_path / "0.err")
        jobs.finish(2)


CALLER = """#include <stdio.h>
double scale(double v);
double x[64];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 64; i++) x[i] = scale((double)i);
  printf("%f\\n", x[63]);
  return 0;
}
"""
CALLEE = """double y[64];
double scale(double v) { return 2.0 * v; }
void fill(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 64; i++) y[i] = scale((double)i);
}
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_each_source_preprocessed_once_per_command(tmp_path, jobs):
    """A source that is also a sibling of another (where its callees are defined) is
    preprocessed once in a command, not once for each translation that reads it."""
    (tmp_path / "main.c").write_text(CALLER)
    (tmp_path / "helper.c").write_text(CALLEE)
    log = tmp_path / "cpp.log"
    cpp = tmp_path / "cpp"
    cpp.write_text(f'#!/bin/sh\nfor a; do :; done\necho "$a" >> {log}\nexec gcc "$@"\n')
    cpp.chmod(0o755)
    res = ompcl_cc(tmp_path, "-fopenmp", "main.c", "helper.c", "-o", "app",
                   OMPCL_CPP=str(cpp), OMPCL_JOBS=jobs, OMPCL_SERVER="0")
    assert res.returncode == 0, res.stderr
    seen = log.read_text().split()
    assert seen.count("helper.c") == 1 and seen.count("main.c") == 1, seen
