"""The command line as a user drives it: multi-file builds with -I/-D, --report, --emit,
--dump-after, and the statistics that show where each loop ran."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from ompcl.pipeline import translate
from ompcl.runtime import RUNTIME_FILES

from conftest import ROOT, compare_outputs, gcc_build, ompcl_build, run, same_output_on_device

MAIN = """#include <stdio.h>
#include "shared.h"
double x[SIZE];
int main(void) {
  int i; double s = 0;
  fill(x, SIZE);
#pragma omp parallel for reduction(+:s)
  for (i = 0; i < SIZE; i++) s += x[i] * SCALE;
  printf("%.6f\\n", s);
  return 0;
}
"""
FILL = """#include "shared.h"
void fill(double *p, int n) {
  int i;
#pragma omp parallel for
  for (i = 0; i < n; i++) p[i] = 0.5 * i;
}
"""


def _project(tmp_path: Path) -> list[Path]:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "shared.h").write_text("#define SIZE 1001\nvoid fill(double *p, int n);\n")
    a, b = tmp_path / "a.c", tmp_path / "b.c"
    a.write_text(MAIN)
    b.write_text(FILL)
    return [a, b]


def ompcl(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ompcl.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_multi_file_build_with_include_and_define(tmp_path, opencl_available):
    srcs = _project(tmp_path)
    exe = tmp_path / "app"
    res = ompcl_build(srcs, exe, f"-I{tmp_path / 'inc'}", "-DSCALE=2.0")
    assert res.returncode == 0, res.stderr
    ref = tmp_path / "ref"
    subprocess.run(["gcc", "-fopenmp", f"-I{tmp_path / 'inc'}", "-DSCALE=2.0", *map(str, srcs),
                    "-o", str(ref)], check=True)
    expected = run(ref).stdout
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.returncode == 0
    compare_outputs(expected, out.stdout, 1e-12)
    regions = json.loads(stats.read_text())["regions"]
    assert sorted(Path(r["file"]).name for r in regions) == ["a.c", "b.c"]
    if opencl_available:
        assert all(r["device_runs"] == 1 for r in regions), regions


def test_report_lists_every_loop(tmp_path):
    src = tmp_path / "r.c"
    src.write_text("#include <stdio.h>\nint a[10];\nint main(void){int i;\n"
                   "#pragma omp parallel for\nfor(i=0;i<10;i++) a[i]=i;\n"
                   "#pragma omp parallel for\nfor(i=0;i<10;i++) printf(\"%d\", a[i]);\n"
                   "return 0;}\n")
    res = ompcl("translate", str(src), "-o", str(tmp_path / "out"), "--report")
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith(f"{src}:4:1: offloaded  ompcl_k0")
    assert lines[1].startswith(f"{src}:6:1: host") and "printf" in lines[1]
    assert "printf" not in res.stderr  # the report says it; the remark would repeat it
    # the summary ranks the reasons by the loops they keep on the host
    assert lines[2] == "summary: 1 of 2 OpenMP loops offloaded"
    assert lines[3].split()[:6] == ["1", "loop", "kept", "on", "the", "host"]
    assert "[host-only-call]" in lines[3]


def test_report_into_a_closed_pipe_stops_quietly(tmp_path):
    """``ompcl translate --report | head -1``: the reader leaves before the report is
    written; ompcl stops as cat does (no internal error, status 141)."""
    src = tmp_path / "r.c"
    src.write_text("int a[10];\nint main(void){int i;\n#pragma omp parallel for\n"
                   "for(i=0;i<10;i++) a[i]=i;\nreturn 0;}\n")
    proc = subprocess.Popen([sys.executable, "-m", "ompcl.cli", "translate", str(src), "-o",
                             str(tmp_path / "out"), "--report"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    proc.stdout.close()  # before ompcl writes a line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "error" not in err and "Traceback" not in err, err


def test_emit_kernel_only(tmp_path):
    src = ROOT / "tests" / "golden" / "saxpy.c"
    out = tmp_path / "out"
    res = ompcl("translate", str(src), "-o", str(out), "--emit", "kernel")
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == ["saxpy_kernel.cl"]
    # the file is the pipeline's kernel program for the one offloaded loop
    u = translate(str(src))
    assert [k.name for k in u.kernels] == ["ompcl_k0"]
    assert (out / "saxpy_kernel.cl").read_text() == u.kernel_source


def test_translate_writes_host_kernel_and_runtime(tmp_path):
    out = tmp_path / "out"
    res = ompcl("translate", str(ROOT / "tests" / "golden" / "stencil.c"), "-o", str(out))
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [*RUNTIME_FILES, "stencil_host.c", "stencil_kernel.cl"])


SCALE = """#include <stdio.h>
#define N 4096
double a[N];
int main(void) {
  int i;
  double s = 0;
#pragma omp parallel for
  for (i = 0; i < N; i++) a[i] = 0.5 * i;
  for (i = 0; i < N; i += 512) s += a[i];
  printf("%.3f\\n", s);
  return 0;
}
"""


def test_translated_output_builds_with_its_copied_runtime(tmp_path):
    """What 'ompcl translate -o out/' writes is enough to build the program by hand: the host
    file and every runtime file copied next to it (gcc out/*.c), with the original's output."""
    src, out = tmp_path / "scale.c", tmp_path / "out"
    src.write_text(SCALE)
    res = ompcl("translate", str(src), "-o", str(out))
    assert res.returncode == 0, res.stderr
    exe, ref = tmp_path / "scale", tmp_path / "scale_ref"
    subprocess.run(["gcc", "-O2", "-fopenmp", *map(str, sorted(out.glob("*.c"))), "-o", str(exe),
                    "-lm", "-ldl"], check=True, capture_output=True, text=True, cwd=tmp_path)
    gcc_build(src, ref)
    got, want = run(exe, OMPCL_DEVICE="opencl"), run(ref)
    assert got.returncode == 0, got.stderr
    compare_outputs(want.stdout, got.stdout, 1e-12)


def test_dump_after_analyze(tmp_path):
    res = ompcl("translate", str(ROOT / "tests" / "golden" / "saxpy.c"), "-o", str(tmp_path),
                "--dump-after", "analyze")
    assert res.returncode == 0
    assert "region 0: offload" in res.stderr and "array y mode=rw" in res.stderr


def test_translated_program_without_opencl_library(tmp_path):
    """OMPCL_DEVICE=openmp never loads OpenCL: the program runs its OpenMP loops."""
    src = ROOT / "tests" / "corpus" / "06_matmul_global.c"
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    assert ompcl_build([src], exe).returncode == 0
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="openmp", OMPCL_STATS=str(stats))
    assert out.stdout == run(ref).stdout
    data = json.loads(stats.read_text())
    assert all(r["host_runs"] >= 1 and r["device_runs"] == 0 for r in data["regions"])


def test_no_embed_reads_kernels_beside_the_executable(tmp_path, opencl_available):
    src = ROOT / "tests" / "corpus" / "06_matmul_global.c"
    (tmp_path / "bin").mkdir()
    exe = tmp_path / "bin" / "mm"
    res = ompcl_build([src], exe, "--no-embed")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "bin" / "06_matmul_global_kernel.cl").exists()
    ref = tmp_path / "ref"
    gcc_build(src, ref)
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    assert out.stdout == run(ref).stdout
    if opencl_available:
        assert all(r["device_runs"] >= 1 for r in json.loads(stats.read_text())["regions"])


def test_bench_commands_report(tmp_path):
    res = ompcl("bench", "translate", "--repeat", "1", "--json", str(tmp_path / "t.json"))
    assert res.returncode == 0, res.stderr
    assert re.search(r"s per 1,000 source lines", res.stdout)
    rows = json.loads((tmp_path / "t.json").read_text())
    assert rows and all(r["seconds"] > 0 and r["lines"] > 0 for r in rows)
    res = ompcl("bench", "nas", "--classes", "S", "--benchmarks", "ep", "--threads", "1",
                "--build-dir", str(tmp_path / "nas"), "--repeats", "1", "-o", str(tmp_path))
    assert res.returncode == 0, res.stderr
    assert re.search(r"^ep\s+S\s+seq\s+1\s+\S+\s+\S+\s+SUCCESSFUL", res.stdout, re.M)
    res = ompcl("bench", "coherence", "--touches", "32")
    assert res.returncode == 0, res.stderr
    rows = {line[:52].strip(): line[52:].split() for line in res.stdout.splitlines()
            if line.startswith(("range probe", "page fault"))}
    assert len(rows) == 5 and all(float(us) >= 0 for us, _ in rows.values())
    assert rows["range probe, element not on the host (8 B back)"][1] == "8"


HEADERS = ["assert", "complex", "ctype", "errno", "fenv", "float", "inttypes", "limits",
           "locale", "math", "omp", "pthread", "setjmp", "signal", "stdarg", "stdbool", "stddef",
           "stdint", "stdio", "stdlib", "string", "sys/resource", "sys/stat", "sys/time",
           "sys/types", "time", "unistd", "wchar"]


def test_system_headers_parse(tmp_path):
    """glibc headers are analysed (under -U__GNUC__ and the parser prelude) and macros such
    as M_PI, DBL_EPSILON and INT_MAX reach the kernel as values: the translation, run on the
    device, prints gcc's values to the last digit."""
    text = ("".join(f"#include <{h}.h>\n" for h in HEADERS) +
            "double a[100];\nint main(void) { int i;\n#pragma omp parallel for\n"
            "for (i = 0; i < 100; i++) a[i] = sqrt((double)i) + DBL_EPSILON + "
            "INT_MAX * 1e-9 + M_PI;\nprintf(\"%.17g %.17g\\n\", a[0], a[99]);\n"
            "return a[99] > 13.0 ? 0 : 1; }\n")
    src = tmp_path / "hdrs.c"
    src.write_text(text)
    t = translate(str(src))
    assert len(t.offloaded) == 1 and not t.remarks[0].kind == "warning"
    same_output_on_device(src, tmp_path, 0.0, ran=lambda rs: rs[0]["device_runs"] == 1)


def test_header_that_needs_gnu_c_is_read_as_gnu_c(tmp_path):
    """A system header that stops without __GNUC__ (tgmath.h's #error) is read with it, as the
    compiler reads it: the file is considered loop by loop (the type-generic call has no
    device version, so that loop stays on the host), and its other loops reach the device."""
    src = tmp_path / "tg.c"
    src.write_text("#include <tgmath.h>\ndouble a[10];\nint main(void){int i;\n"
                   "#pragma omp parallel for\nfor(i=0;i<10;i++) a[i]=sqrt(i);\n"
                   "#pragma omp parallel for\nfor(i=0;i<10;i++) a[i]+=i;\nreturn 0;}\n")
    res = ompcl("translate", str(src), "-o", str(tmp_path / "out"), "--report")
    assert res.returncode == 0
    assert "cannot parse this file" not in res.stderr + res.stdout
    assert "tg.c:4:1: host" in res.stdout and "tg.c:6:1: offloaded" in res.stdout, res.stdout


def test_every_bench_command_is_click_with_help(capsys):
    """`ompcl bench X --help` is click's, as every other command's, and `python -m
    ompcl.bench.X` (the module's main) runs the same command: help, and a bad option as one
    `ompcl: error:` line with exit status 2."""
    import importlib

    from click.testing import CliRunner

    from ompcl.cli import main
    modules = {"build": "build_speed", "kernels": "kernels", "layout": "layout",
               "layout-cost": "layout_cost", "nas": "nas", "residency": "residency",
               "translate": "translate_speed"}
    res = CliRunner().invoke(main, ["bench", "--help"])
    assert res.exit_code == 0 and all(name in res.output for name in modules)
    for name, module in modules.items():
        res = CliRunner().invoke(main, ["bench", name, "--help"])
        assert res.exit_code == 0 and res.output.startswith("Usage: ") and "--help" in res.output
        mod = importlib.import_module(f"ompcl.bench.{module}")
        assert mod.main(["-h"]) == 0
        assert f"Usage: ompcl bench {name} [OPTIONS]" in capsys.readouterr().out
        assert mod.main(["--no-such-option"]) == 2
        assert capsys.readouterr().err == "ompcl: error: No such option '--no-such-option'.\n"


def test_report_of_a_file_without_work_sharing_loops_says_so(tmp_path):
    """A file whose OpenMP is only regions with barriers (streamcluster's manual partitioning)
    or none: the report says there is nothing to offload instead of printing nothing."""
    src = tmp_path / "n.c"
    src.write_text("#include <omp.h>\nint a[64];\nint main(void){\n#pragma omp parallel\n{ int t ="
                   " omp_get_thread_num();\n#pragma omp barrier\n a[t] = t; }\nreturn 0;}\n")
    res = ompcl("translate", str(src), "-o", str(tmp_path / "out"), "--report")
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "summary: no OpenMP work-sharing loops (nothing to " \
        "offload)"
