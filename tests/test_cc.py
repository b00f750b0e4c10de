"""``ompcl cc`` as a drop-in compiler in real builds (gcc and clang): separate compilation
and linking, dependency files, output names, response files, pass-through modes, the safety
net (forced with OMPCL_FAULT), the runtime built apart from the user's headers, remarks on
request, and the NAS Makefile run with CC="ompcl cc".

The helpers at the top (a fake compiler that records its argv, the build environment) are
shared with test_driver_args.py and test_cc_polybench.py."""
from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, device_output, run
from test_cli import _project

OMPCL_CC = [sys.executable, "-m", "ompcl", "cc"]
RUNTIME_DIR = ROOT / "ompcl" / "runtime"
CLANG = next((c for c in ("clang-15", "clang") if shutil.which(c)), None)

#: a compiler that logs its argv (one JSON list per line) and creates its -o output
FAKE_CC = f"""#!{sys.executable}
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKECC_LOG"], "a") as fh:
    fh.write(json.dumps(args) + "\\n")
if "-o" in args and not args[args.index("-o") + 1].startswith("-"):
    open(args[args.index("-o") + 1], "w").close()
sys.exit(int(os.environ.get("FAKECC_RC", "0")))
"""

OFFLOADABLE = """#include <stdio.h>
#include "defs.h"
double x[N];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < N; i++) x[i] = 2.0 * i;
  printf("%.1f\\n", x[N - 1]);
  return 0;
}
"""
PLAIN = "int twice(int v) { return 2 * v; }\n"


def cc_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """The environment of a build: this checkout's ompcl, strict mode (translator bugs must
    fail tests), a private cache and temporary directory."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("OMPCL_STRICT", "1")
    env["OMPCL_CACHE_DIR"] = str(tmp_path / "cache")
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env["TMPDIR"] = str(tmp_path / "tmp")
    for k in ("OMPCL_REMARKS", "OMPCL_FAULT", "OMPCL_CC"):
        env.pop(k, None)
    env.update(extra)
    return env


def ompcl_cc(tmp_path: Path, *args: str, cwd: Path | None = None, **env: str
             ) -> subprocess.CompletedProcess:
    return subprocess.run([*OMPCL_CC, *args], cwd=cwd or tmp_path, capture_output=True,
                          text=True, env=cc_env(tmp_path, **env))


def fake_compiler(tmp_path: Path) -> tuple[Path, Path]:
    """A fake compiler script and the log it writes."""
    exe, log = tmp_path / "fakecc", tmp_path / "fakecc.log"
    exe.write_text(FAKE_CC)
    exe.chmod(0o755)
    return exe, log


def fake_calls(log: Path) -> list[list[str]]:
    """The commands the fake compiler ran, without the runtime library's own build."""
    if not log.exists():
        return []
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    rt = str(RUNTIME_DIR) + os.sep
    return [c for c in calls if not any(a.startswith(rt) and a.endswith(".c") for a in c)]


def write_project(tmp_path: Path) -> None:
    (tmp_path / "defs.h").write_text("#define N 1000\n")
    (tmp_path / "off.c").write_text(OFFLOADABLE)
    (tmp_path / "plain.c").write_text(PLAIN)


def _gcc(tmp_path: Path, *args: str, cc: str = "gcc") -> subprocess.CompletedProcess:
    return subprocess.run([cc, *args], cwd=tmp_path, capture_output=True, text=True)


COMPILERS = [pytest.param("gcc", id="gcc"),
             pytest.param(CLANG, id="clang", marks=pytest.mark.skipif(
                 CLANG is None, reason="clang not installed (apt-get install clang-15)"))]


# -- real builds ----------------------------------------------------------------------------
@pytest.mark.parametrize("compiler", COMPILERS)
def test_separate_compile_and_link(tmp_path, compiler, opencl_available):
    a, b = _project(tmp_path)
    inc = f"-I{tmp_path / 'inc'}"
    for src in (a, b):
        res = ompcl_cc(tmp_path, "-O2", "-fopenmp", inc, "-DSCALE=2.0", "-c", src.name,
                       OMPCL_CC=compiler)
        assert res.returncode == 0 and res.stderr == "", res.stderr
    assert (tmp_path / "a.o").exists() and (tmp_path / "b.o").exists()
    res = ompcl_cc(tmp_path, "-fopenmp", "a.o", "b.o", "-o", "app", "-lm", OMPCL_CC=compiler)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "s.json"
    out = run(tmp_path / "app", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.stdout.strip() == "500500.000000"
    if opencl_available:
        regions = json.loads(stats.read_text())["regions"]
        assert len(regions) == 2 and all(r["device_runs"] == 1 for r in regions)


@pytest.mark.parametrize("compiler", COMPILERS)
def test_output_names_as_the_compiler_gives_them(tmp_path, compiler):
    write_project(tmp_path)
    (tmp_path / "obj").mkdir()
    builds = [(["-c", "off.c"], "off.o"), (["-c", "off.c", "-o", "obj/x.o"], "obj/x.o"),
              (["-o", "obj/app1", "off.c"], "obj/app1"), (["off.c", "-o", "app2"], "app2"),
              (["off.c"], "a.out")]
    for args, out in builds:
        res = ompcl_cc(tmp_path, "-fopenmp", *args, OMPCL_CC=compiler)
        assert res.returncode == 0, res.stderr
        assert (tmp_path / out).exists(), (args, sorted(os.listdir(tmp_path)))
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "plain.c", "off.c", OMPCL_CC=compiler)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "plain.o").exists() and (tmp_path / "off.o").exists()
    assert run(tmp_path / "app2", OMPCL_DEVICE="opencl").stdout == "1998.0\n"


def _deps(path: Path) -> dict[str, set[str]]:
    """A make dependency file as {target: prerequisites}, paths normalised."""
    text = path.read_text().replace("\\\n", " ")
    rules: dict[str, set[str]] = {}
    for line in text.splitlines():
        if ":" in line:
            target, _, prereqs = line.partition(":")
            rules[os.path.normpath(target.strip())] = {os.path.normpath(p)
                                                       for p in prereqs.split()}
    return rules


@pytest.mark.parametrize("compiler", COMPILERS)
@pytest.mark.parametrize("flags,depfile", [
    (["-MD", "-MP", "-c", "src/off.c", "-o", "obj/off.o"], "obj/off.d"),
    (["-MMD", "-MF", "deps/off.dep", "-c", "src/off.c"], "deps/off.dep"),
    (["-MD", "-MT", "custom", "-c", "src/off.c"], "off.d"),
    (["-Wp,-MMD,deps/wp.d", "-c", "src/off.c", "-o", "obj/off.o"], "deps/wp.d"),
], ids=["MD-MP-o", "MMD-MF", "MD-MT", "Wp-MMD"])
def test_dependency_files_name_the_users_files(tmp_path, compiler, flags, depfile):
    (tmp_path / "src").mkdir()
    (tmp_path / "obj").mkdir()
    (tmp_path / "deps").mkdir()
    (tmp_path / "inc").mkdir()
    (tmp_path / "src" / "off.c").write_text(OFFLOADABLE.replace('"defs.h"', '"defs.h"\n'
                                                                '#include "more.h"'))
    (tmp_path / "src" / "defs.h").write_text("#define N 1000\n")
    (tmp_path / "inc" / "more.h").write_text("#define MORE 1\n")
    args = ["-fopenmp", "-Iinc", *flags]
    ref = _gcc(tmp_path, *args, cc=compiler)
    assert ref.returncode == 0, ref.stderr
    expected = _deps(tmp_path / depfile)
    (tmp_path / depfile).unlink()
    res = ompcl_cc(tmp_path, *args, OMPCL_CC=compiler)
    assert res.returncode == 0, res.stderr
    text = (tmp_path / depfile).read_text()
    assert "ompcl" not in text, text          # neither the temporary file nor ompcl_rt.h
    assert _deps(tmp_path / depfile) == expected


def test_response_file_build(tmp_path):
    write_project(tmp_path)
    (tmp_path / "build.rsp").write_text("-O2 -fopenmp '-DGREETING=\"hello world\"' off.c "
                                        "-o app")
    res = ompcl_cc(tmp_path, "@build.rsp")
    assert res.returncode == 0, res.stderr
    assert run(tmp_path / "app").stdout == "1998.0\n"


@pytest.mark.parametrize("mode", [["-E"], ["-S", "-o", "-"], ["-M"], ["-fsyntax-only"]])
def test_query_modes_pass_straight_through(tmp_path, mode):
    write_project(tmp_path)
    ref = _gcc(tmp_path, "-fopenmp", *mode, "off.c")
    res = ompcl_cc(tmp_path, "-fopenmp", *mode, "off.c")
    assert (res.returncode, res.stdout, res.stderr) == (ref.returncode, ref.stdout, ref.stderr)
    assert "ompcl" not in res.stdout


def test_stdin_passes_through(tmp_path):
    res = subprocess.run([*OMPCL_CC, "-fopenmp", "-x", "c", "-c", "-", "-o", "s.o"],
                         input=PLAIN, cwd=tmp_path, capture_output=True, text=True,
                         env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "s.o").exists()


def test_files_without_directives_or_openmp_are_not_translated(tmp_path):
    """Straight to the compiler (no temporary file): -fopenmp missing, or no pragma."""
    write_project(tmp_path)
    for args in (["-c", "off.c"], ["-fopenmp", "-c", "plain.c"]):
        res = ompcl_cc(tmp_path, *args, "-Rompcl")
        assert res.returncode == 0 and res.stderr == "", res.stderr


@pytest.mark.parametrize("compiler", COMPILERS)
def test_nas_is_built_with_ompcl_cc(tmp_path, compiler, opencl_available):
    cc = " ".join([*OMPCL_CC, f"--ompcl-compiler={compiler}"])
    res = subprocess.run(["make", "-C", str(ROOT / "nas_benchmarks"), "CLASS=S",
                          "BENCHMARKS=is", f"CC={cc}", f"BINDIR={tmp_path}"],
                         capture_output=True, text=True, env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr[-3000:]
    assert "remark" not in res.stderr and "ompcl" not in res.stderr, res.stderr
    stats = tmp_path / "is.json"
    out = run(tmp_path / "is.S.omp", OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0 and "SUCCESSFUL" in out.stdout, out.stdout[-2000:]
    if opencl_available:
        regions = json.loads(stats.read_text())["regions"]
        assert regions and all(r["device_runs"] >= 1 and r["fallback"] is None for r in regions)


def test_runtime_is_built_apart_from_the_users_headers(tmp_path):
    """A program shipping its own unistd.h (k-means does), built with -I., builds: the
    runtime never sees the user's include paths."""
    (tmp_path / "unistd.h").write_text(
        "/* the program's own unistd.h: needs the program's types */\n"
        "#ifndef KMEANS_UNISTD_H\n#define KMEANS_UNISTD_H\n"
        "int read_points(const char *file, point *out, int n);\n#endif\n")
    (tmp_path / "kmeans.c").write_text(
        "#include <stdio.h>\ntypedef struct { double x, y; } point;\n#include <unistd.h>\n"
        "point p[64];\nint read_points(const char *f, point *o, int n) { (void)f; (void)o;"
        " return n; }\n"
        "int main(void) {\n  int i;\n#pragma omp parallel for\n"
        "  for (i = 0; i < 64; i++) p[i].x = i;\n"
        "  double a[64];\n#pragma omp parallel for\n  for (i = 0; i < 64; i++) a[i] = 2 * i;\n"
        "  printf(\"%g %d\\n\", a[63], read_points(\"f\", p, 3));\n  return 0;\n}\n")
    assert _gcc(tmp_path, "-fopenmp", "-I.", "kmeans.c", "-o", "ref").returncode == 0
    res = ompcl_cc(tmp_path, "-fopenmp", "-I.", "kmeans.c", "-o", "kmeans")
    assert res.returncode == 0, res.stderr
    assert run(tmp_path / "kmeans").stdout == "126 3\n"


# -- diagnostics ----------------------------------------------------------------------------
@pytest.mark.parametrize("source", [
    "int main( {\n",
    "#include <stdio.h>\nint main(void) {\n  int i, a[4];\n#pragma omp parallel for\n"
    "  for (i = 0; i < 4; i++) a[i] = i\n  return 0;\n}\n",
    "void f(int n, double *a) {\n  int i;\n#pragma omp parallel for privat(i)\n"
    "  for (i = 0; i < n; i++) a[i] = 0;\n}\n",
], ids=["syntax", "syntax-in-omp-file", "bad-clause"])
def test_compiler_rejects_the_original(tmp_path, source):
    """The user sees the compiler's own messages and exit status, nothing from ompcl."""
    (tmp_path / "bad.c").write_text(source)
    ref = _gcc(tmp_path, "-fopenmp", "-c", "bad.c")
    assert ref.returncode != 0
    for env in ({}, {"OMPCL_STRICT": "0"}, {"OMPCL_FAULT": "cc-translation"}):
        res = ompcl_cc(tmp_path, "-fopenmp", "-c", "bad.c", **env)
        assert (res.returncode, res.stderr) == (ref.returncode, ref.stderr)
    assert not (tmp_path / "bad.o").exists()


def test_binary_input_is_the_compilers_business(tmp_path):
    (tmp_path / "bin.c").write_bytes(b"\x7fELF\x00\x01#pragma omp parallel for\n")
    ref = _gcc(tmp_path, "-fopenmp", "-c", "bin.c")
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "bin.c")
    assert (res.returncode, res.stderr) == (ref.returncode, ref.stderr)


MISSED = """#include <stdio.h>
double a[100];
int main(void) {
  int i;
#pragma omp parallel for
  for (i = 0; i < 100; i++) a[i] = i;
#pragma omp parallel for
  for (i = 0; i < 3; i++) printf("%d\\n", i);
  return 0;
}
"""


@pytest.mark.parametrize("flags,env,kinds", [
    ([], {}, []),
    (["-Rompcl-missed"], {}, ["not offloaded"]),
    (["-Rompcl"], {}, ["offloaded", "not offloaded"]),
    ([], {"OMPCL_REMARKS": "missed"}, ["not offloaded"]),
    ([], {"OMPCL_REMARKS": "all"}, ["offloaded", "not offloaded"]),
], ids=["quiet", "R-missed", "R-all", "env-missed", "env-all"])
def test_remarks_only_on_request(tmp_path, flags, env, kinds):
    (tmp_path / "m.c").write_text(MISSED)
    res = ompcl_cc(tmp_path, "-fopenmp", *flags, "-c", "m.c", **env)
    assert res.returncode == 0, res.stderr
    lines = res.stderr.splitlines()
    assert [("not offloaded" if "not offloaded" in m else "offloaded") for m in lines] == kinds
    assert all(m.startswith("m.c:") and ": remark: " in m for m in lines)


def test_usage_errors_and_help(tmp_path):
    res = ompcl_cc(tmp_path, "--ompcl-bogus", "-c", "a.c")
    assert res.returncode == 2
    assert res.stderr == "ompcl: error: unknown option '--ompcl-bogus' (see 'ompcl cc " \
                         "--ompcl-help')\n"
    res = ompcl_cc(tmp_path, "--ompcl-model=no-such-model.json", "-c", "a.c")
    assert res.returncode == 2 and not (tmp_path / "a.o").exists()
    assert res.stderr == "ompcl: error: --ompcl-model: no such model file " \
                         "'no-such-model.json'\n"
    res = ompcl_cc(tmp_path, "--ompcl-help")
    assert res.returncode == 0 and "--ompcl-strict" in res.stdout
    res = ompcl_cc(tmp_path, "--version", OMPCL_CC="no-such-compiler-xyz")
    assert res.returncode == 1
    assert res.stderr.startswith("ompcl: error: cannot run the compiler 'no-such-compiler-xyz'")


def test_start_up_imports_no_translator(tmp_path):
    """Commands with nothing to translate never import click, pycparser or jinja2."""
    write_project(tmp_path)
    res = subprocess.run([sys.executable, "-X", "importtime", "-m", "ompcl", "cc", "-c",
                          "plain.c"], cwd=tmp_path, capture_output=True, text=True,
                         env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr
    modules = {line.split("|")[-1].strip() for line in res.stderr.splitlines()}
    assert not modules & {"click", "pycparser", "jinja2", "ompcl.pipeline"}


# -- the safety net -------------------------------------------------------------------------
@pytest.mark.parametrize("compiler", COMPILERS)
def test_safety_net_builds_the_original(tmp_path, compiler):
    write_project(tmp_path)
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "off.c", OMPCL_STRICT="0",
                   OMPCL_FAULT="cc-translation", OMPCL_CC=compiler)
    assert res.returncode == 0, res.stderr
    (line,) = res.stderr.splitlines()
    head, _, tail = line.partition(" (translation and compiler messages saved in ")
    assert head == "off.c: warning: ompcl: translated file failed to compile; built the " \
                   "original instead"
    saved = Path(tail.removesuffix(") [ompcl-fallback]"))
    assert "ompcl_fault_injected" in (saved / "off.c").read_text()
    assert "error" in (saved / "compiler-messages.txt").read_text()
    res = ompcl_cc(tmp_path, "-fopenmp", "off.o", "-o", "app", OMPCL_CC=compiler)
    assert res.returncode == 0, res.stderr
    assert run(tmp_path / "app").stdout == "1998.0\n"


def test_safety_net_on_a_translator_crash(tmp_path):
    write_project(tmp_path)
    res = ompcl_cc(tmp_path, "-fopenmp", "off.c", "-o", "app", OMPCL_STRICT="0",
                   OMPCL_FAULT="cc-crash")
    assert res.returncode == 0, res.stderr
    (line,) = res.stderr.splitlines()
    assert line.startswith("off.c: warning: ompcl: cannot translate this file (internal error: "
                           "RuntimeError: fault injected (OMPCL_FAULT=cc-crash)); built the "
                           "original instead")
    assert run(tmp_path / "app").stdout == "1998.0\n"


@pytest.mark.parametrize("fault", ["cc-translation", "cc-crash"])
def test_strict_mode_makes_it_an_error(tmp_path, fault):
    write_project(tmp_path)
    for how in ({"OMPCL_STRICT": "1"}, {"OMPCL_STRICT": "0", "strict_flag": "1"}):
        flags = ["--ompcl-strict"] if how.pop("strict_flag", None) else []
        res = ompcl_cc(tmp_path, *flags, "-fopenmp", "-c", "off.c", OMPCL_FAULT=fault, **how)
        assert res.returncode == 1
        last = res.stderr.splitlines()[-1]
        assert last.startswith("off.c: error: ompcl: ") and last.endswith("[ompcl-fallback]")
        assert "strict mode" in last


def test_keep_directory(tmp_path):
    write_project(tmp_path)
    res = ompcl_cc(tmp_path, "-fopenmp", "--ompcl-keep=kept", "-c", "off.c")
    assert res.returncode == 0, res.stderr
    assert "ompcl_rt.h" in (tmp_path / "kept" / "off.c").read_text()


def test_translation_cache_hits_and_sees_header_changes(tmp_path):
    """A second build of the same inputs reuses the translation (the translator is not even
    imported); a changed header is a different input."""
    write_project(tmp_path)

    def build():
        res = subprocess.run([sys.executable, "-X", "importtime", *OMPCL_CC[1:], "-fopenmp",
                              "-Rompcl", "off.c", "-o", "app"], cwd=tmp_path,
                             capture_output=True, text=True, env=cc_env(tmp_path))
        assert res.returncode == 0, res.stderr
        imported = "ompcl.pipeline" in res.stderr
        remarks = [m for m in res.stderr.splitlines() if ": remark: " in m]
        return imported, remarks, run(tmp_path / "app").stdout

    first = build()
    assert first[0] and len(first[1]) == 1 and first[2] == "1998.0\n"
    assert list((tmp_path / "cache" / "cc-translations").glob("*/*.json"))
    assert build() == (False, first[1], first[2])
    (tmp_path / "defs.h").write_text("#define N 10\n")
    assert build() == (True, first[1], "18.0\n")


SHARED = """double scale(int i);
double total(int n) {
  double y[1000], s = 0; int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) y[i] = SHARED_BODY;
  for (i = 0; i < n; i++) s += y[i];
  return s;
}
"""


def _two_programs(tmp_path: Path, body: str, scales: tuple[str, str]) -> None:
    """Programs a/ and b/ that both compile ../shared/shared.c (PolyBench's layout), each
    with its own scale.c."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "shared.c").write_text(SHARED.replace("SHARED_BODY", body))
    for prog, factor in zip("ab", scales):
        (tmp_path / prog).mkdir()
        (tmp_path / prog / "main.c").write_text(
            '#include <stdio.h>\ndouble total(int);\n'
            'int main(void) { printf("%.1f\\n", total(1000)); return 0; }\n')
        (tmp_path / prog / "scale.c").write_text(f"double scale(int i) {{ return {factor} * i; }}\n")


def _build_in(tmp_path: Path, prog: str) -> tuple[bool, str]:
    """Build program ``prog``: (whether the translator ran, its output on the device, with
    both buffer modes)."""
    res = subprocess.run([sys.executable, "-X", "importtime", *OMPCL_CC[1:], "-fopenmp",
                          "main.c", "scale.c", "../shared/shared.c", "-o", "app"],
                         cwd=tmp_path / prog, capture_output=True, text=True,
                         env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr
    return "ompcl.pipeline" in res.stderr, device_output(tmp_path / prog / "app")


def test_a_file_shared_by_programs_is_translated_once(tmp_path):
    """A shared file whose translation only asked about the other sources (is ``scale``
    defined there?) is reused by another program whose sources give the same answers."""
    _two_programs(tmp_path, "0.5 * i", ("2.0", "3.0"))
    assert _build_in(tmp_path, "a") == (True, "249750.0\n")
    assert _build_in(tmp_path, "b") == (False, "249750.0\n")   # cache hit: no translator


def test_a_shared_file_that_inlines_a_sibling_is_not_reused_by_another_program(
        tmp_path, opencl_available):
    """shared.c's loop calls scale(), defined in each program's own scale.c: its kernel
    holds that program's scale, so the other program must not reuse it (gcc's answer for
    each program on the device)."""
    _two_programs(tmp_path, "scale(i)", ("2.0", "3.0"))
    assert _build_in(tmp_path, "a") == (True, "999000.0\n")
    assert _build_in(tmp_path, "b") == (True, "1498500.0\n")
    assert _build_in(tmp_path, "a") == (True, "999000.0\n")
    (tmp_path / "a" / "scale.c").write_text("double scale(int i) { return 4.0 * i; }\n")
    assert _build_in(tmp_path, "a") == (True, "1998000.0\n")


def test_recorded_questions_about_other_sources_are_asked_again(tmp_path):
    from ompcl.frontend.siblings import ask, same_answers, watched
    f = tmp_path / "x.c"
    f.write_text("int g(int);\n")
    with watched() as w:
        assert ask("defines-with-omp", [f], "helper") is False
        assert ask("mentions-call", [f], "g") is True
    answers = [[q, n, a] for (q, n), a in w.answers.items()]
    assert not w.read and same_answers(answers, [f])
    f.write_text("#pragma omp parallel\nint helper(int x) { return x; }\nint g(int);\n")
    assert not same_answers(answers, [f])
    assert not same_answers(answers, [])          # g( no longer mentioned anywhere


def test_safety_net_names_only_the_file_that_failed(tmp_path):
    """Two translated files in one command, one made invalid: one warning, for that file."""
    write_project(tmp_path)
    (tmp_path / "lib.c").write_text("double y[50];\nvoid fill(void) {\n  int i;\n"
                                    "#pragma omp parallel for\n  for (i = 0; i < 50; i++)"
                                    " y[i] = i;\n}\n")
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "off.c", "lib.c", OMPCL_STRICT="0",
                   OMPCL_FAULT="cc-translation:lib.c")
    assert res.returncode == 0, res.stderr
    (line,) = res.stderr.splitlines()
    assert line.startswith("lib.c: warning: ompcl: translated file failed to compile; ")
    assert (tmp_path / "off.o").exists() and (tmp_path / "lib.o").exists()


def test_build_time_benchmark_runs(tmp_path):
    """`ompcl bench build` (smoke test on one NAS benchmark; no timing is asserted)."""
    res = subprocess.run([sys.executable, "-m", "ompcl", "bench", "build", "--repeats", "1",
                          "--trees", "nas", "--class", "S", "--nas-benchmarks", "ep"],
                         cwd=ROOT, capture_output=True, text=True, env=cc_env(tmp_path))
    assert res.returncode == 0, res.stderr
    assert re.search(r"^nas S\s+[\d.]+s\s+[\d.]+s\s+[\d.]+x", res.stdout, re.M), res.stdout


def test_without_cache_directory(tmp_path):
    """OMPCL_CACHE_DIR=off: the runtime library is built for each linking command."""
    write_project(tmp_path)
    res = ompcl_cc(tmp_path, "-fopenmp", "off.c", "-o", "app", OMPCL_CACHE_DIR="off")
    assert res.returncode == 0, res.stderr
    assert run(tmp_path / "app").stdout == "1998.0\n"
    res = ompcl_cc(tmp_path, "-fopenmp", "-c", "off.c", OMPCL_CACHE_DIR="off")
    res = ompcl_cc(tmp_path, "-fopenmp", "off.o", "-o", "app2", OMPCL_CACHE_DIR="off")
    assert res.returncode == 0, res.stderr
    assert run(tmp_path / "app2").stdout == "1998.0\n"
    assert not (tmp_path / "cache").exists()
    assert list((tmp_path / "tmp").iterdir()) == []    # nothing left behind
