"""Dynamic index reordering (transform.dynreorder, the runtime's permuted copies): which arrays
a kernel variant reads permuted and which are left, with the remark that says why; the
rewritten indexing; then programs built with gcc -fopenmp and through ompcl, run on the
device with the variant forced, off and chosen by the cost model, with copying and zero-copy
buffers, the host writing the arrays between kernels: always gcc's answer."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ompcl.pipeline import Options, translate
from ompcl.transform.dynreorder import grid_permutation, permutation

import kernelfacts as kf
from conftest import ROOT, compare_outputs, gcc_build, load_stats, ompcl_build, run

LINE_SOLVER = r"""#include <stdio.h>
#define K 20
#define J 18
#define I 16
double u[K][J][I][5];
double r[K][J][I][5];
static double q[K][J][I];
float f[K][J][I];

static void line_solve(void) {
    int i, j, k, m;
#pragma omp parallel for private(k, m) collapse(2)
    for (j = 0; j < J; j++) {
        for (i = 0; i < I; i++) {
            double acc[5] = {0, 0, 0, 0, 0};
            for (k = 0; k < K; k++) {
                for (m = 0; m < 5; m++) {
                    acc[m] = 0.5 * acc[m] + u[k][j][i][m] * (1.0 + q[k][j][i]);
                    r[k][j][i][m] = acc[m];
                }
                f[k][j][i] = (float)acc[0];
            }
            for (k = K - 2; k >= 0; k--)
                for (m = 0; m < 5; m++)
                    r[k][j][i][m] -= 0.25 * r[k + 1][j][i][m];
        }
    }
}

static void add(void) {
    int i, j, k, m;
#pragma omp parallel for private(j, i, m)
    for (k = 0; k < K; k++)
        for (j = 0; j < J; j++)
            for (i = 0; i < I; i++)
                for (m = 0; m < 5; m++)
                    u[k][j][i][m] += 0.01 * r[k][j][i][m] + 0.001 * f[k][j][i];
}

int main(void) {
    int i, j, k, m, step;
    double s = 0;
    for (k = 0; k < K; k++)
        for (j = 0; j < J; j++)
            for (i = 0; i < I; i++) {
                q[k][j][i] = 0.001 * ((k * 7 + j * 3 + i) % 11);
                for (m = 0; m < 5; m++)
                    u[k][j][i][m] = 1.0 + 0.01 * ((k + 2 * j + 3 * i + m) % 17);
            }
    for (step = 0; step < 4; step++) {
        line_solve();
        add();
        u[step][1][2][3] += 0.5;      /* the host writes between kernels */
        q[1][step][2] = 0.125;
        if (step == 1)
            r[3][2][1][0] = 7.0;      /* ... into an array the variant writes */
    }
    for (k = 0; k < K; k++)
        for (j = 0; j < J; j++)
            for (i = 0; i < I; i++)
                for (m = 0; m < 5; m++)
                    s += u[k][j][i][m] * (1 + (k + j + i + m) % 5) + r[k][j][i][m];
    printf("checksum %.12e %.6e\n", s, (double)f[3][4][5]);
    return 0;
}
"""


def _use(*depths):
    """A full subscript chain; per subscript the depths of the loops it mentions."""
    return (len(depths), False, [frozenset(d) for d in depths])


@pytest.mark.parametrize("nd,uses,perm", [
    # range loops (j, i) at depths 0, 1; the body's k at 2, m at 3
    (4, [_use({2}, {0}, {1}, {3})], (1, 2, 0, 3)),          # k walked inside (j, i)
    (4, [_use({2}, {0}, {1}, ())], (1, 2, 0, 3)),           # a constant last subscript stays
    (3, [_use({0}, {1}, {2})], (0, 1, 2)),                  # already in loop order
    (3, [_use({2}, {0}, {1}), _use({0}, {3}, {1})], (2, 0, 1)),  # deepest walk wins
    (2, [_use((), ())], (0, 1)),                            # no loop: unchanged
    (2, [_use({0, 2}, {1})], (1, 0)),                       # a[j + k][i]: k is deepest
])
def test_blocked_order(nd, uses, perm):
    assert permutation(nd, uses) == perm


@pytest.mark.parametrize("nd,uses,perm", [
    # the innermost range loop (neighbouring work-items) is depth 1
    (4, [_use({2}, {0}, {1}, {3})], (0, 1, 3, 2)),          # u[k][j][i][m]: i last
    (2, [_use({1}, {0})], (1, 0)),                          # a transposed access
    (2, [_use({0}, {1})], (0, 1)),                          # already coalesced
    (2, [_use({1}, {0}), _use({0}, {1})], None),            # two dimensions walked
    (2, [_use({0}, {2})], None),                            # work-items share the element
])
def test_grid_order(nd, uses, perm):
    assert grid_permutation(nd, uses, 1) == perm


def _translate(tmp_path: Path, src: str, **opts):
    p = tmp_path / "prog.c"
    p.write_text(src)
    return translate(str(p), Options(**opts))


def _permuted(subs: set, perm: tuple[int, ...]) -> set:
    """Subscript projections (``kernelfacts.subscripts``) in the order ``perm`` gives."""
    return {tuple(sub[p] for p in perm) for sub in subs}


def test_variant_indexing_and_remarks(tmp_path):
    """Guards the variants' indexing: each variant of the solver (blocked: k walked inside
    (j, i); grid: i last) indexes every permuted array in its new order, the same subscripts
    as the kernel's accesses permuted by the array's ``perm``; the kernel itself keeps the
    user's order (the run-time copies are made and used: relayout_runs in the executed tests
    below, the answer gcc's)."""
    u = _translate(tmp_path, LINE_SOLVER)
    done = [m for m in u.remarks if m.id == "dynreorder"]
    assert {m.message.split("'")[1] for m in done} == {"u", "r", "q", "f"}
    text = "\n".join(m.message for m in done)
    assert "(blocked shape): u[d0][d1][d2][d3] -> u[d1][d2][d0][d3]" in text
    assert "(grid shape): u[d0][d1][d2][d3] -> u[d0][d1][d3][d2]" in text
    # the second kernel walks its arrays in loop order (no blocked variant); its work-items
    # take neighbouring k, which the grid variant makes the last dimension
    assert [v.shape for v in u.variants[0]] == ["blocked", "grid"]
    assert [v.shape for v in u.variants[1]] == ["grid"]
    blocked, grid = u.variants[0]
    assert {a.name: a.perm for a in blocked.arrays} == {
        "f": (1, 2, 0), "q": (1, 2, 0), "r": (1, 2, 0, 3), "u": (1, 2, 0, 3)}
    assert {a.name: a.perm for a in grid.arrays} == {"r": (0, 1, 3, 2), "u": (0, 1, 3, 2)}
    solver = kf.kernel(u, "ompcl_k0").body
    loops = tuple(frozenset(v) for v in "kjim")
    assert kf.subscripts(solver, "u") == {loops}         # the user's order
    for k, found in u.variants.items():
        plain = kf.kernel(u, f"ompcl_k{k}").body
        for v in found:
            for a in v.arrays:
                assert kf.subscripts(v.spec.body, a.name) == _permuted(
                    kf.subscripts(plain, a.name), a.perm), (v.spec.name, a)
    assert kf.subscripts(blocked.spec.body, "u") == {_permuted({loops}, (1, 2, 0, 3)).pop()}
    assert kf.subscripts(grid.spec.body, "f") == kf.subscripts(solver, "f")  # not permuted
    # a program of their own, built when a variant is first wanted
    assert [k.name for k in u.kernels] == ["ompcl_k0", "ompcl_k1"]
    assert [v.spec.name for v in u.variants[0]] == ["ompcl_k0r", "ompcl_k0g"]


def test_switched_off(tmp_path):
    """Guards the switch: no variant, no remark (the program then never relays out:
    ``test_same_answer_on_device`` with OMPCL_DYNLAYOUT=0)."""
    u = _translate(tmp_path, LINE_SOLVER, dynreorder=False)
    assert not u.variants
    assert not [m for m in u.remarks if m.id == "dynreorder"]


MISSED = [
    # (kernel body inside 'for (j) for (i)' over a[K][J][I][4], the remark's reason)
    ("for (k = 0; k < K; k++) h(&a[k][j][i][0]);", "address of an element"),
    ("for (k = 0; k < K; k++) { g(a[k][j]); a[k][j][i][0] += 1.0; }", "trailing dimensions"),
]


@pytest.mark.parametrize("body,why", MISSED)
def test_left_alone_with_remark(tmp_path, body, why):
    src = ("#define K 8\n#define J 6\n#define I 5\ndouble a[K][J][I][4];\n"
           "void h(double *p) { p[0] += 1.0; }\n"
           "void g(double (*p)[4]) { p[1][2] += 1.0; }\n"
           "int main(void) { int i, j, k;\n#pragma omp parallel for private(k, i)\n"
           f"for (j = 0; j < J; j++) for (i = 0; i < I; i++) {{ {body} }}\nreturn 0; }}\n")
    u = _translate(tmp_path, src)
    assert not u.variants
    missed = [m for m in u.remarks if m.id == "dynreorder-missed"]
    assert missed and why in missed[0].message, [m.format() for m in u.remarks]


@pytest.fixture(scope="module")
def line_solver(tmp_path_factory, cache_dir):
    d = tmp_path_factory.mktemp("dynreorder")
    src = d / "line.c"
    src.write_text(LINE_SOLVER)
    ref, exe = d / "ref", d / "exe"
    gcc_build(src, ref)
    # the global reordering would make f contiguous for the solver (whole program): off, so
    # the variant permutes all four arrays
    os.environ["OMPCL_REORDER"] = "0"
    try:
        res = ompcl_build([src], exe, "--model", "none")
    finally:
        del os.environ["OMPCL_REORDER"]
    assert res.returncode == 0, res.stderr
    return run(ref).stdout, exe


@pytest.mark.parametrize("zero_copy", ["0", "1"])
def test_grid_shape_variant_same_answer(line_solver, zero_copy, tmp_path):
    """The grid shape (GPUs; forced here on the CPU device) runs the grid variants (each
    array with the dimension neighbouring work-items walk last): gcc's answer."""
    solver = _solver_run(line_solver, tmp_path, OMPCL_ZERO_COPY=zero_copy, OMPCL_DYNLAYOUT="1",
                         OMPCL_SHAPE="grid")
    assert solver["relayout_runs"] == 3 and solver["relayout_copies"] > 0


def _solver_run(line_solver, tmp_path: Path, **env: str) -> dict:
    """Runs the line solver on the device with ``env``: gcc's answer, four kernel entries;
    the solver's statistics."""
    expected, exe = line_solver
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_STATS=str(stats), **env)
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-12)
    st = load_stats(stats)
    if not st["device"]["available"]:
        pytest.skip("no OpenCL device")
    solver = next(r for r in st["regions"] if r["kernel"] == "ompcl_k0")
    assert solver["device_runs"] == 4
    return solver


@pytest.mark.parametrize("layout", ["1", "0", "auto"])
@pytest.mark.parametrize("zero_copy", ["0", "1"])
def test_same_answer_on_device(line_solver, layout, zero_copy, tmp_path):
    solver = _solver_run(line_solver, tmp_path, OMPCL_ZERO_COPY=zero_copy,
                         OMPCL_DYNLAYOUT=layout, OMPCL_SHAPE="blocked")
    if layout == "1":
        # the first entry builds the variants' program and runs the kernel; in: 4 arrays at
        # the second entry, then u (add wrote it) and q (the host wrote it) at each later
        # one, and r once more after the host wrote it; out: f and r after every variant
        # entry (a written copy stays current for the next entry)
        assert solver["relayout_runs"] == 3
        assert solver["relayout_copies"] == (4 + 2 * 2 + 1) + 3 * 2
        assert solver["relayout_accesses"] > 0
    elif layout == "0":
        assert solver["relayout_runs"] == 0 and solver["relayout_copies"] == 0


def test_host_path_same_answer(line_solver):
    """The host path of the same build (the original loops, the user's order): gcc's
    answer."""
    expected, exe = line_solver
    out = run(exe, OMPCL_DEVICE="openmp")
    assert out.returncode == 0, out.stderr
    compare_outputs(expected, out.stdout, 1e-12)


def test_short_runs_never_build_the_variants(line_solver, tmp_path):
    """Auto mode: however much the model wants a variant, its program is built only after
    the kernel has run for OMPCL_LAYOUT_BUILD times as long as its own program's build took
    (here: never, in a run of milliseconds)."""
    solver = _solver_run(line_solver, tmp_path, OMPCL_DYNLAYOUT="auto",
                         OMPCL_LAYOUT_COST="1,0,0", OMPCL_LAYOUT_BUILD="1e6")
    assert solver["relayout_runs"] == 0


@pytest.mark.parametrize("fault,runs", [("slow-variant", 1), ("", None)])
def test_cost_model_checked_by_measurement(line_solver, tmp_path, fault, runs):
    """With coefficients that make the variant look worth it (OMPCL_LAYOUT_COST), auto mode
    runs the kernel at the first entry (measured), builds the variants' program at the
    second (the kernel runs), runs the variant at the third, and from then on the side whose
    measured seconds per work-item, transpositions included, pay; a variant measured slower
    (fault hook) never runs again."""
    solver = _solver_run(line_solver, tmp_path, OMPCL_DYNLAYOUT="auto", OMPCL_FAULT=fault,
                         OMPCL_LAYOUT_COST="1,0,0", OMPCL_LAYOUT_BUILD="0")
    if runs is not None:
        assert solver["relayout_runs"] == runs
    else:
        assert 1 <= solver["relayout_runs"] <= 2


def test_failed_transposition_falls_back(line_solver, tmp_path):
    """A transposition that fails (fault hook): gcc's answer, that entry on the host, the
    variant given up."""
    expected, exe = line_solver
    stats = tmp_path / "s.json"
    out = run(exe, OMPCL_DEVICE="opencl", OMPCL_DYNLAYOUT="1", OMPCL_FAULT="permute",
              OMPCL_STATS=str(stats))
    assert out.returncode == 0
    compare_outputs(expected, out.stdout, 1e-12)
    st = load_stats(stats)
    if st["device"]["available"]:
        solver = next(r for r in st["regions"] if r["kernel"] == "ompcl_k0")
        # the first entry runs the kernel (and builds the variants), the second fails to
        # transpose and runs on the host, the others run the kernel again
        assert solver["host_runs"] == 1 and solver["device_runs"] == 3
        assert solver["relayout_runs"] == 0 and "transposing" in solver["fallback"]
        assert "transposing an array on the device failed" in out.stderr


def test_cost_model_shipped():
    """The shipped coefficients come from the micro-benchmark and are compiled in."""
    record = json.loads((ROOT / "models" / "layout-cost.json").read_text())
    c = record["coefficients"]
    assert c["gain_per_access"] > 0 and c["seconds_per_byte"] > 0
    assert record["points"] and "ompcl.bench.layout_cost" in record["command"]


def test_cost_model_fit():
    from ompcl.bench.layout_cost import fit
    pts = [{"saved": 2e-9 * a, "accesses": a, "copy_seconds": 3 * (1e-5 + 1e-10 * b),
            "copies": 3, "copy_bytes": b} for a, b in ((1e6, 1e6), (4e6, 8e6), (9e6, 3e7))]
    c = fit(pts)
    assert c["gain_per_access"] == pytest.approx(2e-9)
    assert c["seconds_per_byte"] == pytest.approx(1e-10)
    assert c["seconds_per_copy"] == pytest.approx(1e-5)


def test_benchmark_command_runs(tmp_path, cache_dir):
    out = tmp_path / "lc.json"
    res = subprocess.run([sys.executable, "-m", "ompcl.cli", "bench", "layout-cost",
                          "--sizes", "8", "--steps", "2", "--repeats", "1", "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "fitted: gain_per_access" in res.stdout
    assert json.loads(out.read_text())["points"][0]["n"] == 8


def test_translation_cache_sees_a_refitted_cost_model(tmp_path, monkeypatch):
    """The coefficients are compiled in: an `ompcl cc` translation cached with one
    layout-cost.json is not reused once the file changes."""
    from ompcl.codegen import host
    from ompcl.driver import cache, cc
    from ompcl.frontend.preprocess import CppOptions
    from ompcl.predict import model
    monkeypatch.setenv("OMPCL_CACHE_DIR", str(tmp_path / "cache"))
    src = tmp_path / "line.c"
    src.write_text(LINE_SOLVER)
    cost = tmp_path / "layout-cost.json"
    monkeypatch.setattr(model, "LAYOUT_COST", cost)
    monkeypatch.setattr(host, "LAYOUT_COST", cost)
    texts = []
    for gain in (1e-9, 3e-9):
        cost.write_text(json.dumps({"coefficients": {
            "gain_per_access": gain, "seconds_per_copy": 0.0, "seconds_per_byte": 1e-10}}))
        text, _ = cache.cached(str(src), CppOptions(), cc._translate_file)
        texts.append(text)
    assert ".layout_cost = { 1e-09, 0.0, 1e-10 }" in texts[0]
    assert ".layout_cost = { 3e-09, 0.0, 1e-10 }" in texts[1]
