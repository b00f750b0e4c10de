"""Golden files and validity of emitted code.

Golden: small inputs with their expected ``_kernel.cl`` / ``_host.c``; rerun with
``pytest tests/test_golden.py --update-golden`` and review the diff when output changes on
purpose. Validity: every emitted host file compiles with gcc, every kernel re-parses as C
(OpenCL qualifiers removed) and builds with the OpenCL compiler when a device exists.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from pycparser import c_parser

from ompcl.pipeline import Options, translate

from conftest import CORPUS, ROOT

GOLDEN = Path(__file__).with_name("golden")
INPUTS = sorted(GOLDEN.glob("*.c"))
RUNTIME = ROOT / "ompcl" / "runtime"


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("src", INPUTS, ids=lambda p: p.stem)
def test_golden(src, request, monkeypatch):
    monkeypatch.chdir(ROOT)
    # no compiled-in models: the golden files must not change whenever models/ is retrained
    t = translate(_rel(src), Options(model="none", layout_cost="none"))
    outputs = {f"{src.stem}_kernel.cl": t.kernel_source, f"{src.stem}_host.c": t.host_source}
    for name, text in outputs.items():
        expected = GOLDEN / "expected" / name
        if request.config.getoption("--update-golden"):
            expected.write_text(text)
        assert expected.exists(), f"missing {expected}; run with --update-golden"
        assert text == expected.read_text(), f"{name} differs from the golden file"


_CL_QUALS = re.compile(r"\b(__kernel|__global|__local|__constant|__private)\b")


def kernel_as_c(source: str, *defines: str) -> str:
    """OpenCL C -> plain C that pycparser parses (preprocessed, qualifiers and pragmas
    dropped); ``defines`` as for the OpenCL compiler (``OMPCL_BOUNDS_CHECK``)."""
    text = _CL_QUALS.sub("", source)
    text = "\n".join(l for l in text.splitlines() if not l.startswith("#pragma"))
    cpp = subprocess.run(["gcc", "-E", "-P", *(f"-D{d}" for d in defines),
                          "-D__builtin_offsetof(t,m)=0", "-x", "c", "-"],
                         input=text, capture_output=True, text=True, check=True)
    types = "typedef unsigned char uchar; typedef unsigned short ushort; " \
            "typedef unsigned int uint; typedef unsigned long ulong;\n" \
            "int atomic_cmpxchg(volatile int *p, int a, int b);\n"
    # OpenCL vector types (vloadn/vstoren): a struct with the lanes s0, s1, ...
    types += "".join(f"typedef struct {{ {t} {', '.join(f's{x:x}' for x in range(n))}; }} "
                     f"{t.split()[-1]}{n};\n"
                     for t in ("char", "uchar", "short", "ushort", "int", "uint", "long",
                               "ulong", "float", "double") for n in (2, 3, 4, 8, 16))
    return types + cpp.stdout


VALIDITY = INPUTS + sorted(CORPUS.glob("*.c")) + [ROOT / "ompcl" / "examples" / "heat2d.c"]


@pytest.mark.parametrize("src", VALIDITY, ids=lambda p: p.stem)
def test_emitted_code_is_valid(src, tmp_path):
    t = translate(str(src))
    host = tmp_path / "host.c"
    host.write_text(t.host_source)
    res = subprocess.run(["gcc", "-std=gnu99", "-O2", "-Wall", "-Wextra", "-Werror=implicit",
                          "-fopenmp", f"-I{RUNTIME}", "-c", str(host), "-o", str(tmp_path / "h.o")],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "ompcl" not in res.stderr, f"warnings in generated code:\n{res.stderr}"
    variants = [v.spec.name for _, found in sorted(t.variants.items()) for v in found]
    programs = [(t.kernel_source, [f"ompcl_k{r.id}" for r in t.offloaded])]
    programs += [(t.variant_source, variants)] if variants else []
    for defines in ((), ("OMPCL_BOUNDS_CHECK",)) if t.offloaded else ():
        for source, names in programs:
            ast = c_parser.CParser().parse(kernel_as_c(source, *defines), "kernel.cl")
            kernels = [e.decl.name for e in ast.ext if hasattr(e, "decl")
                       and e.decl.name.startswith("ompcl_k")]
            assert kernels == names
    # the host file re-parses as well: analysis of the output finds the same OpenMP loops
    assert t.host_source.count("#pragma omp") >= len(t.offloaded)


@pytest.fixture(scope="module")
def cl_context():
    cl = pytest.importorskip("pyopencl")
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        pytest.skip("no OpenCL platform")
    devices = [d for p in platforms for d in p.get_devices()]
    if not devices:
        pytest.skip("no OpenCL device")
    return cl, cl.Context(devices[:1])


@pytest.mark.parametrize("src", VALIDITY, ids=lambda p: p.stem)
def test_kernels_build(src, cl_context):
    cl, ctx = cl_context
    t = translate(str(src))
    if not t.offloaded:
        pytest.skip("no kernel in this program")
    programs = [(t.kernel_source, {f"ompcl_k{r.id}" for r in t.offloaded})]
    if t.variant_source:   # the reordered kernels: a program of their own
        programs.append((t.variant_source,
                         {v.spec.name for found in t.variants.values() for v in found}))
    for options in ([], ["-DOMPCL_BOUNDS_CHECK"]):
        for source, names in programs:
            prog = cl.Program(ctx, source).build(options=options)
            assert {k.function_name for k in prog.all_kernels()} - {"ompcl_layout"} == names
