"""Register promotion and vector access (transform.promote, transform.vectorize): which
elements a kernel keeps in private variables and which runs of a row it loads and stores as
vectors, the rewritten kernels and the remarks; then a program exercising every shape built
with gcc -fopenmp and through ompcl, run on the device with copying and zero-copy buffers, with
bounds checks, with the passes off, and with two pointer arguments that are one array: always
gcc's answer."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from ompcl.pipeline import Options, translate

from conftest import compare_outputs, gcc_build, load_stats, ompcl_build, run


def _translate(tmp_path: Path, src: str, **opts):
    p = tmp_path / "prog.c"
    p.write_text(src)
    return translate(str(p), Options(**opts))


def _ids(u, kind):
    return [m for m in u.remarks if m.id == kind]


GEMM = r"""
#define N 64
double A[N][N], B[N][N], C[N][N];
void gemm(int n, double alpha) {
    int i, j, k;
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < n; k++)
                C[i][j] += alpha * A[i][k] * B[k][j];
}
"""


def test_accumulator_kept_across_its_loop(tmp_path):
    u = _translate(tmp_path, GEMM, interchange=False)
    body = u.kernel_source
    # loaded before the loop, stored after it, both only when the loop runs at all
    assert re.search(r"const int ompcl_trip(\d+) = 0 < n;\s+double ompcl_reg(\d+);\s+"
                     r"if \(ompcl_trip\1\)\s+ompcl_reg\2 = OMPCL_AT\(double, \d+, \d+, "
                     r"C\[i\]\[j\]\);\s+for \(k = 0; k < n; k\+\+\)", body), body
    assert re.search(r"ompcl_reg(\d+) \+= \(alpha \* OMPCL_AT\(double, \d+, \d+, A\[i\]\[k\]\)\)"
                     r" \* OMPCL_AT\(double, \d+, \d+, B\[k\]\[j\]\);", body), body
    assert re.search(r"if \(ompcl_trip\d+\)\s+OMPCL_AT\(double, \d+, \d+, C\[i\]\[j\]\) = "
                     r"ompcl_reg\d+;", body), body
    [m] = _ids(u, "promote")
    assert "array 'C' in kernel 'ompcl_k0': 1 loop-invariant element (1 access per " \
           "iteration)" in m.message
    assert (m.loc.line, m.loc.col) == (10, 17)
    # declared arrays: nothing to check at launch
    assert not u.offloaded[0].distinct


def test_switched_off(tmp_path):
    for u in (_translate(tmp_path, GEMM, promote=False, vectorize=False),):
        assert "ompcl_reg" not in u.kernel_source and "vload" not in u.kernel_source
        assert not _ids(u, "promote") and not _ids(u, "vectorize")


def test_pointers_assumed_distinct_and_checked(tmp_path):
    src = GEMM.replace("double A[N][N], B[N][N], C[N][N];\nvoid gemm(int n, double alpha)",
                       "void gemm(int n, double alpha, double (*A)[N], double (*B)[N], "
                       "double (*C)[N])")
    u = _translate(tmp_path, src, interchange=False)
    assert _ids(u, "promote")
    assert set(u.offloaded[0].distinct) == {("A", "C"), ("B", "C")}
    assert u.host_source.count("ompcl_rt_distinct(") == 2
    [m] = _ids(u, "promote")
    assert "(assuming 'C' and 'A', 'C' and 'B' are different memory, checked at launch)" \
        in m.message


def test_updated_element_beside_others_is_missed(tmp_path):
    src = GEMM.replace("C[i][j] += alpha * A[i][k] * B[k][j];",
                       "{ C[i][j] += alpha * A[i][k] * B[k][j]; C[i][k] *= 0.5; }")
    u = _translate(tmp_path, src, interchange=False)
    [m] = _ids(u, "promote-missed")
    assert "'C[i][j]' in kernel 'ompcl_k0' is loop-invariant but not kept in a register: " \
           "the loop also uses other elements of the array" in m.message
    assert "ompcl_reg" not in re.sub(r"A\[i\]\[k\]", "", u.kernel_source.split("C[i][k]")[0]) \
        or "OMPCL_AT(double, 2" in u.kernel_source


LEFT_ALONE = [
    # (kernel body inside 'for (i)', the element that must stay a global access)
    # a private index array the loop writes: the element moves with it
    ("int idx[2]; for (k = 0; k < n; k++) { idx[0] = k % 4; s[i] += a[i][idx[0]]; }",
     "a[i][idx[0]]"),
    # a struct element updated through a member: not a register
    ("for (k = 0; k < n; k++) ps[i].x += a[i][k];", "ps[i]"),
    # the loop writes the array elsewhere: the read is not moved out of the loop
    ("for (k = 0; k < n; k++) { a[i][k] = a[i][0] * 0.5; }", "a[i][0]"),
]


@pytest.mark.parametrize("body,kept", LEFT_ALONE)
def test_left_in_memory(tmp_path, body, kept):
    src = ("#define N 16\nstruct P { double x, y; };\nstruct P ps[N];\n"
           "double a[N][N], s[N];\nvoid f(int n) { int i, k;\n"
           "#pragma omp parallel for private(k)\n"
           f"for (i = 0; i < n; i++) {{ {body} }}\n}}\n")
    u = _translate(tmp_path, src)
    assert u.offloaded, [m.format() for m in u.remarks]
    text = u.kernel_source
    loop = text[text.index("for (k = 0;"):]
    assert re.search(r"OMPCL_AT\(\w+, \d+, \d+, " + re.escape(kept) + r"\)", loop), text
    assert not any(m.id == "promote" and f"'{kept.split('[')[0]}'" in m.message
                   for m in u.remarks), [m.format() for m in u.remarks]


ROWS = r"""
#define N 32
double u[N][N][5], r[N][N][5];
float f[N][N][8];
void rows(double c, int n) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 1; j < n; j++) {
            double t = c * u[i][j][1];
            r[i][j][0] = u[i][j][0] * t + u[i][j][1];
            r[i][j][1] = u[i][j][1] * u[i][j][2] + t;
            r[i][j][2] = u[i][j][2] * u[i][j][3];
            r[i][j][3] = u[i][j][3] * u[i][j][4] - u[i][j][0];
            r[i][j][4] = u[i][j][4] + u[i][j - 1][4];
            f[i][j][0] = f[i][j][0] * 0.5f;
        }
}
"""


def test_reused_reads_and_vector_rows(tmp_path):
    u = _translate(tmp_path, ROWS)
    body = u.kernel_source
    # the five components of u[i][j] are each read twice: kept, and loaded as a vector of 4
    # and a scalar; the row r[i][j] stored as a vector of 4 and a scalar
    assert re.search(r"double4 ompcl_vec\d+ = vload4\(0, \(\(void\) OMPCL_AT\(double, \d+, "
                     r"\d+, u\[i\]\[j\]\[3\]\), &OMPCL_AT\(double, \d+, \d+, u\[i\]\[j\]\[0\]\)"
                     r"\)\);", body), body
    assert re.search(r"double ompcl_reg\d+ = ompcl_vec\d+\.s1;", body), body
    assert re.search(r"vstore4\(\(double4\)\(\(ompcl_reg\d+ \* t\) \+ ompcl_reg\d+, ", body), body
    assert re.search(r"OMPCL_AT\(double, \d+, \d+, r\[i\]\[j\]\[4\]\) = ompcl_reg\d+ \+ "
                     r"OMPCL_AT\(double, \d+, \d+, u\[i\]\[j - 1\]\[4\]\);", body), body
    promoted = {re.search(r"'(\w+)'", m.message)[1]: m.message for m in _ids(u, "promote")}
    assert set(promoted) == {"u"}
    assert "5 reused elements (11 reads)" in promoted["u"]
    vec = {re.search(r"'(\w+)'", m.message)[1]: m.message for m in _ids(u, "vectorize")}
    assert set(vec) == {"u", "r"}
    assert "1 vector load (vload4) for 4 scalar loads" in vec["u"]
    assert "1 vector store (vstore4) for 4 scalar stores" in vec["r"]
    # f is read and written: its one element is neither kept nor vectorised
    assert "f[i][j][0]) = OMPCL_AT(float" in body
    none = _translate(tmp_path, ROWS, vectorize=False).kernel_source
    assert "vload" not in none and "vstore" not in none and "ompcl_reg" in none


def test_dump_after_each_pass(tmp_path, capsys):
    _translate(tmp_path, ROWS, dump_after="promote")
    dump = capsys.readouterr().err
    assert "/* ---- after promote ---- */" in dump and "ompcl_reg" in dump
    assert "vload" not in dump
    _translate(tmp_path, ROWS, dump_after="vectorize")
    assert "vload4" in capsys.readouterr().err


PROGRAM = r"""#include <stdio.h>
#define N 48
double A[N][N], B[N][N], C[N][N];
double u[N][N][5], r[N][N][5];
float f[N][N][8], g[N][N][8];
int cnt[N][N][3], hist[N][3];

/* pointer parameters: the kernel keeps c[i][j] in a register assuming c is not a or b */
static void mm(int n, int m, double (*a)[N], double (*b)[N], double (*c)[N]) {
    int i, j, k;
#pragma omp parallel for private(j, k)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < m; k++)          /* m may be 0: the loop touches nothing */
                c[i][j] += a[i][k] * b[k][j];
}

static void rows(double s, int n) {
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 1; j < n; j++) {
            double t = s * u[i][j][1];
            if (t > 1.0)
                t = t - u[i][j][4];          /* a conditional read */
            r[i][j][0] = u[i][j][0] * t + u[i][j][1];
            r[i][j][1] = u[i][j][1] * u[i][j][2] + t;
            r[i][j][2] = u[i][j][2] * u[i][j][3];
            r[i][j][3] = u[i][j][3] * u[i][j][4] - u[i][j][0];
            r[i][j][4] = u[i][j][4] + u[i][j - 1][4];
        }
}

static void floats(int n) {
    int i, j, l;
#pragma omp parallel for private(j, l)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            float a0 = f[i][j][0], a1 = f[i][j][1], a2 = f[i][j][2], a3 = f[i][j][3];
            float a4 = f[i][j][4], a5 = f[i][j][5], a6 = f[i][j][6], a7 = f[i][j][7];
            g[i][j][0] = a0 + a7; g[i][j][1] = a1 * a6; g[i][j][2] = a2 - a5;
            g[i][j][3] = a3 + a4; g[i][j][4] = a4 * 2.0f; g[i][j][5] = a5 + a0;
            g[i][j][6] = a6; g[i][j][7] = a7 - a1;
            for (l = 0; l < 3; l++) {
                cnt[i][j][l] = 0;
            }
            cnt[i][j][1] = f[i][j][1] * 1.5f;   /* float -> int lanes of a vstore3 */
            cnt[i][j][0] = a5 - 0.5f;
            cnt[i][j][2] = -7;
            for (l = 0; l < n; l++) {        /* an int accumulator with a break */
                if (f[i][l][0] > 40.0f)
                    break;
                hist[i][j % 3] += (int)f[i][l][1] % 7;
            }
        }
}

int main(int argc, char **argv) {
    int i, j, m, step;
    double s1 = 0, s2 = 0, s3 = 0;
    long s4 = 0, s5 = 0;
    (void)argv;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            A[i][j] = 0.01 * ((i * 3 + j) % 13);
            B[i][j] = 0.02 * ((i + 5 * j) % 7);
            C[i][j] = 1.0;
            for (m = 0; m < 5; m++)
                u[i][j][m] = 0.5 + 0.1 * ((i + 2 * j + m) % 9);
            for (m = 0; m < 8; m++)
                f[i][j][m] = (float)((i * 7 + j * 3 + m) % 50);
        }
    for (step = 0; step < 3; step++) {
        mm(N, N - step, A, B, C);
        mm(N, 0, A, B, C);                    /* no iteration of the inner loop */
        mm(N / 2, N / 2, C, B, C);            /* c is a: the kernel must not run */
        rows(2.5 + step, N);
        floats(N - argc);
        u[step][2][1] += 0.25;                /* the host writes between kernels */
    }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            s1 += C[i][j];
            for (m = 0; m < 5; m++)
                s2 += r[i][j][m] * (m + 1);
            for (m = 0; m < 8; m++)
                s3 += g[i][j][m] * (m + 1);
            for (m = 0; m < 3; m++)
                s5 += cnt[i][j][m] * (m + 1);
        }
    for (i = 0; i < N; i++)
        for (m = 0; m < 3; m++)
            s4 += hist[i][m];
    printf("%.12e %.12e %.9e %ld %ld\n", s1, s2, s3, s4, s5);
    return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory, cache_dir):
    d = tmp_path_factory.mktemp("promote")
    src = d / "p.c"
    src.write_text(PROGRAM)
    ref = d / "ref"
    gcc_build(src, ref)
    expected = run(ref).stdout
    exe = d / "exe"
    res = ompcl_build([src], exe, "--model", "none", keep=d / "keep")
    assert res.returncode == 0, res.stderr
    return d, exe, expected


def test_program_translation_uses_both_passes(program):
    d, _, _ = program
    kernels = (d / "keep" / "p_kernel.cl").read_text()
    assert "ompcl_reg" in kernels and "ompcl_trip" in kernels
    assert "vload4(" in kernels and "vstore4(" in kernels
    assert "vload8(" in kernels and "vstore8(" in kernels
    assert "vstore3((int3)((int) (" in kernels


@pytest.mark.parametrize("zero_copy", ["0", "1"])
def test_program_on_device(program, zero_copy, opencl_available):
    d, exe, expected = program
    stats = d / f"s{zero_copy}.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy, OMPCL_STATS=str(stats))
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)
    if opencl_available:
        regions = {r["line"]: r for r in load_stats(stats)["regions"]}
        mm = regions[11]
        # the call with c == a ran on the host (3 of 9 calls), the others on the device
        assert mm["alias_declines"] == 3 and mm["device_runs"] == 6, mm
        assert all(r["device_runs"] == 3 for line, r in regions.items() if line != 11)


def test_program_with_bounds_checks(program):
    d, exe, expected = program
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_BOUNDS_CHECK="1")
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)


def test_program_passes_off_same_answer(program, tmp_path):
    d, _, expected = program
    exe = tmp_path / "off"
    res = ompcl_build([d / "p.c"], exe, "--model", "none", "--no-promote", "--no-vectorize",
                      keep=tmp_path / "k")
    assert res.returncode == 0, res.stderr
    kernels = (tmp_path / "k" / "p_kernel.cl").read_text()
    assert "ompcl_reg" not in kernels and "vload" not in kernels
    out = run(exe, OMPCL_DEVICE="opencl")
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)


@pytest.mark.parametrize("var,marker", [("OMPCL_PROMOTE", "double ompcl_reg"),
                                        ("OMPCL_VECTORIZE", "vload4(")])
def test_translation_cache_keys_the_switches(tmp_path, monkeypatch, var, marker):
    """`ompcl cc` caches translations: one made with a pass off is not served with it on."""
    from ompcl.driver import cache, cc
    from ompcl.frontend.preprocess import CppOptions
    monkeypatch.setenv("OMPCL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "rows.c"
    src.write_text(ROWS)
    texts = []
    for value in ("0", "1"):
        monkeypatch.setenv(var, value)
        texts.append(cache.cached(str(src), CppOptions(), cc._translate_file)[0])
    assert marker not in texts[0] and marker in texts[1]


def test_command_line_switches(tmp_path):
    import subprocess
    import sys
    src = tmp_path / "rows.c"
    src.write_text(ROWS)
    for flags, reg, vec in (((), True, True), (("--no-vectorize",), True, False),
                            (("--no-promote", "--no-vectorize"), False, False)):
        out = tmp_path / ("o" + "".join(flags))
        res = subprocess.run([sys.executable, "-m", "ompcl", "translate", "-v", str(src), "-o",
                              str(out), *flags], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        kernels = (out / "rows_kernel.cl").read_text()
        assert ("ompcl_reg" in kernels) == reg and ("vload4(" in kernels) == vec
        assert ("[promote]" in res.stderr) == reg and ("[vectorize]" in res.stderr) == vec


def test_assigned_loads_and_the_rows_they_change(tmp_path):
    src = ("#define N 16\nint t[N][4]; double a[N][5], s[N];\n"
           "void f(int n) { int i;\n#pragma omp parallel for\n"
           "for (i = 0; i < n; i++) {\n"
           "  double r1, r2, r3; int m, m2;\n"
           "  r1 = a[i][0]; r2 = a[i][1]; r3 = a[i][2];\n"      # three loads: a vload3
           "  a[i][0] = r2; a[i][1] = r3 + r1;\n"               # two stores: a vstore2
           "  m = i % 4; m = t[m][0]; m2 = t[m][1];\n"          # m changes the row: scalars
           "  s[i] = m + m2; }\n}\n")
    u = _translate(tmp_path, src)
    text = u.kernel_source
    assert re.search(r"double3 ompcl_vec(\d+) = vload3\(0, .*a\[i\]\[0\]\)\)\);\s+"
                     r"r1 = ompcl_vec\1\.s0;\s+r2 = ompcl_vec\1\.s1;\s+r3 = ompcl_vec\1\.s2;",
                     text), text
    assert re.search(r"vstore2\(\(double2\)\(r2, r3 \+ r1\), 0, ", text), text
    assert re.search(r"m = OMPCL_AT\(int, \d+, \d+, t\[m\]\[0\]\);\s+"
                     r"m2 = OMPCL_AT\(int, \d+, \d+, t\[m\]\[1\]\);", text), text


def test_reads_before_the_store_assume_nothing(tmp_path):
    """A reused read-only element read only before the one store that follows it (the
    statement's store comes after its reads) needs no launch-time overlap check; read again
    after a store to another pointer, it is not worth one (an aliased call would run on the
    host): left in memory."""
    head = ("void f(int n, double *q, const double *p) { int i;\n"
            "#pragma omp parallel for\nfor (i = 1; i < n; i++) { ")
    u = _translate(tmp_path, head + "double t = p[i - 1] * 2.0; q[i] = t + p[i - 1]; }\n}\n")
    assert _ids(u, "promote") and not u.offloaded[0].distinct
    assert "assuming" not in _ids(u, "promote")[0].message
    u = _translate(tmp_path, head + "q[i] = p[i - 1] * 2.0; q[i - 1] += p[i - 1]; }\n}\n")
    assert not _ids(u, "promote") and not u.offloaded[0].distinct


def test_subscripts_with_side_effects_stay_scalar(tmp_path):
    """A row whose subscript calls a function (which might have a side effect) is read and
    written element by element: one vector access would call it once."""
    src = ("#define N 16\ndouble a[N][4], b[N][4];\n"
           "static int g(int i) { return (i * 5) % N; }\n"
           "void f(int n) { int i;\n#pragma omp parallel for\n"
           "for (i = 0; i < n; i++) { double x, y;\n"
           "  x = a[g(i)][0]; y = a[g(i)][1];\n"
           "  b[g(i)][0] = x; b[g(i)][1] = y; }\n}\n")
    u = _translate(tmp_path, src)
    assert u.offloaded, [m.format() for m in u.remarks]
    assert "vload" not in u.kernel_source and "vstore" not in u.kernel_source
