"""The scratch-array proof (analysis.scratch): a thread's own array may become one copy per
iteration only when every iteration writes what it reads of it first. Each case is a loop body
over a thread-private array ``w``; the verdicts are checked on the parsed C."""
from __future__ import annotations

import pytest
from pycparser import c_parser, c_ast

from ompcl.analysis.scratch import assigned_names, written_before_read

PRELUDE = ("double w[64], v[4][8], out[64], src[64]; int n, m, g[3];\n"
           "void fill(double *p, int k) { int q; for (q = 0; q < k; q++) p[q] = q; }\n"
           "void peek(double *p, int k) { int q; for (q = 0; q < k; q++) p[q] += 1; }\n"
           "void half(double *p, int k) { int q; if (k > 3) return; for (q = 0; q < k; q++) p[q] = 1; }\n")

CASES = [
    # (name, body of 'for (i = 0; i < 64; i++)', array, verdict)
    ("write_then_read_same_range", "for (j = 0; j < n; j++) w[j] = src[j]; "
     "for (j = 1; j < n - 1; j++) out[i] += w[j - 1] + w[j + 1];", "w", True),
    ("read_one_past", "for (j = 0; j < n; j++) w[j] = src[j]; "
     "for (j = 1; j < n; j++) out[i] += w[j + 1];", "w", False),
    ("read_before_write", "out[i] = w[0]; w[0] = i;", "w", False),
    ("read_ahead_inside_the_writing_loop", "for (j = 0; j < n; j++) { w[j] = src[j]; "
     "out[i] += w[n - 1]; }", "w", False),
    ("same_element_same_iteration", "for (j = 0; j < n; j++) { w[j] = src[j]; "
     "out[j] += w[j] * 2; }", "w", True),
    ("carried_counter", "w[(int)src[i] % 8]++;", "w", False),
    ("conditional_write", "if (src[i] > 0) for (j = 0; j < 8; j++) w[j] = 1; "
     "out[i] = w[3];", "w", False),
    ("break_in_writing_loop", "for (j = 0; j < 8; j++) { if (src[j] > 0) break; w[j] = 1; } "
     "out[i] = w[3];", "w", False),
    ("rows_and_constants", "for (k = 0; k < 4; k++) for (j = 0; j < 8; j++) v[k][j] = k * j; "
     "out[i] = v[3][7] + v[0][0];", "v", True),
    ("scalar_definitions", "for (j = 0; j < n; j++) w[j] = j; "
     "for (j = 1; j < n - 1; j++) { jm = j - 1; jp = j + 1; out[i] += w[jm] + w[jp]; }", "w", True),
    ("bound_changed_in_between", "for (j = 0; j < n; j++) w[j] = j; n = n + 1; "
     "out[i] = w[n - 1];", "w", False),
    ("invariant_array_bound", "for (j = 0; j <= g[0] - 1; j++) w[j] = j; "
     "for (j = 1; j <= g[0] - 2; j++) out[i] += w[j + 1];", "w", True),
    ("needs_a_bound_known_at_entry", "for (j = 0; j < n; j++) w[j] = j; "
     "out[i] = w[2] + w[1];", "w", False),
    ("callee_fills", "fill(w, 8); out[i] = w[7] + w[0];", "w", True),
    ("callee_fills_a_row", "for (k = 0; k < 4; k++) fill(v[k], 8); out[i] = v[2][5];", "v", True),
    ("callee_fills_too_little", "fill(w, 8); out[i] = w[8];", "w", False),
    ("callee_reads_first", "peek(w, 8); out[i] = w[1];", "w", False),
    ("callee_may_return_early", "half(w, 2); out[i] = w[1];", "w", False),
    ("pointer_escapes", "double *p = w; p[0] = 1; out[i] = w[0];", "w", False),
    ("strided_read_of_full_write", "for (j = 0; j < 2 * m; j++) w[j] = j; "
     "for (j = 0; j < m; j++) out[i] += w[2 * j] - w[2 * j + 1];", "w", True),
    ("linearised_tiles", "for (j = 0; j < 8; j++) for (k = 0; k < 4; k++) w[j * 4 + k] = j; "
     "out[i] = w[31] + w[0];", "w", True),
    ("tiles_with_gaps", "for (j = 0; j < 8; j++) for (k = 0; k < 3; k++) w[j * 4 + k] = j; "
     "out[i] = w[3];", "w", False),
    ("strided_write_strided_reads", "for (j = 1; j < m; j++) { k = 2 * j + 1 - n; "
     "w[k - 1] = j; } for (j = 1; j < m - 1; j++) { k = 2 * j + 1 - n; "
     "out[i] += w[k - 1] + w[k + 1]; }", "w", True),
    ("strided_read_off_the_lattice", "for (j = 0; j < m; j++) w[2 * j] = j; "
     "for (j = 0; j < m - 1; j++) out[i] += w[2 * j + 1];", "w", False),
    ("strided_write_is_no_cover", "for (j = 0; j < m; j++) w[2 * j] = j; "
     "out[i] = w[1];", "w", False),
    # the loop variable skips values: w[1] is never written
    ("loop_variable_changed_in_the_body", "for (j = 0; j < 8; j++) { w[j] = 1; j++; } "
     "out[i] = w[1];", "w", False),
    # a write apart from the loop variable counts only when the loop surely runs
    ("loop_that_may_not_run", "for (j = 0; j < n; j++) w[0] = 1; out[i] = w[0];", "w", False),
    ("loop_that_surely_runs", "for (j = 0; j < 4; j++) w[0] = 1; out[i] = w[0];", "w", True),
]


def _loop_body(body: str) -> tuple[c_ast.Node, dict]:
    src = PRELUDE + "void f(void) { int i, j, k, jm, jp;\nfor (i = 0; i < 64; i++) {" + body + "}\n}\n"
    ast = c_parser.CParser().parse(src)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    loop = funcs["f"].body.block_items[-1]
    return loop.stmt, funcs


@pytest.mark.parametrize("name,body,array,verdict", CASES, ids=[c[0] for c in CASES])
def test_written_before_read(name, body, array, verdict):
    stmt, funcs = _loop_body(body)
    assert written_before_read(array, stmt, assigned_names(stmt), funcs.get) is verdict


GLOBALS = ("double w[64], out[64], src[64];\n"
           "static void gen(double *y, int k) { int q; for (q = 0; q < k; q++) y[q] = q; }\n"
           "static void step(void) { gen(w, 16); }\n"
           "static void use(void) { out[0] = w[3]; }\n"
           "static double peek(void) { return w[20]; }\n"
           "static void gen2(int k, double *w, double *y) { int q; *w = 1; "
           "for (q = 0; q < k; q++) y[q] = q; }\n"
           "static void hid(double *w, double *y) { gen(y, 16); *w = 1; use(); }\n")

GLOBAL_CASES = [
    ("callee_fills_the_global", "step(); out[i] = w[15];", True),
    ("callee_reads_the_global_first", "use(); step();", False),
    ("callee_fills_too_little", "step(); out[i] = peek();", False),
    ("read_through_a_callee_after_fill", "step(); out[i] = w[2]; use();", True),
    # a parameter named like the global hides it: vranlc(n, &x, a, y) called with y = x
    ("parameter_hides_the_global", "gen2(2 * (1 << 3), &out[0], w); out[i] = w[15];", True),
    ("parameter_hides_the_global_too_little", "gen2(1 << 3, &out[0], w); out[i] = w[8];",
     False),
    ("hidden_global_read_by_the_callee_s_callee", "hid(&out[0], w); out[i] = w[3];", False),
    # (not followed: the callee's callee would see the global while the callee holds it)
    ("hidden_global_written_first", "gen(w, 4); hid(&out[0], w); out[i] = w[3];", False),
]


@pytest.mark.parametrize("name,body,verdict", GLOBAL_CASES, ids=[c[0] for c in GLOBAL_CASES])
def test_globals_used_by_callees(name, body, verdict):
    src = GLOBALS + "void f(void) { int i;\nfor (i = 0; i < 64; i++) {" + body + "}\n}\n"
    ast = c_parser.CParser().parse(src)
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    stmt = funcs["f"].body.block_items[-1].stmt
    assert written_before_read("w", stmt, assigned_names(stmt), funcs.get, named=True) is verdict


def test_conditions_known_at_entry():
    """A read the bounds imply is written (w[2] when n > 2) is proved under a condition on
    values the loop's entry knows, returned as C for the host to check."""
    stmt, funcs = _loop_body("for (j = 0; j < n; j++) w[j] = j; out[i] = w[2] + w[1] + w[n - 1];")
    conds = written_before_read("w", stmt, assigned_names(stmt), funcs.get,
                                entry=lambda name: name == "n")
    assert conds == ("(n + (-3)) >= 0",)
    # never on names the loop changes or that the entry does not know
    assert written_before_read("w", stmt, assigned_names(stmt), funcs.get,
                               entry=lambda name: False) is False
    # a write apart from the loop variable: the loop must run once (n >= 1)
    stmt, funcs = _loop_body("for (j = 0; j < n; j++) w[0] = j; out[i] = w[0];")
    assert written_before_read("w", stmt, assigned_names(stmt), funcs.get,
                               entry=lambda name: name == "n") == ("(n + (-1)) >= 0",)
    stmt, funcs = _loop_body("for (j = 0; j < n; j++) w[j] = j; n = 1; out[i] = w[2];")
    assert written_before_read("w", stmt, assigned_names(stmt), funcs.get,
                               entry=lambda name: True) is False


PRECONDITION = r"""#include <stdio.h>
#define M 256
double out[M];
static double w[M];
#pragma omp threadprivate(w)
static void f(int n) {
  int i, j;
#pragma omp parallel for private(j) schedule(static)
  for (i = 0; i < M; i++) {
    for (j = 0; j < n; j++)
      w[j] = i * 0.5 + j;
    out[i] = (n > 2 ? w[2] : 1.0) * 3.0 + w[n - 1];   /* w[2] is written when n > 2 */
  }
}
int main(void) {
  double s = 0.0;
  int i, n;
  for (n = 8; n >= 2; n -= 6) {       /* n = 8, then n = 2: w[2] left from before */
    f(n);
    for (i = 0; i < M; i++) s += out[i] * (i % 5);
    printf("n=%d %.6f\n", n, s);
  }
  return 0;
}
"""


def test_runtime_condition_keeps_a_loop_on_the_host_when_false(tmp_path, opencl_available):
    """Built and run: with n = 8 the loop runs on the device; with n = 2 the condition the
    privatisation needs is false and the original loop runs, giving the OpenMP answer."""
    from conftest import gcc_build, load_stats, ompcl_build, run
    src = tmp_path / "p.c"
    src.write_text(PRECONDITION)
    ref, exe = tmp_path / "ref", tmp_path / "exe"
    gcc_build(src, ref)
    res = ompcl_build([src], exe)
    assert res.returncode == 0, res.stderr
    stats = tmp_path / "s.json"
    for zero_copy in ("0", "1"):
        out = run(exe, OMPCL_DEVICE="opencl", OMPCL_ZERO_COPY=zero_copy,
                  OMPCL_STATS=str(stats), OMP_NUM_THREADS="2")
        assert out.returncode == 0, out.stderr
        assert out.stdout == run(ref, OMP_NUM_THREADS="2").stdout
        if opencl_available:
            region = load_stats(stats)["regions"][0]
            assert (region["device_runs"], region["host_runs"]) == (1, 1)
