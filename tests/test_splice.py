"""Host splicing on the shapes real code has (issue 8): declarations whose storage class,
attributes or return type stand on earlier lines, pragmas inside preprocessor conditionals,
loops from macros, and their combinations. Each translation must compile with and without
-fopenmp, give the original's output, and run the loop on the device where it is offloaded."""
from __future__ import annotations

import subprocess

import pytest

from ompcl.pipeline import translate

from ompcl.runtime import RUNTIME_DIR

from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run

MAIN = """
int main(void) { int i; double s = 0; kern(N);
  for (i = 0; i < N; i++) s += a[i] * (i % 7 + 1);
  printf("%.3f\\n", s); return 0; }
"""
HEAD = "#include <stdio.h>\n#define N 1000\nstatic double a[N];\n"
LOOP = "for (i = 0; i < n; i++)\n    a[i] = i * 0.5;\n"

SHAPES = {
    # name: (function text, expected offloaded loops)
    "static_above": ("static\nvoid kern(int n)\n{\n  int i;\n#pragma omp parallel for\n  "
                     + LOOP + "}\n", 1),
    "return_type_lines": ("static inline\n__attribute__((noinline))\nvoid\nkern(int n)\n{\n"
                          "  int i;\n#pragma omp parallel for\n  " + LOOP + "}\n", 1),
    "comment_before": ("/* the kernel,\n   timed */\nstatic void /* here */ kern(int n)\n{\n"
                       "  int i;\n#pragma omp parallel for\n  " + LOOP + "}\n", 1),
    "ifdef_openmp": ("void kern(int n)\n{\n  int i;\n#ifdef _OPENMP\n#pragma omp parallel for\n"
                     "#endif\n  " + LOOP + "}\n", 1),
    "if_else_pragma": ("void kern(int n)\n{\n  int i;\n#if defined(_OPENMP)\n"
                       "#pragma omp parallel for schedule(static)\n#else\n/* serial */\n#endif\n  "
                       + LOOP + "}\n", 1),
    "nested_conditionals": ("static\nvoid kern(int n)\n{\n  int i;\n#ifndef NO_PAR\n"
                            "#  ifdef _OPENMP\n#    pragma omp parallel for\n#  endif\n#endif\n  "
                            + LOOP + "}\n", 1),
    "function_in_conditional": ("#ifdef USE_KERN\n#endif\nstatic\nvoid kern(int n)\n{\n  int i;\n"
                                "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\n  " + LOOP
                                + "}\n", 1),
    "team_in_ifdef": ("static\nvoid kern(int n)\n{\n  int i;\n#ifdef _OPENMP\n#pragma omp parallel\n"
                      "#endif\n  {\n#pragma omp for\n  " + LOOP + "  }\n}\n", 1),
    "loop_from_macro": ("#define LOOP for (i = 0; i < n; i++) a[i] = i * 0.5;\nstatic\n"
                        "void kern(int n)\n{\n  int i;\n#pragma omp parallel for\n  LOOP\n}\n", 0),
    # code above the directive in its conditional (Rodinia: omp_set_num_threads(4) there)
    "code_between_conditional": ("void kern(int n)\n{\n  int i;\n#ifdef _OPENMP\n  a[0] = 1;\n"
                                 "#pragma omp parallel for\n#endif\n  " + LOOP + "}\n", 1),
    "thread_count_in_conditional": ("#include <omp.h>\nvoid kern(int n)\n{\n  int i;\n"
                                    "#ifdef _OPENMP\n  omp_set_num_threads(2);\n  a[1] = "
                                    "omp_get_max_threads();\n#ifndef NO_PAR\n#if 1\n#endif\n"
                                    "  #pragma omp parallel for\n#endif\n#endif\n  " + LOOP
                                    + "}\n", 1),
    "code_in_else_branch": ("void kern(int n)\n{\n  int i;\n#ifndef _OPENMP\n#else\n  a[0] = 1;"
                            "\n#pragma omp parallel for\n#endif\n  " + LOOP + "}\n", 0),
    "define_in_conditional": ("void kern(int n)\n{\n  int i;\n#ifdef _OPENMP\n  a[0] = 1;\n"
                              "#define PAR 1\n#pragma omp parallel for\n#endif\n  " + LOOP
                              + "}\n", 0),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_splice_shape(name, tmp_path, opencl_available):
    func, offloaded = SHAPES[name]
    src = tmp_path / f"{name}.c"
    src.write_text(HEAD + func + MAIN)
    t = translate(str(src))
    assert len(t.offloaded) == offloaded, [r.reasons for r in t.regions]
    if not offloaded:
        assert [m.id for m in t.remarks if m.missed] in (["macro-expansion"], ["splice-text"])
    host = tmp_path / "host.c"
    host.write_text(t.host_source)
    for flags in (["-fopenmp"], ["-Wno-unknown-pragmas"]):  # with and without OpenMP
        res = subprocess.run(["gcc", "-std=gnu99", "-Wall", "-c", *flags, f"-I{RUNTIME_DIR}",
                              str(host), "-o", str(tmp_path / "h.o")],
                             capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
    ref = tmp_path / "ref"
    gcc_build(src, ref)
    exe = tmp_path / "x"
    assert ompcl_build([src], exe).returncode == 0
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats))
    compare_outputs(run(ref).stdout, out.stdout, 0)
    if opencl_available and offloaded:
        assert [r["device_runs"] for r in load_stats(stats)["regions"]] == [1]


@pytest.mark.parametrize("name", ["code_between_conditional", "thread_count_in_conditional"])
def test_reopened_conditionals_on_every_path(name, tmp_path):
    """A directive in a conditional that also holds code above it: the splice closes the
    conditional before the directive and opens it again around the host copy, so every path
    runs the code above once and the original loop on the host: the host path, the device
    with copying and zero-copy buffers, at 1, 2, 3 and 7 threads."""
    from conftest import build_both, device_runs, every_path
    ref, exe = build_both(tmp_path, HEAD + SHAPES[name][0] + MAIN, f"{name}.c")
    every_path(ref, exe, 0)
    assert device_runs(exe) in (None, [1])
