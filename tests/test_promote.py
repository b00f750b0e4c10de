"""Register promotion and vector access (transform.promote, transform.vectorize): which
elements a kernel keeps in private variables and which runs of a row it loads and stores as
vectors, the rewritten kernels and the remarks; then a program exercising every shape built
with gcc -fopenmp and through ompcl, run on the device with copying and zero-copy buffers, with
bounds checks, with the passes off, and with two pointer arguments that are one array: always
gcc's answer."""
from __future__ import annotations

from pathlib import Path

import pytest

from ompcl.pipeline import Options, translate

import kernelfacts as kf
from conftest import (compare_outputs, gcc_build, load_stats, ompcl_build, run,
                      same_output_on_device)


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
    """Guards promotion of a loop-invariant accumulator: C[i][j] is read once before the k
    loop and written once after it, both under the loop's trip guard (a loop of no iteration
    touches nothing), and the loop itself no longer touches C. The same kernel shape run on
    the device against gcc: ``test_program_on_device`` (mm, with m == 0 too)."""
    u = _translate(tmp_path, GEMM, interchange=False)
    body = kf.kernel(u).body
    assert kf.scalar_accesses(kf.loop(body, "k")) == {"A": 1, "B": 1}
    assert kf.guarded(body, "C") == (2, 2)     # one load, one store, both guarded
    off = kf.kernel(_translate(tmp_path, GEMM, interchange=False, promote=False)).body
    assert kf.scalar_accesses(kf.loop(off, "k")) == {"A": 1, "B": 1, "C": 1}
    [m] = _ids(u, "promote")
    assert "array 'C' in kernel 'ompcl_k0': 1 loop-invariant element (1 access per " \
           "iteration)" in m.message
    assert (m.loc.line, m.loc.col) == (10, 17)
    # declared arrays: nothing to check at launch
    assert not u.offloaded[0].distinct


def test_switched_off(tmp_path):
    """Guards the switches: with both passes off, no remark, no vector access, and every
    element of the rows kernel accessed where the user wrote it."""
    u = _translate(tmp_path, GEMM, promote=False, vectorize=False, interchange=False)
    assert kf.scalar_accesses(kf.loop(kf.kernel(u).body, "k"))["C"] == 1
    assert not _ids(u, "promote") and not _ids(u, "vectorize")
    rows = kf.kernel(_translate(tmp_path, ROWS, promote=False, vectorize=False)).body
    assert not kf.vector_accesses(rows)
    assert kf.scalar_accesses(rows) == {"u": 12, "r": 5, "f": 2}


def test_pointers_assumed_distinct_and_checked(tmp_path):
    """Guards the launch-time overlap check promotion over pointers relies on: the region
    records the pairs assumed distinct (the host checks them at each launch; an aliased call
    running on the host is counted in ``test_program_on_device``'s alias_declines)."""
    src = GEMM.replace("double A[N][N], B[N][N], C[N][N];\nvoid gemm(int n, double alpha)",
                       "void gemm(int n, double alpha, double (*A)[N], double (*B)[N], "
                       "double (*C)[N])")
    u = _translate(tmp_path, src, interchange=False)
    assert _ids(u, "promote")
    assert set(u.offloaded[0].distinct) == {("A", "C"), ("B", "C")}
    assert kf.scalar_accesses(kf.loop(kf.kernel(u).body, "k")) == {"A": 1, "B": 1}
    [m] = _ids(u, "promote")
    assert "(assuming 'C' and 'A', 'C' and 'B' are different memory, checked at launch)" \
        in m.message


def test_updated_element_beside_others_is_missed(tmp_path):
    """Guards against promoting an element whose row the loop also updates elsewhere
    (C[i][k] may be C[i][j]): the remark says why, and C's accesses in the loop are the
    user's two updates (read and write each)."""
    src = GEMM.replace("C[i][j] += alpha * A[i][k] * B[k][j];",
                       "{ C[i][j] += alpha * A[i][k] * B[k][j]; C[i][k] *= 0.5; }")
    u = _translate(tmp_path, src, interchange=False)
    [m] = _ids(u, "promote-missed")
    assert "'C[i][j]' in kernel 'ompcl_k0' is loop-invariant but not kept in a register: " \
           "the loop also uses other elements of the array" in m.message
    assert kf.scalar_accesses(kf.loop(kf.kernel(u).body, "k"))["C"] == 2
    main = src + "int main(void) { int i, j;\n for (i = 0; i < N; i++) for (j = 0; j < N; " \
        "j++) { A[i][j] = (i + j) % 5; B[i][j] = (i * j) % 3; C[i][j] = i - j; }\n" \
        " gemm(N, 0.5);\n for (i = 0; i < N; i++) printf(\"%.15e\\n\", C[i][(i * 7) % N]);" \
        "\n return 0; }\n"
    p = tmp_path / "missed.c"
    p.write_text("#include <stdio.h>\n" + main)
    same_output_on_device(p, tmp_path, 1e-12, ran=lambda rs: rs[0]["device_runs"] == 1)


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
    """Guards against keeping in a register an element that may change in the loop: the k
    loop accesses the array exactly as often as with promotion off, and no remark claims it;
    the translation gives gcc's answer on the device."""
    src = ("#include <stdio.h>\n#define N 16\nstruct P { double x, y; };\nstruct P ps[N];\n"
           "double a[N][N], s[N];\nvoid f(int n) { int i, k;\n"
           "#pragma omp parallel for private(k)\n"
           f"for (i = 0; i < n; i++) {{ {body} }}\n}}\n")
    u = _translate(tmp_path, src)
    assert u.offloaded, [m.format() for m in u.remarks]
    array = kept.split("[")[0]
    in_loop = kf.scalar_accesses(kf.loop(kf.kernel(u).body, "k"))
    off = _translate(tmp_path, src, promote=False, vectorize=False)
    assert in_loop[array] == kf.scalar_accesses(kf.loop(kf.kernel(off).body, "k"))[array] > 0
    assert not any(m.id == "promote" and f"'{array}'" in m.message
                   for m in u.remarks), [m.format() for m in u.remarks]
    p = tmp_path / "main.c"
    p.write_text(src + "int main(void) { int i, k; for (i = 0; i < N; i++) { ps[i].x = i; "
                 "s[i] = 0; for (k = 0; k < N; k++) a[i][k] = (i * 3 + k) % 7; }\n f(N);\n"
                 " for (i = 0; i < N; i++) printf(\"%g %g %g\\n\", s[i], ps[i].x, "
                 "a[i][i]);\n return 0; }\n")
    same_output_on_device(p, tmp_path, 1e-12, ran=lambda rs: rs[0]["device_runs"] == 1)


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
    """Guards read reuse and vector rows: the five components of u[i][j], each read twice,
    are read once (a vload4 and one scalar: 2 scalar reads of u are left, u[i][j][4] and
    u[i][j-1][4]); the row r[i][j] is stored as a vstore4 and one scalar; f, read and written,
    is neither kept nor vectorised. With vectorisation off the reuse stays (scalar reads of
    u: 6). The same loop on the device against gcc: ``test_program_on_device`` (rows)."""
    u = _translate(tmp_path, ROWS)
    body = kf.kernel(u).body
    assert kf.vector_accesses(body) == {("vload4", "u"): 1, ("vstore4", "r"): 1}
    assert kf.scalar_accesses(body) == {"u": 2, "r": 1, "f": 2}
    promoted = {m.message.split("'")[1]: m.message for m in _ids(u, "promote")}
    assert set(promoted) == {"u"}
    assert "5 reused elements (11 reads)" in promoted["u"]
    vec = {m.message.split("'")[1]: m.message for m in _ids(u, "vectorize")}
    assert set(vec) == {"u", "r"}
    assert "1 vector load (vload4) for 4 scalar loads" in vec["u"]
    assert "1 vector store (vstore4) for 4 scalar stores" in vec["r"]
    none = kf.kernel(_translate(tmp_path, ROWS, vectorize=False)).body
    assert not kf.vector_accesses(none)
    assert kf.scalar_accesses(none) == {"u": 6, "r": 5, "f": 2}


def test_dump_after_each_pass(tmp_path, capsys):
    """Guards --dump-after for both passes: each dump is the program as that pass left it
    (after 'promote', what 'vectorize' would leave with vectorisation off; after
    'vectorize', something else), not the final one nor the one before."""
    def dump(after: str, **opts) -> str:
        _translate(tmp_path, ROWS, dump_after=after, **opts)
        text = capsys.readouterr().err
        assert text.startswith(f"/* ---- after {after} ---- */"), text[:200]
        return text.split("\n", 1)[1]
    promoted = dump("promote")
    assert promoted == dump("vectorize", vectorize=False)
    assert promoted != dump("vectorize") and promoted != dump("promote", promote=False)


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
    """Guards that the executed program exercises both passes (so its runs below test them):
    mm (interchanged to (k, j)) keeps a[i][k] across its guarded j loop, rows and floats load
    and store vectors of 4, 8 and 3 lanes (float elements stored into an int row's lanes),
    floats keeps hist's int accumulator across a loop with a break (loaded and stored under
    the trip guard)."""
    d, _, _ = program
    u = translate(str(d / "p.c"))
    mm, rows, floats = (kf.kernel(u, f"ompcl_k{n}").body for n in range(3))
    assert kf.scalar_accesses(kf.loop(mm, "j")) == {"b": 1, "c": 1}
    assert kf.guarded(mm, "a") == (1, 1)
    assert kf.vector_accesses(rows) == {("vload4", "u"): 1, ("vstore4", "r"): 1}
    assert kf.vector_accesses(floats) == {("vload8", "f"): 1, ("vstore8", "g"): 1,
                                          ("vstore3", "cnt"): 1}
    assert kf.scalar_accesses(kf.loop(floats, "l", 1)) == {"f": 2}
    assert kf.guarded(floats, "hist") == (2, 2)
    assert {m.message.split("'")[1] for m in _ids(u, "vectorize")} == {"u", "r", "f", "g",
                                                                      "cnt"}


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


def test_program_on_host(program):
    """The host path of the same build (the original loops): gcc's answer."""
    d, exe, expected = program
    out = run(exe, OMPCL_DEVICE="openmp")
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)


def test_program_with_bounds_checks(program):
    d, exe, expected = program
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_BOUNDS_CHECK="1")
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-9)


def test_program_passes_off_same_answer(program, tmp_path):
    """Guards the command line's switches and the passes' neutrality: built with
    --no-promote --no-vectorize no remark of either pass is made, and the program gives the
    same answer on the device."""
    d, _, expected = program
    exe = tmp_path / "off"
    res = ompcl_build([d / "p.c"], exe, "--model", "none", "--no-promote", "--no-vectorize",
                      "-v")
    assert res.returncode == 0, res.stderr
    assert "[promote]" not in res.stderr and "[vectorize]" not in res.stderr
    u = translate(str(d / "p.c"), Options(promote=False, vectorize=False))
    assert not any(kf.vector_accesses(k.body) for k in u.kernels)
    assert not _ids(u, "promote") and not _ids(u, "vectorize")
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy)
        assert out.returncode == 0, out.stderr
        compare_outputs(expected, out.stdout, 1e-9)


@pytest.mark.parametrize("var,remark", [("OMPCL_PROMOTE", "[promote]"),
                                        ("OMPCL_VECTORIZE", "[vectorize]")])
def test_translation_cache_keys_the_switches(tmp_path, monkeypatch, var, remark):
    """`ompcl cc` caches translations: one made with a pass off is not served with it on
    (the cached entry's remarks say which passes ran)."""
    from ompcl.driver import cache, cc
    from ompcl.frontend.preprocess import CppOptions
    monkeypatch.setenv("OMPCL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "rows.c"
    src.write_text(ROWS)
    done = []
    for value in ("0", "1", "0"):
        monkeypatch.setenv(var, value)
        remarks = cache.cached(str(src), CppOptions(), cc._translate_file)[1]
        done.append(any(line.endswith(remark) for _, line in remarks))
    assert done == [False, True, False]


def test_command_line_switches(tmp_path):
    """Guards `ompcl translate`'s --no-promote and --no-vectorize: the remarks of each pass
    appear exactly when it is on (what each pass does: the tests above)."""
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
        assert (out / "rows_kernel.cl").exists()
        assert ("[promote]" in res.stderr) == reg and ("[vectorize]" in res.stderr) == vec


ASSIGNED = ("#include <stdio.h>\n#define N 16\nint t[N][4]; double a[N][5], s[N];\n"
            "void f(int n) { int i;\n#pragma omp parallel for\n"
            "for (i = 0; i < n; i++) {\n"
            "  double r1, r2, r3; int m, m2;\n"
            "  r1 = a[i][0]; r2 = a[i][1]; r3 = a[i][2];\n"      # three loads: a vload3
            "  a[i][0] = r2; a[i][1] = r3 + r1;\n"               # two stores: a vstore2
            "  m = i % 4; m = t[m][0]; m2 = t[m][1];\n"          # m changes the row: scalars
            "  s[i] = m + m2; }\n}\n")


def test_assigned_loads_and_the_rows_they_change(tmp_path):
    """Guards vectorising assignments (not only declarations): a's three loads become one
    vload3 and its two stores one vstore2; t's row changes between its two loads (m is
    assigned from the first), so they stay two scalar loads. Run on the device: gcc's
    answer."""
    u = _translate(tmp_path, ASSIGNED)
    body = kf.kernel(u).body
    assert kf.vector_accesses(body) == {("vload3", "a"): 1, ("vstore2", "a"): 1}
    assert kf.scalar_accesses(body) == {"t": 2, "s": 1}
    p = tmp_path / "main.c"
    p.write_text(ASSIGNED + "int main(void) { int i, k; for (i = 0; i < N; i++) for (k = 0; "
                 "k < 5; k++) { a[i][k] = i + 0.5 * k; if (k < 4) t[i][k] = (i * 5 + k) % 4; }"
                 "\n f(N);\n for (i = 0; i < N; i++) printf(\"%g %g %g %g\\n\", s[i], "
                 "a[i][0], a[i][1], a[i][2]);\n return 0; }\n")
    same_output_on_device(p, tmp_path, 1e-12, ran=lambda rs: rs[0]["device_runs"] == 1)


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
    body = kf.kernel(u).body
    assert not kf.vector_accesses(body) and not _ids(u, "vectorize")
    assert kf.scalar_accesses(body) == {"a": 2, "b": 2}
