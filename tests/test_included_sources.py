"""Loops in user sources that the translated file includes (Parboil's ``#include
"computeQ.c"``, Rodinia's ``#include "kernel.c"``): the front end inlines such a file between
``#line`` markers (``frontend.includes``) and its loops are offloaded. Each program is built
by gcc and by ompcl (``ompcl build``, or ``ompcl cc`` in a Makefile's command) and run on the
host path, the default path and the device path with copying and zero-copy buffers, at 1 and
2 threads, with the original's output exactly (``__FILE__`` and ``__LINE__`` included); the
statistics show the device ran the included file's loops; remarks, errors and dependency
files name the included file. Includes that must stay files keep their meaning (and their
loops stay on the host, saying why)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ompcl.diagnostics import PragmaSyntaxError, SourceLoc
from ompcl.driver.args import classify, cpp_options, includes_directive, sources_to_translate
from ompcl.frontend.sourcemap import Inlined, SourceMap, combined_markers, inlined_files
from ompcl.pipeline import Options, translate

from conftest import every_path, gcc_build, load_stats, ompcl_build, run_env
from test_cc import _deps, ompcl_cc

#: the paths of a translated program: the host path, the default (the model decides), the
#: device path with copying and with zero-copy buffers, and the team of one's host path
PATHS = {"openmp": {"OMPCL_DEVICE": "openmp"}, "default": {"OMPCL_DEVICE": "auto"},
         "opencl-copy": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "0"},
         "opencl-zc": {"OMPCL_DEVICE": "opencl", "OMPCL_ZERO_COPY": "1"},
         "team1": {"OMPCL_DEVICE": "opencl", "OMPCL_FAULT": "launch"}}
THREADS = ("1", "2")

COMPUTE = """static void compute(int n, const float *a, float *b) {
  int i;
  long t = 0;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    b[i] = 2.0f * a[i] + 1.0f + (float)(__LINE__ - 6);
#pragma omp parallel for
  for (i = 0; i < n; i++) {
#pragma omp critical
    t += (long)b[i];
  }
  printf("compute: %s:%d %ld\\n", __FILE__, __LINE__, t);
}
"""

MAIN = """#include <stdio.h>
#include <stdlib.h>
#include "compute.c"

int main(void) {
  int n = 10000, i;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double s = 0;
  for (i = 0; i < n; i++) a[i] = (float)(i % 97);
  compute(n, a, b);
  for (i = 0; i < n; i++) s += b[i];
  printf("%.1f %s:%d\\n", s, __FILE__, __LINE__);
  free(a);
  free(b);
  return 0;
}
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def _device_ran(exe: Path, cwd: Path | None = None) -> list[dict] | None:
    """The statistics' regions of a run forced to the device, None without a device."""
    stats = exe.parent / f"{exe.name}-stats.json"
    out = subprocess.run([str(exe)], capture_output=True, text=True, cwd=cwd, timeout=120,
                         env=run_env(OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats)))
    assert out.returncode == 0, out.stderr
    st = load_stats(stats)
    return st["regions"] if st["device"]["available"] else None


def test_a_loop_of_an_included_source_runs_on_the_device(tmp_path):
    """Parboil's shape: main.c includes compute.c; its work-sharing loop is offloaded and
    gives gcc's answer on every path, and the statistics name the included file."""
    _write(tmp_path, {"main.c": MAIN, "compute.c": COMPUTE})
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(tmp_path / "main.c", ref)
    res = ompcl_build([tmp_path / "main.c"], exe)
    assert res.returncode == 0, res.stderr
    outs = every_path(ref, exe, 0.0, threads=THREADS, paths=PATHS)
    assert f"compute: {tmp_path / 'compute.c'}:12" in outs["1"]   # gcc's own __FILE__, __LINE__
    regions = _device_ran(exe)
    if regions is not None:
        assert [(r["file"], r["line"], r["device_runs"]) for r in regions] == \
            [(str(tmp_path / "compute.c"), 4, 1)]


def test_remarks_and_line_directives_name_the_included_file(tmp_path):
    _write(tmp_path, {"main.c": MAIN, "compute.c": COMPUTE})
    main, compute = str(tmp_path / "main.c"), str(tmp_path / "compute.c")
    unit = translate(main)
    remarks = [(m.loc, m.id) for m in unit.remarks if m.kind == "remark"]
    assert remarks == [(SourceLoc(compute, 4, 1), "offloaded"),
                       (SourceLoc(compute, 7, 1), "omp-construct")]
    assert [r.loc for r in unit.regions] == [SourceLoc(compute, 4, 1), SourceLoc(compute, 7, 1)]
    host = unit.host_source
    assert '#include "compute.c"' not in host
    assert f'#line 1 "{compute}" /* ompcl: inlined #include */' in host
    assert f'#line 4 "{main}" /* ompcl: end of inlined #include */' in host
    assert f'#line 4 "{compute}"\n#pragma omp parallel for' in host   # the host's own loop
    assert f'.file = "{compute}", .line = 4' in host                  # the region's descriptor
    assert inlined_files(host) == [compute]


def test_a_file_translated_from_another_directory(tmp_path, monkeypatch):
    """``src/main.c`` named from its parent directory: the included files are spelled as the
    compiler spells them (``src/util.h``, whose ``assert`` expands ``__FILE__``, reads the same
    in the combined text), and ``src/compute.c`` is inlined."""
    _write(tmp_path, {"src/main.c": MAIN.replace('#include "compute.c"',
                                                 '#include "util.h"\n#include "compute.c"'),
                      "src/compute.c": COMPUTE,
                      "src/util.h": "#include <assert.h>\n"
                                    "static int checked(int v) { assert(v >= 0); return v; }\n"})
    monkeypatch.chdir(tmp_path)
    unit = translate("src/main.c")
    assert [(r.loc, r.offload) for r in unit.regions] == [
        (SourceLoc("src/compute.c", 4, 1), True), (SourceLoc("src/compute.c", 7, 1), False)]


def test_errors_point_into_the_included_file(tmp_path):
    _write(tmp_path, {"main.c": MAIN, "compute.c": COMPUTE.replace(
        "#pragma omp parallel for\n  for (i = 0; i < n; i++)\n    b[i]",
        "#pragma omp parallel for privat(i)\n  for (i = 0; i < n; i++)\n    b[i]")})
    with pytest.raises(PragmaSyntaxError) as err:
        translate(str(tmp_path / "main.c"))
    assert err.value.format().startswith(f"{tmp_path / 'compute.c'}:4:26: error: unknown "
                                         "clause 'privat'")


KERNEL = """#include "params.h"
static void kernel(int n, const double *x, double *y) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    y[i] = FACTOR * x[i] + OFFSET;
  printf("kernel: %s:%d\\n", __FILE__, __LINE__);
}
"""

KMAIN = """#include <stdio.h>
#include <stdlib.h>
#include "kernel.c"

int main(void) {
  int n = 5000, i;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), s = 0;
  for (i = 0; i < n; i++) x[i] = i % 13;
  kernel(n, x, y);
  for (i = 0; i < n; i++) s += y[i];
  printf("%.1f %s:%d\\n", s, __FILE__, __LINE__);
  return 0;
}
"""


def test_ompcl_cc_with_the_included_source_in_an_include_directory(tmp_path):
    """A Makefile's command, ``ompcl cc -O2 -fopenmp -Ikernels main.c -o prog``: kernel.c is
    in ``kernels/`` (found through ``-I``) and its ``#include "params.h"`` finds
    ``kernels/params.h`` (beside it), not the main file's ``params.h``, as with gcc."""
    _write(tmp_path, {"main.c": KMAIN, "kernels/kernel.c": KERNEL,
                      "kernels/params.h": "#define FACTOR 3.0\n#define OFFSET 0.5\n",
                      "params.h": "#define FACTOR 5.0\n#define OFFSET 9.0\n"})
    args = ["-O2", "-fopenmp", "-Ikernels", "main.c"]
    subprocess.run(["gcc", *args, "-o", "ref"], cwd=tmp_path, check=True)
    res = ompcl_cc(tmp_path, *args, "-o", "prog", "-Rompcl")
    assert res.returncode == 0, res.stderr
    assert "kernels/kernel.c:4:1: remark: loop offloaded to OpenCL" in res.stderr
    assert "fallback" not in res.stderr
    outs = every_path(tmp_path / "ref", tmp_path / "prog", 0.0, threads=THREADS, paths=PATHS)
    assert "kernel: kernels/kernel.c:7" in outs["2"]
    regions = _device_ran(tmp_path / "prog", tmp_path)
    if regions is not None:
        assert [(r["file"], r["line"], r["device_runs"]) for r in regions] == \
            [("kernels/kernel.c", 4, 1)]


def test_dependency_files_name_the_included_source(tmp_path):
    _write(tmp_path, {"main.c": KMAIN, "kernels/kernel.c": KERNEL,
                      "kernels/params.h": "#define FACTOR 3.0\n#define OFFSET 0.5\n"})
    args = ["-fopenmp", "-Ikernels", "-MMD", "-MP", "-c", "main.c", "-o", "main.o"]
    subprocess.run(["gcc", *args], cwd=tmp_path, check=True)
    expected = _deps(tmp_path / "main.d")
    assert "kernels/kernel.c" in expected
    (tmp_path / "main.d").unlink()
    res = ompcl_cc(tmp_path, *args)
    assert res.returncode == 0, res.stderr
    assert _deps(tmp_path / "main.d") == expected


BODY = """#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] = x[i] * f + (double)__LINE__;
"""

SETUP = """static void setup(int n, double *x) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] = (double)(i % 31);
}
"""

TEAM = """static void smooth(int n, const double *a, double *b) {
  int i;
#pragma omp parallel
  {
#pragma omp for
    for (i = 1; i < n - 1; i++)
      b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3.0;
#pragma omp for
    for (i = 1; i < n - 1; i++)
      b[i] = b[i] * 2.0 + a[i];
  }
}
"""

BMAIN = """#include <stdio.h>
#include <stdlib.h>
#include "team.c"
#define USE_SETUP 1
#if USE_SETUP
#include "setup.c"
#else
#include "missing.c"
#endif
#if 0
#include "missing.c"
#endif
#include "plain.c"

static void scale(int n, double *x, double f) {
  int i;
#include "body.c"
}

int main(void) {
  int n = 3000, i;
  double *x = malloc(n * sizeof *x), *y = calloc(n, sizeof *y), s = 0;
  setup(n, x);
  scale(n, x, twice(3));
  smooth(n, x, y);
  for (i = 0; i < n; i++) s += x[i] + y[i];
  printf("%.1f %d\\n", s, __LINE__);
  return 0;
}
"""


def test_an_include_in_a_function_body_and_in_conditionals(tmp_path):
    """``#include "body.c"`` inside a function and ``#include "setup.c"`` in an ``#if``
    branch are inlined and offloaded, and so is ``team.c``'s parallel region (a team of
    one on the device path); the includes of skipped branches and of a file without OpenMP
    (``plain.c``) stay as written."""
    _write(tmp_path, {"main.c": BMAIN, "body.c": BODY, "setup.c": SETUP, "team.c": TEAM,
                      "plain.c": "static double twice(double v) { return 2.0 * v; }\n"})
    unit = translate(str(tmp_path / "main.c"))
    assert [(Path(r.loc.file).name, r.loc.line, r.offload) for r in unit.regions] == [
        ("team.c", 5, True), ("team.c", 8, True), ("setup.c", 3, True), ("body.c", 1, True)]
    assert [(Path(t.loc.file).name, t.loc.line, t.offload) for t in unit.teams] == [
        ("team.c", 3, True)]
    host = unit.host_source
    assert host.count('#include "missing.c"') == 2 and '#include "plain.c"' in host
    assert '#include "body.c"' not in host and '#include "setup.c"' not in host
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(tmp_path / "main.c", ref)
    res = ompcl_build([tmp_path / "main.c"], exe)
    assert res.returncode == 0, res.stderr
    every_path(ref, exe, 0.0, threads=THREADS, paths=PATHS)
    regions = _device_ran(exe)
    assert regions is None or sorted((Path(r["file"]).name, r["line"], r["device_runs"])
                                     for r in regions if r["kernel"]) == [
        ("body.c", 1, 1), ("setup.c", 3, 1), ("team.c", 5, 1), ("team.c", 8, 1)]


GUARDED = """#ifndef GUARDED_C
#define GUARDED_C
static void fill(int n, double *x) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] = 0.5 * i;
}
#endif
"""

ONCE = """#pragma once
static void once(int n, double *x) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] += 1.0;
}
"""

LEVEL = """static void level(int n, double *x) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] += __INCLUDE_LEVEL__;
}
"""

TWICE = """#pragma omp parallel for
  for (i = 0; i < n; i++)
    x[i] *= 1.5;
"""

RMAIN = """#include <stdio.h>
#include <stdlib.h>
#include "guarded.c"
#include "guarded.c"
#include "once.c"
#include "level.c"
static void up(int n, double *x) {
  int i;
#include "twice.c"
}
static void up2(int n, double *x) {
  int i;
#include "twice.c"
}
int main(void) {
  int n = 2000, i;
  double *x = malloc(n * sizeof *x), s = 0;
  fill(n, x);
  once(n, x);
  level(n, x);
  up(n, x);
  up2(n, x);
  for (i = 0; i < n; i++) s += x[i];
  printf("%.2f\\n", s);
  return 0;
}
"""


def test_includes_that_must_stay_files(tmp_path):
    """A guarded file included twice is inlined once (the second include finds its guard
    defined, as before); a file with ``#pragma once``, one included twice without a guard
    and one whose text reads otherwise inlined (``__INCLUDE_LEVEL__``) stay includes, their
    loops on the host with the reason; the program gives gcc's answer."""
    _write(tmp_path, {"main.c": RMAIN, "guarded.c": GUARDED, "once.c": ONCE,
                      "level.c": LEVEL, "twice.c": TWICE})
    unit = translate(str(tmp_path / "main.c"))
    verdicts = sorted((Path(r.loc.file).name, r.offload,
                       r.reasons[0].message if r.reasons else "") for r in unit.regions)
    assert [v[:2] for v in verdicts] == [("guarded.c", True), ("level.c", False),
                                         ("once.c", False), ("twice.c", False),
                                         ("twice.c", False)]
    assert "would not preprocess to the same code" in verdicts[1][2]
    assert "'#pragma once'" in verdicts[2][2]
    assert "included more than once" in verdicts[3][2]
    assert unit.host_source.count('#include "guarded.c"') == 1
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(tmp_path / "main.c", ref)
    res = ompcl_build([tmp_path / "main.c"], exe)
    assert res.returncode == 0, res.stderr
    every_path(ref, exe, 0.0, threads=("2",), paths=PATHS)


def test_a_nested_include_the_including_directory_would_answer_keeps_the_file(tmp_path):
    """kernel.c's ``#include "params.h"`` finds ``hdr/params.h`` (nothing beside kernel.c);
    inlined into main.c it would find main.c's own ``params.h`` first: not inlined."""
    _write(tmp_path, {"main.c": KMAIN, "kernels/kernel.c": KERNEL,
                      "hdr/params.h": "#define FACTOR 3.0\n#define OFFSET 0.5\n",
                      "params.h": "#define FACTOR 5.0\n#define OFFSET 9.0\n"})
    flags = ("-I" + str(tmp_path / "kernels"), "-I" + str(tmp_path / "hdr"))
    unit = translate(str(tmp_path / "main.c"), Options(cpp=cpp_options(flags)))
    assert not unit.regions[0].offload
    assert "would find another file" in unit.regions[0].reasons[0].message
    assert unit.host_source == (tmp_path / "main.c").read_text()


def test_nothing_offloaded_leaves_the_file_as_written(tmp_path):
    """An inlined file whose loops all stay on the host: the host output is the user's own
    text, include and all (``ompcl cc`` then compiles the original)."""
    _write(tmp_path, {"main.c": MAIN, "compute.c": COMPUTE.replace(
        "b[i] = 2.0f * a[i]", "b[i] = (float)rand() * 0.0f + 2.0f * a[i]")})
    unit = translate(str(tmp_path / "main.c"))
    assert not any(r.offload for r in unit.regions)
    assert unit.host_source == MAIN


def test_the_driver_translates_a_file_whose_include_holds_the_loops(tmp_path):
    """A main file without directives is translated when a quoted include of it finds a
    user file with one (here a header, which no sibling-source rule would look at)."""
    _write(tmp_path, {"main.c": '#include <stdio.h>\n#include "k.h"\n#include "p.h"\n'
                                "int main(void) { return 0; }\n",
                      "inc/k.h": "#pragma omp parallel for\n", "p.h": "int p;\n",
                      "other.c": '#include "p.h"\nint main(void) { return 0; }\n'})
    cmd = classify(["-fopenmp", "-I" + str(tmp_path / "inc"), str(tmp_path / "main.c"),
                    str(tmp_path / "other.c")])
    assert includes_directive(str(tmp_path / "main.c"), cmd)
    assert not includes_directive(str(tmp_path / "other.c"), cmd)
    assert [cmd.args[k] for k in sources_to_translate(cmd)] == [str(tmp_path / "main.c")]


SMAP = SourceMap("m.c", (Inlined("a.c", 3, 3, 4), Inlined("b.c", 10, 15, 2)))


@pytest.mark.parametrize("combined,user", [
    (1, ("m.c", 1)), (3, ("m.c", 3)), (4, ("a.c", 1)), (7, ("a.c", 4)), (8, ("m.c", 3)),
    (9, ("m.c", 4)), (14, ("m.c", 9)), (15, ("m.c", 10)), (16, ("b.c", 1)), (17, ("b.c", 2)),
    (18, ("m.c", 10)), (19, ("m.c", 11)), (30, ("m.c", 22))])
def test_source_map_lines(combined, user):
    """The combined text's lines <-> the user's files' (a marker line: the include's)."""
    assert SMAP.user(combined) == user
    if combined not in (3, 8, 15, 18):
        assert SMAP.combined(*user) == combined


def test_combined_markers_move_only_the_files_own_lines():
    pre = ('# 1 "m.c"\nint x;\n# 1 "a.c"\nint a;\n# 1 "h.h" 1\nint h;\n# 3 "a.c" 2\n'
           'int a2;\n# 4 "m.c"\nint y;\n')
    assert combined_markers(pre, SMAP) == (
        '# 1 "m.c"\nint x;\n# 4 "m.c"\nint a;\n# 1 "h.h" 1\nint h;\n# 6 "m.c" 2\n'
        'int a2;\n# 9 "m.c"\nint y;\n')
    assert SMAP.message("its loop at line 5 stays on the host (line 9)") == \
        "its loop at a.c:2 stays on the host (line 4)"
