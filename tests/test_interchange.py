"""Loop interchange inside kernels (transform.interchange, analysis.dependence): which nests
are reordered and which are left, with the remark that says why; then programs built with
gcc -fopenmp and through ompcl, run on the device with both buffer modes, same output."""
from __future__ import annotations

import pytest
from pycparser import c_ast

from ompcl.analysis.ctypes_ import walk
from ompcl.pipeline import Options, describe, translate

from conftest import same_output_on_device

PRELUDE = """#define N 16
#define M 24
double a[N][M][M], b[N][M][M], c[N][M];
"""

CASES = [
    # (name, body of 'for (k = 0; k < N; k++)', remark id or None, innermost variable after)
    ("column_walk_swapped", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][j] = b[k][i][j] * 2.0 + c[k][i];", "interchange", "j"),
    ("already_contiguous", "for (i = 0; i < M; i++) for (j = 0; j < M; j++) "
     "a[k][i][j] = b[k][i][j];", None, "j"),
    ("dependence_reversed", "for (j = 1; j < M; j++) for (i = 0; i < M - 1; i++) "
     "b[k][i][j] = b[k][i + 1][j - 1] + 1.0;", "interchange-missed", "i"),
    ("dependence_kept", "for (j = 1; j < M; j++) for (i = 0; i < M; i++) "
     "b[k][i][j] = b[k][i][j - 1] + 1.0;", "interchange", "j"),
    ("descending_kept", "for (j = M - 2; j >= 0; j--) for (i = 0; i < M; i++) "
     "b[k][i][j] = b[k][i][j + 1] * 0.5;", "interchange", "j"),
    ("descending_reversed", "for (j = M - 2; j >= 0; j--) for (i = 0; i < M - 1; i++) "
     "b[k][i][j] = b[k][i + 1][j + 1] * 0.5;", "interchange-missed", "i"),
    ("scalar_carried", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "t = t * 0.5 + a[k][i][j]; c[k][0] = t;", "interchange-missed", "i"),
    ("triangular_bounds", "for (j = 0; j < M; j++) for (i = j; i < M; i++) "
     "a[k][i][j] = 1.0;", "interchange-missed", "i"),
    ("value_used_after", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][j] = 1.0; c[k][1] = i;", "interchange-missed", "i"),
    ("value_redefined_after", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][j] = 1.0; for (i = 0; i < M; i++) c[k][i] = i;", "interchange", "j"),
    ("value_read_by_next_init", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][j] = 1.0; for (i = i - 1; i >= 0; i--) c[k][i] = i;", "interchange-missed", "i"),
    ("non_affine_write", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][(j * j) % M] = 1.0;", None, "i"),
    ("indirect_write", "for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
     "a[k][i][(int)c[k][j] % M] = a[k][i][j];", "interchange-missed", "i"),
    ("own_variable_outside_kept", "for (int jj = 0; jj < M; jj++) for (i = 0; i < M; i++) "
     "a[k][i][jj] = 1.0; c[k][1] = i;", "interchange-missed", "i"),
    ("own_variables", "for (int jj = 0; jj < M; jj++) for (int ii = 0; ii < M; ii++) "
     "a[k][ii][jj] = 1.0; c[k][1] = i;", "interchange", "jj"),
    ("three_deep", "for (j = 0; j < M; j++) for (m = 0; m < 4; m++) for (i = 0; i < M; i++) "
     "a[k][i][j] += b[k][m][j];", "interchange", "j"),
    # loop distribution: the statement before the inner loop gets a loop of its own
    ("distributed", "for (j = 0; j < M; j++) { c[k][j] = 0; for (i = 0; i < M; i++) "
     "c[k][j] += a[k][i][j]; }", "distribute interchange", "j"),
    ("distribution_reversed", "for (j = 1; j < M; j++) { c[k][j] = b[k][2][j - 1]; "
     "for (i = 0; i < M; i++) b[k][i][j] = a[k][i][j] + c[k][j]; }", "distribute-missed", "i"),
    ("distribution_loop_variables", "for (j = 0; j < M; j++) { for (i = 0; i < M; i++) "
     "a[k][i][j] = c[k][i]; for (i = 1; i < M; i++) b[k][i][j] = a[k][i - 1][j]; }",
     "distribute interchange", "i"),   # the first part: a tie, left
    ("distribution_carried", "for (j = 1; j < M; j++) { for (i = 0; i < M; i++) "
     "a[k][i][j] = b[k][i][j - 1]; for (i = 0; i < M; i++) b[k][i][j] = a[k][i][j]; }",
     "distribute-missed", "i"),
    ("distribution_bound_written", "for (j = 0; j < M - (int)t; j++) { t = 0; "
     "for (i = 0; i < M; i++) a[k][i][j] = 1.0; }", "distribute-missed", "i"),
    ("distribution_scalar", "for (j = 0; j < M; j++) { t = c[k][j]; for (i = 0; i < M; i++) "
     "a[k][i][j] = t; }", "distribute-missed", "i"),
]


def _program(body: str, pointer: bool = False) -> str:
    head = "void f(double (*p)[M][M], double (*q)[M][M])" if pointer else "void f(void)"
    return (PRELUDE + head + " {\n  int k, i, j, m; double t = 0;\n"
            "#pragma omp parallel for private(i, j, m, t)\n"
            f"  for (k = 0; k < N; k++) {{\n    {body}\n  }}\n}}\n")


def _translate(tmp_path, text: str, **opts):
    src = tmp_path / "p.c"
    src.write_text(text)
    return translate(str(src), Options(model="none", **opts))


def _innermost(region) -> str:
    """The variable of the innermost loop of the kernel body's first nest."""
    loops = [n for n in walk(region.loops[-1].loop.stmt) if isinstance(n, c_ast.For)]
    first = loops[0]
    inner = [n for n in walk(first) if isinstance(n, c_ast.For)][-1]
    init = inner.init
    return init.lvalue.name if hasattr(init, "lvalue") else init.decls[0].name


@pytest.mark.parametrize("name,body,rid,inner", CASES, ids=[c[0] for c in CASES])
def test_interchange_verdicts(tmp_path, name, body, rid, inner):
    u = _translate(tmp_path, _program(body))
    assert [r.offload for r in u.regions] == [True]
    ids = [m.id for m in u.remarks if m.id.startswith(("interchange", "distribute"))]
    rids = rid.split() if rid else []
    assert ids == rids
    assert _innermost(u.regions[0]) == inner
    for rid in rids:
        (m,) = [m for m in u.remarks if m.id == rid]
        assert (m.loc.file, m.loc.line) == (str(tmp_path / "p.c"), 8)


def test_different_pointers_are_assumed_distinct_and_checked(tmp_path):
    """p and q may be one array: the nest is interchanged assuming they are not, and the
    launch checks it (the original runs on the host when their ranges overlap)."""
    u = _translate(tmp_path, _program("for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
                                      "p[k][i][j] = q[k][i][j] + 1.0;", pointer=True))
    (m,) = [m for m in u.remarks if m.id.startswith("interchange")]
    assert m.id == "interchange" and "assuming 'p' and 'q' are different memory" in m.message
    assert u.regions[0].distinct == (("p", "q"),)
    assert "ompcl_rt_distinct(&ompcl_L, 0, 1);" in u.host_source


def test_a_pointer_and_a_local_array_are_not_assumed_distinct(tmp_path):
    """Only two of the kernel's buffers can be checked at launch."""
    body = ("double w[M][M]; for (j = 0; j < M; j++) for (i = 0; i < M; i++) "
            "{ w[i][j] = 1.0; p[k][i][j] = w[i][j]; }")
    u = _translate(tmp_path, _program(body, pointer=True))
    assert not u.regions[0].distinct


ALIASED = r"""#include <stdio.h>
#define N 10
#define M 20
double a[N][M][M], b[N][M][M], c[N][M];
void f(double (*p)[M][M], double (*q)[M][M], double (*s)[M]) {
  int k, i, j;
#pragma omp parallel for private(i, j)
  for (k = 0; k < N; k++)
    for (j = 1; j < M; j++) {
      s[k][j] = s[k][j] * 0.5;
      for (i = 0; i < M - 1; i++)
        p[k][i][j] = q[k][i + 1][j - 1] * 0.5 + s[k][j] + 1.0;
    }
}
int main(void) {
  int k, i, j;
  for (k = 0; k < N; k++) for (i = 0; i < M; i++) {
    c[k][i] = k - i;
    for (j = 0; j < M; j++) { a[k][i][j] = k + i * 0.5 + j * 0.25; b[k][i][j] = i - j; }
  }
  f(a, b, c);   /* distinct: the device, interchanged */
  f(a, a, c);   /* p == q: the interchanged kernel would be wrong; the host runs it */
  double t = 0;
  for (k = 0; k < N; k++) for (i = 0; i < M; i++) {
    t += c[k][i];
    for (j = 0; j < M; j++) t += a[k][i][j] * (1 + (i + 2 * j) % 7);
  }
  printf("%.12e\n", t);
  return 0;
}
"""


def test_aliased_arguments_run_the_original(tmp_path, opencl_available):
    """A distributed and interchanged kernel over pointer parameters: with distinct arrays it
    runs on the device, with p == q the launch check sends it to the host; gcc's answer."""
    src = tmp_path / "al.c"
    src.write_text(ALIASED)
    u = translate(str(src), Options(model="none"))
    assert [m.id for m in u.remarks if m.id.startswith(("interchange", "distribute"))] == [
        "distribute", "interchange"]
    same_output_on_device(src, tmp_path, 1e-13, lambda regions: [  # distinct, then aliased
        (r["device_runs"], r["host_runs"], r["alias_declines"]) for r in regions] == [(1, 1, 1)])


def test_switched_off(tmp_path):
    body = CASES[0][1]
    u = _translate(tmp_path, _program(body), interchange=False)
    assert not [m for m in u.remarks if m.id.startswith("interchange")]
    assert _innermost(u.regions[0]) == "i"


def test_switched_off_by_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("OMPCL_INTERCHANGE", "0")
    assert Options().interchange is False
    monkeypatch.setenv("OMPCL_INTERCHANGE", "1")
    assert Options().interchange is True


def test_dump_after_interchange(tmp_path, capsys):
    _translate(tmp_path, _program(CASES[0][1]), dump_after="interchange")
    err = capsys.readouterr().err
    assert "---- after interchange ----" in err
    assert err.index("for (i = 0; i < 24; i++)") < err.index("for (j = 0; j < 24; j++)")


EXECUTED = PRELUDE.replace("16", "12") + r"""
#include <stdio.h>
double s1[N][M];
int main(void) {
  int k, i, j, m;
  for (k = 0; k < N; k++) for (i = 0; i < M; i++) for (j = 0; j < M; j++) {
    b[k][i][j] = k * 0.5 + i * 0.25 + j; a[k][i][j] = 0; c[k][i] = i - k;
  }
#pragma omp parallel for private(i, j)
  for (k = 0; k < N; k++)
    for (j = 0; j < M; j++)
      for (i = 0; i < M; i++)
        a[k][i][j] = b[k][i][j] * 2.0 + c[k][i];
#pragma omp parallel for private(i, j)
  for (k = 0; k < N; k++)
    for (j = 1; j < M; j++)
      for (i = 0; i < M; i++)
        b[k][i][j] = b[k][i][j - 1] * 0.5 + a[k][i][j];
#pragma omp parallel for private(i, j)
  for (k = 0; k < N; k++)
    for (j = M - 2; j >= 0; j--)
      for (i = 0; i < M - 1; i++)
        a[k][i][j] = a[k][i + 1][j + 1] * 0.5 + 1.0;
#pragma omp parallel for private(i, j, m)
  for (k = 0; k < N; k++) {
    for (j = 0; j < M; j++)
      for (m = 0; m < 3; m++)
        for (i = 0; i < M; i++)
          s1[k][j] += b[k][m][j] * a[k][i][j];
    for (i = 0; i < M; i++) c[k][i] = s1[k][i] + i;
  }
#pragma omp parallel for private(i, j)
  for (k = 0; k < N; k++)
    for (j = 0; j < M; j++) {
      c[k][j] = c[k][j] * 0.5;
      for (i = 0; i < M; i++) a[k][i][j] = a[k][i][j] * 0.25 + c[k][j] * i;
      for (i = 1; i < M; i++) b[k][i][j] = a[k][i - 1][j] + c[k][j];
    }
  double s = 0;
  for (k = 0; k < N; k++) for (i = 0; i < M; i++) {
    s += c[k][i];
    for (j = 0; j < M; j++) s += a[k][i][j] * (j + 1) + b[k][i][j] * (i + 2);
  }
  printf("%.10e\n", s);
  return 0;
}
"""


def test_interchanged_program_gives_the_original_output(tmp_path, opencl_available):
    src = tmp_path / "x.c"
    src.write_text(EXECUTED)
    u = translate(str(src), Options(model="none"))
    assert [m.id for m in u.remarks if m.id.startswith(("interchange", "distribute"))] == [
        "interchange", "interchange", "interchange-missed", "interchange", "distribute",
        "interchange", "interchange"]
    same_output_on_device(src, tmp_path, 1e-12,
                          lambda regions: all(r["device_runs"] == 1 for r in regions))


def random_nests(seed: int, count: int = 16) -> str:
    """A program of ``count`` random perfect nests over a 4-D array (orders, directions,
    subscript permutations and offsets drawn at random), each inside a work-sharing loop:
    some the pass may reorder, some it must not."""
    import random
    rnd = random.Random(seed)
    loops = []
    for n in range(count):
        vars_ = rnd.sample(["i", "j", "m"], rnd.choice([2, 3]))
        fors = "".join(f"for ({v} = M - 2; {v} >= 1; {v}--) " if rnd.random() < 0.3 else
                       f"for ({v} = 1; {v} < M - 1; {v}++) " for v in vars_)
        dims = vars_ + [v for v in ["i", "j", "m"] if v not in vars_]

        def ref(name: str, offsets: bool) -> str:
            order = rnd.sample(dims, 3) if name == "B" else dims_w
            subs = [f"{d}{rnd.choice(['', ' + 1', ' - 1'])}" if offsets and d in vars_
                    else d if d in vars_ else "2" for d in order]
            return name + "[k]" + "".join(f"[{s}]" for s in subs)
        dims_w = rnd.sample(dims, 3)
        rhs = f"{ref('A', True)} * 0.5 + {ref('B', False)} * 0.25 + {n}.0"
        loops.append("#pragma omp parallel for private(i, j, m)\n"
                     f"  for (k = 0; k < N; k++) {fors}\n    {ref('A', False)} = {rhs};")
    return ("#include <stdio.h>\n#define N 6\n#define M 9\n"
            "double A[N][M][M][M], B[N][M][M][M];\nint main(void) {\n  int k, i, j, m;\n"
            "  for (k = 0; k < N; k++) for (i = 0; i < M; i++) for (j = 0; j < M; j++)\n"
            "    for (m = 0; m < M; m++) { A[k][i][j][m] = (i * 7 + j * 3 + m + k) % 11;\n"
            "      B[k][i][j][m] = (i + 2 * j + 5 * m) % 13; }\n"
            + "\n".join(f"  {x}" for x in loops)
            + "\n  double s = 0;\n  for (k = 0; k < N; k++) for (i = 0; i < M; i++)\n"
            "    for (j = 0; j < M; j++) for (m = 0; m < M; m++)\n"
            "      s += A[k][i][j][m] * (1 + (i * 5 + j * 3 + m) % 7);\n"
            '  printf("%.15e\\n", s);\n  return 0;\n}\n')


@pytest.mark.parametrize("seed", [1, 2])
def test_random_nests_give_the_original_output(tmp_path, seed, opencl_available):
    """Whatever the pass decides on random nests, the device run prints what gcc's does."""
    src = tmp_path / "r.c"
    src.write_text(random_nests(seed))
    u = translate(str(src), Options(model="none"))
    assert all(r.offload for r in u.regions)
    same_output_on_device(src, tmp_path, 1e-13)


def random_imperfect(seed: int, count: int = 12) -> str:
    """A program of ``count`` random imperfect nests inside work-sharing loops: statements
    before, between and after inner loops, subscripts with random offsets in both loops, so
    that distributing the outer loop is legal in some and wrong in others; half of them in a
    function over pointer parameters, called with distinct and with the same arrays."""
    import random
    rnd = random.Random(seed)

    def ref(name: str) -> str:
        j = rnd.choice(["j"] * 6 + ["j + 1", "j - 1"])
        i = rnd.choice(["i"] * 4 + ["i + 1", "i - 1", "2"])
        return f"{name}[k][{i}][{j}]" if rnd.random() < 0.5 else f"{name}[k][{j}][{i}]"

    def stmt(names: str, inner: bool) -> str:
        w, r1, r2 = rnd.choice(names), rnd.choice(names), rnd.choice(names)
        lhs = ref(w) if inner else f"{w}[k][2][{rnd.choice(['j', 'j + 1', 'j - 1'])}]"
        rhs = ref(r1) if inner else f"{r1}[k][{rnd.choice(['1', '3'])}][j]"
        return f"{lhs} = {rhs} * 0.5 + {ref(r2) if inner else '1.0'};"

    def nest(names: str) -> str:
        parts = []
        for _ in range(rnd.choice([2, 3])):
            if rnd.random() < 0.6:
                parts.append(f"for (i = 1; i < M - 1; i++) {stmt(names, True)}")
            else:
                parts.append(stmt(names, False))
        if not any(p.startswith("for") for p in parts):
            parts.append(f"for (i = 1; i < M - 1; i++) {stmt(names, True)}")
        return ("#pragma omp parallel for private(i, j)\n  for (k = 0; k < N; k++)\n"
                "    for (j = 1; j < M - 1; j++) {\n      " + "\n      ".join(parts) + "\n    }")
    on_arrays = "\n  ".join(nest("AB") for _ in range(count // 2))
    on_pointers = "\n  ".join(nest("PQ") for _ in range(count - count // 2))
    return ("#include <stdio.h>\n#define N 4\n#define M 10\n"
            "double A[N][M][M], B[N][M][M];\n"
            "void g(double (*P)[M][M], double (*Q)[M][M]) {\n  int k, i, j;\n  "
            + on_pointers + "\n}\nint main(void) {\n  int k, i, j;\n"
            "  for (k = 0; k < N; k++) for (i = 0; i < M; i++) for (j = 0; j < M; j++) {\n"
            "    A[k][i][j] = (k + 3 * i + 7 * j) % 11; B[k][i][j] = (5 * i + j + k) % 13; }\n  "
            + on_arrays + "\n  g(A, B);\n  g(B, A);\n  g(A, A);\n  double s = 0;\n"
            "  for (k = 0; k < N; k++) for (i = 0; i < M; i++) for (j = 0; j < M; j++)\n"
            "    s += A[k][i][j] * (1 + (i + 2 * j) % 5) + B[k][i][j] * (2 + (i * j) % 3);\n"
            '  printf("%.15e\\n", s);\n  return 0;\n}\n')


@pytest.mark.parametrize("seed", [1, 2])
def test_random_imperfect_nests_give_the_original_output(tmp_path, seed, opencl_available):
    """Distribution (and the interchange it allows) on random imperfect nests, over arrays
    and over pointers that are sometimes the same array: the device prints gcc's answer."""
    src = tmp_path / "d.c"
    src.write_text(random_imperfect(seed))
    u = translate(str(src), Options(model="none"))
    assert all(r.offload for r in u.regions)
    same_output_on_device(src, tmp_path, 1e-13)


COLLAPSED = r"""#include <stdio.h>
#include <stdlib.h>
#define M 70
int main(int argc, char **argv) {
  int n = 50 + argc, i, j;
  double last = 0, sum = 0;
  double (*a)[M] = malloc(sizeof(double) * M * (n + 2));
  double (*b)[M] = malloc(sizeof(double) * M * (n + 2));
  double *c = malloc(sizeof(double) * (n + 2));
  for (i = 0; i < n + 2; i++) {
    c[i] = i * 0.1;
    for (j = 0; j < M; j++) { a[i][j] = i + j * 0.5; b[i][j] = 0; }
  }
  for (int t = 0; t < 3; t++) {
#pragma omp parallel for collapse(2) lastprivate(last) reduction(+:sum)
    for (j = 2; j < M - 1; j++)
      for (i = 1; i < n; i++) {
        b[i][j] = a[i][j - 1] * 0.5 + a[i + 1][j + 1] + c[i] + t;
        last = b[i][j] * j;
        sum += c[i + 1];
      }
  }
  double s = 0;
  for (i = 0; i < n + 2; i++) for (j = 0; j < M; j++) s += b[i][j] * (1 + (i + 3 * j) % 5);
  printf("%.12e %.12e %.10e\n", s, last, sum);
  return 0;
}
"""


def test_collapsed_loops_reordered(tmp_path, opencl_available):
    """collapse(2) over (j, i) with rows indexed by i: i becomes the outer dimension, the
    extents (from the loops' first and last values) follow it; the bounds checker and both
    buffer modes give the original output, the last iteration's value included."""
    src = tmp_path / "c.c"
    src.write_text(COLLAPSED)
    u = translate(str(src), Options(model="none"))
    (m,) = [m for m in u.remarks if m.id.startswith("interchange")]
    assert m.id == "interchange" and "(i, j)" in m.message and m.loc.line == 15
    assert [d.var for d in u.regions[0].loops] == ["i", "j"]
    assert "ompcl_lb[0]" in describe(u.regions[0]) and "ompcl_lb[1]" not in describe(
        u.regions[0]).split("array c")[1]
    same_output_on_device(src, tmp_path, 1e-10, lambda regions: regions[0]["device_runs"] == 3,
                          OMPCL_BOUNDS_CHECK="1")


def test_layout_benchmark_rejects_an_unknown_program():
    """`ompcl bench layout --programs NAME` with no such program: an error and exit 1."""
    import subprocess
    import sys
    res = subprocess.run([sys.executable, "-m", "ompcl.bench.layout", "--programs", "nosuch",
                          "--repeats", "1"], capture_output=True, text=True)
    assert res.returncode == 1
    assert "ompcl bench layout: error: 'nosuch' is not a NAS benchmark" in res.stderr
