"""Global index reordering (analysis.layout, transform.reorder): which arrays get their
dimensions permuted and which are left, with the remark naming the use that prevents it; the
rewritten text of declarations and uses; programs built with gcc -fopenmp and through ompcl,
run on the device with both buffer modes, same output."""
from __future__ import annotations

import pytest

from ompcl.pipeline import Options, translate

from conftest import same_output_on_device

PROGRAM = """#define N 40
#define M 56
{decls}
void g(double *p);
int main(void) {{
  int i, j;
  double s = 0;{locals}
  for (j = 0; j < M; j++)
    for (i = 0; i < N; i++)
      b[i][j] = i * 0.5 + j;
#pragma omp parallel for private(i)
  for (j = 0; j < M; j++)
    for (i = 0; i < N; i++)
      a[i][j] = b[i][j] * 2.0;
  {extra}
  for (j = 0; j < M; j++)
    for (i = 0; i < N; i++)
      s += a[i][j] * (i + 1);
  return (int)s;
}}
"""
STATIC = "static double a[N][M], b[N][M];"

CASES = [
    # (name, declarations, extra statement, remark per array, missed message part)
    ("static_arrays", STATIC, "", {"a": "reorder", "b": "reorder"}, ""),
    ("global_not_whole_program", "double a[N][M]; static double b[N][M];", "",
     {"a": "reorder-missed", "b": "reorder"}, "not 'static'"),
    ("uses_disagree", STATIC, "for (i = 0; i < N; i++) for (j = 0; j < M; j++) a[i][j] += 1;",
     {"a": "reorder-missed", "b": "reorder"}, "disagree"),
    ("address_taken", STATIC, "g(&a[0][0]);", {"a": "reorder-missed", "b": "reorder"},
     "size or address"),
    ("row_passed", STATIC, "g(a[1]);", {"a": "reorder-missed", "b": "reorder"},
     "1 of its 2 subscripts"),
    ("size_taken", STATIC, "s += sizeof a[0];", {"a": "reorder-missed", "b": "reorder"},
     "size or address"),
    ("initialised", "static double a[N][M] = {{1.0}}; static double b[N][M];", "",
     {"a": "reorder-missed", "b": "reorder"}, "initialiser"),
    ("declared_twice", "extern double a[N][M]; static double b[N][M]; double a[N][M];", "",
     {"a": "reorder-missed", "b": "reorder"}, "more than once"),
    ("shadowed", STATIC, "{ double a = 1; s += a; }", {"a": "reorder-missed", "b": "reorder"},
     "has its name"),
    ("local_arrays", "local: double a[N][M], b[N][M];", "", {"a": "reorder", "b": "reorder"}, ""),
    ("parameter_of_that_name", STATIC + "\nvoid h(double a[N][M]) { a[0][1] = 2; }", "",
     {"a": "reorder-missed", "b": "reorder"}, "has its name"),
    ("member_of_that_name", STATIC + "\nstruct rec { double a; };", "",
     {"a": "reorder-missed", "b": "reorder"}, "has its name"),
    ("macro_use", STATIC + "\n#define AT(x, y) a[x][y]",
     "for (j = 0; j < M; j++) for (i = 0; i < N; i++) s += AT(i, j);",
     {"a": "reorder-missed", "b": "reorder-missed"}, "not a plain subscript"),
    ("line_break_in_use", STATIC, "for (j = 0; j < M; j++) for (i = 0; i < N; i++) s += a[i\n][j];",
     {"a": "reorder-missed", "b": "reorder-missed"}, "not a plain subscript"),
]


def _text(decls: str, extra: str = "", locals: str = "") -> str:
    return PROGRAM.format(decls=decls, extra=extra, locals=locals)


def _translate(tmp_path, text: str, **opts):
    src = tmp_path / "p.c"
    src.write_text(text)
    return translate(str(src), Options(model="none", **opts))


def _verdicts(u) -> dict[str, str]:
    out = {}
    for m in u.remarks:
        if m.id.startswith("reorder"):
            out[m.message.split("'")[1]] = m.id
    return out


@pytest.mark.parametrize("name,decls,extra,expected,why", CASES, ids=[c[0] for c in CASES])
def test_reorder_verdicts(tmp_path, name, decls, extra, expected, why):
    local = decls.startswith("local:")
    u = _translate(tmp_path, _text(decls="" if local else decls, extra=extra,
                                   locals=decls[6:] if local else ""))
    assert _verdicts(u) == expected
    missed = [m for m in u.remarks if m.id == "reorder-missed"]
    assert all(why in m.message for m in missed)
    if expected.get("b") == "reorder":
        assert "b[j][i] = i * 0.5 + j;" in u.program.source
        assert "b[N][M]" not in u.program.source
    if expected["a"] == "reorder-missed":
        assert "a[i][j] = b[" in u.program.source  # left as written


def test_rewrite_keeps_every_offset(tmp_path):
    """Declarations and uses are permuted in place: the text keeps its length and lines."""
    text = _text(STATIC)
    u = _translate(tmp_path, text)
    new = u.program.source
    assert len(new) == len(text) and new.count("\n") == text.count("\n")
    assert "static double a[M][N], b[M][N];" in new
    assert "a[j][i] = b[j][i] * 2.0;" in new and "s += a[j][i] * (i + 1);" in new
    assert "a[j][i]" in u.kernel_source and "a[i][j]" not in u.kernel_source
    assert "a[j][i] = b[j][i] * 2.0;" in u.host_source


def test_whole_program_global(tmp_path):
    """With the whole program known, a global no other source mentions is reordered; one
    another source mentions is not, and the remark names that file."""
    other = tmp_path / "other.c"
    other.write_text("int unrelated(void) { return 0; }\n")
    text = _text("double a[N][M]; static double b[N][M];")
    u = _translate(tmp_path, text, sources=(str(other),), whole_program=True)
    assert _verdicts(u) == {"a": "reorder", "b": "reorder"}
    other.write_text("extern double a[40][56];\nint peek(void) { return a[1][2] > 0; }\n")
    u = _translate(tmp_path, text, sources=(str(other),), whole_program=True)
    (m,) = [m for m in u.remarks if m.id == "reorder-missed"]
    assert "other.c uses it too" in m.message
    # a macro of a header the other source includes spells the name: still seen
    (tmp_path / "get.h").write_text("extern double a[40][56];\n#define GET(i, j) a[i][j]\n")
    other.write_text('#include "get.h"\nint peek(void) { return GET(1, 2) > 0; }\n')
    u = _translate(tmp_path, text, sources=(str(other),), whole_program=True)
    (m,) = [m for m in u.remarks if m.id == "reorder-missed"]
    assert "other.c uses it too" in m.message


def test_declared_in_a_header(tmp_path):
    (tmp_path / "h.h").write_text("static double a[40][56], b[40][56];\n")
    u = _translate(tmp_path, _text('#include "h.h"'))
    assert _verdicts(u) == {"a": "reorder-missed", "b": "reorder-missed"}
    assert all("h.h, which ompcl does not rewrite" in m.message for m in u.remarks
               if m.id == "reorder-missed")


def test_switched_off(tmp_path, monkeypatch):
    text = _text(STATIC)
    assert _verdicts(_translate(tmp_path, text, reorder=False)) == {}
    monkeypatch.setenv("OMPCL_REORDER", "0")
    assert Options().reorder is False


def test_dump_after_reorder(tmp_path, capsys):
    _translate(tmp_path, _text(STATIC), dump_after="reorder")
    err = capsys.readouterr().err
    assert "---- after reorder ----" in err and "static double a[M][N], b[M][N];" in err


EXECUTED = r"""#include <stdio.h>
#define N 48
#define M 40
#define K 6
static double u[N][M][K], v[N][M][K], w[N][M];
static int cnt[N][M];
int main(void) {
  int i, j, k;
  for (j = 0; j < M; j++)
    for (k = 0; k < K; k++)
      for (i = 0; i < N; i++) {
        u[i][j][k] = i * 0.25 + j * 0.5 + k;
        v[i][j][k] = 0;
      }
  for (j = 0; j < M; j++)
    for (i = 0; i < N; i++) { w[i][j] = i - j; cnt[i][j] = 0; }
  for (int t = 0; t < 3; t++) {
#pragma omp parallel for private(i, k)
    for (j = 1; j < M - 1; j++)
      for (k = 0; k < K; k++)
        for (i = 1; i < N - 1; i++)
          v[i][j][k] = 0.5 * (u[i - 1][j][k] + u[i + 1][j][k]) + 0.25 * u[i][j + 1][k];
#pragma omp parallel for private(i)
    for (j = 0; j < M; j++)
      for (i = 0; i < N; i++) {
        w[i][j] = w[i][j] * 0.5 + v[i][j][t];
        cnt[i][j] += w[i][j] > 1.0;
      }
    for (j = 0; j < M; j++)
      for (k = 0; k < K; k++)
        for (i = 0; i < N; i++)
          u[i][j][k] = v[i][j][k] + 0.125;
  }
  double s = 0;
  long c = 0;
  for (j = 0; j < M; j++)
    for (i = 0; i < N; i++) {
      s += w[i][j] * (i + 1) + u[i][j][2];
      c += cnt[i][j];
    }
  printf("%.10e %ld %.10e\n", s, c, u[3][4][5]);
  return 0;
}
"""


def test_reordered_program_gives_the_original_output(tmp_path, opencl_available):
    src = tmp_path / "x.c"
    src.write_text(EXECUTED)
    u = translate(str(src), Options(model="none"))
    assert _verdicts(u) == {"u": "reorder", "v": "reorder", "w": "reorder", "cnt": "reorder"}
    assert "static double u[M][K][N], v[M][K][N], w[M][N];" in u.program.source
    same_output_on_device(src, tmp_path, 1e-12,
                          lambda regions: all(r["device_runs"] == 3 for r in regions))


@pytest.mark.parametrize("ldflags,whole", [("", True), ("-lm -fopenmp", True),
                                           ("helper.o", False), ("-lmine", False),
                                           ("-Wl,--whole-archive", False)])
def test_build_knows_the_whole_program_only_without_user_objects(ldflags, whole):
    from ompcl.cli import _whole_program
    assert _whole_program(ldflags) is whole


def test_array_parameters_are_never_reordered(tmp_path):
    """A parameter declared as an array is a pointer to the caller's rows: the caller's
    layout is not this function's to change."""
    text = ("#define N 8\n#define M 9\nvoid f(double p[N][M]) {\n  int i, j;\n"
            "#pragma omp parallel for private(i)\n  for (j = 0; j < M; j++)\n"
            "    for (i = 0; i < N; i++) p[i][j] = i;\n}\n")
    u = _translate(tmp_path, text)
    assert _verdicts(u) == {} and "p[i][j] = i;" in u.program.source


def random_layouts(seed: int, arrays: int = 6) -> str:
    """A program over static, global and local 2-D and 3-D arrays, each initialised, updated
    in work-sharing loops (from its own element and its neighbours in an earlier array: no
    race) and summed up, each loop nest in an order drawn at random (often the same for all
    of an array's uses, so that it is reordered)."""
    import random
    rnd = random.Random(seed)
    decls, body, sums, made = [], [], [], {2: [], 3: []}
    for n in range(arrays):
        name, rank = f"x{n}", rnd.choice([2, 3])
        dims = ["N", "M", "K"][:rank]
        where = rnd.choice(["static", "global", "local"])
        decl = f"double {name}{''.join(f'[{d}]' for d in dims)};"
        (body if where == "local" else decls).append(
            ("static " if where == "static" else "") + decl)
        vars_ = ["i", "j", "k"][:rank]
        lim = dict(zip(vars_, dims))
        fav = rnd.sample(vars_, rank)  # the order most nests use

        def nest(stmt: str, omp: bool, lo: int) -> str:
            order = fav if rnd.random() < 0.8 else rnd.sample(vars_, rank)
            head = "#pragma omp parallel for private(i, j, k)\n  " if omp else ""
            return head + "".join(f"for ({v} = {lo}; {v} < {lim[v]} - {lo}; {v}++) "
                                  for v in order) + stmt
        at = name + "".join(f"[{v}]" for v in vars_)
        body.append(nest(f"{at} = (i * 3 + j * 5 + k) % 7 + {n};", False, 0))
        for t in range(rnd.choice([1, 2])):
            src = rnd.choice(made[rank]) if made[rank] else name
            near = (src + "".join(f"[{v}{rnd.choice(['', ' + 1', ' - 1'])}]" for v in vars_)
                    if src != name else at)
            body.append(nest(f"{at} = 0.5 * {near} + 0.25 * {at} + {t}.0;", True, 1))
        made[rank].append(name)
        sums.append(nest(f"s += {at} * (1 + (i + 2 * j + 3 * k) % 5);", False, 0))
    return ("#include <stdio.h>\n#define N 14\n#define M 11\n#define K 9\n" + "\n".join(decls)
            + "\nint main(void) {\n  int i, j, k = 0;\n  double s = 0;\n  "
            + "\n  ".join(body + sums) + '\n  printf("%.15e\\n", s);\n  return 0;\n}\n')


@pytest.mark.parametrize("seed", [3, 4])
def test_random_layouts_give_the_original_output(tmp_path, seed, opencl_available):
    """Whatever the pass decides on random programs, the device run prints what gcc's does
    (the whole program, host loops included, sees the new layout)."""
    src = tmp_path / "r.c"
    src.write_text(random_layouts(seed))
    same_output_on_device(src, tmp_path, 1e-13, OMPCL_BOUNDS_CHECK="1")
